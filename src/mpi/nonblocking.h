/* libnodeshm_mpi: what the non-blocking collectives share (nonblocking.c says how they work;
 * nonblocking.c: Ibarrier, Ibcast, Iallreduce; nonblocking_rooted.c: Ireduce, Igather, Iscatter,
 * Iallgather; nonblocking_v.c: Igatherv, Iscatterv, Iallgatherv; nonblocking_a2a.c: Ialltoall,
 * Ialltoallv; between nodes nonblocking_nodes.c, nonblocking_nodes_v.c). */
#ifndef NODESHM_MPI_NONBLOCKING_H
#define NODESHM_MPI_NONBLOCKING_H

#include "mpi/nsmpi.h"

#include <stdint.h>

/* One accelerated call: the engine's op, the caller's generalized request, its arguments.  The
 * datatypes are kept alive while the op runs (a derived one is duplicated: the caller may free
 * its handle after the start). */
typedef struct nsm_nb_op {
    nodeshm_nb_t nb; /* first: the engine's op */
    MPI_Request req;
    int refs;        /* the lane's and the request's: freed when both let go */
    nsm_state_t *s;
    MPI_Comm comm;    /* s->comm, kept for MPI_Cancel: it may come after the state is gone */
    const void *sendbuf;
    void *recvbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    int sdup, rdup;   /* stype, rtype are our duplicates */
    int root_nr;      /* rooted ops: the root's node rank (= comm rank: one node) */
    int in_place;
    MPI_Aint sext, rext; /* extents of stype, rtype where blocks are placed by rank */
    int rdense;       /* Iallgather: rtype's packed form is a memcpy (asked once, at the start) */
    MPI_Op op;
    size_t bytes;     /* the message (bcast, reductions) or one rank's block */
    void *owner;      /* persistent.c: its request's entry (then no generalized request) */
    MPI_Request lreq[2]; /* between nodes, a leader: its call on the leaders' communicator, or its
                          * messages to the other node's leader (nonblocking_nodes.c); unused: MPI_REQUEST_NULL */
    int id;           /* the op (NSM_OP_I...), set by nsm_nb_go */
    struct nsm_nb_op *live_prev, *live_next; /* while its generalized request lives */
} nsm_nb_op_t;

/* A new op on s with its steps, its request in *request (a rank that cannot make one ends the
 * job: its peers may be on the shared-memory path already).  request NULL: no generalized
 * request; the caller sets nb.finished (persistent.c, whose MPI_Start runs these ops). */
nsm_nb_op_t *nsm_nb_new(nsm_state_t *s, nodeshm_nb_step_t publish, nodeshm_nb_step_t complete,
                        MPI_Request *request);
/* The same in one zeroed allocation of `bytes` (>= sizeof(nsm_nb_op_t)): an op that keeps more
 * (nonblocking_v.c: its count arrays and point-to-point requests) embeds nsm_nb_op_t first; the
 * whole is freed with it. */
nsm_nb_op_t *nsm_nb_new_sized(nsm_state_t *s, nodeshm_nb_step_t publish, nodeshm_nb_step_t complete,
                              MPI_Request *request, size_t bytes);
/* At MPI_Finalize: the op memory kept for reuse goes back (nonblocking.c). */
void nsm_nb_forget_kept(void);
/* The datatype the op may use until it ends: type itself if predefined, else a duplicate. */
void nsm_nb_send_type(nsm_nb_op_t *o, MPI_Datatype type);
void nsm_nb_recv_type(nsm_nb_op_t *o, MPI_Datatype type);
/* Counts the call as accelerated (op) and starts it, `writes` saying whether this rank writes
 * shared buffers, need: the bytes of result area or slot it uses (the same on every rank). */
void nsm_nb_go(nsm_nb_op_t *o, int op, int writes, size_t need);
/* The op's state where it can run here: one already made, on one node (or spanning nodes, for
 * the ops nsm_nb_between_nodes names); else NULL, the outcome recorded (stats). */
nsm_state_t *nsm_nb_state(int op, MPI_Comm comm, long long bytes);
/* nonblocking_nodes.c: whether op (NSM_OP_I...) runs on a communicator spanning nodes; on one,
 * sets o's steps for it (o->root_nr: the root's comm rank, -1 for Iallreduce) and returns whether
 * this rank writes shared buffers.  The v-forms' and alltoall's steps there: nonblocking_nodes_v.c
 * (nsm_nbv_nodes_steps, below). */
int nsm_nb_between_nodes(int op);
int nsm_nb_nodes_steps(nsm_nb_op_t *o, int op);
/* Between nodes an op of nsm_nb_new has room after it for 2 * n_nodes ints: the leaders' v-call's
 * counts and displacements (nonblocking_nodes.c), alive until the op is freed. */
