nodeshm_add_mpi_test(NAME bss_footprint SOURCES bss_footprint.c NP 1 2 4)
nodeshm_add_mpi_test(NAME bss_footprint NP 4 PES_PER_NODE 2)
