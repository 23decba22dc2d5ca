/* nodeshm core, node collectives: scatter on one node, written once (issue 17).
 *
 * The root publishes one piece for each other member (claims where they go, packs them there,
 * posts once) and takes its own from its source (unpack(root, NULL)); every other member awaits
 * the root and unpacks its piece, block(at, me) of the root's publication.  One flag phase, no
 * node barrier.  Sizes are every member's arguments (MPI_Scatter's signatures match;
 * MPI_Scatterv's root has the counts, each member its own).  Where a face sends some pieces
 * another way (MPI_Scatterv's blocks outside its window go point to point: the root's pack posts
 * them, its done waits for them), their receivers do not call this.
 *
 * MPI_Scatter and MPI_Scatterv on one node (src/mpi/scatter.c: the slots area, the piece for
 * member k in k's slot) run this; MPI_Iscatter and MPI_Scatter_init's starts its step form
 * (scatter.c's steps of the progress engine, core/coll/progress.h).  What stays in the face: argument checks and hand-overs, how
 * large a call may be, whether the root writes shared buffers at all (only point-to-point
 * blocks: then it does not wait for the previous operation's readers), the datatypes (pack,
 * unpack), and between nodes the leaders' stage and their exchange. */
#ifndef NODESHM_COLL_SCATTER_H
#define NODESHM_COLL_SCATTER_H

#include "core/coll/publish.h"

/* Scatters member root's pieces to the node members through p (this call's publications, one
 * node) and ops (the face's, static const: with this inlined, the compiler inlines them). */
static inline __attribute__((always_inline)) void nodeshm_scatter(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p,
                                                                  int root)
{
    const int me = p->me;
    if (me == root) {
        ops->pack(p, ops->claim(p));
        ops->post(p, NODESHM_PUB_DATA);
        ops->unpack(p, me, NULL);
    } else {
        ops->unpack(p, me, ops->block(p, ops->await(p, root, NODESHM_PUB_DATA), me));
    }
    ops->done(p);
}

/* The step form, for a non-blocking scatter: the same parts, and neither step waits.  start: the
 * root publishes, takes its own piece and is done (returns 1); another member does nothing yet
 * (0).  test: 1 once this member is done (the root: at once), having found the root's
 * publication ready (ops->ready, await's test) and unpacked its piece; 0 while the root has not
 * posted. */
static inline __attribute__((always_inline)) int nodeshm_scatter_start(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p,
                                                                       int root)
{
    if (p->me != root) return 0;
    ops->pack(p, ops->claim(p));
    ops->post(p, NODESHM_PUB_DATA);
    ops->unpack(p, root, NULL);
    ops->done(p);
    return 1;
}

static inline __attribute__((always_inline)) int nodeshm_scatter_test(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p,
                                                                      int root)
{
    const int me = p->me;
    if (me == root) return 1;
    const char *from = ops->ready(p, root, NODESHM_PUB_DATA);
    if (!from) return 0;
    ops->unpack(p, me, ops->block(p, from, me));
    ops->done(p);
    return 1;
}

#endif
