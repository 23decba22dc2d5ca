/* nodeshm core, OpenSHMEM team collectives: a team's turn as the publications of one call
 * (core/coll/publish.h), for the families written once in core/coll/ and the eager reduction.
 *
 * A member of a node with peers stages a copy of its contribution, in its small ring up to
 * coll_small_max() (small.c), else in its staging buffer of the turn (turns.c), and publishes it
 * with the entry's epoch or its turn line's arrive flag; readers find it there, and its owner
 * reads its own copy too (dest may be its source).  Alone on its node a member stages nothing:
 * nobody reads it.  The shared buffer is the last node member's staging buffer of the turn: it
 * holds the last member's own contribution when that was staged there, which nobody else reads
 * in the node families (a scan's member reads the contributions up to its own), so the last
 * member may overwrite it once it has its own prefix.  Its peers write and read it before their
 * done on the turn line, which the last member's next claim of the buffer waits for.  SHARED is
 * the turn line's reduced flag, otherwise unused on that line. */
#ifndef NODESHM_COLL_TEAM_PUBLISH_H
#define NODESHM_COLL_TEAM_PUBLISH_H

#include "core/coll/team/team_coll.h"

#include <stddef.h>
#include <string.h>

/* Inline, not a .c of its own: with the ops out of line the one-node eager reductions (16-512 B)
 * took 4-9% and the small scans 6-12% longer (MPICH, 4 PEs, quiet, 4 rounds A B / B A). */
typedef struct coll_pub {
    nodeshm_pub_t p;
    nodeshm_reduction_t r; /* fn on elem-byte elements; at: the contributions (core/coll/reduce.h) */
    nodeshm_team_t *t;
    coll_turn_t x;
    size_t nbytes;       /* of a contribution */
    int small;           /* contributions in the small ring, else in staging */
    const char *mine;    /* my staged copy; alone on my node, my source */
    /* the leaders' exchange (exscan), set by the caller that runs one: MPI_Exscan on `leaders`
     * with dtype and op (MPI_OP_NULL: r.fn as an MPI user op, coll_mpi_op); call names errors */
    const char *call;
    MPI_Comm leaders;
    MPI_Datatype dtype;
    MPI_Op op;
} coll_pub_t;
static inline const coll_pub_t *pub_of(const nodeshm_pub_t *p) { return (const coll_pub_t *)p; }

/* The reduction's at (core/coll/reduce.h): c->r sits at a fixed place in the coll_pub_t. */
static inline const char *pub_at(const nodeshm_reduction_t *r, int k)
{
    const coll_pub_t *c = (const coll_pub_t *)(const void *)((const char *)r - offsetof(coll_pub_t, r));
    if (k == c->p.me) return c->mine;
    return c->small ? coll_small_await(c->t, c->x, k) : coll_stage_of(c->t, k, c->x.b);
}

static inline void pub_post(nodeshm_pub_t *p, int what)
{
    coll_pub_t *c = (coll_pub_t *)p;
    if (what == NODESHM_PUB_SHARED) nodeshm_flag_store(&coll_my_line(c->t, LINE_TURN + c->x.b)->reduced, c->x.e);
    else if (p->n == 1) return; /* nothing staged: nobody reads it */
    else if (c->small) coll_small_publish(c->t, c->x);
    else coll_publish(c->t, c->x, c->nbytes, FROM_STAGE, 0);
}

static inline const char *pub_await(const nodeshm_pub_t *p, int k, int what)
{
    const coll_pub_t *c = pub_of(p);
    if (what == NODESHM_PUB_SHARED) {
        (void)nodeshm_flag_wait_ge(&coll_line(c->t, k, LINE_TURN + c->x.b)->reduced, c->x.e);
        return coll_stage_of(c->t, p->n - 1, c->x.b);
    }
    if (c->small) return coll_small_await(c->t, c->x, k);
    (void)coll_await_ready(c->t, c->x, k);
    return coll_stage_of(c->t, k, c->x.b);
}

static char *pub_shared(nodeshm_pub_t *p)
{
    coll_pub_t *c = (coll_pub_t *)p;
    int last = p->n - 1;
    /* the last member claims it, unless its contribution is staged there already */
    if (p->me == last && (c->small || p->n == 1)) return coll_stage_hold(c->t, c->x);
    return coll_stage_of(c->t, last, c->x.b);
}

static inline void pub_done(nodeshm_pub_t *p)
{
    const coll_pub_t *c = pub_of(p);
    if (c->small) coll_small_done(c->t, c->x);
    if (!c->small || p->n_nodes > 1) coll_mark_done(c->t, c->x); /* staging: mine, or the shared buffer */
}

static inline int pub_exscan(nodeshm_pub_t *p, void *buf, size_t count)
{
    const coll_pub_t *c = pub_of(p);
    MPI_Op op = c->op;
    int rc = coll_mpi_op(c->call, &op, c->r.fn);
    if (!rc && MPI_Exscan(MPI_IN_PLACE, buf, (int)count, c->dtype, op, c->leaders) != MPI_SUCCESS)
        rc = nodeshm_coll_mpi_failed(c->call, "MPI_Exscan between node leaders");
    return rc;
}

/* the ops on a coll_pub_t's p: a static const table, so that the callers in reduce.c and
 * scan.c call (and inline) these functions directly, not through pointers (broadcast's table,
 * bcast.c, has its own: its claim, await, pack, unpack and exchange) */
static const nodeshm_pub_ops_t coll_pub_ops = {.post = pub_post, .await = pub_await, .shared = pub_shared,
                                               .done = pub_done, .exscan = pub_exscan};

/* Stages my contribution (count elements of elem bytes at src) of turn x where my node peers
 * read it (nothing alone); fn: the kernel of c->r (NULL where nothing is reduced). */
static inline void coll_pub_begin(coll_pub_t *c, nodeshm_team_t *t, coll_turn_t x, const void *src, size_t count,
                    size_t elem, nodeshm_reduce_fn fn)
{
    int n = t->node_n_pes;
    size_t nbytes = count * elem;
    c->p = (nodeshm_pub_t){n, t->node_my_pe, t->n_nodes, t->my_node};
    c->r = (nodeshm_reduction_t){fn, NULL, pub_at, elem};
    c->t = t, c->x = x, c->nbytes = nbytes;
    c->small = n > 1 && nbytes <= coll_small_max();
    c->mine = src;
    if (n > 1) {
        char *copy = c->small ? coll_small_claim(t, x) : coll_stage_claim(t, x);
        memcpy(copy, src, nbytes);
        c->mine = copy;
    }
    c->call = NULL, c->leaders = MPI_COMM_NULL, c->dtype = MPI_DATATYPE_NULL, c->op = MPI_OP_NULL;
}

#endif
