/* libnodeshm_mpi: MPI_Scatter and MPI_Scatterv.  The root packs every node peer's block into
 * that peer's slot and raises its own arrive flag once; peers copy their block out (one node:
 * core/coll/scatter.h).  Between
 * nodes (Scatter) the root packs all blocks into its leader's stage (node by node), the root's
 * leader PMPI_Scatterv's the node blocks to the other leaders' stages (one message per node) and
 * every leader releases its node, whose ranks copy their block out of the stage (up to
 * NSM_ROOT_DIRECT_NODES nodes the root sends the node blocks to the other leaders itself:
 * leaders.h).
 *
 * Scatter: the block size is agreed by MPI (root's sendcount/sendtype = everyone's
 * recvcount/recvtype), so every rank takes the same path.
 *
 * Scatterv: only the root knows all sendcounts; a rank knows its own recvcount.  No exchange is
 * added to agree on a path: instead the path of each block depends on its own size, which both
 * ends know.  The call is accelerated whenever the communicator is on one node (all ranks know
 * n_nodes); a block of NODESHM_MPI_SCATTERV_MIN..._MAX bytes goes through the receiver's slot,
 * any other as a PMPI_Isend/PMPI_Recv pair on nsm_p2p with the communicator's own tag (nsmpi.c)
 * -- which is what both MPICH's and Open MPI's linear scatterv do for every block.
 *
 * Only the root (and between nodes the leaders) write shared buffers: the other ranks do not
 * wait for the previous operation to be finished everywhere before they start (nsm_begin_reader).
 * Between nodes a leader would need its node's sizes, which only the root has: Scatterv is left
 * to the MPI library there.
 *
 * Defaults: src/mpi/nsmpi_config.h.  Before buffer banks and the small ring (nsmpi.h) both were
 * off, measured with
 * bench/mpi_osu.c (back-to-back calls, 2-core machine under load 20-35) no size range is
 * >= 0.95x everywhere.  Both MPI libraries pipeline back-to-back scatters (the root sends eagerly
 * and never waits), while here the root waits until every peer has read the previous call's
 * slots: at <= 4 KiB Open MPI is 2-30x faster at 2-8 ranks (nodeshm wins only 512 B-4 KiB at 2
 * ranks, 1.2-1.6x) and MPICH 5.0 at 4 and 8 ranks (nodeshm 1.5-2x faster at 2 ranks); from
 * 8 KiB nodeshm is 1.3-1.8x faster with MPICH but 0.5-0.9x of Open MPI's single-copy path at 2
 * ranks.  Scatterv measures alike. */
#include "mpi/nsmpi.h"
#include "mpi/leaders.h"
#include "mpi/nonblocking.h"
#include "mpi/publish.h"
#include "core/coll/scatter.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Blocks of the root's sendbuf: uniform (Scatter: counts == NULL) or per rank (Scatterv). */
typedef struct blocks {
    int count;
    const int *counts, *displs;
    size_t tsize;
    MPI_Aint ext;
} blocks_t;

static int blk_count(const blocks_t *g, int r) { return g->counts ? g->counts[r] : g->count; }
static size_t blk_bytes(const blocks_t *g, int r) { return (size_t)blk_count(g, r) * g->tsize; }
static const char *blk_at(const void *sendbuf, const blocks_t *g, int r)
{
    return (const char *)sendbuf + (g->counts ? (MPI_Aint)g->displs[r] : (MPI_Aint)r * g->count) * g->ext;
}

/* ---- one node: core/coll/scatter.h on the node area (publish.h) ---------------------------------- */
/* A block goes through its receiver's slot when lo <= bytes <= hi, else point to point
 * (Scatterv; Scatter's blocks are all in range): the root packs the slot blocks, posts the
 * point-to-point sends (its pack) and waits for them at the end (its done); a receiver of a slot
 * block copies it out of its slot once the root has arrived (on one node node rank = rank). */
typedef struct nsm_scatter_pub {
    nsm_pub_t c;
    const void *sendbuf;
    const blocks_t *g;
    MPI_Datatype sendtype, recvtype;
    void *recvbuf;
    int recvcount, nreq;
    size_t mine, lo, hi; /* my block's bytes; the slot window */
    MPI_Comm comm;
    MPI_Request *req;
} nsm_scatter_pub_t;
static inline nsm_scatter_pub_t *scatter_of(nodeshm_pub_t *p) { return (nsm_scatter_pub_t *)p; }
static inline int via_slot(const nsm_scatter_pub_t *a, size_t n) { return n > 0 && n >= a->lo && n <= a->hi; }

