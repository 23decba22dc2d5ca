/* libnodeshm_mpi: a communicator's node area as the publications of one operation
 * (core/coll/publish.h), for the families written once in core/coll/. */
#include "mpi/nsmpi.h"

static inline const nsm_pub_t *pub_of(const nodeshm_pub_t *p) { return (const nsm_pub_t *)p; }

static const char *pub_at(const nodeshm_pub_t *p, int k) { return nsm_reduction_at(&pub_of(p)->m.r, k); }

/* DATA: the member's arrive flag; SHARED: the leader's release line, another member's reduced */
static void pub_post(nodeshm_pub_t *p, int what)
{
    const nsm_pub_t *c = pub_of(p);
    const nodeshm_flags_t *f = &c->s->area.flags;
    if (what == NODESHM_PUB_DATA) nodeshm_flags_arrive(f, c->seq);
    else if (p->me == 0) nodeshm_flags_release(f, c->seq);
    else nodeshm_flags_reduced(f, c->seq);
}

static void pub_await(const nodeshm_pub_t *p, int k, int what)
{
    const nsm_pub_t *c = pub_of(p);
    const nodeshm_flags_t *f = &c->s->area.flags;
    if (what == NODESHM_PUB_DATA) nodeshm_flags_wait_arrive(f, k, c->seq);
    else if (k == 0) nodeshm_flags_wait_release(f, c->seq);
    else (void)nodeshm_flag_wait_ge(&f->lines[k].reduced, c->seq);
}

static char *pub_shared(nodeshm_pub_t *p) { return pub_of(p)->s->area.cur.result; }

static void pub_done(nodeshm_pub_t *p)
{
    const nsm_pub_t *c = pub_of(p);
    nodeshm_flags_done(&c->s->area.flags, c->seq);
}

static int pub_exscan(nodeshm_pub_t *p, void *buf, size_t count)
{
    const nsm_pub_t *c = pub_of(p);
    return PMPI_Exscan(MPI_IN_PLACE, buf, (int)count, c->m.type, c->m.op, c->s->leaders);
}

void nsm_pub_init(nsm_pub_t *c, nsm_state_t *s, uint64_t seq, const void *mine, MPI_Aint extent, MPI_Datatype type,
                  MPI_Op op)
{
    c->p = (nodeshm_pub_t){s->node_size, s->node_rank, s->n_nodes, s->my_node, pub_at,
                           pub_post, pub_await, pub_shared, pub_done, pub_exscan};
    c->m = nsm_slots_reduction(s, extent, type, op);
    c->m.mine = mine, c->m.me = s->node_rank;
    c->s = s;
    c->seq = seq;
}
