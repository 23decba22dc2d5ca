# Contexts: every shmem_ctx_ family over the type tables on the default, a created and a team
# context (team-relative PE numbers), ordering, generic forms, lifetimes (tests/ctx.c); threads
# each with a PRIVATE context under SHMEM_THREAD_MULTIPLE (tests/ctx_threads.c).  The pseudo-node
# runs take the MPI path, where shmem_ctx_quiet must flush.
nodeshm_add_mpi_test(NAME ctx SOURCES ctx.c NP 1 2 4)
nodeshm_add_mpi_test(NAME ctx NP 4 PES_PER_NODE 2)
nodeshm_add_mpi_test(NAME ctx NP 3 PES_PER_NODE 1)

find_package(Threads REQUIRED)
nodeshm_add_mpi_test(NAME ctx_threads SOURCES ctx_threads.c NP 1 2 4)
nodeshm_add_mpi_test(NAME ctx_threads NP 4 PES_PER_NODE 2)
nodeshm_add_mpi_test(NAME ctx_threads NP 3 PES_PER_NODE 1)
target_link_libraries(nodeshm_t_ctx_threads PRIVATE Threads::Threads)
# Without SHMEM_THREAD_MULTIPLE (Open MPI 4.x between nodes) the test says so and ctest reports
# it skipped, not passed.
set_tests_properties(ctx_threads_np1 ctx_threads_np2 ctx_threads_np4 ctx_threads_np4_ppn2
  ctx_threads_np3_ppn1 PROPERTIES SKIP_REGULAR_EXPRESSION "ctx_threads: SKIPPED")

# Erroneous calls end the job with a message naming the call and the bad handle.
set(_ctx_shm_ignore)
if(NODESHM_MPI_FLAVOR STREQUAL "mpich")
  set(_ctx_shm_ignore
    "EXPECT_FAILURE_SHM_IGNORE=^mpich_(shm_[0-9a-f]+_[0-9]+|shar_tmp[0-9A-Za-z]{6})$")
endif()
set(_re_bad-invalid-put "nodeshm: PE [0-9]+: shmem_ctx_int_p: invalid context SHMEM_CTX_INVALID")
set(_re_bad-destroyed-amo
  "nodeshm: PE [0-9]+: shmem_ctx_int_atomic_inc: context 0x[0-9a-f]+ is not a valid context")
set(_re_bad-team-pe "nodeshm: PE 0: shmem_ctx_int_p: invalid PE 1 for context [0-9]+ \\(its team's PEs are 0 to 0\\)")
set(_re_bad-destroy-default "nodeshm: PE [0-9]+: shmem_ctx_destroy: cannot destroy SHMEM_CTX_DEFAULT")
foreach(_case IN ITEMS bad-invalid-put bad-destroyed-amo bad-team-pe bad-destroy-default)
  nodeshm_add_script_test(NAME ctx_${_case}_np2 TIMEOUT 120 ENV ${_ctx_shm_ignore}
    COMMAND expect_failure.sh 2 "${_re_${_case}}" $<TARGET_FILE:nodeshm_t_ctx> ${_case})
endforeach()
nodeshm_add_script_test(NAME ctx_bad-invalid-put_np4_ppn2 TIMEOUT 120
  ENV ${_ctx_shm_ignore} NODESHM_PES_PER_NODE=2
  COMMAND expect_failure.sh 4 "${_re_bad-invalid-put}" $<TARGET_FILE:nodeshm_t_ctx> bad-invalid-put)