static inline char *scatter_claim(nodeshm_pub_t *p) { return nsm_pub_of(p)->bufs->slots; }
static inline const char *scatter_block(const nodeshm_pub_t *p, const char *at, int j)
{
    (void)at;
    return nsm_pub_slot(p, j);
}
static inline void scatter_pack(nodeshm_pub_t *p, char *to)
{
    nsm_scatter_pub_t *a = scatter_of(p);
    const nsm_state_t *s = a->c.s;
    const blocks_t *g = a->g;
    (void)to;
    for (int r = 0; r < s->size; r++) {
        size_t n = blk_bytes(g, r);
        if (r == p->me || n == 0) continue;
        if (via_slot(a, n)) {
            nsm_pack(nsm_pub_slot(p, r), n, blk_at(a->sendbuf, g, r), blk_count(g, r), a->sendtype, a->comm);
            continue;
        }
        if (!a->req && !(a->req = malloc(sizeof *a->req * (size_t)s->size))) {
            fprintf(stderr, "nodeshm_mpi: MPI_Scatterv: out of memory for %d requests\n", s->size);
            nodeshm_abort_job(1);
        }
        PMPI_Isend(blk_at(a->sendbuf, g, r), blk_count(g, r), a->sendtype, s->p2p_rank[r], s->p2p_tag, nsm_p2p,
                   &a->req[a->nreq++]);
    }
}
/* from NULL: the root's own block, from its send buffer (MPI_IN_PLACE: already there) */
static inline void scatter_unpack(nodeshm_pub_t *p, int k, const char *from)
{
    const nsm_scatter_pub_t *a = scatter_of(p);
    if (from)
        nsm_unpack(a->recvbuf, a->recvcount, a->recvtype, from, a->mine, a->comm);
    else if (a->recvbuf != MPI_IN_PLACE)
        nsm_copy(a->recvbuf, a->recvcount, a->recvtype, blk_at(a->sendbuf, a->g, k), blk_count(a->g, k), a->sendtype,
                 a->mine, a->comm);
}
static inline void scatter_done(nodeshm_pub_t *p)
{
    nsm_scatter_pub_t *a = scatter_of(p);
    if (a->nreq) PMPI_Waitall(a->nreq, a->req, MPI_STATUSES_IGNORE);
    nsm_pub_done(p);
}
static const nodeshm_pub_ops_t scatter_ops = {.post = nsm_pub_post, .await = nsm_pub_await, .done = scatter_done,
                                              .claim = scatter_claim, .pack = scatter_pack, .unpack = scatter_unpack,
                                              .block = scatter_block};

/* MPI_Iscatter and MPI_Scatter_init's starts on one node: scatter.h's step form as the progress
 * engine's steps of an op (nonblocking_rooted.c and persistent.c start them), on the buffers the
 * op took at its start: uniform blocks, all through the slots; the root is done once it has
 * posted, and only it writes shared buffers (the op's `writes`); the lane raises the done flag. */
static const nodeshm_pub_ops_t iscatter_ops = {.post = nsm_pub_post, .ready = nsm_pub_ready,
                                               .done = nsm_pub_lane_done, .claim = scatter_claim,
                                               .pack = scatter_pack, .unpack = scatter_unpack,
                                               .block = scatter_block};
