/* libnodeshm_mpi: MPI_Alltoallv pair by pair, on one node and between nodes (and MPI_Alltoallw on
 * one node).
 *
 * Why: a vote (every rank's largest block, then the pull) makes every rank wait for every other
 * twice per call, as nodeshm's first alltoallv did.  Applications call
 * alltoallv with few partners per rank and arrive at different times: LAMMPS' PPPM remap (4
 * ranks, `kspace_modify collective yes`) spent 2-3x longer in nodeshm's alltoallv than in
 * Open MPI's, whose pairwise exchange waits only for partners, and the whole run was 1.17x
 * slower preloaded; bench/mpi_osu's alltoallv_sparse with 0-2 ms of imbalance was 0.70x.
 *
 * No vote is needed: the byte count of a pair is known to both its ends (MPI's
 * matching rule), so each end decides alone, and alike, how the pair's block travels -- through
 * the sender's row of the matrix (alltoall.c's layout, stride T) when it fits T, else as a
 * PMPI_Isend/PMPI_Irecv pair on nsm_p2p with the communicator's tag (as gatherv does).  A rank
 * raises its arrive flag once its matrix blocks are written and waits only for the senders of
 * the blocks it takes from the matrix.  The matrix is reused as every shared buffer is: a rank
 * that writes into it first waits until the readers of the call n_banks calls back are done
 * (nsm_begin), normally long since.
 *
 * Between nodes (issue 16) no round between nodes precedes the data either:
 * the matrix is the leaders' stage (alltoall.c's layout); the blocks between nodes that fit T
 * travel in it through the leaders, the larger ones point to point.  For a node pair (A, B) the
 * bytes of each matrix block from A's ranks to B's are known to A's leader from its members' send
 * counts and to B's leader from its members' receive counts, which the members publish in the
 * result area before they arrive (per rank of another node: the bytes of the matrix block to it,
 * and from it).  So each pair of leaders agrees on what its message holds without talking: only
 * the blocks' bytes (an indexed datatype over the stage; a vector when all are alike), nothing
 * where a pair of nodes has no matrix block (nsm_a2av_leaders_post, also the exchange of
 * MPI_Ialltoallv's leaders between nodes).  It replaced a
 * vote (every rank's largest block, a PMPI_Allreduce of the leaders, then all blocks at the
 * largest size or the whole call to the MPI library): a network round trip before the data
 * that the libraries' own alltoallv never pays, and max-block bytes for every pair of a sparse
 * exchange.
 * A sparse node pair with small blocks (core/coll/library_wins.h: MPICH, at most half of the
 * pair's blocks, none above the inject size) skips the leaders: once its node's lines are in,
 * each rank sends and receives that pair's blocks itself, from the stage's send half into its
 * receive half, where the leaders would have put them (the leaders leave the pair out alike).
 * Every wait on the library's requests is by tests under the core's policy (nsm_wait_requests).
 *
 * MPICH, 2 emulated hosts x 8 (the 5+ per host column), 3 launches alternating, -i 50: with the
 * 2 KiB stride each rank's sparse exchange (the ranks of its parity) lost at 2 KiB blocks through
 * the leaders, alltoallv 0.74-0.82x, ialltoallv 0.62-0.76x (1 KiB 0.88-1.26x), while the uniform
 * one won 2.4-2.8x there; with 1 KiB, 2 KiB blocks go point to point: sparse 0.96-1.02x, uniform
 * 0.93-1.16x, and uniform 1 KiB 2.9-3.2x (1.6-1.8x at the 2 KiB stride).  So 1 KiB from 5 per
 * host under MPICH.  (Sending a sparse pair's larger blocks rank to rank, as the small ones
 * already are, would keep the uniform 2 KiB win: not measured yet.)
 *
 * Counts and displacements come as int (MPI_Alltoallv) or MPI_Count/MPI_Aint (MPI_Alltoallv_c:
 * no conversion, so a count above INT_MAX needs no agreement either: its block is above T, point
 * to point).  In place (alltoallv), a block sent point to point is copied aside first: its
 * receive may overwrite it. */
