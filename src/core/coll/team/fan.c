/* nodeshm core, OpenSHMEM team collectives: between nodes through the node leaders' fan-in and
 * fan-out, in which only the leaders call MPI (team_coll.h).
 *
 * Why: on emulated hosts (2 hosts x 2 PEs, MPICH over OFI tcp) fcollect went through three node
 * syncs around the leaders' MPI_Allgatherv (with a pack and an unpack), and alltoall through two
 * node syncs around an MPI_Alltoallv of the whole team: 0.11-0.5x and 0.15-0.6x of the MPI
 * library.  A node sync makes every member wait for every other, and where PEs outnumber cores
 * each of those waits costs a reschedule.  Here a collective is one fan-in and one fan-out per
 * node: each node peer says that it has arrived (its source is ready, its dest writable) on a
 * line of its own and waits for one line of its leader; the leader moves all of its node's data
 * in and out of its peers' symmetric buffers (mapped: coll_at_member), makes the node's one MPI
 * call with the other leaders, and releases its peers.  Node peers never call MPI.
 *
 * Flag lines (flags.h; values are epochs of the collective, coll_begin's base e): a member's
 * LINE_FAN, arrive = e + 1 with its collect size and source token, done = e + 3 once it copied a
 * collect from the leader's dest (the leader waits for that before it returns); the leader's
 * LINE_FAN_RELEASE, arrive = e + 2 with the status and, for a collect too large to push, the
 * bytes its peers copy from its dest. */
#include "core/coll/team/team_coll.h"

#include <limits.h>
#include <stdlib.h>

enum { FAN_SIZE = 0, FAN_TOKEN = 1 };  /* words of a member's LINE_FAN */
enum { FAN_RC = 0, FAN_PULL = 1 };     /* words of the leader's LINE_FAN_RELEASE */

/* A collect result up to this size is pushed by the leader into each peer's dest (the peers
 * wait for nothing else); larger ones the peers copy from the leader's dest, in parallel. */
#define PUSH_MAX ((size_t)64 << 10)

/* A node peer: arrives with (w1, w2), then waits for its leader; returns the release line. */
static const nodeshm_flag_line_t *peer_turn(const nodeshm_team_t *t, uint64_t e, uint64_t w1,
                                            uint64_t w2)
{
    nodeshm_flag_line_t *a = coll_my_line(t, LINE_FAN);
    a->word[FAN_SIZE] = w1;
    a->word[FAN_TOKEN] = w2;
    nodeshm_flag_store(&a->arrive, e + 1);
    const nodeshm_flag_line_t *r = coll_line(t, 0, LINE_FAN_RELEASE);
    (void)nodeshm_flag_wait_ge(&r->arrive, e + 2);
    return r;
}

static void leader_gather(const nodeshm_team_t *t, uint64_t e)
{
    (void)coll_peers_wait(t, LINE_FAN, NODESHM_FLAG_ARRIVE, e + 1);
}

static void leader_release(const nodeshm_team_t *t, uint64_t e, int rc, size_t pull)
{
    nodeshm_flag_line_t *r = coll_my_line(t, LINE_FAN_RELEASE);
    r->word[FAN_RC] = (uint64_t)(int64_t)rc;
    r->word[FAN_PULL] = pull;
    nodeshm_flag_store(&r->arrive, e + 2);
}

static inline int released_rc(const nodeshm_flag_line_t *r) { return (int)(int64_t)r->word[FAN_RC]; }

/* The leader: every member's size into sz[team index] (my node's from their arrive lines, the
 * others' by the leaders' MPI_Allgatherv; nodes are runs of the team). */
static int collect_sizes(const char *call, const nodeshm_team_t *t, MPI_Comm leaders,
                         size_t nbytes, uint64_t *sz, int *cnt, int *dsp)
{
    int first = t->node_members[0];
    for (int k = 0; k < t->node_n_pes; k++)
        sz[first + k] = k ? coll_line(t, k, LINE_FAN)->word[FAN_SIZE] : nbytes;
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
        const nodeshm_flag_line_t *r = peer_turn(t, e, nbytes, coll_source_token(src));
        int rc = released_rc(r);
        size_t pull = r->word[FAN_PULL];
        if (pull) {
            if (!rc) memcpy(dest, coll_at_member(t, dest, 0), pull);
            nodeshm_flag_store(&coll_my_line(t, LINE_FAN)->done, e + 3);
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
        rc = coll_check_sym(call, "dest", dest, off[n]);
        if (!rc && off[n] > INT_MAX) rc = nodeshm_coll_too_big(call, off[n]);
    }
    char *d = dest;
    for (int k = 0; !rc && k < np; k++) { /* my node's pieces, from the members' sources */
        size_t len = off[first + k + 1] - off[first + k];
        if (!len) continue;
        const char *s = k == 0 ? src
                        : fixed ? coll_at_member(t, src, k)
                                : coll_token_at_member(t, coll_line(t, k, LINE_FAN)->word[FAN_TOKEN], k);
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
        for (int k = 1; k < np; k++) memcpy(coll_at_member(t, dest, k), d, total);
    leader_release(t, e, rc, pull);
    if (pull) (void)coll_peers_wait(t, LINE_FAN, NODESHM_FLAG_DONE, e + 3);
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
            coll_copy_block(coll_at_member(t, dest, m) + (size_t)t->node_members[k] * dblk, dst,
                            coll_at_member(t, src, k) + (size_t)t->node_members[m] * sblk, sst, nelems, elem);
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
                    coll_copy_block(sbuf + p, 1, coll_at_member(t, src, k) + (size_t)m * sblk, sst, nelems, elem);
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
                    coll_copy_block(coll_at_member(t, dest, k) + (size_t)s * dblk, dst, r, 1, nelems, elem);
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
                              nodeshm_reduce_fn fn, MPI_Datatype dtype, MPI_Op op)
{
    if (t->node_my_pe != 0) return released_rc(peer_turn(t, e, 0, 0));
    leader_gather(t, e);
    int np = t->node_n_pes;
    size_t nbytes = count * elem;
    /* my node's sources in member order (out may be the first operand: dest == src is fine) */
    if (np == 1) {
        if (dest != src) memcpy(dest, src, nbytes);
    } else {
        fn(dest, src, coll_at_member(t, src, 1), count);
        for (int k = 2; k < np; k++) fn(dest, dest, coll_at_member(t, src, k), count);
    }
    int rc = nodeshm_coll_allreduce_inplace(call, dest, count, elem, dtype, op, fn, leaders);
    for (int k = 1; !rc && k < np; k++) memcpy(coll_at_member(t, dest, k), dest, nbytes);
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
        if (root_local) (void)nodeshm_flag_wait_ge(&coll_line(t, root_local, LINE_FAN)->arrive, e + 1);
        from = coll_at_member(t, src, root_local);
    }
    if (MPI_Bcast((void *)from, (int)nbytes, MPI_BYTE, root_node, leaders) != MPI_SUCCESS)
        rc = nodeshm_coll_mpi_failed(call, "MPI_Bcast between node leaders");
    leader_gather(t, e);
    for (int k = 0; !rc && k < np; k++) {
        if (root_local < 0 ? k == 0 /* my dest got it */
                           : k == root_local && (!root_dest || dest == src)) /* not written */
            continue;
        memcpy(k ? coll_at_member(t, dest, k) : dest, from, nbytes);
    }
    leader_release(t, e, rc, 0);
    return rc;
}
