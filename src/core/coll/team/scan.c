/* nodeshm core, OpenSHMEM team collectives: inclusive and exclusive scans (coll.h).
 *
 * On one node, and between nodes when each node is a contiguous run of the team: core/coll/
 * scan.h's scan (written once for both faces), in rounds of at most a staging buffer, each a
 * turn and its publications (publish.h); the exclusive scan's first PE gets zeros.  Between such
 * nodes, vectors of at most coll_small_max() take a chain through the team instead (scan_chain.c),
 * and under Open MPI larger ones MPI_Scan over the team (coll_nodes_scan_by_library).
 * Otherwise MPI_Scan / MPI_Exscan over the team's communicator. */
#include "core/coll/team/publish.h"
#include "core/coll/scan.h"

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

/* The scan in eager rounds of at most a staging buffer, each its own turn.  Every PE takes the
 * turns, on a node of one member too: team epochs must agree across nodes (team_sync).  In place
 * is safe: round i publishes a copy of source chunk i (alone on a node, its member 0 reads its
 * source before it writes dest: scan.h) before writing dest chunk i.  leaders: the team's
 * (MPI_COMM_NULL on one node and on members that are not leaders). */
static int scan_rounds(const char *call, nodeshm_team_t *t, MPI_Comm leaders, void *dest, const void *src,
                       size_t count, size_t elem, nodeshm_reduce_fn fn, MPI_Datatype dtype, MPI_Op op,
                       int exclusive)
{
    size_t per = EAGER_MAX / elem;
    int rc = NODESHM_OK;
    for (size_t off = 0; off < count; off += per) {
        size_t len = count - off < per ? count - off : per;
        char *out = (char *)dest + off * elem;
        coll_pub_t c;
        coll_pub_begin(&c, t, coll_turn_begin(t, coll_begin(t)), (const char *)src + off * elem, len, elem, fn);
        c.call = call, c.leaders = leaders, c.dtype = dtype, c.op = op;
        int rrc = nodeshm_scan(&coll_pub_ops, &c.p, &c.r, out, len, exclusive);
        if (!rc) rc = rrc; /* the later rounds still run: every member takes them */
        if (exclusive && t->my_pe == 0) memset(out, 0, len * elem);
    }
    return rc;
}

/* Between nodes above the chain: the rounds (each round's leaders' exchange an MPI_Exscan of its
 * own) under MPICH; under Open MPI MPI_Scan over the team.  2 emulated hosts x 2, inscan_int,
 * quiet, A B / B A, ratio to MPI_Scan: MPICH rounds 5.1-5.6x at 64-512 KiB (the one MPI_Exscan
 * over the whole vector they replaced 1.8-2.3x); Open MPI rounds 0.45-0.67x at 128-512 KiB, the
 * one MPI_Exscan 0.76x at 1-2 KiB and 1.0-1.16x above, MPI_Scan over the team 0.98-1.03x. */

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
            coll_path(COLL_SCAN, COLL_PATH_LEADERS);
            return coll_scan_chain(call, t, comm, dest, src, count, elem, fn, exclusive);
        }
        if (count && coll_nodes_in_blocks(t) && !coll_nodes_scan_by_library()) {
            MPI_Comm leaders = MPI_COMM_NULL;
            if ((rc = nodeshm_coll_leaders(call, t, &leaders))) return rc;
            coll_path(COLL_SCAN, COLL_PATH_LEADERS);
            return scan_rounds(call, t, leaders, dest, src, count, elem, fn, dtype, op, exclusive);
        }
        (void)coll_turn_begin(t, coll_begin(t));
        if (count) coll_path(COLL_SCAN, COLL_PATH_LIBRARY);
        return count ? scan_mpi(call, t, dest, src, count, elem, fn, dtype, op, exclusive) : NODESHM_OK;
    }
    coll_path(COLL_SCAN, COLL_PATH_NODE);
    if (count == 0 || t->n_pes == 1) {
        (void)coll_turn_begin(t, coll_begin(t));
        if (nbytes && exclusive) memset(dest, 0, nbytes);
        else if (nbytes && dest != src) memcpy(dest, src, nbytes);
        return NODESHM_OK;
    }
    return scan_rounds(call, t, MPI_COMM_NULL, dest, src, count, elem, fn, dtype, op, exclusive);
}
