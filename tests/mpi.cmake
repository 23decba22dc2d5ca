# libnodeshm_mpi (PMPI interposer): every intercepted collective against PMPI, linked before the
# MPI library and through LD_PRELOAD; with the interposer switched off; node-shared data.
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  # linked: libnodeshm_mpi comes before libmpi on the link line (it links MPI itself)
  add_executable(nodeshm_t_mpi_coll mpi_coll.c)
  set_target_properties(nodeshm_t_mpi_coll PROPERTIES OUTPUT_NAME mpi_coll)
  target_link_libraries(nodeshm_t_mpi_coll PRIVATE nodeshm_mpi ${CMAKE_DL_LIBS})
  # plain MPI program: the interposer comes only through LD_PRELOAD
  add_executable(nodeshm_t_mpi_coll_plain mpi_coll.c)
  set_target_properties(nodeshm_t_mpi_coll_plain PROPERTIES OUTPUT_NAME mpi_coll_plain)
  target_link_libraries(nodeshm_t_mpi_coll_plain PRIVATE MPI::MPI_C ${CMAKE_DL_LIBS})

  find_program(NODESHM_ENV_PROGRAM env)
  # every size through nodeshm (Open MPI's defaults leave < 512 B to the library, and large
  # broadcasts: test_bcast_large goes to 781 KiB)
  set(accel_env NODESHM_MPI_BCAST_MAX=1m NODESHM_MPI_BCAST_MIN=0 NODESHM_MPI_GATHER_MIN=0)
  nodeshm_add_mpi_test(NAME mpi_coll NP 1 2 4 8 ARGS --expect-accel TIMEOUT 300 ENV ${accel_env})
  nodeshm_add_mpi_test(NAME mpi_coll NP 4 PES_PER_NODE 2 ARGS --expect-accel TIMEOUT 300
                       ENV ${accel_env})
  # a ring of 2 small banks (NODESHM_MPI_RING): wrapped at every other small call; and none
  nodeshm_add_mpi_test(NAME mpi_coll NP 4 ARGS --expect-accel TIMEOUT 300 SUFFIX _ring2
                       ENV ${accel_env} NODESHM_MPI_RING=2 NODESHM_MPI_RING_BYTES=512)
  nodeshm_add_mpi_test(NAME mpi_coll NP 3 ARGS --expect-accel TIMEOUT 300 SUFFIX _no_ring
                       ENV ${accel_env} NODESHM_MPI_RING=0)
  nodeshm_add_mpi_test(NAME mpi_coll NP 4 ARGS --expect-none ENV NODESHM_MPI_DISABLE=all
                       SUFFIX _disabled TIMEOUT 300)
  # every threshold at 1 MiB in a 256 KiB window (NODESHM_MPI_WINDOW_MAX): each communicator
  # scales its thresholds down to what fits, so the test's larger messages go to the MPI
  # library; an op that kept the configured threshold would overrun its buffers
  set(window_env NODESHM_MPI_WINDOW_MAX=256k NODESHM_MPI_BCAST_MIN=0 NODESHM_MPI_GATHER_MIN=0)
  foreach(op BCAST GATHER GATHERV SCATTER SCATTERV ALLGATHER ALLGATHERV REDUCE ALLREDUCE
             REDUCE_SCATTER_BLOCK ALLTOALL ALLTOALLV)
    list(APPEND window_env NODESHM_MPI_${op}_MAX=1m)
  endforeach()
  nodeshm_add_mpi_test(NAME mpi_coll NP 4 ARGS --expect-accel TIMEOUT 300 SUFFIX _window
                       ENV ${window_env})
  nodeshm_add_mpi_test(NAME mpi_coll NP 4 PES_PER_NODE 2 ARGS --expect-accel TIMEOUT 300
                       SUFFIX _window ENV ${window_env})
  # LD_PRELOAD on the ranks only (not on mpiexec): oshrun -np N env LD_PRELOAD=... exe
  foreach(np 2 4 8)
    add_test(NAME mpi_coll_preload_np${np}
      COMMAND "${NODESHM_OSHRUN}" -np ${np} "${NODESHM_ENV_PROGRAM}"
              "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" $<TARGET_FILE:nodeshm_t_mpi_coll_plain>
              --expect-accel)
    set_tests_properties(mpi_coll_preload_np${np} PROPERTIES TIMEOUT 300 LABELS "mpi;np${np}"
      ENVIRONMENT "${accel_env}")
  endforeach()
  add_test(NAME mpi_coll_preload_np4_ppn2
    COMMAND "${NODESHM_OSHRUN}" -np 4 "${NODESHM_ENV_PROGRAM}"
            "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" $<TARGET_FILE:nodeshm_t_mpi_coll_plain> --expect-accel)
  set_tests_properties(mpi_coll_preload_np4_ppn2 PROPERTIES TIMEOUT 300 LABELS "mpi;np4"
    ENVIRONMENT "NODESHM_PES_PER_NODE=2;${accel_env}")
  # without the interposer the plain program must see none
  nodeshm_add_mpi_test(NAME mpi_coll_plain NP 2 ARGS --expect-none)

  # where the lower bounds hold: defaults only with at most 2 ranks on every node, set ones
  # everywhere (tests/mpi_min_scope.c computes what to expect from the same environment)
  add_executable(nodeshm_t_mpi_min_scope mpi_min_scope.c)
  set_target_properties(nodeshm_t_mpi_min_scope PROPERTIES OUTPUT_NAME mpi_min_scope)
  target_link_libraries(nodeshm_t_mpi_min_scope PRIVATE nodeshm_mpi)
  nodeshm_add_mpi_test(NAME mpi_min_scope NP 2 4)
  nodeshm_add_mpi_test(NAME mpi_min_scope NP 4 PES_PER_NODE 2)
  nodeshm_add_mpi_test(NAME mpi_min_scope NP 5 PES_PER_NODE 3)
  nodeshm_add_mpi_test(NAME mpi_min_scope NP 4 SUFFIX _set
                       ENV NODESHM_MPI_BCAST_MIN=512 NODESHM_MPI_REDUCE_MIN=0 NODESHM_MPI_SCATTER_MIN=16)
endif()

# node-shared data (include/nodeshm.h)
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  add_executable(nodeshm_t_mpi_shared mpi_shared.c)
  set_target_properties(nodeshm_t_mpi_shared PROPERTIES OUTPUT_NAME mpi_shared)
  target_link_libraries(nodeshm_t_mpi_shared PRIVATE nodeshm_mpi)
  nodeshm_add_mpi_test(NAME mpi_shared NP 1 2 4 8)
  nodeshm_add_mpi_test(NAME mpi_shared NP 4 PES_PER_NODE 2)
  nodeshm_add_mpi_test(NAME mpi_shared NP 3 PES_PER_NODE 2 SUFFIX _disabled ENV NODESHM_MPI_DISABLE=all)
endif()
