/* libnodeshm_mpi: non-blocking collectives on one node: MPI_Ibarrier, MPI_Ibcast, MPI_Iallreduce
 * here, MPI_Ireduce, MPI_Igather, MPI_Iscatter, MPI_Iallgather in nonblocking_rooted.c, the v-forms
 * in nonblocking_v.c, MPI_Ialltoall(v) in nonblocking_a2a.c (and the _c forms where the MPI has
 * them), what they share (nonblocking.h).
 *
 * Each accelerated call is an op of the core's progress engine (core/coll/progress.h) on its
 * communicator's lane, and the caller holds an MPI generalized request (MPI_Grequest_start) that
 * the op completes: the MPI library's own MPI_Wait/MPI_Test family understands it, so arrays
 * mixing these with point-to-point or library requests work.  Progress happens at start and in
 * the intercepted MPI_Test/MPI_Wait family (nonblocking_wait.c).  Each start publishes what its
 * peers need, so they complete without another call of ours:
 *   Ibarrier    arrives; done when every node rank has arrived
 *   Iallreduce  copies its contribution into its slot; done when every slot is there: each rank
 *               reduces all of them, in node rank order (the same bits everywhere), into its
 *               receive buffer: one flag round, no second one that would need the peers again
 *   Ibcast      the root packs its message into the result area (done at once); the others
 *               unpack it once the root's flag says it is there: the blocking broadcast's
 *               code, core/coll/bcast.h's step form (bcast.c)
 * Beyond the buffers' depth (the ring's entries, 256 calls up to 4 KiB; 2 banks above) a start
 * publishes at a later Test/Wait instead (progress.h).
 *
 * Between nodes Ibarrier, Ibcast, Iallreduce, Ireduce, Igather, Iscatter and Iallgather take the
 * steps of nonblocking_nodes.c, Iallgatherv, Ialltoall and Ialltoallv those of
 * nonblocking_nodes_v.c (the node leaders' part a third step).
 *
 * Handed to the MPI library: the other ops on communicators spanning nodes; a communicator no collective call
 * has looked up yet (making its state is collective, and a start must not wait for peers: MPI
 * lets a rank start MPI_Ibarrier, then block in MPI_Recv from a peer that has not started it;
 * every rank makes the same calls, so all decide alike); reductions on datatypes that are not
 * predefined or with user-defined ops; sizes outside NODESHM_MPI_I<OP>_MAX or the shared buffers.
 * The others decide on bytes alone (datatypes may differ by rank) and keep a derived datatype
 * alive by duplicating it (the caller may free its handle after the start).
 *
 * Measured (bench/mpi_osu.c rows i<op>, NODESHM_MPI_I<OP>_MAX=1m, 8 B-64 KiB, 5 alternating
 * repetitions, medians; MPICH 5.0 and Open MPI 5.0 on 2 cores at a load of 18-34: other jobs ran,
 * so a call either found its peers running or waited for a time slice, in both columns):
 *   MPICH's own non-blocking collectives take 25-1000 us (they progress in MPI_Wait only, in
 *   several rounds); ours 0.4-10 us when the peers run.  4 and 8 ranks: 1.2-370x for every op and
 *   size; 2 ranks: 1.5-380x for ireduce, igather, iscatter, iallgather, iallreduce from 1 KiB,
 *   0.3-0.9x for ibarrier, iallreduce 8-512 B, ibcast from 16 KiB (the last two 15-230x in an
 *   earlier run, before a fix to the wait loop; ibarrier 0.11x there too: left on, unconfirmed).  Window 64 KiB on one node (above it not measured enough).
 *   Open MPI's take 0.4-10 us here: 2 ranks 1.0-2.7x at 64 B-16 KiB, ibcast 0.58x and igather
 *   0.49-0.73x at 32-64 KiB, 0.2-0.74x at 8 B (the first size of each row: a warm-up effect not
 *   looked into); 4 ranks 1.0-140x at 64 B-64 KiB.  Window 16 KiB on one node. */
#include "mpi/nonblocking.h"
#include "nsm_bigcount_config.h"
#include "core/lock.h"

#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- what every op shares */

/* An op's memory: one freed block is kept for the next op where one thread at a time is in MPI
 * (core/lock.h; else calloc and free as they are): a calloc and a free per op were ~10% of a
 * self-only MPI_Ialltoallv + MPI_Wait at 2 ranks (perf), and keeping one cut that call 12%
 * (Open MPI, 0.161-0.192 -> 0.141-0.157 us).  A block carries its capacity before it. */
