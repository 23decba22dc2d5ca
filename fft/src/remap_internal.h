/* nodeshm-fft: the remap object shared by the strategy files (remap_mpi.c, remap_node.c,
 * remap_node_agg.c, remap_shmem.c). */
#ifndef NODESHM_FFT_REMAP_INTERNAL_H
#define NODESHM_FFT_REMAP_INTERNAL_H

#include "brick.h"
#include "nodeshm.h"

/* How a block travels (node strategy; the other strategies leave every block NSF_PATH_MPI). */
enum { NSF_PATH_MPI = 0, /* a message of its own between the two ranks */
       NSF_PATH_NODE,    /* same node: the receiver copies it out of the sender's source */
       NSF_PATH_AGG };   /* other node: in the one message between the two nodes (remap_node_agg.c) */

/* One block this rank sends to, or receives from, another rank. */
typedef struct nsf_peer {
    int rank;            /* in the remap's communicator */
    nsf_box_t box;       /* the points */
    size_t count;        /* points in box */
    size_t offset;       /* in elements, in the pack (send) or receive buffer */
    nsf_layout_t packed; /* the box dense in the receiver's memory order */
    nsf_layout_t peer;   /* receives: the layout `shared` has (node strategy reads it) */
    int path;            /* NSF_PATH_* */
    const void *shared;  /* node strategy receives: the sender's source (NODE), the block in the
                          * inbox of the node peer `via` (AGG) */
    void *agg;           /* AGG sends: where my block goes in the outbox of the node peer `via` */
    int via;             /* AGG: the node peer that sends (my sends) or receives (my receives) the
                          * nodes' message */
} nsf_peer_t;

/* One message between two nodes (AGG): to or from `rank`, in my part of the node-shared memory. */
typedef struct nsf_msg {
    int rank;
    size_t count;        /* elements */
    char *buf;
    int nwait, *wait;    /* outgoing: the node peers whose blocks are in it (their publish) */
} nsf_msg_t;

struct nodeshm_remap {
    const char *call;    /* the public call that made it, for messages */
    MPI_Comm comm;
    int rank, size;
    int n[3];
    size_t es;
    nodeshm_remap_strategy_t strategy;
    nodeshm_fft_brick_t from, to;
    nsf_layout_t lfrom, lto;
    int has_self;        /* part of my `from` stays with me */
    nsf_box_t self_box;
    int nsend, nrecv;
    nsf_peer_t *send, *recv;
    size_t send_elems, recv_elems;
    char *packbuf, *recvbuf;
    void *source;        /* nodeshm_remap_source's buffer */
    int source_acquired; /* nodeshm_remap_source waited for the readers of the last execute */
    MPI_Datatype elem;   /* es contiguous bytes */
    MPI_Request *reqs;   /* nrecv + nsend */
    int *req_recv;       /* [nrecv]: receive request k is for recv[req_recv[k]] */
    /* mpi-alltoallv */
    int *counts;         /* [4][size]: send counts, send displs, recv counts, recv displs */
    /* node */
    nodeshm_shared_t shared;
    unsigned long long epoch; /* node, shmem-*: executes so far */
    int nacquire, *acquire; /* node: ranks whose release of the last epoch I wait for before I
                             * write into node-shared memory again */
    int *pending;        /* node: [nrecv] scratch, the node blocks not yet copied in an execute */
    int between_nodes;   /* node: some block (of any rank) crosses nodes */
    int aggregated;      /* node: those go as one message per pair of nodes (remap_node_agg.c) */
    int nout, nin;       /* aggregated: the messages I send and receive for my node */
    nsf_msg_t *out, *in;
    /* shmem-* */
    struct nsf_shmem *shmem;
};

/* nodeshm_remap_create, with the public call to name in messages. */
int nsf_remap_create(const char *call, MPI_Comm comm, const int n[3],
                     const nodeshm_fft_brick_t *from, const nodeshm_fft_brick_t *to, size_t es,
                     nodeshm_remap_strategy_t strategy, nodeshm_remap_t *out);

/* The checks nsf_remap_create makes (collective, the same verdict on every rank), and auto
 * resolved into *strategy. */
int nsf_remap_check(const char *call, MPI_Comm comm, const int n[3],
                    const nodeshm_fft_brick_t *from, const nodeshm_fft_brick_t *to, size_t es,
                    nodeshm_remap_strategy_t *strategy);

