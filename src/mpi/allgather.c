/* libnodeshm_mpi: MPI_Allgather and MPI_Allgatherv.  Every rank packs its block into shared
 * memory and raises its arrive flag; there is no root: on one node (core/coll/collect.h, written
 * once for both faces, on the node area: publish.h) every rank then copies each rank's block
 * straight out of its slot as soon as that rank has arrived (one flag phase, no node barrier).
 * Between nodes ranks pack into their place in the leader's stage instead
 * (blocks node by node), the leaders PMPI_Allgatherv the node blocks in place (one message per
 * node on the network) and release their node, and every rank copies all blocks out of the stage.
 *
 * The path is decided from recvcount/recvtype (Allgather) or recvcounts/recvtype (Allgatherv):
 * MPI requires every rank to pass the same block sizes there, so all ranks agree without any
 * exchange.  Allgatherv's thresholds (_MAX, _MIN) apply to its largest block.
 *
 * Defaults: NSM_OPS, NSM_OP_MINS (src/mpi/nsmpi_config.h).
 * Measured with bench/mpi_osu.c (back-to-back calls, thresholds raised) at 2, 4 and 8 ranks on
 * a 2-core machine shared with other jobs (load 20-35, so noisy): allgather 4-8 KiB is 1.2-1.6x
 * (Open MPI 5.0, 2 ranks), 4-16x (4), 3.4-3.8x (8); 1.5x and more (MPICH 5.0, 2 ranks), 1.2x (4),
 * 1.0-2.0x (8); allgatherv alike.  Below 4 KiB MPICH at 4 and 8 ranks and Open MPI at 2 ranks
 * (0.83x at 1-8 bytes) win at times; from 16-32 KiB Open MPI's 2-rank single-copy path wins
 * (0.6-0.75x), while at 4 and 8 ranks nodeshm stays ahead up to 128 KiB (1.3-3.5x). */
#include "mpi/nsmpi.h"
#include "mpi/nonblocking.h"
#include "mpi/publish.h"
#include "core/coll/collect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Block layout in recvbuf: uniform (Allgather: counts == NULL) or per rank (Allgatherv). */
typedef struct blocks {
    int count;                 /* Allgather: elements per block */
    const int *counts, *displs;
    size_t tsize;              /* recvtype size and extent */
    MPI_Aint ext;
} blocks_t;

static int blk_count(const blocks_t *g, int r) { return g->counts ? g->counts[r] : g->count; }
static size_t blk_bytes(const blocks_t *g, int r) { return (size_t)blk_count(g, r) * g->tsize; }
static char *blk_at(void *recvbuf, const blocks_t *g, int r)
{
    return (char *)recvbuf + (g->counts ? (MPI_Aint)g->displs[r] : (MPI_Aint)r * g->count) * g->ext;
}

/* ---- one node: core/coll/collect.h on the node area (publish.h) ------------------------------------ */
/* Every rank packs its block into its slot and posts its arrive flag; each copies every rank's
 * block, its own too unless in place, out of the slots in rank order (on one node a rank's node
 * rank is its rank) as soon as that rank has arrived. */
typedef struct nsm_allgather_pub {
    nsm_pub_t c; /* c.type: recvtype */
    const void *sendbuf;
    int sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    const blocks_t *g;
    MPI_Comm comm;
    int in_place, dense; /* dense: recvtype's packed form is a memcpy */
} nsm_allgather_pub_t;
static inline const nsm_allgather_pub_t *allgather_of(const nodeshm_pub_t *p)
{
    return (const nsm_allgather_pub_t *)p;
}

static inline char *allgather_claim(nodeshm_pub_t *p) { return nsm_pub_slot(p, p->me); }

static inline void allgather_pack(nodeshm_pub_t *p, char *to)
{
    const nsm_allgather_pub_t *a = allgather_of(p);
    const blocks_t *g = a->g;
    const int me = p->me;
    if (a->in_place)
        nsm_pack(to, blk_bytes(g, me), blk_at(a->recvbuf, g, me), blk_count(g, me), a->c.type, a->comm);
    else
        nsm_pack(to, blk_bytes(g, me), a->sendbuf, a->sendcount, a->sendtype, a->comm);
}

static inline void allgather_unpack(nodeshm_pub_t *p, int k, const char *from)
{
    const nsm_allgather_pub_t *a = allgather_of(p);
    const blocks_t *g = a->g;
    size_t n = blk_bytes(g, k);
    if (!n || (k == p->me && a->in_place)) return;
    if (a->dense)
        memcpy(blk_at(a->recvbuf, g, k), from, n);
    else
        nsm_unpack(blk_at(a->recvbuf, g, k), blk_count(g, k), a->c.type, from, n, a->comm);
}

