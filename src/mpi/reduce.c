/* libnodeshm_mpi: MPI_Reduce for predefined ops and types (others go to the MPI library).
 *
 * Like allreduce.c with the result only at the root: every rank copies its contribution into its
 * slot; small messages are reduced by one rank after a single arrive round (the root on one node,
 * each leader across nodes), larger ones slice by slice by all node ranks in parallel into the
 * result area.  Across nodes the leaders PMPI_Reduce the node results to the root's leader, which
 * releases its node; the root copies the result out.  Slots are reduced in node rank order
 * (core/coll/reduce.h: the reductions and the one-phase switch, NODESHM_REDUCE_ONE_PHASE_MAX).
 *
 * Defaults, and what they were measured against: src/mpi/nsmpi_config.h. */
#include "mpi/nsmpi.h"
#include "mpi/leaders.h"

#include <string.h>

NSM_BODY int accelerated_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                                MPI_Op op, int root, MPI_Comm comm)
{
    MPI_Aint lb = 0, extent = 0;
    /* the datatype, op, count and root agree on all ranks: all take this path or none; the size
     * window first, so a fallback costs no state lookup */
    int ok = nsm_op_max(NSM_OP_REDUCE) && count >= 0 && type != MPI_DATATYPE_NULL &&
             nsm_extent(type, &lb, &extent) == MPI_SUCCESS && lb == 0 && extent > 0 &&
             (size_t)count * (size_t)extent <= nsm_cfg.max[NSM_OP_REDUCE] &&
             ((size_t)count * (size_t)extent >= nsm_op_min(NSM_OP_REDUCE) || count == 0) &&
             nsm_op_ok(op) && nsm_is_named(type);
    nsm_state_t *s = ok ? nsm_get_state(comm) : NULL;
    if (!s || root < 0 || root >= s->size || (size_t)count * (size_t)extent > s->max[NSM_OP_REDUCE] ||
        (count > 0 && (size_t)count * (size_t)extent < s->min[NSM_OP_REDUCE])) {
        NSM_HAND(NSM_OP_REDUCE, comm, s, ok, count >= 0 && extent > 0 ? (long long)count * extent : -1,
                 !nsm_op_ok(op) ? NSM_WHY_OP : ok ? NSM_WHY_ARGS : NSM_WHY_DATATYPE);
        return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
    }
    if (count == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return MPI_SUCCESS;
    }
    const size_t bytes = (size_t)count * (size_t)extent;
    const int is_root = s->rank == root, multi = s->n_nodes > 1;
    const int root_node = s->node_of[root], root_here = root_node == s->my_node;
    uint64_t seq = nsm_begin_sized(s, NSM_OP_REDUCE, bytes);
    char *slot = nodeshm_area_slot(&s->area, s->node_rank);
    memcpy(slot, is_root && sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, bytes);
    nodeshm_flags_arrive(&s->area.flags, seq);

    /* who holds the node's result: the root itself (one node, small), else the result area */
    void *node_result = s->area.cur.result;
    if (bytes <= NODESHM_REDUCE_ONE_PHASE_MAX) {
        int reducer = multi ? s->node_rank == 0 : is_root;
        if (reducer) {
            if (!multi) node_result = recvbuf;
            nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_ARRIVE, seq);
            nsm_reduce_slots(s, node_result, 0, count, extent, type, op);
        }
        if (!multi) {
            nodeshm_flags_done(&s->area.flags, seq);
            return MPI_SUCCESS;
        }
    } else {
        nsm_reduce_my_slice(s, seq, count, extent, type, op);
        nodeshm_flags_reduced(&s->area.flags, seq);
        if (s->node_rank == 0 || (!multi && is_root))
            nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_REDUCED, seq);
    }
    if (multi && s->node_rank == 0) {
        nsm_leaders_reduce(s->area.cur.result, count, type, op, root_node, root_here, bytes, s->leaders);
        nodeshm_flags_release(&s->area.flags, seq);
    }
    if (is_root) {
        if (multi && s->node_rank != 0) nodeshm_flags_wait_release(&s->area.flags, seq);
        memcpy(recvbuf, s->area.cur.result, bytes);
    }
    nodeshm_flags_done(&s->area.flags, seq);
    return MPI_SUCCESS;
}

/* The entry, frame-less (see MPI_Bcast). */
NSM_STATS_TWIN(Reduce, NSM_OP_REDUCE,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm),
               (sendbuf, recvbuf, count, type, op, root, comm), nsm_stat_bytes(count, type))

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    if (NSM_STATS_ON) return stats_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
    if (nsm_known_outside(NSM_OP_REDUCE, count, type))
        return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
    return accelerated_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}
NSM_ENTRY_ALIAS(Reduce)