#include "mpi/nsmpi.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t nsm_alltoallv_pairs_stride(const nsm_state_t *s, int op)
{
    /* agreed on every rank: the configuration and the communicator; the stride is op's window
     * capped by what fits the matrix (nsm_a2a_stride), and between nodes the members' lines must
     * fit the result area */
    if (!s || s->p2p_tag < 0) return 0;
    if (s->n_nodes > 1 && (size_t)s->max_node_size * nsm_a2av_meta_bytes(s->size) > s->area.banks.result_bytes)
        return 0;
    return nsm_a2a_stride(s, s->max[op]);
}

size_t nsm_alltoallw_pairs_stride(const nsm_state_t *s, int in_place)
{
    if (!s || in_place || s->n_nodes != 1 || s->p2p_tag < 0) return 0;
    return nsm_a2a_stride(s, s->max[NSM_OP_ALLTOALLW]);
}

/* One side of the pair with rank r: its datatype, the bytes of one element, whether memcpy gives
 * the packed form, the unit of its displacement. */
typedef struct pair_side {
    MPI_Datatype type;
    int size, dense;
    MPI_Aint unit;
} pair_side_t;

/* A call's sides: one for every pair (alltoallv), or alltoallw's, one per rank (at[r]), each
 * looked up once; a pair with no elements has none (never read). */
typedef struct pair_sides {
    pair_side_t one, *at;
} pair_sides_t;

static inline const pair_side_t *side(const pair_sides_t *p, int r) { return p->at ? &p->at[r] : &p->one; }

/* Alltoallw's side for a datatype of the library's: 1 with *out set; 0 for one it does not know
 * (MPI_DATATYPE_NULL). */
static int side_of(MPI_Datatype t, pair_side_t *out)
{
    if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &out->size) != MPI_SUCCESS) return 0;
    out->type = t;
    out->dense = nsm_is_dense(t);
    out->unit = 1; /* alltoallw: displacements in bytes */
    return 1;
}

/* Bytes of the block of the pair with rank r on one side (0: no elements, no side looked up). */
static inline unsigned long long pair_bytes(const nsm_vec_t *v, const pair_sides_t *p, int r)
{
    long long n = nsm_vec_count(v, r);
    return n ? (unsigned long long)n * (unsigned)side(p, r)->size : 0;
}

/* Between nodes, before my arrive flag: my line for my leader (nsm_a2av_note). */
static void publish_blocks(const nsm_state_t *s, size_t T, const nsm_vec_t *sv, const pair_sides_t *ss,
                           const nsm_vec_t *rv, const pair_sides_t *rs)
{
    int *line = nsm_a2av_line(s, s->area.cur.result, s->node_rank);
    for (int r = 0; r < s->size; r++) nsm_a2av_note(s, line, T, r, pair_bytes(sv, ss, r), pair_bytes(rv, rs, r));
}

/* Between nodes, after my arrive flag: which node pairs' blocks travel rank to rank
 * (nsm_a2av_pair_direct), dir[2 k + out] for node k; NULL, without a wait, when no block of mine
 * to or from another node could (core/coll/library_wins.h: none small enough).  Else waits until
 * my node's lines are all in: what the leader waits for before its exchange anyway. */
static const int *direct_pairs(nsm_state_t *s, size_t T, uint64_t seq, const nsm_vec_t *sv,
                               const pair_sides_t *ss, const nsm_vec_t *rv, const pair_sides_t *rs, int *dir)
{
    int some = 0;
    for (int r = 0; r < s->size && !some; r++)
        some = s->node_of[r] != s->my_node &&
               (nsm_a2av_may_direct(pair_bytes(sv, ss, r), T) || nsm_a2av_may_direct(pair_bytes(rv, rs, r), T));
    if (!some) return NULL;
    nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_ARRIVE, seq);
    nsm_a2av_direct_pairs(s, s->area.cur.result, dir);
    return dir;
}

/* The leader, between nodes: once its node has arrived, the leaders' exchange of what the
 * members' lines say (alltoall.c), waited for; the release. */
