/* libnodeshm_mpi: the per-communicator state's life (nsmpi.h): made at a communicator's first
 * call that could be accelerated, hung on it as an attribute, freed at MPI_Comm_free or
 * MPI_Finalize; and the point-to-point channel that gatherv and scatterv share.
 *
 * Frugal with MPICH's context ids (2048 per process; the interposer used to keep three
 * communicators per accelerated one: a node split, a leaders communicator and the one an
 * MPI_Win_allocate_shared window duplicates inside MPICH, and MPI_Comm_dup failed at 512 live
 * ones).  Now a state keeps none on one node, and across nodes one, on the leaders only:
 *   - its setup collectives run on the communicator itself (every rank is inside the same
 *     collective call of the user's, so they are part of it);
 *   - the node split lives only until the shape is known (the ranks' node leaders, gathered);
 *   - the shared memory is a file of the core (core/shmfile.h), not an MPI window;
 *   - gatherv's and scatterv's point-to-point blocks go on one communicator for all states
 *     (nsm_p2p) under a tag of the state's own;
 *   - across nodes the leaders need a communicator of their own for the MPI library's
 *     collectives among them: MPI_Comm_create_group over the leaders alone.
 * Nothing is shared between dups beyond that: each has its own flags, sequence numbers and
 * buffers, because two communicators may run collectives at the same time (threads) and in
 * different orders on different ranks.  A dup on one node copies its parent's shape instead of
 * finding it again (nsm_get_dup_state: no node split, no allgather). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi/nsmpi.h"
#include "core/env.h"
#include "core/lock.h"
#include "core/shmfile.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int nsm_keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t nsm_lock = PTHREAD_MUTEX_INITIALIZER;
static nsm_state_t *nsm_states;
static long nsm_counter;

/* ---------------------------------------------------------------- point to point
 *
 * gatherv and scatterv on one node send the blocks outside their window point to point, on a
 * communicator private to the interposer, and so does, between nodes, the root of bcast, gather
 * or scatter (leaders.h).  One for all states (a duplicate of MPI_COMM_WORLD,
 * made at MPI_Init), not one per state (a context id each): a state's messages carry its own
 * tag, which no other live state holds on any rank of it, so blocks of two communicators
 * running at once in two threads never match each other's receives. */

MPI_Comm nsm_p2p = MPI_COMM_NULL, nsm_p2p_late = MPI_COMM_NULL;
static MPI_Group nsm_p2p_group = MPI_GROUP_NULL;
#define NSM_TAGS 32768 /* tags a state may hold: every MPI allows up to 32767 */
static int nsm_tags;   /* those this MPI allows (MPI_TAG_UB) */
static unsigned char nsm_tag_used[NSM_TAGS / 8]; /* held by a live state of this process */

void nsm_setup_p2p(void)
{
    if (nsm_p2p != MPI_COMM_NULL || nsm_cfg.all_off ||
        (!nsm_op_max(NSM_OP_GATHERV) && !nsm_op_max(NSM_OP_SCATTERV) && !nsm_op_max(NSM_OP_ALLTOALLV) &&
         !nsm_op_max(NSM_OP_ALLTOALLW) &&
         !nsm_op_max(NSM_OP_IGATHERV) && !nsm_op_max(NSM_OP_ISCATTERV) && !nsm_op_max(NSM_OP_IALLTOALLV) &&
         !nsm_op_max(NSM_OP_BCAST) && !nsm_op_max(NSM_OP_GATHER) && !nsm_op_max(NSM_OP_SCATTER)))
        return;
    int *ub, flag;
    PMPI_Comm_dup(MPI_COMM_WORLD, &nsm_p2p);
    PMPI_Comm_dup(nsm_p2p, &nsm_p2p_late);
    PMPI_Comm_group(nsm_p2p, &nsm_p2p_group);
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    nsm_tags = flag && *ub < NSM_TAGS - 1 ? *ub + 1 : NSM_TAGS;
}

/* Holds the lowest tag >= lo that no live state of this process holds; nsm_tags: none left. */
static int nsm_tag_hold(long lo)
{
    int t = lo < 0 ? 0 : lo > nsm_tags ? nsm_tags : (int)lo;
    pthread_mutex_lock(&nsm_lock);
    while (t < nsm_tags && (nsm_tag_used[t / 8] >> (t % 8) & 1)) t++;
    if (t < nsm_tags) nsm_tag_used[t / 8] |= (unsigned char)(1u << (t % 8));
    pthread_mutex_unlock(&nsm_lock);
    return t;
}