static void *nb_kept;
static void *nb_block_get(size_t bytes)
{
    if (!nodeshm_lock_threads && nb_kept) {
        void *o = nb_kept;
        nb_kept = NULL;
        if (((size_t *)o)[-1] >= bytes) return memset(o, 0, bytes);
        /* too small: let it go, so that the larger one made now is kept (a small op's block,
         * kept first, made every larger op of the run calloc and free again) */
        free((size_t *)o - 2);
    }
    size_t *b = calloc(1, bytes + 2 * sizeof(size_t)); /* 16 bytes: the block stays aligned */
    if (!b) return NULL;
    b[1] = bytes;
    return b + 2;
}
static void nb_block_put(void *o)
{
    if (!nodeshm_lock_threads && !nb_kept) {
        nb_kept = o;
        return;
    }
    free((size_t *)o - 2);
}
void nsm_nb_forget_kept(void)
{
    if (nb_kept) free((size_t *)nb_kept - 2);
    nb_kept = NULL;
}

static void nb_unref(nsm_nb_op_t *o)
{
    if (nodeshm_count_add(&o->refs, -1)) return;
    if (o->sdup) PMPI_Type_free(&o->stype);
    if (o->rdup) PMPI_Type_free(&o->rtype);
    nb_block_put(o);
}

/* the generalized request's callbacks: the status of a collective is empty */
static int nb_query(void *extra, MPI_Status *status)
{
    (void)extra;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    return MPI_SUCCESS;
}
/* Our generalized requests alive, from the start to the free callback (the Wait or Test that
 * returns one complete frees it): MPI_Request_free must know them (nsm_nb_request_free) */
static nodeshm_lock_t nb_live_lock = NODESHM_LOCK_INIT;
static nsm_nb_op_t *nb_live;
static long nb_live_count;
static void nb_live_add(nsm_nb_op_t *o)
{
    nodeshm_lock(&nb_live_lock);
    o->live_prev = NULL;
    o->live_next = nb_live;
    if (nb_live) nb_live->live_prev = o;
    nb_live = o;
    nodeshm_count_add(&nb_live_count, 1L);
    nodeshm_unlock(&nb_live_lock);
}
static void nb_live_drop(nsm_nb_op_t *o)
{
    nodeshm_lock(&nb_live_lock);
    if (o->live_prev) o->live_prev->live_next = o->live_next;
    else nb_live = o->live_next;
    if (o->live_next) o->live_next->live_prev = o->live_prev;
    nodeshm_count_add(&nb_live_count, -1L);
    nodeshm_unlock(&nb_live_lock);
}

static int nb_free(void *extra)
{
    if (extra) {
        nb_live_drop(extra);
        nb_unref(extra);
    }
    return MPI_SUCCESS;
}

int nsm_nb_request_free(MPI_Request *request)
{
    if (!request || !__atomic_load_n(&nb_live_count, __ATOMIC_RELAXED)) return NSM_HANDED_OVER;
    int id = -1;
    MPI_Comm comm = MPI_COMM_NULL;
    nodeshm_lock(&nb_live_lock);
    for (const nsm_nb_op_t *o = nb_live; o; o = o->live_next)
        if (o->req == *request) {
            id = o->id;
            comm = o->comm;
            break;
        }
    nodeshm_unlock(&nb_live_lock);
    if (id < 0) return NSM_HANDED_OVER;
    /* the op's entry, from its name in the configuration's table: ialltoallv -> MPI_Ialltoallv */
    char what[96];
    const char *name = nsm_op_id_name(id);
    snprintf(what, sizeof what, "an MPI_%c%s's, a non-blocking collective", toupper((unsigned char)name[0]), name + 1);
    return nsm_nb_refused("MPI_Request_free", comm, what, "freeing a collective's request", NSM_NB_COMPLETE_IT);
}
/* MPI: erroneous for a collective; nothing to undo.  MPI_Cancel (nonblocking_wait.c) hears of it
 * here, and reports it on the op's communicator */
