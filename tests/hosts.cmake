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
# The hosts share this machine's CPUs: nodeshm counts the machine's PEs by kernel boot id, not
# per node (its wait policy and barriers depend on whether PEs outnumber cores).
nodeshm_add_mpi_test(NAME host_topology NP 4 HOSTS 2 ARGS 2 SUFFIX _machine TIMEOUT 60
  ENV NODESHM_DEBUG=1
  PASS_REGEX "debug: 4 PEs, 2 node\\(s\\), 2 PEs on my node, heap [0-9]+ bytes, 4 PEs on [0-9]+ CPUs of this machine")

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

# The path of each team collective between hosts (tests/coll_paths.c): 2 x 2 (MPICH's library
# choices and its inject band), 2 x 4, and hosts of 2+2+1.
nodeshm_add_mpi_test(NAME coll_paths NP 4 8 HOSTS 2 TIMEOUT 120)
nodeshm_add_mpi_test(NAME coll_paths NP 5 HOSTS 3 TIMEOUT 120)

# The scans of both faces between hosts (core/coll/scan.h: node scans, the leaders' MPI_Exscan
# over the network): OpenSHMEM's here, hosts of 2+1 and 2+2 PEs; MPI's in mpi_scan.cmake.
nodeshm_add_mpi_test(NAME coll_scan NP 3 4 HOSTS 2 TIMEOUT 300)
# Broadcast of both faces between hosts (core/coll/bcast.h): OpenSHMEM's at each protocol's sizes
# here (2+1 and 2+2 PEs); MPI's in mpi_rooted below (bcast, bcast_vec).
nodeshm_add_mpi_test(NAME coll_bcast NP 3 4 HOSTS 2 TIMEOUT 300)
# Collect and fcollect between hosts (one node's are core/coll/collect.h's; between nodes the
# leaders' paths): OpenSHMEM's at each protocol's sizes here (2+1 and 2+2 PEs).
nodeshm_add_mpi_test(NAME coll_collect NP 3 4 HOSTS 2 TIMEOUT 300)
# Alltoall(s) between hosts (one node's are core/coll/alltoall.h's; between nodes fan.c, the
# library's MPI_Alltoall or one MPI_Alltoallv): OpenSHMEM's at each protocol's sizes (2+1, 2+2).
nodeshm_add_mpi_test(NAME coll_alltoall NP 3 4 HOSTS 2 TIMEOUT 300)

# The memory model across nodes, several hundred rounds: after shmem_barrier_all, quiet + flag
# and put-with-signal, every PE sees what PEs of other nodes wrote (stale views counted per PE).
nodeshm_add_mpi_test(NAME host_visibility SOURCES host_visibility.c NP 4 HOSTS 2 ARGS 500
  TIMEOUT 120)

# kill -9 of a PE on one host ends the job on every host, leaving nothing behind.
nodeshm_add_test_executable(kill_victim kill_victim.c)
nodeshm_add_script_test(NAME host_kill_np4_host2 TIMEOUT 90 ENV NODESHM_VICTIM_SECONDS=80
  COMMAND host_kill.sh 2 4 $<TARGET_FILE:nodeshm_t_kill_victim>)
set_tests_properties(host_kill_np4_host2 PROPERTIES SKIP_RETURN_CODE 77 LABELS "script;hosts")

# Open MPI's launcher starts although killed launchers left rendezvous directories for the pids
# it may get (the agent gives it a TMPDIR of its own: a CI failure, amo_np3_host3, exit 213).
nodeshm_add_script_test(NAME launcher_stale_np2_host2 TIMEOUT 120
  COMMAND launcher_stale.sh $<TARGET_FILE:nodeshm_t_smoke> 2)
set_tests_properties(launcher_stale_np2_host2 PROPERTIES SKIP_RETURN_CODE 77 LABELS "script;hosts")

# Each emulated host's processes on CPUs of their own (tools/nshost-agent), NSHOST_PIN=0 not.
nodeshm_add_script_test(NAME host_pinning_np4_host2 TIMEOUT 120 COMMAND host_pinning.sh)
set_tests_properties(host_pinning_np4_host2 PROPERTIES SKIP_RETURN_CODE 77 LABELS "script;hosts")

