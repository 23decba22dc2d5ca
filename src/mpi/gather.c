/* libnodeshm_mpi: MPI_Gather: ranks pack their block into their slot; the root copies out (one
 * node: core/coll/gather.h), or node leaders PMPI_Gatherv the node's slots to the root's leader
 * (several; up to NSM_ROOT_DIRECT_NODES nodes the root receives them from the other leaders
 * itself: leaders.h). */
#include "mpi/nsmpi.h"
#include "mpi/leaders.h"
#include "mpi/nonblocking.h"
#include "mpi/publish.h"
#include "core/coll/gather.h"

#include <stdlib.h>
#include <string.h>

/* ---- one node: core/coll/gather.h on the node area (publish.h) ------------------------------------ */
/* Every rank but the root packs its block into its slot and posts its arrive flag; the root
 * copies its own block from its send buffer (unless in place), then each other rank's out of its
 * slot as soon as it has arrived (on one node a rank's node rank is its rank). */
typedef struct nsm_gather_pub {
    nsm_pub_t c;
    const void *sendbuf;
    int sendcount, recvcount;
    MPI_Datatype sendtype, recvtype;
    char *recvbuf;
    size_t rstride, b; /* the root's blocks' pitch in recvbuf; a block's bytes */
    MPI_Comm comm;
} nsm_gather_pub_t;
static inline const nsm_gather_pub_t *gather_of(const nodeshm_pub_t *p) { return (const nsm_gather_pub_t *)p; }

static inline char *gather_claim(nodeshm_pub_t *p) { return nsm_pub_slot(p, p->me); }
static inline void gather_pack(nodeshm_pub_t *p, char *to)
{
    const nsm_gather_pub_t *g = gather_of(p);
    nsm_pack(to, g->b, g->sendbuf, g->sendcount, g->sendtype, g->comm);
}
/* from NULL: my own block, from my send buffer (MPI_IN_PLACE: already there) */
static inline void gather_unpack(nodeshm_pub_t *p, int k, const char *from)
{
    const nsm_gather_pub_t *g = gather_of(p);
    char *dst = g->recvbuf + (size_t)k * g->rstride;
    if (from)
        nsm_unpack(dst, g->recvcount, g->recvtype, from, g->b, g->comm);
    else if (g->sendbuf != MPI_IN_PLACE) /* a memcpy for predefined types (a self Sendrecv cost Open MPI 0.1-0.2 us) */
        nsm_copy(dst, g->recvcount, g->recvtype, g->sendbuf, g->sendcount, g->sendtype, g->b, g->comm);
}
static const nodeshm_pub_ops_t gather_ops = {.post = nsm_pub_post, .await = nsm_pub_await, .done = nsm_pub_done,
                                             .claim = gather_claim, .pack = gather_pack, .unpack = gather_unpack};

/* MPI_Igather and MPI_Gather_init's starts on one node: gather.h's step form as the progress
 * engine's steps of an op (nonblocking_rooted.c and persistent.c start them), on the buffers the
 * op took at its start; a rank but the root is done once it has posted, and only it writes
 * shared buffers (the op's `writes`); the lane raises the done flag (publish.h's lane_done). */
static const nodeshm_pub_ops_t igather_ops = {.post = nsm_pub_post, .ready = nsm_pub_ready,
                                              .done = nsm_pub_lane_done, .claim = gather_claim,
                                              .pack = gather_pack, .unpack = gather_unpack};
static inline void igather_pub(nsm_gather_pub_t *g, const nodeshm_nb_t *nb)
{
    const nsm_nb_op_t *o = (const nsm_nb_op_t *)nb;
    *g = (nsm_gather_pub_t){.sendbuf = o->sendbuf, .sendcount = o->scount, .recvcount = o->rcount,
                            .sendtype = o->stype, .recvtype = o->rtype, .recvbuf = o->recvbuf,
                            .rstride = (size_t)o->rcount * (size_t)o->rext, .b = o->bytes, .comm = o->s->comm};
    nsm_pub_start_op(&g->c, o->s, nb, o->rtype);
}
static int igather_publish(nodeshm_nb_t *nb)
{
    nsm_gather_pub_t g;
    igather_pub(&g, nb);
    (void)nodeshm_gather_start(&igather_ops, &g.c.p, ((const nsm_nb_op_t *)nb)->root_nr);
    return 1;
}
static int igather_complete(nodeshm_nb_t *nb)
{
    nsm_gather_pub_t g;
    igather_pub(&g, nb);
    return nodeshm_gather_test(&igather_ops, &g.c.p, ((const nsm_nb_op_t *)nb)->root_nr, &nb->next_peer);
}
const nsm_nb_steps_t nsm_nb_gather_steps = {igather_publish, igather_complete};

