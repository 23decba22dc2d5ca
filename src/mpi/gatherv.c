/* libnodeshm_mpi: MPI_Gatherv on one node: every rank packs its block into its slot and raises
 * its arrive flag; the root copies each block out as soon as its owner has arrived.
 *
 * Which path: only the root knows all recvcounts; a rank knows its own sendcount.  No exchange
 * is added to agree on a path: the path of each block depends on its own size, which both ends
 * know (sendcount x sendtype size = the root's recvcounts[r] x recvtype size).  The call is
 * accelerated whenever the communicator is on one node (all ranks know n_nodes); a block of
 * NODESHM_MPI_GATHERV_MIN..._MAX bytes goes through its sender's slot, any other as a
 * PMPI_Send/PMPI_Irecv pair on nsm_p2p with the communicator's own tag (nsmpi.c) -- which is
 * what both MPICH's and Open MPI's linear gatherv do for every block.  Ranks that write no slot
 * (the root, senders of point-to-point blocks) do not wait for the previous operation, so calls
 * whose blocks all go point to point pipeline like the MPI library's.  Between nodes a leader
 * would need its node's sizes at the root's leader, which only the root has: Gatherv is left to
 * the MPI library there.
 *
 * Defaults: src/mpi/nsmpi_config.h.  Before buffer banks and the small ring (nsmpi.h) it was off,
 * measured with bench/mpi_osu.c
 * (back-to-back calls, thresholds raised, 2-core machine under load 20-35) no size range is
 * >= 0.95x everywhere: both libraries pipeline back-to-back gathervs (senders return after an
 * eager send) and are 10-100x faster at <= 4 KiB with 4 and 8 ranks, while a slot writer here
 * waits until the root has read the previous call; nodeshm wins 512 B-4 KiB only at 2 ranks
 * with Open MPI (1.1-1.3x), and 8-64 KiB at 8 ranks with Open MPI (1.3-1.8x) but not MPICH
 * (0.5-0.8x). */
