/* nodeshm core: what coll.c and coll_nodes.c share (internal to the core's collectives).
 *
 * coll.c has the algorithms within a node, the node syncs and the leaders communicator;
 * coll_nodes.c the between-node algorithms in which only the node leaders call MPI and their
 * node peers wait on one flag (see there).  Addresses here: a node peer's copy of a symmetric
 * address, the symmetric check, collect's source tokens; strided block copies. */
#ifndef NODESHM_COLL_NODES_H
#define NODESHM_COLL_NODES_H

#include "core/runtime.h"
#include "core/team.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The team's node leaders (rank = node number), made on first need (collective over the team
 * then); MPI_COMM_NULL on members that are not leaders. */
int nodeshm_coll_leaders(const char *call, const nodeshm_team_t *t, MPI_Comm *out);
int nodeshm_coll_mpi_failed(const char *call, const char *what);
int nodeshm_coll_too_big(const char *call, size_t bytes);

/* Several nodes, each a contiguous run of the team (nodes_in_blocks): collect / fcollect, with
 * the epochs e + 1 .. e + 3 of a collective (coll.c's coll_begin) and the team's leaders
 * communicator (nodeshm_coll_leaders, got by every member). */
int nodeshm_coll_nodes_collect(const char *call, nodeshm_team_t *t, MPI_Comm leaders, uint64_t e,
                               void *dest, const void *src, size_t nbytes, int fixed);
/* Several nodes, alltoall(s) whose blocks of one PE (n_pes x block bytes) are at most
 * NODESHM_COLL_NODES_A2A_MAX: through the leaders (packing and unpacking for their whole node),
 * epochs e + 1 .. e + 2.  Larger: coll.c's MPI_Alltoallv of the whole team. */
#define NODESHM_COLL_NODES_A2A_MAX ((size_t)64 << 10)
int nodeshm_coll_nodes_alltoall(const char *call, nodeshm_team_t *t, MPI_Comm leaders, uint64_t e,
                                void *dest, const void *src, size_t dst, size_t sst,
                                size_t nelems, size_t elem);

/* Several nodes, team_sync: the members arrive, the leaders' MPI_Barrier, the leader releases
 * them; epochs e + 1 .. e + 2. */
int nodeshm_coll_nodes_sync(const char *call, nodeshm_team_t *t, MPI_Comm leaders, uint64_t e);
/* Several nodes, broadcasts of at most NODESHM_COLL_NODES_BCAST_MAX bytes: the leaders'
 * MPI_Bcast (from the root's source on its node), each leader fills its node's dests (the root's
 * when root_dest); epochs e + 1 .. e + 2.  Larger: coll.c's node syncs around a pipelined one. */
#define NODESHM_COLL_NODES_BCAST_MAX ((size_t)64 << 10)
int nodeshm_coll_nodes_bcast(const char *call, nodeshm_team_t *t, MPI_Comm leaders, uint64_t e,
                             void *dest, const void *src, size_t nbytes, int root, int root_dest);

/* Several nodes, reductions of at most NODESHM_COLL_NODES_REDUCE_MAX bytes: the leader reduces
 * its node's sources (member order), the leaders' MPI_Allreduce in place, the leader fills its
 * peers' dests; epochs e + 1 .. e + 2.  Larger: coll.c's split over the node's members.  The
 * caller has set the user op's kernel (fn) for op = MPI_OP_NULL. */
#define NODESHM_COLL_NODES_REDUCE_MAX ((size_t)16 << 10)
int nodeshm_coll_nodes_reduce(const char *call, nodeshm_team_t *t, MPI_Comm leaders, uint64_t e,
                              void *dest, const void *src, size_t count, size_t elem,
                              void (*fn)(void *out, const void *a, const void *b, size_t n),
                              MPI_Datatype dtype, MPI_Op op);
/* coll.c: MPI_Allreduce(MPI_IN_PLACE) of buf on comm, op MPI_OP_NULL: the caller's kernel. */
int nodeshm_coll_allreduce_inplace(const char *call, void *buf, size_t count, size_t elem,
                                   MPI_Datatype dtype, MPI_Op op, MPI_Comm comm);

/* Local pointer to symmetric `addr` on team member `member` (on my node).  The caller checked
 * `addr` on itself already, so this cannot fail. */
static inline char *at_member(const nodeshm_team_t *t, const void *addr, int node_member)
{
    uintptr_t a = (uintptr_t)addr;
    for (int s = 0; s < NODESHM_NSEGS; s++) {
        uintptr_t off = a - (uintptr_t)nodeshm_rt.seg[s].base;
        if (off < nodeshm_rt.seg[s].size)
            return nodeshm_rt.seg[s].peer_base[t->node_local[node_member]] + off;
    }
    return NULL;
}

/* Checks that [addr, addr+len) is symmetric (reports otherwise).  A null pointer with nothing
 * to move is fine (OpenSHMEM 1.6: "len is 0, pointer is null: supported"); such a call is still
 * a collective, counted and matched like any other, and nothing dereferences the pointer. */
static inline int check_sym(const char *call, const char *what, const void *addr, size_t len)
{
    if (len == 0 && addr == NULL) return NODESHM_OK;
    nodeshm_target_t tg;
    return nodeshm_resolve(call, what, addr, len ? len : 1, nodeshm_rt.my_pe, &tg);
}

/* collect's members with nothing to send may pass a null source, so a reader cannot take a
 * peer's source from its own: each member passes on its source as a token (segment, offset),
 * the same symmetric address on every PE; NO_SOURCE for none. */
#define NO_SOURCE UINT64_MAX
static inline uint64_t source_token(const void *addr)
{
    for (int s = 0; addr && s < NODESHM_NSEGS; s++) {
        uintptr_t off = (uintptr_t)addr - (uintptr_t)nodeshm_rt.seg[s].base;
        if (off < nodeshm_rt.seg[s].size) return (uint64_t)s << 56 | off;
    }
    return NO_SOURCE;
}

/* Local pointer to node member k's copy of the source behind `token` (not NO_SOURCE). */
static inline const char *token_at_member(const nodeshm_team_t *t, uint64_t token, int node_member)
{
    int s = (int)(token >> 56);
    return nodeshm_rt.seg[s].peer_base[t->node_local[node_member]] + (token & ((1ull << 56) - 1));
}

/* Whether each node's members are contiguous in team order (node numbers never decrease, as
 * they are given in order of first appearance): then a node's members form one run of the team. */
static inline int nodes_in_blocks(const nodeshm_team_t *t)
{
    for (int i = 1; i < t->n_pes; i++)
        if (t->node_of[i] < t->node_of[i - 1]) return 0;
    return 1;
}

/* d[k * dst] = s[k * sst] for nelems elements of elem bytes (strides in elements). */
static inline void copy_block(char *d, size_t dst, const char *s, size_t sst, size_t nelems,
                              size_t elem)
{
    if (dst == 1 && sst == 1) {
        memcpy(d, s, nelems * elem);
        return;
    }
    switch (elem) {
#define STRIDED(T)                                                                                 \
    for (size_t k = 0; k < nelems; k++) ((T *)d)[k * dst] = ((const T *)s)[k * sst];               \
    return;
    case 1: STRIDED(uint8_t)
    case 2: STRIDED(uint16_t)
    case 4: STRIDED(uint32_t)
    case 8: STRIDED(uint64_t)
#undef STRIDED
    default:
        for (size_t k = 0; k < nelems; k++) memcpy(d + k * dst * elem, s + k * sst * elem, elem);
    }
}

#endif