# ---- 3 hosts (issue 16): 1 or 2 PEs per host (np3, np6), and uneven hosts (np5: 2+2+1) ----
# Three nodes make a leaders' communicator of three, which two cannot: rings and trees with a
# middle, a root node that is neither first nor last, a node with one PE only (np3, np5). The
# uneven hosts for the collectives and teams only, whose leaders' paths depend on node sizes.
# Generous limits: under a load of 60 on 2 cores rma_np5_host3 took 356 s (MPICH).
foreach(_t rma amo signal teams coll p2p_sync)
  set(_np 3 6)
  if(_t STREQUAL "coll" OR _t STREQUAL "teams")
    list(APPEND _np 5)
  endif()
  nodeshm_add_mpi_test(NAME ${_t} SOURCES ${_t}.c NP ${_np} HOSTS 3 TIMEOUT 600)
endforeach()

# kill -9 of a PE on one of 3 hosts: the job ends on all three, nothing left on any.
nodeshm_add_script_test(NAME host_kill_np6_host3 TIMEOUT 120 ENV NODESHM_VICTIM_SECONDS=110
  COMMAND host_kill.sh 3 6 $<TARGET_FILE:nodeshm_t_kill_victim>)
set_tests_properties(host_kill_np6_host3 PROPERTIES SKIP_RETURN_CODE 77 LABELS "script;hosts")

# ---- libnodeshm_mpi on hosts: every intercepted collective against PMPI_* across real nodes ----
# NODESHM_PES_PER_NODE unset: the nodes are MPI's, so the node leaders talk over MPI's network
# path (TCP) while the library's own collectives take its between-node algorithms. 2 hosts x 2
# ranks, 3 hosts x 2 and 2 hosts x 4, with each group's settings (tests/mpi*.cmake: this file is
# read last).
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  set(_host_shapes "4 2" "6 3" "8 2")
  foreach(_shape IN LISTS _host_shapes)
    separate_arguments(_shape)
    list(GET _shape 0 _np)
    list(GET _shape 1 _k)
    nodeshm_add_mpi_test(NAME mpi_coll NP ${_np} HOSTS ${_k} ARGS --expect-accel TIMEOUT 600
                         ENV ${accel_env})
    nodeshm_add_mpi_test(NAME mpi_coll_gather NP ${_np} HOSTS ${_k} ARGS --expect-accel
                         TIMEOUT 300 ENV ${gather_env})
    nodeshm_add_mpi_test(NAME mpi_coll_reduce NP ${_np} HOSTS ${_k} ARGS --expect-accel
                         TIMEOUT 300 ENV ${reduce_env})
    nodeshm_add_mpi_test(NAME mpi_bigcount NP ${_np} HOSTS ${_k} TIMEOUT 300
                         PASS_REGEX "mpi_bigcount: PASS" ENV ${bigcount_env})
    nodeshm_add_mpi_test(NAME mpi_shared NP ${_np} HOSTS ${_k} TIMEOUT 300)
    # the default lower bounds between hosts are the rooted test's (mpi_rooted below); here a
    # set bound holds on every communicator, across hosts too
    nodeshm_add_mpi_test(NAME mpi_min_scope NP ${_np} HOSTS ${_k} TIMEOUT 300
                         ENV NODESHM_MPI_BCAST_MIN=512 NODESHM_MPI_GATHER_MIN=512 NODESHM_MPI_SCATTER_MIN=512
                             NODESHM_MPI_REDUCE_MIN=512)
  endforeach()
  # the interposer through LD_PRELOAD, into mpi4py (linked or preloaded is the same code on
  # hosts: mpi_coll_preload on hosts cost 118 s under load and showed nothing mpi_coll did not)
  if(NODESHM_MPI4PY_PYTHON)
    add_test(NAME mpi4py_coll_preload_np4_host2
      COMMAND "${NODESHM_OSHRUN}" --hosts 2 -np 4 "${NODESHM_ENV_PROGRAM}"
              "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" "${NODESHM_MPI4PY_PYTHON}"
              "${CMAKE_CURRENT_SOURCE_DIR}/mpi4py_coll.py" --expect ${NODESHM_MPI_FLAVOR})
    set_tests_properties(mpi4py_coll_preload_np4_host2 PROPERTIES TIMEOUT 300
      LABELS "mpi;hosts;np4" SKIP_RETURN_CODE 77
      PASS_REGULAR_EXPRESSION "mpi4py_coll: [0-9]+ ranks: .*PASS"
      SKIP_REGULAR_EXPRESSION "mpi4py_coll: SKIP" ENVIRONMENT "${_mpi4py_env}")
  endif()

  # The node-shared data examples (examples/): one table per host, filled by its first rank and
  # read by all of its ranks. The C example prints the sum unchecked: the regex holds the exact
  # sum of i/2 over i < 100000 with i mod 7 < np (np 4: 1428571428.0, np 6: 2142850000.0).
  foreach(_shape "4;2;1428571428\\.0" "6;3;2142850000\\.0")
    list(GET _shape 0 _np)
    list(GET _shape 1 _k)
    list(GET _shape 2 _sum)
    add_test(NAME example_replicated_table_np${_np}_host${_k}
      COMMAND "${NODESHM_OSHRUN}" --hosts ${_k} -np ${_np}
              $<TARGET_FILE:nodeshm-example-replicated_table>)
    set_tests_properties(example_replicated_table_np${_np}_host${_k} PROPERTIES TIMEOUT 120
      LABELS "mpi;hosts;np${_np}" SKIP_RETURN_CODE 77
      PASS_REGULAR_EXPRESSION "replicated_table: sum ${_sum}, [1-9][0-9]* collective calls")
  endforeach()
  if(NODESHM_FORTRAN_ENABLED)
    set(_ex_env "NODESHM_MPI_BCAST_MAX=128k")
    if(NODESHM_MPI_FLAVOR STREQUAL "openmpi")
      list(APPEND _ex_env "OMPI_MCA_osc=^ucx,rdma") # as examples/CMakeLists.txt
    endif()
    add_test(NAME example_replicated_table_f_np4_host2
      COMMAND "${NODESHM_OSHRUN}" --hosts 2 -np 4 $<TARGET_FILE:nodeshm-example-replicated_table_f>)
    set_tests_properties(example_replicated_table_f_np4_host2 PROPERTIES TIMEOUT 120
      LABELS "mpi;hosts;np4;fortran" SKIP_RETURN_CODE 77 ENVIRONMENT "${_ex_env}"
      PASS_REGULAR_EXPRESSION "replicated_table_f: sum [0-9.]+, [1-9][0-9]* collective calls")
  endif()
