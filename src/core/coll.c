/* nodeshm core: node-aware collectives (coll.h).
 *
 * Within a node every PE maps every node peer's symmetric memory, so the node members of a team
 * read each other's buffers directly (at_member gives the local pointer); between nodes the
 * team's node leaders (the first member of each node in team order) use MPI collectives on a
 * leaders communicator, made lazily per team by MPI_Comm_split of the team's communicator (rank
 * in it = team node number) and cached per team slot.
 *
 * One-node teams (every team on a single machine, and any team whose members share a
 * pseudo-node) use no node-wide synchronization at all, as shared-memory collectives in MPICH
 * and UCC do: flags holding sequence numbers, one writer per cache line, release store /
 * acquire load.  Every collective is a "turn" with an epoch (from the team's epoch counter,
 * which only grows, also across slot reuse: team.c) and a number b (the team's collective count
 * modulo NODESHM_COLL_STAGE_DEPTH, 4).  In the team slot of its control block each member has
 * ready[b] (epoch, size, and where its data is) and done[b] (the epoch whose peers' data it
 * has finished reading), and a staging buffer per b (runtime.h: stage[slot][b]).
 *   eager (contribution <= 64 KiB): the member copies its contribution into staging b,
 *     publishes ready[b] = epoch; readers copy out of peers' staging and publish done[b].  A
 *     member rewrites staging b only after every peer's done[b] reached its previous turn-b
 *     publication, i.e. four collectives ago, normally long finished (a broadcast root may run
 *     three collectives ahead of slow readers, which matters when PEs outnumber cores): latency
 *     is one cache-line handoff, and the source is free as soon as it is staged.
 *   rendezvous (larger): ready[b] says "read my source"; readers copy straight out of it and
 *     publish done[b]; the owner waits for every peer's done before it returns.
 *   small (a broadcast root's or a reduction member's contribution <= small_max(): ~0.5 KiB
 *     when PEs outnumber cores, 256 B otherwise):
 *     not by turns but in a 64-entry ring per member and team slot (runtime.h: small), the
 *     epoch and payload sharing a cache line, with one done epoch per member (see "small
 *     contributions" below): a root may run 63 collectives ahead of descheduled readers.
 * Dests are written only by their owner, so a member that returns early cannot disturb anyone,
 * and back-to-back collectives on the same or overlapping teams need nothing between them.  A
 * destroyed team first waits until its peers have read its staging (nodeshm_coll_team_retire),
 * so a later team may reuse the slot.
 *
 * broadcast  the root publishes (small ring, staged, or its source); the others copy and say
 *            done.
 * collect    every member publishes its size and piece; each pulls all pieces in team order.
 * alltoall(s) every member publishes its blocks (packed into staging, or its source); each pulls
 *            the block meant for it from every member.
 * reduce     <= 64 KiB: every member stages its source (small ring up to SMALL_MAX) and
 *            reduces all the staged contributions itself, in member order (so every PE rounds
 *            alike): no second phase.  Larger: the split below (node sync, each member
 *            reduces a slice into every dest, node sync).
 * scan       eager rounds of at most a staging buffer, each member reducing members 0..me
 *            (inclusive) or 0..me-1 (exclusive, zeros on member 0); several nodes: MPI_Scan /
 *            MPI_Exscan over the team's communicator, correct however members fall on nodes.
 *
 * Teams that span nodes keep the node-synchronized scheme: a dissemination barrier over the
 * team's members on my node only, using the team slot's scratch lines (line k of my control
 * block is written only by the node member 2^k below me, with a release store, and holds an
 * epoch); when PEs outnumber cores, an arrival count in the node leader's slot instead,
 * released by the last to arrive (each member waits once, for nobody in particular; the count
 * is back to 0 after every sync).  Each collective reserves a fixed number of epochs from the
 * team's epoch counter (the one team_sync uses), so every member's counter advances alike.
 * Such a collective syncs its node at entry (sources ready, dests writable) and at exit (dests
 * complete, nobody still reads a source or a leader's dest); the single-node reduce above the
 * eager size does too.
 *
 * broadcast  up to NODESHM_COLL_NODES_BCAST_MAX: coll_nodes.c (the leaders' MPI_Bcast from the
 *            root's source, each leader fills its node's dests, releases them).  Larger:
 *            node members of the root's node copy straight from the root's source; the root's
 *            node leader MPI_Bcasts from the root's source (a local pointer) to the other
 *            leaders' dest; after a node sync their node peers copy from their leader's dest.
 * team_sync  coll_nodes.c: members arrive, the leaders' MPI_Barrier, the leader releases them.
 * reduce     up to NODESHM_COLL_NODES_REDUCE_MAX: coll_nodes.c (the leader reduces its node's
 *            sources in member order, MPI_Allreduce in place with the other leaders, fills its
 *            peers' dests).  Larger:
 *            each node member reduces a contiguous, cache-line aligned slice of the array across
 *            all node peers' sources into the leader's dest (every core works, no root loop);
 *            single node: it also copies its slice into every peer's dest, and that is all;
 *            else node sync, leaders MPI_Allreduce(MPI_IN_PLACE) on dest, node sync, peers copy
 *            from the leader's dest.  In place is safe: slice i of every buffer is touched by
 *            member i only until the second sync.  Between nodes MPI's own op is used, except
 *            where the caller asks for its kernel as an MPI user op (8/16-bit sums and products:
 *            Open MPI's vector ops saturate instead of wrapping).
 * collect    nodes contiguous in team order: coll_nodes.c (peers arrive, the leader gathers
 *  fcollect  its node's pieces into its dest, MPI_Allgatherv in place with the other leaders,
 *            fills its peers' dests, releases them).  Otherwise: sizes MPI_Allgather'ed; every
 *            PE pulls its node peers' pieces into its own dest; leaders pack their node's pieces
 *            and MPI_Allgatherv the node blocks, unpack, node sync, peers copy the other nodes'
 *            pieces from their leader's dest.
 * alltoall(s) up to NODESHM_COLL_NODES_A2A_MAX of blocks per PE: coll_nodes.c (the leader
 *            moves its node's blocks, one MPI_Alltoallv of the leaders).  Larger: each PE pushes
 *            its blocks for node peers straight into their dest; blocks for other nodes go by
 *            one MPI_Alltoallv over the team (zero counts within the node; strided blocks
 *            packed).
 * scans      nodes contiguous in team order: each node scans its members through staging, its
 *            leader adds the node total to the leaders' MPI_Exscan, members combine the leader's
 *            result with their partials; else MPI_Scan / MPI_Exscan over the team. */
#include "core/coll.h"
#include "core/coll_nodes.h"
#include "core/env.h"
#include "core/status.h"
#include "core/tuning.h"
#include "core/wait.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* scratch lines of the team slot: node-sync rounds, and the counting node sync (arrival count
 * and release epoch, both in the node leader's slot); 16-23: ready and done flags below */
#define NODE_SYNC_LINES 16
#define ARRIVE_LINE 25
#define RELEASE_LINE 26
_Static_assert(RELEASE_LINE < NODESHM_TEAM_SCRATCH_LINES, "scratch lines");
#define EPOCHS_PER_COLL 4 /* node syncs a collective may do */

/* ---- node synchronization --------------------------------------------------------------------- */
static inline nodeshm_team_slot_t *peer_slot(const nodeshm_team_t *t, int node_member)
{
    return &nodeshm_ctrl_of(t->node_local[node_member])->team[t->slot];
}

