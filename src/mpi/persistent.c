/* libnodeshm_mpi: MPI-4 persistent collectives: MPI_Barrier_init, MPI_Bcast_init,
 * MPI_Allreduce_init, MPI_Reduce_init, MPI_Gather_init, MPI_Scatter_init, MPI_Allgather_init (and
 * their _c forms), each where the MPI has it (CMakeLists.txt checks mpi.h: nsm_bigcount_config.h):
 * here the requests of ours (their table, the decision, MPI_Start, MPI_Startall and
 * MPI_Request_free); the init calls that record them: persistent_init.c (persistent_entry.h
 * between the two); the Wait/Test family: persistent_wait.c.
 *
 * <Op>_init makes the MPI library's own persistent request (PMPI_<Op>_init), so the caller holds
 * a handle the library understands (in any array, with any call), and records it here with the
 * op's arguments.  Whether nodeshm runs the op is decided once, by the non-blocking op's rules
 * (nonblocking.c: one node, or between nodes with the non-blocking ops' steps there,
 * nonblocking_nodes.c; a communicator whose state a blocking collective has made, reductions
 * with predefined datatypes and ops, bytes within NODESHM_MPI_<OP>_INIT_MIN/_MAX and the shared
 * buffers), on values all ranks agree on.  Init must not wait for peers (MPI-4: it is local), so
 * where the communicator has no state yet the question is asked again at each MPI_Start (each
 * start is a collective call, in the same order on every rank: all see the same) until one has
 * made it; meanwhile the library runs it.  A start of ours runs the non-blocking op's steps
 * (core/coll/progress.h) on the buffers as they are then, without a generalized request: the
 * library's request stays inactive (its Wait/Test returns at once, empty), and the family looks
 * for ours first (persistent.h).  Stats and nodeshm_mpi_accelerated_op: one call per MPI_Start,
 * rows <op>_init.
 *
 * Measured (bench/mpi_osu.c rows <op>_init, 8 B-4 KiB, 50 calls a batch, medians of 5 alternating
 * repetitions; 3-4 runs per shape in turn, load 17-28 on 2 cores): Open MPI's own persistent
 * collectives take 0.4-0.9 us per start and wait at 2 ranks, and ours lost there at every run up
 * to 256 B for gather_init (0.56-0.86x), scatter_init (0.40-0.97x), allgather_init (0.69-1.06x),
 * reduce_init to 64 B (0.70-1.01x) and bcast_init 16-256 B (0.48-1.06x, one run 880-2150x); at 4
 * ranks bcast_init, gather_init and scatter_init to 32 B (0.13-1.01x): the Open MPI lower bounds
 * (NSM_OP_MINS: 512 B at 2 ranks, 64 B at 3-4).  The rest won at 4 and 8 ranks (Open MPI
 * 1.0-6000x; allreduce_init 0.95-44x and allgather_init 0.65-4.5x, where the branch's first run,
 * at load 28-40, had 0.06-0.55x; MPICH 0.46-400x), but Open MPI's 8-rank gather_init and
 * scatter_init to 32 B, mixed (0.30-2.2x): left on.  MPICH at 2 ranks was bimodal: two runs
 * 0.09-0.66x for allreduce_init and allgather_init, barrier_init 0.39x and 0.57x, both columns a
 * time slice per call; the other two 1.2-240x (barrier_init 10x, 159x): left on.  The 8 B point of
 * a row (its first size; the I<op> rows show it too) lost at 2-4 ranks under Open MPI (bcast_init
 * 0.08-0.40x, allreduce_init 0.24x at 2 ranks): not acted on.
 *
 * Between nodes (bench/mpi_osu.c rows barrier_init ... reduce_init, 8 B-64 KiB, windows widened,
 * oshrun --hosts 2, -i 100 -r 7, the columns alternating; a quiet machine, load 2-6; ratio =
 * library / nodeshm, medians): MPICH 2 per host (2 runs) barrier_init 1.46x, bcast_init
 * 0.93-2.8x (1 KiB 0.93, the rest >= 1.02), allreduce_init 0.99-1.18x, reduce_init 1.00-2.1x; 4
 * per host (1 run) 1.00-1.91x everywhere: all on to 64 KiB.  Open MPI 2 per host: barrier_init
 * 1.43x, bcast_init 1.2-1.9x from 8 B, reduce_init 4.5-5.3x from 32 B (8-16 B 0.74-0.78x in one
 * of 2 runs), allreduce_init 0.72-1.03x over 5 runs (its own persistent allreduce between the
 * hosts is as fast): off at 2 per host; 4 per host (1 run) barrier_init 2.7x, bcast_init
 * 1.5-3.1x, allreduce_init 0.98-1.24x, reduce_init 0.94-1.04x to 32 B and 1.8-5.0x above.  The
 * lower bounds as the non-blocking ops' (reduce_init 32 B at 2 per host, 64 B at 4), but none
 * for bcast_init between nodes.  Gather, scatter and allgather between nodes: NSM_OPS' notes
 * (nsmpi_config.h, the persistent rows); their default windows: tests/mpi_persist_defaults.c.
 *
 * MPI_Request_free of an inactive one of ours drops its entry; of an active one (started, not yet
 * returned complete by a Wait or Test: erroneous, MPI-4.1 3.7.3) it is refused as MPI_Cancel is
 * (nsm_nb_refused: MPI_ERR_REQUEST through the communicator's error handler), the request left
 * active, to be completed as usual; so is it on a non-blocking collective's request of ours
 * (nsm_nb_request_free: MPI-4.1 6.12 makes it erroneous for those, whatever their state).  A
 * communicator freed while requests on it live (MPI keeps it for them) is told by an attribute
 * of our own: its requests go to the library from then on, on every rank. */
