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
# MPICH 5.0.2 over OFI tcp these found a bug: a small MPI_Put goes as an OFI inject, complete
# once in the origin's socket, so MPI_Win_flush returned before the data was in the target's
# memory and after shmem_barrier_all a PE could read another host's old data (amo, teams every
# run). Fixed in src/core/remote.c (a flush confirms writes with a read); host_visibility below
# is the loop that shows it.
set(_host_tests rma amo signal teams coll)
foreach(_t IN LISTS _host_tests)
  nodeshm_add_mpi_test(NAME ${_t} SOURCES ${_t}.c NP 4 HOSTS 2 TIMEOUT 90)
endforeach()

# The memory model across nodes, several hundred rounds: after shmem_barrier_all, quiet + flag
# and put-with-signal, every PE sees what PEs of other nodes wrote (stale views counted per PE).
nodeshm_add_mpi_test(NAME host_visibility SOURCES host_visibility.c NP 4 HOSTS 2 ARGS 500
  TIMEOUT 120)

# kill -9 of a PE on one host ends the job on every host, leaving nothing behind.
nodeshm_add_test_executable(kill_victim kill_victim.c)
nodeshm_add_script_test(NAME host_kill_np4_host2 TIMEOUT 90 ENV NODESHM_VICTIM_SECONDS=80
  COMMAND host_kill.sh 2 4 $<TARGET_FILE:nodeshm_t_kill_victim>)
set_tests_properties(host_kill_np4_host2 PROPERTIES SKIP_RETURN_CODE 77 LABELS "script;hosts")
