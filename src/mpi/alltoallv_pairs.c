/* libnodeshm_mpi: MPI_Alltoallv on one node, pair by pair.
 *
 * Why: the vote path (alltoall.c) makes every rank wait for every other twice per call (the
 * vote, then the pull), because no rank knows the others' counts.  Applications call
 * alltoallv with few partners per rank and arrive at different times: LAMMPS' PPPM remap (4
 * ranks, `kspace_modify collective yes`) spent 2-3x longer in nodeshm's alltoallv than in
 * Open MPI's, whose pairwise exchange waits only for partners, and the whole run was 1.17x
 * slower preloaded; bench/mpi_osu's alltoallv_sparse with 0-2 ms of imbalance was 0.70x.
 *
 * On one node no vote is needed: the byte count of a pair is known to both its ends (MPI's
 * matching rule), so each end decides alone, and alike, how the pair's block travels -- through
 * the sender's row of the matrix (alltoall.c's layout, stride T) when it fits T, else as a
 * PMPI_Isend/PMPI_Irecv pair on nsm_p2p with the communicator's tag (as gatherv does).  A rank
 * raises its arrive flag once its matrix blocks are written and waits only for the senders of
 * the blocks it takes from the matrix.  The matrix is reused as every shared buffer is: a rank
 * that writes into it first waits until the readers of the call n_banks calls back are done
 * (nsm_begin), normally long since.
 *
 * Counts and displacements come as int (MPI_Alltoallv) or MPI_Count/MPI_Aint (MPI_Alltoallv_c:
 * no conversion, so a count above INT_MAX needs no vote either: its block is above T). */
#include "mpi/nsmpi.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t nsm_alltoallv_pairs_stride(const nsm_state_t *s, int in_place)
{
    /* agreed on every rank: the configuration, the communicator and MPI_IN_PLACE (all or none);
     * the stride is capped by what fits the matrix (nsm_a2av_stride) */
    if (!s || in_place || s->n_nodes != 1 || s->p2p_tag < 0) return 0;
    return nsm_a2av_stride(s);
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

int nsm_alltoallv_pairs(nsm_state_t *s, size_t T, const void *sendbuf, nsm_vec_t sv, MPI_Datatype sendtype,
                        void *recvbuf, nsm_vec_t rv, MPI_Datatype recvtype, MPI_Comm comm, const char *call)
{
    /* alltoallw (a datatype per pair) counts as its own op */
    const int id = sv.types ? NSM_OP_ALLTOALLW : NSM_OP_ALLTOALLV;
    pair_sides_t ss = {{sendtype, 0, 0, 1}, NULL}, rs = {{recvtype, 0, 0, 1}, NULL};
    MPI_Aint lb;
    if (!sv.types) {
        if (sendtype == MPI_DATATYPE_NULL || recvtype == MPI_DATATYPE_NULL ||
            PMPI_Type_size(sendtype, &ss.one.size) != MPI_SUCCESS ||
            PMPI_Type_size(recvtype, &rs.one.size) != MPI_SUCCESS)
            return nsm_bad_arg(comm, call, "sendtype or recvtype (MPI_DATATYPE_NULL)", 0);
        PMPI_Type_get_extent(sendtype, &lb, &ss.one.unit);
        PMPI_Type_get_extent(recvtype, &lb, &rs.one.unit);
        ss.one.dense = nsm_is_dense(sendtype);
        rs.one.dense = nsm_is_dense(recvtype);
    }
    /* one allocation: alltoallw's sides (2 per rank), then the point-to-point requests */
    const size_t nsides = sv.types ? 2 * (size_t)s->size : 0;
    max_align_t stack[48]; /* 768 bytes: alltoallv's requests up to 48 ranks, alltoallw's up to 12 */
    const size_t want = nsides * sizeof(pair_side_t) + 2 * (size_t)s->size * sizeof(MPI_Request);
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
    /* my own block goes straight across when both sides are memcpy-able */
    const int me = s->rank;
    const int self_direct = nsm_vec_count(&sv, me) && nsm_vec_count(&rv, me) && side(&ss, me)->dense &&
                            side(&rs, me)->dense;
#define SEND_AT(r) ((const char *)sendbuf + nsm_vec_displ(&sv, r) * (long long)side(&ss, r)->unit)
#define RECV_AT(r) ((char *)recvbuf + nsm_vec_displ(&rv, r) * (long long)side(&rs, r)->unit)

    /* a rank that writes no matrix block overwrites nothing a slower reader may still need */
    int writes = 0;
    for (int r = 0; r < s->size && !writes; r++) {
        long long n = nsm_vec_count(&sv, r);
        if (!n) continue;
        unsigned long long bytes = (unsigned long long)n * (unsigned)side(&ss, r)->size;
        writes = bytes && bytes <= T && !(r == me && self_direct);
    }
    uint64_t seq = writes ? nsm_begin(s, id) : nsm_begin_reader(s, id);
    char *area = s->area.cur.slots; /* the current bank's matrix (the stride fits it: nsm_a2av_stride) */
    /* blocks above T travel by themselves while the matrix is filled and read */
    int nreq = 0;
    for (int r = 0; r < s->size && rc == MPI_SUCCESS; r++) {
        long long n = nsm_vec_count(&rv, r);
        if (!n) continue;
        pr = side(&rs, r);
        if ((unsigned long long)n * (unsigned)pr->size > T)
            rc = nsm_p2p_start(0, RECV_AT(r), n, pr->type, s->p2p_rank[r], s->p2p_tag, &req[nreq++]);
    }
    for (int r = 0; r < s->size && rc == MPI_SUCCESS; r++) {
        long long n = nsm_vec_count(&sv, r);
        if (!n) continue;
        ps = side(&ss, r);
        unsigned long long bytes = (unsigned long long)n * (unsigned)ps->size;
        if (!bytes) continue;
        if (bytes > T)
            rc = nsm_p2p_start(1, (void *)SEND_AT(r), n, ps->type, s->p2p_rank[r], s->p2p_tag, &req[nreq++]);
        else if (!(r == me && self_direct))
            nsm_pack_as(area + nsm_a2a_send_block(s, r) * T, (size_t)bytes, SEND_AT(r), (int)n, ps->type, ps->dense,
                        comm);
    }
    nodeshm_flags_arrive(&s->area.flags, seq);
    for (int r = 0; r < s->size && rc == MPI_SUCCESS; r++) {
        long long n = nsm_vec_count(&rv, r);
        if (!n) continue;
        pr = side(&rs, r);
        unsigned long long bytes = (unsigned long long)n * (unsigned)pr->size;
        if (!bytes || bytes > T) continue;
        if (r == me && self_direct) {
            memcpy(RECV_AT(r), SEND_AT(r), (size_t)bytes); /* my own block, straight across */
            continue;
        }
        nodeshm_flags_wait_arrive(&s->area.flags, s->stage_index[r], seq);
        nsm_unpack_as(RECV_AT(r), (int)n, pr->type, pr->dense, nsm_a2a_recv_ptr(s, area, T, r), (size_t)bytes, comm);
    }
    if (nreq) {
        int wrc = PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        if (rc == MPI_SUCCESS) rc = wrc;
    }
    if (mem != (void *)stack) free(mem);
    nodeshm_flags_done(&s->area.flags, seq);
    return rc;
#undef SEND_AT
#undef RECV_AT
}
