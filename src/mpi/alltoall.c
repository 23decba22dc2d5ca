/* libnodeshm_mpi: MPI_Alltoall and MPI_Alltoallv.
 *
 * Both move every block once through a "matrix" in the node's shared window, at a fixed block
 * stride T: the block from node rank i to comm rank r (node k, member m of k) sits at block
 *     node_size * node_first[k] + i * node_count[k] + m
 * so what the node sends to node k is one contiguous run of node_size * node_count[k] blocks,
 * source-major.  On one node the matrix is the slots area and every rank, once its peers have
 * arrived, pulls the blocks addressed to it.  Across nodes (2DECOMP&FFT's scheme) the matrix is
 * the leaders' stage: the leader waits for its node, exchanges one message per node pair with a
 * single PMPI_Alltoallv among leaders into the second half of the stage (laid out source-major
 * too: the block from rank r to my node rank i at stage_index[r] * node_size + i), and releases
 * the node; blocks between ranks of the same node never leave the matrix.
 *
 * Alltoall: T is the block's packed size, agreed by all ranks (signatures match).
 *
 * Alltoallv on one node goes pair by pair, without any agreement (alltoallv_pairs.c).  Between
 * nodes no rank knows the others' counts, so the path cannot be chosen from the arguments
 * alone.  The first flag round carries the agreement instead: T is the configured threshold
 * (NODESHM_MPI_ALLTOALLV_MAX, the same on all ranks) capped by what fits the matrix
 * (nsm_a2av_stride); every rank writes its blocks into the
 * matrix if its own largest block fits T, and publishes that largest block (its "vote") in the
 * result area before it raises its arrive flag.  The leaders PMPI_Allreduce(MAX) their node's maximum, the
 * leader posts the decision next to the votes before its release, and the between-node exchange
 * moves only that many bytes of each T-strided block (a resized datatype).  A pair's byte count
 * is known to both its ends, so whatever counts ranks pass, every rank takes the same path.
 *
 * Defaults (NODESHM_MPI_ALLTOALL_MAX, _ALLTOALLV_MAX 4 KiB), bench/mpi_osu.c on 2 cores shared with
 * other jobs (load 15-22): MPICH's own alltoall(v) takes 30-100 us there at any size, nodeshm
 * 0.5-1.5 us at 2 ranks (50-170x); Open MPI 2 ranks 1.0-1.3x at 1 B..256 B (own block copied
 * straight across), 1.2-1.7x up to 4 KiB, 0.5-0.7x from 16 KiB; 8 ranks 1.3-3.0x at 1 B..16 KiB
 * (alltoallv 1.4-2.5x); 4 ranks scheduler-dominated (0.1-3.3x). */
#include "mpi/nsmpi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Block offset of the block from my node rank to comm rank r (sender side of the matrix). */
size_t nsm_a2a_send_block(const nsm_state_t *s, int r)
{
    int k = s->node_of[r];
    return (size_t)s->node_size * (size_t)s->node_first[k] +
           (size_t)s->node_rank * (size_t)s->node_count[k] + (size_t)(s->stage_index[r] - s->node_first[k]);
}

/* Where the block from comm rank r to me is, once it has arrived. */
const char *nsm_a2a_recv_ptr(const nsm_state_t *s, const char *area, size_t stride, int r)
{
    int k = s->node_of[r];
    if (k == s->my_node) /* matrix, written by r itself */
        return area + ((size_t)s->node_size * (size_t)s->node_first[k] +
                       (size_t)(s->stage_index[r] - s->node_first[k]) * (size_t)s->node_size +
                       (size_t)s->node_rank) * stride;
    return area + ((size_t)s->node_size * (size_t)s->size +
                   (size_t)s->stage_index[r] * (size_t)s->node_size + (size_t)s->node_rank) * stride;
}

