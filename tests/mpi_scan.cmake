# libnodeshm_mpi: MPI_Scan, MPI_Exscan, MPI_Reduce_scatter, MPI_Alltoallw (tests/mpi_scan.c): values
# against serial prefixes and PMPI on every communicator shape, and each op's counter moving by
# exactly the calls that had to run in the interposer.  Linked and through LD_PRELOAD on one node,
# between pseudo-nodes (even and uneven), on 2 emulated hosts, switched off, and once with a
# window narrower than the test is told (it must fail: a call handed to the library is seen).
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  find_program(NODESHM_ENV_PROGRAM env)
  nodeshm_add_interposer_programs(mpi_scan LIBS m)
  # the windows the test counts on (its --window and --stride), whatever the defaults
  set(scan_env NODESHM_MPI_SCAN_MAX=64k NODESHM_MPI_EXSCAN_MAX=64k NODESHM_MPI_REDUCE_SCATTER_MAX=64k
      NODESHM_MPI_ALLTOALLW_MAX=4k NODESHM_MPI_SCAN_MIN=0 NODESHM_MPI_EXSCAN_MIN=0)
  set(scan_args --expect-accel --window 65536 --stride 4096)
  set(_pass "mpi_scan: PASS")
  nodeshm_add_mpi_test(NAME mpi_scan NP 1 2 3 4 8 ARGS ${scan_args} TIMEOUT 600 PASS_REGEX "${_pass}"
                       ENV ${scan_env})
  nodeshm_add_mpi_test(NAME mpi_scan NP 3 ARGS ${scan_args} TIMEOUT 600 PASS_REGEX "${_pass}"
                       ENV ${scan_env} NODESHM_MPI_BANKS=1 SUFFIX _one_bank)
  # between pseudo-nodes: a node of one rank (2+1), even (2+2), uneven (4+2), and nodes of 2 at 8
  nodeshm_add_mpi_test(NAME mpi_scan NP 3 4 8 PES_PER_NODE 2 ARGS ${scan_args} TIMEOUT 600
                       PASS_REGEX "${_pass}" ENV ${scan_env})
  nodeshm_add_mpi_test(NAME mpi_scan NP 6 PES_PER_NODE 4 ARGS ${scan_args} TIMEOUT 600
                       PASS_REGEX "${_pass}" ENV ${scan_env})
  # 2 emulated hosts (the MPI library's network between them)
  nodeshm_add_mpi_test(NAME mpi_scan NP 3 4 HOSTS 2 ARGS ${scan_args} TIMEOUT 600 PASS_REGEX "${_pass}"
                       ENV ${scan_env})
  # switched off: no counter moves, values still right
  nodeshm_add_mpi_test(NAME mpi_scan NP 4 ARGS --expect-none TIMEOUT 600 PASS_REGEX "${_pass}"
                       ENV ${scan_env} NODESHM_MPI_DISABLE=all SUFFIX _disabled)
  # the counters catch calls handed to the library: windows narrower than the test is told
  foreach(op scan reduce_scatter alltoallw)
    string(TOUPPER ${op} _up)
    set(_narrow)
    foreach(v IN LISTS scan_env)
      if(NOT v MATCHES "^NODESHM_MPI_${_up}_MAX=")
        list(APPEND _narrow ${v})
      endif()
    endforeach()
    set(_w 8k)
    if(op STREQUAL "alltoallw")
      set(_w 0) # its calls all go to the library
    endif()
    list(APPEND _narrow NODESHM_MPI_${_up}_MAX=${_w} EXPECT_FAILURE_TIMEOUT=500 EXPECT_FAILURE_MAX_SECONDS=400)
    nodeshm_add_script_test(NAME mpi_scan_np2_narrow_${op} TIMEOUT 600 ENV ${_narrow}
      COMMAND expect_failure.sh 2 "world: ${op}: [0-9]+ calls ran in the interposer, expected [1-9]"
              $<TARGET_FILE:nodeshm_t_mpi_scan> ${scan_args})
  endforeach()
  add_test(NAME mpi_scan_preload_np4
    COMMAND "${NODESHM_OSHRUN}" -np 4 "${NODESHM_ENV_PROGRAM}"
            "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" $<TARGET_FILE:nodeshm_t_mpi_scan_plain> ${scan_args})
  set_tests_properties(mpi_scan_preload_np4 PROPERTIES TIMEOUT 600 LABELS "mpi;np4"
    PASS_REGULAR_EXPRESSION "${_pass}" ENVIRONMENT "${scan_env}")
endif()
