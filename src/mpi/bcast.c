/* libnodeshm_mpi: MPI_Bcast, core/coll/bcast.h's broadcast on a communicator's node area
 * (publish.h), and on one node MPI_Ibcast's steps, its step form (below; the request machinery is
 * nonblocking.c's): the root packs into the node's result area, node peers unpack from it; between
 * nodes the root sends the packed bytes to the other nodes' leaders itself (up to
 * NSM_ROOT_DIRECT_NODES nodes; beyond, the leaders broadcast them: leaders.h), which receive
 * into their result area and publish it to their node.  Here: the checks and hand-overs, and
 * broadcast's ops on the area (every member's claim and at the result area, the datatype's pack
 * and unpack, the leaders' exchange).  Whole, not pipelined: with the root announcing every 32,
 * 64 or 128 KiB chunk so that readers copy while it writes, Open MPI 5 at 2 ranks fell from
 * 1.1-1.9x of its own MPI_Bcast to 0.45-0.91x at 256 KiB-1 MiB (readers then pull lines still
 * modified in the root core's cache), and no size or rank count gained. */
#include "mpi/nsmpi.h"
#include "mpi/leaders.h"
#include "mpi/nonblocking.h"
#include "mpi/publish.h"
#include "core/coll/bcast.h"

#include <stdlib.h>

/* One call's publications: the area's (c.type: the user's datatype), the user's buffer, the root */
typedef struct nsm_bcast_pub {
    nsm_pub_t c;
    void *buf;
    int count;
    MPI_Comm comm;
    size_t bytes;
    int root, root_node, direct; /* direct: nsm_root_direct */
} nsm_bcast_pub_t;
static inline const nsm_bcast_pub_t *bcast_of(const nodeshm_pub_t *p) { return (const nsm_bcast_pub_t *)p; }

/* The publisher writes the result area, the readers read it: a call's one buffer */
static inline char *bcast_claim(nodeshm_pub_t *p) { return nsm_pub_shared(p); }
/* Waits for the publisher's post; what it published is the result area */
static inline const char *bcast_await(const nodeshm_pub_t *p, int k, int what)
{
    (void)what; /* DATA: the publisher's */
    const nsm_pub_t *c = nsm_pub_of(p);
    nodeshm_flags_wait_arrive(&c->s->area.flags, k, c->seq);
    return c->s->area.cur.result;
}

static inline void bcast_pack(nodeshm_pub_t *p, char *to)
{
    const nsm_bcast_pub_t *b = bcast_of(p);
    nsm_pack(to, b->bytes, b->buf, b->count, b->c.type, b->comm);
}

static inline void bcast_unpack(nodeshm_pub_t *p, int k, const char *from)
{
    (void)k; /* the publisher's: the whole buffer */
    const nsm_bcast_pub_t *b = bcast_of(p);
    nsm_unpack(b->buf, b->count, b->c.type, from, b->bytes, b->comm);
}

/* The leaders' exchange: the root's sends to the other leaders and their receives on nsm_p2p
 * (direct), or the leaders' collective.  MPI errors go to those communicators' handlers. */
static inline int bcast_leaders(nodeshm_pub_t *p, void *buf, size_t bytes)
{
    const nsm_bcast_pub_t *b = bcast_of(p);
    nsm_state_t *s = b->c.s;
    if (!b->direct) {
        nsm_leaders_bcast(buf, bytes, b->root_node, s->leaders);
        return MPI_SUCCESS;
    }
    if (s->rank != b->root) {
        MPI_Request one;
        PMPI_Irecv(buf, (int)bytes, MPI_BYTE, s->p2p_rank[b->root], s->p2p_tag, nsm_p2p, &one);
        nsm_wait_requests(1, &one);
        return MPI_SUCCESS;
    }
    MPI_Request *req = nsm_requests(s->n_nodes, "MPI_Bcast");
    int n = 0;
    for (int r = 0; r < s->size; r++)
        if (nsm_is_leader(s, r) && s->node_of[r] != b->root_node)
            PMPI_Isend(buf, (int)bytes, MPI_BYTE, s->p2p_rank[r], s->p2p_tag, nsm_p2p, &req[n++]);
    nsm_wait_requests(n, req);
    free(req);
    return MPI_SUCCESS;
}

static const nodeshm_pub_ops_t bcast_ops = {.post = nsm_pub_post, .await = bcast_await, .done = nsm_pub_done,
                                            .claim = bcast_claim, .pack = bcast_pack,
                                            .unpack = bcast_unpack, .bcast = bcast_leaders};

/* ---------------------------------------------------------------- MPI_Ibcast on one node
 * core/coll/bcast.h's step form as the progress engine's steps of an op (nonblocking.c starts
 * them; persistent.c's MPI_Bcast_init too): the root publishes at its publish step, which the
 * engine takes once the op's buffers are free (its `writes`), and is complete; the others copy
 * out at a complete step once the root's arrive flag says it posted.  The lane raises the done
 * flag over completed ops in sequence order, so the ops' own done does nothing. */