static void nsm_tag_drop(int t)
{
    if (t < 0 || t >= nsm_tags) return;
    pthread_mutex_lock(&nsm_lock);
    nsm_tag_used[t / 8] &= (unsigned char)~(1u << (t % 8));
    pthread_mutex_unlock(&nsm_lock);
}

/* The state's tag: every rank proposes the lowest tag it does not hold (held meanwhile), and
 * when all proposals agree every rank holds it for this state.  Otherwise each drops its own
 * and holds the lowest free one from the largest proposal on, and they vote again: the largest
 * grows every round, so this ends (usually at once; with other threads making states at the
 * same time, after a few rounds).  `mine` and [lo, hi] come from the first round, done with the
 * state's other agreements.  Returns the tag, or -1 (none left, or some rank proposed none). */
static int nsm_vote_tag(MPI_Comm comm, int mine, long lo, long hi)
{
    for (;;) {
        if (lo == hi) return hi < nsm_tags ? mine : -1;
        nsm_tag_drop(mine);
        if (hi >= nsm_tags) return -1;
        mine = nsm_tag_hold(hi);
        long v[2] = {mine, -(long)mine}, w[2];
        PMPI_Allreduce(v, w, 2, MPI_LONG, MPI_MAX, comm);
        hi = w[0];
        lo = -w[1];
    }
}

/* Unmaps the shared memory, frees the leaders, drops the tag: what a failed state gives back. */
static void nsm_release(nsm_state_t *s)
{
    if (s->shm) munmap(s->shm, s->shm_bytes);
    s->shm = NULL;
    if (s->leaders != MPI_COMM_NULL) PMPI_Comm_free(&s->leaders);
    nsm_tag_drop(s->p2p_tag);
    s->p2p_tag = -1;
    s->active = 0;
}

/* The communicator looked up last and its state, where one thread at a time is in MPI
 * (core/lock.h): PMPI_Comm_get_attr, a hash lookup, came before every collective's window test
 * (8 B, one node: MPICH bcast 0.032 -> 0.025 us, Open MPI allreduce 0.133 -> 0.122 us, 8 ranks'
 * handed scan 0.88 -> 0.96x of the library).  Forgotten when that state is freed: the keyval's
 * delete callback runs at MPI_Comm_free, MPI_Comm_disconnect and MPI_Finalize, before the handle
 * can name another communicator. */
static MPI_Comm nsm_last_comm = MPI_COMM_NULL;
static nsm_state_t *nsm_last_state;

/* comm's state as its attribute holds it (an inactive one too); 0 where it has none */
static inline int nsm_lookup(MPI_Comm comm, nsm_state_t **s)
{
    int flag = 0;
    if (comm == nsm_last_comm && comm != MPI_COMM_NULL) {
        *s = nsm_last_state;
        return 1;
    }
    if (comm == MPI_COMM_NULL || __atomic_load_n(&nsm_keyval, __ATOMIC_ACQUIRE) == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(comm, nsm_keyval, s, &flag) != MPI_SUCCESS || !flag)
        return 0;
    if (!nodeshm_lock_threads) nsm_last_comm = comm, nsm_last_state = *s;
    return 1;
}

static void nsm_free_state(nsm_state_t *s)
{
    if (s == nsm_last_state) nsm_last_comm = MPI_COMM_NULL, nsm_last_state = NULL;
    pthread_mutex_lock(&nsm_lock);
    for (nsm_state_t **p = &nsm_states; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    pthread_mutex_unlock(&nsm_lock);
    /* MPI lets a communicator be freed with collectives outstanding: they finish first */
    if (s->nb.pending) nodeshm_nb_drain(&s->nb);
    nsm_release(s);
    free(s->node_of);
    free(s->stage_index);
    free(s->node_members);
    free(s->node_first);
    free(s->node_count);
    free(s->p2p_rank);
    free(s);
}

static int nsm_delete_fn(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    nsm_free_state(attr);
    return MPI_SUCCESS;
}

/* Threads (MPI_THREAD_MULTIPLE) may look at the keyval while it is made: callers hold nsm_lock
 * or run before any thread exists (MPI_Init); readers load it atomically. */
void nsm_setup_keyval(void)
{
    if (__atomic_load_n(&nsm_keyval, __ATOMIC_ACQUIRE) != MPI_KEYVAL_INVALID) return;
    int kv;
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, nsm_delete_fn, &kv, NULL);
    __atomic_store_n(&nsm_keyval, kv, __ATOMIC_RELEASE);
}

