/* nodeshm core: between-node collectives in which only the node leaders call MPI (coll_nodes.h).
 *
 * Why: on emulated hosts (2 hosts x 2 PEs, MPICH over OFI tcp) fcollect went through three node
 * syncs around the leaders' MPI_Allgatherv (with a pack and an unpack), and alltoall through two
 * node syncs around an MPI_Alltoallv of the whole team: 0.11-0.5x and 0.15-0.6x of the MPI
 * library.  A node sync makes every member wait for every other, and where PEs outnumber cores
 * each of those waits costs a reschedule.  Here a collective is one fan-in and one fan-out per
 * node: each node peer says that it has arrived (its source is ready, its dest writable) on a
 * line of its own and waits for one line of its leader; the leader moves all of its node's data
 * in and out of its peers' symmetric buffers (mapped: at_member), makes the node's one MPI call
 * with the other leaders, and releases its peers.  Node peers never call MPI.
 *
 * Scratch lines of the team slot that coll.c leaves free (values are epochs, they only grow):
 * ARRIVE, a member's e + 1 with its collect size and source token; RELEASE, the leader's e + 2
 * with the status and, for a collect too large to push, the bytes its peers copy from its dest;
 * DONE, a peer's e + 3 once that copy is over (the leader waits for it before it returns). */
#include "core/coll_nodes.h"
#include "core/status.h"
#include "core/wait.h"

#include <limits.h>
#include <stdlib.h>

#define DONE_LINE 24
#define ARRIVE_LINE 30
#define RELEASE_LINE 31
_Static_assert(RELEASE_LINE < NODESHM_TEAM_SCRATCH_LINES, "scratch lines");

/* A collect result up to this size is pushed by the leader into each peer's dest (the peers
 * wait for nothing else); larger ones the peers copy from the leader's dest, in parallel. */
#define PUSH_MAX ((size_t)64 << 10)

static inline uint64_t *flag(const nodeshm_team_t *t, int node_member, int l)
{
    return &nodeshm_ctrl_of(t->node_local[node_member])->team[t->slot].scratch[l].word[0];
}

static void await(const uint64_t *f, uint64_t epoch)
{
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    while (__atomic_load_n(f, __ATOMIC_ACQUIRE) < epoch) nodeshm_wait_step(&w);
}

/* A node peer: arrives with (w1, w2), then waits for its leader; returns the release line. */
static const uint64_t *peer_turn(const nodeshm_team_t *t, uint64_t e, uint64_t w1, uint64_t w2)
{
    uint64_t *a = flag(t, t->node_my_pe, ARRIVE_LINE);
    a[1] = w1;
    a[2] = w2;
    __atomic_store_n(a, e + 1, __ATOMIC_RELEASE);
    const uint64_t *r = flag(t, 0, RELEASE_LINE);
    await(r, e + 2);
    return r;
}

static void leader_gather(const nodeshm_team_t *t, uint64_t e)
{
    for (int k = 1; k < t->node_n_pes; k++) await(flag(t, k, ARRIVE_LINE), e + 1);
}

static void leader_release(const nodeshm_team_t *t, uint64_t e, int rc, size_t pull)
{
    uint64_t *r = flag(t, 0, RELEASE_LINE);
    r[1] = (uint64_t)(int64_t)rc;
    r[2] = pull;
    __atomic_store_n(r, e + 2, __ATOMIC_RELEASE);
}

static inline int released_rc(const uint64_t *r) { return (int)(int64_t)r[1]; }

/* The leader: every member's size into sz[team index] (my node's from their arrive lines, the
 * others' by the leaders' MPI_Allgatherv; nodes are runs of the team). */
static int collect_sizes(const char *call, const nodeshm_team_t *t, MPI_Comm leaders,
                         size_t nbytes, uint64_t *sz, int *cnt, int *dsp)
{
    int first = t->node_members[0];
    for (int k = 0; k < t->node_n_pes; k++)
        sz[first + k] = k ? flag(t, k, ARRIVE_LINE)[1] : nbytes;
    for (int j = 0; j < t->n_nodes; j++) cnt[j] = 0;
    for (int i = 0; i < t->n_pes; i++) cnt[t->node_of[i]]++;
    for (int j = 0; j < t->n_nodes; j++) dsp[j] = t->node_leader[j];
    if (MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, sz, cnt, dsp, MPI_UINT64_T, leaders) !=
        MPI_SUCCESS)
        return nodeshm_coll_mpi_failed(call, "MPI_Allgatherv of the sizes between node leaders");
    return NODESHM_OK;
}

