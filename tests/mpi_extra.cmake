# libnodeshm_mpi beyond the per-op tests: a rank killed mid-collective, mpi4py under LD_PRELOAD,
# collectives from two threads at once.
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  find_program(NODESHM_ENV_PROGRAM env)

  # A rank SIGKILLed while the others wait on its flags in the node-shared windows: the job ends
  # within 30 s with a nonzero status, no process and nothing in /dev/shm is left
  # (tests/mpi_fault.sh).  Linked, pseudo-nodes (leaders between nodes too), and LD_PRELOAD.
  add_executable(nodeshm_t_mpi_fault_victim mpi_fault_victim.c)
  set_target_properties(nodeshm_t_mpi_fault_victim PROPERTIES OUTPUT_NAME mpi_fault_victim)
  target_link_libraries(nodeshm_t_mpi_fault_victim PRIVATE nodeshm_mpi)
  add_executable(nodeshm_t_mpi_fault_victim_plain mpi_fault_victim.c)
  set_target_properties(nodeshm_t_mpi_fault_victim_plain PROPERTIES OUTPUT_NAME mpi_fault_victim_plain)
  target_link_libraries(nodeshm_t_mpi_fault_victim_plain PRIVATE MPI::MPI_C)
  set(_fault_env NODESHM_MPI_BCAST_MAX=128k)
  nodeshm_add_script_test(NAME mpi_fault_np4 TIMEOUT 120 ENV ${_fault_env}
    COMMAND mpi_fault.sh 4 $<TARGET_FILE:nodeshm_t_mpi_fault_victim>)
  nodeshm_add_script_test(NAME mpi_fault_np4_ppn2 TIMEOUT 120 ENV ${_fault_env} NODESHM_PES_PER_NODE=2
    COMMAND mpi_fault.sh 4 $<TARGET_FILE:nodeshm_t_mpi_fault_victim>)
  nodeshm_add_script_test(NAME mpi_fault_preload_np3 TIMEOUT 120 ENV ${_fault_env}
    COMMAND mpi_fault.sh 3 "${NODESHM_ENV_PROGRAM}" "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>"
            $<TARGET_FILE:nodeshm_t_mpi_fault_victim_plain>)
endif()

# mpi4py (from PyPI, in the MPI's venv: tools/bootstrap-mpi.sh) with the interposer preloaded:
# oshrun -np N env LD_PRELOAD=libnodeshm_mpi.so python tests/mpi4py_coll.py.  The venv's python
# sits next to its mpicc; without mpi4py there the tests are skipped (exit 77).
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  get_filename_component(_mpi_bin "${MPI_C_COMPILER}" DIRECTORY)
  if(EXISTS "${_mpi_bin}/python")
    set(NODESHM_MPI4PY_PYTHON "${_mpi_bin}/python")
  else()
    find_program(NODESHM_MPI4PY_PYTHON NAMES python3 python)
  endif()
  if(NODESHM_MPI4PY_PYTHON)
    # every op inside its window whatever the flavor's defaults (Open MPI: gatherv/scatterv off,
    # 512 B lower bounds at <= 2 ranks per node): the script expects each of its calls to be
    # accelerated ("<op>: n of N calls run by nodeshm")
    set(_mpi4py_env NODESHM_MPI_BCAST_MAX=128k)
    foreach(op GATHER GATHERV SCATTER SCATTERV ALLGATHER ALLGATHERV REDUCE ALLREDUCE
               REDUCE_SCATTER_BLOCK ALLTOALL ALLTOALLV SCAN EXSCAN REDUCE_SCATTER ALLTOALLW)
      list(APPEND _mpi4py_env NODESHM_MPI_${op}_MAX=64k)
    endforeach()
    foreach(op BCAST GATHER GATHERV SCATTER SCATTERV ALLGATHER ALLGATHERV REDUCE SCAN EXSCAN)
      list(APPEND _mpi4py_env NODESHM_MPI_${op}_MIN=0)
    endforeach()
    foreach(np 1 2 4 8) # (8 ranks: 3-4 s on 2 cores)
      add_test(NAME mpi4py_coll_preload_np${np}
        COMMAND "${NODESHM_OSHRUN}" -np ${np} "${NODESHM_ENV_PROGRAM}"
                "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" "${NODESHM_MPI4PY_PYTHON}"
                "${CMAKE_CURRENT_SOURCE_DIR}/mpi4py_coll.py" --expect ${NODESHM_MPI_FLAVOR})
      set_tests_properties(mpi4py_coll_preload_np${np} PROPERTIES TIMEOUT 120 LABELS "mpi;np${np}"
        SKIP_RETURN_CODE 77 PASS_REGULAR_EXPRESSION "mpi4py_coll: [0-9]+ ranks: .*PASS"
        SKIP_REGULAR_EXPRESSION "mpi4py_coll: SKIP" ENVIRONMENT "${_mpi4py_env}")
    endforeach()
    add_test(NAME mpi4py_coll_preload_np4_ppn2
      COMMAND "${NODESHM_OSHRUN}" -np 4 "${NODESHM_ENV_PROGRAM}"
              "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" "${NODESHM_MPI4PY_PYTHON}"
              "${CMAKE_CURRENT_SOURCE_DIR}/mpi4py_coll.py" --expect ${NODESHM_MPI_FLAVOR})
    set_tests_properties(mpi4py_coll_preload_np4_ppn2 PROPERTIES TIMEOUT 120 LABELS "mpi;np4"
      SKIP_RETURN_CODE 77 PASS_REGULAR_EXPRESSION "mpi4py_coll: [0-9]+ ranks: .*PASS"
      SKIP_REGULAR_EXPRESSION "mpi4py_coll: SKIP"
      ENVIRONMENT "${_mpi4py_env};NODESHM_PES_PER_NODE=2")
  endif()