/* the result area the op took at its start (publish.h's bufs: the area's current one may be a
 * later op's by now) as every member's claim, and ready's answer once the root has posted */
static inline char *ibcast_claim(nodeshm_pub_t *p) { return nsm_pub_of(p)->bufs->result; }
static inline const char *ibcast_ready(const nodeshm_pub_t *p, int k, int what)
{
    return nsm_pub_ready(p, k, what) ? nsm_pub_of(p)->bufs->result : NULL;
}
static const nodeshm_pub_ops_t ibcast_ops = {.post = nsm_pub_post, .ready = ibcast_ready, .done = nsm_pub_lane_done,
                                             .claim = ibcast_claim, .pack = bcast_pack, .unpack = bcast_unpack};

/* The op's publications: its sequence number and buffers, its arguments (root_nr: on one node
 * the root's node rank too) */
static inline void ibcast_pub(nsm_bcast_pub_t *b, const nodeshm_nb_t *nb)
{
    const nsm_nb_op_t *o = (const nsm_nb_op_t *)nb;
    b->buf = o->recvbuf, b->count = o->rcount, b->comm = o->s->comm, b->bytes = o->bytes, b->root = o->root_nr;
    nsm_pub_start_op(&b->c, o->s, nb, o->rtype);
}

int nsm_ibcast_publish(nodeshm_nb_t *nb)
{
    nsm_bcast_pub_t b;
    ibcast_pub(&b, nb);
    (void)nodeshm_bcast_start(&ibcast_ops, &b.c.p, b.root);
    return 1;
}

int nsm_ibcast_complete(nodeshm_nb_t *nb)
{
    nsm_bcast_pub_t b;
    ibcast_pub(&b, nb);
    return nodeshm_bcast_test(&ibcast_ops, &b.c.p, b.root);
}

NSM_BODY int accelerated_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    /* switched off, or a size outside the window: straight to the MPI library, no lookups */
    long long bytes = nsm_op_max(NSM_OP_BCAST) ? nsm_bytes(count, type) : -1; /* alike on all ranks */
    if (bytes < 0 || (size_t)bytes > nsm_cfg.max[NSM_OP_BCAST] ||
        (bytes > 0 && (size_t)bytes < nsm_op_min(NSM_OP_BCAST))) {
        NSM_HAND(NSM_OP_BCAST, comm, NULL, 0, bytes, NSM_WHY_DATATYPE);
        return PMPI_Bcast(buf, count, type, root, comm);
    }
    nsm_state_t *s = nsm_get_state(comm);
    if (!s || root < 0 || root >= s->size || (size_t)bytes > s->max[NSM_OP_BCAST] ||
        (bytes > 0 && (size_t)bytes < s->min[NSM_OP_BCAST])) {
        NSM_HAND(NSM_OP_BCAST, comm, s, 1, bytes, NSM_WHY_ARGS);
        return PMPI_Bcast(buf, count, type, root, comm);
    }
    if (bytes == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return MPI_SUCCESS;
    }
    int root_node = s->node_of[root];
    /* between nodes only the root and the other nodes' leaders write the result area; the rest
     * only read it, so they need not wait for the previous call's readers */
    int writes = s->n_nodes == 1 || s->rank == root || (s->node_rank == 0 && root_node != s->my_node);
    uint64_t seq = writes ? nsm_begin_sized(s, NSM_OP_BCAST, (size_t)bytes)
                          : nsm_begin_reader_sized(s, NSM_OP_BCAST, (size_t)bytes);
    nsm_bcast_pub_t b = {.buf = buf, .count = count, .comm = comm, .bytes = (size_t)bytes, .root = root,
                         .root_node = root_node, .direct = nsm_root_direct(s)};
    nsm_pub_start(&b.c, s, seq, type, MPI_OP_NULL);
    /* on the root's node the data is there once the root has posted: no wait for the leaders */
    (void)nodeshm_bcast(&bcast_ops, &b.c.p, root_node, s->stage_index[root] - s->node_first[root_node], b.direct,
                        (size_t)bytes);
    return MPI_SUCCESS;
}

/* The entry, frame-less (only tail calls): for the commonest types the size window is a few
 * compares, so a call left to the MPI library costs little more than a jump (the body's frame
 * and PMPI_Type_size cost 5-9% of a 0.12-0.3 us tiny collective under Open MPI); any other type
 * goes to the body, which checks everything itself. */
NSM_STATS_TWIN(Bcast, NSM_OP_BCAST, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm),
               (buf, count, type, root, comm), nsm_stat_bytes(count, type))

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    if (NSM_STATS_ON) return stats_Bcast(buf, count, type, root, comm);
    if (nsm_known_outside(NSM_OP_BCAST, count, type)) return PMPI_Bcast(buf, count, type, root, comm);
    return accelerated_Bcast(buf, count, type, root, comm);
}
NSM_ENTRY_ALIAS(Bcast)