MPI_Datatype nsm_a2a_block_type(size_t stride, size_t moved)
{
    MPI_Datatype block;
    if (moved == stride) {
        PMPI_Type_contiguous((int)stride, MPI_BYTE, &block);
    } else {
        MPI_Datatype part;
        PMPI_Type_contiguous((int)moved, MPI_BYTE, &part);
        PMPI_Type_create_resized(part, 0, (MPI_Aint)stride, &block);
        PMPI_Type_free(&part);
    }
    PMPI_Type_commit(&block);
    return block;
}

void nsm_a2a_leaders_counts(const nsm_state_t *s, int *v)
{
    int n = s->n_nodes, *sc = v, *sd = v + n, *rc = v + 2 * n, *rd = v + 3 * n;
    for (int k = 0; k < n; k++) {
        int pair = k == s->my_node ? 0 : s->node_size * s->node_count[k];
        sc[k] = rc[k] = pair;
        sd[k] = s->node_size * s->node_first[k];
        rd[k] = s->node_first[k] * s->node_size;
    }
}

/* Leaders: the exchange, waited for here. */
static void a2a_leaders(nsm_state_t *s, size_t stride, size_t moved)
{
    int n = s->n_nodes, *v = malloc(sizeof(int) * 4 * (size_t)n);
    if (!v) {
        fprintf(stderr, "nodeshm_mpi: MPI_Alltoall(v): out of memory for %d nodes' counts\n", n);
        nodeshm_abort_job(1);
    }
    MPI_Datatype block = nsm_a2a_block_type(stride, moved);
    nsm_a2a_leaders_counts(s, v);
    PMPI_Alltoallv(s->area.cur.stage, v, v + n, block, nsm_a2a_recv_half(s, s->area.cur.stage, stride), v + 2 * n,
                   v + 3 * n, block, s->leaders);
    free(v);
    PMPI_Type_free(&block);
}

int nsm_a2a_fits(const nsm_state_t *s, size_t stride)
{
    const nodeshm_banks_t *b = &s->area.banks;
    if (s->n_nodes == 1) return (size_t)s->size * (size_t)s->size * stride <= (size_t)s->node_size * b->slot_bytes;
    return 2 * (size_t)s->max_node_size * (size_t)s->size * stride <= b->stage_bytes;
}

/* The matrix of this communicator for blocks of `stride` bytes, or NULL if it does not fit: in
 * the current bank, so ask again after nsm_begin. */
static char *a2a_area(const nsm_state_t *s, size_t stride)
{
    if (!nsm_a2a_fits(s, stride)) return NULL;
    return s->n_nodes == 1 ? s->area.cur.slots : s->area.cur.stage;
}

/* Not the threshold alone: the matrix (size^2 blocks on one node, the leaders' stage between
 * nodes) is sized from the thresholds but capped by NODESHM_MPI_STAGE_MAX (nsmpi.c), so a
 * widened threshold used as the stride made the matrix not fit and sent every call, 8-byte ones
 * too, to the MPI library (2 ranks: MAX >= 2m; 4 ranks: >= 1m).  The cap is a whole number of
 * cache lines, so that blocks of different senders do not share one.  Agreed values only. */
size_t nsm_a2av_stride(const nsm_state_t *s) { return nsm_a2a_stride(s, s->max[NSM_OP_ALLTOALLV]); }

size_t nsm_a2a_stride(const nsm_state_t *s, size_t max)
{
    size_t room;
    const nodeshm_banks_t *b = &s->area.banks;
    if (s->n_nodes == 1) room = (size_t)s->node_size * b->slot_bytes / ((size_t)s->size * (size_t)s->size);
    else room = b->stage_bytes / (2 * (size_t)s->max_node_size * (size_t)s->size);
    if (room >= NODESHM_FLAG_LINE) room -= room % NODESHM_FLAG_LINE;
    return max < room ? max : room;
}

