/* nodeshm-fft: the four OpenSHMEM strategies of the paper behind this project (seed 001: LAMMPS'
 * remap_3d ported to one-sided puts), on nodeshm's OpenSHMEM (the program calls shmem_init after
 * MPI_Init; the remap's communicator must hold every PE, because shmem_malloc is collective over
 * all of them).  Each receiver has one symmetric scratch buffer, its blocks at offsets exchanged
 * when the remap is made, and a symmetric flag per sender; epoch e marks execute number e.
 *
 *   shmem-barrier    pack, put, fence, flag; the receiver waits for each flag and unpacks; the
 *                    scratch is reused after a sync of the remap's team (the paper's
 *                    HybridBarrier, with a team made from the communicator)
 *   shmem-nopack     no pack buffer: one non-blocking put per contiguous run of the source, the
 *                    block kept in the sender's memory order; quiet, flag
 *   shmem-chkbuff    as shmem-barrier, but a receiver tells each sender that it has read its
 *                    block (READY flags), and a sender waits only for its own receivers
 *   shmem-advchkbuff as shmem-chkbuff, unpacking whichever block arrived first */
#include "remap_internal.h"

#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nsf_shmem {
    shmem_team_t team;
    int *pe;             /* [size]: world PE of each rank of the remap's communicator */
    char *scratch;       /* symmetric: every block sent to me */
    uint64_t *data;      /* symmetric [size]: data[p] = last epoch whose block from p is here */
    uint64_t *ready;     /* symmetric [size]: ready[q] = last epoch q has read my block of */
    size_t *remote_off;  /* [nsend]: where my block goes in the receiver's scratch (elements) */
    int *status;         /* [size]: for wait_until_any (0: a block still to come) */
    int *recv_of;        /* [size]: advchkbuff: the index in recv of the block from each rank */
};

int nsf_shmem_check(MPI_Comm comm, const char *call, nodeshm_remap_strategy_t s)
{
    int initialized = 0, size;
    shmem_query_initialized(&initialized);
    MPI_Comm_size(comm, &size);
    char problem[300] = "";
    if (!initialized)
        snprintf(problem, sizeof problem, "strategy %s needs OpenSHMEM: call shmem_init (after "
                 "MPI_Init) first", nodeshm_remap_strategy_name(s));
    else if (size != shmem_n_pes())
        snprintf(problem, sizeof problem, "strategy %s needs a communicator of all %d PEs, not "
                 "%d ranks (symmetric memory is allocated by every PE)",
                 nodeshm_remap_strategy_name(s), shmem_n_pes(), size);
    return nsf_agree(comm, call, problem[0] ? problem : NULL) ? MPI_ERR_ARG : MPI_SUCCESS;
}

int nsf_shmem_setup(struct nodeshm_remap *r)
{
    struct nsf_shmem *sh = calloc(1, sizeof *sh);
    if (!sh) return MPI_ERR_NO_MEM;
    r->shmem = sh;
    r->source = nsf_alloc(nodeshm_fft_brick_size(&r->from) * r->es);
    if (shmemx_team_create_from_comm(r->comm, &sh->team)) {
        nsf_error("nodeshm_remap_create", "shmemx_team_create_from_comm failed");
        return MPI_ERR_OTHER;
    }
    sh->pe = malloc(sizeof *sh->pe * (size_t)r->size);
    sh->status = malloc(sizeof *sh->status * (size_t)r->size);
    sh->recv_of = malloc(sizeof *sh->recv_of * (size_t)r->size);
    for (int k = 0; sh->recv_of && k < r->nrecv; k++) sh->recv_of[r->recv[k].rank] = k;
    sh->remote_off = malloc(sizeof *sh->remote_off * (size_t)(r->nsend + 1));
    for (int q = 0; q < r->size; q++) sh->pe[q] = shmem_team_translate_pe(sh->team, q, SHMEM_TEAM_WORLD);
    /* nopack keeps a block in the sender's memory order, so that the sender's runs stay runs */
    if (r->strategy == NODESHM_REMAP_SHMEM_NOPACK) {
        for (int k = 0; k < r->nsend; k++)
            r->send[k].packed = nsf_layout_of(&r->send[k].box, r->from.order);
        for (int k = 0; k < r->nrecv; k++)
            r->recv[k].packed = nsf_layout_of(&r->recv[k].box, r->recv[k].peer.order);
    }
    /* Receivers tell each sender where its block goes. */
    unsigned long long *off_by_rank = calloc(2 * (size_t)r->size, sizeof *off_by_rank);
    for (int k = 0; k < r->nrecv; k++) off_by_rank[r->recv[k].rank] = r->recv[k].offset;
    MPI_Alltoall(off_by_rank, 1, MPI_UNSIGNED_LONG_LONG, off_by_rank + r->size, 1,
                 MPI_UNSIGNED_LONG_LONG, r->comm);
    for (int k = 0; k < r->nsend; k++) sh->remote_off[k] = off_by_rank[r->size + r->send[k].rank];
    free(off_by_rank);
    /* Symmetric sizes are the same everywhere: the largest receive set. */
    unsigned long long bytes = r->recv_elems * r->es, most;
    MPI_Allreduce(&bytes, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, r->comm);
    sh->scratch = shmem_malloc(most ? most : 64);
    sh->data = shmem_calloc((size_t)r->size, sizeof(uint64_t));
    sh->ready = shmem_calloc((size_t)r->size, sizeof(uint64_t));
    int ok = sh->scratch && sh->data && sh->ready && r->source && sh->pe && sh->status &&
             sh->recv_of;
    int rc = nsf_agree(r->comm, "nodeshm_remap_create", ok ? NULL : "out of symmetric memory "
                       "(SHMEM_SYMMETRIC_SIZE)") ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    if (rc == MPI_SUCCESS) rc = nsf_buffers(r, r->send_elems, 0);
    return rc;
}

