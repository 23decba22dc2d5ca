/* nodeshm tests of the team collectives (coll.c, coll_scan.c, coll_bcast.c): a team as the tests
 * see it, its members' world PEs, so that any PE can recompute any member's data. */
#ifndef NODESHM_TEST_COLL_TEAM_H
#define NODESHM_TEST_COLL_TEAM_H

#include <shmem.h>

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

#endif
