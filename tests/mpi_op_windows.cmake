# libnodeshm_mpi's size windows, per op by nodeshm_mpi_accelerated_op (tests/mpi_op_windows.c):
# one op's window widened far beyond the node's shared window shrinks only that op (the others
# keep their small and medium calls).
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  add_executable(nodeshm_t_mpi_op_windows mpi_op_windows.c)
  set_target_properties(nodeshm_t_mpi_op_windows PROPERTIES OUTPUT_NAME mpi_op_windows)
  target_link_libraries(nodeshm_t_mpi_op_windows PRIVATE nodeshm_mpi)
  # the others' calls, inside every flavor's default window at every shape
  set(others bcast:small bcast:16k scatter:small scatter:8k reduce:small reduce:2k allreduce:8 allreduce:64k
             allgather:8 allgather:4k alltoall:8 alltoall:4k reduce_scatter_block:64k)
  # gather at 1g on one node of 4 (its slots alone would be 8 GiB of banks); allreduce at 1g
  # between pseudo-nodes of 2 (result area and slots: 6 GiB); the widened op itself still runs at
  # 1 MiB.  (A widened scatter or allgather between nodes costs no window: their stage is capped
  # by NODESHM_MPI_STAGE_MAX.)
  nodeshm_add_mpi_test(NAME mpi_op_windows NP 4 SUFFIX _gather_wide TIMEOUT 300
                       ARGS gather:1m gather:small ${others} ENV NODESHM_MPI_GATHER_MAX=1g)
  nodeshm_add_mpi_test(NAME mpi_op_windows NP 4 PES_PER_NODE 2 SUFFIX _allreduce_wide TIMEOUT 300
                       ARGS allreduce:1m gather:small gather:8k ${others} ENV NODESHM_MPI_ALLREDUCE_MAX=1g)
endif()

# the default windows by communicator shape (NSM_OPS in src/mpi/nsmpi_config.h: one node of 2,
# 3-4, 5+ ranks; several nodes): at 2, 4 and 8 ranks on one node the seed scenario's
# 80,000-byte-per-rank gather and small rooted calls are accelerated, each by its op; over
# pseudo-nodes of 2 and 4 the gather
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  set(shape_calls gather:80000 bcast:small gather:small scatter:small reduce:small)
  nodeshm_add_mpi_test(NAME mpi_op_windows NP 2 4 8 SUFFIX _defaults TIMEOUT 300 ARGS ${shape_calls})
  # several (pseudo-)nodes: the seed scenario's gather
  nodeshm_add_mpi_test(NAME mpi_op_windows NP 8 PES_PER_NODE 2 SUFFIX _defaults TIMEOUT 300 ARGS gather:80000)
  nodeshm_add_mpi_test(NAME mpi_op_windows NP 8 PES_PER_NODE 4 SUFFIX _defaults TIMEOUT 300 ARGS gather:80000)
endif()

# the leaders' step between nodes above 32 KiB goes through the MPI library's non-blocking form
# (src/mpi/leaders.h; MPICH: bcast, reduce, allreduce; Open MPI: allreduce): all three on both
# sides of that size, windows widened,
# over 2 and 4 pseudo-nodes and 3 (not a power of two), values checked per call
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  set(leaders_calls bcast:32k bcast:40k bcast:4m reduce:32k reduce:40k reduce:1m allreduce:32k allreduce:40k
                    allreduce:1m bcast:small reduce:small allreduce:8)
  set(leaders_env NODESHM_MPI_BCAST_MAX=8m NODESHM_MPI_REDUCE_MAX=8m NODESHM_MPI_ALLREDUCE_MAX=8m)
  nodeshm_add_mpi_test(NAME mpi_op_windows NP 4 6 8 PES_PER_NODE 2 SUFFIX _leaders_large TIMEOUT 300
                       ARGS ${leaders_calls} ENV ${leaders_env})
endif()
