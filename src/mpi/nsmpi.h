/* libnodeshm_mpi: per-communicator state of the PMPI interposer (internal).
 *
 * Every intra-communicator gets, at its first accelerated collective, a node split (pseudo-nodes
 * with NODESHM_PES_PER_NODE=k, like src/core/topology.c), a leaders communicator and one
 * MPI_Win_allocate_shared window per node holding flags and data buffers.  The state hangs on
 * the communicator as an attribute; the keyval's delete callback frees it at MPI_Comm_free and,
 * for communicators still alive, at MPI_Finalize. */
#ifndef NODESHM_MPI_NSMPI_H
#define NODESHM_MPI_NSMPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define NSM_LINE 64

typedef struct nsm_line {          /* one per node rank: written only by that rank */
    uint64_t arrive;               /* my data for op <seq> is in my slot */
    uint64_t reduced;              /* my chunk of the node reduction for op <seq> is done */
    uint64_t done;                 /* I have finished reading shared buffers of op <seq> */
    char pad[NSM_LINE - 3 * sizeof(uint64_t)];
} nsm_line_t;

typedef struct nsm_state {
    MPI_Comm comm;
    int rank, size;
    MPI_Comm node, leaders;        /* leaders: node rank 0 of every node; NULL elsewhere */
    int node_rank, node_size, n_nodes, my_node;
    int max_node_size;
    int *node_of;                  /* [size] node number (= leader rank) of each rank */
    int *stage_index;              /* [size] position of a rank when ranks are listed node by node */
    int *node_members;             /* [node_size] comm rank of each node rank */
    int *node_first, *node_count;  /* [n_nodes] first stage_index and size of every node */
    long id;                       /* creation order, agreed by all ranks: finalize frees by it */
    int active;                    /* shared buffers exist (some node has >= 2 ranks) */
    MPI_Win win;
    char *shm;                     /* the node's window, node rank 0's base */
    nsm_line_t *lines;             /* [node_size] + 1 (leader's release line) */
    char *result;                  /* result area: bcast data, reduction result */
    char *slots;                   /* node_size slots of slot_bytes */
    char *stage;                   /* gather between nodes: all ranks' blocks (leaders only) */
    size_t result_bytes, slot_bytes, stage_bytes;
    uint64_t seq;                  /* accelerated operations so far on this communicator */
    int spin_limit;
    struct nsm_state *next;        /* all live states, for MPI_Finalize */
} nsm_state_t;

/* Collective over comm at first call; NULL when comm gets no acceleration (intercomm, size 1,
 * not initialized...). */
nsm_state_t *nsm_get_state(MPI_Comm comm);
/* Node barrier over the state's node with flags; full memory fence both sides. */
void nsm_node_barrier(nsm_state_t *s);
void nsm_node_barrier_all(nsm_state_t *s);  /* node barrier + leaders' PMPI_Barrier: comm barrier */

#endif
