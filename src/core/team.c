/* nodeshm core: teams (see team.h). */
#include "core/team.h"
#include "core/coll.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct nodeshm_team nodeshm_team_world_obj, nodeshm_team_shared_obj;

enum { SLOT_WORLD = 0, SLOT_SHARED = 1 };

/* ---- this PE's slot bookkeeping (private: nobody else reads it) ------------------------------ */
_Static_assert(NODESHM_TEAM_SLOTS == 64, "the free-slot set is one 64-bit word");
static uint64_t slots_free;                       /* bit s: no team of mine holds slot s */
static uint64_t slot_epoch[NODESHM_TEAM_SLOTS];   /* last epoch my teams used in slot s */

/* Destroyed teams keep their (emptied) struct for a while, so that a handle used after
 * shmem_team_destroy is recognized as invalid instead of reading freed memory. */
#define RETIRED_KEPT 1024
static nodeshm_team_t *retired[RETIRED_KEPT];
static unsigned retired_next;

/* ---- building a team's local structure -------------------------------------------------------- */
static void team_free_arrays(nodeshm_team_t *t)
{
    free(t->pes);
    free(t->by_world);
    free(t->node_of);
    free(t->node_leader);
    free(t->node_id);
    free(t->node_members);
    free(t->node_local);
    t->pes = t->by_world = t->node_of = t->node_leader = t->node_id = NULL;
    t->node_members = t->node_local = NULL;
}

typedef struct { int pe, index; } pe_index_t;
static int by_pe(const void *a, const void *b)
{
    int x = ((const pe_index_t *)a)->pe, y = ((const pe_index_t *)b)->pe;
    return (x > y) - (x < y);
}

/* Fills members, translation and node structure from `pes` (world PEs in team order); local.
 * Returns 0, or -1 when out of memory (the caller agrees with the other members on failure). */
static int team_build(nodeshm_team_t *t, const int *pes, int n, int me)
{
    const nodeshm_topology_t *topo = &nodeshm_rt.topo;
    t->n_pes = n;
    t->my_pe = me;
    t->pes = malloc(sizeof(int) * (size_t)n);
    t->node_of = malloc(sizeof(int) * (size_t)n);
    int *team_node = malloc(sizeof(int) * (size_t)topo->n_nodes); /* job node -> team node */
    if (!t->pes || !t->node_of || !team_node) goto nomem;
    memcpy(t->pes, pes, sizeof(int) * (size_t)n);

    /* translation: an arithmetic progression of world PEs needs no table */
    t->first = pes[0];
    t->stride = n == 1 ? 1 : pes[1] - pes[0];
    for (int i = 2; i < n && t->stride != 0; i++)
        if (pes[i] - pes[i - 1] != t->stride) t->stride = 0;
    if (t->stride == 0) {
        pe_index_t *pairs = malloc(sizeof *pairs * (size_t)n);
        t->by_world = malloc(sizeof(int) * (size_t)n);
        if (!pairs || !t->by_world) {
            free(pairs);
            goto nomem;
        }
        for (int i = 0; i < n; i++) pairs[i] = (pe_index_t){pes[i], i};
        qsort(pairs, (size_t)n, sizeof *pairs, by_pe);
        for (int i = 0; i < n; i++) t->by_world[i] = pairs[i].index;
        free(pairs);
    }

    /* nodes, numbered in order of first appearance in team order */
    for (int j = 0; j < topo->n_nodes; j++) team_node[j] = -1;
    t->n_nodes = 0;
    for (int i = 0; i < n; i++) {
        int job_node = topo->node_of[pes[i]];
        if (team_node[job_node] < 0) team_node[job_node] = t->n_nodes++;
        t->node_of[i] = team_node[job_node];
    }
    t->node_leader = malloc(sizeof(int) * (size_t)t->n_nodes);
    t->node_id = malloc(sizeof(int) * (size_t)t->n_nodes);
    if (!t->node_leader || !t->node_id) goto nomem;
    for (int i = n - 1; i >= 0; i--) {
        t->node_leader[t->node_of[i]] = i;
        t->node_id[t->node_of[i]] = topo->node_of[pes[i]];
    }
    t->my_node = t->node_of[me];
    t->node_n_pes = 0;
    for (int i = 0; i < n; i++) t->node_n_pes += t->node_of[i] == t->my_node;
    t->node_members = malloc(sizeof(int) * (size_t)t->node_n_pes);
    t->node_local = malloc(sizeof(int) * (size_t)t->node_n_pes);
    if (!t->node_members || !t->node_local) goto nomem;
    for (int i = 0, k = 0; i < n; i++) {
        if (t->node_of[i] != t->my_node) continue;
        if (i == me) t->node_my_pe = k;
        t->node_members[k] = i;
        t->node_local[k++] = topo->node_index_of[pes[i]];
    }
    free(team_node);
    return 0;
nomem:
    free(team_node);
    team_free_arrays(t);
    return -1;
}

