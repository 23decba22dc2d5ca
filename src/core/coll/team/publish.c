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
#include "core/coll/team/team_coll.h"

#include <stddef.h>

static inline const coll_pub_t *pub_of(const nodeshm_pub_t *p) { return (const coll_pub_t *)p; }

/* The reduction's at (core/coll/reduce.h): c->r sits at a fixed place in the coll_pub_t. */
static const char *pub_at(const nodeshm_reduction_t *r, int k)
{
    const coll_pub_t *c = (const coll_pub_t *)(const void *)((const char *)r - offsetof(coll_pub_t, r));
    if (k == c->p.me) return c->mine;
    return c->small ? coll_small_await(c->t, c->x, k) : coll_stage_of(c->t, k, c->x.b);
}

static void pub_post(nodeshm_pub_t *p, int what)
{
    coll_pub_t *c = (coll_pub_t *)p;
    if (what == NODESHM_PUB_SHARED) nodeshm_flag_store(&coll_my_line(c->t, LINE_TURN + c->x.b)->reduced, c->x.e);
    else if (p->n == 1) return; /* nothing staged: nobody reads it */
    else if (c->small) coll_small_publish(c->t, c->x);
    else coll_publish(c->t, c->x, c->nbytes, FROM_STAGE, 0);
}

static void pub_await(const nodeshm_pub_t *p, int k, int what)
{
    const coll_pub_t *c = pub_of(p);
    if (what == NODESHM_PUB_SHARED)
        (void)nodeshm_flag_wait_ge(&coll_line(c->t, k, LINE_TURN + c->x.b)->reduced, c->x.e);
    else if (c->small) (void)coll_small_await(c->t, c->x, k);
    else (void)coll_await_ready(c->t, c->x, k);
}

static char *pub_shared(nodeshm_pub_t *p)
{
    coll_pub_t *c = (coll_pub_t *)p;
    int last = p->n - 1;
    /* the last member claims it, unless its contribution is staged there already */
    if (p->me == last && (c->small || p->n == 1)) return coll_stage_hold(c->t, c->x);
    return coll_stage_of(c->t, last, c->x.b);
}

static void pub_done(nodeshm_pub_t *p)
{
    const coll_pub_t *c = pub_of(p);
    if (c->small) coll_small_done(c->t, c->x);
    if (!c->small || p->n_nodes > 1) coll_mark_done(c->t, c->x); /* staging: mine, or the shared buffer */
}

static int pub_exscan(nodeshm_pub_t *p, void *buf, size_t count)
{
    const coll_pub_t *c = pub_of(p);
    MPI_Op op = c->op;
    int rc = coll_mpi_op(c->call, &op, c->r.fn);
    if (!rc && MPI_Exscan(MPI_IN_PLACE, buf, (int)count, c->dtype, op, c->leaders) != MPI_SUCCESS)
        rc = nodeshm_coll_mpi_failed(c->call, "MPI_Exscan between node leaders");
    return rc;
}

const nodeshm_pub_ops_t coll_pub_ops = {pub_post, pub_await, pub_shared, pub_done, pub_exscan};

void coll_pub_begin(coll_pub_t *c, nodeshm_team_t *t, coll_turn_t x, const void *src, size_t count,
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
