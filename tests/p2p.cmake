# Point-to-point: RMA, put-with-signal, waits/tests, memory management, setup and queries.
# Each program at 1, 2 and 4 PEs on one node (rma and signal also at 8, oversubscribed), and in
# pseudo-node mode (NODESHM_PES_PER_NODE), where traffic between pseudo-nodes takes MPI RMA.
foreach(_t rma signal p2p_sync memory setup init_thread)
  set(_np 1 2 4)
  if(_t STREQUAL "rma" OR _t STREQUAL "signal")
    list(APPEND _np 8)
  endif()
  nodeshm_add_mpi_test(NAME ${_t} SOURCES ${_t}.c NP ${_np} TIMEOUT 60)
  nodeshm_add_mpi_test(NAME ${_t} NP 4 PES_PER_NODE 2 TIMEOUT 60)
  nodeshm_add_mpi_test(NAME ${_t} NP 3 PES_PER_NODE 1 TIMEOUT 60)
endforeach()
