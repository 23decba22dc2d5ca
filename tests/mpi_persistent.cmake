# libnodeshm_mpi: the MPI-4 persistent collectives (tests/mpi_persistent.c): values on fresh data
# at every start, Startall/Start mixed with non-blocking and point-to-point requests, completed in
# per-rank orders, and each op's counter moving by exactly the starts that had to be accelerated.
# Linked and through LD_PRELOAD on one node; between pseudo-nodes and emulated hosts; switched off
# (no counter moves).  Where the MPI has no persistent collectives the program exits 77: skipped.
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  find_program(NODESHM_ENV_PROGRAM env)
  # each program linked, and plain (for LD_PRELOAD); mpi_persist_inactive.c: inactive persistent
  # requests (never started, completed) in the nine completion calls, alone, beside
  # MPI_REQUEST_NULL and a late point-to-point receive, beside an active one of ours
  nodeshm_add_interposer_programs(mpi_persistent)
  # its PMPI probe is in the way where linked
  nodeshm_add_interposer_programs(mpi_persist_inactive LINKED_DEFINITIONS NSM_PROBE_LINKED)
  # the window the test counts on, whatever the defaults
  set(p_env)
  foreach(op BCAST ALLREDUCE REDUCE GATHER SCATTER ALLGATHER)
    list(APPEND p_env NODESHM_MPI_${op}_INIT_MAX=16k)
    if(NOT op STREQUAL "ALLREDUCE")
      list(APPEND p_env NODESHM_MPI_${op}_INIT_MIN=0) # Open MPI's defaults start at 64-512 B
    endif()
  endforeach()
  # MPI_COMM_WORLD's first ops (an ibcast and an iallreduce before any blocking collective)
  list(APPEND p_env NODESHM_MPI_IBCAST_MAX=16k NODESHM_MPI_IALLREDUCE_MAX=16k)
  # barrier_init (no size) on everywhere, also on one node at 2 ranks under Open MPI (its default there: off)
  list(APPEND p_env NODESHM_MPI_BARRIER_INIT_MAX=1)
  set(_pass "mpi_persistent: PASS")
  set(_p_tests)
  nodeshm_add_mpi_test(NAME mpi_persistent NP 1 2 3 4 8 ARGS --expect-accel TIMEOUT 300
                       PASS_REGEX "${_pass}" ENV ${p_env})
  foreach(np 1 2 3 4 8)
    list(APPEND _p_tests mpi_persistent_np${np})
  endforeach()
  # one buffer bank: every second large op publishes late
  nodeshm_add_mpi_test(NAME mpi_persistent NP 3 ARGS --expect-accel TIMEOUT 300 PASS_REGEX "${_pass}"
                       ENV ${p_env} NODESHM_MPI_BANKS=1 SUFFIX _one_bank)
  # between nodes every op runs here within the windows above (the non-blocking ops' steps
  # there): pseudo-nodes of 2 and 2, of 2 and 1 (a leader alone), of 1 (no shared buffers: none),
  # and 2 emulated hosts
  nodeshm_add_mpi_test(NAME mpi_persistent NP 3 4 PES_PER_NODE 2 ARGS --expect-accel TIMEOUT 300
                       PASS_REGEX "${_pass}" ENV ${p_env})
  nodeshm_add_mpi_test(NAME mpi_persistent NP 3 PES_PER_NODE 1 ARGS --expect-accel TIMEOUT 300
                       PASS_REGEX "${_pass}" ENV ${p_env})
  nodeshm_add_mpi_test(NAME mpi_persistent NP 3 4 HOSTS 2 ARGS --expect-accel TIMEOUT 600
                       PASS_REGEX "${_pass}" ENV ${p_env})
  nodeshm_add_mpi_test(NAME mpi_persistent NP 4 ARGS --expect-none TIMEOUT 300 PASS_REGEX "${_pass}"
                       ENV ${p_env} "NODESHM_MPI_DISABLE=barrier_init,bcast_init,allreduce_init,reduce_init,gather_init,scatter_init,allgather_init"
                       SUFFIX _disabled)
  # switched off as a whole: no counter moves, and nothing of nodeshm's is mapped (not even
  # MPI_COMM_WORLD's state, made at MPI_Init when on)
  nodeshm_add_mpi_test(NAME mpi_persistent NP 2 ARGS --expect-none --expect-no-shm TIMEOUT 300
                       PASS_REGEX "${_pass}" ENV ${p_env} NODESHM_MPI_DISABLE=all SUFFIX _off)
  list(APPEND _p_tests mpi_persistent_np3_one_bank mpi_persistent_np3_ppn2 mpi_persistent_np4_ppn2
       mpi_persistent_np3_ppn1 mpi_persistent_np4_disabled mpi_persistent_np2_off)
  foreach(np 2 4)
    add_test(NAME mpi_persistent_preload_np${np}
      COMMAND "${NODESHM_OSHRUN}" -np ${np} "${NODESHM_ENV_PROGRAM}"
              "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" $<TARGET_FILE:nodeshm_t_mpi_persistent_plain> --expect-accel)
    set_tests_properties(mpi_persistent_preload_np${np} PROPERTIES TIMEOUT 300 LABELS "mpi;np${np}"
      PASS_REGULAR_EXPRESSION "${_pass}" ENVIRONMENT "${p_env}")
    list(APPEND _p_tests mpi_persistent_preload_np${np})
  endforeach()
  nodeshm_add_mpi_test(NAME mpi_persist_inactive NP 2 4 ARGS --expect-accel TIMEOUT 300
                       PASS_REGEX "mpi_persist_inactive: PASS" ENV ${p_env})
  add_test(NAME mpi_persist_inactive_preload_np3
    COMMAND "${NODESHM_OSHRUN}" -np 3 "${NODESHM_ENV_PROGRAM}"
            "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" $<TARGET_FILE:nodeshm_t_mpi_persist_inactive_plain> --expect-accel)
  set_tests_properties(mpi_persist_inactive_preload_np3 PROPERTIES TIMEOUT 300 LABELS "mpi;np3"
    PASS_REGULAR_EXPRESSION "mpi_persist_inactive: PASS" ENVIRONMENT "${p_env}")
  list(APPEND _p_tests mpi_persist_inactive_np2 mpi_persist_inactive_np4 mpi_persist_inactive_preload_np3)
  set_tests_properties(${_p_tests} PROPERTIES SKIP_RETURN_CODE 77)

  # the DEFAULT windows between nodes, nothing set (tests/mpi_persist_defaults.c): per op, starts
  # just inside and just outside each bound accelerated or the library's, counted per op, values
  # against PMPI_'s; the windows read from src/mpi/nsmpi_config.h (the column of the MPI built
  # against), --shape the column the launch must make.  Emulated hosts of 2 (3: several nodes of
  # up to 2), 2 hosts of 3 (4: 3-4 per node, Open MPI's rooted 8 KiB), 3 hosts of 1 (no node holds
  # 2 ranks: none accelerated); pseudo-nodes of 2 and 3 (the one-node lower bounds); one node of 2
  # and of 4 (the one-node columns: Open MPI's barrier_init at 2 ranks is the library's)
  add_executable(nodeshm_t_mpi_persist_defaults mpi_persist_defaults.c)
  set_target_properties(nodeshm_t_mpi_persist_defaults PROPERTIES OUTPUT_NAME mpi_persist_defaults)
  target_include_directories(nodeshm_t_mpi_persist_defaults PRIVATE "${PROJECT_SOURCE_DIR}/src"
                             "${PROJECT_BINARY_DIR}/generated")
  target_link_libraries(nodeshm_t_mpi_persist_defaults PRIVATE nodeshm_mpi)
  set(_pass "mpi_persist_defaults: PASS")
  nodeshm_add_mpi_test(NAME mpi_persist_defaults NP 4 HOSTS 2 ARGS --shape 3 TIMEOUT 600 PASS_REGEX "${_pass}")
  nodeshm_add_mpi_test(NAME mpi_persist_defaults NP 6 HOSTS 2 ARGS --shape 4 TIMEOUT 600 PASS_REGEX "${_pass}")
  nodeshm_add_mpi_test(NAME mpi_persist_defaults NP 3 6 HOSTS 3 ARGS --shape 3 TIMEOUT 600 PASS_REGEX "${_pass}")
  nodeshm_add_mpi_test(NAME mpi_persist_defaults NP 4 PES_PER_NODE 2 ARGS --shape 3 TIMEOUT 300
                       PASS_REGEX "${_pass}")
  nodeshm_add_mpi_test(NAME mpi_persist_defaults NP 6 PES_PER_NODE 3 ARGS --shape 4 TIMEOUT 300
                       PASS_REGEX "${_pass}")
  nodeshm_add_mpi_test(NAME mpi_persist_defaults NP 2 ARGS --shape 0 TIMEOUT 300 PASS_REGEX "${_pass}")
  nodeshm_add_mpi_test(NAME mpi_persist_defaults NP 4 ARGS --shape 1 TIMEOUT 300 PASS_REGEX "${_pass}")
  set_tests_properties(mpi_persist_defaults_np4_ppn2 mpi_persist_defaults_np6_ppn3 mpi_persist_defaults_np2
                       mpi_persist_defaults_np4 PROPERTIES SKIP_RETURN_CODE 77)
endif()
