nodeshm_add_mpi_test(NAME smoke SOURCES smoke.c NP 1 2 4)
nodeshm_add_mpi_test(NAME smoke NP 4 PES_PER_NODE 2)
# oshrun starts a job although a killed launcher left a rendezvous directory for its pid
nodeshm_add_script_test(NAME launcher_stale_np2 TIMEOUT 120
  COMMAND launcher_stale.sh $<TARGET_FILE:nodeshm_t_smoke>)
# under MPICH, oshrun's progress throttling when PEs outnumber CPUs: each setting defaults alone
nodeshm_add_script_test(NAME launcher_throttle TIMEOUT 120 COMMAND launcher_throttle.sh)
