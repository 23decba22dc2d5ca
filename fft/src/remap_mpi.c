/* nodeshm-fft: the MPI strategies: mpi-p2p (LAMMPS' remap_3d: pack, MPI_Irecv / MPI_Send /
 * MPI_Waitany, unpack) and mpi-alltoallv (LAMMPS' collective option). */
#include "remap_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void *nsf_alloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64)) return NULL;
    return p;
}

/* Counts in elements must fit an int. */
int nsf_buffers(struct nodeshm_remap *r, size_t send_elems, size_t recv_elems)
{
    for (int k = 0; k < r->nsend + r->nrecv; k++) {
        const nsf_peer_t *p = k < r->nsend ? &r->send[k] : &r->recv[k - r->nsend];
        if (p->count > INT_MAX) {
            nsf_error("nodeshm_remap_create", "a block of %zu points between ranks %d and %d "
                      "(at most %d: use more ranks)", p->count, r->rank, p->rank, INT_MAX);
            return MPI_ERR_COUNT;
        }
    }
    r->packbuf = nsf_alloc(send_elems * r->es);
    r->recvbuf = nsf_alloc(recv_elems * r->es);
    r->reqs = malloc(sizeof *r->reqs * (size_t)(r->nsend + r->nrecv + 1));
    r->req_recv = malloc(sizeof *r->req_recv * (size_t)(r->nrecv + 1));
    return r->packbuf && r->recvbuf && r->reqs && r->req_recv ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int nsf_mpi_setup(struct nodeshm_remap *r)
{
    r->source = nsf_alloc(nodeshm_fft_brick_size(&r->from) * r->es);
    if (!r->source) return MPI_ERR_NO_MEM;
    int rc = nsf_buffers(r, r->send_elems, r->recv_elems);
    if (rc != MPI_SUCCESS || r->strategy != NODESHM_REMAP_MPI_ALLTOALLV) return rc;
    /* Alltoallv's counts and displacements by rank (self stays out: copied directly). */
    r->counts = calloc(4 * (size_t)r->size, sizeof *r->counts);
    if (!r->counts) return MPI_ERR_NO_MEM;
    int *sc = r->counts, *sd = sc + r->size, *rcn = sd + r->size, *rd = rcn + r->size;
    if (r->send_elems > INT_MAX || r->recv_elems > INT_MAX) {
        nsf_error("nodeshm_remap_create", "mpi-alltoallv: %zu points to move from one rank (at "
                  "most %d: use mpi-p2p or more ranks)", r->send_elems > r->recv_elems ?
                  r->send_elems : r->recv_elems, INT_MAX);
        return MPI_ERR_COUNT;
    }
    for (int k = 0; k < r->nsend; k++) {
        sc[r->send[k].rank] = (int)r->send[k].count;
        sd[r->send[k].rank] = (int)r->send[k].offset;
    }
    for (int k = 0; k < r->nrecv; k++) {
        rcn[r->recv[k].rank] = (int)r->recv[k].count;
        rd[r->recv[k].rank] = (int)r->recv[k].offset;
    }
    return MPI_SUCCESS;
}

int nsf_post_receives(struct nodeshm_remap *r, int *nreq)
{
    for (int k = 0; k < r->nrecv; k++) {
        nsf_peer_t *p = &r->recv[k];
        if (p->path != NSF_PATH_MPI) continue;
        r->req_recv[*nreq] = k;
        int rc = MPI_Irecv(r->recvbuf + p->offset * r->es, (int)p->count, r->elem, p->rank, 0,
                           r->comm, &r->reqs[(*nreq)++]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int nsf_unpack_as_they_come(struct nodeshm_remap *r, int nrecv_req, void *dst)
{
    for (int done = 0; done < nrecv_req; done++) {
        int idx;
        int rc = MPI_Waitany(nrecv_req, r->reqs, &idx, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || idx == MPI_UNDEFINED) return rc != MPI_SUCCESS ? rc : MPI_ERR_INTERN;
        nsf_unpack(r, &r->recv[r->req_recv[idx]], dst);
    }
    return MPI_SUCCESS;
}

int nsf_p2p_execute(struct nodeshm_remap *r, const void *src, void *dst)
{
    int nreq = 0;
    int rc = nsf_post_receives(r, &nreq);
    for (int k = 0; k < r->nsend && rc == MPI_SUCCESS; k++) {
        nsf_peer_t *p = &r->send[k];
        nsf_pack(r, p, src);
        rc = MPI_Send(r->packbuf + p->offset * r->es, (int)p->count, r->elem, p->rank, 0, r->comm);
    }
    nsf_copy_self(r, src, dst);
    if (rc == MPI_SUCCESS) rc = nsf_unpack_as_they_come(r, nreq, dst);
    r->source_acquired = 0;
    return rc;
}

int nsf_alltoallv_execute(struct nodeshm_remap *r, const void *src, void *dst)
{
    for (int k = 0; k < r->nsend; k++) nsf_pack(r, &r->send[k], src);
    int *sc = r->counts, *sd = sc + r->size, *rcn = sd + r->size, *rd = rcn + r->size;
    int rc = MPI_Alltoallv(r->packbuf, sc, sd, r->elem, r->recvbuf, rcn, rd, r->elem, r->comm);
    nsf_copy_self(r, src, dst);
    for (int k = 0; k < r->nrecv && rc == MPI_SUCCESS; k++) nsf_unpack(r, &r->recv[k], dst);
    r->source_acquired = 0;
    return rc;
}
