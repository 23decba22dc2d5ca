# libnodeshm_mpi: MPI_Ibarrier, MPI_Ibcast, MPI_Iallreduce (tests/mpi_nonblocking.c): values, several
# outstanding on several communicators completed in per-rank orders, mixed with point to point,
# and each op's counter moving by exactly the calls that had to be accelerated.  Linked and through
# LD_PRELOAD on one node; between pseudo-nodes and switched off (no counter moves).
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  find_program(NODESHM_ENV_PROGRAM env)
  foreach(kind linked plain)
    set(target nodeshm_t_mpi_nonblocking)
    set(name mpi_nonblocking)
    if(kind STREQUAL "plain")
      set(target nodeshm_t_mpi_nonblocking_plain)
      set(name mpi_nonblocking_plain)
    endif()
    add_executable(${target} mpi_nonblocking.c)
    set_target_properties(${target} PROPERTIES OUTPUT_NAME ${name})
    # nsm_bigcount_config.h: which MPI_<Op>_c this MPI has (CMakeLists.txt)
    target_include_directories(${target} PRIVATE "${PROJECT_BINARY_DIR}/generated")
    if(kind STREQUAL "plain")
      target_link_libraries(${target} PRIVATE MPI::MPI_C ${CMAKE_DL_LIBS})
    else()
      target_link_libraries(${target} PRIVATE nodeshm_mpi ${CMAKE_DL_LIBS})
    endif()
  endforeach()
  # the window the test counts on, whatever the defaults
  set(nb_env)
  foreach(op IBCAST IALLREDUCE IREDUCE IGATHER ISCATTER IALLGATHER)
    list(APPEND nb_env NODESHM_MPI_${op}_MAX=16k)
  endforeach()
  set(_pass "mpi_nonblocking: PASS")
  nodeshm_add_mpi_test(NAME mpi_nonblocking NP 1 2 3 4 8 ARGS --expect-accel TIMEOUT 300
                       PASS_REGEX "${_pass}" ENV ${nb_env})
  # one buffer bank: every second large op publishes late
  nodeshm_add_mpi_test(NAME mpi_nonblocking NP 3 ARGS --expect-accel TIMEOUT 300 PASS_REGEX "${_pass}"
                       ENV ${nb_env} NODESHM_MPI_BANKS=1 SUFFIX _one_bank)
  # between pseudo-nodes: the MPI library's
  nodeshm_add_mpi_test(NAME mpi_nonblocking NP 4 PES_PER_NODE 2 ARGS --expect-none TIMEOUT 300
                       PASS_REGEX "${_pass}" ENV ${nb_env})
  nodeshm_add_mpi_test(NAME mpi_nonblocking NP 4 ARGS --expect-none TIMEOUT 300 PASS_REGEX "${_pass}"
                       ENV ${nb_env} "NODESHM_MPI_DISABLE=ibarrier,ibcast,iallreduce,ireduce,igather,iscatter,iallgather" SUFFIX _disabled)
  add_test(NAME mpi_nonblocking_preload_np4
    COMMAND "${NODESHM_OSHRUN}" -np 4 "${NODESHM_ENV_PROGRAM}"
            "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" $<TARGET_FILE:nodeshm_t_mpi_nonblocking_plain> --expect-accel)
  set_tests_properties(mpi_nonblocking_preload_np4 PROPERTIES TIMEOUT 300 LABELS "mpi;np4"
    PASS_REGULAR_EXPRESSION "${_pass}" ENVIRONMENT "${nb_env}")
endif()