endif()

# MPI_THREAD_MULTIPLE: two threads, collectives on their own communicators at once, making and
# freeing communicators (the interposer's state) concurrently.  Skipped with a message where the
# MPI does not provide MPI_THREAD_MULTIPLE.
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  find_package(Threads REQUIRED)
  add_executable(nodeshm_t_mpi_threads mpi_threads.c)
  set_target_properties(nodeshm_t_mpi_threads PROPERTIES OUTPUT_NAME mpi_threads)
  target_link_libraries(nodeshm_t_mpi_threads PRIVATE nodeshm_mpi Threads::Threads)
  foreach(np 1 2 4 8)
    add_test(NAME mpi_threads_np${np} COMMAND "${NODESHM_OSHRUN}" -np ${np} $<TARGET_FILE:nodeshm_t_mpi_threads>)
    set_tests_properties(mpi_threads_np${np} PROPERTIES TIMEOUT 120 LABELS "mpi;np${np}"
      PASS_REGULAR_EXPRESSION "mpi_threads: .* PASS" SKIP_REGULAR_EXPRESSION "mpi_threads: SKIP"
      ENVIRONMENT "NODESHM_MPI_BCAST_MAX=128k;NODESHM_MPI_GATHERV_MAX=4k")
  endforeach()
  add_test(NAME mpi_threads_np4_ppn2 COMMAND "${NODESHM_OSHRUN}" -np 4 $<TARGET_FILE:nodeshm_t_mpi_threads>)
  set_tests_properties(mpi_threads_np4_ppn2 PROPERTIES TIMEOUT 120 LABELS "mpi;np4"
    PASS_REGULAR_EXPRESSION "mpi_threads: .* PASS" SKIP_REGULAR_EXPRESSION "mpi_threads: SKIP"
    ENVIRONMENT "NODESHM_MPI_BCAST_MAX=128k;NODESHM_MPI_GATHERV_MAX=4k;NODESHM_PES_PER_NODE=2")
endif()

# The seed-scenario benchmarks in quick mode: both validate every value they move (exit 1 on a
# wrong one) and keep the CSV contract (one header, rows).  Timing is never checked.
if(EXISTS "${PROJECT_SOURCE_DIR}/bench/mpi_seed_gather.c" AND EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  add_test(NAME mpi_seed_gather_quick_np4
    COMMAND "${NODESHM_OSHRUN}" -np 4 $<TARGET_FILE:nodeshm-bench-mpi_seed_gather> --csv)
  set_tests_properties(mpi_seed_gather_quick_np4 PROPERTIES TIMEOUT 120 LABELS "mpi;np4"
    ENVIRONMENT "NODESHM_BENCH_QUICK=1"
    PASS_REGULAR_EXPRESSION "^test,mechanism,bytes,param,pes,median_us,min_us,max_us,mbps\nseed_gather,mpi_lib,8000,16,4,[^\n]*\nseed_gather,nodeshm,8000,16,4,[^\n]*\nseed_gather,nodeshm_sync,8000,16,4,[^\n]*\nseed_gather,compute,8000,16,4,[^\n]*\n$")
endif()
if(EXISTS "${PROJECT_SOURCE_DIR}/bench/mpi_seed_alltoall.c" AND EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  foreach(ppn 0 2)
    add_test(NAME mpi_seed_alltoall_quick_np4_ppn${ppn}
      COMMAND "${NODESHM_OSHRUN}" -np 4 $<TARGET_FILE:nodeshm-bench-mpi_seed_alltoall> --csv -m 8:64 -i 2 -r 2)
    set(_env "NODESHM_BENCH_QUICK=1")
    if(ppn)
      list(APPEND _env "NODESHM_PES_PER_NODE=${ppn}")
    endif()
    set_tests_properties(mpi_seed_alltoall_quick_np4_ppn${ppn} PROPERTIES TIMEOUT 120 LABELS "mpi;np4"
      ENVIRONMENT "${_env}"
      PASS_REGULAR_EXPRESSION "^test,mechanism,bytes,param,pes,median_us,min_us,max_us,mbps\nalltoallv_uniform,mpi_lib,8,${ppn},4,.*\nalltoallv_uneven,nodeshm,64,${ppn},4,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+\n$")
  endforeach()
endif()