static inline void iscatter_pub(nsm_scatter_pub_t *a, blocks_t *g, const nodeshm_nb_t *nb)
{
    const nsm_nb_op_t *o = (const nsm_nb_op_t *)nb;
    /* the root's blocks: scount elements of o->bytes bytes (a block's bytes agree on every rank) */
    *g = (blocks_t){.count = o->scount, .tsize = o->scount ? o->bytes / (size_t)o->scount : 0, .ext = o->sext};
    *a = (nsm_scatter_pub_t){.sendbuf = o->sendbuf, .g = g, .sendtype = o->stype, .recvtype = o->rtype,
                             .recvbuf = o->recvbuf, .recvcount = o->rcount, .mine = o->bytes, .lo = 0,
                             .hi = SIZE_MAX, .comm = o->s->comm};
    nsm_pub_start_op(&a->c, o->s, nb, o->rtype);
}
static int iscatter_publish(nodeshm_nb_t *nb)
{
    nsm_scatter_pub_t a;
    blocks_t g;
    iscatter_pub(&a, &g, nb);
    (void)nodeshm_scatter_start(&iscatter_ops, &a.c.p, ((const nsm_nb_op_t *)nb)->root_nr);
    return 1;
}
static int iscatter_complete(nodeshm_nb_t *nb)
{
    nsm_scatter_pub_t a;
    blocks_t g;
    iscatter_pub(&a, &g, nb);
    return nodeshm_scatter_test(&iscatter_ops, &a.c.p, ((const nsm_nb_op_t *)nb)->root_nr);
}
const nsm_nb_steps_t nsm_nb_scatter_steps = {iscatter_publish, iscatter_complete};

/* mine: this rank's block bytes */
static int scatter_node(nsm_state_t *s, const void *sendbuf, const blocks_t *g, MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, size_t mine, size_t lo,
                        size_t hi, int root, MPI_Comm comm, int op)
{
    nsm_scatter_pub_t a = {.sendbuf = sendbuf, .g = g, .sendtype = sendtype, .recvtype = recvtype,
                           .recvbuf = recvbuf, .recvcount = recvcount, .mine = mine, .lo = lo, .hi = hi,
                           .comm = comm};
    int writes = 0;
    if (s->rank == root)
        for (int r = 0; r < s->size && !writes; r++) writes = r != root && via_slot(&a, blk_bytes(g, r));
    /* only the root writes shared buffers: it overwrites slots only once their readers of the
     * previous operation are done; the others do not wait for them */
    uint64_t seq = writes ? nsm_begin_sized(s, op, hi) : nsm_begin_reader_sized(s, op, hi);
    if (s->rank != root && !via_slot(&a, mine)) {
        if (mine) PMPI_Recv(recvbuf, recvcount, recvtype, s->p2p_rank[root], s->p2p_tag, nsm_p2p, MPI_STATUS_IGNORE);
        nodeshm_flags_done(&s->area.flags, seq);
        return MPI_SUCCESS;
    }
    nsm_pub_start(&a.c, s, seq, recvtype, MPI_OP_NULL);
    nodeshm_scatter(&scatter_ops, &a.c.p, root); /* one node: the root's node rank is root */
    free(a.req);
    return MPI_SUCCESS;
}

