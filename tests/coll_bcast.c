/* OpenSHMEM broadcast at each of its protocols' sizes, from every root in turn, back to back
 * without barriers, each call checked byte for byte (and one byte past the end, which must stay
 * untouched) against the root's fresh test_value() data; the root's dest too.  Sizes on both
 * sides of every switch (core/coll/team/bcast.c and core/coll/bcast.h): the small ring (256 B
 * with a core per PE, its entry when PEs outnumber cores), the eager switch on one node (1 KiB
 * with cores, 16 KiB without), the MPICH library's window between nodes (16 KiB, 128 B), the
 * publisher per node up to a staging buffer (64 KiB), the large path between nodes with node
 * syncs and its pipelined form (512 KiB).  Teams: WORLD, a team from an MPI communicator with
 * reordered ranks (evens then odds, each reversed: on pseudo-nodes of 2 nodes interleave in team
 * order, and a root's node member is not its team index), and the odd PEs (on 2 hosts of 2,
 * one per node: nodes of one member).  Typed calls (shmem_long_broadcast) beside broadcastmem,
 * and the deprecated active-set broadcast64, whose root's dest is not written.  Written for 3 and 4 PEs, one node, pseudo-nodes and emulated
 * hosts (tests/coll.cmake, tests/hosts.cmake). */
#include "common.h"
#include "coll_team.h"

#include <string.h>

#define MAX_BYTES ((size_t)640 << 10)

static int me, npes;
static unsigned char *sbuf, *dbuf; /* symmetric */
static unsigned char *ref;         /* private */
static long psync[SHMEM_BCAST_SYNC_SIZE];

static const size_t sizes[] = {1,    8,     48,    49,    128,   129,   256,   257,   560,   561,
                               1024, 1025,  4096,  4097,  16384, 16392, 65536, 65537,
                               ((size_t)512 << 10) - 8, (size_t)512 << 10, ((size_t)640 << 10) - 3};
#define NSIZES (sizeof sizes / sizeof *sizes)

static void fill(unsigned char *b, size_t n, int pe, int tid)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = test_value(pe, tid, i / 8);
        memcpy(b + i, &v, n - i < 8 ? n - i : 8);
    }
}

static int tid_counter;

/* form 0: broadcastmem; 1: shmem_long_broadcast (sizes a multiple of 8 only) */
static void one(const team_t *t, size_t n, int root, int form)
{
    int tid = tid_counter++;
    fill(sbuf, n, me, tid);
    memset(dbuf, 0xa5, n + 1);
    int rc = form ? shmem_long_broadcast(t->team, (long *)dbuf, (const long *)sbuf, n / 8, root)
                  : shmem_broadcastmem(t->team, dbuf, sbuf, n, root);
    fill(ref, n, t->pes[root], tid);
    ref[n] = 0xa5;
    size_t bad = n + 1;
    for (size_t i = 0; i <= n && bad > n; i++)
        if (dbuf[i] != ref[i]) bad = i;
    CHECK(rc == 0 && bad > n, "%s: %s of %zu B from root %d (PE %d): rc %d, first bad byte %zu", t->name,
          form ? "long_broadcast" : "broadcastmem", n, root, t->pes[root], rc, bad);
}

static void test_team(const team_t *t)
{
    for (size_t s = 0; s < NSIZES; s++)
        for (int root = 0; root < t->n; root++) {
            one(t, sizes[s], root, 0);
            if (sizes[s] % 8 == 0 && (root + (int)s) % 2 == 0) one(t, sizes[s], (root + 1) % t->n, 1);
        }
}

/* The active-set broadcast64 on all PEs: the root's dest keeps its value. */
static void test_aset(void)
{
    static const size_t words[] = {1, 7, 70, 2048, 8193, 65536};
    for (size_t s = 0; s < sizeof words / sizeof *words; s++)
        for (int root = 0; root < npes; root++) {
            size_t n = words[s] * 8;
            int tid = tid_counter++;
            fill(sbuf, n, me, tid);
            memset(dbuf, 0x3c, n + 1);
            shmem_barrier_all(); /* pSync reuse */
            shmem_broadcast64(dbuf, sbuf, words[s], root, 0, 0, npes, psync);
            if (me == root) memset(ref, 0x3c, n + 1);
            else {
                fill(ref, n, root, tid);
                ref[n] = 0x3c;
            }
            CHECK(!memcmp(dbuf, ref, n + 1), "broadcast64 of %zu words from PE %d", words[s], root);
        }
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    test_seed();
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++) psync[i] = SHMEM_SYNC_VALUE;
    sbuf = shmem_malloc(MAX_BYTES + 8);
    dbuf = shmem_malloc(MAX_BYTES + 8);
    ref = malloc(MAX_BYTES + 8);
    if (!sbuf || !dbuf || !ref || npes > 64) {
        fprintf(stderr, "coll_bcast: setup failed\n");
        shmem_global_exit(2);
    }
    test_teams_t x;
    test_teams_make(&x);
    const team_t *world = &x.world, *rev = &x.rev;

    test_teams_each(&x, test_team, &tid_counter);
    /* the two teams alternating, no barrier between: they share every PE */
    tid_counter = 300000;
    for (size_t s = 0; s < NSIZES; s += 3) {
        one(world, sizes[s], (int)s % world->n, 0);
        if (x.in_rev) one(rev, sizes[s], (int)(s + 1) % rev->n, 0);
    }
    tid_counter = 400000;
    test_aset();

    test_teams_free(&x);
    int rc = test_finish("coll_bcast"); /* the buffers go with shmem_finalize and the process */
    shmem_finalize();
    return rc;
}