endif()

# ---- the rooted ops between hosts with every root (tests/mpi_rooted.c, issue 15) ----
# A root may lead its node or not, on the first node or another: each call with every root, plain
# and in place, back to back, values checked, and counted per call by its op's own counter.
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  add_executable(nodeshm_t_mpi_rooted mpi_rooted.c)
  set_target_properties(nodeshm_t_mpi_rooted PROPERTIES OUTPUT_NAME mpi_rooted)
  target_link_libraries(nodeshm_t_mpi_rooted PRIVATE nodeshm_mpi)
  # The defaults between nodes (NSM_OPS, NSM_OP_MINS in src/mpi/nsmpi_config.h, several nodes
  # of up to 2 and of 3-4 ranks): just below each lower bound (the library's), at it, at the
  # upper bound, above it or above what the stage holds (NODESHM_MPI_STAGE_MAX, 4 MiB: the
  # library's). gatherv and scatterv: the library's between nodes.
  if(NODESHM_MPI_FLAVOR STREQUAL "openmpi")
    set(_rooted_2 bcast:1k:lib bcast:2k bcast:1m bcast:2m:lib gather:8k:lib gather:16k gather:1m
        scatter:1k:lib scatter:2k scatter:1m reduce:512:lib reduce:1k reduce:8k reduce:16k:lib)
    set(_rooted_4 bcast:1k:lib bcast:2k bcast:1m gather:8k:lib gather:16k gather:512k gather:1m:lib
        scatter:1k:lib scatter:2k scatter:512k scatter:1m:lib reduce:512:lib reduce:1k reduce:8k reduce:16k:lib)
  else()
    set(_rooted_2 bcast:16k:lib bcast:32k bcast:1m bcast:2m:lib gather:4k:lib gather:8k gather:128k gather:256k:lib
        scatter:4k:lib scatter:8k scatter:1m reduce:8 reduce:8k reduce:1m reduce:2m:lib)
    set(_rooted_4 bcast:16k:lib bcast:32k bcast:1m gather:2k:lib gather:4k gather:512k gather:1m:lib
        scatter:8k:lib scatter:16k scatter:512k scatter:1m:lib reduce:8 reduce:1m)
  endif()
  nodeshm_add_mpi_test(NAME mpi_rooted NP 4 HOSTS 2 TIMEOUT 300 ARGS ${_rooted_2} gatherv:8:lib scatterv:8:lib)
  nodeshm_add_mpi_test(NAME mpi_rooted NP 8 HOSTS 2 TIMEOUT 300 ARGS ${_rooted_4})
  # windows widened: the accelerated paths (the root sending to or receiving from the other
  # nodes' leaders itself, into or from the user's buffer where it is laid out as the stage; on
  # more than NSM_ROOT_DIRECT_NODES nodes, pseudo-nodes of 1 below, the leaders' collectives) at
  # sizes from one cache line to 1 MiB, 2 and 3 nodes, 2 and 4 ranks on a node
  set(_rooted_wide_env NODESHM_MPI_BCAST_MAX=1m NODESHM_MPI_GATHER_MAX=1m NODESHM_MPI_SCATTER_MAX=1m
      NODESHM_MPI_REDUCE_MAX=1m NODESHM_MPI_BCAST_MIN=0 NODESHM_MPI_GATHER_MIN=0 NODESHM_MPI_SCATTER_MIN=0
      NODESHM_MPI_REDUCE_MIN=0)
  set(_rooted_wide bcast:8 bcast:40k bcast:1m bcast_vec:8 bcast_vec:40k gather:8 gather:24k gather:512k scatter:8
      scatter:24k scatter:512k reduce:8 reduce:4k reduce:40k reduce:1m gatherv:8:lib scatterv:8:lib)
  nodeshm_add_mpi_test(NAME mpi_rooted NP 4 8 HOSTS 2 SUFFIX _wide TIMEOUT 300
                       ARGS ${_rooted_wide} ENV ${_rooted_wide_env})
  nodeshm_add_mpi_test(NAME mpi_rooted NP 6 HOSTS 3 SUFFIX _wide TIMEOUT 600
                       ARGS ${_rooted_wide} ENV ${_rooted_wide_env})
  # pseudo-nodes of 2 (the same paths, MPI's shared memory under them), and 5 of 2 and 1 ranks
  # (beyond NSM_ROOT_DIRECT_NODES: the leaders' collectives; a last node of one rank)
  nodeshm_add_mpi_test(NAME mpi_rooted NP 4 PES_PER_NODE 2 SUFFIX _wide TIMEOUT 300
                       ARGS ${_rooted_wide} ENV ${_rooted_wide_env})
  nodeshm_add_mpi_test(NAME mpi_rooted NP 9 PES_PER_NODE 2 SUFFIX _wide_leaders TIMEOUT 300
                       ARGS bcast:8 bcast:40k bcast_vec:8 bcast_vec:40k gather:24k scatter:24k reduce:8
                       ENV ${_rooted_wide_env})
  # MPI_Bcast (core/coll/bcast.h) with a node of one rank: 2+1 ranks on hosts and pseudo-nodes,
  # the ring's sizes, a bank's, above the leaders' blocking call (32 KiB), a strided type
  set(_rooted_bcast bcast:8 bcast:512 bcast:4k bcast:40k bcast:1m bcast_vec:8 bcast_vec:4k bcast_vec:40k)
  nodeshm_add_mpi_test(NAME mpi_rooted NP 3 HOSTS 2 SUFFIX _bcast TIMEOUT 300 ARGS ${_rooted_bcast}
                       ENV ${_rooted_wide_env})
  nodeshm_add_mpi_test(NAME mpi_rooted NP 3 PES_PER_NODE 2 SUFFIX _bcast TIMEOUT 300 ARGS ${_rooted_bcast}
                       ENV ${_rooted_wide_env})
endif()

# A blocking put's source is reusable when it returns, between nodes too (remote.c's bounce ring:
# sizes in and above its largest put, more bytes than it holds)
nodeshm_add_mpi_test(NAME put_reuse SOURCES put_reuse.c NP 2 HOSTS 2 ARGS 3 TIMEOUT 120)
nodeshm_add_mpi_test(NAME put_reuse NP 4 HOSTS 2 ARGS 3 TIMEOUT 120)
nodeshm_add_mpi_test(NAME put_reuse NP 4 PES_PER_NODE 2 ARGS 3 TIMEOUT 120)
nodeshm_add_mpi_test(NAME put_reuse NP 3 PES_PER_NODE 1 ARGS 3 TIMEOUT 120)