/* Several nodes, uniform blocks of b bytes (Scatter). */
static int scatter_nodes(nsm_state_t *s, const void *sendbuf, const blocks_t *g, MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, size_t b, int root,
                         MPI_Comm comm)
{
    int root_node = s->node_of[root];
    int root_here = root_node == s->my_node;
    /* the root and the other nodes' leaders write the stage; the others only read */
    int writes = s->rank == root || (s->node_rank == 0 && !root_here);
    uint64_t seq = writes ? nsm_begin(s, NSM_OP_SCATTER) : nsm_begin_reader(s, NSM_OP_SCATTER);
    /* the root sends the other nodes' blocks to their leaders itself (leaders.h) */
    int p2p = nsm_root_direct(s);
    /* the root sends them straight from sendbuf when that is laid out as the stage is (dense
     * blocks, nodes in rank order): it stages its own node's only */
    int direct = s->rank == root && (p2p || s->node_rank == 0) && nsm_is_dense(sendtype) && nsm_nodes_in_order(s);
    if (s->rank == root) {
        /* direct: nodes in rank order, so the root's node is ranks first..last-1 */
        int first = direct ? s->node_first[root_node] : 0;
        int last = direct ? first + s->node_count[root_node] : s->size;
        for (int r = first; r < last; r++) {
            if (r != root)
                nsm_pack(s->area.cur.stage + (size_t)s->stage_index[r] * b, b, blk_at(sendbuf, g, r), g->count,
                         sendtype, comm);
        }
        nodeshm_flags_arrive(&s->area.flags, seq);
        if (p2p) {
            MPI_Request *req = nsm_requests(s->n_nodes, "MPI_Scatter");
            int n = 0;
            for (int r = 0; r < s->size; r++) {
                int k = s->node_of[r];
                if (nsm_is_leader(s, r) && k != root_node)
                    PMPI_Isend((direct ? (const char *)sendbuf : s->area.cur.stage) + (size_t)s->node_first[k] * b,
                               s->node_count[k] * (int)b, MPI_BYTE, s->p2p_rank[r], s->p2p_tag, nsm_p2p, &req[n++]);
            }
            nsm_wait_requests(n, req);
            free(req);
        }
    }
    if (s->node_rank == 0 && p2p && !root_here) {
        PMPI_Recv(s->area.cur.stage + (size_t)s->node_first[s->my_node] * b, s->node_count[s->my_node] * (int)b,
                  MPI_BYTE, s->p2p_rank[root], s->p2p_tag, nsm_p2p, MPI_STATUS_IGNORE);
        nodeshm_flags_release(&s->area.flags, seq);
    } else if (s->node_rank == 0 && !p2p) {
        if (root_here && s->rank != root)
            nodeshm_flags_wait_arrive(&s->area.flags, s->stage_index[root] - s->node_first[root_node], seq);
        int *cnt = NULL, *dsp = NULL;
        if (root_here) {
            if (!(cnt = malloc(sizeof(int) * 2 * (size_t)s->n_nodes))) {
                fprintf(stderr, "nodeshm_mpi: MPI_Scatter: out of memory for %d nodes\n", s->n_nodes);
                nodeshm_abort_job(1);
            }
            dsp = cnt + s->n_nodes;
            for (int k = 0; k < s->n_nodes; k++) {
                cnt[k] = s->node_count[k] * (int)b;
                dsp[k] = s->node_first[k] * (int)b;
            }
        }
        char *mine = s->area.cur.stage + (size_t)s->node_first[s->my_node] * b;
        PMPI_Scatterv(direct ? sendbuf : s->area.cur.stage, cnt, dsp, MPI_BYTE, root_here ? MPI_IN_PLACE : mine,
                      s->node_count[s->my_node] * (int)b, MPI_BYTE, root_node, s->leaders);
        free(cnt);
        nodeshm_flags_release(&s->area.flags, seq);
    } else if (s->rank != root) {
        /* on the root's node the blocks are in the stage once the root has arrived: no wait for
         * the leaders' call */
        if (root_here)
            nodeshm_flags_wait_arrive(&s->area.flags, s->stage_index[root] - s->node_first[root_node], seq);
        else
            nodeshm_flags_wait_release(&s->area.flags, seq);
    }
    if (s->rank != root)
        nsm_unpack(recvbuf, recvcount, recvtype, s->area.cur.stage + (size_t)s->stage_index[s->rank] * b, b, comm);
    else if (recvbuf != MPI_IN_PLACE)
        nsm_copy(recvbuf, recvcount, recvtype, blk_at(sendbuf, g, root), g->count, sendtype, b, comm);
    nodeshm_flags_done(&s->area.flags, seq);
    return MPI_SUCCESS;
}

NSM_BODY int accelerated_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                 MPI_Comm comm)
{
    size_t max = nsm_op_max(NSM_OP_SCATTER);
    /* block bytes, before any lookup (a fallback must cost nothing): only the root may pass
     * MPI_IN_PLACE, and its blocks match what every rank receives */
    long long pre = recvbuf == MPI_IN_PLACE ? nsm_bytes(sendcount, sendtype) : nsm_bytes(recvcount, recvtype);
    int looked = max && pre <= (long long)max && (pre <= 0 || (size_t)pre >= nsm_op_min(NSM_OP_SCATTER));
    nsm_state_t *s = looked ? nsm_get_state(comm) : NULL;
    if (!s || root < 0 || root >= s->size) {
        NSM_HAND(NSM_OP_SCATTER, comm, s, looked, pre, NSM_WHY_ARGS);
        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    }
    /* block bytes: the type signatures agree, so every rank computes the same value */
    int at_root = s->rank == root;
    long long b = at_root ? nsm_bytes(sendcount, sendtype) : nsm_bytes(recvcount, recvtype);
    if (b < 0)
        return nsm_bad_arg(comm, "MPI_Scatter", at_root ? "sendcount (or sendtype)" : "recvcount (or recvtype)",
                           at_root ? sendcount : recvcount);
    if ((size_t)b > s->max[NSM_OP_SCATTER] || (size_t)b < s->min[NSM_OP_SCATTER] ||
        (s->n_nodes > 1 && (size_t)b * (size_t)s->size > s->area.banks.stage_bytes)) {
        NSM_HAND(NSM_OP_SCATTER, comm, s, 1, b, NSM_WHY_STAGE);
        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    }
    if (b == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return MPI_SUCCESS;
    }
    blocks_t g = {sendcount, NULL, NULL, 0, 0};
    if (at_root) {
        MPI_Aint lb;
        g.tsize = (size_t)(b / sendcount);
        PMPI_Type_get_extent(sendtype, &lb, &g.ext);
    }
    if (s->n_nodes > 1)
        return scatter_nodes(s, sendbuf, &g, sendtype, recvbuf, recvcount, recvtype, (size_t)b, root, comm);
    return scatter_node(s, sendbuf, &g, sendtype, recvbuf, recvcount, recvtype, (size_t)b, 0, (size_t)b, root,
                        comm, NSM_OP_SCATTER);
}

