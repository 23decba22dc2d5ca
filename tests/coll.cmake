# Collectives over teams (tests/coll.c): every collective and type family against local
# references, WORLD/SHARED/strided/2d/from-communicator teams, counts 0 to 100k, back to back on
# overlapping teams.  The pseudo-node runs take the between-node (leaders, MPI) paths.
nodeshm_add_mpi_test(NAME coll SOURCES coll.c NP 1 2 4 8)
nodeshm_add_mpi_test(NAME coll NP 4 PES_PER_NODE 2)
nodeshm_add_mpi_test(NAME coll NP 6 PES_PER_NODE 3)
nodeshm_add_mpi_test(NAME coll NP 8 PES_PER_NODE 3)
# data-moving collectives switch to rendezvous above NODESHM_COLL_EAGER_MAX (4 KiB): the whole
# eager range (64 KiB) and rendezvous from 1 byte get a run each
nodeshm_add_mpi_test(NAME coll NP 3 4 ENV NODESHM_COLL_EAGER_MAX=64k SUFFIX _eager64k)
nodeshm_add_mpi_test(NAME coll NP 3 4 ENV NODESHM_COLL_EAGER_MAX=0 SUFFIX _rendezvous)

# Which path each team collective took (tests/coll_paths.c, shmemx_coll_calls): counted per
# call on one node, pseudo-nodes and (hosts.cmake) emulated hosts.
nodeshm_add_mpi_test(NAME coll_paths SOURCES coll_paths.c NP 1 4)
nodeshm_add_mpi_test(NAME coll_paths NP 4 6 PES_PER_NODE 2)

# Broadcast at each protocol's sizes from every root, back to back (tests/coll_bcast.c): one
# node, and pseudo-nodes of 2 (2+1, 2+2; emulated hosts in hosts.cmake).
nodeshm_add_mpi_test(NAME coll_bcast SOURCES coll_bcast.c NP 3 4 TIMEOUT 300)
nodeshm_add_mpi_test(NAME coll_bcast NP 3 4 PES_PER_NODE 2 TIMEOUT 300)

# Collect and fcollect at each protocol's sizes, pieces mixing them in one call, back to back
# (tests/coll_collect.c): one node (core/coll/collect.h; with every piece staged, and every
# piece read in place), and pseudo-nodes of 2 (2+1, 2+2; emulated hosts in hosts.cmake).
nodeshm_add_mpi_test(NAME coll_collect SOURCES coll_collect.c NP 3 4 TIMEOUT 300)
nodeshm_add_mpi_test(NAME coll_collect NP 4 ENV NODESHM_COLL_EAGER_MAX=64k SUFFIX _eager64k TIMEOUT 300)
nodeshm_add_mpi_test(NAME coll_collect NP 3 ENV NODESHM_COLL_EAGER_MAX=0 SUFFIX _rendezvous TIMEOUT 300)
nodeshm_add_mpi_test(NAME coll_collect NP 3 4 PES_PER_NODE 2 TIMEOUT 300)

# Alltoall and alltoalls at each protocol's sizes, strided, back to back (tests/coll_alltoall.c):
# one node (core/coll/alltoall.h; with every block staged, and every source read in place), and
# pseudo-nodes of 2 (2+1, 2+2; emulated hosts in hosts.cmake).
nodeshm_add_mpi_test(NAME coll_alltoall SOURCES coll_alltoall.c NP 3 4 TIMEOUT 300)
nodeshm_add_mpi_test(NAME coll_alltoall NP 4 ENV NODESHM_COLL_EAGER_MAX=64k SUFFIX _eager64k TIMEOUT 300)
nodeshm_add_mpi_test(NAME coll_alltoall NP 3 ENV NODESHM_COLL_EAGER_MAX=0 SUFFIX _rendezvous TIMEOUT 300)
nodeshm_add_mpi_test(NAME coll_alltoall NP 3 4 PES_PER_NODE 2 TIMEOUT 300)

# Deprecated active-set collectives (tests/coll_aset.c): barrier, sync, broadcast/collect/
# fcollect/alltoall(s) 32 and 64, every OP_to_all, on overlapping active sets.
nodeshm_add_mpi_test(NAME coll_aset SOURCES coll_aset.c NP 1 2 4 8)
nodeshm_add_mpi_test(NAME coll_aset NP 4 PES_PER_NODE 2)
nodeshm_add_mpi_test(NAME coll_aset NP 6 PES_PER_NODE 3)

# OpenSHMEM 1.6 scans (tests/coll_scan.c): sum_inscan/sum_exscan of every SUM type and the
# generic names on WORLD/strided/2d/from-communicator teams, counts 0 to past a staging buffer.
nodeshm_add_mpi_test(NAME coll_scan SOURCES coll_scan.c NP 1 2 3 4 8)
nodeshm_add_mpi_test(NAME coll_scan NP 3 4 PES_PER_NODE 2)
nodeshm_add_mpi_test(NAME coll_scan NP 6 PES_PER_NODE 4)

# Erroneous calls end the job with a message naming the call and the bad value
# (tests/expect_failure.sh), as in tests/teams.cmake.
set(_coll_shm_ignore)
if(NODESHM_MPI_FLAVOR STREQUAL "mpich")
  set(_coll_shm_ignore
    "EXPECT_FAILURE_SHM_IGNORE=^mpich_(shm_[0-9a-f]+_[0-9]+|shar_tmp[0-9A-Za-z]{6})$")
endif()
set(_re_bad-root "nodeshm: PE [0-9]+: shmem_long_broadcast: invalid PE_root [0-9]+")
set(_re_bad-team "nodeshm: PE [0-9]+: shmem_long_sum_reduce: invalid team SHMEM_TEAM_INVALID")
set(_re_bad-dest "nodeshm: PE [0-9]+: shmem_long_fcollect: .*dest")
set(_re_bad-aset "nodeshm: PE [0-9]+: shmem_barrier: invalid active set")
foreach(_case IN ITEMS bad-root bad-team bad-dest bad-aset)
  nodeshm_add_script_test(NAME coll_${_case}_np2 TIMEOUT 120 ENV ${_coll_shm_ignore}
    COMMAND expect_failure.sh 2 "${_re_${_case}}" $<TARGET_FILE:nodeshm_t_coll> ${_case})
endforeach()
