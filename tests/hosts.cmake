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
# amo and teams fail on MPICH 5.0.2 hosts (over OFI tcp), and pass on pseudo-nodes and on Open
# MPI hosts: amo's compare-swap race check sees values no winner wrote (about 100 of 33,112
# checks a run), teams' comm-permuted round gets wrong values (2-8 a run).  Open bugs of the
# between-node path (issue 16), left out under MPICH until fixed so the rest can guard it.
set(_host_tests rma signal coll)
if(NODESHM_MPI_FLAVOR STREQUAL "openmpi")
  list(APPEND _host_tests amo teams)
endif()
foreach(_t IN LISTS _host_tests)
  nodeshm_add_mpi_test(NAME ${_t} SOURCES ${_t}.c NP 4 HOSTS 2 TIMEOUT 90)
endforeach()

# kill -9 of a PE on one host ends the job on every host, leaving nothing behind.
nodeshm_add_test_executable(kill_victim kill_victim.c)
nodeshm_add_script_test(NAME host_kill_np4_host2 TIMEOUT 90 ENV NODESHM_VICTIM_SECONDS=80
  COMMAND host_kill.sh 2 4 $<TARGET_FILE:nodeshm_t_kill_victim>)
set_tests_properties(host_kill_np4_host2 PROPERTIES SKIP_RETURN_CODE 77 LABELS "script;hosts")
