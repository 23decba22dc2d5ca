/* nodeshm-fft: the node strategy.  Every rank's source buffer is node-shared memory
 * (nodeshm_shared_alloc on the remap's communicator); a receiver on the same node copies its
 * block straight from the sender's buffer into its destination, permuting on the way: one copy,
 * no pack, no scratch.  Per execute e, each rank publishes e when its source holds the data and
 * releases e when it has read its blocks; a sender waits for its readers' release of e before it
 * writes e + 1 into the buffer.  Blocks between nodes go as in mpi-p2p, but with MPI_Isend, so
 * that no rank blocks in MPI before it has published (a rank waiting for a node peer's publish
 * makes no MPI progress). */
#include "remap_internal.h"

#include <stdlib.h>
#include <string.h>

int nsf_node_setup(struct nodeshm_remap *r)
{
    /* 64-byte multiples keep every rank's part of the node region 64-byte aligned; at least 64,
     * so that nodeshm_shared_ptr is NULL exactly for the ranks on other nodes (also for those
     * with an empty brick). */
    size_t bytes = (nodeshm_fft_brick_size(&r->from) * r->es + 63) & ~(size_t)63;
    if (bytes == 0) bytes = 64;
    int rc = nodeshm_shared_alloc(r->comm, bytes, &r->shared);
    if (rc != MPI_SUCCESS) {
        nsf_error("nodeshm_remap_create", "node strategy: nodeshm_shared_alloc of %zu bytes "
                  "failed (MPI error %d)", bytes, rc);
        return rc;
    }
    r->source = nodeshm_shared_ptr(r->shared, r->rank, NULL);
    for (int k = 0; k < r->nsend; k++)
        r->send[k].on_node = nodeshm_shared_ptr(r->shared, r->send[k].rank, NULL) != NULL;
    for (int k = 0; k < r->nrecv; k++) {
        r->recv[k].shared = nodeshm_shared_ptr(r->shared, r->recv[k].rank, NULL);
        r->recv[k].on_node = r->recv[k].shared != NULL;
    }
    return nsf_buffers(r, r->send_elems, r->recv_elems);
}

void nsf_node_teardown(struct nodeshm_remap *r)
{
    if (r->shared) nodeshm_shared_free(&r->shared);
    r->source = NULL;
}

void *nsf_node_source(struct nodeshm_remap *r)
{
    if (!r->source_acquired && r->epoch)
        for (int k = 0; k < r->nsend; k++)
            if (r->send[k].on_node) nodeshm_shared_wait_released(r->shared, r->send[k].rank, r->epoch);
    r->source_acquired = 1;
    return r->source;
}

int nsf_node_execute(struct nodeshm_remap *r, const void *src, void *dst)
{
    int readers = 0;
    for (int k = 0; k < r->nsend; k++) readers += r->send[k].on_node;
    if (src != r->source && readers) { /* the node peers read the shared copy */
        void *shared = nsf_node_source(r);
        memcpy(shared, src, nodeshm_fft_brick_size(&r->from) * r->es);
    }
    unsigned long long e = ++r->epoch;
    int nrecv_req = 0;
    int rc = nsf_post_receives(r, &nrecv_req);
    int nreq = nrecv_req;
    for (int k = 0; k < r->nsend && rc == MPI_SUCCESS; k++) {
        nsf_peer_t *p = &r->send[k];
        if (p->on_node) continue;
        nsf_pack(r, p, src);
        rc = MPI_Isend(r->packbuf + p->offset * r->es, (int)p->count, r->elem, p->rank, 0,
                       r->comm, &r->reqs[nreq++]);
    }
    nodeshm_shared_publish(r->shared, e);
    nsf_copy_self(r, src, dst);
    for (int k = 0; k < r->nrecv; k++) {
        nsf_peer_t *p = &r->recv[k];
        if (!p->on_node) continue;
        nodeshm_shared_wait(r->shared, p->rank, e);
        nsf_box_copy(p->shared, &p->peer, dst, &r->lto, &p->box, r->es);
    }
    nodeshm_shared_release(r->shared, e);
    if (rc == MPI_SUCCESS) rc = nsf_unpack_as_they_come(r, nrecv_req, dst);
    if (rc == MPI_SUCCESS && nreq > nrecv_req)
        rc = MPI_Waitall(nreq - nrecv_req, r->reqs + nrecv_req, MPI_STATUSES_IGNORE);
    r->source_acquired = 0;
    return rc;
}