/* ---- the predefined teams, built on first use after shmem_init ---------------------------------- */
static pthread_mutex_t predefined_lock = PTHREAD_MUTEX_INITIALIZER;
static int predefined_built;      /* read without the lock: set last, with release */
/* the initialization they were built for: a re-init rebuilds them (its segments and communicators
 * may well have the same addresses and handle values as the last one's) */
static unsigned predefined_generation;

static int predefined_current(void)
{
    return __atomic_load_n(&predefined_built, __ATOMIC_ACQUIRE) &&
           predefined_generation == nodeshm_rt.generation;
}

static int build_predefined(nodeshm_team_t *t, int slot, MPI_Comm comm, const int *pes, int n,
                            int me)
{
    team_free_arrays(t);
    memset(t, 0, sizeof *t);
    if (team_build(t, pes, n, me) != 0)
        return nodeshm_report(NODESHM_ERR_NOMEM, "shmem_team", "out of memory for a team of %d PEs", n);
    t->predefined = 1;
    t->comm = comm;
    t->slot = slot;
    t->magic = NODESHM_TEAM_LIVE;
    return NODESHM_OK;
}

static int ensure_predefined(void)
{
    if (predefined_current()) return NODESHM_OK;
    if (!nodeshm_rt.initialized || nodeshm_rt.finalized) return NODESHM_ERR_ARG;
    pthread_mutex_lock(&predefined_lock);
    int rc = NODESHM_OK;
    if (!predefined_current()) {
        const nodeshm_topology_t *topo = &nodeshm_rt.topo;
        __atomic_store_n(&predefined_built, 0, __ATOMIC_RELAXED);
        int *world = malloc(sizeof(int) * (size_t)topo->n_pes);
        if (!world) rc = nodeshm_report(NODESHM_ERR_NOMEM, "shmem_team", "out of memory");
        for (int i = 0; rc == NODESHM_OK && i < topo->n_pes; i++) world[i] = i;
        if (rc == NODESHM_OK)
            rc = build_predefined(NODESHM_TEAM_WORLD, SLOT_WORLD, topo->world, world, topo->n_pes,
                                  topo->my_pe);
        if (rc == NODESHM_OK)
            rc = build_predefined(NODESHM_TEAM_SHARED, SLOT_SHARED, topo->node, topo->node_pes,
                                  topo->node_n_pes, topo->node_my_pe);
        free(world);
        if (rc == NODESHM_OK) {
            /* a new runtime: fresh (zeroed) control blocks, every slot free */
            slots_free = ~(uint64_t)0 & ~((uint64_t)1 << SLOT_WORLD) & ~((uint64_t)1 << SLOT_SHARED);
            memset(slot_epoch, 0, sizeof slot_epoch);
            predefined_generation = nodeshm_rt.generation;
            __atomic_store_n(&predefined_built, 1, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&predefined_lock);
    return rc;
}

/* ---- handles ------------------------------------------------------------------------------------ */
nodeshm_team_t *nodeshm_team_get(nodeshm_team_t *h)
{
    if (h == NULL) return NULL;
    if (h == NODESHM_TEAM_WORLD || h == NODESHM_TEAM_SHARED)
        return ensure_predefined() == NODESHM_OK ? h : NULL;
    if (!nodeshm_rt.initialized || nodeshm_rt.finalized) return NULL;
    return h->magic == NODESHM_TEAM_LIVE ? h : NULL;
}

nodeshm_team_t *nodeshm_team_check(const char *call, nodeshm_team_t *h)
{
    if (nodeshm_require_init(call) != NODESHM_OK) return NULL;
    nodeshm_team_t *t = nodeshm_team_get(h);
    if (t) return t;
    if (h == NULL)
        nodeshm_report(NODESHM_ERR_ARG, call, "invalid team SHMEM_TEAM_INVALID");
    else if (h != NODESHM_TEAM_WORLD && h != NODESHM_TEAM_SHARED)
        nodeshm_report(NODESHM_ERR_ARG, call,
                       "team %p is not a valid team (destroyed, or not made by a team split or "
                       "shmemx_team_create_from_comm)", (void *)h);
    /* else: ensure_predefined has reported */
    return NULL;
}

/* ---- creation ------------------------------------------------------------------------------------ */
static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 31);
}