static void node_sync(const nodeshm_team_t *t, uint64_t epoch)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    int n = t->node_n_pes;
    if (n == 1) return;
    nodeshm_team_slot_t *mine = nodeshm_team_slot(t);
    if (nodeshm_wait_oversubscribed) {
        /* PEs outnumber cores: count arrivals at the node leader; the last to arrive releases,
         * so nobody waits for one particular PE to be scheduled (as node_barrier.c does).  The
         * count is back to 0 after every sync; the release line holds the epoch. */
        nodeshm_team_slot_t *lead = peer_slot(t, 0);
        uint64_t *count = &lead->scratch[ARRIVE_LINE].word[0];
        uint64_t *release = &lead->scratch[RELEASE_LINE].word[0];
        if (__atomic_add_fetch(count, 1, __ATOMIC_ACQ_REL) == (uint64_t)n) {
            __atomic_store_n(count, 0, __ATOMIC_RELAXED);
            __atomic_store_n(release, epoch, __ATOMIC_RELEASE);
            return;
        }
        nodeshm_waiter_t w = NODESHM_WAITER_INIT;
        while (__atomic_load_n(release, __ATOMIC_ACQUIRE) < epoch) nodeshm_wait_step(&w);
        return;
    }
    for (int k = 0; (1L << k) < n; k++) {
        int partner = (int)(((long)t->node_my_pe + (1L << k)) % n);
        __atomic_store_n(&peer_slot(t, partner)->scratch[k].word[0], epoch, __ATOMIC_RELEASE);
        nodeshm_waiter_t w = NODESHM_WAITER_INIT;
        while (__atomic_load_n(&mine->scratch[k].word[0], __ATOMIC_ACQUIRE) < epoch)
            nodeshm_wait_step(&w);
    }
}

/* Reserves this collective's epochs: base + 1 .. base + EPOCHS_PER_COLL. */
static uint64_t coll_begin(nodeshm_team_t *t)
{
    uint64_t base = t->epoch;
    t->epoch += EPOCHS_PER_COLL;
    return base;
}

_Static_assert(NODE_SYNC_LINES >= 16, "node of up to 2^16 PEs");

/* ---- the leaders communicator, per team, made on first need --------------------------------- */
static struct leaders_cache {
    const nodeshm_team_t *team;
    MPI_Comm team_comm;
    char *heap; /* the runtime it was made in */
    MPI_Comm leaders;
} leaders_cache[NODESHM_TEAM_SLOTS];

int nodeshm_coll_leaders(const char *call, const nodeshm_team_t *t, MPI_Comm *out)
{
    struct leaders_cache *c = &leaders_cache[t->slot];
    char *heap = nodeshm_rt.seg[NODESHM_SEG_HEAP].base;
    if (c->team == t && c->team_comm == t->comm && c->heap == heap) {
        *out = c->leaders;
        return NODESHM_OK;
    }
    if (c->heap == heap && c->leaders != MPI_COMM_NULL) MPI_Comm_free(&c->leaders);
    c->team = NULL;
    int leader = t->node_leader[t->my_node] == t->my_pe;
    MPI_Comm comm = MPI_COMM_NULL;
    if (MPI_Comm_split(t->comm, leader ? 0 : MPI_UNDEFINED, t->my_pe, &comm) != MPI_SUCCESS)
        return nodeshm_report(NODESHM_ERR_MPI, call, "MPI_Comm_split for the team's node leaders failed");
    c->team = t;
    c->team_comm = t->comm;
    c->heap = heap;
    c->leaders = comm;
    *out = comm;
    return NODESHM_OK;
}

int nodeshm_coll_mpi_failed(const char *call, const char *what)
{
    return nodeshm_report(NODESHM_ERR_MPI, call, "%s failed", what);
}

int nodeshm_coll_too_big(const char *call, size_t bytes)
{
    return nodeshm_report(NODESHM_ERR_ARG, call, "%zu bytes between nodes: more than the %d an MPI "
                                                 "count can hold", bytes, INT_MAX);
}

/* ---- addresses ------------------------------------------------------------------------------------ */

/* ---- flags and staging within a node (one-node teams) --------------------------------------- */
/* Each member has, in this team's slot of its control block, READY_LINE + b (b = the
 * collective's number modulo the staging depth): the epoch of its latest publication in turn b,
 * with the contribution's size and where readers find it; and DONE_LINE + b: the epoch of the
 * latest turn-b collective whose peers' contributions it has finished reading.  One writer per
 * line, release store / acquire load, values only grow. */
#define DEPTH NODESHM_COLL_STAGE_DEPTH
#define READY_LINE NODE_SYNC_LINES        /* DEPTH lines */
#define DONE_LINE (NODE_SYNC_LINES + DEPTH) /* DEPTH lines */
_Static_assert(DONE_LINE + DEPTH <= ARRIVE_LINE, "scratch lines");
enum { FROM_STAGE = 1, FROM_SOURCE = 2 }; /* where a publication's data is */

/* Largest contribution that goes through staging (eager); above, peers read the owner's
 * source, and the owner waits for them before it returns (rendezvous).  Reductions stage up to
 * the whole buffer (EAGER_MAX: no second phase); broadcast, collect and alltoall only move data,
 * so their switch (NODESHM_COLL_EAGER_MAX, same on every PE) is where the extra copy starts to
 * cost more than the owner's wait: nodeshm-bench-coll, Open MPI 5, 2 PEs on 2 cores, ratio to
 * MPI at 8 KiB: eager 1.11-1.77x, rendezvous 4.1-5.9x; at 16 KiB 1.0-1.15x vs 2.8-6.1x. */
#define EAGER_MAX NODESHM_COLL_STAGE_BYTES
#define COPY_EAGER_DEFAULT ((size_t)4096)
static size_t copy_eager_max = COPY_EAGER_DEFAULT;
static int copy_eager_set; /* NODESHM_COLL_EAGER_MAX given (environment or tuning file): it
                           * holds for every collective */
/* Broadcast and alltoall when PEs outnumber cores (below) */
#define EAGER_OVERSUBSCRIBED ((size_t)16384)

/* The switch of a collective whose data owner waits for its readers above it (broadcast,
 * alltoall): NODESHM_COLL_EAGER_MAX when given; else 16 KiB when PEs outnumber cores (that wait
 * then costs context switches), `with_cores` otherwise. */
static size_t owner_waits_eager_max(size_t with_cores)
{
    if (copy_eager_set) return copy_eager_max;
    return nodeshm_wait_oversubscribed ? EAGER_OVERSUBSCRIBED : with_cores;
}

int nodeshm_coll_configure(void)
{
    size_t v;
    int rc = nodeshm_env_size("NODESHM_COLL_EAGER_MAX", COPY_EAGER_DEFAULT, &v);
    if (rc) return rc;
    if (v > NODESHM_COLL_STAGE_BYTES)
        return nodeshm_report(NODESHM_ERR_ENV, "shmem_init",
                              "invalid NODESHM_COLL_EAGER_MAX=%zu (at most %zu)", v,
                              (size_t)NODESHM_COLL_STAGE_BYTES);
    copy_eager_max = v;
    copy_eager_set = nodeshm_getenv("NODESHM_COLL_EAGER_MAX") != NULL; /* or the tuning file */
    return NODESHM_OK;
}

typedef struct turn {
    uint64_t e;   /* this collective's epoch */
    int b;        /* its turn: which staging buffer and flag lines */
    uint64_t seq; /* its number on the team (the same on every member): small broadcasts' entry */
} turn_t;