#include "mpi/persistent_entry.h"
#include "core/lock.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const p_call[] = {"MPI_Barrier_init", "MPI_Bcast_init",     "MPI_Allreduce_init", "MPI_Reduce_init",
                                     "MPI_Gather_init",  "MPI_Allgather_init", "MPI_Scatter_init"};

#define P_BUCKETS 1024
static nsm_persist_t *p_table[P_BUCKETS];
long nsm_persist_entries; /* 0: MPI_Start, Startall, Request_free and the Wait/Test family go
                           * straight to the library */
static nodeshm_lock_t p_lock = NODESHM_LOCK_INIT;

static unsigned p_hash(MPI_Request r)
{
    uint64_t k = 0; /* an int (MPICH) or a pointer (Open MPI) */
    memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
    k ^= k >> 31;
    k *= 0xbf58476d1ce4e5b9ull;
    k ^= k >> 29;
    return (unsigned)(k % P_BUCKETS);
}

static nsm_persist_t *p_find(MPI_Request r)
{
    if (r == MPI_REQUEST_NULL) return NULL;
    nodeshm_lock(&p_lock);
    nsm_persist_t *e = p_table[p_hash(r)];
    while (e && e->req != r) e = e->next;
    nodeshm_unlock(&p_lock);
    return e;
}

static void p_insert(nsm_persist_t *e)
{
    nodeshm_lock(&p_lock);
    nsm_persist_t **b = &p_table[p_hash(e->req)];
    e->next = *b;
    *b = e;
    __atomic_fetch_add(&nsm_persist_entries, 1, __ATOMIC_RELAXED);
    nodeshm_unlock(&p_lock);
}

static void p_remove(nsm_persist_t *e)
{
    nodeshm_lock(&p_lock);
    for (nsm_persist_t **p = &p_table[p_hash(e->req)]; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            __atomic_fetch_sub(&nsm_persist_entries, 1, __ATOMIC_RELAXED);
            break;
        }
    nodeshm_unlock(&p_lock);
}

static void p_drop_types(nsm_persist_t *e)
{
    if (e->t.sdup) PMPI_Type_free(&e->t.stype);
    if (e->t.rdup) PMPI_Type_free(&e->t.rtype);
    e->t.sdup = e->t.rdup = 0;
}

/* ---------------------------------------------------------------- freed communicators */

static int p_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t p_once = PTHREAD_ONCE_INIT;

/* MPI_Comm_free (or MPI_Finalize): its requests go to the library from now on (no MPI calls
 * here: an op of ours still running completes as the state's own delete drains its lane) */
static int p_comm_freed(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)keyval, (void)attr, (void)extra;
    nodeshm_lock(&p_lock);
    for (int b = 0; b < P_BUCKETS; b++)
        for (nsm_persist_t *e = p_table[b]; e; e = e->next)
            if (!e->gone && e->comm == comm) {
                e->gone = 1;
                e->s = NULL;
                e->how = P_LIBRARY;
                e->why = NSM_WHY_SETUP;
            }
    nodeshm_unlock(&p_lock);
    return MPI_SUCCESS;
}

