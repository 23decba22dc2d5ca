/* nodeshm core, OpenSHMEM team collectives: broadcast (coll.h).
 *
 * On one node, and between nodes up to NODESHM_COLL_NODES_BCAST_MAX, core/coll/bcast.h's
 * broadcast (written once for both faces: a publisher per node, the root on its node, the leader
 * elsewhere once the leaders' MPI_Bcast brought the data; its node peers copy it out, nobody
 * waiting for a reader) on this face's publications: the publisher's small-ring entry up to
 * coll_small_max(), else its staging of the turn; on one node above the eager size the root's
 * own source, which readers copy in place (rendezvous: the turn line says where, and the root
 * waits for their done after the call).  Between nodes under MPICH up to 16 KiB: MPI_Bcast over
 * the team, which won there (coll_nodes_bcast_by_library).  Larger: node members of the root's
 * node copy straight from the root's source; the root's node leader MPI_Bcasts from the root's
 * source (a local pointer) to the other leaders' dest; after a node sync their node peers copy
 * from their leader's dest (pipelined by chunks from 512 KiB). */
#include "core/coll/team/publish.h"
#include "core/coll/bcast.h"

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
 * follow its turn line's word (coll_data_of). */
#define BCAST_EAGER_CORES ((size_t)1024)
static size_t bcast_eager_max(void) { return coll_owner_waits_eager_max(BCAST_EAGER_CORES); }

/* The root's index among its node's members (node_members is in team order), on its node */
static int root_member(const nodeshm_team_t *t, int root)
{
    int k = 0;
    while (t->node_members[k] != root) k++;
    return k;
}

/* ---- this face's publications of a broadcast (core/coll/publish.h) ----------------------------- */
/* One call's publications (small: in the ring, else staged; call, leaders: the leaders'
 * exchange); alone on its node the publisher stages nothing (nobody reads it): the root
 * publishes its source, a leader receives straight into its dest. */
typedef struct bcast_pub {
    nodeshm_pub_t p;
    nodeshm_team_t *t;
    coll_turn_t x;
    size_t nbytes;
    void *dest;
    const void *src;
    int small;     /* the publication in the small ring, else staged (or the root's source) */
    int root, root_node; /* team index; node */
    int pub;       /* my node's publisher (node member) */
    uint64_t from; /* the root's publication on one node: FROM_STAGE, or FROM_SOURCE (rendezvous) */
    const char *call; /* the leaders' exchange: names errors */
    MPI_Comm leaders;
} bcast_pub_t;
static inline const bcast_pub_t *bcast_of(const nodeshm_pub_t *p) { return (const bcast_pub_t *)p; }

static inline char *bcast_claim(nodeshm_pub_t *p)
{
    const bcast_pub_t *b = bcast_of(p);
    nodeshm_team_t *t = b->t;
    if (p->n == 1) return t->my_pe == b->root ? (char *)b->src : b->dest;
    if (b->small) return coll_small_claim(t, b->x);
    return b->from == FROM_SOURCE ? (char *)b->src : coll_stage_claim(t, b->x);
}

static inline void bcast_post(nodeshm_pub_t *p, int what)
{
    const bcast_pub_t *b = bcast_of(p);
    (void)what; /* DATA: the publisher's */
    if (p->n == 1) return;
    if (b->small) coll_small_publish(b->t, b->x);
    else coll_publish(b->t, b->x, b->nbytes, b->from, 0);
}

/* Waits for node member k's publication; returns where it is */
static inline const char *bcast_await(const nodeshm_pub_t *p, int k, int what)
{
    const bcast_pub_t *b = bcast_of(p);
    (void)what; /* DATA: the publisher's */
    if (b->small) return coll_small_await(b->t, b->x, k);
    const nodeshm_flag_line_t *ready = coll_await_ready(b->t, b->x, k);
    return coll_data_of(b->t, b->x, ready, k, b->src);
}

static inline void bcast_pack(nodeshm_pub_t *p, char *to)
{
    const bcast_pub_t *b = bcast_of(p);
    if (to != b->src) memcpy(to, b->src, b->nbytes);
}

static inline void bcast_unpack(nodeshm_pub_t *p, int k, const char *from)
{
    (void)k; /* the publisher's: the whole dest */
    const bcast_pub_t *b = bcast_of(p);
    if (from != b->dest) memcpy(b->dest, from, b->nbytes);
}

/* The readers' done (the publisher reads nobody's) */
static inline void bcast_done(nodeshm_pub_t *p)
{
    const bcast_pub_t *b = bcast_of(p);
    if (p->me == b->pub) return;
    if (b->small) coll_small_done(b->t, b->x);
    else coll_mark_done(b->t, b->x);
}

