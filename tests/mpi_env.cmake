# libnodeshm_mpi's settings through the core's reader (src/core/env.c): every size form, the
# tuning file, bad values at MPI_Init (message, exit, no hang, /dev/shm), NODESHM_DEBUG's lines
# (tests/mpi_env.sh); and a widened NODESHM_MPI_ALLTOALLV_MAX keeps small alltoallv calls
# accelerated (its matrix's stride is capped by what fits: src/mpi/alltoall.c).
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  add_executable(nodeshm_t_mpi_env mpi_env.c)
  set_target_properties(nodeshm_t_mpi_env PROPERTIES OUTPUT_NAME mpi_env)
  target_link_libraries(nodeshm_t_mpi_env PRIVATE nodeshm_mpi)
  nodeshm_add_script_test(NAME mpi_env_settings_np2 TIMEOUT 300
    PASS_REGEX "mpi_env.sh: 2 ranks: PASS"
    COMMAND mpi_env.sh 2 $<TARGET_FILE:nodeshm_t_mpi_env>)
  # the block stride was the threshold: 2 ranks from 2m, 4 ranks from 1m, no call was accelerated
  foreach(case "2;2m;2097152" "4;1m;1048576")
    list(GET case 0 np)
    list(GET case 1 max)
    list(GET case 2 bytes)
    add_test(NAME mpi_env_a2av_wide_np${np}
      COMMAND "${NODESHM_OSHRUN}" -np ${np} $<TARGET_FILE:nodeshm_t_mpi_env> a2av ${bytes})
    set_tests_properties(mpi_env_a2av_wide_np${np} PROPERTIES TIMEOUT 120 LABELS "mpi;np${np}"
      PASS_REGULAR_EXPRESSION "mpi_env: PASS" FAIL_REGULAR_EXPRESSION "mpi_env: FAIL"
      ENVIRONMENT "NODESHM_MPI_ALLTOALLV_MAX=${max}")
  endforeach()
  # between pseudo-nodes (the leaders' stage is the matrix)
  add_test(NAME mpi_env_a2av_wide_np4_ppn2
    COMMAND "${NODESHM_OSHRUN}" -np 4 $<TARGET_FILE:nodeshm_t_mpi_env> a2av 2097152)
  set_tests_properties(mpi_env_a2av_wide_np4_ppn2 PROPERTIES TIMEOUT 120 LABELS "mpi;np4"
    PASS_REGULAR_EXPRESSION "mpi_env: PASS" FAIL_REGULAR_EXPRESSION "mpi_env: FAIL"
    ENVIRONMENT "NODESHM_MPI_ALLTOALLV_MAX=2m;NODESHM_PES_PER_NODE=2")
endif()
