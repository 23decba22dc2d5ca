/* nodeshm: node-shared data for MPI programs (libnodeshm_mpi).
 *
 * One copy per node of data that every rank of the node reads: allocated collectively on a
 * communicator, every rank contributes `my_bytes` (0 is fine), and the contributions of a node
 * are one contiguous region, in rank order, that every rank of the node maps.  Plain loads and
 * stores reach it; nodeshm_shared_sync() orders them.  Ranks on other nodes have their own
 * region: use MPI between nodes.  "Node" honours NODESHM_PES_PER_NODE=k (pseudo-nodes).
 *
 *   nodeshm_shared_t h;
 *   nodeshm_shared_alloc(MPI_COMM_WORLD, node_rank == 0 ? table_bytes : 0, &h); // replicated
 *   double *table = nodeshm_shared_node_base(h, NULL);    // the same table for the node
 *   if (node_rank == 0) fill(table);
 *   nodeshm_shared_sync(h);                                 // now every node rank reads it
 *
 * All functions return MPI_SUCCESS or an MPI error code. */
#ifndef NODESHM_H
#define NODESHM_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nodeshm_shared *nodeshm_shared_t;

/* Collective over comm: the ranks of comm on my node (pseudo-nodes included), in comm rank
 * order.  Free it with MPI_Comm_free. */
int nodeshm_comm_split_node(MPI_Comm comm, MPI_Comm *node);

/* Collective over comm (an intra-communicator). */
int nodeshm_shared_alloc(MPI_Comm comm, size_t my_bytes, nodeshm_shared_t *h);
/* Collective over comm; sets *h to NULL. */
int nodeshm_shared_free(nodeshm_shared_t *h);

/* Where rank `rank` (of the allocating comm) keeps its bytes, if it is on my node; else NULL. */
void *nodeshm_shared_ptr(nodeshm_shared_t h, int rank, size_t *bytes);
/* My node's whole region (contributions of its ranks in rank order) and its size. */
void *nodeshm_shared_node_base(nodeshm_shared_t h, size_t *bytes);
/* My rank within my node, the node's rank count, the node count, and my node's number. */
int nodeshm_shared_node_info(nodeshm_shared_t h, int *node_rank, int *node_size, int *n_nodes,
                             int *node);

/* Collective over the ranks of my node (every rank of comm calls it, each node syncs
 * separately): stores any rank of the node made before the call are visible to all ranks of
 * the node after it.  A barrier and a full memory fence; it does not order other nodes. */
int nodeshm_shared_sync(nodeshm_shared_t h);

/* Collective calls libnodeshm_mpi has run itself (not handed to the MPI library) in this
 * process so far: tells whether the interposer is active. */
long nodeshm_mpi_accelerated(void);

#ifdef __cplusplus
}
#endif

#endif
