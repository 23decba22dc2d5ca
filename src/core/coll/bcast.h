/* nodeshm core, node collectives: broadcast of both faces, written once (issue 17).
 *
 * One publisher per node: the root on its node, the leader (member 0) on every other.  The
 * publisher claims where its contribution goes (publish.h), puts the data there (the root packs
 * its own; a leader elsewhere takes it from the leaders' exchange first), posts, and its node
 * peers await it, copy it out (unpack) and say done.  Between nodes the data leaves the root's
 * node once: from the root itself when the face's root sends to the other leaders directly
 * (root_sends: the MPI face's nsm_root_direct), else from the root's node leader, which forwards
 * it from the root's publication once it has read it (or, leading the node itself, once it
 * posted).  Nobody waits for a reader: the publisher runs ahead of its node's readers as far as
 * the face's claim lets it (the MPI face's banks and ring, the OpenSHMEM face's staging turns and
 * small ring), as an MPI library's eager sends let the root run ahead.
 *
 * On one node the same parts run as steps that never wait (nodeshm_bcast_start, _test: ready for
 * await, publish.h), for MPI_Ibcast and MPI_Bcast_init's starts (src/mpi/bcast.c's steps of the
 * progress engine, core/coll/progress.h).  Between nodes the non-blocking broadcast keeps the
 * MPI face's steps (src/mpi/nonblocking_nodes.c): its leaders' exchange is the engine's remote
 * part, which the engine starts in the lane's order, and off the root's node its readers follow
 * the leader's release line rather than a publisher's post.
 *
 * MPI_Bcast (src/mpi/bcast.c) is this at every size it accelerates; the OpenSHMEM face's
 * broadcast (core/coll/team/bcast.c) on one node (small ring, staging, or above the eager size
 * the root's source read in place: the face's claim and at say so, and its root waits for the
 * readers after the call) and between nodes up to a staging buffer.  What stays in the faces:
 * argument checks and hand-overs, how large a call may be, where the library's own broadcast
 * wins (OpenSHMEM under MPICH), and the OpenSHMEM face's large broadcast between nodes (node
 * syncs, the leaders' MPI_Bcast into the leader's dest, pipelined: its node peers read that dest
 * in place as chunks land, which no publication of a whole call says). */
#ifndef NODESHM_COLL_BCAST_H
#define NODESHM_COLL_BCAST_H

#include "core/coll/publish.h"

#include <stddef.h>

/* The publisher's part (member pub of its node, here: on the root's node, sends: it sends to
 * the other nodes' leaders): claims, puts the data there (packs it, or takes it from the leaders'
 * exchange), posts.  Returns the exchange's status.  (The caller says done.) */
static inline __attribute__((always_inline)) int nodeshm_bcast_publish(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p,
                                                                       int pub, int here, int sends, size_t bytes)
{
    int rc = 0;
    char *buf = ops->claim(p);
    if (here) ops->pack(p, buf);
    else rc = ops->bcast(p, buf, bytes);
    ops->post(p, NODESHM_PUB_DATA); /* after an error too: readers must not wait forever */
    if (sends) rc = ops->bcast(p, buf, bytes);
    if (!here && !rc) ops->unpack(p, pub, buf);
    return rc;
}

/* A reader's part, once member pub's publication is at `from` (awaited, or found ready): forwards
 * it to the other nodes' leaders where this member sends (the root's node leader), copies it
 * out.  Returns the exchange's status.  (The caller says done.) */
static inline __attribute__((always_inline)) int nodeshm_bcast_read(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p,
                                                                    int pub, const char *from, int sends,
                                                                    size_t bytes)
{
    int rc = 0;
    if (sends) rc = ops->bcast(p, (void *)from, bytes); /* the root's node leader forwards */
    ops->unpack(p, pub, from);
    return rc;
}

/* Broadcasts `bytes` from the root, node member root_k of node root_node (root_k: meaningful on
 * that node only), through p (this call's publications) and ops (the face's, static const: with
 * this inlined, the compiler inlines them).  root_sends: the root sends to the other nodes'
 * leaders itself (ops->bcast on the root and the other leaders), else its node leader does
 * (ops->bcast on every leader, a collective of theirs).  Returns the exchange's status (0: it
 * went well, or there was none); after an error the publisher still posts, so that nobody waits
 * forever, but a leader's output is left untouched. */
static inline __attribute__((always_inline)) int nodeshm_bcast(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p,
                                                               int root_node, int root_k, int root_sends,
                                                               size_t bytes)
{
    const int here = p->my_node == root_node, me = p->me;
    const int pub = here ? root_k : 0;
    /* the member that sends the data from the root's node to the other nodes' leaders */
    const int sends = p->n_nodes > 1 && here && me == (root_sends ? root_k : 0);
    int rc;
    if (me == pub) rc = nodeshm_bcast_publish(ops, p, pub, here, sends, bytes);
    else rc = nodeshm_bcast_read(ops, p, pub, ops->await(p, pub, NODESHM_PUB_DATA), sends, bytes);
    ops->done(p);
    return rc;
}

/* The step form on one node (p->n_nodes 1), for a non-blocking broadcast: the same parts, and
 * neither step waits.  start: the root (member root_k) publishes and is done (returns 1); a
 * reader does nothing yet (0).  test: 1 once this member is done (the root: at once), a reader
 * having found the root's publication (ops->ready, await's test) and copied it out; 0 while the
 * root has not posted.  nodeshm_bcast on one node is start, then test with a wait. */
static inline __attribute__((always_inline)) int nodeshm_bcast_start(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p,
                                                                     int root_k)
{
    if (p->me != root_k) return 0;
    (void)nodeshm_bcast_publish(ops, p, root_k, 1, 0, 0);
    ops->done(p);
    return 1;
}

static inline __attribute__((always_inline)) int nodeshm_bcast_test(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p,
                                                                    int root_k)
{
    if (p->me == root_k) return 1;
    const char *from = ops->ready(p, root_k, NODESHM_PUB_DATA);
    if (!from) return 0;
    (void)nodeshm_bcast_read(ops, p, root_k, from, 0, 0);
    ops->done(p);
    return 1;
}

#endif