NSM_BODY int accelerated_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    nsm_state_t *s = nsm_op_max(NSM_OP_ALLTOALL) ? nsm_get_state(comm) : NULL;
    int in_place = sendbuf == MPI_IN_PLACE;
    /* block bytes: the signatures agree, so every rank computes the same value */
    long long b = !s ? -1 : in_place ? nsm_bytes(recvcount, recvtype) : nsm_bytes(sendcount, sendtype);
    if (s && (in_place ? recvcount : sendcount) == 0) b = 0; /* whatever the datatype */
    char *area = NULL;
    if (b > 0 && (size_t)b <= s->max[NSM_OP_ALLTOALL]) area = a2a_area(s, (size_t)b);
    if (b == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return MPI_SUCCESS;
    }
    if (!area) {
        NSM_HAND(NSM_OP_ALLTOALL, comm, s, 1, b, b < 0 ? NSM_WHY_DATATYPE : NSM_WHY_STAGE);
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    }
    if (in_place) {
        sendbuf = recvbuf;
        sendcount = recvcount;
        sendtype = recvtype;
    }
    const size_t T = (size_t)b;
    MPI_Aint lb, sext, rext;
    PMPI_Type_get_extent(sendtype, &lb, &sext);
    PMPI_Type_get_extent(recvtype, &lb, &rext);
    const int sdense = nsm_is_dense(sendtype), rdense = nsm_is_dense(recvtype);
    const size_t sstride = (size_t)sendcount * (size_t)sext, rstride = (size_t)recvcount * (size_t)rext;

    /* my own block: straight across when both sides are plain bytes (not in place) */
    const int self_direct = !in_place && sdense && rdense;
    uint64_t seq = nsm_begin(s, NSM_OP_ALLTOALL);
    area = a2a_area(s, T);
    for (int r = 0; r < s->size; r++)
        if (r != s->rank || !self_direct)
            nsm_pack_as(area + nsm_a2a_send_block(s, r) * T, T, (const char *)sendbuf + (size_t)r * sstride, sendcount,
                     sendtype, sdense, comm);
    nodeshm_flags_arrive(&s->area.flags, seq);
    if (self_direct)
        memcpy((char *)recvbuf + (size_t)s->rank * rstride, (const char *)sendbuf + (size_t)s->rank * sstride, T);
    if (s->n_nodes > 1) {
        if (s->node_rank == 0) {
            nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_ARRIVE, seq);
            a2a_leaders(s, T, T);
            nodeshm_flags_release(&s->area.flags, seq);
        }
        /* blocks from my own node first, while the leader talks to the other nodes */
        for (int i = 0; i < s->node_size; i++) {
            int r = s->node_members[i];
            if (r == s->rank && self_direct) continue;
            nodeshm_flags_wait_arrive(&s->area.flags, i, seq);
            nsm_unpack_as((char *)recvbuf + (size_t)r * rstride, recvcount, recvtype, rdense,
                       nsm_a2a_recv_ptr(s, area, T, r), T, comm);
        }
        nodeshm_flags_wait_release(&s->area.flags, seq);
        for (int r = 0; r < s->size; r++)
            if (s->node_of[r] != s->my_node)
                nsm_unpack_as((char *)recvbuf + (size_t)r * rstride, recvcount, recvtype, rdense,
                           nsm_a2a_recv_ptr(s, area, T, r), T, comm);
    } else {
        for (int r = 0; r < s->size; r++) {
            if (r == s->rank && self_direct) continue;
            nodeshm_flags_wait_arrive(&s->area.flags, r, seq);
            nsm_unpack_as((char *)recvbuf + (size_t)r * rstride, recvcount, recvtype, rdense,
                       nsm_a2a_recv_ptr(s, area, T, r), T, comm);
        }
    }
    nodeshm_flags_done(&s->area.flags, seq);
    return MPI_SUCCESS;
}

/* Votes and the leader's decision (alltoallv): one line each in the result area. */
#define A2AV_VOTE(s, i) ((uint64_t *)((s)->area.cur.result + (size_t)(i) * NODESHM_FLAG_LINE))