/* The entry, frame-less (see MPI_Bcast): only the root may pass MPI_IN_PLACE, and its blocks
 * match what every rank receives. */
NSM_STATS_TWIN(Scatter, NSM_OP_SCATTER,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm),
               (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),
               recvbuf == MPI_IN_PLACE ? nsm_stat_bytes(sendcount, sendtype) : nsm_stat_bytes(recvcount, recvtype))

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (NSM_STATS_ON) return stats_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    int in_place = recvbuf == MPI_IN_PLACE;
    if (nsm_known_outside(NSM_OP_SCATTER, in_place ? sendcount : recvcount, in_place ? sendtype : recvtype))
        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    return accelerated_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

NSM_BODY int accelerated_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                                  MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                  MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    size_t max = nsm_op_max(NSM_OP_SCATTERV);
    nsm_state_t *s = max ? nsm_get_state(comm) : NULL;
    /* one node, a tag for point to point (none: the state's window is 0 for both gatherv and
     * scatterv), a valid root: every rank knows all three */
    if (!s || s->n_nodes > 1 || s->p2p_tag < 0 || root < 0 || root >= s->size) {
        NSM_HAND(NSM_OP_SCATTERV, comm, s, max != 0, -1,
                 !s ? NSM_WHY_ARGS : s->n_nodes > 1 ? NSM_WHY_NODES : s->p2p_tag < 0 ? NSM_WHY_ABOVE_MAX : NSM_WHY_ARGS);
        return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
    }
    blocks_t g = {0, sendcounts, displs, 0, 0};
    long long mine;
    if (s->rank == root) {
        /* checked here: the others are on this path already (each checks only its own block) */
        long long t = nsm_bytes(1, sendtype);
        if (t < 0 || !sendcounts || !displs) return nsm_bad_arg(comm, "MPI_Scatterv", "sendtype", 0);
        for (int r = 0; r < s->size; r++)
            if (sendcounts[r] < 0) return nsm_bad_arg(comm, "MPI_Scatterv", "sendcounts[r]", sendcounts[r]);
        MPI_Aint lb;
        g.tsize = (size_t)t;
        PMPI_Type_get_extent(sendtype, &lb, &g.ext);
        mine = (long long)blk_bytes(&g, root);
    } else {
        mine = nsm_bytes(recvcount, recvtype);
        if (mine < 0) return nsm_bad_arg(comm, "MPI_Scatterv", "recvcount (or recvtype)", recvcount);
    }
    return scatter_node(s, sendbuf, &g, sendtype, recvbuf, recvcount, recvtype, (size_t)mine,
                        s->min[NSM_OP_SCATTERV], s->max[NSM_OP_SCATTERV], root, comm, NSM_OP_SCATTERV);
}

/* The entry, frame-less (see MPI_Bcast): switched off (Open MPI's default) is a jump. */
NSM_STATS_TWIN(Scatterv, NSM_OP_SCATTERV,
               (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
               (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm),
               recvbuf == MPI_IN_PLACE ? nsm_stat_index(sendcounts, comm, root, sendtype)
                                       : nsm_stat_bytes(recvcount, recvtype))

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (NSM_STATS_ON)
        return stats_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
    if (!nsm_op_max(NSM_OP_SCATTERV))
        return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
    return accelerated_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                                comm);
}
NSM_ENTRY_ALIAS(Scatter)
NSM_ENTRY_ALIAS(Scatterv)
