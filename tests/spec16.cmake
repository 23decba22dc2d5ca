# OpenSHMEM 1.6 additions (tests/spec16.c): shmem_team_ptr, shmem_signal_add/set, nested and
# repeated init/finalize with shmem_query_initialized, shmem_malloc_with_hints' unknown hints.
# One node at 1, 2, 4 PEs, and pseudo-nodes of 1 and 2 PEs (the MPI path between them).
nodeshm_add_mpi_test(NAME spec16 SOURCES spec16.c NP 1 2 4 TIMEOUT 120)
nodeshm_add_mpi_test(NAME spec16 NP 2 4 PES_PER_NODE 1 TIMEOUT 120)
nodeshm_add_mpi_test(NAME spec16 NP 4 PES_PER_NODE 2 TIMEOUT 120)
# a bad PE ends the job with a message naming the call and the PE
nodeshm_add_mpi_test(NAME spec16 NP 2 ARGS bad-signal-pe SUFFIX _badpe TIMEOUT 60
  PASS_REGEX "shmem_signal_add: invalid PE 2")
