/* nodeshm core, node collectives: collect / allgather on one node of both faces, written once
 * (issue 17).
 *
 * Every member publishes its piece (claims where it goes, packs it there, posts), then copies
 * every member's piece, its own too, into its output, from its own round or in member order
 * (the ops' from_me): it awaits member k, which says where k's piece is, and unpacks it at k's
 * place (publish.h).  One flag phase, no node
 * barrier: a member copies piece k as soon as k posted, and nobody waits for a reader here (a
 * face whose readers copy a member's source in place makes that member wait for their done after
 * the call).  Sizes are fixed (MPI_Allgather, shmem fcollect) or per member: known to all
 * (MPI_Allgatherv: its counts, which the face's unpack reads) or published with each piece
 * (shmem collect: size(k) awaits k's post).  Where the face checks its output (check: the
 * OpenSHMEM face's symmetric dest), every size is known before the first piece is written, so a
 * member with published sizes awaits every member before it copies; one whose output fails the
 * check copies nothing but still says done, so that nobody waits for it forever.
 *
 * MPI_Allgather and MPI_Allgatherv on one node (src/mpi/allgather.c) and the OpenSHMEM face's
 * collect and fcollect on a one-node team (core/coll/team/collect.c) run this; MPI_Iallgather and
 * MPI_Allgather_init's starts its step form (allgather.c's steps of the progress engine,
 * core/coll/progress.h).  What stays in
 * the faces: argument checks and hand-overs, how large a call may be, eager or in-place reading
 * (the OpenSHMEM face's rendezvous above coll_copy_eager_max()), and between nodes their own
 * paths (the interposer's leaders' stage and PMPI_Allgatherv; the OpenSHMEM face's fan.c and its
 * path for nodes that are not runs of the team), whose leaders' exchange of node blocks and node
 * release this does not say. */
#ifndef NODESHM_COLL_COLLECT_H
#define NODESHM_COLL_COLLECT_H

#include "core/coll/publish.h"

#include <stddef.h>

/* Collects every node member's piece into my output through p (this call's publications, one
 * node: p->n_nodes is 1) and ops (the face's, static const: with this inlined, the compiler
 * inlines them, and a NULL check drops out).  Returns check's status (0: it passed, or there was
 * none); after a failed check the output is left untouched. */
static inline __attribute__((always_inline)) int nodeshm_collect(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p)
{
    const int n = p->n, me = p->me;
    char *mine = ops->claim(p);
    ops->pack(p, mine);
    ops->post(p, NODESHM_PUB_DATA);
    int rc = 0;
    if (ops->check) { /* every size before the first write (size(k) may await k) */
        size_t total = 0;
        for (int k = 0; k < n; k++) total += ops->size(p, k);
        rc = ops->check(p, total);
    }
    for (int i = 0, k = ops->from_me ? me : 0; !rc && i < n; i++, k = k + 1 == n ? 0 : k + 1)
        ops->unpack(p, k, k == me ? mine : ops->await(p, k, NODESHM_PUB_DATA));
    ops->done(p); /* after a failed check too: nobody waits forever */
    return rc;
}

/* The step form, for a non-blocking collect whose sizes need no check (ops->check NULL: every
 * member knows them): the same parts, and neither step waits.  start: publishes my piece.  test:
 * unpacks each member's piece, in the order from_me says, as it finds it ready (ops->ready,
 * await's test; mine from my claim); *next counts the pieces it is past (0 at the first test);
 * 1 once all are.  nodeshm_collect without check is start, then test with a wait. */
static inline __attribute__((always_inline)) void nodeshm_collect_start(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p)
{
    ops->pack(p, ops->claim(p));
    ops->post(p, NODESHM_PUB_DATA);
}

static inline __attribute__((always_inline)) int nodeshm_collect_test(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p,
                                                                      unsigned *next)
{
    const int n = p->n, me = p->me;
    for (; *next < (unsigned)n; ++*next) {
        int k = ops->from_me ? me + (int)*next : (int)*next;
        if (k >= n) k -= n;
        const char *from = k == me ? ops->claim(p) : ops->ready(p, k, NODESHM_PUB_DATA);
        if (!from) return 0;
        ops->unpack(p, k, from);
    }
    ops->done(p);
    return 1;
}

#endif