void nsf_shmem_teardown(struct nodeshm_remap *r)
{
    struct nsf_shmem *sh = r->shmem;
    if (!sh) return;
    shmem_barrier_all(); /* nobody still puts into what is freed (collective, like shmem_free) */
    shmem_free(sh->scratch);
    shmem_free(sh->data);
    shmem_free(sh->ready);
    if (sh->team != SHMEM_TEAM_INVALID) shmem_team_destroy(sh->team);
    free(sh->pe), free(sh->status), free(sh->recv_of), free(sh->remote_off), free(sh);
    r->shmem = NULL;
}

/* Sends my block to p: packed and put, or (nopack) put run by run from src. */
static void send_block(struct nodeshm_remap *r, int k, const void *src)
{
    struct nsf_shmem *sh = r->shmem;
    const nsf_peer_t *p = &r->send[k];
    char *dest = sh->scratch + sh->remote_off[k] * r->es;
    int pe = sh->pe[p->rank];
    if (r->strategy != NODESHM_REMAP_SHMEM_NOPACK) {
        nsf_pack(r, p, src);
        shmem_putmem(dest, r->packbuf + p->offset * r->es, p->count * r->es, pe);
        return;
    }
    const int f = r->lfrom.order[0], m = r->lfrom.order[1], s = r->lfrom.order[2];
    size_t run = (size_t)(p->box.hi[f] - p->box.lo[f]) * r->es;
    int i[3];
    for (i[s] = p->box.lo[s]; i[s] < p->box.hi[s]; i[s]++)
        for (i[m] = p->box.lo[m]; i[m] < p->box.hi[m]; i[m]++) {
            i[f] = p->box.lo[f];
            size_t from = 0, to = 0;
            for (int d = 0; d < 3; d++) {
                from += (size_t)(i[d] - r->lfrom.lo[d]) * r->lfrom.stride[d];
                to += (size_t)(i[d] - p->packed.lo[d]) * p->packed.stride[d];
            }
            shmem_putmem_nbi(dest + to * r->es, (const char *)src + from * r->es, run, pe);
        }
}

static void unpack_from_scratch(struct nodeshm_remap *r, const nsf_peer_t *p, void *dst)
{
    struct nsf_shmem *sh = r->shmem;
    nsf_box_copy(sh->scratch + p->offset * r->es, &p->packed, dst, &r->lto, &p->box, r->es);
}

int nsf_shmem_execute(struct nodeshm_remap *r, const void *src, void *dst)
{
    struct nsf_shmem *sh = r->shmem;
    uint64_t e = ++r->epoch;
    int per_peer = r->strategy == NODESHM_REMAP_SHMEM_CHKBUFF ||
                   r->strategy == NODESHM_REMAP_SHMEM_ADVCHKBUFF;
    /* The scratch of epoch e - 1 must be read before anybody writes epoch e into it. */
    if (!per_peer && e > 1) shmem_team_sync(sh->team);
    for (int k = 0; k < r->nsend; k++) {
        int q = r->send[k].rank;
        if (per_peer && e > 1) shmem_uint64_wait_until(&sh->ready[q], SHMEM_CMP_GE, e - 1);
        send_block(r, k, src);
        if (per_peer) { /* this block's flag goes as soon as its data is there */
            shmem_fence();
            shmem_uint64_atomic_set(&sh->data[r->rank], e, sh->pe[q]);
        }
    }
    if (!per_peer) {
        /* nopack's puts are non-blocking: quiet completes them (and src may change after) */
        if (r->strategy == NODESHM_REMAP_SHMEM_NOPACK) shmem_quiet();
        else shmem_fence();
        for (int k = 0; k < r->nsend; k++)
            shmem_uint64_atomic_set(&sh->data[r->rank], e, sh->pe[r->send[k].rank]);
    }
    nsf_copy_self(r, src, dst);
    if (r->strategy != NODESHM_REMAP_SHMEM_ADVCHKBUFF) {
        for (int k = 0; k < r->nrecv; k++) {
            const nsf_peer_t *p = &r->recv[k];
            shmem_uint64_wait_until(&sh->data[p->rank], SHMEM_CMP_GE, e);
            unpack_from_scratch(r, p, dst);
            if (per_peer) shmem_uint64_atomic_set(&sh->ready[r->rank], e, sh->pe[p->rank]);
        }
    } else {
        /* whichever block is there first; status[p] = 0 for senders still to come */
        for (int q = 0; q < r->size; q++) sh->status[q] = 1;
        for (int k = 0; k < r->nrecv; k++) sh->status[r->recv[k].rank] = 0;
        for (int done = 0; done < r->nrecv; done++) {
            size_t q = shmem_uint64_wait_until_any(sh->data, (size_t)r->size, sh->status,
                                                   SHMEM_CMP_GE, e);
            sh->status[q] = 1;
            unpack_from_scratch(r, &r->recv[sh->recv_of[q]], dst);
            shmem_uint64_atomic_set(&sh->ready[r->rank], e, sh->pe[q]);
        }
    }
    r->source_acquired = 0;
    return MPI_SUCCESS;
}
