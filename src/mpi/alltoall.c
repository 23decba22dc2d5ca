/* libnodeshm_mpi: MPI_Alltoall and MPI_Alltoallv.
 *
 * Both move every block once through a "matrix" in the node's shared window, at a fixed block
 * stride T: the block from node rank i to comm rank r (node k, member m of k) sits at block
 *     node_size * node_first[k] + i * node_count[k] + m
 * so what the node sends to node k is one contiguous run of node_size * node_count[k] blocks,
 * source-major.  On one node the matrix is the slots area and every rank, once its peers have
 * arrived, pulls the blocks addressed to it (Alltoall: core/coll/alltoall.h, written once for
 * both faces, from the next rank on round).  Across nodes (2DECOMP&FFT's scheme) the matrix is
 * the leaders' stage: the leader waits for its node, exchanges one message per node pair with a
 * single PMPI_Alltoallv among leaders into the second half of the stage (laid out source-major
 * too: the block from rank r to my node rank i at stage_index[r] * node_size + i), and releases
 * the node; blocks between ranks of the same node never leave the matrix.
 *
 * Alltoall: T is the block's packed size, agreed by all ranks (signatures match).
 *
 * Alltoallv goes pair by pair (alltoallv_pairs.c), on one node and between nodes, without any
 * agreement round: a pair's byte count is known to both its ends (MPI's matching rule), so each
 * block takes the matrix when it fits the stride T (NODESHM_MPI_ALLTOALLV_MAX capped by what fits
 * the matrix, nsm_a2av_stride: the same on all ranks), else point to point.  Between nodes each
 * pair of leaders moves, for every block of its node pair, that block's bytes, which both
 * leaders found alone from what their members published (nsm_a2av_leaders_post: posted here,
 * waited for by Alltoallv's leader, tested by Ialltoallv's at each progress pass).
 *
 * Defaults (NODESHM_MPI_ALLTOALL_MAX, _ALLTOALLV_MAX 4 KiB), bench/mpi_osu.c on 2 cores shared with
 * other jobs (load 15-22): MPICH's own alltoall(v) takes 30-100 us there at any size, nodeshm
 * 0.5-1.5 us at 2 ranks (50-170x); Open MPI 2 ranks 1.0-1.3x at 1 B..256 B (own block copied
 * straight across), 1.2-1.7x up to 4 KiB, 0.5-0.7x from 16 KiB; 8 ranks 1.3-3.0x at 1 B..16 KiB
 * (alltoallv 1.4-2.5x); 4 ranks scheduler-dominated (0.1-3.3x). */
#include "mpi/nsmpi.h"
#include "mpi/publish.h"
#include "core/coll/alltoall.h"

#include <stdint.h>
#include <stdio.h>
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

/* The leaders' blocks of the node pair (my node, k): how many blocks and where they start, in
 * blocks: in the stage's send half, and in its receive half (nsm_a2a_recv_half); none with my own
 * node. */
static int a2a_pair_blocks(const nsm_state_t *s, int k, int *send_at, int *recv_at)
{
    *send_at = s->node_size * s->node_first[k];
    *recv_at = s->node_first[k] * s->node_size;
    return k == s->my_node ? 0 : s->node_size * s->node_count[k];
}

/* `n` blocks `stride` apart of which the first len[b] bytes of block b travel: one datatype
 * (committed; a vector when all carry the same), or MPI_DATATYPE_NULL when none carries any. */
static MPI_Datatype a2a_blocks_type(int n, size_t stride, const int *len)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int same = 1, some = 0;
    for (int b = 0; b < n; b++) {
        same &= len[b] == len[0];
        some += len[b] > 0;
    }
    if (!some) return t;
    if (same && (size_t)len[0] == stride) {
        PMPI_Type_contiguous(n * (int)stride, MPI_BYTE, &t);
    } else if (same) {
        PMPI_Type_vector(n, len[0], (int)stride, MPI_BYTE, &t);
    } else { /* the blocks that carry bytes, at their place */
        int *v = nsm_ints(2 * (size_t)some, "MPI_Alltoallv"), *at = v + some, k = 0;
        for (int b = 0; b < n; b++)
            if (len[b]) v[k] = len[b], at[k++] = b * (int)stride;
        PMPI_Type_indexed(some, v, at, MPI_BYTE, &t);
        free(v);
    }
    PMPI_Type_commit(&t);
    return t;
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
    for (int k = 0; k < n; k++) sc[k] = rc[k] = a2a_pair_blocks(s, k, &sd[k], &rd[k]);
}