/* Collective: 1 when any rank has a problem (problem != NULL); the lowest such rank says it. */
int nsf_agree(MPI_Comm comm, const char *call, const char *problem);

/* "nodeshm-fft: CALL: message" on stderr. */
void nsf_error(const char *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, then ends the job (a collective call some rank cannot make would hang the rest). */
_Noreturn void nsf_fatal(MPI_Comm comm, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* 64-byte aligned memory (free()), so FFTW's SIMD codelets apply to every strategy's buffers. */
void *nsf_alloc(size_t bytes);
/* Pack/receive buffers and requests for the MPI part of a strategy. */
int nsf_buffers(struct nodeshm_remap *r, size_t send_elems, size_t recv_elems);
/* Posts an MPI_Irecv per receive that is not on_node, into reqs[*nreq...]. */
int nsf_post_receives(struct nodeshm_remap *r, int *nreq);
/* Waits for the first nreq requests (those receives) and unpacks each as it completes. */
int nsf_unpack_as_they_come(struct nodeshm_remap *r, int nreq, void *dst);

/* Strategy hooks: setup after the peers are known (collective), execute, teardown. */
int nsf_mpi_setup(struct nodeshm_remap *r);
int nsf_p2p_execute(struct nodeshm_remap *r, const void *src, void *dst);
int nsf_alltoallv_execute(struct nodeshm_remap *r, const void *src, void *dst);
int nsf_node_setup(struct nodeshm_remap *r);
/* Aggregated node strategy (remap_node_agg.c): nsf_node_plan (collective) decides per remap, the
 * same on every rank, whether the blocks between nodes go as one message per pair of nodes, and
 * gives the bytes this rank's part of the node-shared memory needs (source, outbox, inbox);
 * nsf_node_bind, after the allocation, points the blocks and messages into it. */
typedef struct nsf_node_plan nsf_node_plan_t;
int nsf_node_plan(struct nodeshm_remap *r, nsf_node_plan_t **plan, size_t *my_bytes);
int nsf_node_bind(struct nodeshm_remap *r, nsf_node_plan_t *plan);
void nsf_node_plan_free(nsf_node_plan_t *plan);
/* Bytes of a rank's part of the node-shared memory for `elems` elements (64-byte multiples). */
size_t nsf_part_bytes(size_t elems, size_t es);
/* Adds `rank` to r->acquire (once). */
void nsf_node_acquire_add(struct nodeshm_remap *r, int rank);
int nsf_node_agg_execute(struct nodeshm_remap *r, const void *src, void *dst);
int nsf_node_execute(struct nodeshm_remap *r, const void *src, void *dst);
/* Copies the blocks of my node peers (NSF_PATH_NODE) that they published as epoch e into dst,
 * in the order they publish. */
void nsf_node_copy_blocks(struct nodeshm_remap *r, void *dst, uint64_t e);
void *nsf_node_source(struct nodeshm_remap *r);
void nsf_node_teardown(struct nodeshm_remap *r);
static inline int nsf_is_shmem(nodeshm_remap_strategy_t s)
{
    return s >= NODESHM_REMAP_SHMEM_BARRIER && s <= NODESHM_REMAP_SHMEM_ADVCHKBUFF;
}
/* Collective: OpenSHMEM initialized and comm holds every PE (else MPI_ERR_ARG, one message). */
int nsf_shmem_check(MPI_Comm comm, const char *call, nodeshm_remap_strategy_t s);
int nsf_shmem_setup(struct nodeshm_remap *r);
int nsf_shmem_execute(struct nodeshm_remap *r, const void *src, void *dst);
void nsf_shmem_teardown(struct nodeshm_remap *r);

/* Pack peer p's block from src (my `from` layout) into the pack buffer / unpack a received
 * block into dst (my `to` layout). */
static inline void nsf_pack(const struct nodeshm_remap *r, const nsf_peer_t *p, const void *src)
{
    nsf_box_copy(src, &r->lfrom, r->packbuf + p->offset * r->es, &p->packed, &p->box, r->es);
}
static inline void nsf_unpack(const struct nodeshm_remap *r, const nsf_peer_t *p, void *dst)
{
    nsf_box_copy(r->recvbuf + p->offset * r->es, &p->packed, dst, &r->lto, &p->box, r->es);
}
static inline void nsf_copy_self(const struct nodeshm_remap *r, const void *src, void *dst)
{
    if (r->has_self) nsf_box_copy(src, &r->lfrom, dst, &r->lto, &r->self_box, r->es);
}

#endif
