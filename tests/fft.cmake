# nodeshm-fft (fft/): values against serial FFTW, round trips and bitwise-equal strategies on
# every layout (tests/fft_check.c) at 1-8 ranks, on one node and in pseudo-nodes; bad input
# (tests/fft_errors.c): the same error on every rank, a message naming the call and the value.
if(NODESHM_FFT_ENABLED)
  foreach(t fft_check fft_errors)
    add_executable(nodeshm_t_${t} ${t}.c)
    set_target_properties(nodeshm_t_${t} PROPERTIES OUTPUT_NAME ${t})
    target_link_libraries(nodeshm_t_${t} PRIVATE nodeshm_fft nodeshm nodeshm_fftw3 m)
  endforeach()
  # FFTW_ESTIMATE: FFTW_MEASURE times candidate plans while the other ranks poll in MPI; on 2
  # loaded cores that took fft_check_np2 from 2 s to 270 s under Open MPI.  The default
  # (measure: the strategies stay bitwise equal through FFTW's wisdom) runs at 3 ranks.
  # TIMEOUT 600: at a load of 80 on the 2 cores fft_check_np4_ppn2 (MPICH) ran past 300 s.
  set(_est NODESHM_FFT_FFTW=estimate)
  nodeshm_add_mpi_test(NAME fft_check NP 1 2 4 6 8 PASS_REGEX "fft_check: PASS" TIMEOUT 600 ENV ${_est})
  nodeshm_add_mpi_test(NAME fft_check NP 3 PASS_REGEX "fft_check: PASS" TIMEOUT 600)
  nodeshm_add_mpi_test(NAME fft_check NP 4 6 PES_PER_NODE 2 PASS_REGEX "fft_check: PASS" TIMEOUT 600
    ENV ${_est})
  nodeshm_add_mpi_test(NAME fft_check NP 3 PES_PER_NODE 1 PASS_REGEX "fft_check: PASS" TIMEOUT 600
    ENV ${_est})
  # on 2 emulated hosts (tools/nshost-agent): the node strategy's MPI part and the shmem
  # strategies' RMA meet the MPI library's network path
  nodeshm_add_mpi_test(NAME fft_check NP 4 HOSTS 2 PASS_REGEX "fft_check: PASS" TIMEOUT 600
    ENV ${_est})
  # the node strategy between nodes both ways, whatever auto picks: one message per pair of
  # nodes (_agg: even and uneven nodes, 2+2 and 2+1, pseudo-nodes and hosts) and per pair of
  # ranks (_pairs), bitwise against mpi-p2p; fft_check fails unless the remaps took that path
  set(_agg ${_est} NODESHM_FFT_NODE_AGGREGATE=on FFT_CHECK_STRATEGIES=node)
  nodeshm_add_mpi_test(NAME fft_check NP 3 4 PES_PER_NODE 2 SUFFIX _agg
    PASS_REGEX "fft_check: PASS" TIMEOUT 600 ENV ${_agg})
  nodeshm_add_mpi_test(NAME fft_check NP 3 4 HOSTS 2 SUFFIX _agg
    PASS_REGEX "fft_check: PASS" TIMEOUT 600 ENV ${_agg})
  nodeshm_add_mpi_test(NAME fft_check NP 4 PES_PER_NODE 2 SUFFIX _pairs
    PASS_REGEX "fft_check: PASS" TIMEOUT 600
    ENV ${_est} NODESHM_FFT_NODE_AGGREGATE=off FFT_CHECK_STRATEGIES=node)
  nodeshm_add_mpi_test(NAME fft_errors NP 1 3 4 PASS_REGEX "fft_errors: [0-9]+ ranks: PASS")
  nodeshm_add_mpi_test(NAME fft_errors NP 4 PES_PER_NODE 2 PASS_REGEX "fft_errors: [0-9]+ ranks: PASS")
  # auto takes the strategy from the tuning file (nodeshm-bench report writes it there)
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/fft_tuning.conf" "NODESHM_FFT_STRATEGY=mpi-alltoallv\n")
  add_test(NAME fft_auto_tuning_np3 COMMAND "${NODESHM_OSHRUN}" -np 3
    $<TARGET_FILE:nodeshm-example-fft_poisson> 16)
  set_tests_properties(fft_auto_tuning_np3 PROPERTIES TIMEOUT 120 LABELS "mpi;np3"
    ENVIRONMENT "NODESHM_TUNING=${CMAKE_CURRENT_BINARY_DIR}/fft_tuning.conf"
    PASS_REGULAR_EXPRESSION "strategy mpi-alltoallv: max error [0-9.e+-]+: OK")
  # the nodeshm-fft command: every strategy and FFTW-MPI in one run, CSV rows, errors checked
  # by the command itself (exit 1 above 1e-12); and a bad option: message, exit 2, no hang
  # (at 4 ranks on a 2x2 pencil grid, --procs, in 2 interleaved rounds)
  set(_cmd_args_3 --iterations 2 --remap-barrier) # (remaps timed from a barrier: same values)
  set(_cmd_args_4 --procs 2x2 --iterations 2 --rounds 2)
  set(_cmd_grid_3 "1x3")
  set(_cmd_grid_4 "2x2")
  foreach(np 3 4)
    add_test(NAME fft_cmd_np${np} COMMAND "${NODESHM_OSHRUN}" -np ${np}
      $<TARGET_FILE:nodeshm-fft> --grid 24x20x18 ${_cmd_args_${np}} --csv)
    # (300 s: at a load of 90 fft_cmd_np3 took 107 s under Open MPI)
    set_tests_properties(fft_cmd_np${np} PROPERTIES TIMEOUT 300 LABELS "mpi;np${np}"
      PASS_REGULAR_EXPRESSION ",${_cmd_grid_${np}},double,mpi-p2p,.*mpi-alltoallv,.*node,"
      FAIL_REGULAR_EXPRESSION "error above the tolerance|plan creation failed")
  endforeach()
  # in pseudo-nodes --strategy all adds the node strategy forced per pair of ranks and of nodes
  add_test(NAME fft_cmd_np4_ppn2 COMMAND "${NODESHM_OSHRUN}" -np 4
    $<TARGET_FILE:nodeshm-fft> --grid 24x20x18 --iterations 2 --rounds 1 --csv)
  set_tests_properties(fft_cmd_np4_ppn2 PROPERTIES TIMEOUT 300 LABELS "mpi;np4"
    ENVIRONMENT "NODESHM_PES_PER_NODE=2"
    PASS_REGULAR_EXPRESSION ",double,node,.*,double,node-pairs,.*,double,node-agg,"
    FAIL_REGULAR_EXPRESSION "error above the tolerance|plan creation failed")
  nodeshm_add_script_test(NAME fft_cmd_bad_grid
    COMMAND expect_failure.sh 2 "nodeshm-fft: --grid 0x4x4: accepted: NXxNYxNZ"
            $<TARGET_FILE:nodeshm-fft> --grid 0x4x4)
  nodeshm_add_script_test(NAME fft_cmd_bad_rounds
    COMMAND expect_failure.sh 2 "nodeshm-fft: --rounds 0: accepted: an integer >= 1"
            $<TARGET_FILE:nodeshm-fft> --grid 8x8x8 --rounds 0)
endif()
