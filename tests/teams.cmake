# Teams: splits, translation, SHARED, team_sync checked by data, teams from MPI communicators,
# slot reuse and exhaustion.  The pseudo-node runs put team members on different (pseudo-)nodes,
# so team_sync flags and the data checks take the MPI path there.
nodeshm_add_mpi_test(NAME teams SOURCES teams.c NP 1 2 4 8)
nodeshm_add_mpi_test(NAME teams NP 4 PES_PER_NODE 2)
nodeshm_add_mpi_test(NAME teams NP 6 PES_PER_NODE 3)

# Erroneous calls end the job with a message naming the call and the bad handle, a nonzero exit
# within seconds and nothing left behind (tests/expect_failure.sh).  The MPICH segment that
# MPI_Abort leaves in /dev/shm is exempt, as in tests/amo_sync.cmake.
set(_teams_shm_ignore)
if(NODESHM_MPI_FLAVOR STREQUAL "mpich")
  set(_teams_shm_ignore
    "EXPECT_FAILURE_SHM_IGNORE=^mpich_(shm_[0-9a-f]+_[0-9]+|shar_tmp[0-9A-Za-z]{6})$")
endif()
set(_re_bad-sync-destroyed "nodeshm: PE [0-9]+: shmem_team_sync: team 0x[0-9a-f]+ is not a valid team")
set(_re_bad-sync-invalid "nodeshm: PE [0-9]+: shmem_team_sync: invalid team SHMEM_TEAM_INVALID")
set(_re_bad-destroy-world
  "nodeshm: PE [0-9]+: shmem_team_destroy: cannot destroy the predefined team SHMEM_TEAM_WORLD")
foreach(_case IN ITEMS bad-sync-destroyed bad-sync-invalid bad-destroy-world)
  nodeshm_add_script_test(NAME teams_${_case}_np2 TIMEOUT 120 ENV ${_teams_shm_ignore}
    COMMAND expect_failure.sh 2 "${_re_${_case}}" $<TARGET_FILE:nodeshm_t_teams> ${_case})
  nodeshm_add_script_test(NAME teams_${_case}_np4_ppn2 TIMEOUT 120
    ENV ${_teams_shm_ignore} NODESHM_PES_PER_NODE=2
    COMMAND expect_failure.sh 4 "${_re_${_case}}" $<TARGET_FILE:nodeshm_t_teams> ${_case})
endforeach()
