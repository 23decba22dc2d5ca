# libnodeshm_mpi: MPI_Reduce, MPI_Reduce_scatter_block, MPI_Alltoall(v) against PMPI (linked before
# the MPI library, through LD_PRELOAD, in pseudo-node mode with even and uneven nodes, and with the
# interposer switched off).
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  add_executable(nodeshm_t_mpi_coll_reduce mpi_coll_reduce.c)
  set_target_properties(nodeshm_t_mpi_coll_reduce PROPERTIES OUTPUT_NAME mpi_coll_reduce)
  target_link_libraries(nodeshm_t_mpi_coll_reduce PRIVATE nodeshm_mpi ${CMAKE_DL_LIBS})
  add_executable(nodeshm_t_mpi_coll_reduce_plain mpi_coll_reduce.c)
  set_target_properties(nodeshm_t_mpi_coll_reduce_plain PROPERTIES OUTPUT_NAME mpi_coll_reduce_plain)
  target_link_libraries(nodeshm_t_mpi_coll_reduce_plain PRIVATE MPI::MPI_C ${CMAKE_DL_LIBS})

  find_program(NODESHM_ENV_PROGRAM env)
  # thresholds the tests rely on: the largest counts of every op lie above them (fallback
  # tested), and reduce down to one element
  set(reduce_env NODESHM_MPI_REDUCE_MIN=0 NODESHM_MPI_REDUCE_MAX=64k NODESHM_MPI_REDUCE_SCATTER_BLOCK_MAX=64k
      NODESHM_MPI_ALLTOALL_MAX=4k NODESHM_MPI_ALLTOALLV_MAX=4k)
  nodeshm_add_mpi_test(NAME mpi_coll_reduce NP 1 2 4 8 ARGS --expect-accel TIMEOUT 300 ENV ${reduce_env})
  # between nodes: even pseudo-nodes (2+2, 3+3) and uneven ones (6 ranks, 4 per node: 4+2)
  nodeshm_add_mpi_test(NAME mpi_coll_reduce NP 4 PES_PER_NODE 2 ARGS --expect-accel TIMEOUT 300
                       ENV ${reduce_env})
  nodeshm_add_mpi_test(NAME mpi_coll_reduce NP 6 PES_PER_NODE 3 ARGS --expect-accel TIMEOUT 300
                       ENV ${reduce_env})
  nodeshm_add_mpi_test(NAME mpi_coll_reduce NP 6 PES_PER_NODE 4 ARGS --expect-accel TIMEOUT 300
                       ENV ${reduce_env})
  # one buffer bank (NODESHM_MPI_BANKS=1): no rank runs ahead into the next call's buffers; on
  # one node too, where a rank that said done too early (core/coll/alltoall.h) has its blocks
  # overwritten by a peer's next call at once (the run-ahead alltoalls fail)
  nodeshm_add_mpi_test(NAME mpi_coll_reduce NP 4 PES_PER_NODE 2 ARGS --expect-accel TIMEOUT 300
                       ENV ${reduce_env} NODESHM_MPI_BANKS=1 SUFFIX _one_bank)
  nodeshm_add_mpi_test(NAME mpi_coll_reduce NP 4 ARGS --expect-accel TIMEOUT 300
                       ENV ${reduce_env} NODESHM_MPI_BANKS=1 SUFFIX _one_bank)
  # the default thresholds (reduce's lower bound included): values only, no op is sure to run
  # through the interposer on every communicator
  nodeshm_add_mpi_test(NAME mpi_coll_reduce NP 4 TIMEOUT 300 SUFFIX _defaults)
  nodeshm_add_mpi_test(NAME mpi_coll_reduce NP 4 ARGS --expect-none TIMEOUT 300
                       ENV NODESHM_MPI_DISABLE=all SUFFIX _disabled)
  add_test(NAME mpi_coll_reduce_preload_np4
    COMMAND "${NODESHM_OSHRUN}" -np 4 "${NODESHM_ENV_PROGRAM}"
            "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" $<TARGET_FILE:nodeshm_t_mpi_coll_reduce_plain> --expect-accel)
  set_tests_properties(mpi_coll_reduce_preload_np4 PROPERTIES TIMEOUT 300 LABELS "mpi;np4"
    ENVIRONMENT "${reduce_env}")
endif()