_Thread_local int nsm_nb_cancel_hit;
_Thread_local MPI_Comm nsm_nb_cancel_comm;
static int nb_cancel(void *extra, int complete)
{
    (void)complete;
    nsm_nb_cancel_hit = 1;
    nsm_nb_cancel_comm = extra ? ((nsm_nb_op_t *)extra)->comm : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

static void nb_finished(nodeshm_nb_t *nb) { PMPI_Grequest_complete(((nsm_nb_op_t *)nb)->req); }
static void nb_release(nodeshm_nb_t *nb) { nb_unref((nsm_nb_op_t *)nb); }

nsm_nb_op_t *nsm_nb_new(nsm_state_t *s, nodeshm_nb_step_t publish, nodeshm_nb_step_t complete,
                        MPI_Request *request)
{
    return nsm_nb_new_sized(s, publish, complete, request,
                            sizeof(nsm_nb_op_t) + (s->n_nodes > 1 ? 2 * sizeof(int) * (size_t)s->n_nodes : 0));
}

nsm_nb_op_t *nsm_nb_new_sized(nsm_state_t *s, nodeshm_nb_step_t publish, nodeshm_nb_step_t complete,
                              MPI_Request *request, size_t bytes)
{
    nsm_nb_op_t *o = nb_block_get(bytes);
    if (!o || (request && PMPI_Grequest_start(nb_query, nb_free, nb_cancel, o, &o->req) != MPI_SUCCESS)) {
        fprintf(stderr, "nodeshm_mpi: a non-blocking collective on %d ranks: out of memory\n", s->size);
        nodeshm_abort_job(1);
    }
    o->lreq[0] = o->lreq[1] = MPI_REQUEST_NULL;
    o->refs = request ? 2 : 1;
    o->s = s;
    o->comm = s->comm;
    o->nb.publish = publish;
    o->nb.complete = complete;
    o->nb.finished = nb_finished;
    o->nb.release = nb_release;
    if (request) {
        nb_live_add(o);
        *request = o->req;
    }
    if (!s->nb.area) s->nb.area = &s->area;
    return o;
}

static MPI_Datatype nb_keep(MPI_Datatype type, int *dup)
{
    MPI_Datatype out = type;
    *dup = 0;
    if (type != MPI_DATATYPE_NULL && !nsm_known_size(type) && !nsm_is_named(type) &&
        PMPI_Type_dup(type, &out) == MPI_SUCCESS)
        *dup = 1;
    return out;
}
void nsm_nb_send_type(nsm_nb_op_t *o, MPI_Datatype type) { o->stype = nb_keep(type, &o->sdup); }
void nsm_nb_recv_type(nsm_nb_op_t *o, MPI_Datatype type) { o->rtype = nb_keep(type, &o->rdup); }

void nsm_nb_go(nsm_nb_op_t *o, int op, int writes, size_t need)
{
    nsm_count_accelerated(op);
    o->id = op;
    o->nb.writes = writes;
    nodeshm_nb_start(&o->s->nb, &o->nb, need);
}

int nsm_nb_empty(MPI_Request *request)
{
    int rc = PMPI_Grequest_start(nb_query, nb_free, nb_cancel, NULL, request);
    return rc == MPI_SUCCESS ? PMPI_Grequest_complete(*request) : rc;
}

/* Why a call on a communicator without a state goes to the MPI library (stats on only). */
static int nb_why_unknown(MPI_Comm comm)
{
    int inter = 0, size = 0;
    if (comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter) return NSM_WHY_INTER;
    if (comm != MPI_COMM_NULL && PMPI_Comm_size(comm, &size) == MPI_SUCCESS && size < 2) return NSM_WHY_ALONE;
    return NSM_WHY_SETUP;
}

nsm_state_t *nsm_nb_state(int op, MPI_Comm comm, long long bytes)
{
    nsm_state_t *s;
    if (nsm_cfg.all_off || nsm_cfg.off[op] || (op != NSM_OP_IBARRIER && !nsm_op_max(op))) {
        NSM_HAND(op, comm, NULL, 0, bytes, NSM_WHY_DISABLED);
        return NULL;
    }
    if (!nsm_peek_state(comm, &s)) {
        NSM_WHY(nb_why_unknown(comm));
        return NULL;
    }
    /* between nodes Ibarrier, which has no size, runs where its window is not 0 (nsmpi_config.h) */
    if (!s || (s->n_nodes > 1 && (!nsm_nb_between_nodes(op) || (op == NSM_OP_IBARRIER && !s->max[op])))) {
        NSM_HAND(op, comm, s, 1, bytes, NSM_WHY_NODES);
        return NULL;
    }
    return s;
}

/* ---------------------------------------------------------------- MPI_Ibarrier */

static int barrier_publish(nodeshm_nb_t *nb)
{
    nodeshm_flags_arrive(&nb->lane->area->flags, nb->seq);
    return 1;
}
static int barrier_complete(nodeshm_nb_t *nb) { return nodeshm_nb_all_arrived(nb); }

NSM_BODY int accelerated_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    nsm_state_t *s = nsm_nb_state(NSM_OP_IBARRIER, comm, -1);
    if (!s) return PMPI_Ibarrier(comm, request);
    nsm_nb_op_t *o = nsm_nb_new(s, barrier_publish, barrier_complete, request);
    if (s->n_nodes > 1) (void)nsm_nb_nodes_steps(o, NSM_OP_IBARRIER);
    nsm_nb_go(o, NSM_OP_IBARRIER, 0, 0);
    return MPI_SUCCESS;
}