static inline int bcast_leaders_call(nodeshm_pub_t *p, void *buf, size_t bytes)
{
    const bcast_pub_t *b = bcast_of(p);
    return bcast_bytes(b->call, buf, bytes, b->root_node, b->leaders);
}

static const nodeshm_pub_ops_t bcast_ops = {.post = bcast_post, .await = bcast_await, .done = bcast_done,
                                            .claim = bcast_claim, .pack = bcast_pack,
                                            .unpack = bcast_unpack, .bcast = bcast_leaders_call};

/* One node, or several up to NODESHM_COLL_NODES_BCAST_MAX (a staging buffer): core/coll/bcast.h.
 * Between nodes the publisher (the root on the root's node, the leader elsewhere) takes the data
 * straight into its small-ring entry or staging, the root's leader (when not the root) sending
 * it on from the root's entry first.  Nobody waits for a reader: a root or a leader runs ahead
 * of its node's readers (up to the ring's depth, or the staging turns' 4) as an MPI library's
 * eager sends let the root run ahead.  Between nodes it was a fan-in and fan-out per node
 * (fan.c), every call in lockstep with every node peer: 0.57-0.93x of MPI_Bcast up to 4 KiB at
 * 2 hosts x 2 and x 4 (MPICH), 0.19x at 8 B under Open MPI.  Inlined into both callers (out of
 * line, one-node broadcasts of 256 B-2 KiB took 1.2-1.5x main's time, Open MPI, 4 PEs, load 8).
 * Lean on purpose: over the scans' coll_pub_t (reduction, datatype and op fields, zeroed each
 * call) and with the ring entry looked up twice (await, then at), one-node 8-256 B broadcasts took
 * 1.15-1.18x the time of the former ten-line ring code (Open MPI, 4 PEs, quiet, 4 rounds A B B
 * A); with this struct and await returning the entry, 1.02-1.06x. */
static inline __attribute__((always_inline)) int bcast_published(const char *call, nodeshm_team_t *t,
                                                                   coll_turn_t x, MPI_Comm leaders, void *dest,
                                                                   const void *src, size_t nbytes, int root,
                                                                   int root_dest)
{
    /* on a one-node team node member k is team member k */
    int n = t->node_n_pes, root_node = t->node_of[root], i_root = t->my_pe == root;
    int root_k = t->n_nodes == 1 ? root : t->my_node == root_node ? root_member(t, root) : 0;
    bcast_pub_t b = {.p = {n, t->node_my_pe, t->n_nodes, t->my_node}, .t = t, .x = x, .nbytes = nbytes,
                     .dest = dest, .src = src, .small = n > 1 && nbytes <= coll_small_max(), .root = root,
                     .root_node = root_node, .pub = t->my_node == root_node ? root_k : 0, .call = call,
                     .leaders = leaders};
    /* the root decides, on one node only (between nodes NODESHM_COLL_NODES_BCAST_MAX is staged) */
    b.from = i_root && t->n_nodes == 1 && !b.small && nbytes > bcast_eager_max() ? FROM_SOURCE : FROM_STAGE;
    int rc = nodeshm_bcast(&bcast_ops, &b.p, root_node, root_k, 0, nbytes);
    if (i_root && root_dest && dest != src) memcpy(dest, src, nbytes);
    if (i_root && b.from == FROM_SOURCE) coll_await_done(t, x); /* the readers copied my source */
    return rc;
}

/* Several nodes, large messages: pipelined.  The leaders' MPI broadcast goes in chunks, and a
 * leader announces each chunk as it lands (LINE_PIPE, written only by the node's leader, node
 * member 0: pipe_mark(epoch, chunks landed), so it only grows), so its node copies chunk k while
 * chunk k+1 crosses between nodes instead of waiting for the whole message.  That needs cores
 * to spare and a network: on 2 cores (4 PEs in pseudo-nodes of 2, nodeshm-bench-coll, 5 runs)
 * nothing was measurable (median ratio to MPI_Bcast 1.14x -> 1.21x at 512 KiB, 1.14x -> 1.09x
 * at 1 MiB; runs spread +-25%). */
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
    uint64_t *progress = &coll_my_line(t, LINE_PIPE)->arrive;
    for (size_t off = 0, k = 1; off < nbytes; off += BCAST_PIPE_CHUNK, k++) {
        if (rc == NODESHM_OK) rc = bcast_bytes(call, (char *)buf + off, chunk_len(nbytes, off), root_node, leaders);
        /* even after an error (reported; the job ends): members must not wait forever */
        nodeshm_flag_store(progress, pipe_mark(e, k));
    }
    return rc;
}

