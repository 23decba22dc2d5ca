/* nodeshm core, OpenSHMEM team collectives: node syncs and team_sync (coll.h).
 *
 * A node sync makes every node member of a team wait for all the others.  When every PE has a
 * core it is a dissemination barrier over the team slot's LINE_SYNC lines (line k of my slot is
 * written only by the node member 2^k below me and holds an epoch), about one cache-line handoff
 * per round.  When PEs outnumber cores it is an arrival count in the node leader's slot instead,
 * released by the last to arrive: every member waits once, for nobody in particular, instead of
 * once per round for a partner that may not be scheduled (as core/node_barrier.c does).  All PEs
 * agree on nodeshm_wait_oversubscribed, hence on the algorithm. */
#include "core/coll/team/team_coll.h"

uint64_t coll_peers_wait(const nodeshm_team_t *t, int l, size_t field, uint64_t v)
{
    uint64_t low = UINT64_MAX;
    for (int k = 0; k < t->node_n_pes; k++) {
        if (k == t->node_my_pe) continue;
        const uint64_t *f = (const uint64_t *)(const void *)((const char *)coll_line(t, k, l) + field);
        uint64_t seen = nodeshm_flag_wait_ge(f, v);
        if (seen < low) low = seen;
    }
    return low;
}

void coll_node_sync(const nodeshm_team_t *t, uint64_t epoch)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    int n = t->node_n_pes;
    if (n == 1) return;
    if (nodeshm_wait_oversubscribed) {
        /* the count is back to 0 after every sync; the release line holds the epoch */
        uint64_t *count = &coll_line(t, 0, LINE_COUNT)->arrive;
        uint64_t *release = &coll_line(t, 0, LINE_COUNT_RELEASE)->arrive;
        if (__atomic_add_fetch(count, 1, __ATOMIC_ACQ_REL) == (uint64_t)n) {
            __atomic_store_n(count, 0, __ATOMIC_RELAXED);
            nodeshm_flag_store(release, epoch);
            return;
        }
        (void)nodeshm_flag_wait_ge(release, epoch);
        return;
    }
    for (int k = 0; (1L << k) < n; k++) {
        int partner = (int)(((long)t->node_my_pe + (1L << k)) % n);
        nodeshm_flag_store(&coll_line(t, partner, LINE_SYNC + k)->arrive, epoch);
        (void)nodeshm_flag_wait_ge(&coll_my_line(t, LINE_SYNC + k)->arrive, epoch);
    }
}

int nodeshm_coll_sync(const char *call, nodeshm_team_t *t)
{
    /* stores (non-temporal ones included) before the sync are visible after it */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (t->n_nodes == 1) coll_path(COLL_SYNC, COLL_PATH_NODE);
    if (t->n_pes == 1) return NODESHM_OK;
    if (t->n_nodes == 1) {
        coll_node_sync(t, ++t->epoch);
        return NODESHM_OK;
    }
    /* Between nodes MPI carries it: the members arrive, the leaders' MPI_Barrier, the leader
     * releases its node (one fan-in and one fan-out; it was a node sync on each side).  A
     * dissemination over one-sided flags (an MPI accumulate per round between nodes) hung now
     * and then under Open MPI 5.0's osc/rdma over btl/sm: about 1 run in 300 of tests/coll_aset
     * in pseudo-node mode, with the origin in MPI_Accumulate (or MPI_Fetch_and_op, or with the
     * window's acc_single_intrinsic) for minutes while its target polled MPI. */
    /* Under MPICH the team's MPI_Barrier (coll_nodes_sync_by_library): MPICH's node-aware barrier
     * beat the fan in every shape.  2 emulated hosts, quiet, nodeshm-bench-coll team_sync -i 2000,
     * fan / MPI_Barrier(team) / fan in turn, 3 rounds, ratio to MPI_Barrier: 2 x 2 PEs fan
     * 0.82-0.99x (median 0.88x), the team's barrier 1.00x; 2 x 4 fan 0.80-0.95x, the barrier
     * 0.99-1.03x.  Open MPI keeps the fan: 2 x 2 1.01-1.22x against 1.00-1.07x, 2 x 4 0.88-1.15x
     * (median 1.07x) against 0.95-0.99x. */
    if (coll_nodes_sync_by_library()) {
        coll_path(COLL_SYNC, COLL_PATH_LIBRARY);
        return MPI_Barrier(t->comm) == MPI_SUCCESS ? NODESHM_OK
                                                   : nodeshm_coll_mpi_failed(call, "MPI_Barrier over the team");
    }
    coll_path(COLL_SYNC, COLL_PATH_LEADERS);
    MPI_Comm leaders;
    int rc = nodeshm_coll_leaders(call, t, &leaders); /* collective over the team on first need */
    if (rc) return rc;
    uint64_t e = t->epoch;
    t->epoch += 2;
    return nodeshm_coll_nodes_sync(call, t, leaders, e); /* leaders only: fan.c */
}
