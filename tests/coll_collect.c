/* OpenSHMEM collect and fcollect at each of their protocols' sizes, back to back without
 * barriers, each call checked byte for byte (and one byte past the end, which must stay
 * untouched) against every member's fresh test_value() data.  On one node (core/coll/collect.h
 * on core/coll/team/collect.c's publications) a member's piece is staged up to the eager switch
 * (NODESHM_COLL_EAGER_MAX, 4 KiB) and read from its source in place above it, its owner waiting
 * for the readers; so sizes on both sides of it, and collects whose members' pieces straddle it
 * (staged, in place and empty pieces with a null source in one call).  Every source is
 * scribbled over as soon as its call returns (it is free then): a reader still copying it, or
 * one that took a piece before its owner posted it, shows.  Teams: WORLD, a team from an MPI
 * communicator with reordered ranks (evens then odds, each reversed: team order is not world
 * order, and on pseudo-nodes of 2 nodes interleave), and the odd PEs.  Typed calls
 * (shmem_long_collect / fcollect) beside the mem forms.  Written for 3 and 4 PEs, one node,
 * pseudo-nodes and emulated hosts (tests/coll.cmake, tests/hosts.cmake), where between nodes the
 * same calls take the leaders' paths (fan.c, or MPI_Allgather under MPICH at 2 per node). */
#include "common.h"
#include "coll_team.h"

#include <string.h>

#define MAX_PIECE ((size_t)100 << 10)
#define MAX_PES 8

static int me, npes;
static unsigned char *sbuf, *dbuf; /* symmetric */
static unsigned char *ref;         /* private */
static int tid_counter;

static void fill(unsigned char *b, size_t n, int pe, int tid)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = test_value(pe, tid, i / 8);
        memcpy(b + i, &v, n - i < 8 ? n - i : 8);
    }
}

/* One collect (sz: every member's piece; fixed: fcollect, all equal) in form 0 (mem) or 1
 * (long: sizes a multiple of 8), checked up to one byte past the end. */
static void one(const team_t *t, const size_t *sz, int fixed, int form, const char *what)
{
    int tid = tid_counter++;
    size_t mine = sz[t->my], total = 0;
    for (int i = 0; i < t->n; i++) total += sz[i];
    fill(sbuf, mine, me, tid);
    memset(dbuf, 0xa5, total + 1);
    const void *src = mine ? sbuf : NULL; /* collect: nothing to send, no source */
    int rc;
    if (fixed)
        rc = form ? shmem_long_fcollect(t->team, (long *)dbuf, (const long *)sbuf, mine / 8)
                  : shmem_fcollectmem(t->team, dbuf, sbuf, mine);
    else
        rc = form ? shmem_long_collect(t->team, (long *)dbuf, (const long *)src, mine / 8)
                  : shmem_collectmem(t->team, dbuf, src, mine);
    memset(sbuf, 0x3c, mine); /* free on return: a late reader of it sees this */
    size_t off = 0;
    for (int i = 0; i < t->n; i++) {
        fill(ref + off, sz[i], t->pes[i], tid);
        off += sz[i];
    }
    ref[total] = 0xa5;
    size_t bad = total + 1;
    for (size_t i = 0; i <= total && bad > total; i++)
        if (dbuf[i] != ref[i]) bad = i;
    int from = 0; /* the member whose piece holds the first bad byte (n: the guard byte) */
    for (size_t o = 0; bad <= total && from < t->n && o + sz[from] <= bad; from++) o += sz[from];
    CHECK(rc == 0 && bad > total, "%s: %s%s %s of %zu B here, %zu B in all: rc %d, first bad byte %zu (member %d's)",
          t->name, form ? "long_" : "", fixed ? "fcollect" : "collect", what, mine, total, rc, bad, from);
}

/* Uniform sizes at both sides of the eager switch and of a staging buffer (64 KiB) */
static const size_t uniform[] = {0, 1, 8, 48, 49, 4095, 4096, 4097, 4104, 16384, 65536, 65537, MAX_PIECE};
#define NUNIFORM (sizeof uniform / sizeof *uniform)

/* Per-member sizes mixing the protocols within one call: empty (null source), staged (up to
 * 4 KiB), in place (above); rotated by the round so that every member takes every kind. */
static const size_t mixed[] = {0, 4096, 4097, 3, 70001, 0, 8, MAX_PIECE - 5, 4095, 12345};
#define NMIXED (sizeof mixed / sizeof *mixed)

static void test_team(const team_t *t)
{
    size_t sz[MAX_PES];
    for (size_t s = 0; s < NUNIFORM; s++) {
        for (int i = 0; i < t->n; i++) sz[i] = uniform[s];
        int form = uniform[s] % 8 == 0 && s % 2;
        one(t, sz, 1, form, "uniform");
        one(t, sz, 0, !form && uniform[s] % 8 == 0, "uniform");
    }
    for (size_t r = 0; r < 2 * NMIXED; r++) {
        for (int i = 0; i < t->n; i++) sz[i] = mixed[(r + (size_t)i * 3) % NMIXED];
        one(t, sz, 0, 0, "mixed");
    }
    /* typed, per-member sizes in longs: the same kinds */
    for (size_t r = 0; r < NMIXED; r++) {
        for (int i = 0; i < t->n; i++) sz[i] = mixed[(r + (size_t)i) % NMIXED] / 8 * 8;
        one(t, sz, 0, 1, "mixed");
    }
}

/* WORLD's collects and the interleaved team's fcollects alternating, no barrier between: the
 * teams share every PE */
static void test_alternating(const test_teams_t *x)
{
    size_t sz[MAX_PES];
    for (size_t r = 0; r < NMIXED; r++) {
        for (int i = 0; i < x->world.n; i++) sz[i] = mixed[(r + (size_t)i * 7) % NMIXED];
        one(&x->world, sz, 0, 0, "alternating");
        if (x->in_rev) {
            for (int i = 0; i < x->rev.n; i++) sz[i] = uniform[(r + 5) % NUNIFORM];
            one(&x->rev, sz, 1, 0, "alternating");
        }
    }
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    test_seed();
    sbuf = shmem_malloc(MAX_PIECE + 8);
    dbuf = shmem_malloc(MAX_PIECE * MAX_PES + 8);
    ref = malloc(MAX_PIECE * MAX_PES + 8);
    if (!sbuf || !dbuf || !ref || npes > MAX_PES) {
        fprintf(stderr, "coll_collect: setup failed\n");
        shmem_global_exit(2);
    }
    test_teams_run(test_team, test_alternating, &tid_counter);
    int rc = test_finish("coll_collect"); /* the buffers go with shmem_finalize and the process */
    shmem_finalize();
    return rc;
}
