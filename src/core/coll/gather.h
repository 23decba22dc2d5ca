/* nodeshm core, node collectives: gather on one node, written once (issue 17).
 *
 * Every member but the root publishes its piece (claims where it goes, packs it there, posts);
 * the root takes its own piece from its source (unpack(root, NULL)) while the others publish,
 * then, starting with the next member and going round, awaits each member that publishes
 * (size(k) not 0, where the face says sizes) and unpacks its piece into its output at k's place.
 * One flag phase, no node barrier; only the root reads.  Sizes are every member's arguments
 * (MPI_Gather's signatures match; MPI_Gatherv's root has the counts, each member its own): none
 * are published.  Where a face sends some pieces another way (MPI_Gatherv's blocks outside its
 * window go point to point), size(k) says 0 for them, their senders do not call this, and the
 * face's done waits for them.
 *
 * MPI_Gather and MPI_Gatherv on one node (src/mpi/gather.c, gatherv.c: the slots area) run this;
 * MPI_Igather and MPI_Gather_init's starts its step form (gather.c's steps of the progress
 * engine, core/coll/progress.h).
 * What stays in the face: argument checks and hand-overs, how large a call may be, the datatypes
 * (pack, unpack), point-to-point blocks, and between nodes the leaders' stage and their
 * exchange. */
#ifndef NODESHM_COLL_GATHER_H
#define NODESHM_COLL_GATHER_H

#include "core/coll/publish.h"

/* Gathers the node members' pieces at member root through p (this call's publications, one
 * node) and ops (the face's, static const: with this inlined, the compiler inlines them). */
static inline __attribute__((always_inline)) void nodeshm_gather(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p,
                                                                 int root)
{
    const int n = p->n, me = p->me;
    if (me != root) {
        ops->pack(p, ops->claim(p));
        ops->post(p, NODESHM_PUB_DATA);
    } else {
        ops->unpack(p, me, NULL);
        for (int k = me + 1 == n ? 0 : me + 1; k != me; k = k + 1 == n ? 0 : k + 1)
            if (!ops->size || ops->size(p, k)) ops->unpack(p, k, ops->await(p, k, NODESHM_PUB_DATA));
    }
    ops->done(p);
}

/* The step form, for a non-blocking gather: the same parts, and neither step waits.  start: a
 * member but the root publishes its piece and is done (returns 1); the root takes its own piece
 * and returns 0.  test: 1 once this member is done (a member but the root: at once), the root
 * having unpacked every publishing member's piece as it found it ready (ops->ready, await's test),
 * in the same order round the members; *next counts the members it is past (0 at the first
 * test).  nodeshm_gather is start, then test with a wait. */
static inline __attribute__((always_inline)) int nodeshm_gather_start(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p,
                                                                      int root)
{
    if (p->me != root) {
        ops->pack(p, ops->claim(p));
        ops->post(p, NODESHM_PUB_DATA);
        ops->done(p);
        return 1;
    }
    ops->unpack(p, root, NULL);
    return 0;
}

static inline __attribute__((always_inline)) int nodeshm_gather_test(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p,
                                                                     int root, unsigned *next)
{
    const int n = p->n;
    if (p->me != root) return 1;
    for (; *next + 1 < (unsigned)n; ++*next) {
        int k = root + 1 + (int)*next;
        if (k >= n) k -= n;
        if (ops->size && !ops->size(p, k)) continue;
        const char *from = ops->ready(p, k, NODESHM_PUB_DATA);
        if (!from) return 0;
        ops->unpack(p, k, from);
    }
    ops->done(p);
    return 1;
}

#endif
