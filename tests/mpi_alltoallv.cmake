# libnodeshm_mpi: MPI_Alltoallv pair by pair, between nodes without an agreement round
# (src/mpi/alltoallv_pairs.c), against PMPI_Alltoallv on random irregular counts, each call
# counted by alltoallv's own counter (tests/mpi_alltoallv_nodes.c): between pseudo-nodes (2+2,
# 2+1, 2+2+2, 4+2), on one node, and on emulated hosts (2 x 2, 3 x 2: MPI's TCP between them).
# A small stride (256 B), so that blocks above it (point to point) and at it are common.
if(TARGET nodeshm_mpi OR EXISTS "${PROJECT_SOURCE_DIR}/src/mpi")
  add_executable(nodeshm_t_mpi_alltoallv_nodes mpi_alltoallv_nodes.c)
  set_target_properties(nodeshm_t_mpi_alltoallv_nodes PROPERTIES OUTPUT_NAME mpi_alltoallv_nodes)
  target_link_libraries(nodeshm_t_mpi_alltoallv_nodes PRIVATE nodeshm_mpi ${CMAKE_DL_LIBS})
  set(_a2av_env NODESHM_MPI_ALLTOALLV_MAX=256)
  set(_a2av_pass "mpi_alltoallv_nodes: PASS")
  nodeshm_add_mpi_test(NAME mpi_alltoallv_nodes NP 3 4 6 PES_PER_NODE 2 TIMEOUT 300 ENV ${_a2av_env}
                       PASS_REGEX "${_a2av_pass}")
  nodeshm_add_mpi_test(NAME mpi_alltoallv_nodes NP 6 PES_PER_NODE 4 TIMEOUT 300 ENV ${_a2av_env}
                       PASS_REGEX "${_a2av_pass}")
  nodeshm_add_mpi_test(NAME mpi_alltoallv_nodes NP 4 TIMEOUT 300 ENV ${_a2av_env} PASS_REGEX "${_a2av_pass}")
  # one buffer bank: a leader cannot run ahead into the next call's members' lines
  nodeshm_add_mpi_test(NAME mpi_alltoallv_nodes NP 4 PES_PER_NODE 2 TIMEOUT 300 SUFFIX _one_bank
                       ENV ${_a2av_env} NODESHM_MPI_BANKS=1 PASS_REGEX "${_a2av_pass}")
  nodeshm_add_mpi_test(NAME mpi_alltoallv_nodes NP 4 HOSTS 2 TIMEOUT 300 ENV ${_a2av_env}
                       PASS_REGEX "${_a2av_pass}")
  nodeshm_add_mpi_test(NAME mpi_alltoallv_nodes NP 6 HOSTS 3 TIMEOUT 300 ENV ${_a2av_env}
                       PASS_REGEX "${_a2av_pass}")
endif()
