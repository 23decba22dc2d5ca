# libnodeshm_mpi: every intercepted collective through its plain entry and its MPI-4 large-count
# entry (MPI_<Op>_c, where the MPI has it: tests/mpi_bigcount.c), each op's counter
# (nodeshm_mpi_accelerated_op) checked to move by exactly the calls it must have run.  Linked and
# through LD_PRELOAD, on one node and on pseudo-nodes, and with the interposer off.
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  find_program(NODESHM_ENV_PROGRAM env)
  # nsm_bigcount_config.h: which MPI_<Op>_c this MPI has (CMakeLists.txt)
  nodeshm_add_interposer_programs(mpi_bigcount)
  # every op inside its window, whatever the flavor's defaults (Open MPI: gatherv/scatterv off,
  # 512 B lower bounds at <= 2 ranks per node), so every call is expected to be accelerated
  set(bigcount_env)
  foreach(op BCAST GATHER GATHERV SCATTER SCATTERV ALLGATHER ALLGATHERV REDUCE ALLREDUCE
             REDUCE_SCATTER_BLOCK ALLTOALL ALLTOALLV)
    list(APPEND bigcount_env NODESHM_MPI_${op}_MAX=64k)
  endforeach()
  foreach(op BCAST GATHER GATHERV SCATTER SCATTERV ALLGATHER ALLGATHERV REDUCE)
    list(APPEND bigcount_env NODESHM_MPI_${op}_MIN=0)
  endforeach()
  set(_pass "mpi_bigcount: PASS")
  foreach(np 1 2 4)
    add_test(NAME mpi_bigcount_np${np} COMMAND "${NODESHM_OSHRUN}" -np ${np} $<TARGET_FILE:nodeshm_t_mpi_bigcount>)
    set_tests_properties(mpi_bigcount_np${np} PROPERTIES TIMEOUT 120 LABELS "mpi;np${np}"
      PASS_REGULAR_EXPRESSION "${_pass}" ENVIRONMENT "${bigcount_env}")
    add_test(NAME mpi_bigcount_preload_np${np}
      COMMAND "${NODESHM_OSHRUN}" -np ${np} "${NODESHM_ENV_PROGRAM}"
              "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" $<TARGET_FILE:nodeshm_t_mpi_bigcount_plain>)
    set_tests_properties(mpi_bigcount_preload_np${np} PROPERTIES TIMEOUT 120 LABELS "mpi;np${np}"
      PASS_REGULAR_EXPRESSION "${_pass}" ENVIRONMENT "${bigcount_env}")
  endforeach()
  add_test(NAME mpi_bigcount_np4_ppn2 COMMAND "${NODESHM_OSHRUN}" -np 4 $<TARGET_FILE:nodeshm_t_mpi_bigcount>)
  set_tests_properties(mpi_bigcount_np4_ppn2 PROPERTIES TIMEOUT 120 LABELS "mpi;np4"
    PASS_REGULAR_EXPRESSION "${_pass}" ENVIRONMENT "${bigcount_env};NODESHM_PES_PER_NODE=2")
  add_test(NAME mpi_bigcount_preload_np4_ppn2
    COMMAND "${NODESHM_OSHRUN}" -np 4 "${NODESHM_ENV_PROGRAM}"
            "LD_PRELOAD=$<TARGET_FILE:nodeshm_mpi>" $<TARGET_FILE:nodeshm_t_mpi_bigcount_plain>)
  set_tests_properties(mpi_bigcount_preload_np4_ppn2 PROPERTIES TIMEOUT 120 LABELS "mpi;np4"
    PASS_REGULAR_EXPRESSION "${_pass}" ENVIRONMENT "${bigcount_env};NODESHM_PES_PER_NODE=2")
  # MPI_Gatherv_c whose root's displacements span more than an int, on one node: the job ends
  # with a message naming the call and the value instead of waiting forever
  add_test(NAME mpi_bigcount_far_gatherv_np2
    COMMAND "${NODESHM_OSHRUN}" -np 2 $<TARGET_FILE:nodeshm_t_mpi_bigcount> --far-gatherv)
  set_tests_properties(mpi_bigcount_far_gatherv_np2 PROPERTIES TIMEOUT 60 LABELS "mpi;np2"
    PASS_REGULAR_EXPRESSION "nodeshm_mpi: MPI_Gatherv_c: a displs\\[i\\] = [0-9]+ is too far"
    SKIP_REGULAR_EXPRESSION "mpi_bigcount: SKIP" ENVIRONMENT "${bigcount_env}")
  # off: values still right, no counter moves
  add_test(NAME mpi_bigcount_np4_disabled
    COMMAND "${NODESHM_OSHRUN}" -np 4 $<TARGET_FILE:nodeshm_t_mpi_bigcount> --expect-none)
  set_tests_properties(mpi_bigcount_np4_disabled PROPERTIES TIMEOUT 120 LABELS "mpi;np4"
    PASS_REGULAR_EXPRESSION "${_pass}" ENVIRONMENT "${bigcount_env};NODESHM_MPI_DISABLE=all")
endif()
