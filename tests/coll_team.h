/* nodeshm tests of the team collectives (coll.c, coll_scan.c, coll_bcast.c, coll_collect.c): a
 * team as the tests see it, its members' world PEs, so that any PE can recompute any member's
 * data. */
#ifndef NODESHM_TEST_COLL_TEAM_H
#define NODESHM_TEST_COLL_TEAM_H

#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>

typedef struct {
    const char *name;
    shmem_team_t team;
    int n, my;
    int pes[64]; /* world PE of each member */
} team_t;

/* Fills t for team; 0 (t not usable) where I am not a member (SHMEM_TEAM_INVALID). */
static inline int make(team_t *t, const char *name, shmem_team_t team)
{
    t->name = name;
    t->team = team;
    if (team == SHMEM_TEAM_INVALID) return 0;
    t->n = shmem_team_n_pes(team);
    t->my = shmem_team_my_pe(team);
    for (int i = 0; i < t->n; i++) t->pes[i] = shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD);
    return 1;
}

/* The teams of the protocol tests (coll_bcast.c, coll_collect.c): WORLD; a team from an MPI
 * communicator with reordered ranks (evens then odds, each reversed, as tests/coll.c: team order
 * is not world order, on pseudo-nodes of 2 nodes interleave in it, and a member's node index is
 * not its team index); the odd PEs (on 2 hosts of 2, one per node: nodes of one member).
 * in_rev, in_odd: I am a member. */
typedef struct {
    team_t world, rev, odd;
    int in_rev, in_odd;
    MPI_Comm comm;
    shmem_team_t rt, ot;
} test_teams_t;

static inline void test_teams_make(test_teams_t *x)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    make(&x->world, "WORLD", SHMEM_TEAM_WORLD);
    MPI_Comm_split(MPI_COMM_WORLD, 0, (me % 2) * npes + (npes - me), &x->comm);
    shmemx_team_create_from_comm(x->comm, &x->rt);
    x->in_rev = make(&x->rev, "interleaved", x->rt);
    x->ot = SHMEM_TEAM_INVALID;
    if (npes > 1) shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &x->ot);
    x->in_odd = make(&x->odd, "odd PEs", x->ot);
}

/* fn on each of them I am in, each team's data streams keyed from its own *tid (1, 100000,
 * 200000) */
static inline void test_teams_each(const test_teams_t *x, void (*fn)(const team_t *), int *tid)
{
    *tid = 1;
    fn(&x->world);
    *tid = 100000;
    if (x->in_rev) fn(&x->rev);
    *tid = 200000;
    if (x->in_odd) fn(&x->odd);
}

static inline void test_teams_free(test_teams_t *x)
{
    if (x->ot != SHMEM_TEAM_INVALID) shmem_team_destroy(x->ot);
    shmem_team_destroy(x->rt);
    MPI_Comm_free(&x->comm);
}

/* A protocol test's teams from start to end (coll_collect.c, coll_alltoall.c): made; fn on each
 * of them I am in (test_teams_each); then alternating's calls on two of them back to back (data
 * streams from 300000); freed. */
static inline void test_teams_run(void (*fn)(const team_t *), void (*alternating)(const test_teams_t *), int *tid)
{
    test_teams_t x;
    test_teams_make(&x);
    test_teams_each(&x, fn, tid);
    *tid = 300000;
    alternating(&x);
    test_teams_free(&x);
}

#endif