static uint64_t nsm_mix(uint64_t x) /* splitmix64 */
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static int nsm_cmp_id_desc(const void *a, const void *b)
{
    long x = (*(nsm_state_t *const *)a)->id, y = (*(nsm_state_t *const *)b)->id;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Frees the state of every communicator still alive, newest first: ids are agreed per
 * communicator and grow on every rank, so all ranks free leaders communicators in a compatible
 * order; then the point-to-point communicator. */
void nsm_finalize_states(void)
{
    if (nsm_p2p_group != MPI_GROUP_NULL) PMPI_Group_free(&nsm_p2p_group);
    if (nsm_p2p != MPI_COMM_NULL) PMPI_Comm_free(&nsm_p2p);
    if (nsm_p2p_late != MPI_COMM_NULL) PMPI_Comm_free(&nsm_p2p_late);
    if (nsm_keyval == MPI_KEYVAL_INVALID) return;
    int n = 0;
    for (nsm_state_t *s = nsm_states; s; s = s->next) n++;
    nsm_state_t **all = malloc(sizeof *all * (size_t)(n ? n : 1));
    n = 0;
    for (nsm_state_t *s = nsm_states; s; s = s->next) all[n++] = s;
    qsort(all, (size_t)n, sizeof *all, nsm_cmp_id_desc);
    for (int i = 0; i < n; i++) PMPI_Comm_delete_attr(all[i]->comm, nsm_keyval);
    free(all);
    PMPI_Comm_free_keyval(&nsm_keyval);
}

static _Noreturn void nsm_no_memory(const nsm_state_t *s)
{
    fprintf(stderr, "nodeshm_mpi: out of memory for a communicator of %d ranks\n", s->size);
    nodeshm_abort_job(1);
}

/* The shape from every rank's node leader (its rank in comm, found in node_of; -1: that rank has
 * no node split): node numbers in the order of their leaders (node rank 0, the lowest rank of
 * its node), the ranks listed node by node, the fullest node.  `leaders` gets the leaders' ranks.
 * Every rank computes the same from the same array; 0 when some rank has no node. */
static int nsm_set_shape(nsm_state_t *s, int *leaders)
{
    int *number = s->stage_index; /* for now: the node number of each leader, -1 elsewhere */
    int n = 0;
    for (int r = 0; r < s->size; r++) {
        int l = s->node_of[r];
        if (l < 0 || l > r || (l < r && number[l] < 0)) return 0;
        number[r] = l == r ? n : -1;
        if (l == r) leaders[n++] = r;
        s->node_of[r] = number[l];
    }
    s->node_first = calloc((size_t)n + 1, sizeof(int));
    s->node_count = calloc((size_t)n + 1, sizeof(int));
    int *fill = calloc((size_t)n + 1, sizeof(int));
    if (!s->node_first || !s->node_count || !fill) nsm_no_memory(s);
    s->n_nodes = n;
    for (int r = 0; r < s->size; r++) s->node_count[s->node_of[r]]++;
    for (int k = 0; k < s->n_nodes; k++) {
        if (k > 0) s->node_first[k] = s->node_first[k - 1] + s->node_count[k - 1];
        if (s->node_count[k] > s->max_node_size) s->max_node_size = s->node_count[k];
    }
    for (int r = 0; r < s->size; r++) /* ranks of a node in rank order = node rank order */
        s->stage_index[r] = s->node_first[s->node_of[r]] + fill[s->node_of[r]]++;
    free(fill);
    s->my_node = s->node_of[s->rank];
    return 1;
}


/* The ranks of `sub` (all of them) as ranks of `comm`; 0 if one is not there. */
static int nsm_ranks_of(MPI_Comm sub, MPI_Group in, int n, int *out)
{
    MPI_Group g;
    int *ranks = malloc(sizeof(int) * (size_t)n), ok = ranks != NULL;
    PMPI_Comm_group(sub, &g);
    for (int i = 0; ok && i < n; i++) ranks[i] = i;
    if (ok) PMPI_Group_translate_ranks(g, n, ranks, in, out);
    for (int i = 0; ok && i < n; i++) ok = out[i] != MPI_UNDEFINED;
    PMPI_Group_free(&g);
    free(ranks);
    return ok;
}

#define NSM_LEADERS_TAG 0x6e736d /* MPI_Comm_create_group's tag for a leaders communicator */

/* Whether a dup of the communicator with state p can take p's shape (nsm_copy_shape): p lies on
 * one node, node rank = comm rank, so that the dup itself is its node communicator. */
static int nsm_dup_takes_shape(const nsm_state_t *p)
{
    if (!p || !p->active || p->n_nodes != 1 || p->node_size != p->size) return 0;
    for (int r = 0; r < p->size; r++)
        if (p->node_members[r] != r) return 0;
    return 1;
}

/* The shape of p's communicator, copied: a dup has the same group in the same order (MPI), so
 * what the node split and the leaders' allgather found holds for it (no collective).  Copies,
 * not shared: either may be freed first. */
static void nsm_copy_shape(nsm_state_t *s, const nsm_state_t *p)
{
    size_t all = sizeof(int) * (size_t)s->size, nodes = sizeof(int) * ((size_t)p->n_nodes + 1);
    s->node_rank = p->node_rank;
    s->node_size = p->node_size;
    s->n_nodes = p->n_nodes;
    s->my_node = p->my_node;
    s->max_node_size = p->max_node_size;
    s->node_of = malloc(all);
    s->stage_index = malloc(all);
    s->node_members = malloc(sizeof(int) * (size_t)p->node_size);
    s->node_first = malloc(nodes);
    s->node_count = malloc(nodes);
    if (!s->node_of || !s->stage_index || !s->node_members || !s->node_first || !s->node_count) nsm_no_memory(s);
    memcpy(s->node_of, p->node_of, all);
    memcpy(s->stage_index, p->stage_index, all);
    memcpy(s->node_members, p->node_members, sizeof(int) * (size_t)p->node_size);
    memcpy(s->node_first, p->node_first, nodes);
    memcpy(s->node_count, p->node_count, nodes);
}

/* Collective over comm, inside a collective call of the user's on it: every rank is there, so
 * the state's own collectives run on comm itself.  Frugal with MPICH's context ids: the node
 * split lives only until the shape is known; the shared memory is a file, not an MPI window (a
 * window duplicates the node communicator inside MPICH); only across nodes does the state keep a
 * communicator, on the leaders alone (MPI_Comm_create_group).  Where MPI has no context id left
 * for the split or the leaders, the communicator is simply not accelerated: comm's errors come
 * back to us meanwhile (a thread doing point to point on comm at that moment would see its
 * errors returned too: a narrow window, and only with MPI_THREAD_MULTIPLE).
 *   parent: the state of the communicator comm duplicates, when it can lend its shape
 * (nsm_dup_takes_shape): then no node split, no allgather, and comm itself maps the node file
 * (on one node it is the node communicator), so a dup's state costs its node file and the
 * agreement on its id and tag (MPICH, 4 ranks on 2 cores: see comm_create.c).  Across nodes a
 * dup still makes its own state: its node files need node communicators and its collectives a
 * leaders communicator of its own (sharing the parent's would let two communicators' collectives
 * meet on one: MPI lets non-blocking ones on two communicators start in different orders on
 * different ranks, and threads run collectives on two communicators at once). */
static nsm_state_t *nsm_create_state(MPI_Comm comm, const nsm_state_t *parent)
{
    nsm_state_t *s = calloc(1, sizeof *s);
    if (!s) {
        fprintf(stderr, "nodeshm_mpi: out of memory\n");
        nodeshm_abort_job(1);
    }
    s->comm = comm;
    s->leaders = MPI_COMM_NULL;
    s->p2p_tag = -1;
    PMPI_Comm_rank(comm, &s->rank);
    PMPI_Comm_size(comm, &s->size);
    MPI_Errhandler user;
    PMPI_Comm_get_errhandler(comm, &user);
    PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

    MPI_Comm node = MPI_COMM_NULL, map_on = comm; /* the node split made here; the one mapping */
    MPI_Group group = MPI_GROUP_NULL;
    int *leaders = NULL;
    if (parent) {
        nsm_copy_shape(s, parent);
        s->active = 1;
    } else {
        PMPI_Comm_group(comm, &group);
        int physical_size = 1, leader = -1;
        s->node_of = malloc(sizeof(int) * (size_t)s->size);
        s->stage_index = malloc(sizeof(int) * (size_t)s->size);
        leaders = malloc(sizeof(int) * (size_t)s->size);
        if (!s->node_of || !s->stage_index || !leaders) nsm_no_memory(s);
        if (nsm_split_node(comm, &node, &physical_size) == MPI_SUCCESS) {
            PMPI_Comm_rank(node, &s->node_rank);
            PMPI_Comm_size(node, &s->node_size);
            if (!(s->node_members = malloc(sizeof(int) * (size_t)s->node_size))) nsm_no_memory(s);
            if (nsm_ranks_of(node, group, s->node_size, s->node_members)) leader = s->node_members[0];
        }
        PMPI_Allgather(&leader, 1, MPI_INT, s->node_of, 1, MPI_INT, comm);
        s->active = nsm_set_shape(s, leaders) && s->max_node_size > 1;
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        nsm_wait_policy(cpus > 0 && physical_size > cpus);
        map_on = node;
    }
    for (int i = 0; i < NSM_OP_COUNT; i++)
        s->min[i] = nsm_op_min_at(i, s->max_node_size, s->n_nodes);

    if (s->active) {
        int fail = 0;
        char why[256];
        s->shm_bytes = nsm_plan_buffers(s);
        s->shm = nodeshm_shm_node_map(map_on, s->shm_bytes, "nodeshm-mpi", why, sizeof why);
        if (s->shm) {
            nsm_map_buffers(s);
        } else {
            fail = 1;
            static int told;
            if (*why && !__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
                fprintf(stderr, "nodeshm_mpi: node-shared memory for a communicator of %d ranks: %s; its "
                        "collectives go to the MPI library\n", s->size, why);
        }
        /* One node: a tag for the point-to-point blocks of gatherv, scatterv, alltoallv(w) and the
         * non-blocking forms;
         * several: for the root of bcast, gather, scatter (leaders.h, nsm_root_direct) */
        int mine = nsm_tags;
        if (nsm_p2p != MPI_COMM_NULL &&
            (s->n_nodes > 1 || s->max[NSM_OP_GATHERV] || s->max[NSM_OP_SCATTERV] || s->max[NSM_OP_ALLTOALLV] ||
             s->max[NSM_OP_ALLTOALLW] || s->max[NSM_OP_IGATHERV] || s->max[NSM_OP_ISCATTERV] ||
             s->max[NSM_OP_IALLTOALLV])) {
            if (!(s->p2p_rank = malloc(sizeof(int) * (size_t)s->size))) nsm_no_memory(s);
            if (nsm_ranks_of(comm, nsm_p2p_group, s->size, s->p2p_rank)) mine = nsm_tag_hold(0);
        }
        /* The id orders the frees at MPI_Finalize, so it must be the same on every rank and
         * differ between communicators.  Threads may create states of two communicators at once
         * (both reading the same counter): a random tag, agreed like the count, breaks the tie. */
        long tag = (long)(nsm_mix((uint64_t)(uintptr_t)s ^ ((uint64_t)getpid() << 32) ^ (uint64_t)clock()) >> 33);
        long agree[5] = {fail, __atomic_load_n(&nsm_counter, __ATOMIC_RELAXED) + 1, tag, mine, -(long)mine};
        long agreed[5];
        PMPI_Allreduce(agree, agreed, 5, MPI_LONG, MPI_MAX, comm);
        s->id = agreed[1] << 31 | agreed[2];
        long seen = __atomic_load_n(&nsm_counter, __ATOMIC_RELAXED); /* keep the largest count */
        while (seen < agreed[1] &&
               !__atomic_compare_exchange_n(&nsm_counter, &seen, agreed[1], 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        }
        s->p2p_tag = nsm_vote_tag(comm, mine, -agreed[4], agreed[3]);
        fail = (int)agreed[0];
        if (!fail && s->n_nodes > 1) {
            if (s->node_rank == 0) {
                MPI_Group lg;
                PMPI_Group_incl(group, s->n_nodes, leaders, &lg);
                if (PMPI_Comm_create_group(comm, lg, NSM_LEADERS_TAG, &s->leaders) == MPI_SUCCESS)
                    PMPI_Comm_set_errhandler(s->leaders, user); /* as it would inherit from comm */
                else
                    fail = 1, s->leaders = MPI_COMM_NULL;
                PMPI_Group_free(&lg);
            }
            PMPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, comm);
            if (fail && s->rank == 0)
                nodeshm_debug_as(&nodeshm_face_mpi, -1, "a communicator of %d ranks on %d nodes: no leaders "
                                 "communicator (no context id left?): not accelerated", s->size, s->n_nodes);
        }
        if (fail) nsm_release(s);
    }
    if (node != MPI_COMM_NULL) PMPI_Comm_free(&node);
    if (group != MPI_GROUP_NULL) PMPI_Group_free(&group);
    free(leaders);
    PMPI_Comm_set_errhandler(comm, user);
    PMPI_Errhandler_free(&user);
    pthread_mutex_lock(&nsm_lock);
    s->next = nsm_states;
    nsm_states = s;
    pthread_mutex_unlock(&nsm_lock);
    nsm_debug_state(s); /* NODESHM_DEBUG: shape and thresholds, once per communicator */
    return s;
}

int nsm_peek_state(MPI_Comm comm, nsm_state_t **s)
{
    if (!nsm_lookup(comm, s)) {
        *s = NULL;
        return 0;
    }
    if (!(*s)->active) *s = NULL;
    return 1;
}

nsm_state_t *nsm_get_state(MPI_Comm comm)
{
    int flag, inter, size;
    nsm_state_t *s;
    /* fast path, every call after the first: the state hangs on the communicator (a state is
     * only ever made for a valid intra-communicator of an initialized MPI; the keyval is freed at
     * MPI_Finalize).  The checks below cost more than a small message (MPI_Initialized and
     * MPI_Finalized take a lock in Open MPI 5: a fallback 8-byte MPI_Bcast was 0.63x) */
    if (nsm_lookup(comm, &s)) {
        /* a blocking collective comes after the non-blocking ones posted before it (their
         * flags are written in sequence order: core/coll/progress.h) */
        if (__builtin_expect(__atomic_load_n(&s->nb.pending, __ATOMIC_RELAXED) != 0, 0)) nodeshm_nb_drain(&s->nb);
        return s->active ? s : NULL;
    }
    if (!__atomic_load_n(&nsm_cfg.loaded, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&nsm_lock);
        nsm_load_config();
        pthread_mutex_unlock(&nsm_lock);
    }
    if (comm == MPI_COMM_NULL || nsm_cfg.all_off) return NULL;
    PMPI_Initialized(&flag);
    if (!flag) return NULL;
    PMPI_Finalized(&flag);
    if (flag) return NULL;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return NULL;
    PMPI_Comm_size(comm, &size);
    if (size < 2) return NULL;
    if (__atomic_load_n(&nsm_keyval, __ATOMIC_ACQUIRE) == MPI_KEYVAL_INVALID) {
        pthread_mutex_lock(&nsm_lock);
        nsm_setup_keyval();
        pthread_mutex_unlock(&nsm_lock);
    }
    /* No lock from here on: a collective must not wait for a lock that another thread holds
     * while it waits in a collective of its own (on another rank the order may be reversed).
     * MPI forbids concurrent collectives on one communicator, so one comm's state is made by
     * one thread; states of different comms are independent but for the list (nsm_lock) and
     * the id counter (atomic). */
    PMPI_Comm_get_attr(comm, nsm_keyval, &s, &flag);
    if (flag) return s->active ? s : NULL;
    s = nsm_create_state(comm, NULL);
    PMPI_Comm_set_attr(comm, nsm_keyval, s);
    return s->active ? s : NULL;
}

nsm_state_t *nsm_get_dup_state(MPI_Comm comm, const nsm_state_t *parent)
{
    nsm_state_t *s;
    int flag = 0;
    if (!nsm_dup_takes_shape(parent)) return nsm_get_state(comm);
    /* parent's state exists: the configuration is loaded, the keyval made, comm an
     * intra-communicator of parent's size; MPI_Comm_dup copies none of our attributes */
    PMPI_Comm_get_attr(comm, nsm_keyval, &s, &flag);
    if (flag) return s->active ? s : NULL;
    s = nsm_create_state(comm, parent);
    PMPI_Comm_set_attr(comm, nsm_keyval, s);
    return s->active ? s : NULL;
}