static turn_t turn_begin(nodeshm_team_t *t, uint64_t base)
{
    uint64_t seq = t->coll_seq++;
    return (turn_t){base + 1, (int)(seq % DEPTH), seq};
}

static inline uint64_t *line(const nodeshm_team_t *t, int node_member, int l)
{
    return &peer_slot(t, node_member)->scratch[l].word[0];
}

static inline char *stage_of(const nodeshm_team_t *t, int node_member, int b)
{
    return (char *)nodeshm_ctrl_of(t->node_local[node_member])->stage[t->slot][b];
}

/* Waits until every node peer has read my previous turn-b publication (normally long done),
 * so that my turn-b staging buffer may be rewritten; returns it. */
static char *stage_claim(nodeshm_team_t *t, turn_t x)
{
    uint64_t last = t->staged[x.b];
    for (int k = 0; last && k < t->node_n_pes; k++) {
        if (k == t->node_my_pe) continue;
        uint64_t *done = line(t, k, DONE_LINE + x.b);
        nodeshm_waiter_t w = NODESHM_WAITER_INIT;
        while (__atomic_load_n(done, __ATOMIC_ACQUIRE) < last) nodeshm_wait_step(&w);
    }
    return stage_of(t, t->node_my_pe, x.b);
}

static void publish(nodeshm_team_t *t, turn_t x, uint64_t size, uint64_t from)
{
    uint64_t *r = line(t, t->node_my_pe, READY_LINE + x.b);
    __atomic_store_n(&r[1], size, __ATOMIC_RELAXED);
    __atomic_store_n(&r[2], from, __ATOMIC_RELAXED);
    __atomic_store_n(&r[0], x.e, __ATOMIC_RELEASE);
    t->staged[x.b] = x.e;
}

/* Waits for node member k's publication of this turn; returns its ready line (size at [1],
 * FROM_* at [2]).  The value cannot run past x.e: k publishes again in turn b only after I
 * marked this one done. */
static const uint64_t *await_ready(const nodeshm_team_t *t, turn_t x, int k)
{
    uint64_t *r = line(t, k, READY_LINE + x.b);
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    while (__atomic_load_n(&r[0], __ATOMIC_ACQUIRE) < x.e) nodeshm_wait_step(&w);
    return r;
}

/* My reads of this turn's publications are over (release: they happen before). */
static void mark_done(const nodeshm_team_t *t, turn_t x)
{
    __atomic_store_n(line(t, t->node_my_pe, DONE_LINE + x.b), x.e, __ATOMIC_RELEASE);
}

/* A rendezvous owner: waits until every node peer has finished reading this turn's data. */
static void await_done(const nodeshm_team_t *t, turn_t x)
{
    for (int k = 0; k < t->node_n_pes; k++) {
        if (k == t->node_my_pe) continue;
        uint64_t *done = line(t, k, DONE_LINE + x.b);
        nodeshm_waiter_t w = NODESHM_WAITER_INIT;
        while (__atomic_load_n(done, __ATOMIC_ACQUIRE) < x.e) nodeshm_wait_step(&w);
    }
}

static void small_retire(nodeshm_team_t *t);

/* Before a team's slot is freed: waits until node peers are done with my staging and small-ring
 * entries, on every team with node peers (scans between nodes use them too), so that the slot's
 * next team starts from a clean ring. */
void nodeshm_coll_team_retire(nodeshm_team_t *t)
{
    if (t->node_n_pes < 2) return;
    for (int b = 0; b < DEPTH; b++) (void)stage_claim(t, (turn_t){0, b, 0});
    small_retire(t);
}

/* Local pointer to where node member k's turn data is: its staging or its copy of `src`. */
static inline const char *data_of(const nodeshm_team_t *t, turn_t x, const uint64_t *ready, int k,
                                  const void *src)
{
    return __atomic_load_n(&ready[2], __ATOMIC_RELAXED) == FROM_STAGE ? stage_of(t, k, x.b)
                                                                      : at_member(t, src, k);
}

/* ---- sync ------------------------------------------------------------------------------------------- */
int nodeshm_coll_sync(const char *call, nodeshm_team_t *t)
{
    /* stores (non-temporal ones included) before the sync are visible after it */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (t->n_pes == 1) return NODESHM_OK;
    if (t->n_nodes == 1) {
        /* the node sync: when PEs outnumber cores it counts arrivals and lets the last one
         * release (every member waits once, for nobody in particular, instead of once per round
         * for its partner) */
        node_sync(t, ++t->epoch);
        return NODESHM_OK;
    }
    /* Between nodes MPI carries it: the members arrive, the leaders' MPI_Barrier, the leader
     * releases its node (one fan-in and one fan-out; it was a node sync on each side).  A
     * dissemination over one-sided flags (an MPI accumulate per round between nodes) hung now
     * and then under Open MPI 5.0's osc/rdma over btl/sm: about 1 run in 300 of tests/coll_aset
     * in pseudo-node mode, with the origin in MPI_Accumulate (or MPI_Fetch_and_op, or with the
     * window's acc_single_intrinsic) for minutes while its target polled MPI. */
    MPI_Comm leaders;
    int rc = nodeshm_coll_leaders(call, t, &leaders); /* collective over the team on first need */
    if (rc) return rc;
    uint64_t e = t->epoch;
    t->epoch += 2;
    return nodeshm_coll_nodes_sync(call, t, leaders, e); /* leaders only: coll_nodes.c */
}

/* ---- small contributions: a deep ring ---------------------------------------------------------- */
/* Contributions of at most SMALL_MAX bytes on a one-node team (a broadcast root's, every
 * member's in a reduction or a scan round) do not take turns in the staging ring: a member
 * whose data others read would wait every DEPTH (4) collectives for the slowest reader, which
 * when PEs outnumber cores means a context switch or more per 4 calls (Open MPI's broadcast
 * root or MPI_Scan's first rank just leave eager messages in the receivers' queues and move
 * on).  Instead each member has, per team slot, SMALL_DEPTH entries (runtime.h:
 * small[slot][i]); collective number seq (turn_t) uses entry seq % SMALL_DEPTH of the
 * publishing member's ring.  Word 0 of an entry is the epoch of its owner's latest publication
 * there, the payload follows in the same cache line (one line handoff up to 48 bytes).  Each
 * member's SMALL_DONE_LINE holds the epoch of the latest small collective of the team whose
 * peers' contributions it has finished reading: members take the team's collectives in order,
 * so a peer whose done epoch reached an entry's previous epoch has read it (or had nothing to
 * read in it), and the owner may overwrite it; an owner waits only when it is SMALL_DEPTH
 * collectives ahead of a peer.  SMALL_KNOWN_LINE (mine, private in effect) remembers the lowest
 * done epoch of my peers I last saw, so the peers' lines are read about once per ring, not once
 * per call.  Readers wait once per contribution they need.  Retiring a team waits for the
 * peers' reads and clears the entry epochs, so that a later team in the slot (whose members may
 * not have been this one's) finds no previous publication to wait for. */
#define SMALL_DEPTH NODESHM_COLL_SMALL_DEPTH
#define SMALL_HEAD 16 /* bytes before the payload: the epoch, then padding (16: payload aligned
                       * for any element type) */
