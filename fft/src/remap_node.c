/* nodeshm-fft: the node strategy.  Every rank's source buffer is node-shared memory
 * (nodeshm_shared_alloc on the remap's communicator); a receiver on the same node copies its
 * block straight from the sender's buffer into its destination, permuting on the way: one copy,
 * no pack, no scratch.  Per execute e, each rank publishes e when its source holds the data and
 * releases e when it has read its blocks; a sender waits for its readers' release of e before it
 * writes e + 1 into the buffer.  Between nodes the plan chooses (the same on every rank,
 * remap_node_agg.c): one message per pair of nodes, packed and unpacked in node-shared memory
 * (remap_node_agg.c), or one per pair of ranks as in mpi-p2p, but with MPI_Isend, so that no
 * rank blocks in MPI before it has published (a rank waiting for a node peer's publish makes no
 * MPI progress). */
#include "remap_internal.h"

#include <stdlib.h>
#include <string.h>

int nsf_node_setup(struct nodeshm_remap *r)
{
    nsf_node_plan_t *plan = NULL;
    size_t bytes;
    int rc = nsf_node_plan(r, &plan, &bytes);
    if (rc != MPI_SUCCESS) return rc;
    rc = nodeshm_shared_alloc(r->comm, bytes, &r->shared);
    if (rc != MPI_SUCCESS) {
        nsf_error(r->call, "node strategy: nodeshm_shared_alloc of %zu bytes "
                  "failed (MPI error %d)", bytes, rc);
        nsf_node_plan_free(plan);
        return rc;
    }
    r->source = nodeshm_shared_ptr(r->shared, r->rank, NULL);
    r->acquire = malloc(sizeof(int) * (size_t)r->size);
    r->pending = malloc(sizeof(int) * (size_t)(r->nrecv + 1));
    if (!r->acquire || !r->pending) rc = MPI_ERR_NO_MEM;
    for (int k = 0; k < r->nsend && rc == MPI_SUCCESS; k++) {
        int on_node = nodeshm_shared_ptr(r->shared, r->send[k].rank, NULL) != NULL;
        r->send[k].path = on_node ? NSF_PATH_NODE : NSF_PATH_MPI;
        if (on_node) nsf_node_acquire_add(r, r->send[k].rank); /* it reads my source */
    }
    for (int k = 0; k < r->nrecv; k++) {
        r->recv[k].shared = nodeshm_shared_ptr(r->shared, r->recv[k].rank, NULL);
        r->recv[k].path = r->recv[k].shared ? NSF_PATH_NODE : NSF_PATH_MPI;
    }
    /* aggregated: no pack or receive buffers of its own, the blocks are in node-shared memory */
    if (rc == MPI_SUCCESS)
        rc = plan ? nsf_buffers(r, 0, 0) : nsf_buffers(r, r->send_elems, r->recv_elems);
    if (rc == MPI_SUCCESS && plan) rc = nsf_node_bind(r, plan);
    nsf_node_plan_free(plan);
    return rc;
}

void nsf_node_teardown(struct nodeshm_remap *r)
{
    if (r->shared) nodeshm_shared_free(&r->shared);
    r->source = NULL;
    for (int k = 0; k < r->nout; k++) free(r->out[k].wait);
    free(r->out), free(r->in), free(r->acquire), free(r->pending);
}

void *nsf_node_source(struct nodeshm_remap *r)
{
    if (!r->source_acquired && r->epoch)
        for (int k = 0; k < r->nacquire; k++)
            nodeshm_shared_wait_released(r->shared, r->acquire[k], r->epoch);
    r->source_acquired = 1;
    return r->source;
}

/* Copies every node peer's block (published as epoch e) into dst, whichever has published first: with more
 * ranks than cores a fixed order would sleep on a peer that has not run yet while others' blocks
 * wait (the senders publish in the order the scheduler runs them).  When none is ready it waits
 * for the first still missing (the rotated order of find_peers: the next rank up). */
void nsf_node_copy_blocks(struct nodeshm_remap *r, void *dst, uint64_t e)
{
    int n = 0;
    for (int k = 0; k < r->nrecv; k++)
        if (r->recv[k].path == NSF_PATH_NODE) r->pending[n++] = k;
    while (n > 0) {
        int left = 0;
        for (int i = 0; i < n; i++) { /* copy the ready ones, keep the rest in order */
            nsf_peer_t *p = &r->recv[r->pending[i]];
            int ready = 0;
            nodeshm_shared_test(r->shared, p->rank, e, &ready);
            if (ready)
                nsf_box_copy(p->shared, &p->peer, dst, &r->lto, &p->box, r->es);
            else
                r->pending[left++] = r->pending[i];
        }
        if (left == n) nodeshm_shared_wait(r->shared, r->recv[r->pending[0]].rank, e);
        n = left;
    }
}

int nsf_node_execute(struct nodeshm_remap *r, const void *src, void *dst)
{
    int readers = 0;
    for (int k = 0; k < r->nsend; k++) readers += r->send[k].path == NSF_PATH_NODE;
    nsf_node_source(r); /* (aggregated: before my blocks go into the outboxes too) */
    if (src != r->source && readers) /* the node peers read the shared copy */
        memcpy(r->source, src, nodeshm_fft_brick_size(&r->from) * r->es);
    if (r->aggregated) return nsf_node_agg_execute(r, src, dst);
    unsigned long long e = ++r->epoch;
    int nrecv_req = 0;
    int rc = nsf_post_receives(r, &nrecv_req);
    int nreq = nrecv_req;
    for (int k = 0; k < r->nsend && rc == MPI_SUCCESS; k++) {
        nsf_peer_t *p = &r->send[k];
        if (p->path != NSF_PATH_MPI) continue;
        nsf_pack(r, p, src);
        rc = MPI_Isend(r->packbuf + p->offset * r->es, (int)p->count, r->elem, p->rank, 0,
                       r->comm, &r->reqs[nreq++]);
    }
    nodeshm_shared_publish(r->shared, e);
    nsf_copy_self(r, src, dst);
    nsf_node_copy_blocks(r, dst, e);
    nodeshm_shared_release(r->shared, e);
    if (rc == MPI_SUCCESS) rc = nsf_unpack_as_they_come(r, nrecv_req, dst);
    if (rc == MPI_SUCCESS && nreq > nrecv_req)
        rc = MPI_Waitall(nreq - nrecv_req, r->reqs + nrecv_req, MPI_STATUSES_IGNORE);
    r->source_acquired = 0;
    return rc;
}
