# AMOs, locks and ordering, MPI interplay, error paths and a killed PE.
# Pseudo-node runs (PES_PER_NODE) make the job span (pseudo-)nodes, so every AMO takes the
# MPI RMA path there.
nodeshm_add_mpi_test(NAME amo SOURCES amo.c NP 1 2 4 8)
nodeshm_add_mpi_test(NAME amo NP 4 PES_PER_NODE 2)
nodeshm_add_mpi_test(NAME amo NP 3 PES_PER_NODE 1)
nodeshm_add_mpi_test(NAME lock_order SOURCES lock_order.c NP 1 2 4 8)
nodeshm_add_mpi_test(NAME lock_order NP 4 PES_PER_NODE 2)
nodeshm_add_mpi_test(NAME lock_order NP 3 PES_PER_NODE 1)
# MPI_Init by the program, shmem in between, MPI after shmem_finalize
nodeshm_add_mpi_test(NAME hybrid SOURCES hybrid.c NP 1 2 4)
nodeshm_add_mpi_test(NAME hybrid NP 4 PES_PER_NODE 2)
# MPI started at MPI_THREAD_MULTIPLE: fine on one node; between nodes fine too, except under
# Open MPI 4.x, whose osc/pt2pt refuses windows at that level: shmem_init says so and stops.
nodeshm_add_mpi_test(NAME hybrid NP 2 ARGS --thread-multiple SUFFIX _thread_multiple)
include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
check_c_source_compiles("#include <mpi.h>
#if !defined(OPEN_MPI) || !defined(OMPI_MAJOR_VERSION) || OMPI_MAJOR_VERSION >= 5
#error not Open MPI 4
#endif
int main(void) { return 0; }" NODESHM_OPEN_MPI_4)
unset(CMAKE_REQUIRED_LIBRARIES)
if(NODESHM_OPEN_MPI_4)
  nodeshm_add_script_test(NAME hybrid_thread_multiple_np4_ppn2 TIMEOUT 120
    ENV NODESHM_PES_PER_NODE=2
    COMMAND expect_failure.sh 4 "nodeshm: PE [0-9]+: shmem_init: MPI runs at MPI_THREAD_MULTIPLE and the job spans 2 nodes: Open MPI 4.x cannot create RMA windows"
            $<TARGET_FILE:nodeshm_t_hybrid> --thread-multiple)
else()
  nodeshm_add_mpi_test(NAME hybrid NP 4 PES_PER_NODE 2 ARGS --thread-multiple SUFFIX _thread_multiple)
endif()

# Error paths: a clear message naming the call and the bad value, a nonzero exit within
# seconds, no process and nothing in /dev/shm left behind (tests/expect_failure.sh).
nodeshm_add_test_executable(errors errors.c)
# MPICH (4.x, 5.0) keeps its node segment /dev/shm/mpich_shm_<world>_<node> named until
# MPI_Finalize, so every MPI_Abort and every killed job leaves one behind; oshrun removes what a
# failed run of its own left (tools/oshrun.in), and these tests check that it did: anything left
# in /dev/shm fails them.  The scripts run each job with a private tmpfs on /dev/shm where they
# can, so other jobs' files are never blamed.
set(NODESHM_MPI_SHM_IGNORE)
function(nodeshm_expect_failure mode np regex)
  cmake_parse_arguments(PARSE_ARGV 3 E "" "PES_PER_NODE" "ENV")
  set(name errors_${mode}_np${np})
  set(env ${E_ENV} ${NODESHM_MPI_SHM_IGNORE})
  if(E_PES_PER_NODE)
    string(APPEND name _ppn${E_PES_PER_NODE})
    list(APPEND env NODESHM_PES_PER_NODE=${E_PES_PER_NODE})
  endif()
  nodeshm_add_script_test(NAME ${name} TIMEOUT 120 ENV ${env}
    COMMAND expect_failure.sh ${np} "${regex}" $<TARGET_FILE:nodeshm_t_errors> ${mode})
endfunction()
foreach(np 1 2)
  nodeshm_expect_failure(bad_pe ${np} "nodeshm: PE [0-9]+: shmem_int_p: invalid PE ${np} ")
  nodeshm_expect_failure(not_symmetric ${np}
    "nodeshm: PE [0-9]+: shmem_putmem: dest 0x[0-9a-f]+ \\(16 bytes\\) is not symmetric")
  nodeshm_expect_failure(heap_exhausted ${np}
    "nodeshm: PE 0: shmem_malloc: cannot allocate 2097152 bytes: symmetric heap exhausted"
    ENV SHMEM_SYMMETRIC_SIZE=1M)
  nodeshm_expect_failure(bad_symmetric_size ${np}
    "nodeshm: PE [0-9]+: shmem_init: invalid SHMEM_SYMMETRIC_SIZE='12xyz'"
    ENV SHMEM_SYMMETRIC_SIZE=12xyz)
  nodeshm_expect_failure(bad_cmp ${np}
    "nodeshm: PE [0-9]+: shmem_int_wait_until: invalid comparison operator 99")
  nodeshm_expect_failure(bad_free ${np}
    "nodeshm: PE [0-9]+: shmem_free: 0x[0-9a-f]+ was not returned by shmem_malloc")
endforeach()
nodeshm_expect_failure(bad_pe 4 "nodeshm: PE 3: shmem_int_p: invalid PE 4 " PES_PER_NODE 2)
nodeshm_expect_failure(heap_exhausted 4
  "nodeshm: PE 0: shmem_malloc: cannot allocate 2097152 bytes: symmetric heap exhausted"
  PES_PER_NODE 2 ENV SHMEM_SYMMETRIC_SIZE=1M)

# A PE killed with SIGKILL: the job ends within 30 s, no process or /dev/shm file is left.
nodeshm_add_test_executable(kill_victim kill_victim.c)
nodeshm_add_script_test(NAME kill_np4 TIMEOUT 120 ENV ${NODESHM_MPI_SHM_IGNORE}
  COMMAND kill_test.sh 4 $<TARGET_FILE:nodeshm_t_kill_victim>)
nodeshm_add_script_test(NAME kill_np4_ppn2 TIMEOUT 120
  ENV NODESHM_PES_PER_NODE=2 ${NODESHM_MPI_SHM_IGNORE}
  COMMAND kill_test.sh 4 $<TARGET_FILE:nodeshm_t_kill_victim>)
