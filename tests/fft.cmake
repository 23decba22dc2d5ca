# nodeshm-fft (fft/): values against serial FFTW, round trips and bitwise-equal strategies on
# every layout (tests/fft_check.c) at 1-8 ranks, on one node and in pseudo-nodes; bad input
# (tests/fft_errors.c): the same error on every rank, a message naming the call and the value.
if(NODESHM_FFT_ENABLED)
  foreach(t fft_check fft_errors)
    add_executable(nodeshm_t_${t} ${t}.c)
    set_target_properties(nodeshm_t_${t} PROPERTIES OUTPUT_NAME ${t})
    target_link_libraries(nodeshm_t_${t} PRIVATE nodeshm_fft nodeshm_fftw3 m)
  endforeach()
  nodeshm_add_mpi_test(NAME fft_check NP 1 2 3 4 6 8 PASS_REGEX "fft_check: PASS" TIMEOUT 300)
  nodeshm_add_mpi_test(NAME fft_check NP 4 6 PES_PER_NODE 2 PASS_REGEX "fft_check: PASS" TIMEOUT 300)
  nodeshm_add_mpi_test(NAME fft_check NP 3 PES_PER_NODE 1 PASS_REGEX "fft_check: PASS" TIMEOUT 300)
  nodeshm_add_mpi_test(NAME fft_errors NP 1 3 4 PASS_REGEX "fft_errors: [0-9]+ ranks: PASS")
  nodeshm_add_mpi_test(NAME fft_errors NP 4 PES_PER_NODE 2 PASS_REGEX "fft_errors: [0-9]+ ranks: PASS")
endif()
