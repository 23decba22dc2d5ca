# libnodeshm_mpi's non-blocking collectives (and MPI_Cancel, Request_get_status_* on them: below):
# tests/mpi_nonblocking.c (Ibarrier, Ibcast, Iallreduce,
# Ireduce, Igather, Iscatter, Iallgather) and tests/mpi_nonblocking_v.c (Igatherv, Iscatterv,
# Iallgatherv, Ialltoall, Ialltoallv, with Ibcast and Iallreduce): values, several outstanding on
# several communicators completed in per-rank orders, mixed with point to point, and each op's
# counter moving by exactly the calls that had to be accelerated.  Linked and through LD_PRELOAD
# on one node; between pseudo-nodes and emulated hosts (mpi_nonblocking's seven ops run there, and
# Iallgatherv, Ialltoall, Ialltoallv; Igatherv and Iscatterv go to the library); switched off (no
# counter moves).
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  find_program(NODESHM_ENV_PROGRAM env)
  # the window the tests count on, whatever the defaults
  set(nb_env)
  foreach(op IBCAST IALLREDUCE IREDUCE IGATHER ISCATTER IALLGATHER IGATHERV ISCATTERV IALLGATHERV IALLTOALL IALLTOALLV)
    list(APPEND nb_env NODESHM_MPI_${op}_MAX=16k)
  endforeach()
  list(APPEND nb_env NODESHM_MPI_IBARRIER_MAX=1) # between nodes: on (it has no size)
  # the lower bounds between nodes (by MPI and shape)
  foreach(op IBCAST IREDUCE IGATHER ISCATTER IALLGATHER)
    list(APPEND nb_env NODESHM_MPI_${op}_MIN=0)
  endforeach()
  foreach(prog mpi_nonblocking mpi_nonblocking_v mpi_nb_status mpi_nb_bcast)
    nodeshm_add_interposer_programs(${prog})
  endforeach()
  foreach(prog mpi_nonblocking mpi_nonblocking_v)
    set(_pass "${prog}: PASS")
    nodeshm_add_mpi_test(NAME ${prog} NP 1 2 3 4 8 ARGS --expect-accel TIMEOUT 300
                         PASS_REGEX "${_pass}" ENV ${nb_env})
    # one buffer bank: every second large op publishes late
    nodeshm_add_mpi_test(NAME ${prog} NP 3 ARGS --expect-accel TIMEOUT 300 PASS_REGEX "${_pass}"
                         ENV ${nb_env} NODESHM_MPI_BANKS=1 SUFFIX _one_bank)
    # windows of the small ring's size (the v-forms' defaults: igatherv, iscatterv take the ring)
    if(prog STREQUAL "mpi_nonblocking_v")
      set(ring_env)
      foreach(op IBCAST IALLREDUCE IGATHERV ISCATTERV IALLGATHERV IALLTOALL IALLTOALLV)
        list(APPEND ring_env NODESHM_MPI_${op}_MAX=4k)
      endforeach()
      nodeshm_add_mpi_test(NAME ${prog} NP 4 ARGS --expect-accel --window 4096 TIMEOUT 300
                           PASS_REGEX "${_pass}" ENV ${ring_env} SUFFIX _ring)
    endif()
    # between nodes: Ibarrier, Ibcast, Iallreduce, Ireduce, Igather, Iscatter, Iallgather,
    # Iallgatherv, Ialltoall, Ialltoallv run here (the leaders' part a third step), Igatherv and
    # Iscatterv are the MPI library's; pseudo-nodes of 2 and 2, of 2 and 1 (a leader alone), of 1
    # (no shared buffers: none), 2 emulated hosts, and (the v-forms) 3 of 2 ranks each
    nodeshm_add_mpi_test(NAME ${prog} NP 4 PES_PER_NODE 2 ARGS --expect-accel TIMEOUT 300
                         PASS_REGEX "${_pass}" ENV ${nb_env})
    nodeshm_add_mpi_test(NAME ${prog} NP 3 PES_PER_NODE 2 ARGS --expect-accel TIMEOUT 300
                         PASS_REGEX "${_pass}" ENV ${nb_env})
    nodeshm_add_mpi_test(NAME ${prog} NP 4 PES_PER_NODE 2 ARGS --expect-accel TIMEOUT 300
                         PASS_REGEX "${_pass}" ENV ${nb_env} NODESHM_MPI_BANKS=1 SUFFIX _one_bank)
    nodeshm_add_mpi_test(NAME ${prog} NP 3 PES_PER_NODE 1 ARGS --expect-accel TIMEOUT 300
                         PASS_REGEX "${_pass}" ENV ${nb_env})
    nodeshm_add_mpi_test(NAME ${prog} NP 3 4 HOSTS 2 ARGS --expect-accel TIMEOUT 600
                         PASS_REGEX "${_pass}" ENV ${nb_env})
    if(prog STREQUAL "mpi_nonblocking_v")
      nodeshm_add_mpi_test(NAME ${prog} NP 6 HOSTS 3 ARGS --expect-accel --rounds 4 TIMEOUT 600
                           PASS_REGEX "${_pass}" ENV ${nb_env})
      # Ialltoallv between nodes at the default windows, counted alone: several outstanding per
      # communicator, blocks up to 64 KiB (above the default stride: point to point); 2 hosts,
      # pseudo-nodes of 2: every call runs (the blocking Alltoallv's strides)
      set(_a2av_expect --expect-accel)
      nodeshm_add_mpi_test(NAME ${prog} NP 4 HOSTS 2 ARGS ${_a2av_expect} --ialltoallv-only --window 32768
                           TIMEOUT 600 PASS_REGEX "${_pass}" SUFFIX _a2av_defaults)
      nodeshm_add_mpi_test(NAME ${prog} NP 4 PES_PER_NODE 2 ARGS ${_a2av_expect} --ialltoallv-only --window 32768
                           TIMEOUT 300 PASS_REGEX "${_pass}" SUFFIX _a2av_defaults)
    endif()
    nodeshm_add_mpi_test(NAME ${prog} NP 4 ARGS --expect-none TIMEOUT 300 PASS_REGEX "${_pass}"
                         ENV ${nb_env} "NODESHM_MPI_DISABLE=ibarrier,ibcast,iallreduce,ireduce,igather,iscatter,iallgather,igatherv,iscatterv,iallgatherv,ialltoall,ialltoallv" SUFFIX _disabled)
    add_test(NAME ${prog}_preload_np4
      COMMAND "${NODESHM_OSHRUN}" -np 4 "${NODESHM_ENV_PROGRAM}"
              "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" $<TARGET_FILE:nodeshm_t_${prog}_plain> --expect-accel)
    set_tests_properties(${prog}_preload_np4 PROPERTIES TIMEOUT 300 LABELS "mpi;np4"
      PASS_REGULAR_EXPRESSION "${_pass}" ENVIRONMENT "${nb_env}")
  endforeach()
  # tests/mpi_nb_bcast.c: MPI_Ibcast alone, counted per call: several outstanding per communicator
  # and root, every root, each rank's own datatype (vectors with gaps), deeper than the buffers.
  # On one node it runs core/coll/bcast.h's step form (src/mpi/bcast.c): 2, 3, 4 and 8 ranks, one
  # bank, preloaded; between pseudo-nodes (2 and 2, 2 and 1) nonblocking_nodes.c's steps, whose
  # root's node reads as on one node; switched off (no counter moves)
  set(_pass "mpi_nb_bcast: PASS")
  nodeshm_add_mpi_test(NAME mpi_nb_bcast NP 2 3 4 8 ARGS --expect-accel TIMEOUT 300 PASS_REGEX "${_pass}"
                       ENV ${nb_env})
  nodeshm_add_mpi_test(NAME mpi_nb_bcast NP 3 ARGS --expect-accel TIMEOUT 300 PASS_REGEX "${_pass}"
                       ENV ${nb_env} NODESHM_MPI_BANKS=1 SUFFIX _one_bank)
  nodeshm_add_mpi_test(NAME mpi_nb_bcast NP 3 4 PES_PER_NODE 2 ARGS --expect-accel TIMEOUT 300
                       PASS_REGEX "${_pass}" ENV ${nb_env})
  nodeshm_add_mpi_test(NAME mpi_nb_bcast NP 4 ARGS --expect-none TIMEOUT 300 PASS_REGEX "${_pass}"
                       ENV ${nb_env} NODESHM_MPI_DISABLE=ibcast SUFFIX _disabled)
  add_test(NAME mpi_nb_bcast_preload_np4
    COMMAND "${NODESHM_OSHRUN}" -np 4 "${NODESHM_ENV_PROGRAM}"
            "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" $<TARGET_FILE:nodeshm_t_mpi_nb_bcast_plain> --expect-accel)
  set_tests_properties(mpi_nb_bcast_preload_np4 PROPERTIES TIMEOUT 300 LABELS "mpi;np4"
    PASS_REGULAR_EXPRESSION "${_pass}" ENVIRONMENT "${nb_env}")
  # tests/mpi_nb_status.c: MPI_Cancel refused on requests of ours (non-blocking and persistent:
  # MPI_ERR_REQUEST through the communicator's error handler, the request left as it was; the
  # default handler's abort, _fatal), MPI_Request_free on non-blocking ones and active persistent
  # ones too (_fatal_free, _fatal_free_persistent), and
  # MPI-4.1's MPI_Request_get_status_any/some/all on them
  # where the MPI has them; on one node, between pseudo-nodes and hosts
  set(s_env NODESHM_MPI_IALLREDUCE_MAX=16k NODESHM_MPI_ALLREDUCE_INIT_MAX=16k)
  set(_pass "mpi_nb_status: PASS")
  nodeshm_add_mpi_test(NAME mpi_nb_status NP 2 4 ARGS --expect-accel TIMEOUT 300 PASS_REGEX "${_pass}" ENV ${s_env})
  nodeshm_add_mpi_test(NAME mpi_nb_status NP 4 PES_PER_NODE 2 ARGS --expect-accel TIMEOUT 300
                       PASS_REGEX "${_pass}" ENV ${s_env})
  nodeshm_add_mpi_test(NAME mpi_nb_status NP 4 HOSTS 2 ARGS --expect-accel TIMEOUT 600
                       PASS_REGEX "${_pass}" ENV ${s_env})
  # Both through expect_failure.sh: a nonzero exit with the message, nothing left behind, in
  # time.  Open MPI 5.0's prterun itself crashes after the abort now and then (status 139: 2 of
  # 17 runs of _fatal_free; _fatal 1 of 40 under load, which as a plain test with a pass regex
  # ctest then failed as a segfault although the abort had done all it must).
  nodeshm_add_script_test(NAME mpi_nb_status_np2_fatal TIMEOUT 180
    ENV ${s_env} EXPECT_FAILURE_TIMEOUT=150 EXPECT_FAILURE_MAX_SECONDS=120
    COMMAND expect_failure.sh 2
            "nodeshm_mpi: MPI_Cancel: the request is a non-blocking collective's"
            $<TARGET_FILE:nodeshm_t_mpi_nb_status> --fatal)
  set_tests_properties(mpi_nb_status_np2_fatal PROPERTIES LABELS "script;mpi;np2")
  nodeshm_add_script_test(NAME mpi_nb_status_np2_fatal_free TIMEOUT 180
    ENV ${s_env} EXPECT_FAILURE_TIMEOUT=150 EXPECT_FAILURE_MAX_SECONDS=120
    COMMAND expect_failure.sh 2
            "nodeshm_mpi: MPI_Request_free: the request is an MPI_Iallreduce's, a non-blocking collective"
            $<TARGET_FILE:nodeshm_t_mpi_nb_status> --fatal-free)
  set_tests_properties(mpi_nb_status_np2_fatal_free PROPERTIES LABELS "script;mpi;np2")
  # the same on an active persistent request of ours (a started MPI_Allreduce_init; skipped where
  # the MPI has none)
  nodeshm_add_script_test(NAME mpi_nb_status_np2_fatal_free_persistent TIMEOUT 180
    ENV ${s_env} EXPECT_FAILURE_TIMEOUT=150 EXPECT_FAILURE_MAX_SECONDS=120
    COMMAND expect_failure.sh 2
            "nodeshm_mpi: MPI_Request_free: the request is an MPI_Allreduce_init's, a persistent collective, active"
            $<TARGET_FILE:nodeshm_t_mpi_nb_status> --fatal-free-persistent)
  set_tests_properties(mpi_nb_status_np2_fatal_free_persistent PROPERTIES LABELS "script;mpi;np2"
    SKIP_REGULAR_EXPRESSION "mpi_nb_status: SKIP")
  add_test(NAME mpi_nb_status_preload_np3
    COMMAND "${NODESHM_OSHRUN}" -np 3 "${NODESHM_ENV_PROGRAM}"
            "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" $<TARGET_FILE:nodeshm_t_mpi_nb_status_plain> --expect-accel)
  set_tests_properties(mpi_nb_status_preload_np3 PROPERTIES TIMEOUT 300 LABELS "mpi;np3"
    PASS_REGULAR_EXPRESSION "${_pass}" ENVIRONMENT "${s_env}")
endif()