/* A vote that ends in the MPI library costs a flag round the MPI library alone would not pay
 * (0.83-0.90x just above the threshold, both MPIs, 2-8 ranks).  Programs repeat their exchanges,
 * so after a too-big vote the next calls go straight to the MPI library without voting: 1 after
 * the first, doubling per consecutive too-big vote up to A2AV_SKIP_MAX; a vote that fits resets
 * it.  Falling back is always correct, and every rank counts alike. */
#define A2AV_SKIP_MAX 16

/* The body: MPI_SUCCESS, or NSM_HANDED_OVER when the call is the MPI library's (its caller makes
 * it: PMPI_Alltoallv, or PMPI_Alltoallv_c from bigcount.c).  veto: this rank cannot run it (a
 * large-count call whose counts or displacements do not fit an int): it votes "too big" without
 * reading the arrays, so that every rank hands the call over together. */
int nsm_alltoallv_body(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                       void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm, int veto)
{
    nsm_state_t *const looked = nsm_op_max(NSM_OP_ALLTOALLV) ? nsm_get_state(comm) : NULL;
    const size_t pairs_stride = veto ? 0 : nsm_alltoallv_pairs_stride(looked, sendbuf == MPI_IN_PLACE);
    if (pairs_stride) /* one node: no vote (alltoallv_pairs.c) */
        return nsm_alltoallv_pairs(looked, pairs_stride, sendbuf, (nsm_vec_t){sendcounts, sdispls, 0, NULL},
                                   sendtype, recvbuf, (nsm_vec_t){recvcounts, rdispls, 0, NULL}, recvtype, comm,
                                   "MPI_Alltoallv");
    const size_t T = looked ? nsm_a2av_stride(looked) : 0;
    nsm_state_t *s = T ? looked : NULL;
    char *area = s ? a2a_area(s, T) : NULL;
    if (area && (size_t)(s->max_node_size + 1) * NODESHM_FLAG_LINE > s->area.banks.result_bytes) area = NULL;
    /* agreed by all ranks: the configuration and the communicator; counts and datatypes enter
     * only through the votes */
    int skipped = 0;
    if (area && s->a2av_skip > 0) {
        s->a2av_skip--;
        area = NULL;
        skipped = 1;
    }
    if (!area) {
        NSM_HAND(NSM_OP_ALLTOALLV, comm, looked, 1, -1, skipped ? NSM_WHY_VOTE : NSM_WHY_STAGE);
        return NSM_HANDED_OVER;
    }
    const int in_place = sendbuf == MPI_IN_PLACE;
    const void *sbuf = in_place ? recvbuf : sendbuf;
    const int *scounts = in_place ? recvcounts : sendcounts, *sdisp = in_place ? rdispls : sdispls;
    MPI_Datatype stype = in_place ? recvtype : sendtype;
    int ssize = 0, rsize = 0, sdense = 0, rdense = 0;
    MPI_Aint lb, sext = 0, rext = 0;
    int usable = !veto && stype != MPI_DATATYPE_NULL && recvtype != MPI_DATATYPE_NULL &&
                 PMPI_Type_size(stype, &ssize) == MPI_SUCCESS && PMPI_Type_size(recvtype, &rsize) == MPI_SUCCESS;
    if (usable) {
        PMPI_Type_get_extent(stype, &lb, &sext);
        PMPI_Type_get_extent(recvtype, &lb, &rext);
        sdense = nsm_is_dense(stype);
        rdense = nsm_is_dense(recvtype);
    }

    /* my vote: my largest block either way; anything unusable votes "too big" */
    uint64_t mine = usable ? 0 : (uint64_t)T + 1;
    for (int r = 0; usable && r < s->size; r++) {
        long long sb = (long long)scounts[r] * ssize, rb = (long long)recvcounts[r] * rsize;
        if (scounts[r] < 0 || recvcounts[r] < 0) sb = (long long)T + 1;
        if ((uint64_t)sb > mine) mine = (uint64_t)sb;
        if ((uint64_t)rb > mine) mine = (uint64_t)rb;
    }

    const int self_direct = !in_place && sdense && rdense; /* my own block goes straight across */
    uint64_t seq = nodeshm_area_begin(&s->area, NODESHM_NEED_ANY); /* counted once the vote fits */
    area = a2a_area(s, T);
    if (mine <= T)
        for (int r = 0; r < s->size; r++)
            if (r != s->rank || !self_direct)
                nsm_pack_as(area + nsm_a2a_send_block(s, r) * T, (size_t)scounts[r] * (size_t)ssize,
                         (const char *)sbuf + (size_t)sdisp[r] * (size_t)sext, scounts[r], stype, sdense, comm);
    *A2AV_VOTE(s, s->node_rank) = mine;
    nodeshm_flags_arrive(&s->area.flags, seq);

    uint64_t most = 0;
    if (s->n_nodes == 1 || s->node_rank == 0) {
        nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_ARRIVE, seq);
        for (int i = 0; i < s->node_size; i++)
            if (*A2AV_VOTE(s, i) > most) most = *A2AV_VOTE(s, i);
    }
    if (s->n_nodes > 1) {
        if (s->node_rank == 0) {
            PMPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_UINT64_T, MPI_MAX, s->leaders);
            if (most && most <= T) a2a_leaders(s, T, most);
            *A2AV_VOTE(s, s->node_size) = most;
            nodeshm_flags_release(&s->area.flags, seq);
        } else {
            nodeshm_flags_wait_release(&s->area.flags, seq);
            most = *A2AV_VOTE(s, s->node_size);
        }
    }
    if (most > T) { /* someone's block is too big: all ranks see it and go to the MPI library */
        s->a2av_backoff = s->a2av_backoff ? 2 * s->a2av_backoff : 1;
        if (s->a2av_backoff > A2AV_SKIP_MAX) s->a2av_backoff = A2AV_SKIP_MAX;
        s->a2av_skip = s->a2av_backoff;
        nsm_count_voted_out(NSM_OP_ALLTOALLV);
        NSM_WHY(veto ? NSM_WHY_LARGE : NSM_WHY_VOTE);
        nodeshm_flags_done(&s->area.flags, seq);
        return NSM_HANDED_OVER;
    }
    nsm_count_accelerated(NSM_OP_ALLTOALLV);
    for (int r = 0; r < s->size; r++)
        nsm_unpack_as((char *)recvbuf + (size_t)rdispls[r] * (size_t)rext, recvcounts[r], recvtype, rdense,
                   r == s->rank && self_direct ? (const char *)sbuf + (size_t)sdisp[r] * (size_t)sext
                                               : nsm_a2a_recv_ptr(s, area, T, r),
                   (size_t)recvcounts[r] * (size_t)rsize, comm);
    s->a2av_backoff = 0;
    nodeshm_flags_done(&s->area.flags, seq);
    return MPI_SUCCESS;
}

static inline int accelerated_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc = nsm_alltoallv_body(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                comm, 0);
    if (rc != NSM_HANDED_OVER) return rc;
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

NSM_STATS_TWIN(Alltoall, NSM_OP_ALLTOALL,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, MPI_Comm comm),
               (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
               sendbuf == MPI_IN_PLACE ? nsm_stat_bytes((long long)recvcount * nsm_stat_ranks(comm), recvtype)
                                       : nsm_stat_bytes((long long)sendcount * nsm_stat_ranks(comm), sendtype))
NSM_STATS_TWIN(Alltoallv, NSM_OP_ALLTOALLV,
               (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm),
               (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm),
               sendbuf == MPI_IN_PLACE ? nsm_stat_sum(recvcounts, comm, recvtype)
                                       : nsm_stat_sum(sendcounts, comm, sendtype))

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
    if (NSM_STATS_ON) return stats_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return accelerated_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                  MPI_Comm comm)
{
    if (NSM_STATS_ON)
        return stats_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                               comm);
    return accelerated_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                 comm);
}
NSM_ENTRY_ALIAS(Alltoall)
