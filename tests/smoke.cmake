nodeshm_add_mpi_test(NAME smoke SOURCES smoke.c NP 1 2 4)
nodeshm_add_mpi_test(NAME smoke NP 4 PES_PER_NODE 2)
