/* libnodeshm_mpi: the two node-shared data calls that take a communicator, for Fortran.
 *
 * Fortran passes an MPI communicator as an INTEGER handle (MPI_Fint); the `nodeshm` module
 * (include/nodeshm.f90) binds nodeshm_shared_alloc and nodeshm_comm_split_node to these shims,
 * which convert it (MPI_Comm_f2c / MPI_Comm_c2f).  Every other call of include/nodeshm.h takes
 * no handle and the module binds to it directly.
 *
 * Compiled only when CMake enables Fortran (NODESHM_MPI_FORTRAN, as src/mpi/fortran.c). */
#ifdef NODESHM_MPI_FORTRAN
#include "nodeshm.h"

int nodeshm_shared_alloc_f(MPI_Fint comm, size_t my_bytes, nodeshm_shared_t *h);
int nodeshm_comm_split_node_f(MPI_Fint comm, MPI_Fint *node);

int nodeshm_shared_alloc_f(MPI_Fint comm, size_t my_bytes, nodeshm_shared_t *h)
{
    return nodeshm_shared_alloc(MPI_Comm_f2c(comm), my_bytes, h);
}

int nodeshm_comm_split_node_f(MPI_Fint comm, MPI_Fint *node)
{
    MPI_Comm c = MPI_COMM_NULL;
    int rc = nodeshm_comm_split_node(MPI_Comm_f2c(comm), &c);
    *node = MPI_Comm_c2f(c);
    return rc;
}
#endif /* NODESHM_MPI_FORTRAN */
