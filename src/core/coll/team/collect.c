/* nodeshm core, OpenSHMEM team collectives: collect and fcollect (coll.h).
 *
 * One node: core/coll/collect.h's collect (written once for both faces: every member publishes
 * its piece, each copies all pieces in team order) on this face's publications (below: staging,
 * or the member's source when large, its size on its turn line).  Several nodes, contiguous in
 * team order: fan.c (peers arrive, the leader exchanges its node's sizes and pieces with the
 * other leaders in one round, or for fcollect MPI_Allgatherv in place, fills its peers' dests,
 * releases them).  Otherwise: sizes
 * MPI_Allgather'ed; every PE pulls its node peers' pieces into its own dest; leaders pack their
 * node's pieces and MPI_Allgatherv the node blocks, unpack, node sync, peers copy the other nodes'
 * pieces from their leader's dest. */
#include "core/coll/team/team_coll.h"
#include "core/coll/collect.h"

#include <limits.h>
#include <stdlib.h>

/* ---- this face's publications of a one-node collect (core/coll/publish.h) ----------------------- */
/* Each member stages its piece in its staging buffer of the turn, or above coll_copy_eager_max()
 * publishes its source, which readers copy in place (rendezvous: it waits for their done after
 * the call); its turn line says its size, where the piece is (FROM_*) and, for a source, the
 * source's token (a reader's own source may be null: collect's members with nothing to send).
 * dest gets the pieces in member order (on a one-node team node member k is team member k). */
typedef struct collect_pub {
    nodeshm_pub_t p;
    nodeshm_team_t *t;
    coll_turn_t x;
    char *dest;
    const void *src;
    size_t nbytes;    /* mine; fcollect: everyone's */
    size_t off;       /* collect: where the next piece goes in dest */
    uint64_t from;    /* mine: FROM_STAGE, or FROM_SOURCE (rendezvous) */
    const char *call; /* names errors */
} collect_pub_t;
static inline collect_pub_t *collect_of(nodeshm_pub_t *p) { return (collect_pub_t *)p; }

static inline char *collect_claim(nodeshm_pub_t *p)
{
    collect_pub_t *c = collect_of(p);
    if (c->from == FROM_SOURCE || p->n == 1 || !c->nbytes) return (char *)c->src; /* nothing staged */
    return coll_stage_claim(c->t, c->x);
}

static inline void collect_pack(nodeshm_pub_t *p, char *to)
{
    const collect_pub_t *c = collect_of(p);
    if (to != c->src) memcpy(to, c->src, c->nbytes);
}

static inline void collect_post(nodeshm_pub_t *p, int what)
{
    const collect_pub_t *c = collect_of(p);
    (void)what; /* DATA: my piece */
    coll_publish(c->t, c->x, c->nbytes, c->from, c->from == FROM_SOURCE ? coll_source_token(c->src) : 0);
}

/* Waits for node member k's piece; returns where it is */
static inline const char *collect_await(const nodeshm_pub_t *p, int k, int what)
{
    const collect_pub_t *c = (const collect_pub_t *)p;
    (void)what;
    const nodeshm_flag_line_t *r = coll_await_ready(c->t, c->x, k);
    return r->word[TURN_FROM] == FROM_STAGE ? coll_stage_of(c->t, k, c->x.b)
                                            : coll_token_at_member(c->t, r->word[TURN_TOKEN], k);
}

/* collect: member k's size comes with its piece (awaited); fcollect: mine is everyone's */
static inline size_t collect_size(nodeshm_pub_t *p, int k)
{
    const collect_pub_t *c = collect_of(p);
    return k == p->me ? c->nbytes : coll_await_ready(c->t, c->x, k)->word[TURN_SIZE];
}
static inline size_t fcollect_size(nodeshm_pub_t *p, int k)
{
    (void)k;
    return collect_of(p)->nbytes;
}

static inline int collect_check(nodeshm_pub_t *p, size_t total)
{
    const collect_pub_t *c = collect_of(p);
    return coll_check_sym(c->call, "dest", c->dest, total);
}

/* Piece k into dest: collect's after the pieces before it (k's line was awaited: its size is
 * there), fcollect's at k * nbytes.  My own piece from my source, not from my staging: my peers
 * pull its lines into their caches as I copy, and copying it back took a one-node collect of
 * 2 PEs from 0.11 to 0.13 us at 8 B and from 0.30 to 0.45 us at 4 KiB (Open MPI, quiet). */
static inline void collect_unpack(nodeshm_pub_t *p, int k, const char *from)
{
    collect_pub_t *c = collect_of(p);
    size_t len = k == p->me ? c->nbytes : coll_line(c->t, k, LINE_TURN + c->x.b)->word[TURN_SIZE];
    if (len) memcpy(c->dest + c->off, k == p->me ? c->src : from, len);
    c->off += len;
}
static inline void fcollect_unpack(nodeshm_pub_t *p, int k, const char *from)
{
    const collect_pub_t *c = collect_of(p);
    if (c->nbytes) memcpy(c->dest + (size_t)k * c->nbytes, k == p->me ? c->src : from, c->nbytes);
}

