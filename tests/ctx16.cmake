# Contexts, OpenSHMEM 1.6 (tests/ctx16.c): local context creation (PEs creating contexts on
# different teams must not wait for each other: a hang fails by the TIMEOUT), SHMEM_CTX_INVALID
# from failed creations and the calls defined on it, and sessions on the default, created and
# team contexts with every value checked (sessions are hints nodeshm validates and does not
# apply; the data must come out right all the same).  Pseudo-node runs take the MPI path.
nodeshm_add_mpi_test(NAME ctx16 SOURCES ctx16.c NP 2 4 ARGS local SUFFIX _local TIMEOUT 60)
nodeshm_add_mpi_test(NAME ctx16 NP 2 4 PES_PER_NODE 1 ARGS local SUFFIX _local TIMEOUT 60)
nodeshm_add_mpi_test(NAME ctx16 NP 1 2 4 TIMEOUT 180)
nodeshm_add_mpi_test(NAME ctx16 NP 2 4 PES_PER_NODE 1 TIMEOUT 240)
nodeshm_add_mpi_test(NAME ctx16 NP 4 PES_PER_NODE 2 TIMEOUT 240)

# Erroneous session calls end the job with a message naming the call and the bad value; RMA/AMO
# on SHMEM_CTX_INVALID (undefined behaviour in the specification) too.
set(_ctx16_shm_ignore)
if(NODESHM_MPI_FLAVOR STREQUAL "mpich")
  set(_ctx16_shm_ignore
    "EXPECT_FAILURE_SHM_IGNORE=^mpich_(shm_[0-9a-f]+_[0-9]+|shar_tmp[0-9A-Za-z]{6})$")
endif()
set(_re_bad-session-options
  "nodeshm: PE [0-9]+: shmem_ctx_session_start: unknown options 0x20 \\(known: SHMEM_CTX_SESSION_BATCH = 0x1\\)")
set(_re_bad-session-mask
  "nodeshm: PE [0-9]+: shmem_ctx_session_start: unknown config_mask bits 0x8")
set(_re_bad-session-config
  "nodeshm: PE [0-9]+: shmem_ctx_session_start: config is NULL but config_mask is 0x1")
set(_re_bad-session-destroyed
  "nodeshm: PE [0-9]+: shmem_ctx_session_start: context 0x[0-9a-f]+ is not a valid context")
set(_re_bad-invalid-amo
  "nodeshm: PE [0-9]+: shmem_ctx_uint64_atomic_add: invalid context SHMEM_CTX_INVALID")
foreach(_case IN ITEMS bad-session-options bad-session-mask bad-session-config
                       bad-session-destroyed bad-invalid-amo)
  nodeshm_add_script_test(NAME ctx16_${_case}_np2 TIMEOUT 120 ENV ${_ctx16_shm_ignore}
    COMMAND expect_failure.sh 2 "${_re_${_case}}" $<TARGET_FILE:nodeshm_t_ctx16> ${_case})
endforeach()
nodeshm_add_script_test(NAME ctx16_bad-invalid-amo_np2_ppn1 TIMEOUT 120
  ENV ${_ctx16_shm_ignore} NODESHM_PES_PER_NODE=1
  COMMAND expect_failure.sh 2 "${_re_bad-invalid-amo}" $<TARGET_FILE:nodeshm_t_ctx16> bad-invalid-amo)
