/* nodeshm core: teams, the PE sets that collectives and team_sync run over.
 *
 * A team lists its members as world PEs in team order and knows, for node-aware collectives,
 * how they fall on nodes: each member's node (numbered within the team), one leader per node
 * (its first member in team order) and my node's members.  Between PEs it has an MPI
 * communicator over exactly its members (team PE i = communicator rank i), and a
 * synchronization slot: an index into the `team` array of every member's control block
 * (runtime.h), chosen at creation as the lowest index free on all members, so that the slot's
 * flags are reached like any symmetric object without a per-team allocation.
 *
 * Creation is collective over the parent team only (MPI_Comm_split of the parent's
 * communicator, then one allreduce over the new team's): PEs outside the parent are never
 * involved.  SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED are built locally from the topology, on
 * first use.
 *
 * team_sync on one node is the collectives' node sync over the slot's flags (core/coll/team/sync.c):
 * lines written by one member only, holding an epoch (the team's sync count) that only grows.
 * Across nodes it is a node sync, an MPI_Barrier of the team's node leaders and a node sync.
 * A slot that is reused by a later team starts from the largest epoch any of its members saw in
 * that slot, so no stale flag can release a sync early. */
#ifndef NODESHM_TEAM_H
#define NODESHM_TEAM_H

#include "core/runtime.h"

#include <mpi.h>
#include <stdint.h>

typedef struct nodeshm_team_config {
    int num_contexts;
} nodeshm_team_config_t;

typedef struct nodeshm_team {
    uint32_t magic;        /* NODESHM_TEAM_LIVE while valid, anything else once destroyed */
    int predefined;        /* SHMEM_TEAM_WORLD / SHMEM_TEAM_SHARED: cannot be destroyed */
    int n_pes, my_pe;      /* size, and my index in team order */
    int *pes;              /* [n_pes]: world PE of each member, in team order */
    /* world PE -> team index: pes[i] = first + i * stride when the members are an arithmetic
     * progression of world PEs (stride != 0), else a binary search in by_world */
    int first, stride;
    int *by_world;         /* [n_pes] team indices sorted by world PE; NULL when stride != 0 */
    MPI_Comm comm;         /* over exactly the members, rank = team index */
    int owns_comm;         /* predefined teams borrow the topology's communicators */
    int slot;              /* index of the team's slot in every member's control block */
    uint64_t epoch;        /* syncs done so far (plus the slot's starting epoch) */
    uint64_t coll_seq;     /* collectives done so far: picks the staging buffer (core/coll/team/turns.c) */
    uint64_t staged[NODESHM_COLL_STAGE_DEPTH]; /* epoch of my latest publication in each */
    nodeshm_team_config_t config;
    /* node structure, for node-aware collectives */
    int n_nodes;           /* nodes (or pseudo-nodes) the members are on */
    int *node_of;          /* [n_pes]: team node number of each member (0..n_nodes-1, numbered
                            * in order of first appearance in team order) */
    int *node_leader;      /* [n_nodes]: team index of each node's leader (first member there) */
    int *node_id;          /* [n_nodes]: job-wide node number (topology.node_of) of each node */
    int my_node;           /* node_of[my_pe] */
    int node_n_pes, node_my_pe; /* members on my node, and my index among them */
    int *node_members;     /* [node_n_pes]: their team indices, in team order */
    int *node_local;       /* [node_n_pes]: their node-local indices (nodeshm_ctrl_of(), peer_base) */
} nodeshm_team_t;

#define NODESHM_TEAM_LIVE 0x7ea3a11eu

/* The predefined teams; their addresses are the public handles (shmem.h). */
extern struct nodeshm_team nodeshm_team_world_obj, nodeshm_team_shared_obj;
#define NODESHM_TEAM_WORLD (&nodeshm_team_world_obj)
#define NODESHM_TEAM_SHARED (&nodeshm_team_shared_obj)

/* The team behind a handle, or NULL when the handle is SHMEM_TEAM_INVALID, a destroyed team or
 * (predefined handles) used outside shmem_init..shmem_finalize.  Never reports: the caller
 * decides whether that is an error. */
nodeshm_team_t *nodeshm_team_get(nodeshm_team_t *handle);
/* Same, but reports (naming `call`) and returns NULL for anything but a valid team. */
nodeshm_team_t *nodeshm_team_check(const char *call, nodeshm_team_t *handle);

/* Team index of world PE `pe`, or -1 when it is not a member. */
static inline int nodeshm_team_index_of(const nodeshm_team_t *t, int pe)
{
    if (t->stride != 0) {
        long d = (long)pe - t->first;
        if (d % t->stride != 0) return -1;
        long i = d / t->stride;
        return i >= 0 && i < t->n_pes ? (int)i : -1;
    }
    int lo = 0, hi = t->n_pes - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, w = t->pes[t->by_world[mid]];
        if (w == pe) return t->by_world[mid];
        if (w < pe) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* This team's slot in my control block: a symmetric address (nodeshm_resolve finds the same
 * slot on any member). */
static inline nodeshm_team_slot_t *nodeshm_team_slot(const nodeshm_team_t *t)
{
    return &((nodeshm_ctrl_t *)nodeshm_rt.seg[NODESHM_SEG_HEAP].base)->team[t->slot];
}

/* Collective over the members of `parent`.  Every caller passes `member` (whether it joins a new
 * team) and, if so, that team's world PEs in team order (`n` of them, the same list on all of
 * its members) and its own index `me`; PEs that join different teams must pass different
 * `color`s (any int >= 0).  `config_ok` = 0 says this PE's configuration arguments were bad
 * (already reported): the team then fails on all of its members.  On success *out is the new team (NULL for non-members) and the
 * return is NODESHM_OK on every member of that team; a failure (slots exhausted, members that
 * disagree on the list or the configuration) is reported once and returned on all of its
 * members.  The caller agrees on the outcome over the parent if it needs to. */
int nodeshm_team_split(const char *call, nodeshm_team_t *parent, int member, int color,
                       const int *pes, int n, int me, const nodeshm_team_config_t *config,
                       int config_ok, nodeshm_team_t **out);
/* Collective over `comm`, whose ranks must be PEs (ranks of MPI_COMM_WORLD): a team whose PE i
 * is comm rank i, with a communicator of its own (a duplicate). */
int nodeshm_team_from_comm(const char *call, MPI_Comm comm, const nodeshm_team_config_t *config,
                           nodeshm_team_t **out);
/* Local: frees the slot for later teams and the team's resources; the handle becomes invalid. */
int nodeshm_team_destroy(const char *call, nodeshm_team_t *t);

/* Returns once every member has called it for this team as many times as I have: stores before
 * it are visible to the members after it.  Does not complete outstanding puts (no quiet). */
int nodeshm_team_sync(const char *call, nodeshm_team_t *t);

#endif