static void p_make_keyval(void) { PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, p_comm_freed, &p_keyval, NULL); }

/* comm gets our attribute (once): its delete callback tells when comm is freed */
static void p_watch(MPI_Comm comm)
{
    void *v;
    int flag = 0;
    pthread_once(&p_once, p_make_keyval);
    if (p_keyval != MPI_KEYVAL_INVALID && PMPI_Comm_get_attr(comm, p_keyval, &v, &flag) == MPI_SUCCESS && !flag)
        PMPI_Comm_set_attr(comm, p_keyval, NULL);
}

/* ---------------------------------------------------------------- deciding */

void nsm_persist_library(nsm_persist_t *e, int why)
{
    e->how = P_LIBRARY;
    e->why = why;
    p_drop_types(e);
}

/* The non-blocking op whose steps a kind's starts run (its between-nodes steps too). */
static const int p_nb_id[] = {NSM_OP_IBARRIER, NSM_OP_IBCAST,     NSM_OP_IALLREDUCE, NSM_OP_IREDUCE,
                              NSM_OP_IGATHER,  NSM_OP_IALLGATHER, NSM_OP_ISCATTER};

/* Whether e's bytes fit the shared buffers its non-blocking op's steps use: gather, scatter,
 * allgather a slot, or between nodes the stage (every rank's block); bcast the result area;
 * reductions a slot, and between nodes the result area too (the leader reduces into it). */
static int p_fits_buffers(const nsm_persist_t *e, const nsm_state_t *s)
{
    size_t bytes = (size_t)e->bytes;
    if (e->kind == K_GATHER || e->kind == K_SCATTER || e->kind == K_ALLGATHER) return nsm_nb_fits_blocks(s, bytes);
    if (e->kind == K_ALLREDUCE || e->kind == K_REDUCE) return nsm_nb_fits_reduction(s, bytes);
    return nsm_nb_fits(s, bytes, e->result);
}

/* The non-blocking op's decision (nonblocking.c, nsm_nb_state and each op's checks), once the
 * communicator's state exists; until then e stays undecided. */
static void p_decide(nsm_persist_t *e)
{
    int id = e->id;
    nsm_state_t *s;
    if (nsm_cfg.all_off || nsm_cfg.off[id] || (e->kind != K_BARRIER && !nsm_op_max(id)))
        return nsm_persist_library(e, nsm_why_window(id, e->comm, NULL, 0, e->bytes, NSM_WHY_DISABLED));
    if (e->gone) return nsm_persist_library(e, NSM_WHY_SETUP);
    if (!nsm_peek_state(e->comm, &s)) {
        e->why = NSM_WHY_SETUP; /* asked again at the next start */
        return;
    }
    /* between nodes: the ops whose non-blocking form has a between-nodes path (all but
     * barrier_init with their own several-nodes windows); barrier_init, which has no size, where
     * its column is not 0, on one node too (Open MPI's own at 2 ranks: 0.13 us a start and wait
     * here, ours 0.18-0.21 us: 0.59-0.80x in every one-node table; MPICH 2 ranks 3.4-3.5x, 4 ranks
     * 5.1-5.7x, Open MPI 4 ranks 1.56-1.63x) */
    if (!s || (s->n_nodes > 1 && !nsm_nb_between_nodes(p_nb_id[e->kind])) || (e->kind == K_BARRIER && !s->max[id]))
        return nsm_persist_library(e, nsm_why_window(id, e->comm, s, 1, e->bytes,
                                                     e->kind == K_BARRIER && s && !s->max[id] ? NSM_WHY_ABOVE_MAX
                                                                                            : NSM_WHY_NODES));
    e->s = s;
    if (e->kind == K_BARRIER) {
        e->how = P_OURS;
        e->why = NSM_WHY_NONE;
        return;
    }
    int bad_root = e->rooted && (e->root < 0 || e->root >= s->size);
    if (e->bytes < 0 || bad_root || (size_t)e->bytes > s->max[id] || (e->bytes > 0 && (size_t)e->bytes < s->min[id]) ||
        !p_fits_buffers(e, s)) {
        int reduction = e->kind == K_ALLREDUCE || e->kind == K_REDUCE;
        return nsm_persist_library(e, e->bytes < 0 ? (reduction && !nsm_op_ok(e->t.op) ? NSM_WHY_OP : NSM_WHY_DATATYPE)
                            : bad_root   ? NSM_WHY_ARGS
                                         : nsm_why_window(id, e->comm, s, 1, e->bytes, NSM_WHY_STAGE));
    }
    e->how = e->bytes == 0 ? P_EMPTY : P_OURS;
    e->why = e->bytes == 0 ? NSM_WHY_EMPTY : NSM_WHY_NONE;
}