#define SMALL_MAX (NODESHM_COLL_SMALL_ENTRY - SMALL_HEAD)
/* The ring pays off by letting a member run ahead of descheduled readers.  When every PE has a
 * core it is no faster than the staging turns up to 256 B, and slower above (nodeshm-bench-coll,
 * MPICH 2 PEs, 3 runs: broadcast of 512 B 0.29-0.35 us against 0.17-0.21 us staged; sum_reduce
 * of 512 B 1.8-1.9x against 2.0-2.1x of MPI_Allreduce), so then it stops at 256 B.  All PEs
 * agree on nodeshm_wait_oversubscribed, hence on the path. */
#define SMALL_MAX_CORES ((size_t)256)
static inline size_t small_max(void) { return nodeshm_wait_oversubscribed ? SMALL_MAX : SMALL_MAX_CORES; }
#define SMALL_DONE_LINE 27
#define SMALL_KNOWN_LINE 28
_Static_assert(SMALL_DONE_LINE > RELEASE_LINE && SMALL_KNOWN_LINE < NODESHM_TEAM_SCRATCH_LINES - 3,
               "scratch lines");
_Static_assert(NODESHM_COLL_SMALL_ENTRY % 64 == 0, "entries are whole cache lines");

static inline uint64_t *small_entry(const nodeshm_team_t *t, int node_member, uint64_t seq)
{
    return (uint64_t *)(void *)nodeshm_ctrl_of(t->node_local[node_member])
        ->small[t->slot][seq % SMALL_DEPTH];
}

/* Waits until every node peer is done with the small collective of epoch `last` (0: none). */
static void small_await_peers(const nodeshm_team_t *t, uint64_t last)
{
    uint64_t *known = line(t, t->node_my_pe, SMALL_KNOWN_LINE);
    if (last <= *known) return;
    uint64_t low = UINT64_MAX;
    for (int k = 0; k < t->node_n_pes; k++) {
        if (k == t->node_my_pe) continue;
        const uint64_t *done = line(t, k, SMALL_DONE_LINE);
        nodeshm_waiter_t w = NODESHM_WAITER_INIT;
        uint64_t d;
        while ((d = __atomic_load_n(done, __ATOMIC_ACQUIRE)) < last) nodeshm_wait_step(&w);
        low = d < low ? d : low;
    }
    *known = low;
}

/* My entry for this collective, free to be rewritten. */
static char *small_claim(const nodeshm_team_t *t, turn_t x)
{
    uint64_t *entry = small_entry(t, t->node_my_pe, x.seq);
    small_await_peers(t, __atomic_load_n(entry, __ATOMIC_RELAXED));
    return (char *)entry + SMALL_HEAD;
}

static void small_publish(const nodeshm_team_t *t, turn_t x)
{
    __atomic_store_n(small_entry(t, t->node_my_pe, x.seq), x.e, __ATOMIC_RELEASE);
}

/* Waits for node member k's contribution to this collective; returns its payload. */
static const char *small_await(const nodeshm_team_t *t, turn_t x, int k)
{
    const uint64_t *entry = small_entry(t, k, x.seq);
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    while (__atomic_load_n(entry, __ATOMIC_ACQUIRE) < x.e) nodeshm_wait_step(&w);
    return (const char *)entry + SMALL_HEAD;
}

static void small_done(const nodeshm_team_t *t, turn_t x)
{
    __atomic_store_n(line(t, t->node_my_pe, SMALL_DONE_LINE), x.e, __ATOMIC_RELEASE);
}

/* One node, nbytes <= small_max(); node member k is team member k. */
static void bcast_small(nodeshm_team_t *t, turn_t x, void *dest, const void *src, size_t nbytes,
                        int root, int root_dest)
{
    if (t->my_pe == root) {
        memcpy(small_claim(t, x), src, nbytes);
        small_publish(t, x);
        if (root_dest && dest != src) memcpy(dest, src, nbytes);
        return;
    }
    memcpy(dest, small_await(t, x, root), nbytes);
    small_done(t, x);
}

static void small_retire(nodeshm_team_t *t)
{
    uint64_t last = 0;
    for (int i = 0; i < SMALL_DEPTH; i++) {
        uint64_t e = __atomic_load_n(small_entry(t, t->node_my_pe, (uint64_t)i), __ATOMIC_RELAXED);
        last = e > last ? e : last;
    }
    small_await_peers(t, last);
    for (int i = 0; i < SMALL_DEPTH; i++)
        __atomic_store_n(small_entry(t, t->node_my_pe, (uint64_t)i), 0, __ATOMIC_RELAXED);
    *line(t, t->node_my_pe, SMALL_KNOWN_LINE) = 0;
}

/* ---- broadcast -------------------------------------------------------------------------------------- */
static int bcast_bytes(const char *call, void *buf, size_t n, int root, MPI_Comm comm)
{
    const size_t chunk = (size_t)1 << 30;
    for (size_t off = 0; off < n; off += chunk) {
        size_t len = n - off < chunk ? n - off : chunk;
        if (MPI_Bcast((char *)buf + off, (int)len, MPI_BYTE, root, comm) != MPI_SUCCESS)
            return nodeshm_coll_mpi_failed(call, "MPI_Bcast between node leaders");
    }
    return NODESHM_OK;
}

/* A broadcast has one reader per peer of one source: when every PE has a core, the readers
 * copying straight from the root's source beats the root's extra copy into staging from 2 KiB
 * (nodeshm-bench-coll, 2 PEs on 2 cores, load ~14: 2-4 KiB MPICH 1.2-1.4x eager vs 2.0-2.5x
 * rendezvous, Open MPI 2.5-3.6x vs 3.9-5.6x); when PEs outnumber cores the root's wait for every
 * reader costs context switches, and eager stays better up to 16 KiB (4 PEs on 2 cores, ratio to
 * MPI_Bcast with the switch at 4 / 16 / 64 KiB, 2 runs: MPICH 8 KiB 1.8x / 6.8-7.7x / 2.6-4.9x,
 * 16 KiB 2.1-2.3x / 4.4-5.4x / 1.9-4.2x; Open MPI 8 KiB 2.1-2.2x / 6.0x / 4.7-6.1x, 16 KiB 2.2x /
 * 4.8-4.9x / 3.9-4.0x).  NODESHM_COLL_EAGER_MAX, when given, holds.  The root decides; readers
 * follow ready[b]. */
#define BCAST_EAGER_CORES ((size_t)1024)
static size_t bcast_eager_max(void) { return owner_waits_eager_max(BCAST_EAGER_CORES); }

/* One node: the root publishes (staged copy, or its source); the others copy it and say done.
 * On a one-node team node member k is team member k. */
static void bcast_node(nodeshm_team_t *t, turn_t x, void *dest, const void *src, size_t nbytes,
                       int root, int root_dest)
{
    if (t->my_pe == root) {
        int eager = nbytes <= bcast_eager_max();
        if (eager) memcpy(stage_claim(t, x), src, nbytes);
        publish(t, x, nbytes, eager ? FROM_STAGE : FROM_SOURCE);
        if (root_dest && dest != src) memcpy(dest, src, nbytes);
        if (!eager) await_done(t, x);
        return;
    }
    const uint64_t *r = await_ready(t, x, root);
    memcpy(dest, data_of(t, x, r, root, src), nbytes);
    mark_done(t, x);
}