static const nodeshm_pub_ops_t allgather_ops = {.post = nsm_pub_post, .await = nsm_pub_await, .done = nsm_pub_done,
                                                .claim = allgather_claim, .pack = allgather_pack,
                                                .unpack = allgather_unpack, .from_me = 1};

/* MPI_Iallgather and MPI_Allgather_init's starts on one node: collect.h's step form as the
 * progress engine's steps of an op (nonblocking_rooted.c and persistent.c start them), on the
 * buffers the op took at its start; the lane raises the done flag (publish.h's lane_done). */
static const nodeshm_pub_ops_t iallgather_ops = {.post = nsm_pub_post, .ready = nsm_pub_ready,
                                                 .done = nsm_pub_lane_done, .claim = allgather_claim,
                                                 .pack = allgather_pack, .unpack = allgather_unpack, .from_me = 1};
static inline void iallgather_pub(nsm_allgather_pub_t *a, blocks_t *g, const nodeshm_nb_t *nb)
{
    const nsm_nb_op_t *o = (const nsm_nb_op_t *)nb;
    /* rcount elements of o->bytes bytes a block (a block's bytes agree on every rank) */
    *g = (blocks_t){.count = o->rcount, .tsize = o->rcount ? o->bytes / (size_t)o->rcount : 0, .ext = o->rext};
    *a = (nsm_allgather_pub_t){.sendbuf = o->sendbuf, .sendcount = o->scount, .sendtype = o->stype,
                               .recvbuf = o->recvbuf, .g = g, .comm = o->s->comm, .in_place = o->in_place,
                               .dense = o->rdense};
    nsm_pub_start_op(&a->c, o->s, nb, o->rtype);
}
static int iallgather_publish(nodeshm_nb_t *nb)
{
    nsm_allgather_pub_t a;
    blocks_t g;
    iallgather_pub(&a, &g, nb);
    nodeshm_collect_start(&iallgather_ops, &a.c.p);
    return 1;
}
static int iallgather_complete(nodeshm_nb_t *nb)
{
    nsm_allgather_pub_t a;
    blocks_t g;
    iallgather_pub(&a, &g, nb);
    return nodeshm_collect_test(&iallgather_ops, &a.c.p, &nb->next_peer);
}
const nsm_nb_steps_t nsm_nb_allgather_steps = {iallgather_publish, iallgather_complete};

static int allgather_node(nsm_state_t *s, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const blocks_t *g, MPI_Datatype recvtype, MPI_Comm comm, int op)
{
    nsm_allgather_pub_t a = {.sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,
                             .g = g, .comm = comm, .in_place = sendbuf == MPI_IN_PLACE,
                             .dense = nsm_is_dense(recvtype)};
    nsm_pub_start(&a.c, s, nsm_begin(s, op), recvtype, MPI_OP_NULL);
    (void)nodeshm_collect(&allgather_ops, &a.c.p);
    return MPI_SUCCESS;
}

/* ---- between nodes: the leaders' stage ------------------------------------------------------------ */
static int allgather_nodes(nsm_state_t *s, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const blocks_t *g, MPI_Datatype recvtype, MPI_Comm comm, int op)
{
    const int me = s->rank;
    /* the stage offset of each stage index, [size + 1], then the leaders' counts and
     * displacements per node */
    size_t *soff = malloc(sizeof(size_t) * ((size_t)s->size + 1) + sizeof(int) * 2 * (size_t)s->n_nodes);
    if (!soff) { /* the other ranks are on this path already: no way back to the library */
        fprintf(stderr, "nodeshm_mpi: MPI_Allgather(v): out of memory for %d offsets\n", s->size);
        nodeshm_abort_job(1);
    }
    soff[0] = 0;
    for (int r = 0; r < s->size; r++) soff[s->stage_index[r] + 1] = blk_bytes(g, r);
    for (int i = 0; i < s->size; i++) soff[i + 1] += soff[i];
    uint64_t seq = nsm_begin(s, op);
    char *mine = s->area.cur.stage + soff[s->stage_index[me]];
    if (sendbuf == MPI_IN_PLACE)
        nsm_pack(mine, blk_bytes(g, me), blk_at(recvbuf, g, me), blk_count(g, me), recvtype, comm);
    else
        nsm_pack(mine, blk_bytes(g, me), sendbuf, sendcount, sendtype, comm);
    nodeshm_flags_arrive(&s->area.flags, seq);
    if (s->node_rank == 0) {
        nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_ARRIVE, seq);
        int *cnt = (int *)(soff + s->size + 1), *dsp = cnt + s->n_nodes;
        for (int k = 0; k < s->n_nodes; k++) {
            dsp[k] = (int)soff[s->node_first[k]];
            cnt[k] = (int)(soff[s->node_first[k] + s->node_count[k]] - soff[s->node_first[k]]);
        }
        PMPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, s->area.cur.stage, cnt, dsp, MPI_BYTE, s->leaders);
        nodeshm_flags_release(&s->area.flags, seq);
    } else {
        nodeshm_flags_wait_release(&s->area.flags, seq);
    }
    const int dense = nsm_is_dense(recvtype);
    for (int i = 0; i < s->size; i++) {
        int r = (me + i) % s->size; /* own block first: it is there already */
        size_t n = blk_bytes(g, r);
        if (!n || (r == me && sendbuf == MPI_IN_PLACE)) continue;
        const char *src = s->area.cur.stage + soff[s->stage_index[r]];
        if (dense)
            memcpy(blk_at(recvbuf, g, r), src, n);
        else
            nsm_unpack(blk_at(recvbuf, g, r), blk_count(g, r), recvtype, src, n, comm);
    }
    nodeshm_flags_done(&s->area.flags, seq);
    free(soff);
    return MPI_SUCCESS;
}