static inline int *nsm_nb_node_counts(nsm_nb_op_t *o) { return (int *)(o + 1); }
/* Between nodes: whether the node's leader has released the node for nb (its remote part is
 * over); a leader's remote_test: its request over, then the node released. */
static inline int nsm_nb_released(const nodeshm_nb_t *nb)
{
    const nodeshm_flags_t *f = &nb->lane->area->flags;
    return nodeshm_flag_load(&f->lines[f->n].arrive) >= nb->seq;
}
int nsm_nb_leaders_test(nodeshm_nb_t *nb);
/* Between nodes the gathers' stage holds every rank's block, node by node: stage index i's block at
 * soff[i] (soff NULL: blocks of `bytes` each, at i * bytes).  Fills cnt with each node's run of it
 * in bytes (cnt[k]) and its displacement (cnt[n_nodes + k]): the leaders' v-call's; returns cnt. */
static inline size_t nsm_nb_stage_off(const size_t *soff, size_t bytes, int i)
{
    return soff ? soff[i] : (size_t)i * bytes;
}
int *nsm_nb_stage_runs(const nsm_state_t *s, const size_t *soff, size_t bytes, int *cnt);
/* Whether a gather, scatter or allgather of `bytes` per rank fits: on one node a slot, between
 * nodes the stage (every rank's block, as the blocking ops). */
static inline int nsm_nb_fits_blocks(const nsm_state_t *s, size_t bytes);
/* Whether `bytes` fit the buffers an op uses (the result area: result 1, or a slot): those of
 * the ring entry or of the bank it gets, the same on every rank. */
static inline int nsm_nb_fits(const nsm_state_t *s, size_t bytes, int result)
{
    if (nodeshm_ring_fits(&s->area.ring, bytes)) return 1;
    return bytes <= (result ? s->area.banks.result_bytes : s->area.banks.slot_bytes);
}
static inline int nsm_nb_fits_blocks(const nsm_state_t *s, size_t bytes)
{
    if (s->n_nodes == 1) return nsm_nb_fits(s, bytes, 0);
    return bytes <= s->area.banks.stage_bytes / (size_t)s->size;
}
/* Whether a reduction of `bytes` fits: my contribution in a slot, and between nodes the
 * leader's node result in the result area too. */
static inline int nsm_nb_fits_reduction(const nsm_state_t *s, size_t bytes)
{
    return nsm_nb_fits(s, bytes, 0) && (s->n_nodes == 1 || nsm_nb_fits(s, bytes, 1));
}
/* Rank r's block of a gather/scatter buffer: count elements of `extent` bytes per rank. */
static inline char *nsm_nb_block(void *buf, int r, int count, MPI_Aint extent)
{
    return (char *)buf + (MPI_Aint)r * count * extent;
}
/* The message bytes of a reduction the shared path takes (predefined op and datatype: MPI wants
 * the same on every rank), else -1. */
long long nsm_nb_reduction_bytes(int count, MPI_Datatype type, MPI_Op op);
/* dst = slot 0 op slot 1 op ... in node rank order (the same bits on every rank that calls it). */
void nsm_nb_reduce_slots(const nodeshm_nb_t *nb, void *dst);
/* Iallreduce (root -1) or Ireduce (id NSM_OP_I...): started, or NSM_HANDED_OVER (the caller
 * hands it to the MPI library). */
int nsm_nb_reduction(int id, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                     int root, MPI_Comm comm, MPI_Request *request);
/* Ireduce's complete step (nonblocking_rooted.c): the root reduces once all slots are there. */
int nsm_nb_reduce_complete(nodeshm_nb_t *nb);
/* A request complete at once (nothing to move, on every rank). */
int nsm_nb_empty(MPI_Request *request);
/* Set by our generalized requests' cancel callback, which MPI_Cancel calls in this thread: 1, and
 * the op's communicator (MPI_COMM_NULL: an empty op's) (nonblocking_wait.c's MPI_Cancel). */
extern _Thread_local int nsm_nb_cancel_hit;
extern _Thread_local MPI_Comm nsm_nb_cancel_comm;
/* A request MPI does not let the caller cancel or free (a collective's, MPI-4.1 6.12 and 6.13; an
 * active persistent one, 3.7.3): says so naming `call`, what the request is (`what`: "a
 * non-blocking collective's", "an MPI_Iallreduce's, a non-blocking collective"), what MPI does
 * not allow (`refused`: "cancelling a collective's request") and what it accepts instead
 * (`accepted`), raises MPI_ERR_REQUEST through comm's error handler (MPI_COMM_NULL:
 * MPI_COMM_SELF's) and returns it; the request stays as it was (nonblocking_wait.c). */