/* Several nodes, large messages: pipelined.  The leaders' MPI broadcast goes in chunks, and a
 * leader announces each chunk as it lands (PIPE_LINE, written only by the node's leader, node
 * member 0: pipe_mark(epoch, chunks landed), so it only grows), so its node copies chunk k while
 * chunk k+1 crosses between nodes instead of waiting for the whole message.  That needs cores
 * to spare and a network: on 2 cores (4 PEs in pseudo-nodes of 2, nodeshm-bench-coll, 5 runs)
 * nothing was measurable (median ratio to MPI_Bcast 1.14x -> 1.21x at 512 KiB, 1.14x -> 1.09x
 * at 1 MiB; runs spread +-25%). */
#define PIPE_LINE 29
#define BCAST_PIPE_MIN ((size_t)512 * 1024)
#define BCAST_PIPE_CHUNK ((size_t)128 * 1024)
static inline uint64_t pipe_mark(uint64_t e, uint64_t chunks) { return (e + 2) << 24 | chunks; }
static inline size_t chunk_len(size_t nbytes, size_t off)
{
    return nbytes - off < BCAST_PIPE_CHUNK ? nbytes - off : BCAST_PIPE_CHUNK;
}

/* A leader: buf (nbytes) from the root node's leader to every leader, in chunks when pipelined
 * (announced to my node's members after each one). */
static int bcast_leaders(const char *call, const nodeshm_team_t *t, uint64_t e, void *buf,
                         size_t nbytes, int root_node, MPI_Comm leaders, int pipelined)
{
    if (!pipelined) return bcast_bytes(call, buf, nbytes, root_node, leaders);
    int rc = NODESHM_OK;
    uint64_t *progress = line(t, t->node_my_pe, PIPE_LINE);
    for (size_t off = 0, k = 1; off < nbytes; off += BCAST_PIPE_CHUNK, k++) {
        if (rc == NODESHM_OK) rc = bcast_bytes(call, (char *)buf + off, chunk_len(nbytes, off), root_node, leaders);
        /* even after an error (reported; the job ends): members must not wait forever */
        __atomic_store_n(progress, pipe_mark(e, k), __ATOMIC_RELEASE);
    }
    return rc;
}

int nodeshm_coll_broadcast(const char *call, nodeshm_team_t *t, void *dest, const void *src,
                           size_t nbytes, int root, int root_dest)
{
    if (root < 0 || root >= t->n_pes)
        return nodeshm_report(NODESHM_ERR_ARG, call, "invalid PE_root %d (the team has PEs 0 to %d)",
                              root, t->n_pes - 1);
    int rc = check_sym(call, "dest", dest, nbytes);
    if (!rc) rc = check_sym(call, "source", src, nbytes);
    if (rc) return rc;
    MPI_Comm leaders = MPI_COMM_NULL;
    if (t->n_nodes > 1 && (rc = nodeshm_coll_leaders(call, t, &leaders))) return rc;
    uint64_t e = coll_begin(t);
    turn_t x = turn_begin(t, e);
    if (nbytes == 0 || t->n_pes == 1) {
        if (nbytes && dest != src && root_dest) memmove(dest, src, nbytes);
        return NODESHM_OK;
    }
    if (t->n_nodes == 1) {
        if (nbytes <= small_max()) bcast_small(t, x, dest, src, nbytes, root, root_dest);
        else bcast_node(t, x, dest, src, nbytes, root, root_dest);
        return NODESHM_OK;
    }
    if (nbytes <= NODESHM_COLL_NODES_BCAST_MAX) /* leaders only: coll_nodes.c */
        return nodeshm_coll_nodes_bcast(call, t, leaders, e, dest, src, nbytes, root, root_dest);
    int root_node = t->node_of[root];
    int leader = t->node_leader[t->my_node] == t->my_pe;
    int pipelined = nbytes >= BCAST_PIPE_MIN;
    node_sync(t, e + 1);
    if (t->my_node == root_node) {
        int root_local = 0;
        while (t->node_members[root_local] != root) root_local++;
        const char *rsrc = at_member(t, src, root_local);
        if ((char *)dest != rsrc && (root_dest || t->my_pe != root)) memcpy(dest, rsrc, nbytes);
        if (leader) rc = bcast_leaders(call, t, e, (void *)rsrc, nbytes, root_node, leaders, pipelined);
    } else if (leader) {
        rc = bcast_leaders(call, t, e, dest, nbytes, root_node, leaders, pipelined);
        if (!pipelined) node_sync(t, e + 2);
    } else if (pipelined) {
        const char *from = at_member(t, dest, 0);
        const uint64_t *progress = line(t, 0, PIPE_LINE);
        for (size_t off = 0, k = 1; off < nbytes; off += BCAST_PIPE_CHUNK, k++) {
            nodeshm_waiter_t w = NODESHM_WAITER_INIT;
            while (__atomic_load_n(progress, __ATOMIC_ACQUIRE) < pipe_mark(e, k)) nodeshm_wait_step(&w);
            memcpy((char *)dest + off, from + off, chunk_len(nbytes, off));
        }
    } else {
        node_sync(t, e + 2);
        memcpy(dest, at_member(t, dest, 0), nbytes);
    }
    node_sync(t, e + 3);
    return rc;
}

/* ---- reductions ------------------------------------------------------------------------------------- */
/* MPI_OP_NULL asks for the library's own kernel between nodes too (an MPI user op): MPI
 * libraries may saturate instead of wrapping on 8- and 16-bit sums (Open MPI's AVX ops do), and
 * the result must not depend on where the PEs are. */
static _Thread_local nodeshm_reduce_fn user_fn;
static MPI_Op user_op = MPI_OP_NULL;
static char *user_op_heap;

static void user_op_apply(void *in, void *inout, int *len, MPI_Datatype *dtype)
{
    (void)dtype;
    user_fn(inout, inout, in, (size_t)*len);
}

/* op, or for MPI_OP_NULL our user op (made once per runtime) */
static int mpi_op(const char *call, MPI_Op *op)
{
    if (*op != MPI_OP_NULL) return NODESHM_OK;
    char *heap = nodeshm_rt.seg[NODESHM_SEG_HEAP].base;
    if (user_op == MPI_OP_NULL || user_op_heap != heap) {
        if (MPI_Op_create(user_op_apply, 1, &user_op) != MPI_SUCCESS)
            return nodeshm_coll_mpi_failed(call, "MPI_Op_create");
        user_op_heap = heap;
    }
    *op = user_op;
    return NODESHM_OK;
}

int nodeshm_coll_allreduce_inplace(const char *call, void *buf, size_t count, size_t elem,
                                   MPI_Datatype dtype, MPI_Op op, MPI_Comm comm)
{
    int rc = mpi_op(call, &op);
    if (rc) return rc;
    const size_t chunk = (size_t)1 << 28;
    for (size_t off = 0; off < count; off += chunk) {
        size_t len = count - off < chunk ? count - off : chunk;
        if (MPI_Allreduce(MPI_IN_PLACE, (char *)buf + off * elem, (int)len, dtype, op, comm) !=
            MPI_SUCCESS)
            return nodeshm_coll_mpi_failed(call, "MPI_Allreduce between node leaders");
    }
    return NODESHM_OK;
}

/* Reductions at most this big go through staging on a one-node team; above, the members split
 * the array (both measured with nodeshm-bench-coll). */
#define REDUCE_EAGER_MAX EAGER_MAX

/* Node member k's staged contribution to this reduction (waited for in the small ring; staged
 * ones were awaited before); `mine` is my own. */
static inline const char *contribution(const nodeshm_team_t *t, turn_t x, int k, int small,
                                       const char *mine)
{
    if (k == t->node_my_pe) return mine;
    return small ? small_await(t, x, k) : stage_of(t, k, x.b);
}

