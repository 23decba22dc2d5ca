# Copy engines (src/core/copy_engine.c): CMA between node peers' private buffers, the probe and
# its debug lines, the NODESHM_CMA=0 switch, a blocked CMA detected (tests/copy_engine.c).
nodeshm_add_mpi_test(NAME copy_engine SOURCES copy_engine.c NP 1 2 3 4 TIMEOUT 60
  ENV SHMEM_DEBUG=1)
nodeshm_add_mpi_test(NAME copy_engine NP 4 PES_PER_NODE 2 TIMEOUT 60 ENV SHMEM_DEBUG=1)
nodeshm_add_mpi_test(NAME copy_engine NP 2 4 TIMEOUT 60 ENV SHMEM_DEBUG=1 NODESHM_CMA=0
  SUFFIX _cma_off)

# the benchmark programs, quick mode: the CSV contract (tests/copy_engine_bench.sh)
nodeshm_add_script_test(NAME copy_bench_pairs_np4 COMMAND copy_engine_bench.sh 4 pairs -s
  TIMEOUT 120)
nodeshm_add_script_test(NAME copy_bench_pairs_np3_cma_off COMMAND copy_engine_bench.sh 3 pairs
  -m 4096:16384 ENV NODESHM_CMA=0 TIMEOUT 120)
nodeshm_add_script_test(NAME copy_bench_dt_np2 COMMAND copy_engine_bench.sh 2 dt -m 16:4096
  TIMEOUT 120)
nodeshm_add_script_test(NAME copy_bench_dt_np4_multi COMMAND copy_engine_bench.sh 4 dt -p 2
  -m 64:4096 TIMEOUT 120)