int nsm_nb_refused(const char *call, MPI_Comm comm, const char *what, const char *refused, const char *accepted);
/* what MPI accepts instead of cancelling or freeing a collective's request */
#define NSM_NB_COMPLETE_IT "complete it with MPI_Wait or MPI_Test"
/* MPI_Request_free (persistent.c's, the one interception) on a request: when it is the
 * generalized request of a non-blocking collective of ours, alive (not yet returned complete by
 * a Wait or Test), refused as MPI-4.1 6.12 says (erroneous: nsm_nb_refused); else
 * NSM_HANDED_OVER: not ours. */
int nsm_nb_request_free(MPI_Request *request);

/* MPI_Ibcast's steps on one node (bcast.c: core/coll/bcast.h's step form on the op's buffers). */
int nsm_ibcast_publish(nodeshm_nb_t *nb);
int nsm_ibcast_complete(nodeshm_nb_t *nb);

/* Each op's steps on one node, for persistent.c (the persistent forms start the same ops) and
 * nonblocking_rooted.c: nonblocking.c barrier, bcast, allreduce, reduce; gather.c, allgather.c,
 * scatter.c gather, allgather, scatter (core/coll's step forms). */
typedef struct nsm_nb_steps {
    nodeshm_nb_step_t publish, complete;
} nsm_nb_steps_t;
extern const nsm_nb_steps_t nsm_nb_barrier_steps, nsm_nb_bcast_steps, nsm_nb_allreduce_steps, nsm_nb_reduce_steps,
    nsm_nb_gather_steps, nsm_nb_allgather_steps, nsm_nb_scatter_steps;

/* persistent.c: a request of ours from its MPI_Start until a Wait/Test returns it counts as
 * outstanding (+1, then -1), so that nodeshm_nb_any() stays the Wait/Test family's one test. */
static inline void nsm_nb_hold(long n) { nodeshm_count_add(&nodeshm_nb_outstanding, n); }

/* This rank's node rank in the op, and the node's members. */
static inline int nsm_nb_me(const nodeshm_nb_t *nb) { return nb->lane->area->flags.me; }
static inline int nsm_nb_members(const nodeshm_nb_t *nb) { return nb->lane->area->flags.n; }

/* ---- the v-forms and alltoall (nonblocking_v.c: Igatherv, Iscatterv, Iallgatherv, what they
 * share with nonblocking_a2a.c: Ialltoall, Ialltoallv).  An op's part beyond nsm_nb_op_t, in the
 * same allocation (nsm_nb_new_sized). */
typedef struct nsm_nbv {
    nsm_nb_op_t o;             /* first: the op (o.scount, o.rcount, o.bytes as above) */
    long long *cnt, *rcnt;     /* [size] counts: the op's vector (Igatherv, Iallgatherv: receive;
                                * Iscatterv, Ialltoallv: send), Ialltoallv's receive counts */
    MPI_Aint *dsp, *rdsp;      /* and displacements */
    long long mine;            /* Igatherv, Iallgatherv: my sendcount; Iscatterv: my recvcount */
    size_t ssize, rsize;       /* the datatypes' sizes */
    size_t lo, hi;             /* Igatherv, Iscatterv: a block through a slot when lo <= bytes <= hi */
    size_t T;                  /* Ialltoall(v): matrix stride */
    int sdense, rdense;
    int nreq;                  /* point-to-point halves posted (0 once all are complete) */
    uint64_t ticket;           /* Ialltoallv between nodes: its turn to post direct blocks */
    MPI_Request *req;
    char *tmp;                 /* Ialltoallv in place: copies of the blocks it sends point to point */
    /* between nodes (nonblocking_nodes_v.c) */
    size_t *soff;              /* Iallgatherv: the stage offset of each stage index, [size + 1] */
    int *lv;                   /* the leaders' call's counts and displacements, [4 * n_nodes] */
    MPI_Datatype ltype;        /* Ialltoall: the leaders' block type, made by the leader's start */
    MPI_Request *lreq;         /* Ialltoallv: the leaders' exchange (nsm_a2av_leaders_post), [2 * n_nodes] */
    int nlreq;                 /* of which posted and not yet complete */
} nsm_nbv_t;

#define NSM_NBV_ROUND(x) (((x) + 15) & ~(size_t)15)

/* A new op with room for `vectors` count and displacement arrays (1: cnt/dsp, 2: and rcnt/rdsp),
 * nreq point-to-point requests and tmp bytes (between nodes: and soff, lv, lreq). */