#include "mpi/nsmpi.h"
#include "mpi/publish.h"
#include "core/coll/gather.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* core/coll/gather.h on the node area (publish.h): a rank whose block goes through its slot
 * packs it there and posts; the root copies its own block, then each slot block as soon as its
 * rank has arrived (on one node a rank's node rank is its rank), while its receives of the
 * point-to-point blocks run; its done waits for them. */
typedef struct nsm_gatherv_pub {
    nsm_pub_t c;
    const void *sendbuf;
    int sendcount;
    MPI_Datatype sendtype, recvtype;
    size_t mine, t, lo, max; /* my block's bytes; recvtype's size; the slot window */
    char *recvbuf;
    const int *recvcounts, *displs;
    MPI_Aint ext;
    MPI_Comm comm;
    int dense, nreq;
    MPI_Request *req;
} nsm_gatherv_pub_t;
static inline nsm_gatherv_pub_t *gatherv_of(nodeshm_pub_t *p) { return (nsm_gatherv_pub_t *)p; }
/* a block goes through its sender's slot when lo <= bytes <= max, else point to point */
static inline int via_slot(const nsm_gatherv_pub_t *g, size_t n) { return n > 0 && n >= g->lo && n <= g->max; }

static inline char *gatherv_claim(nodeshm_pub_t *p) { return nodeshm_area_slot(&nsm_pub_of(p)->s->area, p->me); }
static inline void gatherv_pack(nodeshm_pub_t *p, char *to)
{
    const nsm_gatherv_pub_t *g = gatherv_of(p);
    nsm_pack(to, g->mine, g->sendbuf, g->sendcount, g->sendtype, g->comm);
}
/* the bytes rank k publishes: its block's, where that goes through its slot */
static inline size_t gatherv_size(nodeshm_pub_t *p, int k)
{
    const nsm_gatherv_pub_t *g = gatherv_of(p);
    size_t n = (size_t)g->recvcounts[k] * g->t;
    return via_slot(g, n) ? n : 0;
}
/* from NULL: my own block, from my send buffer (MPI_IN_PLACE: already there) */
static inline void gatherv_unpack(nodeshm_pub_t *p, int k, const char *from)
{
    const nsm_gatherv_pub_t *g = gatherv_of(p);
    char *dst = g->recvbuf + g->displs[k] * g->ext;
    size_t n = (size_t)g->recvcounts[k] * g->t;
    if (!from) {
        if (g->sendbuf != MPI_IN_PLACE)
            nsm_copy(dst, g->recvcounts[k], g->recvtype, g->sendbuf, g->sendcount, g->sendtype, g->mine, g->comm);
    } else if (g->dense)
        memcpy(dst, from, n);
    else
        nsm_unpack(dst, g->recvcounts[k], g->recvtype, from, n, g->comm);
}
/* the root's point-to-point receives, then the flag */
static inline void gatherv_done(nodeshm_pub_t *p)
{
    nsm_gatherv_pub_t *g = gatherv_of(p);
    if (g->nreq) PMPI_Waitall(g->nreq, g->req, MPI_STATUSES_IGNORE);
    nsm_pub_done(p);
}
static const nodeshm_pub_ops_t gatherv_ops = {.post = nsm_pub_post, .await = nsm_pub_await, .done = gatherv_done,
                                              .claim = gatherv_claim, .pack = gatherv_pack, .unpack = gatherv_unpack,
                                              .size = gatherv_size};

NSM_BODY int accelerated_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    size_t max = nsm_op_max(NSM_OP_GATHERV);
    nsm_state_t *s = max ? nsm_get_state(comm) : NULL;
    /* one node, a tag for point to point (none: the state's window is 0 for both gatherv and
     * scatterv), a valid root: every rank knows all three */
    if (!s || s->n_nodes > 1 || s->p2p_tag < 0 || root < 0 || root >= s->size) {
        NSM_HAND(NSM_OP_GATHERV, comm, s, max != 0, -1,
                 !s ? NSM_WHY_ARGS : s->n_nodes > 1 ? NSM_WHY_NODES : s->p2p_tag < 0 ? NSM_WHY_ABOVE_MAX : NSM_WHY_ARGS);
        return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
    }
    max = s->max[NSM_OP_GATHERV]; /* the communicator's (its window may have scaled it down) */
    /* bad arguments: checked here, as the others are on this path already */
    int at_root = s->rank == root, in_place = at_root && sendbuf == MPI_IN_PLACE;
    long long t = -1;
    MPI_Aint lb, ext = 0;
    if (at_root) {
        if ((t = nsm_bytes(1, recvtype)) < 0 || !recvcounts || !displs)
            return nsm_bad_arg(comm, "MPI_Gatherv", "recvtype", 0);
        for (int r = 0; r < s->size; r++)
            if (recvcounts[r] < 0) return nsm_bad_arg(comm, "MPI_Gatherv", "recvcounts[r]", recvcounts[r]);
        PMPI_Type_get_extent(recvtype, &lb, &ext);
    }
    long long mine = in_place ? 0 : nsm_bytes(sendcount, sendtype);
    if (mine < 0) return nsm_bad_arg(comm, "MPI_Gatherv", "sendcount (or sendtype)", sendcount);

    nsm_gatherv_pub_t g = {.sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvtype = recvtype,
                           .mine = (size_t)mine, .t = at_root ? (size_t)t : 0, .lo = s->min[NSM_OP_GATHERV], .max = max,
                           .recvbuf = recvbuf, .recvcounts = recvcounts, .displs = displs, .ext = ext, .comm = comm,
                           .dense = at_root && nsm_is_dense(recvtype)};
    if (!at_root && !via_slot(&g, (size_t)mine)) {
        /* writes no shared buffer: no wait for the previous operation's readers */
        uint64_t seq = nsm_begin_reader_sized(s, NSM_OP_GATHERV, max);
        if (mine) PMPI_Send(sendbuf, sendcount, sendtype, s->p2p_rank[root], s->p2p_tag, nsm_p2p);
        nodeshm_flags_done(&s->area.flags, seq);
        return MPI_SUCCESS;
    }
    /* the root only reads shared buffers; point-to-point blocks arrive by themselves while it
     * copies the others out */
    uint64_t seq = at_root ? nsm_begin_reader_sized(s, NSM_OP_GATHERV, max) : nsm_begin_sized(s, NSM_OP_GATHERV, max);
    for (int r = 0; at_root && r < s->size; r++) {
        size_t n = (size_t)recvcounts[r] * (size_t)t;
        if (r == root || n == 0 || via_slot(&g, n)) continue;
        if (!g.req && !(g.req = malloc(sizeof *g.req * (size_t)s->size))) {
            fprintf(stderr, "nodeshm_mpi: MPI_Gatherv: out of memory for %d requests\n", s->size);
            nodeshm_abort_job(1);
        }
        PMPI_Irecv((char *)recvbuf + displs[r] * ext, recvcounts[r], recvtype, s->p2p_rank[r], s->p2p_tag,
                   nsm_p2p, &g.req[g.nreq++]);
    }
    nsm_pub_start(&g.c, s, seq, recvtype, MPI_OP_NULL);
    nodeshm_gather(&gatherv_ops, &g.c.p, root); /* one node: the root's node rank is root */
    free(g.req);
    return MPI_SUCCESS;
}

/* The entry, frame-less (see MPI_Bcast): switched off (Open MPI's default) is a jump. */
NSM_STATS_TWIN(Gatherv, NSM_OP_GATHERV,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm),
               (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm),
               sendbuf == MPI_IN_PLACE ? nsm_stat_index(recvcounts, comm, root, recvtype)
                                       : nsm_stat_bytes(sendcount, sendtype))

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    if (NSM_STATS_ON)
        return stats_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
    if (!nsm_op_max(NSM_OP_GATHERV))
        return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
    return accelerated_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                               comm);
}
NSM_ENTRY_ALIAS(Gatherv)
