/* nodeshm core, node collectives: a node's publications of one call, as both faces make them.
 *
 * The algorithm families written once in core/coll/ (scan.h, bcast.h, collect.h, alltoall.h)
 * run on this interface, not on a face's buffers: for a node of n members (member 0 leads it
 * between nodes) a face says
 *   at(k)          where member k's contribution of this call is (element 0), once published:
 *                  for the reduction families the at of the face's nodeshm_reduction_t
 *                  (reduce.h), built over the same buffers, so that where the face builds both
 *                  the compiler sees one accessor and inlines it into the reduction loops; for
 *                  the others what await returns;
 *   claim()        where my contribution goes, free to be written (readers of its previous use
 *                  are done), for the families that pack it there themselves (broadcast's
 *                  publisher, collect's and alltoall's every member); the reductions' members
 *                  put theirs before the algorithm runs;
 *   post(DATA)     my contribution is published (the face has put it where at(me) says);
 *   await(k, DATA) until member k's is; returns at(k) (one lookup: a second one after the wait
 *                  cost the one-node broadcast 2-13 ns a call, 4-18% at 8 B-4 KiB, quiet);
 *   ready(k, DATA) await's test, for a family's step form (a non-blocking call's test, which
 *                  must not wait): at(k) once member k's is published, else NULL;
 *   shared()       the call's node-shared buffer, as large as a contribution, that members
 *                  write in turn (a node result: the scan's node total, then the leaders' answer);
 *   post(SHARED) / await(k, SHARED)  I wrote it / until member k has (returns shared());
 *   done()         I have finished reading the others' publications and the shared buffer
 *                  (every member, once, at the end of the call);
 *   pack(to) / unpack(k, from)  the face's own buffers: my data (broadcast's root, collect's
 *                  every member) into `to`; member k's data, at `from`, into my output where k's
 *                  goes (broadcast: the publisher's, the whole output; collect: each member's
 *                  piece at its place, mine too, in the order the ops' from_me says; alltoall:
 *                  pack all my blocks, unpack one block from member k, mine too, into my
 *                  output's block k, at `from` as block says), where the MPI face packs and
 *                  unpacks datatypes; a face that takes my own block from its source
 *                  (alltoall: unpack(me, .)) need not pack it;
 *   block(at, j)   alltoall's: where block j of a publication that starts at `at` (what await
 *                  or claim returned) is: the face knows the blocks' pitch (packed, or its
 *                  source's stride where a member's source is read in place);
 *   size(k) / check(total)  gather's size: the bytes member k publishes (0: none, its piece
 *                  goes another way); collect's: the bytes of member k's piece (where each member's size
 *                  comes with its piece, the OpenSHMEM collect's, it awaits k's post for it),
 *                  and whether my output holds `total` bytes (the OpenSHMEM face's symmetric
 *                  check of dest; 0: it does).  A face whose output needs no check (MPI: the
 *                  counts are every rank's arguments) leaves both NULL, and its unpack knows
 *                  the sizes;
 *   the leaders' exchange, on member 0 (or the member the family says): exscan(buf) the
 *                  exclusive scan of buf in place; bcast(buf, bytes) the broadcast of buf from
 *                  the root's node to the other nodes' leaders (the face knows the root: its
 *                  leaders' collective, or its root sending to each leader itself).  The
 *                  leaders' communicator and the MPI call stay in the face: the interposer calls
 *                  PMPI_* (PMPI_Exscan; for bcast its root's direct sends on its own
 *                  point-to-point communicator, or the leaders' PMPI_Bcast), the OpenSHMEM face
 *                  MPI_* (MPI_Exscan with its own op for 8- and 16-bit sums; MPI_Bcast in chunks
 *                  an int holds); each returns a status, 0 when it went well.
 * (post ... from_me are a nodeshm_pub_ops_t, the face's static const table, one per family where
 * they differ; a family leaves what it does not call NULL.)  What each face supplies:
 *   MPI (src/mpi/publish.h): a communicator's node area (core/coll/area.h) for the operation
 *     that nodeshm_area_begin numbered seq: the slots (the sender's own buffer for itself where
 *     it can), flags.h's lines (DATA: arrive; SHARED: reduced, the leader's release line),
 *     the result area as the shared buffer, PMPI_Exscan on the state's leaders; for broadcast
 *     (src/mpi/bcast.c) the result area as every member's claim and at, the datatype's pack and
 *     unpack, the root's sends to the leaders (nsm_root_direct) or their PMPI_Bcast; for
 *     allgather on one node (src/mpi/allgather.c) every member's slot as claim and at, the
 *     datatypes' pack and unpack at each rank's block of the receive buffer; for MPI_Ibcast (and
 *     MPI_Bcast_init's starts) on one node broadcast's ops on the buffers the op took at its
 *     start, ready the arrive flag's test, and a done that does nothing: the progress engine
 *     raises a lane's done flag over its completed ops in sequence order (core/coll/progress.h);
 *     for alltoall on one node (src/mpi/alltoall.c) every member's row of the slots area's
 *     matrix as claim and await, blocks of the packed block size apart; for gather and scatter
 *     on one node (src/mpi/gather.c, gatherv.c, scatter.c) every member's slot (scatter: the
 *     root's claim is the slots area, block j member j's slot), MPI_Gatherv's size 0 for a
 *     block outside its window, the v-forms' point-to-point blocks in their pack and done; for
 *     MPI_Igather, MPI_Iscatter, MPI_Iallgather (and their _init forms' starts) the same ops on
 *     the op's buffers, ready the arrive flag's test and a done that does nothing, as
 *     broadcast's (src/mpi/publish.h: nsm_pub_ready, nsm_pub_lane_done);
 *   OpenSHMEM (core/coll/team/publish.h): a team's turn (turns.c: staging, or small.c's ring
 *     for small contributions), the turn lines of the members' control blocks (DATA: arrive, or
 *     the ring entry's epoch; SHARED: reduced), the last member's staging buffer of the turn as
 *     the shared buffer, MPI_Exscan on the team's leaders; for broadcast (team/bcast.c) the
 *     publisher's ring entry or staging, or on a one-node team above the eager size the root's
 *     own source (rendezvous: readers follow the turn line's word; the root waits for them
 *     after the call), memcpy as pack and unpack, MPI_Bcast on the team's leaders; for collect
 *     on one node (team/collect.c) every member's staging of the turn, or above the eager size
 *     its own source (rendezvous, as broadcast's), each member's size on its turn line; for
 *     alltoall on one node (team/alltoall.c) every member's staging of the turn, blocks packed,
 *     or above the eager size its own source, blocks at its stride (rendezvous).
 * Which families fit: the reductions (reduce.h: ordered over at(0..n-1)), the scans (scan.h),
 * broadcast (bcast.h: one publisher per node, the others read at(publisher)), collect on one
 * node (collect.h: every member posts, each copies every piece out of at(k)), alltoall on one
 * node (alltoall.h: every member posts, each copies block me out of at(k)), gather and scatter
 * on one node (gather.h: every member but the root posts, the root copies; scatter.h: the root
 * posts, each member copies block me), with an exchange hook each for their leaders' MPI call
 * (the leaders' allgatherv, alltoallv, gatherv, scatterv still to come).  What stays in a face: its arguments and hand-over rules, how large one call (or round) may be, the
 * library's own collective where it wins, and protocols that read a peer's source in place
 * beyond what at(k) can say (the OpenSHMEM face's large broadcast between nodes, pipelined from
 * the leader's dest, which only symmetric memory allows).  Nothing here knows a face. */
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
    const char *(*await)(const nodeshm_pub_t *p, int k, int what);
    const char *(*ready)(const nodeshm_pub_t *p, int k, int what); /* the step forms' */
    char *(*shared)(nodeshm_pub_t *p);
    void (*done)(nodeshm_pub_t *p);
    int (*exscan)(nodeshm_pub_t *p, void *buf, size_t count);
    /* broadcast (bcast.h), collect (collect.h), alltoall (alltoall.h) */
    char *(*claim)(nodeshm_pub_t *p);
    void (*pack)(nodeshm_pub_t *p, char *to);
    void (*unpack)(nodeshm_pub_t *p, int k, const char *from);
    /* broadcast */
    int (*bcast)(nodeshm_pub_t *p, void *buf, size_t bytes);
    /* alltoall (alltoall.h), scatter (scatter.h) */
    const char *(*block)(const nodeshm_pub_t *p, const char *at, int j);
    /* collect (collect.h), where the output is checked; gather (gather.h) */
    size_t (*size)(nodeshm_pub_t *p, int k);
    int (*check)(nodeshm_pub_t *p, size_t total);
    /* collect's copy order: 1 from my own piece round to the one before it (readers spread over
     * the pieces: all readers starting at member 0 cost MPI_Allgather 4-18% at 32-64 KiB), 0 in
     * member order (the OpenSHMEM collect, whose unpack places each piece after the previous) */
    int from_me;
} nodeshm_pub_ops_t;

#endif
