/* libnodeshm_mpi: MPI_Reduce_scatter_block for predefined ops and types (others go to the MPI
 * library).
 *
 * Every rank copies its whole vector into its slot.  On one node each rank then reduces its own
 * block across the slots straight into its receive buffer: one flag round, and the ranks reduce
 * in parallel.  Across nodes the node ranks share out the blocks of all ranks, reduce them into
 * the result area in node-by-node order (stage_index), so that each node's blocks are contiguous,
 * and the leaders PMPI_Reduce_scatter (in place) one run per node; each rank copies its block.
 *
 * Default NODESHM_MPI_REDUCE_SCATTER_BLOCK_MAX 64 KiB (whole vector), bench/mpi_osu.c on 2 shared
 * cores (load 15-22): MPICH 2 ranks 15-84x (its own takes 8-550 us there), Open MPI 2 ranks
 * 1.1-2.0x at 64 B..64 KiB, 8 ranks 1.4-3.5x at 64 B..16 KiB; 4 ranks noisy (0.4-2.5x, medians of
 * 50-150 us scheduler slices). */
#include "mpi/nsmpi.h"

#include <stdlib.h>
#include <string.h>

NSM_BODY int accelerated_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                              MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    nsm_state_t *s = nsm_op_max(NSM_OP_REDUCE_SCATTER_BLOCK) ? nsm_get_state(comm) : NULL;
    MPI_Aint lb = 0, extent = 0;
    /* recvcount, datatype and op agree on all ranks: all take this path or none */
    int ok = s && recvcount >= 0 && type != MPI_DATATYPE_NULL && nsm_op_ok(op) && nsm_is_named(type);
    if (ok) {
        PMPI_Type_get_extent(type, &lb, &extent);
        ok = lb == 0 && extent > 0 &&
             (size_t)recvcount * (size_t)extent * (size_t)s->size <= s->max[NSM_OP_REDUCE_SCATTER_BLOCK];
    }
    if (!ok) {
        NSM_HAND(NSM_OP_REDUCE_SCATTER_BLOCK, comm, s, 1,
                 s && recvcount >= 0 && extent > 0 ? (long long)recvcount * extent * s->size : -1,
                 !nsm_op_ok(op) ? NSM_WHY_OP : NSM_WHY_DATATYPE);
        return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
    }
    if (recvcount == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return MPI_SUCCESS;
    }
    const size_t block = (size_t)recvcount * (size_t)extent;
    uint64_t seq = nsm_begin(s, NSM_OP_REDUCE_SCATTER_BLOCK);
    char *slot = nodeshm_area_slot(&s->area, s->node_rank);
    memcpy(slot, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, block * (size_t)s->size);
    nodeshm_flags_arrive(&s->area.flags, seq);
    nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_ARRIVE, seq);

    if (s->n_nodes == 1) {
        nsm_reduce_slots(s, recvbuf, (size_t)s->rank * block, recvcount, block, type, op);
        nodeshm_flags_done(&s->area.flags, seq);
        return MPI_SUCCESS;
    }
    for (int r = 0; r < s->size; r++)
        if (s->stage_index[r] % s->node_size == s->node_rank)
            nsm_reduce_slots(s, s->area.cur.result + (size_t)s->stage_index[r] * block, (size_t)r * block, recvcount,
                             block, type, op);
    nodeshm_flags_reduced(&s->area.flags, seq);
    if (s->node_rank == 0) {
        nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_REDUCED, seq);
        int *counts = malloc(sizeof(int) * (size_t)s->n_nodes);
        for (int k = 0; k < s->n_nodes; k++) counts[k] = s->node_count[k] * recvcount;
        PMPI_Reduce_scatter(MPI_IN_PLACE, s->area.cur.result, counts, type, op, s->leaders);
        free(counts);
        nodeshm_flags_release(&s->area.flags, seq);
    } else {
        nodeshm_flags_wait_release(&s->area.flags, seq);
    }
    memcpy(recvbuf, s->area.cur.result + (size_t)s->node_rank * block, block);
    nodeshm_flags_done(&s->area.flags, seq);
    return MPI_SUCCESS;
}

NSM_STATS_TWIN(Reduce_scatter_block, NSM_OP_REDUCE_SCATTER_BLOCK,
               (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
               (sendbuf, recvbuf, recvcount, type, op, comm),
               nsm_stat_bytes((long long)recvcount * nsm_stat_ranks(comm), type))

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm)
{
    if (NSM_STATS_ON) return stats_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
    return accelerated_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
}
NSM_ENTRY_ALIAS(Reduce_scatter_block)
