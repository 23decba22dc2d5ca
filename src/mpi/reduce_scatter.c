/* libnodeshm_mpi: MPI_Reduce_scatter (irregular blocks) for predefined ops and types (others go
 * to the MPI library), and the shared-memory path it shares with MPI_Reduce_scatter_block.
 *
 * Every rank copies its whole vector into its slot.  On one node each rank then reduces its own
 * block across the slots, in rank order, straight into its receive buffer: one flag round, the
 * ranks reducing in parallel.  Across nodes the node ranks share out the blocks of all ranks and
 * reduce them into the result area in node-by-node order (stage_index), so that each node's
 * blocks are contiguous; the leaders PMPI_Reduce_scatter (in place) one run per node; each rank
 * copies its block.
 *
 * Defaults, and what they were measured against: src/mpi/nsmpi_config.h. */
#include "mpi/nsmpi.h"

#include <stdlib.h>
#include <string.h>

/* Block r's count: counts[r], or `count` for every rank (counts NULL: reduce_scatter_block). */
static inline int block_count(const int *counts, int count, int r) { return counts ? counts[r] : count; }

int nsm_reduce_scatter_run(nsm_state_t *s, int id, const void *sendbuf, void *recvbuf, const int *counts, int count,
                           size_t total, MPI_Aint extent, MPI_Datatype type, MPI_Op op)
{
    uint64_t seq = nsm_begin(s, id);
    char *slot = nodeshm_area_slot(&s->area, s->node_rank);
    memcpy(slot, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, total * (size_t)extent);
    nodeshm_flags_arrive(&s->area.flags, seq);
    nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_ARRIVE, seq);

    if (s->n_nodes == 1) {
        size_t displ = 0; /* elements before my block */
        for (int r = 0; r < s->rank; r++) displ += (size_t)block_count(counts, count, r);
        int n = block_count(counts, count, s->rank);
        if (n > 0)
            nsm_reduce_slots(s, recvbuf, displ, n, extent, type, op);
        nodeshm_flags_done(&s->area.flags, seq);
        return MPI_SUCCESS;
    }
    /* between nodes: where each rank's block starts in the vector (rank order) and in the
     * result area (node by node: earlier nodes' blocks, then its node mates' before it), and
     * each node's elements, for the leaders */
    const int size = s->size, nodes = s->n_nodes;
    size_t *displ = malloc(sizeof(size_t) * (2 * (size_t)size + (size_t)nodes));
    int *node_counts = malloc(sizeof(int) * (size_t)nodes);
    if (!displ || !node_counts) {
        fprintf(stderr, "nodeshm_mpi: reduce_scatter: out of memory for %d ranks\n", size);
        nodeshm_abort_job(1);
    }
    size_t *at = displ + size, *node_at = at + size, sum = 0;
    for (int k = 0; k < nodes; k++) node_counts[k] = 0;
    for (int r = 0; r < size; r++) {
        displ[r] = sum;
        sum += (size_t)block_count(counts, count, r);
        node_counts[s->node_of[r]] += block_count(counts, count, r);
    }
    sum = 0;
    for (int k = 0; k < nodes; k++) node_at[k] = sum, sum += (size_t)node_counts[k];
    const size_t my_node_at = node_at[s->my_node];
    for (int r = 0; r < size; r++) { /* node rank order is rank order within a node */
        at[r] = node_at[s->node_of[r]];
        node_at[s->node_of[r]] += (size_t)block_count(counts, count, r);
    }
    for (int r = 0; r < s->size; r++) {
        int n = block_count(counts, count, r);
        if (n > 0 && s->stage_index[r] % s->node_size == s->node_rank)
            nsm_reduce_slots(s, s->area.cur.result + at[r] * (size_t)extent, displ[r], n, extent, type, op);
    }
    nodeshm_flags_reduced(&s->area.flags, seq);
    if (s->node_rank == 0) {
        nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_REDUCED, seq);
        PMPI_Reduce_scatter(MPI_IN_PLACE, s->area.cur.result, node_counts, type, op, s->leaders);
        nodeshm_flags_release(&s->area.flags, seq);
    } else {
        nodeshm_flags_wait_release(&s->area.flags, seq);
    }
    /* the node's run now starts the result area: my block is where my node mates' end */
    int n = block_count(counts, count, s->rank);
    size_t mine = at[s->rank] - my_node_at;
    if (n > 0) memcpy(recvbuf, s->area.cur.result + mine * (size_t)extent, (size_t)n * (size_t)extent);
    free(displ);
    free(node_counts);
    nodeshm_flags_done(&s->area.flags, seq);
    return MPI_SUCCESS;
}

NSM_BODY int accelerated_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                        MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    nsm_state_t *s = nsm_op_max(NSM_OP_REDUCE_SCATTER) ? nsm_get_state(comm) : NULL;
    MPI_Aint lb = 0, extent = 0;
    long long total = 0;
    /* recvcounts, datatype and op agree on all ranks: all take this path or none */
    int ok = s && recvcounts && type != MPI_DATATYPE_NULL && nsm_op_ok(op) && nsm_is_named(type);
    for (int r = 0; ok && r < s->size; r++) {
        ok = recvcounts[r] >= 0;
        total += recvcounts[r];
    }
    if (ok) {
        PMPI_Type_get_extent(type, &lb, &extent);
        ok = lb == 0 && extent > 0 && (unsigned long long)total * (unsigned long long)extent <=
                                          s->max[NSM_OP_REDUCE_SCATTER];
    }
    if (!ok) {
        NSM_HAND(NSM_OP_REDUCE_SCATTER, comm, s, 1, s && extent > 0 ? total * extent : -1,
                 !nsm_op_ok(op) ? NSM_WHY_OP : NSM_WHY_DATATYPE);
        return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
    }
    if (total == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return MPI_SUCCESS;
    }
    return nsm_reduce_scatter_run(s, NSM_OP_REDUCE_SCATTER, sendbuf, recvbuf, recvcounts, 0, (size_t)total, extent,
                                  type, op);
}

NSM_STATS_TWIN(Reduce_scatter, NSM_OP_REDUCE_SCATTER,
               (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                MPI_Comm comm),
               (sendbuf, recvbuf, recvcounts, type, op, comm), nsm_stat_sum(recvcounts, comm, type))

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm)
{
    if (NSM_STATS_ON) return stats_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
    return accelerated_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
}
NSM_ENTRY_ALIAS(Reduce_scatter)
