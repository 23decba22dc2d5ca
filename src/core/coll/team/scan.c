/* nodeshm core, OpenSHMEM team collectives: inclusive and exclusive scans (coll.h).
 *
 * One node: eager rounds of at most a staging buffer, each member reducing members 0..me
 * (inclusive) or 0..me-1 (exclusive, zeros on member 0).  Several nodes, each a contiguous run
 * of the team: each node scans its members through staging, its leader adds the node total to
 * the leaders' MPI_Exscan, members combine the leader's result with their partials.  Otherwise
 * MPI_Scan / MPI_Exscan over the team's communicator. */
#include "core/coll/team/team_coll.h"

#include <stdlib.h>

/* Several nodes: MPI_Scan / MPI_Exscan over the team's communicator (rank = team index), correct
 * however the members fall on nodes; the exclusive scan's first PE gets zeros (OpenSHMEM). */
static int scan_mpi(const char *call, nodeshm_team_t *t, void *dest, const void *src, size_t count,
                    size_t elem, nodeshm_reduce_fn fn, MPI_Datatype dtype, MPI_Op op, int exclusive)
{
    int rc = coll_mpi_op(call, &op, fn);
    if (rc) return rc;
    const size_t chunk = (size_t)1 << 28;
    for (size_t off = 0; off < count; off += chunk) {
        int len = (int)(count - off < chunk ? count - off : chunk);
        const void *in = dest == src ? MPI_IN_PLACE : (const char *)src + off * elem;
        void *out = (char *)dest + off * elem;
        int mrc = exclusive ? MPI_Exscan(in, out, len, dtype, op, t->comm)
                            : MPI_Scan(in, out, len, dtype, op, t->comm);
        if (mrc != MPI_SUCCESS)
            return nodeshm_coll_mpi_failed(call, exclusive ? "MPI_Exscan over the team" : "MPI_Scan over the team");
    }
    if (exclusive && t->my_pe == 0) memset(dest, 0, count * elem);
    return NODESHM_OK;
}

/* A node's scan in eager rounds of at most a staging buffer, each its own turn (reduce_node on
 * contributions first..last, and the node total into `total` if not NULL).  Every PE takes the
 * turns, on a node of one member too: team epochs must agree across nodes (team_sync).  In place
 * is safe: round i stages source chunk i before writing dest chunk i. */
static void scan_rounds(nodeshm_team_t *t, void *dest, const void *src, size_t count, size_t elem,
                        nodeshm_reduce_fn fn, int first, int last, char *total)
{
    size_t per = EAGER_MAX / elem;
    for (size_t off = 0; off < count; off += per) {
        size_t len = count - off < per ? count - off : per;
        coll_turn_t x = coll_turn_begin(t, coll_begin(t));
        if (t->node_n_pes > 1)
            coll_reduce_node(t, x, (char *)dest + off * elem, (const char *)src + off * elem, len, elem,
                             fn, first, last, total ? total + off * elem : NULL);
    }
}

/* Several nodes, each a contiguous run of the team: every node scans its own members through
 * staging (member j >= 1 gets contributions 1..j, or 0..j-1 when exclusive) while its leader
 * also reduces the node's total; the leaders' MPI_Exscan of the totals gives each node the
 * prefix of the nodes before it, the leader combines it with its own contribution, and the
 * members combine the leader's result with their partials.  Only leaders send messages; a
 * leader alone on its node sends its source as the total and stages nothing. */
static int scan_nodes(const char *call, nodeshm_team_t *t, MPI_Comm leaders, void *dest,
                      const void *src, size_t count, size_t elem, nodeshm_reduce_fn fn,
                      MPI_Datatype dtype, MPI_Op op, int exclusive)
{
    int n = t->node_n_pes, me = t->node_my_pe, leader = me == 0, first_node = t->my_node == 0;
    size_t nbytes = count * elem;
    char *buf = NULL, *total = NULL, *prefix = NULL;
    int rc = NODESHM_OK;
    if (leader) {
        /* [total][prefix]: alone, the total is the source itself.  Per call, not kept: threads
         * may scan on different teams at once */
        buf = malloc(n > 1 ? 2 * nbytes : nbytes);
        if (!buf) /* still take part in the node's rounds; the error ends the job */
            rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory for a %zu-byte scan", nbytes);
        else if (n > 1) total = buf, prefix = buf + nbytes;
        else prefix = buf;
    }
    scan_rounds(t, dest, src, count, elem, fn, leader || exclusive ? 0 : 1, exclusive ? me - 1 : me,
                total);
    const char *contrib = n > 1 ? total : (const char *)src;
    uint64_t e = coll_begin(t);
    (void)coll_turn_begin(t, e);
    if (leader && !rc) {
        rc = coll_mpi_op(call, &op, fn);
        const size_t chunk = (size_t)1 << 28;
        for (size_t off = 0; !rc && off < count; off += chunk) {
            int len = (int)(count - off < chunk ? count - off : chunk);
            if (MPI_Exscan(contrib + off * elem, prefix + off * elem, len, dtype, op, leaders) !=
                MPI_SUCCESS)
                rc = nodeshm_coll_mpi_failed(call, "MPI_Exscan between node leaders");
        }
        /* the first node's prefix is empty */
        if (!rc && exclusive) {
            if (first_node) memset(dest, 0, nbytes);
            else memcpy(dest, prefix, nbytes);
        } else if (!rc) {
            const void *own = n > 1 ? dest : src; /* staged rounds left my contribution in dest */
            if (!first_node) fn(dest, prefix, own, count);
            else if (own != dest) memcpy(dest, own, nbytes);
        }
    }
    if (n > 1) {
        coll_node_sync(t, e + 1);
        if (!leader) fn(dest, coll_at_member(t, dest, 0), dest, count);
        coll_node_sync(t, e + 2);
    }
    free(buf);
    return rc;
}

