# libnodeshm_mpi (PMPI interposer): MPI_Gatherv, MPI_Scatter(v), MPI_Allgather(v) against PMPI,
# linked before the MPI library and through LD_PRELOAD; with the interposer switched off.
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  add_executable(nodeshm_t_mpi_coll_gather mpi_coll_gather.c)
  set_target_properties(nodeshm_t_mpi_coll_gather PROPERTIES OUTPUT_NAME mpi_coll_gather)
  target_link_libraries(nodeshm_t_mpi_coll_gather PRIVATE nodeshm_mpi ${CMAKE_DL_LIBS})
  add_executable(nodeshm_t_mpi_coll_gather_plain mpi_coll_gather.c)
  set_target_properties(nodeshm_t_mpi_coll_gather_plain PROPERTIES OUTPUT_NAME mpi_coll_gather_plain)
  target_link_libraries(nodeshm_t_mpi_coll_gather_plain PRIVATE MPI::MPI_C ${CMAKE_DL_LIBS})

  find_program(NODESHM_ENV_PROGRAM env)
  # thresholds at 16 KiB: the test's counts fall below and above them (1001 doubles, 4099 ints),
  # so every op runs both paths, and Gatherv/Scatterv mix slot and point-to-point blocks
  set(gather_env NODESHM_MPI_GATHERV_MAX=16k NODESHM_MPI_SCATTER_MAX=16k
      NODESHM_MPI_SCATTERV_MAX=16k NODESHM_MPI_ALLGATHER_MAX=16k NODESHM_MPI_ALLGATHERV_MAX=16k
      NODESHM_MPI_GATHERV_MIN=0 NODESHM_MPI_SCATTER_MIN=0 NODESHM_MPI_SCATTERV_MIN=0
      NODESHM_MPI_BCAST_MIN=0 NODESHM_MPI_GATHER_MIN=0 NODESHM_MPI_REDUCE_MIN=0)
  nodeshm_add_mpi_test(NAME mpi_coll_gather NP 1 2 4 8 ARGS --expect-accel TIMEOUT 120 ENV ${gather_env})
  nodeshm_add_mpi_test(NAME mpi_coll_gather NP 4 PES_PER_NODE 2 ARGS --expect-accel TIMEOUT 120
                       ENV ${gather_env})
  # uneven nodes; lower bounds: small messages go to the MPI library, larger ones do not
  nodeshm_add_mpi_test(NAME mpi_coll_gather NP 3 PES_PER_NODE 2 ARGS --expect-accel TIMEOUT 120
                       ENV ${gather_env} NODESHM_MPI_SCATTER_MIN=100 NODESHM_MPI_ALLGATHER_MIN=100
                           NODESHM_MPI_ALLGATHERV_MIN=100)
  # lower bounds on one node: gatherv/scatterv move small blocks point to point
  nodeshm_add_mpi_test(NAME mpi_coll_gather NP 4 ARGS --expect-accel TIMEOUT 120 SUFFIX _min
                       ENV ${gather_env} NODESHM_MPI_GATHERV_MIN=100 NODESHM_MPI_SCATTERV_MIN=100
                           NODESHM_MPI_SCATTER_MIN=100 NODESHM_MPI_ALLGATHER_MIN=100
                           NODESHM_MPI_ALLGATHERV_MIN=100)
  # a ring of 3 small banks of 512 bytes (one node, small messages: NODESHM_MPI_RING): the
  # back-to-back calls wrap it again and again; gatherv/scatterv blocks up to 512 B use it
  nodeshm_add_mpi_test(NAME mpi_coll_gather NP 4 ARGS --expect-accel TIMEOUT 120 SUFFIX _ring3
                       ENV ${gather_env} NODESHM_MPI_GATHERV_MAX=512 NODESHM_MPI_SCATTERV_MAX=512
                           NODESHM_MPI_RING=3 NODESHM_MPI_RING_BYTES=512)
  # the measured defaults
  nodeshm_add_mpi_test(NAME mpi_coll_gather NP 4 ARGS --expect-accel TIMEOUT 120 SUFFIX _defaults)
  nodeshm_add_mpi_test(NAME mpi_coll_gather NP 4 ARGS --expect-none TIMEOUT 120 SUFFIX _disabled
                       ENV NODESHM_MPI_DISABLE=gatherv,scatter,scatterv,allgather,allgatherv,gather,allreduce,reduce,alltoall,alltoallv,reduce_scatter_block,bcast,barrier)
  # LD_PRELOAD on the ranks only (not on mpiexec)
  add_test(NAME mpi_coll_gather_preload_np4
    COMMAND "${NODESHM_OSHRUN}" -np 4 "${NODESHM_ENV_PROGRAM}"
            "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" $<TARGET_FILE:nodeshm_t_mpi_coll_gather_plain>
            --expect-accel)
  set_tests_properties(mpi_coll_gather_preload_np4 PROPERTIES TIMEOUT 120 LABELS "mpi;np4"
    ENVIRONMENT "${gather_env}")
endif()
