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

/* The side's datatype for rank r: the call's one (`one`), or alltoallw's r-th, then 1 with *out
 * set; 0 for a datatype the library does not know (MPI_DATATYPE_NULL). */
static int side_at(const nsm_vec_t *v, const pair_side_t *one, int r, pair_side_t *out)
{
    if (!v->types) {
        *out = *one;
        return 1;
    }
    MPI_Datatype t = v->types[r];
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
    pair_side_t s1 = {sendtype, 0, 0, 1}, r1 = {recvtype, 0, 0, 1}, ss, rs;
    MPI_Aint lb;
    if (!sv.types &&
        (sendtype == MPI_DATATYPE_NULL || recvtype == MPI_DATATYPE_NULL ||
         PMPI_Type_size(sendtype, &s1.size) != MPI_SUCCESS || PMPI_Type_size(recvtype, &r1.size) != MPI_SUCCESS))
        return nsm_bad_arg(comm, call, "sendtype or recvtype (MPI_DATATYPE_NULL)", 0);
    for (int r = 0; r < s->size; r++) {
        if (nsm_vec_count(&sv, r) < 0) return nsm_bad_arg(comm, call, "sendcounts[r]", nsm_vec_count(&sv, r));
        if (nsm_vec_count(&rv, r) < 0) return nsm_bad_arg(comm, call, "recvcounts[r]", nsm_vec_count(&rv, r));
        if ((nsm_vec_count(&sv, r) && !side_at(&sv, &s1, r, &ss)) || (nsm_vec_count(&rv, r) && !side_at(&rv, &r1, r, &rs)))
            return nsm_bad_arg(comm, call, "sendtypes[r] or recvtypes[r] (MPI_DATATYPE_NULL) at r =", r);
    }
    if (!sv.types) {
        PMPI_Type_get_extent(sendtype, &lb, &s1.unit);
        PMPI_Type_get_extent(recvtype, &lb, &r1.unit);
        s1.dense = nsm_is_dense(sendtype);
        r1.dense = nsm_is_dense(recvtype);
    }
    ss = s1;
    rs = r1;
    MPI_Request stack_req[32], *req = stack_req;
    int nreq = 0;
    if (2 * s->size > 32 && !(req = malloc(sizeof *req * 2 * (size_t)s->size))) {
        fprintf(stderr, "nodeshm_mpi: %s: out of memory for %d requests\n", call, 2 * s->size);
        nodeshm_abort_job(1);
    }
#define SEND_AT(r) ((const char *)sendbuf + nsm_vec_displ(&sv, r) * (long long)ss.unit)
#define RECV_AT(r) ((char *)recvbuf + nsm_vec_displ(&rv, r) * (long long)rs.unit)
/* my own block goes straight across when both sides are memcpy-able */
#define SELF_DIRECT(r) ((r) == s->rank && ss.dense && (side_at(&rv, &r1, r, &rs), rs.dense))

    /* a rank that writes no matrix block overwrites nothing a slower reader may still need */
    int writes = 0;
    for (int r = 0; r < s->size && !writes; r++) {
        long long n = nsm_vec_count(&sv, r);
        if (!n) continue;
        side_at(&sv, &s1, r, &ss);
        unsigned long long bytes = (unsigned long long)n * (unsigned)ss.size;
        writes = bytes && bytes <= T && !SELF_DIRECT(r);
    }
    uint64_t seq = writes ? nsm_begin(s, id) : nsm_begin_reader(s, id);
    char *area = s->area.cur.slots; /* the current bank's matrix (the stride fits it: nsm_a2av_stride) */
    /* blocks above T travel by themselves while the matrix is filled and read */
    int rc = MPI_SUCCESS;
    for (int r = 0; r < s->size && rc == MPI_SUCCESS; r++) {
        long long n = nsm_vec_count(&rv, r);
        if (!n) continue;
        side_at(&rv, &r1, r, &rs);
        if ((unsigned long long)n * (unsigned)rs.size > T)
            rc = nsm_p2p_start(0, RECV_AT(r), n, rs.type, s->p2p_rank[r], s->p2p_tag, &req[nreq++]);
    }
    for (int r = 0; r < s->size && rc == MPI_SUCCESS; r++) {
        long long n = nsm_vec_count(&sv, r);
        if (!n) continue;
        side_at(&sv, &s1, r, &ss);
        unsigned long long bytes = (unsigned long long)n * (unsigned)ss.size;
        if (!bytes) continue;
        if (bytes > T)
            rc = nsm_p2p_start(1, (void *)SEND_AT(r), n, ss.type, s->p2p_rank[r], s->p2p_tag, &req[nreq++]);
        else if (!SELF_DIRECT(r))
            nsm_pack_as(area + nsm_a2a_send_block(s, r) * T, (size_t)bytes, SEND_AT(r), (int)n, ss.type, ss.dense,
                        comm);
    }
    nodeshm_flags_arrive(&s->area.flags, seq);
    for (int r = 0; r < s->size && rc == MPI_SUCCESS; r++) {
        long long n = nsm_vec_count(&rv, r);
        if (!n) continue;
        side_at(&rv, &r1, r, &rs);
        unsigned long long bytes = (unsigned long long)n * (unsigned)rs.size;
        if (!bytes || bytes > T) continue;
        if (r == s->rank && nsm_vec_count(&sv, r) && (side_at(&sv, &s1, r, &ss), SELF_DIRECT(r))) {
            memcpy(RECV_AT(r), SEND_AT(r), (size_t)bytes); /* my own block, straight across */
            continue;
        }
        nodeshm_flags_wait_arrive(&s->area.flags, s->stage_index[r], seq);
        nsm_unpack_as(RECV_AT(r), (int)n, rs.type, rs.dense, nsm_a2a_recv_ptr(s, area, T, r), (size_t)bytes, comm);
    }
    if (nreq) {
        int wrc = PMPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        if (rc == MPI_SUCCESS) rc = wrc;
    }
    if (req != stack_req) free(req);
    nodeshm_flags_done(&s->area.flags, seq);
    return rc;
#undef SEND_AT
#undef RECV_AT
#undef SELF_DIRECT
}