/* One node, eager: every member stages its source, then reduces node members first..last's
 * contributions itself, always in member order (the same rounding on every PE); last < first:
 * dest = zeros (exclusive scan on the first PE).  total, if not NULL, gets all the node's
 * contributions reduced (a leader's share of a scan between nodes).  No second phase: dest is
 * written only by its owner and sources are free once staged. */
static void reduce_node(nodeshm_team_t *t, turn_t x, void *dest, const void *src, size_t count,
                        size_t elem, nodeshm_reduce_fn fn, int first, int last, void *total)
{
    size_t nbytes = count * elem;
    int n = t->node_n_pes, small = nbytes <= small_max();
    const char *mine = small ? small_claim(t, x) : stage_claim(t, x);
    memcpy((char *)mine, src, nbytes);
    if (small) small_publish(t, x);
    else publish(t, x, nbytes, FROM_STAGE);
    /* every contribution from its staged copy, mine too (dest may be src); the total needs all */
    int lo = total ? 0 : first, hi = total ? n - 1 : last;
    if (!small)
        for (int k = lo; k <= hi; k++)
            if (k != t->node_my_pe) (void)await_ready(t, x, k);
    if (last < first) {
        memset(dest, 0, nbytes);
    } else if (last == first) {
        memcpy(dest, contribution(t, x, first, small, mine), nbytes);
    } else {
        fn(dest, contribution(t, x, first, small, mine), contribution(t, x, first + 1, small, mine),
           count);
        for (int k = first + 2; k <= last; k++) fn(dest, dest, contribution(t, x, k, small, mine), count);
    }
    if (total) {
        memcpy(total, contribution(t, x, 0, small, mine), nbytes);
        for (int k = 1; k < n; k++) fn(total, total, contribution(t, x, k, small, mine), count);
    }
    if (small) small_done(t, x);
    else mark_done(t, x);
}

/* Reduction and scan arguments: count * elem fits, both arrays symmetric, and either the same
 * array (in place) or disjoint. */
static int check_reduce_args(const char *call, const char *count_name, void *dest, const void *src,
                             size_t count, size_t elem)
{
    size_t nbytes = count * elem;
    if (elem && nbytes / elem != count)
        return nodeshm_report(NODESHM_ERR_ARG, call, "%s %zu is too large", count_name, count);
    int rc = check_sym(call, "dest", dest, nbytes);
    if (!rc) rc = check_sym(call, "source", src, nbytes);
    if (rc) return rc;
    if (nbytes && dest != src && (char *)dest < (const char *)src + nbytes &&
        (const char *)src < (char *)dest + nbytes)
        return nodeshm_report(NODESHM_ERR_ARG, call, "dest %p and source %p overlap without being "
                                                     "the same array", dest, src);
    return NODESHM_OK;
}

int nodeshm_coll_reduce(const char *call, nodeshm_team_t *t, void *dest, const void *src,
                        size_t count, size_t elem, nodeshm_reduce_fn fn, MPI_Datatype dtype,
                        MPI_Op op)
{
    size_t nbytes = count * elem;
    int rc = check_reduce_args(call, "nreduce", dest, src, count, elem);
    if (rc) return rc;
    MPI_Comm leaders = MPI_COMM_NULL;
    if (t->n_nodes > 1 && (rc = nodeshm_coll_leaders(call, t, &leaders))) return rc;
    uint64_t e = coll_begin(t);
    turn_t x = turn_begin(t, e);
    if (count == 0) return NODESHM_OK;
    if (t->n_nodes == 1 && t->n_pes > 1 && nbytes <= REDUCE_EAGER_MAX) {
        reduce_node(t, x, dest, src, count, elem, fn, 0, t->node_n_pes - 1, NULL);
        return NODESHM_OK;
    }
    if (t->n_nodes > 1 && nbytes <= NODESHM_COLL_NODES_REDUCE_MAX) { /* leaders only: coll_nodes.c */
        user_fn = fn;
        return nodeshm_coll_nodes_reduce(call, t, leaders, e, dest, src, count, elem, fn, dtype, op);
    }
    int n = t->node_n_pes, me = t->node_my_pe;
    int leader = me == 0;
    node_sync(t, e + 1);

    /* my slice [lo, hi): cache-line multiples, so no two members write one line */
    size_t per_line = elem < 64 ? 64 / elem : 1;
    size_t slice = (count + (size_t)n - 1) / (size_t)n;
    slice = (slice + per_line - 1) / per_line * per_line;
    size_t lo = slice * (size_t)me < count ? slice * (size_t)me : count;
    size_t hi = lo + slice < count ? lo + slice : count;
    char *out = at_member(t, dest, 0); /* the leader's dest */
    if (n == 1) {
        if (dest != src) memcpy(dest, src, nbytes);
    } else if (hi > lo) {
        /* blocks of ~8 KiB: the partial result stays in cache while the peers' sources stream */
        size_t blk = 8192 / elem ? 8192 / elem : 1;
        for (size_t b = lo; b < hi; b += blk) {
            size_t len = hi - b < blk ? hi - b : blk;
            char *o = out + b * elem;
            fn(o, at_member(t, src, 0) + b * elem, at_member(t, src, 1) + b * elem, len);
            for (int p = 2; p < n; p++) fn(o, o, at_member(t, src, p) + b * elem, len);
        }
        if (t->n_nodes == 1)
            for (int p = 1; p < n; p++)
                memcpy(at_member(t, dest, p) + lo * elem, out + lo * elem, (hi - lo) * elem);
    }
    if (t->n_nodes > 1) {
        node_sync(t, e + 2);
        user_fn = fn;
        if (leader) rc = nodeshm_coll_allreduce_inplace(call, dest, count, elem, dtype, op, leaders);
        node_sync(t, e + 3);
        if (!leader) memcpy(dest, out, nbytes);
    }
    node_sync(t, e + 4);
    return rc;
}

/* ---- scans ------------------------------------------------------------------------------------------ */
/* Several nodes: MPI_Scan / MPI_Exscan over the team's communicator (rank = team index), correct
 * however the members fall on nodes; the exclusive scan's first PE gets zeros (OpenSHMEM). */
