/* nodeshm core, OpenSHMEM team collectives: the scans' chain between nodes, for small vectors
 * (scan.c picks it; the other scans are core/coll/scan.h's, shared with the MPI face, which has
 * no chain: it runs that scan at every size).
 *
 * Several nodes, each a contiguous run of the team, vectors of at most coll_small_max(): a chain
 * through the team in order.  Each member takes its predecessor's inclusive prefix (a node peer's
 * small-ring entry, or from the previous node's last member by one MPI message), combines its
 * source, publishes the result for its successor and goes on: nobody waits for a successor, so
 * back-to-back scans pipeline as MPI_Scan's linear chain does (Open MPI). */
#include "core/coll/team/team_coll.h"

enum { TAG_SCAN = 3 };
int coll_scan_chain(const char *call, nodeshm_team_t *t, MPI_Comm comm, void *dest, const void *src,
                    size_t count, size_t elem, nodeshm_reduce_fn fn, int exclusive)
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
