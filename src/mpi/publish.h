/* libnodeshm_mpi: a communicator's node area as the publications of one operation
 * (core/coll/publish.h), for the families written once in core/coll/: an nsm_reduction_t
 * (nsmpi.h: PMPI_Reduce_local(type, op) on elements of `extent` bytes) says where node rank
 * k's contribution is: its slot, or `mine` for me where not NULL; DATA is a rank's arrive flag,
 * SHARED the leader's release line or another rank's reduced flag; the shared buffer is the
 * result area; between nodes the leaders' PMPI_Exscan (broadcast adds its own ops: bcast.c).
 * Static, in this header, as nsmpi.h's nsm_reduction: where an op passes nsm_pub_ops the
 * compiler sees which functions they are and inlines them into the core's algorithm
 * (core/coll/scan.h, bcast.h). */
#ifndef NODESHM_MPI_PUBLISH_H
#define NODESHM_MPI_PUBLISH_H

#include "mpi/nsmpi.h"
#include "core/coll/publish.h"

typedef struct nsm_pub {
    nodeshm_pub_t p;
    nsm_state_t *s;
    uint64_t seq;
    MPI_Datatype type; /* the leaders' exchange's */
    MPI_Op op;
    const nodeshm_coll_bufs_t *bufs; /* the operation's: the area's current ones, or those a
                                      * non-blocking op took at its start (a later op's by now) */
} nsm_pub_t;

static inline const nsm_pub_t *nsm_pub_of(const nodeshm_pub_t *p) { return (const nsm_pub_t *)p; }

/* node rank k's slot of the operation */
static inline char *nsm_pub_slot(const nodeshm_pub_t *p, int k)
{
    const nodeshm_coll_bufs_t *b = nsm_pub_of(p)->bufs;
    return b->slots + (size_t)k * b->slot_stride;
}

/* DATA: the member's arrive flag; SHARED: the leader's release line, another member's reduced */
static inline void nsm_pub_post(nodeshm_pub_t *p, int what)
{
    const nsm_pub_t *c = nsm_pub_of(p);
    const nodeshm_flags_t *f = &c->s->area.flags;
    if (what == NODESHM_PUB_DATA) nodeshm_flags_arrive(f, c->seq);
    else if (p->me == 0) nodeshm_flags_release(f, c->seq);
    else nodeshm_flags_reduced(f, c->seq);
}

static inline const char *nsm_pub_await(const nodeshm_pub_t *p, int k, int what)
{
    const nsm_pub_t *c = nsm_pub_of(p);
    const nsm_state_t *s = c->s;
    const nodeshm_flags_t *f = &s->area.flags;
    if (what == NODESHM_PUB_DATA) {
        nodeshm_flags_wait_arrive(f, k, c->seq);
        return nodeshm_area_slot(&s->area, k);
    }
    if (k == 0) nodeshm_flags_wait_release(f, c->seq);
    else (void)nodeshm_flag_wait_ge(&f->lines[k].reduced, c->seq);
    return s->area.cur.result;
}

static inline char *nsm_pub_shared(nodeshm_pub_t *p) { return nsm_pub_of(p)->s->area.cur.result; }

static inline void nsm_pub_done(nodeshm_pub_t *p)
{
    const nsm_pub_t *c = nsm_pub_of(p);
    nodeshm_flags_done(&c->s->area.flags, c->seq);
}

static inline int nsm_pub_exscan(nodeshm_pub_t *p, void *buf, size_t count)
{
    const nsm_pub_t *c = nsm_pub_of(p);
    return PMPI_Exscan(MPI_IN_PLACE, buf, (int)count, c->type, c->op, c->s->leaders);
}

/* A non-blocking op's (the families' step forms, core/coll/progress.h's steps): await's test,
 * node rank k's slot once k has arrived, else NULL; and a done that does nothing: the lane
 * raises the done flag over its completed ops in sequence order. */
static inline const char *nsm_pub_ready(const nodeshm_pub_t *p, int k, int what)
{
    (void)what;
    const nsm_pub_t *c = nsm_pub_of(p);
    return nodeshm_flags_arrived(&c->s->area.flags, k, c->seq) ? nsm_pub_slot(p, k) : NULL;
}
static inline void nsm_pub_lane_done(nodeshm_pub_t *p) { (void)p; }

/* the scans' (bcast.c has broadcast's: its claim, at, pack and unpack, and its exchange) */
static const nodeshm_pub_ops_t nsm_pub_ops = {.post = nsm_pub_post, .await = nsm_pub_await,
                                               .shared = nsm_pub_shared, .done = nsm_pub_done,
                                               .exscan = nsm_pub_exscan};

/* The publications of operation seq on state s (type and op: the leaders' exchange). */
static inline void nsm_pub_start(nsm_pub_t *c, nsm_state_t *s, uint64_t seq, MPI_Datatype type, MPI_Op op)
{
    c->p = (nodeshm_pub_t){s->node_size, s->node_rank, s->n_nodes, s->my_node};
    c->s = s, c->seq = seq, c->type = type, c->op = op, c->bufs = &s->area.cur;
}

/* The same for non-blocking op nb on s: its sequence number and the buffers it took. */
static inline void nsm_pub_start_op(nsm_pub_t *c, nsm_state_t *s, const nodeshm_nb_t *nb, MPI_Datatype type)
{
    nsm_pub_start(c, s, nb->seq, type, MPI_OP_NULL);
    c->bufs = &nb->bufs;
}

/* The same, and in *m its reduction over them: node rank k's slot, or `mine` for me where not
 * NULL. */
static inline void nsm_pub_init(nsm_pub_t *c, nsm_reduction_t *m, nsm_state_t *s, uint64_t seq, const void *mine,
                                MPI_Aint extent, MPI_Datatype type, MPI_Op op)
{
    nsm_pub_start(c, s, seq, type, op);
    *m = nsm_slots_reduction(s, extent, type, op);
    m->mine = mine, m->me = s->node_rank;
}

#endif