int nodeshm_coll_nodes_collect(const char *call, nodeshm_team_t *t, MPI_Comm leaders, uint64_t e,
                               void *dest, const void *src, size_t nbytes, int fixed)
{
    int me = t->node_my_pe;
    if (me != 0) {
        const uint64_t *r = peer_turn(t, e, nbytes, source_token(src));
        int rc = released_rc(r);
        size_t pull = r[2];
        if (pull) {
            if (!rc) memcpy(dest, at_member(t, dest, 0), pull);
            __atomic_store_n(flag(t, me, DONE_LINE), e + 3, __ATOMIC_RELEASE);
        }
        return rc;
    }
    leader_gather(t, e);
    int n = t->n_pes, nn = t->n_nodes, np = t->node_n_pes, first = t->node_members[0], rc = 0;
    size_t *off = malloc(sizeof(size_t) * ((size_t)n + 1));
    uint64_t *sz = fixed ? NULL : malloc(sizeof(uint64_t) * (size_t)n);
    int *cnt = malloc(sizeof(int) * (size_t)nn), *dsp = malloc(sizeof(int) * (size_t)nn);
    if (!off || (!fixed && !sz) || !cnt || !dsp)
        rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory for %d PEs", n);
    if (!rc && !fixed) rc = collect_sizes(call, t, leaders, nbytes, sz, cnt, dsp);
    if (!rc) {
        off[0] = 0;
        for (int i = 0; i < n; i++) off[i + 1] = off[i] + (fixed ? nbytes : sz[i]);
        rc = check_sym(call, "dest", dest, off[n]);
        if (!rc && off[n] > INT_MAX) rc = nodeshm_coll_too_big(call, off[n]);
    }
    char *d = dest;
    for (int k = 0; !rc && k < np; k++) { /* my node's pieces, from the members' sources */
        size_t len = off[first + k + 1] - off[first + k];
        if (!len) continue;
        const char *s = k == 0 ? src
                        : fixed ? at_member(t, src, k)
                                : token_at_member(t, flag(t, k, ARRIVE_LINE)[2], k);
        memcpy(d + off[first + k], s, len);
    }
    if (!rc) { /* the nodes' runs, in place in every leader's dest */
        for (int j = 0; j < nn; j++) {
            int lo = t->node_leader[j], hi = j + 1 < nn ? t->node_leader[j + 1] : n;
            cnt[j] = (int)(off[hi] - off[lo]);
            dsp[j] = (int)off[lo];
        }
        if (MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, d, cnt, dsp, MPI_BYTE, leaders) !=
            MPI_SUCCESS)
            rc = nodeshm_coll_mpi_failed(call, "MPI_Allgatherv between node leaders");
    }
    size_t total = rc ? 0 : off[n], pull = total > PUSH_MAX ? total : 0;
    if (total && !pull)
        for (int k = 1; k < np; k++) memcpy(at_member(t, dest, k), d, total);
    leader_release(t, e, rc, pull);
    if (pull)
        for (int k = 1; k < np; k++) await(flag(t, k, DONE_LINE), e + 3);
    free(off);
    free(sz);
    free(cnt);
    free(dsp);
    return rc;
}

int nodeshm_coll_nodes_alltoall(const char *call, nodeshm_team_t *t, MPI_Comm leaders, uint64_t e,
                                void *dest, const void *src, size_t dst, size_t sst,
                                size_t nelems, size_t elem)
{
    if (t->node_my_pe != 0) return released_rc(peer_turn(t, e, 0, 0));
    leader_gather(t, e);
    int n = t->n_pes, nn = t->n_nodes, np = t->node_n_pes, rc = 0;
    size_t block = nelems * elem, sblk = nelems * sst * elem, dblk = nelems * dst * elem;
    /* within the node: every member's block for every member */
    for (int k = 0; k < np; k++)
        for (int m = 0; m < np; m++)
            copy_block(at_member(t, dest, m) + (size_t)t->node_members[k] * dblk, dst,
                       at_member(t, src, k) + (size_t)t->node_members[m] * sblk, sst, nelems, elem);
    /* between nodes: to node j, for each member k of mine (team order) the blocks for each member
     * of j (team order); from node j the same with the roles swapped */
    size_t bytes = (size_t)np * (size_t)(n - np) * block;
    char *sbuf = malloc(bytes ? bytes : 1), *rbuf = malloc(bytes ? bytes : 1);
    int *cnt = calloc((size_t)nn, sizeof(int)), *dsp = calloc((size_t)nn, sizeof(int));
    if (!sbuf || !rbuf || !cnt || !dsp) rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory");
    if (!rc && bytes > INT_MAX) rc = nodeshm_coll_too_big(call, bytes);
    size_t p = 0;
    for (int j = 0; !rc && j < nn; j++) {
        dsp[j] = (int)p;
        if (j == t->my_node) continue;
        for (int k = 0; k < np; k++)
            for (int m = 0; m < n; m++)
                if (t->node_of[m] == j) {
                    copy_block(sbuf + p, 1, at_member(t, src, k) + (size_t)m * sblk, sst, nelems, elem);
                    p += block;
                }
        cnt[j] = (int)(p - (size_t)dsp[j]);
    }
    if (!rc && MPI_Alltoallv(sbuf, cnt, dsp, MPI_BYTE, rbuf, cnt, dsp, MPI_BYTE, leaders) != MPI_SUCCESS)
        rc = nodeshm_coll_mpi_failed(call, "MPI_Alltoallv between node leaders");
    for (int j = 0; !rc && j < nn; j++) {
        if (j == t->my_node) continue;
        const char *r = rbuf + dsp[j];
        for (int s = 0; s < n; s++)
            if (t->node_of[s] == j)
                for (int k = 0; k < np; k++, r += block)
                    copy_block(at_member(t, dest, k) + (size_t)s * dblk, dst, r, 1, nelems, elem);
    }
    leader_release(t, e, rc, 0);
    free(sbuf);
    free(rbuf);
    free(cnt);
    free(dsp);
    return rc;
}

