/* nodeshm example: one copy per node of a read-only lookup table, plus MPI collectives that
 * libnodeshm_mpi accelerates when it is linked (or LD_PRELOADed).
 *
 *   oshrun -np 4 examples/replicated_table
 */
#include "nodeshm.h"

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    /* only node rank 0 contributes bytes: the node holds a single table */
    MPI_Comm node; /* my node's ranks, as nodeshm counts them (NODESHM_PES_PER_NODE too) */
    int node_rank;
    nodeshm_comm_split_node(MPI_COMM_WORLD, &node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_free(&node);

    nodeshm_shared_t h;
    const size_t n = 100000;
    nodeshm_shared_alloc(MPI_COMM_WORLD, node_rank == 0 ? n * sizeof(double) : 0, &h);
    double *table = nodeshm_shared_node_base(h, NULL);
    if (node_rank == 0)
        for (size_t i = 0; i < n; i++) table[i] = (double)i * 0.5;
    nodeshm_shared_sync(h); /* the table is complete for every rank of the node */

    double local = 0, total;
    for (size_t i = (size_t)rank; i < n; i += 7) local += table[i];
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* node-aware */
    if (rank == 0)
        printf("replicated_table: sum %.1f, %ld collective calls run by nodeshm\n", total,
               nodeshm_mpi_accelerated());
    nodeshm_shared_sync(h); /* nobody reads the table any more */
    nodeshm_shared_free(&h);
    MPI_Finalize();
    return 0;
}