static void leader_step(nsm_state_t *s, size_t T, uint64_t seq)
{
    nodeshm_flags_wait_all(&s->area.flags, NODESHM_FLAG_ARRIVE, seq);
    MPI_Request stack[16], *req = 2 * s->n_nodes <= 16 ? stack : nsm_requests(2 * s->n_nodes, "MPI_Alltoallv");
    nsm_wait_requests(nsm_a2av_leaders_post(s, s->area.cur.result, s->area.cur.stage, T, req), req);
    if (req != stack) free(req);
    nodeshm_flags_release(&s->area.flags, seq);
}

int nsm_alltoallv_pairs(nsm_state_t *s, size_t T, const void *sendbuf, nsm_vec_t sv, MPI_Datatype sendtype,
                        void *recvbuf, nsm_vec_t rv, MPI_Datatype recvtype, MPI_Comm comm, const char *call)
{
    /* alltoallw (a datatype per pair) counts as its own op; in place (alltoallv only) the
     * receive side goes both ways */
    const int id = sv.types ? NSM_OP_ALLTOALLW : NSM_OP_ALLTOALLV, in_place = sendbuf == MPI_IN_PLACE;
    if (in_place) sendbuf = recvbuf, sv = rv, sendtype = recvtype;
    pair_sides_t ss = {{sendtype, 0, 0, 1}, NULL}, rs = {{recvtype, 0, 0, 1}, NULL};
    MPI_Aint lb, tlb = 0, text = 0;
    if (!sv.types) {
        if (sendtype == MPI_DATATYPE_NULL || recvtype == MPI_DATATYPE_NULL ||
            PMPI_Type_size(sendtype, &ss.one.size) != MPI_SUCCESS ||
            PMPI_Type_size(recvtype, &rs.one.size) != MPI_SUCCESS)
            return nsm_bad_arg(comm, call, "sendtype or recvtype (MPI_DATATYPE_NULL)", 0);
        PMPI_Type_get_extent(sendtype, &lb, &ss.one.unit);
        PMPI_Type_get_extent(recvtype, &lb, &rs.one.unit);
        ss.one.dense = nsm_is_dense(sendtype);
        rs.one.dense = nsm_is_dense(recvtype);
        if (in_place) PMPI_Type_get_true_extent(recvtype, &tlb, &text);
    }
    if (!sv.counts || !sv.displs || !rv.counts || !rv.displs)
        return nsm_bad_arg(comm, call, "counts or displacements (NULL)", 0);
    /* one allocation: alltoallw's sides (2 per rank), the point-to-point requests, between nodes
     * the direct node pairs (direct_pairs) */
    const size_t nsides = sv.types ? 2 * (size_t)s->size : 0;
    max_align_t stack[48]; /* 768 bytes: alltoallv's requests up to 48 ranks (one node), alltoallw's up to 12 */
    const size_t want = nsides * sizeof(pair_side_t) + 2 * (size_t)s->size * sizeof(MPI_Request) +
                        (s->n_nodes > 1 ? 2 * (size_t)s->n_nodes * sizeof(int) : 0);
    void *mem = want <= sizeof stack ? (void *)stack : malloc(want);
    if (!mem) {
        fprintf(stderr, "nodeshm_mpi: %s: out of memory for %d ranks' requests\n", call, s->size);
        nodeshm_abort_job(1);
    }
    if (nsides) ss.at = mem, rs.at = ss.at + s->size;
    MPI_Request *req = (MPI_Request *)((pair_side_t *)mem + nsides);
    int rc = MPI_SUCCESS;
    for (int r = 0; r < s->size && rc == MPI_SUCCESS; r++) {
        const long long sn = nsm_vec_count(&sv, r), rn = nsm_vec_count(&rv, r);
        if (sn < 0) rc = nsm_bad_arg(comm, call, "sendcounts[r]", sn);
        else if (rn < 0) rc = nsm_bad_arg(comm, call, "recvcounts[r]", rn);
        else if (nsides && ((sn && !side_of(sv.types[r], &ss.at[r])) || (rn && !side_of(rv.types[r], &rs.at[r]))))
            rc = nsm_bad_arg(comm, call, "sendtypes[r] or recvtypes[r] (MPI_DATATYPE_NULL) at r =", r);
    }
    if (rc != MPI_SUCCESS) {
        if (mem != (void *)stack) free(mem);
        return rc;
    }
    const pair_side_t *ps, *pr;
    /* my own block: in place it stays where it is; straight across when both sides are
     * memcpy-able, at any size (above T it went point to point to myself: Open MPI, one node,
     * 2 ranks, a self-only 16-32 KiB block 0.74-0.90x of the library's copy); else through the
     * matrix or point to point like any other */
    const int me = s->rank, nodes = s->n_nodes > 1;
    const int self_direct = !in_place && nsm_vec_count(&sv, me) && nsm_vec_count(&rv, me) &&
                            side(&ss, me)->dense && side(&rs, me)->dense;
    const int self_kept = in_place || self_direct;
#define SEND_AT(r) ((const char *)sendbuf + nsm_vec_displ(&sv, r) * (long long)side(&ss, r)->unit)
#define RECV_AT(r) ((char *)recvbuf + nsm_vec_displ(&rv, r) * (long long)side(&rs, r)->unit)
/* in place: a block sent point to point, copied aside (aside NULL: its room there) */
#define ASIDE(aside, r) nsm_aside(aside, SEND_AT(r), nsm_vec_count(&sv, r), ss.one.unit, tlb, text)

    /* a rank that writes no matrix block overwrites nothing a slower reader may still need;
     * between nodes every rank publishes its line for its leader */
    int writes = nodes;
    size_t aside_bytes = 0;
    for (int r = 0; r < s->size; r++) {
        unsigned long long bytes = pair_bytes(&sv, &ss, r);
        if (!bytes || (r == me && self_kept)) continue;
        if (bytes <= T) writes = 1;
        else if (in_place) aside_bytes += ASIDE(NULL, r);
    }
    /* in place, the blocks sent point to point, copied aside before their receives are posted */
    char *aside = aside_bytes ? malloc(aside_bytes) : NULL;
    if (aside_bytes && !aside) {
        fprintf(stderr, "nodeshm_mpi: %s: out of memory for %zu bytes sent in place\n", call, aside_bytes);
        nodeshm_abort_job(1);
    }
    size_t at = 0;
    for (int r = 0; aside && r < s->size; r++)
        if (!(r == me && self_kept) && pair_bytes(&sv, &ss, r) > T) at += ASIDE(aside + at, r);
    uint64_t seq = writes ? nsm_begin(s, id) : nsm_begin_reader(s, id);
    /* the current bank's matrix (the stride fits it: nsm_a2av_stride) */
    char *area = nodes ? s->area.cur.stage : s->area.cur.slots;
    /* blocks above T travel by themselves while the matrix is filled and read */
    int nreq = 0;
    for (int r = 0; r < s->size && rc == MPI_SUCCESS; r++) {
        const unsigned long long bytes = pair_bytes(&rv, &rs, r);
        if (bytes > T && !(r == me && self_kept))
            rc = nsm_p2p_start(0, RECV_AT(r), nsm_vec_count(&rv, r), side(&rs, r)->type, s->p2p_rank[r], s->p2p_tag,
                               &req[nreq++]);
    }
    at = 0;
    for (int r = 0; r < s->size && rc == MPI_SUCCESS; r++) {
        const unsigned long long bytes = pair_bytes(&sv, &ss, r);
        if (!bytes || (r == me && self_kept)) continue;
        const long long n = nsm_vec_count(&sv, r);
        ps = side(&ss, r);
        if (bytes > T && aside) {
            rc = nsm_p2p_start(1, aside + at - tlb, n, ps->type, s->p2p_rank[r], s->p2p_tag, &req[nreq++]);
            at += ASIDE(NULL, r);
        } else if (bytes > T) {
            rc = nsm_p2p_start(1, (void *)SEND_AT(r), n, ps->type, s->p2p_rank[r], s->p2p_tag, &req[nreq++]);
        } else {
            nsm_pack_as(area + nsm_a2a_send_block(s, r) * T, (size_t)bytes, SEND_AT(r), (int)n, ps->type,
                        ps->dense, comm);
        }
    }
    if (nodes) publish_blocks(s, T, &sv, &ss, &rv, &rs);
    nodeshm_flags_arrive(&s->area.flags, seq);
    /* between nodes, the matrix blocks of direct node pairs rank to rank: from the stage's send
     * half into its receive half, where the leaders would have put them */
    const int *dir = nodes ? direct_pairs(s, T, seq, &sv, &ss, &rv, &rs, (int *)(req + 2 * s->size)) : NULL;
#define DIRECT(r, out) (dir && dir[2 * s->node_of[r] + (out)])
    int via_leaders = 0; /* a matrix block of mine from another node comes through the leaders */
    for (int r = 0; nodes && r < s->size && rc == MPI_SUCCESS; r++) {
        if (s->node_of[r] == s->my_node) continue;
        const unsigned long long from = pair_bytes(&rv, &rs, r), to = pair_bytes(&sv, &ss, r);
        if (from && from <= T && !DIRECT(r, 0)) via_leaders = 1;
        if (from && from <= T && DIRECT(r, 0))
            rc = nsm_p2p_start(0, (void *)nsm_a2a_recv_ptr(s, area, T, r), (long long)from, MPI_BYTE, s->p2p_rank[r],
                               s->p2p_tag, &req[nreq++]);
        if (to && to <= T && DIRECT(r, 1) && rc == MPI_SUCCESS)
            rc = nsm_p2p_start(1, area + nsm_a2a_send_block(s, r) * T, (long long)to, MPI_BYTE, s->p2p_rank[r],
                               s->p2p_tag, &req[nreq++]);
    }
    if (self_direct) memcpy(RECV_AT(me), SEND_AT(me), (size_t)pair_bytes(&rv, &rs, me)); /* straight across */
    if (nodes && s->node_rank == 0) leader_step(s, T, seq);
    /* the matrix blocks: my node's as their senders arrive, then (between nodes) the others' once
     * my leader has released the node; those of direct pairs once received, below */
    for (int remote = 0; remote <= nodes && rc == MPI_SUCCESS; remote++) {
        if (remote && s->node_rank != 0 && via_leaders) nodeshm_flags_wait_release(&s->area.flags, seq);
        for (int r = 0; r < s->size; r++) {
            const unsigned long long bytes = pair_bytes(&rv, &rs, r);
            if (!bytes || bytes > T || (s->node_of[r] != s->my_node) != remote || (r == me && self_kept)) continue;
            if (remote && DIRECT(r, 0)) continue;
            pr = side(&rs, r);
            if (!remote) nodeshm_flags_wait_arrive(&s->area.flags, s->stage_index[r] - s->node_first[s->my_node], seq);
            nsm_unpack_as(RECV_AT(r), (int)nsm_vec_count(&rv, r), pr->type, pr->dense,
                          nsm_a2a_recv_ptr(s, area, T, r), (size_t)bytes, comm);
        }
    }
    if (nreq) {
        int wrc = nsm_wait_requests(nreq, req);
        if (rc == MPI_SUCCESS) rc = wrc;
    }
    for (int r = 0; dir && r < s->size && rc == MPI_SUCCESS; r++) {
        const unsigned long long bytes = pair_bytes(&rv, &rs, r);
        if (s->node_of[r] != s->my_node && bytes && bytes <= T && DIRECT(r, 0))
            nsm_unpack_as(RECV_AT(r), (int)nsm_vec_count(&rv, r), side(&rs, r)->type, side(&rs, r)->dense,
                          nsm_a2a_recv_ptr(s, area, T, r), (size_t)bytes, comm);
    }
#undef DIRECT
    free(aside);
    if (mem != (void *)stack) free(mem);
    nodeshm_flags_done(&s->area.flags, seq);
    return rc;
#undef SEND_AT
#undef RECV_AT
#undef ASIDE
}