static int allgather_shm(nsm_state_t *s, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const blocks_t *g, MPI_Datatype recvtype, MPI_Comm comm, int op)
{
    return s->n_nodes > 1 ? allgather_nodes(s, sendbuf, sendcount, sendtype, recvbuf, g, recvtype, comm, op)
                          : allgather_node(s, sendbuf, sendcount, sendtype, recvbuf, g, recvtype, comm, op);
}

NSM_BODY int accelerated_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    size_t max = nsm_op_max(NSM_OP_ALLGATHER);
    nsm_state_t *s = max ? nsm_get_state(comm) : NULL;
    long long b = s ? nsm_bytes(recvcount, recvtype) : -1;
    if (b < 0 || (size_t)b > s->max[NSM_OP_ALLGATHER] || (size_t)b < s->min[NSM_OP_ALLGATHER] ||
        (s->n_nodes > 1 && (size_t)b * (size_t)s->size > s->area.banks.stage_bytes)) {
        NSM_HAND(NSM_OP_ALLGATHER, comm, s, 1, b, b < 0 ? NSM_WHY_DATATYPE : NSM_WHY_STAGE);
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    }
    if (b == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return MPI_SUCCESS;
    }
    blocks_t g = {recvcount, NULL, NULL, (size_t)(b / recvcount), 0};
    MPI_Aint lb;
    PMPI_Type_get_extent(recvtype, &lb, &g.ext);
    return allgather_shm(s, sendbuf, sendcount, sendtype, recvbuf, &g, recvtype, comm, NSM_OP_ALLGATHER);
}

NSM_BODY int accelerated_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                    MPI_Comm comm)
{
    size_t max = nsm_op_max(NSM_OP_ALLGATHERV);
    nsm_state_t *s = max ? nsm_get_state(comm) : NULL;
    long long t = s && recvcounts && displs ? nsm_bytes(1, recvtype) : -1;
    size_t largest = 0, total = 0;
    for (int r = 0; t >= 0 && r < s->size; r++) {
        if (recvcounts[r] < 0) {
            t = -1; /* the MPI library reports it */
            break;
        }
        size_t n = (size_t)recvcounts[r] * (size_t)t;
        if (n > largest) largest = n;
        total += n;
    }
    if (t < 0 || largest > s->max[NSM_OP_ALLGATHERV] || largest < s->min[NSM_OP_ALLGATHERV] ||
        (s->n_nodes > 1 && total > s->area.banks.stage_bytes)) {
        NSM_HAND(NSM_OP_ALLGATHERV, comm, s, 1, t < 0 ? -1 : (long long)largest,
                 t < 0 ? NSM_WHY_DATATYPE : NSM_WHY_STAGE);
        return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    }
    if (total == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return MPI_SUCCESS;
    }
    blocks_t g = {0, recvcounts, displs, (size_t)t, 0};
    MPI_Aint lb;
    PMPI_Type_get_extent(recvtype, &lb, &g.ext);
    return allgather_shm(s, sendbuf, sendcount, sendtype, recvbuf, &g, recvtype, comm, NSM_OP_ALLGATHERV);
}

NSM_STATS_TWIN(Allgather, NSM_OP_ALLGATHER,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, MPI_Comm comm),
               (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
               sendbuf == MPI_IN_PLACE ? nsm_stat_bytes(recvcount, recvtype) : nsm_stat_bytes(sendcount, sendtype))
NSM_STATS_TWIN(Allgatherv, NSM_OP_ALLGATHERV,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, MPI_Comm comm),
               (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm),
               sendbuf == MPI_IN_PLACE ? nsm_stat_index(recvcounts, comm, -1, recvtype)
                                       : nsm_stat_bytes(sendcount, sendtype))

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (NSM_STATS_ON) return stats_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return accelerated_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (NSM_STATS_ON)
        return stats_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
    return accelerated_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}
NSM_ENTRY_ALIAS(Allgather)
NSM_ENTRY_ALIAS(Allgatherv)
