/* libnodeshm_mpi: MPI_Allreduce for predefined ops and types: every rank copies its
 * contribution into its slot, each node rank reduces one slice across the slots, leaders
 * PMPI_Allreduce the node result between nodes, everyone copies the result out.
 *
 * Small messages (up to NODESHM_REDUCE_ONE_PHASE_MAX bytes, core/coll/reduce.h, which says how
 * it was measured) skip the sliced phase: every rank reduces all slots itself, straight into
 * its receive buffer, after one arrive round (across nodes the leader does it for its node).
 * All ranks reduce the slots in node rank order, so they get the same bits.  The reductions
 * (ordered, sliced) are the core's, shared with the OpenSHMEM face; the interposer's side of
 * them (nsm_reduction: slots and PMPI_Reduce_local) is in nsmpi.h. */
#include "mpi/nsmpi.h"
#include "mpi/leaders.h"

#include <string.h>

/* Node rank me's slice of the array reduced over all slots into the result area, once they have
 * arrived (allreduce, reduce above the one-phase size); a rank with an empty slice waits for
 * nobody. */
void nsm_reduce_my_slice(const nsm_state_t *s, uint64_t seq, int count, MPI_Aint extent, MPI_Datatype type,
                         MPI_Op op)
{
    size_t lo, hi;
    nodeshm_reduce_slice((size_t)count, (size_t)extent, s->node_size, s->node_rank, &lo, &hi);
    if (hi > lo) {
        nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_ARRIVE, seq);
        nsm_reduction_t m = nsm_slots_reduction(s, extent, type, op);
        nodeshm_reduce_sliced(&m.r, s->area.cur.result, lo, hi, s->node_size);
    }
}

NSM_BODY int accelerated_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                   MPI_Comm comm)
{
    nsm_state_t *s = nsm_cfg.off[NSM_OP_ALLREDUCE] ? NULL : nsm_get_state(comm);
    MPI_Aint lb = 0, extent = 0;
    /* MPI requires the same datatype and op on all ranks: a predefined one takes this path
     * everywhere or nowhere */
    int ok = s && count >= 0 && type != MPI_DATATYPE_NULL && nsm_op_ok(op) && nsm_is_named(type);
    if (ok) {
        PMPI_Type_get_extent(type, &lb, &extent);
        ok = lb == 0 && extent > 0 && (size_t)count * (size_t)extent <= s->max[NSM_OP_ALLREDUCE];
    }
    if (!ok) {
        NSM_HAND(NSM_OP_ALLREDUCE, comm, s, nsm_op_max(NSM_OP_ALLREDUCE) != 0,
                 count >= 0 && extent > 0 ? (long long)count * extent : -1,
                 !nsm_op_ok(op) ? NSM_WHY_OP : NSM_WHY_DATATYPE);
        return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
    }
    if (count == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return MPI_SUCCESS;
    }
    size_t bytes = (size_t)count * (size_t)extent;
    uint64_t seq = nsm_begin(s, NSM_OP_ALLREDUCE);
    char *slot = nodeshm_area_slot(&s->area, s->node_rank);
    memcpy(slot, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, bytes);
    nodeshm_flags_arrive(&s->area.flags, seq);

    if (bytes <= NODESHM_REDUCE_ONE_PHASE_MAX) {
        /* one phase: one rank reduces every slot (each rank itself on one node) */
        if (s->n_nodes == 1) {
            nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_ARRIVE, seq);
            nsm_reduce_slots(s, recvbuf, 0, count, extent, type, op);
            nodeshm_flags_done(&s->area.flags, seq);
            return MPI_SUCCESS;
        }
        if (s->node_rank == 0) {
            nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_ARRIVE, seq);
            nsm_reduce_slots(s, s->area.cur.result, 0, count, extent, type, op);
        }
    } else {
        /* each node rank reduces its slice over all slots, in node rank order */
        nsm_reduce_my_slice(s, seq, count, extent, type, op);
        nodeshm_flags_reduced(&s->area.flags, seq);
        if (s->n_nodes == 1 || s->node_rank == 0)
            nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_REDUCED, seq);
    }
    /* the node's result is in s->area.cur.result: leaders combine it between nodes */
    if (s->n_nodes > 1) {
        if (s->node_rank == 0) {
            nsm_leaders_allreduce(s->area.cur.result, count, type, op, bytes, s->leaders);
            nodeshm_flags_release(&s->area.flags, seq);
        } else {
            nodeshm_flags_wait_release(&s->area.flags, seq);
        }
    }
    memcpy(recvbuf, s->area.cur.result, bytes);
    nodeshm_flags_done(&s->area.flags, seq);
    return MPI_SUCCESS;
}

NSM_STATS_TWIN(Allreduce, NSM_OP_ALLREDUCE,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
               (sendbuf, recvbuf, count, type, op, comm), nsm_stat_bytes(count, type))

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    if (NSM_STATS_ON) return stats_Allreduce(sendbuf, recvbuf, count, type, op, comm);
    return accelerated_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}
NSM_ENTRY_ALIAS(Allreduce)