/* persistent_entry.h says what these three do for the init calls */
nsm_persist_t *nsm_persist_new(int rc, int id, int kind, MPI_Comm comm, const MPI_Request *request)
{
    int inter = 0, size = 0, why = NSM_WHY_NONE;
    if (rc != MPI_SUCCESS || comm == MPI_COMM_NULL) return NULL;
    if (nsm_cfg.all_off || nsm_cfg.off[id]) why = NSM_WHY_DISABLED;
    else if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) why = NSM_WHY_INTER;
    else if (PMPI_Comm_size(comm, &size) != MPI_SUCCESS || size < 2) why = NSM_WHY_ALONE;
    if (why != NSM_WHY_NONE && !NSM_STATS_ON) return NULL;
    nsm_persist_t *e = calloc(1, sizeof *e);
    if (!e) {
        fprintf(stderr, "nodeshm_mpi: %s: out of memory\n", p_call[kind]);
        nodeshm_abort_job(1);
    }
    e->req = *request;
    e->id = id;
    e->kind = kind;
    e->comm = comm;
    e->root = -1;
    e->t.root_nr = -1;
    e->why = why;
    e->how = why != NSM_WHY_NONE ? P_LIBRARY : P_UNDECIDED;
    PMPI_Comm_rank(comm, &e->me);
    return e;
}

static const nsm_nb_steps_t *const p_steps[] = {&nsm_nb_barrier_steps, &nsm_nb_bcast_steps,     &nsm_nb_allreduce_steps,
                                                &nsm_nb_reduce_steps,  &nsm_nb_gather_steps,    &nsm_nb_allgather_steps,
                                                &nsm_nb_scatter_steps};

