/* libnodeshm_mpi: MPI_Scan and MPI_Exscan for predefined ops and types (others go to the MPI
 * library), on core/coll/scan.h's scan (how it works, and the order of its reductions).
 *
 * Here: the checks and hand-overs, and this face's publications (publish.h): every rank copies
 * its contribution into its slot, except the last rank, whose slot nobody reads unless its input
 * must survive an in-place call; in place the others read the slot and the rank itself too (its
 * receive buffer is overwritten), but rank 0, whose prefix is its own contribution, reads its
 * receive buffer.  Between nodes only when every node's ranks are consecutive in rank order
 * (else the MPI library: a node's total would not be a contiguous run of the prefix).  MPI_Exscan
 * leaves rank 0's receive buffer untouched.
 *
 * Defaults, and what they were measured against: src/mpi/nsmpi_config.h. */
#include "mpi/nsmpi.h"
#include "mpi/publish.h"
#include "core/coll/scan.h"

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
    const int me = s->node_rank, in_place = sendbuf == MPI_IN_PLACE;
    const int publish = me < s->node_size - 1 || in_place;
    uint64_t seq = publish || s->n_nodes > 1 ? nsm_begin_sized(s, id, bytes) : nsm_begin_reader_sized(s, id, bytes);
    char *slot = nodeshm_area_slot(&s->area, me);
    if (publish) memcpy(slot, in_place ? recvbuf : sendbuf, bytes);
    nsm_pub_t c;
    nsm_reduction_t m;
    nsm_pub_init(&c, &m, s, seq, !in_place ? sendbuf : me > 0 ? slot : recvbuf, extent, type, op);
    return nodeshm_scan(&nsm_pub_ops, &c.p, &m.r, recvbuf, (size_t)count, exclusive);
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