int nodeshm_coll_broadcast(const char *call, nodeshm_team_t *t, void *dest, const void *src,
                           size_t nbytes, int root, int root_dest)
{
    if (root < 0 || root >= t->n_pes)
        return nodeshm_report(NODESHM_ERR_ARG, call, "invalid PE_root %d (the team has PEs 0 to %d)",
                              root, t->n_pes - 1);
    int rc = coll_check_sym(call, "dest", dest, nbytes);
    if (!rc) rc = coll_check_sym(call, "source", src, nbytes);
    if (rc) return rc;
    MPI_Comm leaders = MPI_COMM_NULL;
    if (t->n_nodes > 1 && (rc = nodeshm_coll_leaders(call, t, &leaders))) return rc;
    uint64_t e = coll_begin(t);
    coll_turn_t x = coll_turn_begin(t, e);
    if (t->n_nodes == 1) coll_path(COLL_BCAST, COLL_PATH_NODE);
    if (nbytes == 0 || t->n_pes == 1) {
        if (nbytes && dest != src && root_dest) memmove(dest, src, nbytes);
        return NODESHM_OK;
    }
    if (t->n_nodes == 1) return bcast_published(call, t, x, leaders, dest, src, nbytes, root, root_dest);
    /* Under MPICH, MPI_Bcast over the team (rank = team index) where MPICH's own broadcast beat
     * bcast_published (coll_nodes_bcast_by_library): 2 emulated hosts, quiet, nodeshm-bench-coll
     * bcast, ours / MPI_Bcast over the team / ours in turn, 2 rounds, medians of the ratio to
     * MPI_Bcast: 2 x 2 PEs 8-128 B 0.62-0.66x (the team's 0.84-0.97x), 256 B-4 KiB 0.90x
     * (0.97-0.98x), 8-16 KiB 0.77x (0.97x), 32-64 KiB 0.94-1.00x (0.90-0.97x); 2 x 4 PEs 8-128 B
     * 1.44-1.69x (0.96-0.97x), 256 B-4 KiB 0.91-0.93x (0.97-0.98x), 8-16 KiB 0.81-0.82x
     * (0.97-0.98x), 32-64 KiB 1.08-1.27x.  Open MPI keeps ours (2 x 2 1.02-1.98x, 2 x 4
     * 1.04-2.95x, against 0.91-1.02x). */
    if (coll_nodes_bcast_by_library(t, nbytes)) {
        coll_path(COLL_BCAST, COLL_PATH_LIBRARY);
        rc = bcast_bytes(call, t->my_pe == root ? (void *)src : dest, nbytes, root, t->comm);
        if (t->my_pe == root && root_dest && dest != src) memcpy(dest, src, nbytes);
        return rc;
    }
    coll_path(COLL_BCAST, COLL_PATH_LEADERS);
    if (nbytes <= NODESHM_COLL_NODES_BCAST_MAX)
        return bcast_published(call, t, x, leaders, dest, src, nbytes, root, root_dest);
    int root_node = t->node_of[root];
    int leader = t->node_leader[t->my_node] == t->my_pe;
    int pipelined = nbytes >= BCAST_PIPE_MIN;
    coll_node_sync(t, e + 1);
    if (t->my_node == root_node) {
        const char *rsrc = coll_at_member(t, src, root_member(t, root));
        if ((char *)dest != rsrc && (root_dest || t->my_pe != root)) memcpy(dest, rsrc, nbytes);
        if (leader) rc = bcast_leaders(call, t, e, (void *)rsrc, nbytes, root_node, leaders, pipelined);
    } else if (leader) {
        rc = bcast_leaders(call, t, e, dest, nbytes, root_node, leaders, pipelined);
        if (!pipelined) coll_node_sync(t, e + 2);
    } else if (pipelined) {
        const char *from = coll_at_member(t, dest, 0);
        const uint64_t *progress = &coll_line(t, 0, LINE_PIPE)->arrive;
        for (size_t off = 0, k = 1; off < nbytes; off += BCAST_PIPE_CHUNK, k++) {
            (void)nodeshm_flag_wait_ge(progress, pipe_mark(e, k));
            memcpy((char *)dest + off, from + off, chunk_len(nbytes, off));
        }
    } else {
        coll_node_sync(t, e + 2);
        memcpy(dest, coll_at_member(t, dest, 0), nbytes);
    }
    coll_node_sync(t, e + 3);
    return rc;
}
