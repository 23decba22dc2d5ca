/* nodeshm core: barrier of all PEs, node-aware.
 *
 * Within a node, two algorithms over the PEs' control blocks, chosen by load:
 * - a dissemination barrier (log2(n) rounds, each PE writes one flag line per round, no
 *   shared counter) when every PE has a core: latency is about one cache-line handoff per round;
 * - a counter and a generation number in the node leader's block when PEs outnumber cores:
 *   each PE must run once, not once per round, and the last to arrive releases the others.
 * Between nodes, the leaders meet in MPI_Barrier while their node peers wait on the generation. */
#ifndef NODESHM_NODE_BARRIER_H
#define NODESHM_NODE_BARRIER_H

/* Every PE of the job; returns when all have arrived. */
int nodeshm_world_barrier(const char *call);
/* Only the PEs of my node. */
void nodeshm_node_barrier(void);

#endif