int nsm_persist_add(nsm_persist_t *e)
{
    e->steps = *p_steps[e->kind];
    e->t.bytes = e->bytes > 0 ? (size_t)e->bytes : 0;
    if (e->how == P_UNDECIDED) p_decide(e);
    if (e->how == P_LIBRARY && !NSM_STATS_ON) {
        p_drop_types(e);
        free(e);
        return MPI_SUCCESS;
    }
    if (e->how != P_LIBRARY) p_watch(e->comm);
    p_insert(e);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- starting */

static void p_finished(nodeshm_nb_t *nb)
{
    nsm_persist_t *e = ((nsm_nb_op_t *)nb)->owner;
    __atomic_store_n(&e->done, 1, __ATOMIC_RELEASE);
}

static int p_start(nsm_persist_t *e, MPI_Request *request)
{
    if (e->how == P_UNDECIDED) p_decide(e);
    nsm_call_t c;
    const int counting = NSM_STATS_ON;
    if (counting) {
        nsm_stats_enter(&c);
        c.why = e->why;
    }
    int rc = MPI_SUCCESS;
    if (e->how == P_LIBRARY || e->how == P_UNDECIDED) {
        rc = PMPI_Start(request);
        e->lib_last = 1;
    } else {
        if (e->active) {
            fprintf(stderr, "nodeshm_mpi: MPI_Start: a request of %s that is active (started, not yet completed by "
                            "MPI_Wait or MPI_Test): erroneous; start it again once it has completed\n", p_call[e->kind]);
            nodeshm_abort_job(1);
        }
        e->active = 1;
        e->lib_last = 0;
        __atomic_store_n(&e->done, e->how == P_EMPTY, __ATOMIC_RELAXED);
        nsm_nb_hold(1);
        if (e->how == P_OURS) {
            nsm_nb_op_t *o = nsm_nb_new(e->s, e->steps.publish, e->steps.complete, NULL);
            const nsm_nb_op_t *t = &e->t;
            o->sendbuf = t->sendbuf;
            o->recvbuf = t->recvbuf;
            o->scount = t->scount;
            o->rcount = t->rcount;
            o->stype = t->stype; /* borrowed: the entry keeps its duplicates (sdup, rdup 0 here) */
            o->rtype = t->rtype;
            o->root_nr = t->root_nr;
            o->in_place = t->in_place;
            o->sext = t->sext;
            o->rext = t->rext;
            o->rdense = t->rdense;
            o->op = t->op;
            o->bytes = t->bytes;
            o->owner = e;
            o->nb.finished = p_finished;
            /* between nodes the non-blocking op's steps there, and who writes shared buffers */
            int writes = e->s->n_nodes > 1 ? nsm_nb_nodes_steps(o, p_nb_id[e->kind]) : e->writes;
            nsm_nb_go(o, e->id, writes, t->bytes);
        }
    }
    if (counting) nsm_stats_leave(&c, e->id, e->stat_bytes, rc);
    return rc;
}

int MPI_Start(MPI_Request *request)
{
    nsm_persist_t *e;
    if (!__atomic_load_n(&nsm_persist_entries, __ATOMIC_RELAXED) || !request || !(e = p_find(*request)))
        return PMPI_Start(request);
    return p_start(e, request);
}

/* In array order: the collectives among them start in the order every rank gives */
int MPI_Startall(int count, MPI_Request requests[])
{
    int ours = 0, rc = MPI_SUCCESS;
    for (int i = 0; __atomic_load_n(&nsm_persist_entries, __ATOMIC_RELAXED) && i < count && !ours; i++)
        ours = p_find(requests[i]) != NULL;
    if (!ours) return PMPI_Startall(count, requests);
    for (int i = 0; i < count; i++) {
        nsm_persist_t *e = p_find(requests[i]);
        int r = e ? p_start(e, &requests[i]) : PMPI_Start(&requests[i]);
        if (r != MPI_SUCCESS && rc == MPI_SUCCESS) rc = r;
    }
    return rc;
}

/* The one interception of MPI_Request_free: persistent requests of ours here, non-blocking ones
 * of ours refused (nonblocking.c), the rest the library's */
int MPI_Request_free(MPI_Request *request)
{
    nsm_persist_t *e;
    if (!__atomic_load_n(&nsm_persist_entries, __ATOMIC_RELAXED) || !request || !(e = p_find(*request))) {
        int rc = nsm_nb_request_free(request);
        return rc != NSM_HANDED_OVER ? rc : PMPI_Request_free(request);
    }
    if (e->active) { /* erroneous (MPI-4.1 3.7.3): refused, the request stays active and usable */
        char what[128];
        snprintf(what, sizeof what, "an %s's, a persistent collective, active (started, not yet completed)",
                 p_call[e->kind]);
        return nsm_nb_refused("MPI_Request_free", nsm_persist_comm(e), what, "freeing an active request",
                              "complete it with MPI_Wait or MPI_Test, then free it");
    }
    p_remove(e);
    p_drop_types(e); /* no op of ours uses them: the last one has completed */
    free(e);
    return PMPI_Request_free(request);
}

/* ---------------------------------------------------------------- for the Wait/Test family */

nsm_persist_t *nsm_persist_ours(MPI_Request request)
{
    nsm_persist_t *e = p_find(request);
    return e && (e->active || !e->lib_last) ? e : NULL;
}
int nsm_persist_active_now(const nsm_persist_t *e) { return e->active; }
MPI_Comm nsm_persist_comm(const nsm_persist_t *e) { return e->gone ? MPI_COMM_NULL : e->comm; }

int nsm_persist_done(const nsm_persist_t *e) { return __atomic_load_n(&e->done, __ATOMIC_ACQUIRE); }

void nsm_persist_empty_status(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE) return;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
}

void nsm_persist_return(nsm_persist_t *e, MPI_Status *status)
{
    e->active = 0;
    nsm_nb_hold(-1);
    nsm_persist_empty_status(status);
}

void nsm_persist_poke(void)
{
    int flag;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

void nsm_persist_finish(nsm_persist_t *e)
{
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    for (unsigned steps = 1; nodeshm_nb_progress(), !nsm_persist_done(e); steps++) {
        if (steps % NSM_PERSIST_POLL_EVERY == 0) nsm_persist_poke();
        nodeshm_wait_step(&w);
    }
}