enum { AGREE_BAD = NODESHM_TEAM_SLOTS, AGREE_HASH, AGREE_NOT_HASH, AGREE_N };

/* Takes ownership of `comm` (over exactly the new team, rank = team index) and makes the team:
 * one allreduce (MAX) over comm agrees on the slot (the lowest free on every member), its
 * starting epoch (the highest any member used in it), and that every member is sound and sees
 * the same PE list and configuration. */
static int team_create(const char *call, MPI_Comm comm, const int *pes, int n, int me,
                       const nodeshm_team_config_t *config, int config_ok, nodeshm_team_t **out)
{
    *out = NULL;
    int rc = ensure_predefined(); /* slot bookkeeping starts with the runtime */
    if (rc) {
        MPI_Comm_free(&comm);
        return rc;
    }
    int size = -1, rank = -1;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    nodeshm_team_t *t = NULL;
    int bad = !config_ok || !pes || size != n || rank != me || pes[me] != nodeshm_rt.my_pe;
    if (!bad) {
        t = calloc(1, sizeof *t);
        if (!t || team_build(t, pes, n, me) != 0) {
            nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory for a team of %d PEs", n);
            bad = 1;
        }
    }

    uint64_t mine[AGREE_N], all[AGREE_N];
    for (int s = 0; s < NODESHM_TEAM_SLOTS; s++)
        mine[s] = slots_free >> s & 1 ? slot_epoch[s] : UINT64_MAX;
    uint64_t h = mix(0, (uint64_t)n);
    for (int i = 0; pes && i < n; i++) h = mix(h, (uint64_t)pes[i]);
    h = mix(h, (uint64_t)(config ? config->num_contexts : 0));
    mine[AGREE_BAD] = (uint64_t)bad;
    mine[AGREE_HASH] = h;
    mine[AGREE_NOT_HASH] = ~h;
    int err = MPI_Allreduce(mine, all, AGREE_N, MPI_UINT64_T, MPI_MAX, comm);
    int slot = -1;
    if (err != MPI_SUCCESS) {
        rc = nodeshm_report(NODESHM_ERR_MPI, call, "MPI_Allreduce over the new team failed");
    } else if (all[AGREE_BAD]) {
        rc = NODESHM_ERR_ARG; /* reported by the member that found it */
    } else if (all[AGREE_HASH] != ~all[AGREE_NOT_HASH]) {
        rc = NODESHM_ERR_ARG;
        if (me == 0)
            nodeshm_report(rc, call, "the members of the new team (%d PEs) disagree on its PEs or "
                                     "its configuration: the arguments differ between PEs", n);
    } else {
        for (int s = 0; s < NODESHM_TEAM_SLOTS && slot < 0; s++)
            if (all[s] != UINT64_MAX) slot = s;
        if (slot < 0) {
            rc = NODESHM_ERR_NOMEM;
            if (me == 0)
                nodeshm_report(rc, call, "no free team slot: a PE can be in at most %d teams at a "
                                         "time (SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED included), "
                                         "and the new team's %d PEs have no free slot in "
                                         "common; destroy teams that are no longer used",
                               NODESHM_TEAM_SLOTS, n);
        }
    }
    if (rc != NODESHM_OK) {
        if (t) team_free_arrays(t);
        free(t);
        MPI_Comm_free(&comm);
        return rc;
    }
    t->comm = comm;
    t->slot = slot;
    t->epoch = all[slot];
    if (config) t->config = *config;
    t->magic = NODESHM_TEAM_LIVE;
    slots_free &= ~((uint64_t)1 << slot);
    *out = t;
    nodeshm_debug("%s: team %p of %d PEs (%d nodes), I am %d, slot %d, starting epoch %llu", call,
                  (void *)t, n, t->n_nodes, me, slot, (unsigned long long)t->epoch);
    return NODESHM_OK;
}

