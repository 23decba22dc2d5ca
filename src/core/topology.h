/* nodeshm core: who shares memory with whom.
 *
 * A node is the set of PEs that can map each other's memory (MPI_COMM_TYPE_SHARED).
 * NODESHM_PES_PER_NODE=k cuts each node into pseudo-nodes of k consecutive local ranks, so the
 * between-node path runs, and is tested, on one machine. */
#ifndef NODESHM_TOPOLOGY_H
#define NODESHM_TOPOLOGY_H

#include <mpi.h>

typedef struct nodeshm_topology {
    MPI_Comm world;      /* duplicate of the parent communicator: our own tag space */
    int my_pe, n_pes;
    MPI_Comm node;       /* PEs of my (pseudo-)node, ordered by world rank */
    int node_my_pe, node_n_pes;
    MPI_Comm leaders;    /* one PE (node rank 0) per node; MPI_COMM_NULL on the others */
    int n_nodes, my_node;
    int *node_index_of;  /* [n_pes]: a PE's index in my node, or -1 if it is on another node */
    int *node_pes;       /* [node_n_pes]: world PE of each node index */
    int *node_of;        /* [n_pes]: node number of every PE */
    int machine_n_pes;   /* PEs on this machine (same boot id: emulated hosts included) */
    int cpus_online;     /* CPUs the machine's PEs may run on: tells when they are oversubscribed */
} nodeshm_topology_t;

int nodeshm_topology_create(MPI_Comm parent, nodeshm_topology_t *topo);
void nodeshm_topology_destroy(nodeshm_topology_t *topo);

/* The one node split of both faces: comm's ranks that share memory with mine
 * (MPI_COMM_TYPE_SHARED; on emulated hosts, those of my host), cut into pseudo-nodes of
 * `per_node` consecutive ones when per_node > 0 (NODESHM_PES_PER_NODE), ordered as in comm.
 * *physical_size (if not NULL): comm's ranks on the physical node.  Collective over comm (PMPI:
 * an MPI tool or the interposer above sees none of it); returns MPI's error code, *node is then
 * MPI_COMM_NULL. */
int nodeshm_topology_split_node(MPI_Comm comm, long per_node, MPI_Comm *node, int *physical_size);
/* comm's ranks on this machine (same kernel boot id: emulated hosts are one machine) and the
 * CPUs they may use together (the union of their affinity masks): the wait policy's
 * "oversubscribed" for both faces.  Collective over comm (PMPI). */
void nodeshm_topology_machine(MPI_Comm comm, int *ranks, int *cpus);

#endif
