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
 * exchange with the other leaders, and releases its peers.  Node peers never call MPI.
 * Broadcasts left for bcast.c: a fan-in per call kept every node in lockstep with its slowest
 * member.
 *
 * Flag lines (flags.h; values are epochs of the collective, coll_begin's base e): a member's
 * LINE_FAN, arrive = e + 1 with its collect size and source token, done = e + 3 once it copied a
 * collect from the leader's dest (the leader waits for that before it returns); the leader's
 * LINE_FAN_RELEASE, arrive = e + 2 with the status and, for a collect too large to push, the
 * bytes its peers copy from its dest.
 *
 * The peers sleep for the release (core/coll/bell.h: the release line's arrive and reduced words
 * are a bell) rather than yield until it comes: a peer cannot help while its leader is in MPI,
 * and where PEs outnumber cores its yields only took turns from the leaders (and Linux's EEVDF
 * scheduler, which penalizes each sched_yield, then ran the yielder late once released).  MPICH,
 * 2 emulated hosts x 2 on 2 cores, team_sync + 8 B sum_reduce, per call (medians, loaded
 * machine): release to peer awake 175 -> 19 us, leader's fan-in 334 -> 28 us, leaders' MPI part
 * 400 -> 132 us.  But on a quiet machine the sleeper's wake-up cost more than the leaders'
 * exchange: a peer first polls with yields for up to 50 us (core/wait.c: where and why). */
#include "core/coll/team/team_coll.h"
#include "core/coll/bell.h"

#include <limits.h>
#include <stdlib.h>

enum { FAN_SIZE = 0, FAN_TOKEN = 1 };  /* words of a member's LINE_FAN */
enum { FAN_RC = 0, FAN_PULL = 1 };     /* words of the leader's LINE_FAN_RELEASE */

/* A collect result up to this size is pushed by the leader into each peer's dest (the peers
 * wait for nothing else); larger ones the peers copy from the leader's dest, in parallel. */
#define PUSH_MAX ((size_t)64 << 10)

/* The leader's release line as a bell: arrive is its value, reduced (unused on that line) its
 * futex word and waiter count. */
_Static_assert(offsetof(nodeshm_flag_line_t, arrive) == offsetof(nodeshm_bell_t, value) &&
                   offsetof(nodeshm_flag_line_t, reduced) == offsetof(nodeshm_bell_t, rings) &&
                   sizeof(nodeshm_bell_t) <= offsetof(nodeshm_flag_line_t, done),
               "a flag line's arrive and reduced words hold a bell");

/* A node peer: arrives with (w1, w2), then sleeps until its leader releases it; returns the
 * release line. */
static const nodeshm_flag_line_t *peer_turn(const nodeshm_team_t *t, uint64_t e, uint64_t w1,
                                            uint64_t w2)
{
    nodeshm_flag_line_t *a = coll_my_line(t, LINE_FAN);
    a->word[FAN_SIZE] = w1;
    a->word[FAN_TOKEN] = w2;
    nodeshm_flag_store(&a->arrive, e + 1);
    const nodeshm_flag_line_t *r = coll_line(t, 0, LINE_FAN_RELEASE);
    const nodeshm_bells_t release = {(char *)(uintptr_t)r, 1};
    nodeshm_bells_wait_ge_yielding(&release, 0, 1, e + 2, nodeshm_release_yield_ns);
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
    nodeshm_bell_store((nodeshm_bell_t *)(void *)&r->arrive, e + 2); /* wakes sleeping peers */
}

static inline int released_rc(const nodeshm_flag_line_t *r) { return (int)(int64_t)r->word[FAN_RC]; }

/* collect (sizes differ), one round between nodes: each leader sends every other leader one
 * message, its node's sizes followed by its node's pieces, and each node's message is received
 * where it was expected: a receive per node posted before the sends, into a buffer that holds
 * any such message (a round of sizes first, an MPI_Allgatherv before the one of the data, made
 * collect 0.49-0.70x of MPI_Allgatherv at 2 hosts x 2 up to 4 KiB; probing for unexpected
 * messages, MPI_Improbe + MPI_Mrecv, cost 1.7 us a call more than MPI_Allgatherv at 2 hosts x 1
 * under MPICH, 0.81x).  The last member's size is left out: the receiver has it from the
 * message's length (the messages stay as short as MPI's own: MPICH over OFI tcp sends up to 128 B
 * as one inject, and an 8-byte header made a 128-byte collect at 2 hosts x 1 0.49x).  Where all
 * of a node's pieces have one size (collect used as fcollect, as codes often do) no size goes at
 * all (TAG_COLLECT_EQUAL: each is the length over the node's members): at 2 hosts x 2 the one
 * size left took a node's two 64-byte pieces past those 128 B (0.64x of MPI_Allgatherv).  A node's
 * pieces above COLLECT_INLINE_MAX in total go in a message of their own (TAG_COLLECT_DATA)
 * received straight into dest, after a head of all its sizes (TAG_COLLECT_HEAD; the last one
 * first).  Sizes and pieces in team order (nodes are runs of the team); off: every member's
 * offset in dest, off[n] the total; mysz and pieces: my node's members' (comm's ranks are node
 * numbers).  Only collect sends point-to-point messages on the leaders' communicator, one
 * collective at a time: a receive from node j with any tag takes j's next message of this call. */
enum { TAG_COLLECT = 1, TAG_COLLECT_DATA = 2, TAG_COLLECT_HEAD = 4, TAG_COLLECT_EQUAL = 8 };
#define COLLECT_INLINE_MAX ((size_t)64 << 10)

static int collect_exchange(const char *call, const nodeshm_team_t *t, MPI_Comm comm, char *d,
                            const uint64_t *mysz, const char *const *pieces, size_t *off)
{
    int n = t->n_pes, nn = t->n_nodes, np = t->node_n_pes, mine = t->my_node;
    int first = t->node_members[0], rc = NODESHM_OK, nsend = 0, ndata = 0;
    const size_t w = sizeof(uint64_t);
    uint64_t *sz = malloc(w * (size_t)n);
    size_t total = 0; /* my node's */
    for (int k = 0; sz && k < np; k++) total += sz[first + k] = mysz[k];
    int inl = total <= COLLECT_INLINE_MAX, equal = inl;
    for (int k = 1; equal && k < np; k++) equal = mysz[k] == mysz[0];
    /* msg: my last member's size, the others' in order, the pieces (inline: from the second word) */
    char *msg = malloc(w * (size_t)np + total), **in = calloc((size_t)nn, sizeof(char *));
    /* nn receives; then up to 2 sends and 1 data receive per node */
    MPI_Request *rreq = malloc(sizeof(MPI_Request) * 4 * (size_t)nn), *sreq = rreq + nn;
    MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)nn);
    if (!sz || !msg || !in || !rreq || !st)
        return nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory for %d PEs", n);
    if (total > INT_MAX) rc = nodeshm_coll_too_big(call, total);
    for (int j = 0; j < nn; j++) rreq[j] = MPI_REQUEST_NULL;
    for (int j = 0; !rc && j < nn; j++) { /* every other node's message, any of its forms */
        if (j == mine) continue;
        int lo = t->node_leader[j], hi = j + 1 < nn ? t->node_leader[j + 1] : n;
        size_t cap = w * (size_t)(hi - lo) + COLLECT_INLINE_MAX;
        if (!(in[j] = malloc(cap)))
            rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory");
        else if (MPI_Irecv(in[j], (int)cap, MPI_BYTE, j, MPI_ANY_TAG, comm, &rreq[j]) != MPI_SUCCESS)
            rc = nodeshm_coll_mpi_failed(call, "MPI_Irecv of a node's collect between leaders");
    }
    memcpy(msg, &sz[first + np - 1], w);
    memcpy(msg + w, sz + first, w * (size_t)(np - 1));
    size_t p = w * (size_t)np;
    for (int k = 0; !rc && k < np; p += sz[first + k], k++)
        if (sz[first + k]) memcpy(msg + p, pieces[k], sz[first + k]);
    for (int j = 0; !rc && j < nn; j++) {
        if (j == mine) continue;
        if ((equal ? MPI_Isend(msg + w * (size_t)np, (int)total, MPI_BYTE, j, TAG_COLLECT_EQUAL, comm,
                               &sreq[nsend++])
             : inl ? MPI_Isend(msg + w, (int)(w * (size_t)(np - 1) + total), MPI_BYTE, j, TAG_COLLECT,
                               comm, &sreq[nsend++])
                 : MPI_Isend(msg, (int)(w * (size_t)np), MPI_BYTE, j, TAG_COLLECT_HEAD, comm,
                             &sreq[nsend++])) != MPI_SUCCESS ||
            (!inl && MPI_Isend(msg + w * (size_t)np, (int)total, MPI_BYTE, j, TAG_COLLECT_DATA,
                               comm, &sreq[nsend++]) != MPI_SUCCESS))
            rc = nodeshm_coll_mpi_failed(call, "MPI_Isend of a node's collect between leaders");
    }
    nodeshm_waiter_t wt = NODESHM_WAITER_INIT;
    for (int done = 0; !rc && !done;) {
        if (MPI_Testall(nn, rreq, &done, st) != MPI_SUCCESS)
            rc = nodeshm_coll_mpi_failed(call, "MPI_Irecv of a node's collect between leaders");
        else if (!done)
            nodeshm_wait_step(&wt);
    }
    size_t *head = calloc((size_t)nn, sizeof(size_t)); /* where node j's pieces start in in[j] */
    if (!rc && !head) rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory");
    for (int j = 0; !rc && j < nn; j++) { /* every node's sizes */
        if (j == mine) continue;
        int lo = t->node_leader[j], hi = j + 1 < nn ? t->node_leader[j + 1] : n, len = 0;
        MPI_Get_count(&st[j], MPI_BYTE, &len);
        size_t known = w * (size_t)(hi - lo - 1), rest = (size_t)len, sum = 0;
        if (st[j].MPI_TAG == TAG_COLLECT_HEAD) {
            memcpy(&sz[hi - 1], in[j], w);
            memcpy(sz + lo, in[j] + w, known);
        } else if (st[j].MPI_TAG == TAG_COLLECT_EQUAL) {
            if (rest % (size_t)(hi - lo)) /* not one size for each of its members */
                rc = nodeshm_report(NODESHM_ERR_MPI, call, "node %d's collect message of equal pieces: "
                                    "%zu bytes for %d members", j, rest, hi - lo);
            for (int i = lo; i < hi; i++) sz[i] = rest / (size_t)(hi - lo);
        } else {
            memcpy(sz + lo, in[j], known);
            for (int i = lo; i < hi - 1; i++) sum += sz[i];
            if (rest < known + sum) /* a message that does not hold what its sizes say */
                rc = nodeshm_report(NODESHM_ERR_MPI, call, "node %d's collect message: %zu bytes "
                                    "for %zu of sizes and pieces", j, rest, known + sum);
            else
                sz[hi - 1] = rest - known - sum, head[j] = known;
        }
    }
    off[0] = 0;
    for (int i = 0; !rc && i < n; i++) off[i + 1] = off[i] + sz[i];
    if (!rc) rc = coll_check_sym(call, "dest", d, off[n]);
    if (!rc && off[n] > INT_MAX) rc = nodeshm_coll_too_big(call, off[n]);
    MPI_Request *dreq = sreq + nsend;
    for (int j = 0; !rc && j < nn; j++) { /* the pieces into place, large ones received there */
        int lo = t->node_leader[j], hi = j + 1 < nn ? t->node_leader[j + 1] : n;
        size_t len = off[hi] - off[lo];
        if (j == mine) {
            if (len) memcpy(d + off[lo], msg + w * (size_t)np, len);
        } else if (st[j].MPI_TAG != TAG_COLLECT_HEAD) {
            if (len) memcpy(d + off[lo], in[j] + head[j], len);
        } else if (MPI_Irecv(d + off[lo], (int)len, MPI_BYTE, j, TAG_COLLECT_DATA, comm,
                             &dreq[ndata++]) != MPI_SUCCESS) {
            rc = nodeshm_coll_mpi_failed(call, "MPI_Irecv between node leaders");
        }
    }
    if (!rc) rc = coll_leaders_waitall(call, nsend + ndata, sreq, "the collect messages between leaders");
    for (int j = 0; j < nn; j++) free(in[j]);
    free(in);
    free(head);
    free(st);
    if (!rc) free(msg), free(rreq); /* else MPI may still use them: left to the job's end */
    free(sz);
    return rc;
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
    int *cnt = malloc(sizeof(int) * (size_t)nn), *dsp = malloc(sizeof(int) * (size_t)nn);
    char *d = dest;
    if (!off || !cnt || !dsp)
        rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory for %d PEs", n);
    if (!rc && !fixed) { /* my node's sizes and pieces (a member with nothing may pass null) */
        uint64_t *sz = malloc(sizeof(uint64_t) * (size_t)np);
        const char **pc = malloc(sizeof(char *) * (size_t)np);
        if (!sz || !pc) rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory for %d PEs", n);
        for (int k = 0; !rc && k < np; k++) {
            const nodeshm_flag_line_t *a = coll_line(t, k, LINE_FAN);
            sz[k] = k ? a->word[FAN_SIZE] : nbytes;
            pc[k] = !sz[k] ? NULL : k ? coll_token_at_member(t, a->word[FAN_TOKEN], k) : src;
        }
        if (!rc) rc = collect_exchange(call, t, leaders, d, sz, pc, off);
        free(sz);
        free(pc);
    }
    if (!rc && fixed) { /* fcollect: every offset known, one MPI_Allgatherv in place */
        for (int i = 0; i <= n; i++) off[i] = (size_t)i * nbytes;
        rc = coll_check_sym(call, "dest", dest, off[n]);
        if (!rc && off[n] > INT_MAX) rc = nodeshm_coll_too_big(call, off[n]);
        for (int k = 0; !rc && k < np; k++) /* my node's pieces, from the members' sources */
            if (nbytes) memcpy(d + off[first + k], k ? coll_at_member(t, src, k) : src, nbytes);
        for (int j = 0; !rc && j < nn; j++) {
            int lo = t->node_leader[j], hi = j + 1 < nn ? t->node_leader[j + 1] : n;
            cnt[j] = (int)(off[hi] - off[lo]);
            dsp[j] = (int)off[lo];
        }
        if (!rc && MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, d, cnt, dsp, MPI_BYTE,
                                  leaders) != MPI_SUCCESS)
            rc = nodeshm_coll_mpi_failed(call, "MPI_Allgatherv between node leaders");
    }
    size_t total = rc ? 0 : off[n], pull = total > PUSH_MAX ? total : 0;
    if (total && !pull)
        for (int k = 1; k < np; k++) memcpy(coll_at_member(t, dest, k), d, total);
    leader_release(t, e, rc, pull);
    if (pull) (void)coll_peers_wait(t, LINE_FAN, NODESHM_FLAG_DONE, e + 3);
    free(off);
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
    coll_reduce_sources(t, dest, src, count, elem, fn); /* my node's, in member order */
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