static int scan_mpi(const char *call, nodeshm_team_t *t, void *dest, const void *src, size_t count,
                    size_t elem, nodeshm_reduce_fn fn, MPI_Datatype dtype, MPI_Op op, int exclusive)
{
    int rc = mpi_op(call, &op);
    if (rc) return rc;
    user_fn = fn;
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
        turn_t x = turn_begin(t, coll_begin(t));
        if (t->node_n_pes > 1)
            reduce_node(t, x, (char *)dest + off * elem, (const char *)src + off * elem, len, elem,
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
    (void)turn_begin(t, e);
    if (leader && !rc) {
        rc = mpi_op(call, &op);
        user_fn = fn;
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
        node_sync(t, e + 1);
        if (!leader) fn(dest, at_member(t, dest, 0), dest, count);
        node_sync(t, e + 2);
    }
    free(buf);
    return rc;
}

int nodeshm_coll_scan(const char *call, nodeshm_team_t *t, void *dest, const void *src,
                      size_t count, size_t elem, nodeshm_reduce_fn fn, MPI_Datatype dtype,
                      MPI_Op op, int exclusive)
{
    size_t nbytes = count * elem;
    int rc = check_reduce_args(call, "nelems", dest, src, count, elem);
    if (rc) return rc;
    if (t->n_nodes > 1) {
        if (count && nodes_in_blocks(t)) {
            MPI_Comm leaders = MPI_COMM_NULL;
            if ((rc = nodeshm_coll_leaders(call, t, &leaders))) return rc;
            return scan_nodes(call, t, leaders, dest, src, count, elem, fn, dtype, op, exclusive);
        }
        (void)turn_begin(t, coll_begin(t));
        return count ? scan_mpi(call, t, dest, src, count, elem, fn, dtype, op, exclusive) : NODESHM_OK;
    }
    if (count == 0 || t->n_pes == 1) {
        (void)turn_begin(t, coll_begin(t));
        if (nbytes && exclusive) memset(dest, 0, nbytes);
        else if (nbytes && dest != src) memcpy(dest, src, nbytes);
        return NODESHM_OK;
    }
    int me = t->node_my_pe;
    scan_rounds(t, dest, src, count, elem, fn, 0, exclusive ? me - 1 : me, NULL);
    return NODESHM_OK;
}

/* ---- collect / fcollect ------------------------------------------------------------------------------ */
/* One node: every member publishes its size and piece (staged, or its source when large), then
 * pulls every piece into its own dest; a member whose piece was read from its source waits for
 * the others' done before returning. */
static int collect_node(const char *call, nodeshm_team_t *t, turn_t x, void *dest, const void *src,
                        size_t nbytes)
{
    int n = t->node_n_pes, me = t->node_my_pe;
    int eager = nbytes <= copy_eager_max;
    if (eager && n > 1) { /* claimed even when empty: publish() below rewrites my ready line */
        char *st = stage_claim(t, x);
        if (nbytes) memcpy(st, src, nbytes);
    }
    /* word 3: where my source is, for readers whose own source is null (publish releases it) */
    __atomic_store_n(&line(t, me, READY_LINE + x.b)[3], source_token(src), __ATOMIC_RELAXED);
    publish(t, x, nbytes, eager ? FROM_STAGE : FROM_SOURCE);
    size_t total = 0;
    for (int k = 0; k < n; k++)
        total += k == me ? nbytes : __atomic_load_n(&await_ready(t, x, k)[1], __ATOMIC_RELAXED);
    int rc = check_sym(call, "dest", dest, total);
    size_t off = 0;
    for (int k = 0; !rc && k < n; k++) {
        const uint64_t *r = line(t, k, READY_LINE + x.b);
        size_t len = k == me ? nbytes : __atomic_load_n(&r[1], __ATOMIC_RELAXED);
        if (len && k == me) {
            memcpy((char *)dest + off, src, len);
        } else if (len) {
            int staged = __atomic_load_n(&r[2], __ATOMIC_RELAXED) == FROM_STAGE;
            memcpy((char *)dest + off,
                   staged ? stage_of(t, k, x.b)
                          : token_at_member(t, __atomic_load_n(&r[3], __ATOMIC_RELAXED), k),
                   len);
        }
        off += len;
    }
    mark_done(t, x);
    if (!eager) await_done(t, x);
    return rc;
}

int nodeshm_coll_collect(const char *call, nodeshm_team_t *t, void *dest, const void *src,
                         size_t nbytes, int fixed)
{
    int n = t->n_pes, rc = check_sym(call, "source", src, nbytes);
    if (rc) return rc;
    if (t->n_nodes == 1) return collect_node(call, t, turn_begin(t, coll_begin(t)), dest, src, nbytes);
    MPI_Comm leaders = MPI_COMM_NULL;
    if ((rc = nodeshm_coll_leaders(call, t, &leaders))) return rc;
    if (nodes_in_blocks(t)) { /* leaders only: coll_nodes.c */
        uint64_t e = coll_begin(t);
        (void)turn_begin(t, e);
        return nodeshm_coll_nodes_collect(call, t, leaders, e, dest, src, nbytes, fixed);
    }
    size_t *off = malloc(sizeof(size_t) * ((size_t)n + 1));
    if (!off) return nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory for %d PEs", n);
    uint64_t e = coll_begin(t);
    (void)turn_begin(t, e);
    /* sizes of all members -> off[i] (exclusive scan), off[n] = total; collect: with where
     * each member's source is (source_token), as a member with nothing to send may pass null */
    uint64_t *sizes = NULL;
    if (fixed) {
        for (int i = 0; i <= n; i++) off[i] = (size_t)i * nbytes;
    } else {
        uint64_t mine[2] = {nbytes, source_token(src)};
        sizes = malloc(sizeof(uint64_t) * 2 * (size_t)n);
        if (!sizes) {
            free(off);
            return nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory for %d PEs", n);
        }
        if (MPI_Allgather(mine, 2, MPI_UINT64_T, sizes, 2, MPI_UINT64_T, t->comm) != MPI_SUCCESS) {
            free(off);
            free(sizes);
            return nodeshm_coll_mpi_failed(call, "MPI_Allgather of the sizes");
        }
    }
    node_sync(t, e + 1);
    if (!fixed) {
        size_t sum = 0;
        for (int i = 0; i < n; i++) {
            off[i] = sum;
            sum += sizes[2 * i];
        }
        off[n] = sum;
    }
    rc = check_sym(call, "dest", dest, off[n]);
    char *d = dest;
    /* my node's pieces, pulled from the members' sources */
    for (int k = 0; !rc && k < t->node_n_pes; k++) {
        int i = t->node_members[k];
        if (off[i + 1] > off[i])
            memcpy(d + off[i], fixed ? at_member(t, src, k) : token_at_member(t, sizes[2 * i + 1], k),
                   off[i + 1] - off[i]);
    }
    int leader = t->node_my_pe == 0;
    int failed = rc != 0;
    if (t->n_nodes > 1) {
        if (leader && !rc) {
            /* node blocks: each node's pieces in team order, packed */
            int nn = t->n_nodes;
            int *counts = calloc((size_t)nn, sizeof(int)), *displs = calloc((size_t)nn, sizeof(int));
            size_t *tot = calloc((size_t)nn, sizeof(size_t));
            char *pack = NULL, *recv = NULL;
            if (!counts || !displs || !tot) rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory");
            for (int i = 0; !rc && i < n; i++) tot[t->node_of[i]] += off[i + 1] - off[i];
            if (!rc && off[n] > INT_MAX) rc = nodeshm_coll_too_big(call, off[n]);
            for (int j = 0, acc = 0; !rc && j < nn; j++) {
                counts[j] = (int)tot[j];
                displs[j] = acc;
                acc += counts[j];
            }
            if (!rc) {
                pack = malloc(tot[t->my_node] ? tot[t->my_node] : 1);
                recv = malloc(off[n] ? off[n] : 1);
                if (!pack || !recv) rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory");
            }
            if (!rc) {
                size_t p = 0;
                for (int i = 0; i < n; i++)
                    if (t->node_of[i] == t->my_node) {
                        if (off[i + 1] > off[i]) memcpy(pack + p, d + off[i], off[i + 1] - off[i]);
                        p += off[i + 1] - off[i];
                    }
                if (MPI_Allgatherv(pack, counts[t->my_node], MPI_BYTE, recv, counts, displs,
                                   MPI_BYTE, leaders) != MPI_SUCCESS)
                    rc = nodeshm_coll_mpi_failed(call, "MPI_Allgatherv between node leaders");
            }
            if (!rc) {
                size_t *pos = calloc((size_t)nn, sizeof(size_t));
                if (!pos) rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory");
                for (int i = 0; !rc && i < n; i++) {
                    int j = t->node_of[i];
                    size_t len = off[i + 1] - off[i];
                    if (j != t->my_node && len) memcpy(d + off[i], recv + displs[j] + pos[j], len);
                    pos[j] += len;
                }
                free(pos);
            }
            free(counts);
            free(displs);
            free(tot);
            free(pack);
            free(recv);
        }
        node_sync(t, e + 2);
        if (!leader && !failed) {
            const char *ld = at_member(t, dest, 0);
            for (int i = 0; i < n; i++)
                if (t->node_of[i] != t->my_node && off[i + 1] > off[i])
                    memcpy(d + off[i], ld + off[i], off[i + 1] - off[i]);
        }
    }
    node_sync(t, e + 3);
    free(off);
    free(sizes);
    return rc;
}

/* ---- alltoall(s) ------------------------------------------------------------------------------------- */

/* An alltoall's owner waits for every reader of its source, and when PEs outnumber cores that
 * wait costs context switches: then up to 16 KiB of blocks are staged (nodeshm-bench-coll, Open
 * MPI 5, 4 PEs on 2 cores, ratio to MPI_Alltoall with the switch at 4 / 16 / 64 KiB, 2 runs:
 * 2 KiB blocks 1.30-1.33x / 1.96-2.21x / 1.71-1.73x; 4 KiB 3.1x / 4.0-4.7x / 2.7x; 16 KiB
 * 3.4x / 2.8-3.9x / 1.4x), unless NODESHM_COLL_EAGER_MAX says otherwise. */
static size_t alltoall_eager_max(void) { return owner_waits_eager_max(COPY_EAGER_DEFAULT); }

/* One node: every member publishes its blocks (packed into staging, or its source when large)
 * and pulls the block meant for it from each member, starting with the next one (so that not
 * everybody reads member 0 first). */
static void alltoall_node(nodeshm_team_t *t, turn_t x, void *dest, const void *src, size_t dst,
                          size_t sst, size_t nelems, size_t elem)
{
    int n = t->node_n_pes, me = t->node_my_pe;
    size_t block = nelems * elem, sblk = nelems * sst * elem, dblk = nelems * dst * elem;
    int eager = (size_t)n * block <= alltoall_eager_max();
    if (eager) {
        char *st = stage_claim(t, x);
        for (int j = 0; j < n; j++)
            if (j != me)
                copy_block(st + (size_t)j * block, 1, (const char *)src + (size_t)j * sblk, sst,
                           nelems, elem);
    }
    publish(t, x, (uint64_t)n * block, eager ? FROM_STAGE : FROM_SOURCE);
    copy_block((char *)dest + (size_t)me * dblk, dst, (const char *)src + (size_t)me * sblk, sst,
               nelems, elem);
    for (int i = 1; i < n; i++) {
        int k = (me + i) % n;
        const uint64_t *r = await_ready(t, x, k);
        if (__atomic_load_n(&r[2], __ATOMIC_RELAXED) == FROM_STAGE)
            copy_block((char *)dest + (size_t)k * dblk, dst, stage_of(t, k, x.b) + (size_t)me * block,
                       1, nelems, elem);
        else
            copy_block((char *)dest + (size_t)k * dblk, dst, at_member(t, src, k) + (size_t)me * sblk,
                       sst, nelems, elem);
    }
    mark_done(t, x);
    if (!eager) await_done(t, x);
}

int nodeshm_coll_alltoalls(const char *call, nodeshm_team_t *t, void *dest, const void *src,
                           size_t dst, size_t sst, size_t nelems, size_t elem)
{
    int n = t->n_pes, me = t->my_pe;
    if (dst < 1 || sst < 1)
        return nodeshm_report(NODESHM_ERR_ARG, call, "invalid stride %zu (must be >= 1)",
                              dst < 1 ? dst : sst);
    size_t total = (size_t)n * nelems;
    size_t dext = total ? ((total - 1) * dst + 1) * elem : 0;
    size_t sext = total ? ((total - 1) * sst + 1) * elem : 0;
    int rc = check_sym(call, "dest", dest, dext);
    if (!rc) rc = check_sym(call, "source", src, sext);
    if (rc) return rc;
    uint64_t e = coll_begin(t);
    turn_t x = turn_begin(t, e);
    if (nelems == 0) return NODESHM_OK;
    if (t->n_nodes == 1) {
        alltoall_node(t, x, dest, src, dst, sst, nelems, elem);
        return NODESHM_OK;
    }
    size_t block = nelems * elem; /* bytes per PE pair */
    if ((size_t)n * block <= NODESHM_COLL_NODES_A2A_MAX) { /* leaders only: coll_nodes.c */
        MPI_Comm leaders = MPI_COMM_NULL;
        if ((rc = nodeshm_coll_leaders(call, t, &leaders))) return rc;
        return nodeshm_coll_nodes_alltoall(call, t, leaders, e, dest, src, dst, sst, nelems, elem);
    }
    node_sync(t, e + 1);
    for (int k = 0; k < t->node_n_pes; k++) {
        int j = t->node_members[k];
        copy_block(at_member(t, dest, k) + (size_t)me * nelems * dst * elem, dst,
                   (const char *)src + (size_t)j * nelems * sst * elem, sst, nelems, elem);
    }
    if (t->n_nodes > 1) {
        int *cnt = calloc((size_t)n, sizeof(int)), *sd = calloc((size_t)n, sizeof(int));
        int *rcnt = calloc((size_t)n, sizeof(int)), *rd = calloc((size_t)n, sizeof(int));
        int contig = dst == 1 && sst == 1;
        int remote = n - t->node_n_pes;
        char *sbuf = NULL, *rbuf = NULL;
        if (!cnt || !sd || !rcnt || !rd) rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory");
        if (!rc && (contig ? (size_t)n : (size_t)remote) * block > INT_MAX)
            rc = nodeshm_coll_too_big(call, (size_t)n * block);
        if (!rc && !contig) {
            sbuf = malloc((size_t)remote * block);
            rbuf = malloc((size_t)remote * block);
            if (!sbuf || !rbuf) rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory");
        }
        if (!rc) {
            for (int j = 0, p = 0; j < n; j++) {
                if (t->node_of[j] == t->my_node) continue;
                cnt[j] = rcnt[j] = (int)block;
                sd[j] = rd[j] = contig ? (int)((size_t)j * block) : (int)((size_t)p * block);
                if (!contig)
                    copy_block(sbuf + (size_t)p * block, 1,
                               (const char *)src + (size_t)j * nelems * sst * elem, sst, nelems, elem);
                p++;
            }
            if (MPI_Alltoallv(contig ? src : sbuf, cnt, sd, MPI_BYTE, contig ? dest : rbuf, rcnt,
                              rd, MPI_BYTE, t->comm) != MPI_SUCCESS)
                rc = nodeshm_coll_mpi_failed(call, "MPI_Alltoallv between nodes");
        }
        if (!rc && !contig)
            for (int j = 0, p = 0; j < n; j++) {
                if (t->node_of[j] == t->my_node) continue;
                copy_block((char *)dest + (size_t)j * nelems * dst * elem, dst,
                           rbuf + (size_t)p * block, 1, nelems, elem);
                p++;
            }
        free(cnt);
        free(sd);
        free(rcnt);
        free(rd);
        free(sbuf);
        free(rbuf);
    }
    node_sync(t, e + 2);
    return rc;
}
