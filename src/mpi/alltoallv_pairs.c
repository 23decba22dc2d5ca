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

int nsm_alltoallv_pairs(nsm_state_t *s, size_t T, const void *sendbuf, nsm_vec_t sv, MPI_Datatype sendtype,
                        void *recvbuf, nsm_vec_t rv, MPI_Datatype recvtype, MPI_Comm comm, const char *call)
{
    int ssize, rsize;
    MPI_Aint lb, sext, rext;
    if (sendtype == MPI_DATATYPE_NULL || recvtype == MPI_DATATYPE_NULL ||
        PMPI_Type_size(sendtype, &ssize) != MPI_SUCCESS || PMPI_Type_size(recvtype, &rsize) != MPI_SUCCESS)
        return nsm_bad_arg(comm, call, "sendtype or recvtype (MPI_DATATYPE_NULL)", 0);
    for (int r = 0; r < s->size; r++) {
        if (nsm_vec_count(&sv, r) < 0) return nsm_bad_arg(comm, call, "sendcounts[r]", nsm_vec_count(&sv, r));
        if (nsm_vec_count(&rv, r) < 0) return nsm_bad_arg(comm, call, "recvcounts[r]", nsm_vec_count(&rv, r));
    }
    PMPI_Type_get_extent(sendtype, &lb, &sext);
    PMPI_Type_get_extent(recvtype, &lb, &rext);
    const int sdense = nsm_is_dense(sendtype), rdense = nsm_is_dense(recvtype);
    MPI_Request stack_req[32], *req = stack_req;
    int nreq = 0;
    if (2 * s->size > 32 && !(req = malloc(sizeof *req * 2 * (size_t)s->size))) {
        fprintf(stderr, "nodeshm_mpi: %s: out of memory for %d requests\n", call, 2 * s->size);
        nodeshm_abort_job(1);
    }
#define SEND_AT(r) ((const char *)sendbuf + nsm_vec_displ(&sv, r) * (long long)sext)
#define RECV_AT(r) ((char *)recvbuf + nsm_vec_displ(&rv, r) * (long long)rext)

    /* a rank that writes no matrix block overwrites nothing a slower reader may still need */
    int writes = 0;
    for (int r = 0; r < s->size && !writes; r++) {
        unsigned long long bytes = (unsigned long long)nsm_vec_count(&sv, r) * (unsigned)ssize;
        writes = bytes && bytes <= T && (r != s->rank || !(sdense && rdense));
    }
    uint64_t seq = writes ? nsm_begin(s, NSM_OP_ALLTOALLV) : nsm_begin_reader(s, NSM_OP_ALLTOALLV);
    char *area = s->area.cur.slots; /* the current bank's matrix (the stride fits it: nsm_a2av_stride) */
    /* blocks above T travel by themselves while the matrix is filled and read */
    int rc = MPI_SUCCESS;
    for (int r = 0; r < s->size && rc == MPI_SUCCESS; r++) {
        long long n = nsm_vec_count(&rv, r);
        if (n && (unsigned long long)n * (unsigned)rsize > T)
            rc = nsm_p2p_start(0, RECV_AT(r), n, recvtype, s->p2p_rank[r], s->p2p_tag, &req[nreq++]);
    }
    for (int r = 0; r < s->size && rc == MPI_SUCCESS; r++) {
        long long n = nsm_vec_count(&sv, r);
        unsigned long long bytes = (unsigned long long)n * (unsigned)ssize;
        if (!bytes) continue;
        if (bytes > T)
            rc = nsm_p2p_start(1, (void *)SEND_AT(r), n, sendtype, s->p2p_rank[r], s->p2p_tag, &req[nreq++]);
        else if (r != s->rank || !(sdense && rdense))
            nsm_pack_as(area + nsm_a2a_send_block(s, r) * T, (size_t)bytes, SEND_AT(r), (int)n, sendtype, sdense,
                        comm);
    }
    nodeshm_flags_arrive(&s->area.flags, seq);
    for (int r = 0; r < s->size && rc == MPI_SUCCESS; r++) {
        long long n = nsm_vec_count(&rv, r);
        unsigned long long bytes = (unsigned long long)n * (unsigned)rsize;
        if (!bytes || bytes > T) continue;
        if (r == s->rank && sdense && rdense) { /* my own block, straight across */
            memcpy(RECV_AT(r), SEND_AT(r), (size_t)bytes);
            continue;
        }
        nodeshm_flags_wait_arrive(&s->area.flags, s->stage_index[r], seq);
        nsm_unpack_as(RECV_AT(r), (int)n, recvtype, rdense, nsm_a2a_recv_ptr(s, area, T, r), (size_t)bytes, comm);
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
}
