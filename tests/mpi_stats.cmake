# NODESHM_MPI_STATS (src/mpi/stats.c): tests/mpi_stats.c makes a known number of calls per op and
# per outcome (accelerated, empty, below MIN, above MAX, a user-defined op, disabled, alltoallv
# blocks above the stride (accelerated: point to point), a size-1 communicator, an intercommunicator, the _c entries under MPICH) and
# tests/mpi_stats.py compares every counter of the report with them (tests/mpi_stats.sh), on
# stderr, as text and CSV files, on one node and in pseudo-nodes (gatherv, scatterv: "nodes").
# A file NODESHM_MPI_STATS cannot be written ends the job at MPI_Init with a message.
find_program(NODESHM_PYTHON3 python3)
if((TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi") AND NODESHM_PYTHON3)
  add_executable(nodeshm_t_mpi_stats mpi_stats.c)
  set_target_properties(nodeshm_t_mpi_stats PROPERTIES OUTPUT_NAME mpi_stats)
  target_link_libraries(nodeshm_t_mpi_stats PRIVATE nodeshm_mpi)
  set(_stats_env NODESHM_MPI_DISABLE=allgatherv "PYTHON3=${NODESHM_PYTHON3}")
  foreach(op BCAST GATHER GATHERV SCATTER SCATTERV ALLGATHER ALLGATHERV REDUCE ALLREDUCE
             REDUCE_SCATTER_BLOCK ALLTOALL ALLTOALLV)
    list(APPEND _stats_env NODESHM_MPI_${op}_MAX=4k)
  endforeach()
  foreach(op BCAST GATHER SCATTER ALLGATHER REDUCE)
    list(APPEND _stats_env NODESHM_MPI_${op}_MIN=16)
  endforeach()
  foreach(op GATHERV SCATTERV ALLGATHERV)
    list(APPEND _stats_env NODESHM_MPI_${op}_MIN=0)
  endforeach()
  foreach(case "2;stderr;" "4;csv;" "4;text;2" "3;text;")
    list(GET case 0 np)
    list(GET case 1 where)
    list(GET case 2 ppn)
    set(_name mpi_stats_${where}_np${np})
    set(_env ${_stats_env})
    if(ppn)
      set(_name ${_name}_ppn${ppn})
      list(APPEND _env NODESHM_PES_PER_NODE=${ppn})
    endif()
    nodeshm_add_script_test(NAME ${_name} TIMEOUT 120 ENV ${_env}
      PASS_REGEX "mpi_stats.sh: ${np} ranks, ${where}: PASS"
      COMMAND mpi_stats.sh ${np} $<TARGET_FILE:nodeshm_t_mpi_stats> ${where})
  endforeach()
  nodeshm_add_script_test(NAME mpi_stats_bad_path_np2 TIMEOUT 120
    ENV NODESHM_MPI_STATS=/nonexistent/nodeshm/stats.txt
    COMMAND expect_failure.sh 2
      "nodeshm_mpi: .*MPI_Init: invalid NODESHM_MPI_STATS='/nonexistent/nodeshm/stats.txt' \\(expected 0, 1 \\(stderr\\) or a file rank 0 can write: No such file or directory\\)"
      $<TARGET_FILE:nodeshm_t_mpi_stats> /dev/null)
endif()