NSM_BODY int accelerated_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm)
{
    /* block bytes, before any lookup (a fallback must cost nothing): the signatures agree, and
     * only the root may pass MPI_IN_PLACE */
    long long pre = sendbuf == MPI_IN_PLACE ? nsm_bytes(recvcount, recvtype) : nsm_bytes(sendcount, sendtype);
    int looked = !(!nsm_op_max(NSM_OP_GATHER) || pre > (long long)nsm_cfg.max[NSM_OP_GATHER] ||
                   (pre > 0 && (size_t)pre < nsm_op_min(NSM_OP_GATHER)));
    nsm_state_t *s = looked ? nsm_get_state(comm) : NULL;
    long long b = -1;
    int rank = -1;
    if (s && root >= 0 && root < s->size) {
        rank = s->rank;
        /* block bytes: the type signatures agree, so every rank computes the same value */
        b = (rank == root && sendbuf == MPI_IN_PLACE) ? nsm_bytes(recvcount, recvtype)
                                                      : nsm_bytes(sendcount, sendtype);
        if (b > (long long)s->max[NSM_OP_GATHER] || (b > 0 && (size_t)b < s->min[NSM_OP_GATHER]) ||
            (s->n_nodes > 1 && (size_t)b * (size_t)s->size > s->area.banks.stage_bytes))
            b = -1;
    }
    if (b < 0) {
        NSM_HAND(NSM_OP_GATHER, comm, s, looked, pre,
                 pre < 0 ? NSM_WHY_DATATYPE : rank < 0 ? NSM_WHY_ARGS : NSM_WHY_STAGE);
        return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    }
    if (b == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return MPI_SUCCESS;
    }
    MPI_Aint rlb = 0, rext = 0;
    if (rank == root) PMPI_Type_get_extent(recvtype, &rlb, &rext);
    const size_t rstride = (size_t)recvcount * (size_t)rext;
    uint64_t seq = nsm_begin_sized(s, NSM_OP_GATHER, (size_t)b);
    if (s->n_nodes == 1) {
        nsm_gather_pub_t g = {.sendbuf = sendbuf, .sendcount = sendcount, .recvcount = recvcount,
                              .sendtype = sendtype, .recvtype = recvtype, .recvbuf = recvbuf, .rstride = rstride,
                              .b = (size_t)b, .comm = comm};
        nsm_pub_start(&g.c, s, seq, recvtype, MPI_OP_NULL);
        nodeshm_gather(&gather_ops, &g.c.p, root);
        return MPI_SUCCESS;
    }
    /* ---- several nodes */
    char *slot = nodeshm_area_slot(&s->area, s->node_rank);
    int in_place = rank == root && sendbuf == MPI_IN_PLACE;
    if (in_place)
        nsm_pack(slot, (size_t)b, (char *)recvbuf + (size_t)rank * rstride, recvcount, recvtype, comm);
    else
        nsm_pack(slot, (size_t)b, sendbuf, sendcount, sendtype, comm);
    nodeshm_flags_arrive(&s->area.flags, seq);
    int root_node = s->node_of[root], root_here = root_node == s->my_node;
    /* the root receives the other nodes' blocks from their leaders itself (leaders.h), its own
     * node's from the slots */
    int p2p = nsm_root_direct(s);
    /* the root receives them straight into recvbuf when that is laid out as the stage is (dense
     * blocks, nodes in rank order): no second copy of them */
    int direct = rank == root && (p2p || s->node_rank == 0) && nsm_is_dense(recvtype) && nsm_nodes_in_order(s);
    char *into = direct ? (char *)recvbuf : s->area.cur.stage;
    if (s->node_rank == 0 && !(p2p && root_here)) {
        nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_ARRIVE, seq);
        MPI_Datatype blocks;
        PMPI_Type_vector(s->node_size, (int)b, (int)s->area.cur.slot_stride, MPI_BYTE, &blocks);
        PMPI_Type_commit(&blocks);
        if (p2p) {
            PMPI_Send(s->area.cur.slots, 1, blocks, s->p2p_rank[root], s->p2p_tag, nsm_p2p);
        } else {
            int *counts = NULL, *displs = NULL;
            if (root_here) {
                counts = malloc(sizeof(int) * (size_t)s->n_nodes * 2);
                displs = counts + s->n_nodes;
                for (int k = 0; k < s->n_nodes; k++) {
                    counts[k] = s->node_count[k] * (int)b;
                    displs[k] = s->node_first[k] * (int)b;
                }
            }
            PMPI_Gatherv(s->area.cur.slots, 1, blocks, into, counts, displs, MPI_BYTE, root_node, s->leaders);
            free(counts);
        }
        PMPI_Type_free(&blocks);
        nodeshm_flags_release(&s->area.flags, seq);
    }
    if (rank == root && p2p) {
        MPI_Request *req = nsm_requests(s->n_nodes, "MPI_Gather");
        int n = 0;
        for (int r = 0; r < s->size; r++) {
            int k = s->node_of[r];
            if (nsm_is_leader(s, r) && k != root_node)
                PMPI_Irecv(into + (size_t)s->node_first[k] * (size_t)b, s->node_count[k] * (int)b, MPI_BYTE,
                           s->p2p_rank[r], s->p2p_tag, nsm_p2p, &req[n++]);
        }
        /* my node's blocks from the slots, while the others arrive */
        for (int r = 0; r < s->size; r++) {
            if (s->node_of[r] != root_node || (r == root && in_place)) continue;
            int nr = s->stage_index[r] - s->node_first[root_node];
            if (r != root) nodeshm_flags_wait_arrive(&s->area.flags, nr, seq);
            nsm_unpack((char *)recvbuf + (size_t)r * rstride, recvcount, recvtype, nodeshm_area_slot(&s->area, nr),
                       (size_t)b, comm);
        }
        nsm_wait_requests(n, req);
        free(req);
        for (int r = 0; !direct && r < s->size; r++)
            if (s->node_of[r] != root_node)
                nsm_unpack((char *)recvbuf + (size_t)r * rstride, recvcount, recvtype,
                           s->area.cur.stage + (size_t)s->stage_index[r] * (size_t)b, (size_t)b, comm);
    } else if (rank == root && !direct) {
        if (s->node_rank != 0) nodeshm_flags_wait_release(&s->area.flags, seq);
        for (int r = 0; r < s->size; r++)
            if (r != root || !in_place)
                nsm_unpack((char *)recvbuf + (size_t)r * rstride, recvcount, recvtype,
                           s->area.cur.stage + (size_t)s->stage_index[r] * (size_t)b, (size_t)b, comm);
    }
    nodeshm_flags_done(&s->area.flags, seq);
    return MPI_SUCCESS;
}

/* The entry, frame-less (see MPI_Bcast): block bytes from the signature this rank passes (they
 * agree; only the root may pass MPI_IN_PLACE). */
NSM_STATS_TWIN(Gather, NSM_OP_GATHER,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm),
               (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
               sendbuf == MPI_IN_PLACE ? nsm_stat_bytes(recvcount, recvtype) : nsm_stat_bytes(sendcount, sendtype))

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (NSM_STATS_ON) return stats_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    int in_place = sendbuf == MPI_IN_PLACE;
    if (nsm_known_outside(NSM_OP_GATHER, in_place ? recvcount : sendcount, in_place ? recvtype : sendtype))
        return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    return accelerated_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}
NSM_ENTRY_ALIAS(Gather)
