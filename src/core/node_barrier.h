/* nodeshm core: barrier of all PEs, node-aware.
 *
 * Within a node: a counter and a generation number in the node leader's control block (one
 * cache line each).  Between nodes: the leaders meet in MPI_Barrier while their node peers wait
 * on the generation.  Oversubscribed, a centralized counter beats tree or dissemination
 * barriers: each PE needs to run once, not once per round. */
#ifndef NODESHM_NODE_BARRIER_H
#define NODESHM_NODE_BARRIER_H

/* Every PE of the job; returns when all have arrived. */
int nodeshm_world_barrier(const char *call);
/* Only the PEs of my node. */
void nodeshm_node_barrier(void);

#endif
