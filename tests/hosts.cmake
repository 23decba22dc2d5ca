# Emulated hosts (issue 16): "oshrun --hosts K" runs the job on K hosts of this machine, each
# with its own hostname, /dev/shm, /tmp, SysV IPC and PIDs (tools/nshost-agent, which the MPI
# launcher runs instead of ssh), so MPI itself sees K nodes and talks TCP between them: the
# between-node paths run as on a cluster, not only as pseudo-nodes (NODESHM_PES_PER_NODE).
# Every test exits 77, and is skipped, where this machine cannot make namespaces.

# MPI and nodeshm both see K nodes (and each host's /dev/shm is its own).
nodeshm_add_mpi_test(NAME host_topology SOURCES host_topology.c NP 4 HOSTS 2 ARGS 2 TIMEOUT 60)
nodeshm_add_mpi_test(NAME host_topology NP 3 HOSTS 3 ARGS 3 TIMEOUT 60)
# ... and the check can fail: on one node (no --hosts) it must.
nodeshm_add_mpi_test(NAME host_topology NP 4 ARGS 2 WILL_FAIL SUFFIX _onenode_must_fail
  TIMEOUT 60)

# Existing OpenSHMEM tests across real (emulated) nodes. SOURCES given: these files may be read
# before the groups that build them (p2p.cmake, teams.cmake); the first call builds the target.
# Every PE writes to every other before a barrier or sync (rma, amo, signal, teams, coll). Under
# MPICH 5.0.2 over OFI tcp these found an open bug: MPI_Win_flush returns before the data is in a
# target's memory when the target is not inside MPI (a non-leader PE waiting on nodeshm's flags),
# so after shmem_barrier_all a non-leader may not yet see another host's puts or compare-swaps
# (about 100 in 3000 barriers; amo and teams fail every run, rma/signal/coll now and then).
# MPIR_CVAR_CH4_OFI_ENABLE_RMA=0 (RMA by active messages) cures that but crashes rma (SIGSEGV).
# Until fixed they run on Open MPI hosts only; the harness tests below run on both.
set(_host_tests)
if(NODESHM_MPI_FLAVOR STREQUAL "openmpi")
  set(_host_tests rma amo signal teams coll)
endif()
foreach(_t IN LISTS _host_tests)
  nodeshm_add_mpi_test(NAME ${_t} SOURCES ${_t}.c NP 4 HOSTS 2 TIMEOUT 90)
endforeach()

# kill -9 of a PE on one host ends the job on every host, leaving nothing behind.
nodeshm_add_test_executable(kill_victim kill_victim.c)
nodeshm_add_script_test(NAME host_kill_np4_host2 TIMEOUT 90 ENV NODESHM_VICTIM_SECONDS=80
  COMMAND host_kill.sh 2 4 $<TARGET_FILE:nodeshm_t_kill_victim>)
set_tests_properties(host_kill_np4_host2 PROPERTIES SKIP_RETURN_CODE 77 LABELS "script;hosts")
