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
 * Producer/consumer data (one rank reads what the others write, step after step) needs no
 * barrier: see nodeshm_shared_publish below.
 *
 * All functions return MPI_SUCCESS or an MPI error code. */
#ifndef NODESHM_H
#define NODESHM_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

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
 * the node after it.  A barrier and a full memory fence; it does not order other nodes.  Every
 * rank waits for the slowest: where one rank consumes what others produce, the signals below
 * cost less. */
int nodeshm_shared_sync(nodeshm_shared_t h);

/* ---- Producer/consumer signals: lighter than nodeshm_shared_sync.
 *
 * Every rank of a node owns two counters in node-shared memory, `ready` and `done`, that only it
 * advances.  An epoch is any number >= 1 that grows with each call of the same kind by the same
 * rank (e.g. step + 1); nothing is collective, and a rank waits only for the ranks it reads from.
 *
 *   nodeshm_shared_publish(h, e)    my stores made before the call are visible to any rank of my
 *                                   node that then waits for epoch e from me (release)
 *   nodeshm_shared_wait(h, r, e)    waits until rank r (of the allocating comm, on my node) has
 *                                   published >= e; r = NODESHM_ALL_RANKS: every rank of my node.
 *                                   After it, their published stores are visible (acquire).
 *   nodeshm_shared_test(h, r, e, &flag)   the same for one rank r, without waiting: *flag = 1 (and
 *                                   r's published stores visible) when r has published >= e, else 0
 *   nodeshm_shared_release(h, e)    I have finished reading the data of epoch e: its writers may
 *                                   overwrite it
 *   nodeshm_shared_wait_released(h, r, e)   waits until rank r (or all) released >= e
 *
 * The seed pattern (bench/mpi_seed_gather.c): every rank writes its part in one of two halves,
 * rank 0 reads all of them.
 *
 *   for (uint64_t e = 1; e <= steps; e++) {
 *       if (e > 2) nodeshm_shared_wait_released(h, 0, e - 2); // rank 0 is done with this half
 *       write(half[e & 1]);
 *       nodeshm_shared_publish(h, e);
 *       if (rank == 0) {
 *           nodeshm_shared_wait(h, NODESHM_ALL_RANKS, e);       // everybody's half e is there
 *           read(all halves[e & 1]);
 *           nodeshm_shared_release(h, e);
 *       }
 *   }
 *
 * A waiting rank spins briefly, yields the core a few times, then sleeps in the kernel (futex)
 * until a rank it may be waiting for signals: with more ranks than cores the rank it waits for
 * gets the core, and signals cost one atomic load when nobody sleeps.  Errors (MPI_ERR_ARG,
 * MPI_ERR_RANK, message on stderr naming the call and the value): an epoch not above the
 * caller's previous one of the same kind; r not on my node. */
#define NODESHM_ALL_RANKS (-1)
int nodeshm_shared_publish(nodeshm_shared_t h, uint64_t epoch);
int nodeshm_shared_wait(nodeshm_shared_t h, int rank, uint64_t epoch);
int nodeshm_shared_test(nodeshm_shared_t h, int rank, uint64_t epoch, int *flag);
int nodeshm_shared_release(nodeshm_shared_t h, uint64_t epoch);
int nodeshm_shared_wait_released(nodeshm_shared_t h, int rank, uint64_t epoch);

/* Collective calls libnodeshm_mpi has run itself (not handed to the MPI library) in this
 * process so far, plus MPI_Alltoallv calls whose vote it ran before handing them over (a block
 * was too big): tells whether the interposer is active. */
long nodeshm_mpi_accelerated(void);
/* The same for one op, named as NODESHM_MPI_DISABLE names it ("barrier", "bcast", "gather",
 * "gatherv", "scatter", "scatterv", "allgather", "allgatherv", "reduce", "allreduce",
 * "reduce_scatter_block", "alltoall", "alltoallv", "scan", ...; the non-blocking forms "ibcast",
 * ...; the persistent ones "bcast_init", ..., one call per MPI_Start; any case), whatever the entry
 * point the program called (MPI_Bcast, the MPI-4 large-count MPI_Bcast_c, Fortran's mpi_bcast):
 * calls that went to the MPI library, and calls with nothing to move (count 0), are not counted.
 * An unknown name: -1, with a message on stderr naming it. */
long nodeshm_mpi_accelerated_op(const char *op);

#ifdef __cplusplus
}
#endif

#endif