int nodeshm_coll_nodes_reduce(const char *call, nodeshm_team_t *t, MPI_Comm leaders, uint64_t e,
                              void *dest, const void *src, size_t count, size_t elem,
                              void (*fn)(void *out, const void *a, const void *b, size_t n),
                              MPI_Datatype dtype, MPI_Op op)
{
    if (t->node_my_pe != 0) return released_rc(peer_turn(t, e, 0, 0));
    leader_gather(t, e);
    int np = t->node_n_pes;
    size_t nbytes = count * elem;
    /* my node's sources in member order (out may be the first operand: dest == src is fine) */
    if (np == 1) {
        if (dest != src) memcpy(dest, src, nbytes);
    } else {
        fn(dest, src, at_member(t, src, 1), count);
        for (int k = 2; k < np; k++) fn(dest, dest, at_member(t, src, k), count);
    }
    int rc = nodeshm_coll_allreduce_inplace(call, dest, count, elem, dtype, op, leaders);
    for (int k = 1; !rc && k < np; k++) memcpy(at_member(t, dest, k), dest, nbytes);
    leader_release(t, e, rc, 0);
    return rc;
}

int nodeshm_coll_nodes_sync(const char *call, nodeshm_team_t *t, MPI_Comm leaders, uint64_t e)
{
    if (t->node_my_pe != 0) return released_rc(peer_turn(t, e, 0, 0));
    leader_gather(t, e);
    int rc = NODESHM_OK;
    if (MPI_Barrier(leaders) != MPI_SUCCESS)
        rc = nodeshm_coll_mpi_failed(call, "MPI_Barrier of the team's node leaders");
    leader_release(t, e, rc, 0);
    return rc;
}

/* The leader starts the leaders' MPI_Bcast as soon as the data is there (at once on other nodes,
 * after the root's arrival on the root's), so the network does not wait for the node's other
 * peers; then it waits for them and fills their dests from the root's source (root's node) or
 * its own dest. */
int nodeshm_coll_nodes_bcast(const char *call, nodeshm_team_t *t, MPI_Comm leaders, uint64_t e,
                             void *dest, const void *src, size_t nbytes, int root, int root_dest)
{
    if (t->node_my_pe != 0) return released_rc(peer_turn(t, e, 0, 0));
    int np = t->node_n_pes, root_node = t->node_of[root], root_local = -1, rc = NODESHM_OK;
    const char *from = dest;
    if (t->my_node == root_node) {
        root_local = 0;
        while (t->node_members[root_local] != root) root_local++;
        if (root_local) await(flag(t, root_local, ARRIVE_LINE), e + 1);
        from = at_member(t, src, root_local);
    }
    if (MPI_Bcast((void *)from, (int)nbytes, MPI_BYTE, root_node, leaders) != MPI_SUCCESS)
        rc = nodeshm_coll_mpi_failed(call, "MPI_Bcast between node leaders");
    leader_gather(t, e);
    for (int k = 0; !rc && k < np; k++) {
        if (root_local < 0 ? k == 0 /* my dest got it */
                           : k == root_local && (!root_dest || dest == src)) /* not written */
            continue;
        memcpy(k ? at_member(t, dest, k) : dest, from, nbytes);
    }
    leader_release(t, e, rc, 0);
    return rc;
}