NSM_STATS_TWIN(Ibarrier, NSM_OP_IBARRIER, (MPI_Comm comm, MPI_Request *request), (comm, request), 0)

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    if (NSM_STATS_ON) return stats_Ibarrier(comm, request);
    return accelerated_Ibarrier(comm, request);
}

/* ---------------------------------------------------------------- MPI_Ibcast */

/* On one node the steps are the broadcast's (bcast.c: core/coll/bcast.h's step form): the root
 * packs its message into the result area, the others unpack it once it is there */

NSM_BODY int accelerated_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                                MPI_Request *request)
{
    /* decided on the bytes alone, which all ranks agree on (datatypes may differ by rank) */
    long long bytes = nsm_bytes(count, type);
    nsm_state_t *s = nsm_nb_state(NSM_OP_IBCAST, comm, bytes);
    if (!s || bytes < 0 || root < 0 || root >= s->size || (size_t)bytes > s->max[NSM_OP_IBCAST] ||
        (bytes > 0 && (size_t)bytes < s->min[NSM_OP_IBCAST]) || !nsm_nb_fits(s, (size_t)bytes, 1)) {
        if (s) NSM_HAND(NSM_OP_IBCAST, comm, s, 1, bytes, root < 0 || root >= s->size ? NSM_WHY_ARGS : NSM_WHY_STAGE);
        return PMPI_Ibcast(buf, count, type, root, comm, request);
    }
    if (bytes == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return nsm_nb_empty(request);
    }
    nsm_nb_op_t *o = nsm_nb_new(s, nsm_ibcast_publish, nsm_ibcast_complete, request);
    o->recvbuf = buf;
    o->rcount = count;
    nsm_nb_recv_type(o, type);
    o->bytes = (size_t)bytes;
    o->root_nr = root; /* one node: node rank = comm rank; between nodes the comm rank */
    int writes = s->n_nodes > 1 ? nsm_nb_nodes_steps(o, NSM_OP_IBCAST) : s->rank == root;
    nsm_nb_go(o, NSM_OP_IBCAST, writes, (size_t)bytes);
    return MPI_SUCCESS;
}

NSM_STATS_TWIN(Ibcast, NSM_OP_IBCAST,
               (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request),
               (buf, count, type, root, comm, request), nsm_stat_bytes(count, type))

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request)
{
    if (NSM_STATS_ON) return stats_Ibcast(buf, count, type, root, comm, request);
    if (nsm_known_outside(NSM_OP_IBCAST, count, type)) return PMPI_Ibcast(buf, count, type, root, comm, request);
    return accelerated_Ibcast(buf, count, type, root, comm, request);
}

/* ---------------------------------------------------------------- MPI_Iallreduce */

/* my contribution into my slot; once all are there, every rank (Ireduce: the root) reduces
 * them all itself */
static int reduction_publish(nodeshm_nb_t *nb)
{
    nsm_nb_op_t *o = (nsm_nb_op_t *)nb;
    memcpy(nodeshm_nb_slot(nb, nsm_nb_me(nb)), o->in_place ? o->recvbuf : o->sendbuf, o->bytes);
    nodeshm_flags_arrive(&nb->lane->area->flags, nb->seq);
    return 1;
}

void nsm_nb_reduce_slots(const nodeshm_nb_t *nb, void *dst)
{
    const nsm_nb_op_t *o = (const nsm_nb_op_t *)nb;
    nsm_reduction_t m = nsm_reduction(nb->bufs.slots, nb->bufs.slot_stride, (MPI_Aint)(o->bytes / (size_t)o->rcount),
                                      o->rtype, o->op);
    nodeshm_reduce_ordered(&m.r, dst, 0, (size_t)o->rcount, 0, nsm_nb_members(nb) - 1);
}

static int allreduce_complete(nodeshm_nb_t *nb)
{
    nsm_nb_op_t *o = (nsm_nb_op_t *)nb;
    if (!nodeshm_nb_all_arrived(nb)) return 0;
    nsm_nb_reduce_slots(nb, o->recvbuf);
    return 1;
}