static inline void collect_done(nodeshm_pub_t *p)
{
    const collect_pub_t *c = collect_of(p);
    coll_mark_done(c->t, c->x);
}

static const nodeshm_pub_ops_t collect_ops = {.post = collect_post, .await = collect_await, .done = collect_done,
                                              .claim = collect_claim, .pack = collect_pack,
                                              .unpack = collect_unpack, .size = collect_size,
                                              .check = collect_check};
static const nodeshm_pub_ops_t fcollect_ops = {.post = collect_post, .await = collect_await, .done = collect_done,
                                               .claim = collect_claim, .pack = collect_pack,
                                               .unpack = fcollect_unpack, .size = fcollect_size,
                                               .check = collect_check, .from_me = 1};

/* One node: core/coll/collect.h.  A member whose piece was read from its source waits for the
 * others' done before returning. */
static int collect_node(const char *call, nodeshm_team_t *t, coll_turn_t x, void *dest, const void *src,
                        size_t nbytes, int fixed)
{
    collect_pub_t c = {.p = {t->node_n_pes, t->node_my_pe, 1, 0}, .t = t, .x = x, .dest = dest, .src = src,
                       .nbytes = nbytes, .from = nbytes <= coll_copy_eager_max() ? FROM_STAGE : FROM_SOURCE,
                       .call = call};
    int rc = fixed ? nodeshm_collect(&fcollect_ops, &c.p) : nodeshm_collect(&collect_ops, &c.p);
    if (c.from == FROM_SOURCE) coll_await_done(t, x); /* the readers copied my source */
    return rc;
}

int nodeshm_coll_collect(const char *call, nodeshm_team_t *t, void *dest, const void *src,
                         size_t nbytes, int fixed)
{
    int n = t->n_pes, rc = coll_check_sym(call, "source", src, nbytes);
    if (rc) return rc;
    const int family = fixed ? COLL_FCOLLECT : COLL_COLLECT;
    if (t->n_nodes == 1) {
        coll_path(family, COLL_PATH_NODE);
        return collect_node(call, t, coll_turn_begin(t, coll_begin(t)), dest, src, nbytes, fixed);
    }
    MPI_Comm leaders = MPI_COMM_NULL;
    if ((rc = nodeshm_coll_leaders(call, t, &leaders))) return rc;
    int by_library = fixed && nbytes <= NODESHM_COLL_NODES_LIBRARY_MAX && coll_nodes_library_wins(t);
    coll_path(family, by_library ? COLL_PATH_LIBRARY : COLL_PATH_LEADERS);
    if (by_library) {
        if ((rc = coll_check_sym(call, "dest", dest, (size_t)n * nbytes))) return rc;
        char *mine = (char *)dest + (size_t)t->my_pe * nbytes;
        if (mine != src) memmove(mine, src, nbytes);
        if (MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, dest, (int)nbytes, MPI_BYTE, t->comm) !=
            MPI_SUCCESS)
            return nodeshm_coll_mpi_failed(call, "MPI_Allgather over the team");
        return NODESHM_OK;
    }
    if (coll_nodes_in_blocks(t)) { /* leaders only: fan.c */
        uint64_t e = coll_begin(t);
        (void)coll_turn_begin(t, e);
        return nodeshm_coll_nodes_collect(call, t, leaders, e, dest, src, nbytes, fixed);
    }
    size_t *off = malloc(sizeof(size_t) * ((size_t)n + 1));
    if (!off) return nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory for %d PEs", n);
    uint64_t e = coll_begin(t);
    (void)coll_turn_begin(t, e);
    /* sizes of all members -> off[i] (exclusive scan), off[n] = total; collect: with where
     * each member's source is (source_token), as a member with nothing to send may pass null */
    uint64_t *sizes = NULL;
    if (fixed) {
        for (int i = 0; i <= n; i++) off[i] = (size_t)i * nbytes;
    } else {
        uint64_t mine[2] = {nbytes, coll_source_token(src)};
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
    coll_node_sync(t, e + 1);
    if (!fixed) {
        size_t sum = 0;
        for (int i = 0; i < n; i++) {
            off[i] = sum;
            sum += sizes[2 * i];
        }
        off[n] = sum;
    }
    rc = coll_check_sym(call, "dest", dest, off[n]);
    char *d = dest;
    /* my node's pieces, pulled from the members' sources */
    for (int k = 0; !rc && k < t->node_n_pes; k++) {
        int i = t->node_members[k];
        if (off[i + 1] > off[i])
            memcpy(d + off[i], fixed ? coll_at_member(t, src, k) : coll_token_at_member(t, sizes[2 * i + 1], k),
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
        coll_node_sync(t, e + 2);
        if (!leader && !failed) {
            const char *ld = coll_at_member(t, dest, 0);
            for (int i = 0; i < n; i++)
                if (t->node_of[i] != t->my_node && off[i + 1] > off[i])
                    memcpy(d + off[i], ld + off[i], off[i + 1] - off[i]);
        }
    }
    coll_node_sync(t, e + 3);
    free(off);
    free(sizes);
    return rc;
}