/* Leaders (alltoall: every block is full): one PMPI_Alltoallv of the stage's send half for other
 * nodes into its receive half, waited for here. */
static void a2a_leaders(nsm_state_t *s, size_t stride)
{
    int n = s->n_nodes, *v = nsm_ints(4 * (size_t)n, "MPI_Alltoall");
    MPI_Datatype block = nsm_a2a_block_type(stride, stride);
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

/* Alltoallv's and Ialltoallv's leaders between nodes (nsmpi.h says what they post). */
int nsm_a2av_pair_direct(const nsm_state_t *s, const char *result, int k, int out)
{
    if (k == s->my_node || nsm_cfg.pes_per_node) return 0; /* pseudo-nodes race the library's shm */
    const int first = s->node_first[k], count = s->node_count[k];
    int nonzero = 0, largest = 0;
    size_t total = 0;
    for (int i = 0; i < s->node_size; i++) {
        const int *len = nsm_a2av_line(s, result, i) + (out ? 0 : s->size) + first;
        for (int m = 0; m < count; m++) {
            nonzero += len[m] > 0;
            total += (size_t)len[m];
            if (len[m] > largest) largest = len[m];
        }
    }
    return out ? nodeshm_nodes_alltoallv_pair_direct(s->node_size, count, nonzero, (size_t)largest, total)
               : nodeshm_nodes_alltoallv_pair_direct(count, s->node_size, nonzero, (size_t)largest, total);
}

void nsm_a2av_direct_pairs(const nsm_state_t *s, const char *result, int *dir)
{
    for (int k = 0; k < s->n_nodes; k++)
        for (int out = 0; out < 2; out++) dir[2 * k + out] = nsm_a2av_pair_direct(s, result, k, out);
}

int nsm_a2av_leaders_post(const nsm_state_t *s, const char *result, char *stage, size_t stride, MPI_Request *req)
{
    /* the lengths of the stage's blocks, from the members' lines (nsm_a2av_note): member i to
     * member m of node k in the send half, member m of node k to member i in the receive half */
    const size_t half = (size_t)s->node_size * (size_t)s->size;
    int stack[128], *send_len = 2 * half <= 128 ? stack : nsm_ints(2 * half, "MPI_Alltoallv");
    int *recv_len = send_len + half;
    for (int i = 0; i < s->node_size; i++) {
        const int *out = nsm_a2av_line(s, result, i), *in = out + s->size;
        for (int k = 0; k < s->n_nodes; k++) {
            const int first = s->node_first[k], count = s->node_count[k];
            for (int m = 0; m < count; m++) {
                send_len[s->node_size * first + i * count + m] = out[first + m];
                recv_len[first * s->node_size + m * s->node_size + i] = in[first + m];
            }
        }
    }
    /* one message each way per node pair, only its blocks' bytes; a datatype may be freed once
     * the call that uses it is posted (MPI completes the call as if it were not) */
    char *recv_half = nsm_a2a_recv_half(s, stage, stride);
    int nreq = 0;
    for (int dir = 0; dir < 2; dir++) /* receives, then sends */
        for (int k = 0; k < s->n_nodes; k++) {
            int send_at, recv_at, blocks = a2a_pair_blocks(s, k, &send_at, &recv_at);
            const int *len = dir ? send_len + send_at : recv_len + recv_at;
            if (blocks && nsm_a2av_pair_direct(s, result, k, dir)) continue; /* rank to rank */
            MPI_Datatype t = blocks ? a2a_blocks_type(blocks, stride, len) : MPI_DATATYPE_NULL;
            if (t == MPI_DATATYPE_NULL) continue;
            char *at = dir ? stage + (size_t)send_at * stride : recv_half + (size_t)recv_at * stride;
            if (dir) PMPI_Isend(at, 1, t, k, NSM_A2AV_LEADERS_TAG, s->leaders, &req[nreq++]);
            else PMPI_Irecv(at, 1, t, k, NSM_A2AV_LEADERS_TAG, s->leaders, &req[nreq++]);
            PMPI_Type_free(&t);
        }
    if (send_len != stack) free(send_len);
    return nreq;
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

/* ---- one node: core/coll/alltoall.h on the slots area's matrix (publish.h) ------------------------ */
/* Rank i's row of the matrix (its blocks, block r for rank r, T apart) is its publication: every
 * rank packs its row (its own block too unless it copies that straight across), arrives, and
 * takes block `me` of every rank's row once that rank arrived (on one node a rank's node rank
 * and stage index are its rank: nsm_a2a_send_block's block me * n + r). */
typedef struct nsm_alltoall_pub {
    nsm_pub_t c; /* c.type: recvtype */
    char *area;  /* the matrix */
    size_t T;    /* a block's packed bytes */
    const char *sendbuf;
    char *recvbuf;
    size_t sstride, rstride; /* bytes from one rank's block to the next one's */
    MPI_Datatype sendtype;
    int sendcount, recvcount, sdense, rdense;
    int self_direct; /* my own block straight across: both sides plain bytes, not in place */
    MPI_Comm comm;
} nsm_alltoall_pub_t;
static inline const nsm_alltoall_pub_t *alltoall_of(const nodeshm_pub_t *p)
{
    return (const nsm_alltoall_pub_t *)p;
}

static inline char *alltoall_claim(nodeshm_pub_t *p)
{
    const nsm_alltoall_pub_t *a = alltoall_of(p);
    return a->area + (size_t)p->me * (size_t)p->n * a->T;
}

static inline void alltoall_pack(nodeshm_pub_t *p, char *to)
{
    const nsm_alltoall_pub_t *a = alltoall_of(p);
    for (int r = 0; r < p->n; r++)
        if (r != p->me || !a->self_direct)
            nsm_pack_as(to + (size_t)r * a->T, a->T, a->sendbuf + (size_t)r * a->sstride, a->sendcount, a->sendtype,
                        a->sdense, a->comm);
}

/* Waits for rank k's arrival; returns its row */
static inline const char *alltoall_await(const nodeshm_pub_t *p, int k, int what)
{
    const nsm_alltoall_pub_t *a = alltoall_of(p);
    (void)what; /* DATA */
    nodeshm_flags_wait_arrive(&a->c.s->area.flags, k, a->c.seq);
    return a->area + (size_t)k * (size_t)p->n * a->T;
}

static inline const char *alltoall_block(const nodeshm_pub_t *p, const char *at, int j)
{
    return at + (size_t)j * alltoall_of(p)->T;
}

static inline void alltoall_unpack(nodeshm_pub_t *p, int k, const char *from)
{
    const nsm_alltoall_pub_t *a = alltoall_of(p);
    char *to = a->recvbuf + (size_t)k * a->rstride;
    if (k == p->me && a->self_direct)
        memcpy(to, a->sendbuf + (size_t)k * a->sstride, a->T);
    else
        nsm_unpack_as(to, a->recvcount, a->c.type, a->rdense, from, a->T, a->comm);
}

static const nodeshm_pub_ops_t alltoall_ops = {.post = nsm_pub_post, .await = alltoall_await, .done = nsm_pub_done,
                                               .claim = alltoall_claim, .pack = alltoall_pack,
                                               .unpack = alltoall_unpack, .block = alltoall_block};

/* ---- between nodes: the leaders' stage ------------------------------------------------------------ */
static void a2a_nodes(nsm_state_t *s, const nsm_alltoall_pub_t *a, uint64_t seq)
{
    const size_t T = a->T;
    char *area = a->area;
    for (int r = 0; r < s->size; r++)
        if (r != s->rank || !a->self_direct)
            nsm_pack_as(area + nsm_a2a_send_block(s, r) * T, T, a->sendbuf + (size_t)r * a->sstride, a->sendcount,
                        a->sendtype, a->sdense, a->comm);
    nodeshm_flags_arrive(&s->area.flags, seq);
    if (a->self_direct)
        memcpy(a->recvbuf + (size_t)s->rank * a->rstride, a->sendbuf + (size_t)s->rank * a->sstride, T);
    if (s->node_rank == 0) {
        nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_ARRIVE, seq);
        a2a_leaders(s, T);
        nodeshm_flags_release(&s->area.flags, seq);
    }
    /* blocks from my own node first, while the leader talks to the other nodes */
    for (int i = 0; i < s->node_size; i++) {
        int r = s->node_members[i];
        if (r == s->rank && a->self_direct) continue;
        nodeshm_flags_wait_arrive(&s->area.flags, i, seq);
        nsm_unpack_as(a->recvbuf + (size_t)r * a->rstride, a->recvcount, a->c.type, a->rdense,
                      nsm_a2a_recv_ptr(s, area, T, r), T, a->comm);
    }
    nodeshm_flags_wait_release(&s->area.flags, seq);
    for (int r = 0; r < s->size; r++)
        if (s->node_of[r] != s->my_node)
            nsm_unpack_as(a->recvbuf + (size_t)r * a->rstride, a->recvcount, a->c.type, a->rdense,
                          nsm_a2a_recv_ptr(s, area, T, r), T, a->comm);
    nodeshm_flags_done(&s->area.flags, seq);
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
    if (!area || nsm_alltoall_by_library(s, (size_t)b)) {
        NSM_HAND(NSM_OP_ALLTOALL, comm, s, 1, b, b < 0 ? NSM_WHY_DATATYPE : area ? NSM_WHY_LIBRARY : NSM_WHY_STAGE);
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    }
    if (in_place) {
        sendbuf = recvbuf;
        sendcount = recvcount;
        sendtype = recvtype;
    }
    MPI_Aint lb, sext, rext;
    PMPI_Type_get_extent(sendtype, &lb, &sext);
    PMPI_Type_get_extent(recvtype, &lb, &rext);
    const int sdense = nsm_is_dense(sendtype), rdense = nsm_is_dense(recvtype);
    nsm_alltoall_pub_t a = {.T = (size_t)b, .sendbuf = sendbuf, .recvbuf = recvbuf,
                            .sstride = (size_t)sendcount * (size_t)sext, .rstride = (size_t)recvcount * (size_t)rext,
                            .sendtype = sendtype, .sendcount = sendcount, .recvcount = recvcount,
                            .sdense = sdense, .rdense = rdense, .self_direct = !in_place && sdense && rdense,
                            .comm = comm};
    uint64_t seq = nsm_begin(s, NSM_OP_ALLTOALL);
    a.area = a2a_area(s, a.T);
    nsm_pub_start(&a.c, s, seq, recvtype, MPI_OP_NULL);
    if (s->n_nodes > 1) a2a_nodes(s, &a, seq);
    else nodeshm_alltoall(&alltoall_ops, &a.c.p);
    return MPI_SUCCESS;
}

/* Alltoallv: pair by pair on one node and between nodes (alltoallv_pairs.c), where the matrix
 * and a tag exist; else the MPI library's (agreed: the configuration and the communicator). */
static inline int accelerated_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    nsm_state_t *s = nsm_op_max(NSM_OP_ALLTOALLV) ? nsm_get_state(comm) : NULL;
    const size_t T = nsm_alltoallv_pairs_stride(s, NSM_OP_ALLTOALLV);
    if (!T) {
        NSM_HAND(NSM_OP_ALLTOALLV, comm, s, nsm_op_max(NSM_OP_ALLTOALLV) != 0, -1, NSM_WHY_STAGE);
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
    }
    return nsm_alltoallv_pairs(s, T, sendbuf, (nsm_vec_t){sendcounts, sdispls, 0, NULL}, sendtype, recvbuf,
                               (nsm_vec_t){recvcounts, rdispls, 0, NULL}, recvtype, comm, "MPI_Alltoallv");
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
