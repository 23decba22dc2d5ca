/* nodeshm core, node collectives: a node's publications of one call, as both faces make them.
 *
 * The algorithm families written once in core/coll/ (scan.h so far) run on this interface, not
 * on a face's buffers: for a node of n members (member 0 leads it between nodes) a face says
 *   at(k)          where member k's contribution of this call is (element 0), once published:
 *                  for the reduction families the at of the face's nodeshm_reduction_t
 *                  (reduce.h), built over the same buffers, so that where the face builds both
 *                  the compiler sees one accessor and inlines it into the reduction loops;
 *   post(DATA)     my contribution is published (the face has put it where at(me) says);
 *   await(k, DATA) until member k's is;
 *   shared()       the call's node-shared buffer, as large as a contribution, that members
 *                  write in turn (a node result: the scan's node total, then the leaders' answer);
 *   post(SHARED) / await(k, SHARED)  I wrote it / until member k has;
 *   done()         I have finished reading the others' publications and the shared buffer;
 *   exscan(buf)    between nodes, on member 0: the leaders' exclusive scan of buf, in place
 *                  (the leaders' communicator and the MPI call stay in the face: the
 *                  interposer must call PMPI_Exscan, the OpenSHMEM face MPI_Exscan with its own
 *                  op for 8- and 16-bit sums); returns a status, 0 when it went well.
 * (post ... exscan are a nodeshm_pub_ops_t, the face's static const table.)  What each face
 * supplies:
 *   MPI (src/mpi/publish.h): a communicator's node area (core/coll/area.h) for the operation
 *     that nodeshm_area_begin numbered seq: the slots (the sender's own buffer for itself where
 *     it can), flags.h's lines (DATA: arrive; SHARED: reduced, the leader's release line),
 *     the result area as the shared buffer, PMPI_Exscan on the state's leaders;
 *   OpenSHMEM (core/coll/team/publish.h): a team's turn (turns.c: staging, or small.c's ring
 *     for small contributions), the turn lines of the members' control blocks (DATA: arrive, or
 *     the ring entry's epoch; SHARED: reduced), the last member's staging buffer of the turn as
 *     the shared buffer, MPI_Exscan on the team's leaders.
 * Which families fit: the reductions (reduce.h: ordered over at(0..n-1)), the scans (here),
 * broadcast (the root posts DATA, the others read at(root)) and gather / collect / alltoall
 * (every member posts, readers copy their blocks out of at(k)) need nothing more, bar an
 * exchange hook each for their leaders' MPI call (bcast, allgatherv, alltoallv).  What stays
 * in a face: its arguments and hand-over rules, how large one call (or round) may be, and
 * protocols that read a peer's source in place (the OpenSHMEM face's rendezvous, which only
 * symmetric memory allows).  Nothing here knows a face. */
#ifndef NODESHM_COLL_PUBLISH_H
#define NODESHM_COLL_PUBLISH_H

#include <stddef.h>

enum {
    NODESHM_PUB_DATA,   /* a member's contribution */
    NODESHM_PUB_SHARED, /* the call's node-shared buffer */
};

/* A face's publications of one call: where this member stands, and the state its ops use (in
 * the face's struct, which starts with this one). */
typedef struct nodeshm_pub {
    int n, me;            /* the node's members; my index among them (0: the node leader) */
    int n_nodes, my_node; /* nodes the call spans; mine (0: the first) */
} nodeshm_pub_t;

/* The face's ops on them.  The faces keep theirs in a static const table passed straight to the
 * algorithm, so that where the algorithm is inlined the compiler sees which functions they are
 * and inlines them too (the small scans are latency-bound). */
typedef struct nodeshm_pub_ops {
    void (*post)(nodeshm_pub_t *p, int what);
    void (*await)(const nodeshm_pub_t *p, int k, int what);
    char *(*shared)(nodeshm_pub_t *p);
    void (*done)(nodeshm_pub_t *p);
    int (*exscan)(nodeshm_pub_t *p, void *buf, size_t count);
} nodeshm_pub_ops_t;

#endif
