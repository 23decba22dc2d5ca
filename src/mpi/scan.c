/* libnodeshm_mpi: MPI_Scan and MPI_Exscan for predefined ops and types (others go to the MPI
 * library).
 *
 * Every rank copies its contribution into its slot and raises its arrive flag; node rank i waits
 * only for ranks 0..i-1 and reduces their slots, then its own contribution, in rank order
 * straight into its receive buffer (the last rank's slot is read by nobody: it publishes nothing
 * unless its input must survive an in-place call).  Every element is ((x0 op x1) op x2) ... in
 * rank order: on one node the same bits as a serial left-to-right reduction (the predefined ops
 * commute, so which operand comes first does not change a bit).  One flag round at every size:
 * a chunked variant (each rank scanning a slice of the vector across all slots, then a second
 * round) took 1.4-9 ms per call from 8 KiB at 2-8 ranks in mpi_osu (MPICH, load 23-25 on 2
 * cores) where this took 3-150 us up to 4 KiB: every rank had to run twice after all arrived.
 *
 * Several nodes, when every node's ranks are consecutive in rank order (else the MPI library:
 * a node's total would not be a contiguous run of the prefix): each node scans its own ranks as
 * above, the node total (the last node rank's inclusive prefix) goes to the leaders'
 * PMPI_Exscan (in place, in the result area), and the ranks of every node but the first combine
 * that with their node prefix: (earlier nodes) op (my node's prefix), not the serial order, so
 * floats may differ from it in the last bits, as the MPI libraries' own tree scans do.
 *
 * Defaults, and what they were measured against: src/mpi/nsmpi_config.h. */
#include "mpi/nsmpi.h"

#include <string.h>

/* The scan (exclusive: MPI_Exscan) on state s; returns NSM_HANDED_OVER when the call is the MPI
 * library's (the same decision on every rank). */
static int scan_body(int id, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm, int exclusive)
{
    MPI_Aint lb = 0, extent = 0;
    /* count, datatype and op agree on all ranks: all take this path or none; the size window
     * first, so a fallback costs no state lookup */
    int ok = nsm_op_max(id) && count >= 0 && type != MPI_DATATYPE_NULL &&
             nsm_extent(type, &lb, &extent) == MPI_SUCCESS && lb == 0 && extent > 0 &&
             (size_t)count * (size_t)extent <= nsm_cfg.max[id] &&
             ((size_t)count * (size_t)extent >= nsm_op_min(id) || count == 0) && nsm_op_ok(op) && nsm_is_named(type);
    nsm_state_t *s = ok ? nsm_get_state(comm) : NULL;
    if (!s || (size_t)count * (size_t)extent > s->max[id] ||
        (count > 0 && (size_t)count * (size_t)extent < s->min[id])) {
        NSM_HAND(id, comm, s, ok, count >= 0 && extent > 0 ? (long long)count * extent : -1,
                 !nsm_op_ok(op) ? NSM_WHY_OP : NSM_WHY_DATATYPE);
        return NSM_HANDED_OVER;
    }
    if (s->n_nodes > 1 && !nsm_nodes_in_order(s)) {
        NSM_WHY(NSM_WHY_NODES);
        return NSM_HANDED_OVER;
    }
    if (count == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return MPI_SUCCESS;
    }
    const size_t bytes = (size_t)count * (size_t)extent;
    const int me = s->node_rank, last = s->node_size - 1, multi = s->n_nodes > 1;
    const int in_place = sendbuf == MPI_IN_PLACE, publish = me < last || in_place;
    uint64_t seq = publish || multi ? nsm_begin_sized(s, id, bytes) : nsm_begin_reader_sized(s, id, bytes);
    char *slot = nodeshm_area_slot(&s->area, me);
    const void *mine = in_place ? recvbuf : sendbuf;
    if (publish) memcpy(slot, mine, bytes);
    nodeshm_flags_arrive(&s->area.flags, seq);
    if (in_place) mine = slot; /* recvbuf is overwritten below */

    /* rank me waits only for ranks 0..me-1, which publish without waiting for anyone */
    for (int j = 0; j < me; j++) nodeshm_flags_wait_arrive(&s->area.flags, j, seq);
    /* recvbuf = my node prefix: node ranks 0..upto in rank order (core/coll/reduce.h), mine for
     * me (its slot only in place); in place, rank 0's inclusive prefix is there already */
    const int upto = exclusive ? me - 1 : me, have = upto >= 0;
    nsm_reduction_t m = nsm_slots_reduction(s, extent, type, op);
    m.mine = mine, m.me = me;
    if (have && !(upto == 0 && me == 0 && in_place)) nodeshm_reduce_ordered(&m.r, recvbuf, 0, (size_t)count, 0, upto);

    if (multi) {
        /* the node total into the result area, the leaders' exclusive scan of the totals there */
        char *total = s->area.cur.result;
        if (me == last) {
            if (!exclusive) memcpy(total, recvbuf, bytes);
            else if (have) nodeshm_reduce_combine(&m.r, total, recvbuf, mine, (size_t)count);
            else memcpy(total, mine, bytes);
            nodeshm_flags_reduced(&s->area.flags, seq);
        }
        if (me == 0) {
            if (last > 0) (void)nodeshm_flag_wait_ge(&s->area.flags.lines[last].reduced, seq);
            PMPI_Exscan(MPI_IN_PLACE, total, count, type, op, s->leaders);
            nodeshm_flags_release(&s->area.flags, seq);
        }
        if (s->my_node > 0) { /* the first node's ranks have no earlier node */
            if (me > 0) nodeshm_flags_wait_release(&s->area.flags, seq);
            if (have) nodeshm_reduce_combine(&m.r, recvbuf, recvbuf, total, (size_t)count);
            else memcpy(recvbuf, total, bytes);
        }
    }
    nodeshm_flags_done(&s->area.flags, seq);
    return MPI_SUCCESS;
}

NSM_BODY int accelerated_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm)
{
    int rc = scan_body(NSM_OP_SCAN, sendbuf, recvbuf, count, type, op, comm, 0);
    return rc == NSM_HANDED_OVER ? PMPI_Scan(sendbuf, recvbuf, count, type, op, comm) : rc;
}

NSM_BODY int accelerated_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                MPI_Comm comm)
{
    int rc = scan_body(NSM_OP_EXSCAN, sendbuf, recvbuf, count, type, op, comm, 1);
    return rc == NSM_HANDED_OVER ? PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm) : rc;
}

NSM_STATS_TWIN(Scan, NSM_OP_SCAN,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
               (sendbuf, recvbuf, count, type, op, comm), nsm_stat_bytes(count, type))
NSM_STATS_TWIN(Exscan, NSM_OP_EXSCAN,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
               (sendbuf, recvbuf, count, type, op, comm), nsm_stat_bytes(count, type))

/* The entries, frame-less (see MPI_Bcast). */
int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    if (NSM_STATS_ON) return stats_Scan(sendbuf, recvbuf, count, type, op, comm);
    if (nsm_known_outside(NSM_OP_SCAN, count, type)) return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
    return accelerated_Scan(sendbuf, recvbuf, count, type, op, comm);
}
NSM_ENTRY_ALIAS(Scan)

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    if (NSM_STATS_ON) return stats_Exscan(sendbuf, recvbuf, count, type, op, comm);
    if (nsm_known_outside(NSM_OP_EXSCAN, count, type))
        return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
    return accelerated_Exscan(sendbuf, recvbuf, count, type, op, comm);
}
NSM_ENTRY_ALIAS(Exscan)