int nodeshm_team_split(const char *call, nodeshm_team_t *parent, int member, int color,
                       const int *pes, int n, int me, const nodeshm_team_config_t *config,
                       int config_ok, nodeshm_team_t **out)
{
    *out = NULL;
    MPI_Comm comm = MPI_COMM_NULL;
    int err = MPI_Comm_split(parent->comm, member ? color : MPI_UNDEFINED, me, &comm);
    if (err != MPI_SUCCESS)
        return nodeshm_report(NODESHM_ERR_MPI, call, "MPI_Comm_split of the parent team failed");
    if (!member) return NODESHM_OK;
    return team_create(call, comm, pes, n, me, config, config_ok, out);
}

int nodeshm_team_from_comm(const char *call, MPI_Comm comm, const nodeshm_team_config_t *config,
                           nodeshm_team_t **out)
{
    *out = NULL;
    MPI_Comm dup;
    if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS)
        return nodeshm_report(NODESHM_ERR_MPI, call, "MPI_Comm_dup of the communicator failed");
    int n, me, inter = 0;
    MPI_Comm_test_inter(dup, &inter);
    MPI_Comm_size(dup, &n);
    MPI_Comm_rank(dup, &me);
    int *ranks = malloc(sizeof(int) * (size_t)n), *pes = malloc(sizeof(int) * (size_t)n);
    int ok = ranks && pes && !inter;
    if (!ranks || !pes) nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory for %d PEs", n);
    if (inter) nodeshm_report(NODESHM_ERR_ARG, call, "an intercommunicator cannot make a team");
    if (ok) {
        /* communicator ranks -> PEs, locally: PE numbers are ranks of MPI_COMM_WORLD */
        MPI_Group group, world;
        MPI_Comm_group(dup, &group);
        MPI_Comm_group(nodeshm_rt.topo.world, &world);
        for (int i = 0; i < n; i++) ranks[i] = i;
        MPI_Group_translate_ranks(group, n, ranks, world, pes);
        MPI_Group_free(&group);
        MPI_Group_free(&world);
        for (int i = 0; i < n && ok; i++) {
            if (pes[i] != MPI_UNDEFINED) continue;
            ok = 0;
            if (me == 0)
                nodeshm_report(NODESHM_ERR_ARG, call, "rank %d of the communicator is not a "
                                                      "process of MPI_COMM_WORLD", i);
        }
    }
    /* a member that failed still takes part in the agreement, so that every member fails alike */
    int rc = team_create(call, dup, ok ? pes : NULL, n, me, config, ok, out);
    free(ranks);
    free(pes);
    return rc;
}

int nodeshm_team_destroy(const char *call, nodeshm_team_t *t)
{
    if (t->predefined)
        return nodeshm_report(NODESHM_ERR_ARG, call, "cannot destroy the predefined team %s",
                              t == NODESHM_TEAM_WORLD ? "SHMEM_TEAM_WORLD" : "SHMEM_TEAM_SHARED");
    /* No synchronization is needed: every write into my flags of this slot was awaited by me, so
     * none is still on its way; the next team in the slot starts above the epochs used here.
     * Peers may still be reading my collective staging: wait for that (local, cannot block). */
    nodeshm_coll_team_retire(t);
    slot_epoch[t->slot] = t->epoch;
    slots_free |= (uint64_t)1 << t->slot;
    if (t->comm != MPI_COMM_NULL) MPI_Comm_free(&t->comm);
    team_free_arrays(t);
    t->magic = 0;
    t->n_pes = t->my_pe = -1;
    free(retired[retired_next]);
    retired[retired_next] = t;
    retired_next = (retired_next + 1) % RETIRED_KEPT;
    return NODESHM_OK;
}

/* ---- team_sync --------------------------------------------------------------------------------- */
int nodeshm_team_sync(const char *call, nodeshm_team_t *t) { return nodeshm_coll_sync(call, t); }
