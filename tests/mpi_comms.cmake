# libnodeshm_mpi with many live communicators (tests/mpi_comms.c): MPICH's 2048 context ids must
# stay the program's.  Windows set so that every op runs in the interposer on both MPIs (Open
# MPI: gatherv/scatterv off, 512 B lower bounds), with gatherv/scatterv blocks above 4 KiB
# going point to point.
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  add_executable(nodeshm_t_mpi_comms mpi_comms.c)
  set_target_properties(nodeshm_t_mpi_comms PROPERTIES OUTPUT_NAME mpi_comms)
  target_link_libraries(nodeshm_t_mpi_comms PRIVATE nodeshm_mpi ${CMAKE_DL_LIBS})
  # plain MPI program: the capacity without the interposer (mpi_comms --probe)
  add_executable(nodeshm_t_mpi_comms_plain mpi_comms.c)
  set_target_properties(nodeshm_t_mpi_comms_plain PROPERTIES OUTPUT_NAME mpi_comms_plain)
  target_link_libraries(nodeshm_t_mpi_comms_plain PRIVATE MPI::MPI_C ${CMAKE_DL_LIBS})
  set(_comms_env NODESHM_MPI_GATHERV_MAX=4k NODESHM_MPI_SCATTERV_MAX=4k NODESHM_MPI_BCAST_MIN=0
      NODESHM_MPI_GATHER_MIN=0 NODESHM_MPI_SCATTER_MIN=0 NODESHM_MPI_REDUCE_MIN=0)
  foreach(np 2 4)
    add_test(NAME mpi_comms_np${np} COMMAND "${NODESHM_OSHRUN}" -np ${np}
             $<TARGET_FILE:nodeshm_t_mpi_comms> --live 2000 --expect-accel)
    set_tests_properties(mpi_comms_np${np} PROPERTIES TIMEOUT 300 LABELS "mpi;np${np}"
      PASS_REGULAR_EXPRESSION "mpi_comms: .*PASS" ENVIRONMENT "${_comms_env}")
  endforeach()
  add_test(NAME mpi_comms_np4_ppn2 COMMAND "${NODESHM_OSHRUN}" -np 4
           $<TARGET_FILE:nodeshm_t_mpi_comms> --live 600 --expect-accel)
  set_tests_properties(mpi_comms_np4_ppn2 PROPERTIES TIMEOUT 300 LABELS "mpi;np4"
    PASS_REGULAR_EXPRESSION "mpi_comms: .*PASS" ENVIRONMENT "${_comms_env};NODESHM_PES_PER_NODE=2")
  add_test(NAME mpi_comms_preload_np3 COMMAND "${NODESHM_OSHRUN}" -np 3 env
           "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" $<TARGET_FILE:nodeshm_t_mpi_comms_plain> --live 2000
           --expect-accel)
  set_tests_properties(mpi_comms_preload_np3 PROPERTIES TIMEOUT 300 LABELS "mpi;np3"
    PASS_REGULAR_EXPRESSION "mpi_comms: .*PASS" ENVIRONMENT "${_comms_env}")
endif()