/* Several nodes, each a contiguous run of the team, vectors of at most coll_small_max(): a chain
 * through the team in order.  Each member takes its predecessor's inclusive prefix (a node peer's
 * small-ring entry, or from the previous node's last member by one MPI message), combines its
 * source, publishes the result for its successor and goes on: nobody waits for a successor, so
 * back-to-back scans pipeline as MPI_Scan's linear chain does (Open MPI). */
enum { TAG_SCAN = 3 };
static int scan_chain(const char *call, nodeshm_team_t *t, MPI_Comm comm, void *dest,
                      const void *src, size_t count, size_t elem, nodeshm_reduce_fn fn,
                      int exclusive)
{
    size_t nbytes = count * elem;
    int np = t->node_n_pes, me = t->node_my_pe, node = t->my_node, rc = NODESHM_OK;
    coll_turn_t x = coll_turn_begin(t, coll_begin(t));
    /* alone on my node: nobody reads me, and the ring stays untouched (a team with node peers
     * that takes this slot later expects clean entries: turns.c's retire) */
    char own[NODESHM_COLL_SMALL_ENTRY], got[NODESHM_COLL_SMALL_ENTRY];
    char *mine = np > 1 ? coll_small_claim(t, x) : own;
    const char *prev = NULL;
    if (me > 0) {
        prev = coll_small_await(t, x, me - 1);
    } else if (node > 0) {
        MPI_Request r;
        if (MPI_Irecv(got, (int)nbytes, MPI_BYTE, t->node_leader[node] - 1, TAG_SCAN, comm, &r) !=
            MPI_SUCCESS)
            rc = nodeshm_coll_mpi_failed(call, "MPI_Irecv of the scan's prefix");
        if (!rc) rc = coll_leaders_waitall(call, 1, &r, "MPI_Irecv of the scan's prefix");
        prev = got;
    }
    if (prev) fn(mine, prev, src, count);
    else memcpy(mine, src, nbytes);
    if (!exclusive) memcpy(dest, mine, nbytes);
    else if (prev) memcpy(dest, prev, nbytes);
    else memset(dest, 0, nbytes);
    if (np > 1) {
        coll_small_publish(t, x); /* after an error too: nobody waits forever (the job ends) */
        coll_small_done(t, x); /* by every member, reader or not: owners reclaim entries by it */
    }
    if (!rc && me == np - 1 && node + 1 < t->n_nodes) {
        MPI_Request r;
        if (MPI_Isend(mine, (int)nbytes, MPI_BYTE, t->node_leader[node + 1], TAG_SCAN, comm, &r) !=
            MPI_SUCCESS)
            rc = nodeshm_coll_mpi_failed(call, "MPI_Isend of the scan's prefix");
        if (!rc) rc = coll_leaders_waitall(call, 1, &r, "MPI_Isend of the scan's prefix");
    }
    return rc;
}

int nodeshm_coll_scan(const char *call, nodeshm_team_t *t, void *dest, const void *src,
                      size_t count, size_t elem, nodeshm_reduce_fn fn, MPI_Datatype dtype,
                      MPI_Op op, int exclusive)
{
    size_t nbytes = count * elem;
    int rc = coll_check_reduce_args(call, "nelems", dest, src, count, elem);
    if (rc) return rc;
    if (t->n_nodes > 1) {
        if (count && coll_nodes_in_blocks(t) && nbytes <= coll_small_max()) {
            MPI_Comm comm;
            if ((rc = nodeshm_coll_own_comm(call, t, &comm))) return rc;
            return scan_chain(call, t, comm, dest, src, count, elem, fn, exclusive);
        }
        if (count && coll_nodes_in_blocks(t)) {
            MPI_Comm leaders = MPI_COMM_NULL;
            if ((rc = nodeshm_coll_leaders(call, t, &leaders))) return rc;
            return scan_nodes(call, t, leaders, dest, src, count, elem, fn, dtype, op, exclusive);
        }
        (void)coll_turn_begin(t, coll_begin(t));
        return count ? scan_mpi(call, t, dest, src, count, elem, fn, dtype, op, exclusive) : NODESHM_OK;
    }
    if (count == 0 || t->n_pes == 1) {
        (void)coll_turn_begin(t, coll_begin(t));
        if (nbytes && exclusive) memset(dest, 0, nbytes);
        else if (nbytes && dest != src) memcpy(dest, src, nbytes);
        return NODESHM_OK;
    }
    int me = t->node_my_pe;
    scan_rounds(t, dest, src, count, elem, fn, 0, exclusive ? me - 1 : me, NULL);
    return NODESHM_OK;
}