long long nsm_nb_reduction_bytes(int count, MPI_Datatype type, MPI_Op op)
{
    MPI_Aint lb = 0, extent = 0;
    if (count < 0 || type == MPI_DATATYPE_NULL || !nsm_op_ok(op) || !nsm_is_named(type) ||
        nsm_extent(type, &lb, &extent) != MPI_SUCCESS || lb != 0 || extent <= 0)
        return -1;
    return (long long)count * extent;
}

int nsm_nb_reduction(int id, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                     int root, MPI_Comm comm, MPI_Request *request)
{
    long long bytes = nsm_nb_reduction_bytes(count, type, op);
    nsm_state_t *s = nsm_nb_state(id, comm, bytes);
    int bad_root = id == NSM_OP_IREDUCE && s && (root < 0 || root >= s->size);
    if (!s || bytes < 0 || bad_root || (size_t)bytes > s->max[id] || (bytes > 0 && (size_t)bytes < s->min[id]) ||
        !nsm_nb_fits_reduction(s, (size_t)bytes)) {
        if (s)
            NSM_HAND(id, comm, s, 1, bytes,
                     !nsm_op_ok(op) ? NSM_WHY_OP : bytes < 0 ? NSM_WHY_DATATYPE : bad_root ? NSM_WHY_ARGS : NSM_WHY_STAGE);
        return NSM_HANDED_OVER;
    }
    if (count == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return nsm_nb_empty(request);
    }
    nsm_nb_op_t *o = nsm_nb_new(s, reduction_publish, id == NSM_OP_IREDUCE ? nsm_nb_reduce_complete : allreduce_complete,
                                request);
    o->sendbuf = sendbuf;
    o->recvbuf = recvbuf;
    o->in_place = sendbuf == MPI_IN_PLACE && (id == NSM_OP_IALLREDUCE || s->rank == root);
    o->rcount = count;
    o->rtype = type;
    o->op = op;
    o->root_nr = root;
    o->bytes = (size_t)bytes;
    if (s->n_nodes > 1) (void)nsm_nb_nodes_steps(o, id);
    nsm_nb_go(o, id, 1, (size_t)bytes);
    return MPI_SUCCESS;
}

NSM_BODY int accelerated_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                    MPI_Comm comm, MPI_Request *request)
{
    int rc = nsm_nb_reduction(NSM_OP_IALLREDUCE, sendbuf, recvbuf, count, type, op, -1, comm, request);
    return rc != NSM_HANDED_OVER ? rc : PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
}

NSM_STATS_TWIN(Iallreduce, NSM_OP_IALLREDUCE,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                MPI_Request *request),
               (sendbuf, recvbuf, count, type, op, comm, request), nsm_stat_bytes(count, type))

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request)
{
    if (NSM_STATS_ON) return stats_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
    if (nsm_known_outside(NSM_OP_IALLREDUCE, count, type))
        return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
    return accelerated_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
}

/* ---------------------------------------------------------------- MPI-4 large counts
 * A count that fits an int runs the plain entry's code; a larger one is a message of >= 2^31
 * bytes, above every window, so every rank hands it over (bigcount.c says more). */

NSM_IF_C_Ibcast(
int MPI_Ibcast_c(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *request)
{
    if (count >= 0 && count <= INT_MAX) {
        if (NSM_STATS_ON) return stats_Ibcast(buf, (int)count, type, root, comm, request);
        return accelerated_Ibcast(buf, (int)count, type, root, comm, request);
    }
    NSM_RETURN_COUNTED(NSM_OP_IBCAST, NSM_WHY_LARGE, nsm_stat_bytes(count, type),
                       PMPI_Ibcast_c(buf, count, type, root, comm, request));
})

NSM_IF_C_Iallreduce(
int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm, MPI_Request *request)
{
    if (count >= 0 && count <= INT_MAX) {
        if (NSM_STATS_ON) return stats_Iallreduce(sendbuf, recvbuf, (int)count, type, op, comm, request);
        return accelerated_Iallreduce(sendbuf, recvbuf, (int)count, type, op, comm, request);
    }
    NSM_RETURN_COUNTED(NSM_OP_IALLREDUCE, NSM_WHY_LARGE, nsm_stat_bytes(count, type),
                       PMPI_Iallreduce_c(sendbuf, recvbuf, count, type, op, comm, request));
})

/* the persistent forms' steps (persistent.c) */
const nsm_nb_steps_t nsm_nb_barrier_steps = {barrier_publish, barrier_complete},
                     nsm_nb_bcast_steps = {nsm_ibcast_publish, nsm_ibcast_complete},
                     nsm_nb_allreduce_steps = {reduction_publish, allreduce_complete},
                     nsm_nb_reduce_steps = {reduction_publish, nsm_nb_reduce_complete};