nsm_nbv_t *nsm_nbv_new(nsm_state_t *s, nodeshm_nb_step_t publish, nodeshm_nb_step_t complete, MPI_Request *request,
                       int vectors, int nreq, size_t tmp);
/* The caller's counts and displacements (int or wide) into the op's. */
void nsm_nbv_take(long long *cnt, MPI_Aint *dsp, nsm_vec_t vec, int n);
/* A datatype's size, -1 if unusable; its extent. */
long long nsm_nbv_tsize(MPI_Datatype type);
MPI_Aint nsm_nbv_extent(MPI_Datatype type);
/* Bytes of count (>= 0) elements of tsize bytes, SIZE_MAX beyond. */
static inline size_t nsm_nbv_bytes(long long count, size_t tsize)
{
    if (count <= 0 || !tsize) return 0;
    return (unsigned long long)count > SIZE_MAX / tsize ? SIZE_MAX : (size_t)count * tsize;
}
static inline char *nsm_nbv_at(const void *buf, MPI_Aint displ, MPI_Aint extent) { return (char *)buf + displ * extent; }
/* Ialltoall(v): my own block stays where it is (in place) or is copied straight across (both
 * datatypes dense); the matrix: on one node the slots, between nodes the leaders' stage. */
static inline int nsm_nbv_self_kept(const nsm_nbv_t *v) { return v->o.in_place || (v->sdense && v->rdense); }
static inline char *nsm_nbv_matrix(const nodeshm_nb_t *nb)
{
    return ((const nsm_nb_op_t *)nb)->s->n_nodes > 1 ? nb->bufs.stage : nb->bufs.slots;
}
/* Iallgatherv: comm rank r's block in the op's buffers: on one node its slot (node rank = comm
 * rank), between nodes its place in the stage (soff: nonblocking_nodes_v.c). */
static inline char *nsm_nbv_block(const nodeshm_nb_t *nb, int r)
{
    const nsm_nbv_t *v = (const nsm_nbv_t *)nb;
    if (v->o.s->n_nodes > 1) return nb->bufs.stage + v->soff[v->o.s->stage_index[r]];
    return nodeshm_nb_slot(nb, r);
}
static inline void nsm_nbv_arrive(nodeshm_nb_t *nb) { nodeshm_flags_arrive(&nb->lane->area->flags, nb->seq); }
/* One point-to-point half with comm rank `peer` on nsm_p2p under the state's tag, posted now; and
 * whether all of the op's halves are complete (tests them: for complete steps). */
void nsm_nbv_p2p(nsm_nbv_t *v, int send, const void *buf, long long count, MPI_Datatype type, int peer);
int nsm_nbv_p2p_done(nsm_nbv_t *v);
/* The op's state where it can run here (nsm_nb_state), with a point-to-point tag and (rooted) a
 * valid root; else NULL, the outcome recorded. */
nsm_state_t *nsm_nbv_state(int op, MPI_Comm comm, int root, int rooted);
/* nonblocking_nodes_v.c: Iallgatherv, Ialltoall, Ialltoallv between nodes: whether an Iallgatherv
 * or Ialltoall call fits the stage, and the three's steps (for nsm_nb_nodes_steps: returns whether
 * this rank writes shared buffers).  Ialltoallv's stride T (nsm_alltoallv_pairs_stride, as the
 * blocking op's) and its point-to-point blocks are nonblocking_a2a.c's, as on one node. */
int nsm_nbv_nodes_fit(const nsm_state_t *s, int op, size_t bytes);
int nsm_nbv_nodes_steps(nsm_nbv_t *v, int op);
/* _c entries: rc = body, or the MPI library's call when the body hands it over; counted (stats
 * on).  nsm_nbv_large: a body for counts beyond an int (the library's); nsm_nbv_stat_wide: the
 * report's bytes, counts[at] (at -1: my rank's) or with `sum` all of them. */
#define NSM_NBV_C_CALL(op, bytes, body, library)                                                   \
    do {                                                                                           \
        nsm_call_t c_;                                                                             \
        const int on_ = NSM_STATS_ON;                                                              \
        if (on_) nsm_stats_enter(&c_);                                                             \
        int rc_ = body;                                                                            \
        if (rc_ == NSM_HANDED_OVER) rc_ = library;                                                 \
        return on_ ? nsm_stats_leave(&c_, (op), (bytes), rc_) : rc_;                               \
    } while (0)
int nsm_nbv_large(void);
long long nsm_nbv_stat_wide(const MPI_Count *counts, MPI_Comm comm, int at, int sum, MPI_Datatype type);

#endif
