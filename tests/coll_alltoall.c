/* OpenSHMEM alltoall and alltoalls at each of their protocols' sizes, back to back without
 * barriers, each call checked byte for byte against every member's fresh test_value() data: the
 * blocks at their strided places, the dest elements between them and one byte past its extent
 * untouched.  On one node (core/coll/alltoall.h on core/coll/team/alltoall.c's publications) a
 * member's blocks are staged while the team's blocks fit the eager switch (NODESHM_COLL_EAGER_MAX:
 * 4 KiB with a core per PE, 16 KiB without: blocks of 1-8 KiB for 4-2 members) and read from its
 * source in place above it, its owner waiting for the readers: block sizes on both sides of each.  Every source is scribbled over as soon as its call returns (it is free
 * then): a reader still copying it, or one that took a block before its owner posted it, shows.
 * Element sizes 1 (alltoallmem, alltoallsmem) to 16 (longdouble), strides (dst, sst) of 1 to 3.
 * Teams: WORLD, a team from an MPI communicator with reordered ranks (evens then odds, each
 * reversed: team order is not world order, and on pseudo-nodes of 2 nodes interleave), and the
 * odd PEs; WORLD's and the reordered team's calls alternating with no barrier between.  Written
 * for 3 and 4 PEs, one node, pseudo-nodes and emulated hosts (tests/coll.cmake,
 * tests/hosts.cmake), where between nodes the same calls take the leaders' paths (fan.c, the
 * library's MPI_Alltoall, or one MPI_Alltoallv over the team). */
#include "common.h"
#include "coll_team.h"

#include <string.h>

#define MAX_BLOCK ((size_t)40 << 10) /* bytes */
#define MAX_STRIDE 3
#define MAX_PES 8
#define MAX_EXTENT (MAX_PES * MAX_BLOCK * MAX_STRIDE + 16)

static int me, npes;
static unsigned char *sbuf, *dbuf; /* symmetric */
static unsigned char *ref, *peer;  /* private: the expected dest; a member's source */
static int tid_counter;

static void fill(unsigned char *b, size_t n, int pe, int tid)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = test_value(pe, tid, i / 8);
        memcpy(b + i, &v, n - i < 8 ? n - i : 8);
    }
}

/* The call for elements of elem bytes: alltoall where both strides are 1, else alltoalls */
static int call(const team_t *t, size_t elem, ptrdiff_t dst, ptrdiff_t sst, size_t nelems)
{
    int s = dst != 1 || sst != 1;
    switch (elem) {
    case 1:
        return s ? shmem_alltoallsmem(t->team, dbuf, sbuf, dst, sst, nelems)
                 : shmem_alltoallmem(t->team, dbuf, sbuf, nelems);
#define TYPED(T, N)                                                                                \
    return s ? shmem_##N##_alltoalls(t->team, (T *)dbuf, (const T *)sbuf, dst, sst, nelems)        \
             : shmem_##N##_alltoall(t->team, (T *)dbuf, (const T *)sbuf, nelems);
    case 2: TYPED(short, short)
    case 4: TYPED(int, int)
    case 8: TYPED(long, long)
    default: TYPED(long double, longdouble)
#undef TYPED
    }
}

/* One call: nelems elements of elem bytes per member pair, strides dst and sst (in elements) */
static void one(const team_t *t, size_t elem, size_t dst, size_t sst, size_t nelems, const char *what)
{
    int tid = tid_counter++;
    size_t total = (size_t)t->n * nelems;
    size_t sext = total ? ((total - 1) * sst + 1) * elem : 0, dext = total ? ((total - 1) * dst + 1) * elem : 0;
    fill(sbuf, sext, me, tid);
    memset(dbuf, 0xa5, dext + 1);
    int rc = call(t, elem, (ptrdiff_t)dst, (ptrdiff_t)sst, nelems);
    memset(sbuf, 0x3c, sext); /* free on return: a late reader of it sees this */
    memset(ref, 0xa5, dext + 1);
    for (int k = 0; k < t->n; k++) { /* block k of dest: block `my` of member k's source */
        fill(peer, sext, t->pes[k], tid);
        for (size_t i = 0; i < nelems; i++)
            memcpy(ref + ((size_t)k * nelems + i) * dst * elem, peer + ((size_t)t->my * nelems + i) * sst * elem,
                   elem);
    }
    size_t bad = dext + 1;
    for (size_t i = 0; i <= dext && bad > dext; i++)
        if (dbuf[i] != ref[i]) bad = i;
    size_t dblk = nelems * dst * elem;
    CHECK(rc == 0 && bad > dext,
          "%s: %s of %zu x %zu B, dst %zu sst %zu: rc %d, first bad byte %zu of %zu (member %zu's block)", t->name,
          what, nelems, elem, dst, sst, rc, bad, dext + 1, dblk ? bad / dblk : 0);
}

/* Block bytes on both sides of the eager switch for 2, 3 and 4 members with and without a core
 * per PE (n * block against 4 and 16 KiB) and past a staging buffer (64 KiB) */
static const size_t blocks[] = {0,    1,    8,    100,  1024, 1025, 1365, 1366,  2048,
                                2049, 4096, 4104, 5461, 5462, 8192, 8200, 16384, MAX_BLOCK};
#define NBLOCKS (sizeof blocks / sizeof *blocks)
static const size_t elems[] = {2, 4, 8, 16, 1};
static const size_t strides[][2] = {{2, 3}, {1, 2}, {3, 1}, {2, 2}, {1, 3}};
#define NELEMS (sizeof elems / sizeof *elems)
#define NSTRIDES (sizeof strides / sizeof *strides)

static void test_team(const team_t *t)
{
    for (size_t s = 0; s < NBLOCKS; s++) {
        size_t b = blocks[s], e = elems[s % NELEMS], e2 = elems[(s + 2) % NELEMS];
        one(t, 1, 1, 1, b, "alltoallmem");
        one(t, e, 1, 1, b / e ? b / e : 1, "typed alltoall");
        one(t, e2, strides[s % NSTRIDES][0], strides[s % NSTRIDES][1], b / e2 ? b / e2 : 1, "alltoalls");
    }
}

/* WORLD's alltoalls and the reordered team's alltoalls alternating, no barrier between: the teams
 * share every PE */
static void test_alternating(const test_teams_t *x)
{
    for (size_t s = 0; s < NBLOCKS; s++) {
        size_t b = blocks[(s * 7) % NBLOCKS];
        one(&x->world, 8, 1, 1, b / 8 ? b / 8 : 1, "alternating alltoall");
        if (x->in_rev) one(&x->rev, 4, 2, 1, b / 4 ? b / 4 : 1, "alternating alltoalls");
    }
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    test_seed();
    sbuf = shmem_malloc(MAX_EXTENT);
    dbuf = shmem_malloc(MAX_EXTENT);
    ref = malloc(MAX_EXTENT);
    peer = malloc(MAX_EXTENT);
    if (!sbuf || !dbuf || !ref || !peer || npes > MAX_PES) {
        fprintf(stderr, "coll_alltoall: setup failed\n");
        shmem_global_exit(2);
    }
    test_teams_run(test_team, test_alternating, &tid_counter);
    int rc = test_finish("coll_alltoall"); /* the buffers go with shmem_finalize and the process */
    shmem_finalize();
    return rc;
}
