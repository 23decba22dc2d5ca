/* nodeshm core, node collectives: alltoall on one node of both faces, written once (issue 17).
 *
 * Every member publishes its blocks, one for each member (claims where they go, packs them there,
 * posts), then takes the block meant for it from every member: its own straight away, then for
 * each other member k, starting with the next one and going round (so that not everybody reads
 * member 0 first), it awaits k, which says where k's publication is, and unpacks block `me` of
 * it (block: where a block of a publication is) into its output's block k.  One flag phase, no
 * node barrier; nobody waits for a reader here (a face whose readers copy a member's source in
 * place makes that member wait for their done after the call).  Block sizes are every member's
 * arguments (MPI_Alltoall's signatures match; the OpenSHMEM calls' are symmetric): no sizes are
 * published.
 *
 * MPI_Alltoall on one node (src/mpi/alltoall.c, the slots area as the matrix of blocks) and the
 * OpenSHMEM face's alltoall and alltoalls on a one-node team (core/coll/team/alltoall.c) run
 * this.  What stays in the faces: argument checks and hand-overs, how large a call may be, eager
 * or in-place reading (the OpenSHMEM face's rendezvous above its eager size), datatypes and
 * strides (pack, unpack, block), and between nodes their own paths (the interposer's leaders'
 * stage and PMPI_Alltoallv, the OpenSHMEM face's fan.c, the library's MPI_Alltoall, one
 * MPI_Alltoallv over the team); MPI_Alltoallv and MPI_Alltoallw keep their pair-by-pair paths. */
#ifndef NODESHM_COLL_ALLTOALL_H
#define NODESHM_COLL_ALLTOALL_H

#include "core/coll/publish.h"

/* Exchanges every node member's blocks through p (this call's publications, one node: p->n_nodes
 * is 1) and ops (the face's, static const: with this inlined, the compiler inlines them). */
static inline __attribute__((always_inline)) void nodeshm_alltoall(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p)
{
    const int n = p->n, me = p->me;
    char *mine = ops->claim(p);
    ops->pack(p, mine);
    ops->post(p, NODESHM_PUB_DATA);
    ops->unpack(p, me, ops->block(p, mine, me)); /* the face may take it from its source */
    for (int k = me + 1 == n ? 0 : me + 1; k != me; k = k + 1 == n ? 0 : k + 1)
        ops->unpack(p, k, ops->block(p, ops->await(p, k, NODESHM_PUB_DATA), me));
    ops->done(p);
}

#endif
