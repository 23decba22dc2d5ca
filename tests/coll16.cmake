# OpenSHMEM 1.6 collectives (tests/coll16.c): zero-length calls with null dest/source on every
# family (typed, mem, generic, active-set forms, every reduction op and type, scans), interleaved
# with checked real calls; collect with per-PE counts and null sources where a PE sends nothing.
# One node and pseudo-nodes of 1 and 2 PEs (the between-node paths).
nodeshm_add_mpi_test(NAME coll16 SOURCES coll16.c NP 1 2 3 4)
nodeshm_add_mpi_test(NAME coll16 NP 2 3 4 PES_PER_NODE 1)
nodeshm_add_mpi_test(NAME coll16 NP 3 4 PES_PER_NODE 2)
# collect's rendezvous path (peers read the sources: a member with a null source must find the
# others')
nodeshm_add_mpi_test(NAME coll16 NP 3 ENV NODESHM_COLL_EAGER_MAX=0 SUFFIX _rendezvous)
nodeshm_add_mpi_test(NAME coll16 NP 4 PES_PER_NODE 2 ENV NODESHM_COLL_EAGER_MAX=0 SUFFIX _rendezvous)
# ... but a null pointer with something to move is still an error naming the call
set(_coll16_shm_ignore)
if(NODESHM_MPI_FLAVOR STREQUAL "mpich")
  set(_coll16_shm_ignore
    "EXPECT_FAILURE_SHM_IGNORE=^mpich_(shm_[0-9a-f]+_[0-9]+|shar_tmp[0-9A-Za-z]{6})$")
endif()
nodeshm_add_script_test(NAME coll16_null-nonzero_np2 TIMEOUT 120 ENV ${_coll16_shm_ignore}
  COMMAND expect_failure.sh 2
    "nodeshm: PE 0: shmem_long_collect: source .*\\(8 bytes\\) is not symmetric"
    $<TARGET_FILE:nodeshm_t_coll16> null-nonzero)

# C11 type-generic interfaces (tests/generic11.c): every generic name with every type of its
# table in the specification, with and without a context, compiled as strict C11 with -Werror,
# then run (values of a few selections).  The file is plain C11 (no GNU extensions).
nodeshm_add_mpi_test(NAME generic11 SOURCES generic11.c NP 1 2 3 4)
nodeshm_add_mpi_test(NAME generic11 NP 2 4 PES_PER_NODE 1)
nodeshm_add_mpi_test(NAME generic11 NP 4 PES_PER_NODE 2)
set_target_properties(nodeshm_t_generic11 PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF)
target_compile_options(nodeshm_t_generic11 PRIVATE -Werror -pedantic)
# Types outside a generic name's table must be rejected at compile time: each case compiled alone
# (GENERIC11_REJECT=k in generic11.c) must fail; case 0 (none) must compile, so a broken command
# line cannot pass as a rejection.
foreach(_k RANGE 0 5)
  set(_name generic11_reject${_k})
  add_library(${_name} OBJECT EXCLUDE_FROM_ALL generic11.c)
  target_compile_definitions(${_name} PRIVATE GENERIC11_REJECT=${_k})
  target_include_directories(${_name} PRIVATE "${PROJECT_SOURCE_DIR}/include")
  target_link_libraries(${_name} PRIVATE MPI::MPI_C)
  set_target_properties(${_name} PROPERTIES C_STANDARD 11 C_EXTENSIONS OFF)
  target_compile_options(${_name} PRIVATE -Werror)
  add_test(NAME ${_name}
    COMMAND "${CMAKE_COMMAND}" --build "${PROJECT_BINARY_DIR}" --target ${_name})
  set_tests_properties(${_name} PROPERTIES TIMEOUT 120 LABELS "compile")
  if(_k GREATER 0)
    set_tests_properties(${_name} PROPERTIES WILL_FAIL TRUE)
  endif()
endforeach()
