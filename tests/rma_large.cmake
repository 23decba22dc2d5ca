# Large put/get between pseudo-nodes (MPI RMA): 1-64 MiB, odd sizes and offsets, fresh random
# data (tests/rma_large.c).  Again with NODESHM_RMA_CHUNK_MAX=1000003, an odd chunk size that
# divides none of the sizes, so every transfer is split into several MPI operations (without it
# the split needs transfers over 2 GiB); and a bad value is an error at shmem_init.
nodeshm_add_mpi_test(NAME rma_large SOURCES rma_large.c NP 2 4 PES_PER_NODE 1 TIMEOUT 300)
nodeshm_add_mpi_test(NAME rma_large NP 4 PES_PER_NODE 2 TIMEOUT 300)
nodeshm_add_mpi_test(NAME rma_large NP 2 4 PES_PER_NODE 1 TIMEOUT 300 SUFFIX _chunked
  ENV NODESHM_RMA_CHUNK_MAX=1000003)
nodeshm_add_mpi_test(NAME rma_large NP 4 PES_PER_NODE 2 TIMEOUT 300 SUFFIX _chunked
  ENV NODESHM_RMA_CHUNK_MAX=1000003)
nodeshm_add_mpi_test(NAME rma_large NP 2 PES_PER_NODE 1 TIMEOUT 60 SUFFIX _bad_chunk
  ENV NODESHM_RMA_CHUNK_MAX=0
  PASS_REGEX "NODESHM_RMA_CHUNK_MAX=0: must be 1\\.\\.2147483647 bytes")
