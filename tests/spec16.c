/* OpenSHMEM 1.6 additions and fixes, on symmetric heap and global (data segment) objects:
 *
 *  init:     shmem_query_initialized before, during and after; shmem_init / shmem_init_thread
 *            nested (each matched by a shmem_finalize; a non-last finalize is a barrier_all and
 *            keeps every resource); after the last finalize the library is initialized again
 *            and everything below runs a second time (team split, RMA, signals).
 *  team_ptr: shmem_team_ptr on SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED and a strided split: the
 *            pointer of team PE i is shmem_ptr of its world PE, NULL exactly where the PE is not
 *            on my (pseudo-)node, NULL for SHMEM_TEAM_INVALID, PEs out of range, and private
 *            memory; stores through it are read back with shmem_g.
 *  signals:  shmem_signal_add / shmem_ctx_signal_add (default and a created context, C11 forms
 *            with and without a context) and putmem_signal ADD, all PEs at once into one signal
 *            of every PE: the sum is exact (atomic with each other, also between pseudo-nodes);
 *            shmem_signal_set into per-source slots and a ring waited for with
 *            shmem_signal_wait_until.
 *  hints:    shmem_malloc_with_hints with unknown hint bits works like shmem_malloc.
 *
 * Argument "bad-signal-pe": shmem_signal_add to PE n_pes must end the job naming the call and
 * the PE (registered with PASS_REGEX). */
#include <shmem.h>
#include <string.h>

#include "common.h"

#define NSLOT 64
static uint64_t g_sig;          /* global signals */
static uint64_t g_slots[NSLOT];
static long g_data[NSLOT];
static int me, npes;

static void check_query(int want, const char *when)
{
    int v = -1;
    shmem_query_initialized(&v);
    CHECK((v != 0) == want, "shmem_query_initialized %s: %d, expected %s", when, v,
          want ? "nonzero" : "0");
}

/* ---- shmem_team_ptr ------------------------------------------------------------------------ */
static void team_ptr_on(shmem_team_t team, const char *tname, long *obj, const char *where, int k)
{
    int n = shmem_team_n_pes(team);
    if (n < 0) { /* not a member: only the world barriers below */
        shmem_barrier_all();
        shmem_barrier_all();
        return;
    }
    for (int i = 0; i < n; i++) {
        int world = shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD);
        void *p = shmem_team_ptr(team, obj, i);
        int on_node = shmem_team_translate_pe(SHMEM_TEAM_WORLD, world, SHMEM_TEAM_SHARED) >= 0;
        CHECK(p == shmem_ptr(obj, world), "%s %s: team_ptr(PE %d) = %p, shmem_ptr(world PE %d) = %p",
              tname, where, i, p, world, shmem_ptr(obj, world));
        CHECK((p != NULL) == on_node, "%s %s: team_ptr(PE %d = world %d) %s, but it is %son my node",
              tname, where, i, world, p ? "non-NULL" : "NULL", on_node ? "" : "not ");
    }
    CHECK(shmem_team_ptr(team, obj, -1) == NULL, "%s %s: team PE -1 not NULL", tname, where);
    CHECK(shmem_team_ptr(team, obj, n) == NULL, "%s %s: team PE %d (size) not NULL", tname, where, n);
    long priv = 0;
    CHECK(shmem_team_ptr(team, &priv, 0) == NULL, "%s %s: private address not NULL", tname, where);

    /* store through the pointer into the next team member's object, read back with shmem_g */
    shmem_team_sync(team);
    int my = shmem_team_my_pe(team), next = (my + 1) % n;
    long *q = shmem_team_ptr(team, obj, next);
    long v = (long)(test_value(me, k, 7) >> 2);
    if (q) *q = v;
    shmem_barrier_all();
    if (q) {
        int world = shmem_team_translate_pe(team, next, SHMEM_TEAM_WORLD);
        CHECK(shmem_long_g(obj, world) == v, "%s %s: store through team_ptr not seen at world PE %d",
              tname, where, world);
    }
    shmem_barrier_all();
}

static void test_team_ptr(long *heap_obj, int k)
{
    CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, heap_obj, 0) == NULL, "SHMEM_TEAM_INVALID: not NULL");
    shmem_team_t evens = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens);
    long *objs[2] = {heap_obj, &g_data[0]};
    const char *wheres[2] = {"heap", "global"};
    for (int w = 0; w < 2; w++) {
        shmem_barrier_all();
        team_ptr_on(SHMEM_TEAM_WORLD, "SHMEM_TEAM_WORLD", objs[w], wheres[w], k);
        shmem_barrier_all();
        team_ptr_on(SHMEM_TEAM_SHARED, "SHMEM_TEAM_SHARED", objs[w], wheres[w], k + 1);
        shmem_barrier_all();
        team_ptr_on(evens, "even split", objs[w], wheres[w], k + 2); /* odd PEs: barriers only */
        shmem_barrier_all();
        /* in the split, team PE i is world PE 2i; odd PEs are not members */
        if (evens != SHMEM_TEAM_INVALID && npes > 2)
            CHECK(shmem_team_ptr(evens, objs[w], 1) == shmem_ptr(objs[w], 2),
                  "even split %s: team PE 1 is not world PE 2", wheres[w]);
    }
    shmem_barrier_all();
    if (evens != SHMEM_TEAM_INVALID) {
        shmem_team_destroy(evens);
        CHECK(shmem_team_ptr(evens, heap_obj, 0) == NULL, "destroyed team: not NULL");
    }
}

/* ---- shmem_signal_add / shmem_signal_set ------------------------------------------------------ */
#define ROUNDS 200
/* what PE p adds to each PE's signal in round r (kept small: the sum must not wrap) */
static uint64_t add_value(int p, int k, int r) { return test_value(p, k, (uint64_t)r) & 0xffff; }

static void test_signals(uint64_t *sig, uint64_t *slots, const char *where, int k)
{
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "%s: shmem_ctx_create failed", where);
    *sig = 0;
    for (int i = 0; i < NSLOT; i++) slots[i] = 0;
    shmem_barrier_all();

    /* every PE adds into every PE's one signal at once, by all the ways there are */
    char byte = 0;
    for (int r = 0; r < ROUNDS; r++)
        for (int d = 0; d < npes; d++) {
            int pe = (me + d) % npes;
            uint64_t v = add_value(me, k, r);
            switch ((r + d) % 6) {
            case 0: shmem_signal_add(sig, v, pe); break;
            case 1: shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, sig, v, pe); break;
            case 2: shmem_ctx_signal_add(ctx, sig, v, pe); break;
            case 3: shmem_signal_add(ctx, sig, v, pe); break; /* C11 form with a context */
            case 4: shmem_putmem_signal(&g_data[NSLOT - 1], &byte, 0, sig, v, SHMEM_SIGNAL_ADD, pe); break;
            default: shmem_uint64_atomic_add(sig, v, pe); break;
            }
        }
    shmem_ctx_quiet(ctx);
    shmem_quiet();
    shmem_barrier_all();
    uint64_t want = 0;
    for (int p = 0; p < npes; p++)
        for (int r = 0; r < ROUNDS; r++) want += add_value(p, k, r);
    uint64_t got = shmem_signal_fetch(sig);
    CHECK(got == want, "%s: %d PEs x %d signal adds: %llu, expected %llu", where, npes, ROUNDS,
          (unsigned long long)got, (unsigned long long)want);
    shmem_barrier_all();

    /* set: into my slot on every PE; the last set wins */
    for (int d = 0; d < npes; d++) {
        int pe = (me + d) % npes;
        /* contexts are not ordered with each other: a quiet between them */
        shmem_signal_set(&slots[me], test_value(me, k + 1, (uint64_t)pe), pe);
        shmem_quiet();
        shmem_ctx_signal_set(ctx, &slots[me], test_value(me, k + 2, (uint64_t)pe), pe);
        shmem_ctx_quiet(ctx);
        if (d % 2) shmem_signal_set(SHMEM_CTX_DEFAULT, &slots[me], test_value(me, k + 3, (uint64_t)pe), pe);
    }
    shmem_ctx_quiet(ctx);
    shmem_quiet();
    shmem_barrier_all();
    for (int p = 0; p < npes; p++) {
        int d = (me - p + npes) % npes;
        uint64_t want_p = d % 2 ? test_value(p, k + 3, (uint64_t)me) : test_value(p, k + 2, (uint64_t)me);
        CHECK(slots[p] == want_p, "%s: slot of PE %d after signal_set: %#llx, expected %#llx", where,
              p, (unsigned long long)slots[p], (unsigned long long)want_p);
    }
    shmem_barrier_all();

    /* set, waited for: a ring of tokens, each a fresh value */
    *sig = 0;
    shmem_barrier_all();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    for (int r = 1; r <= 20; r++) {
        uint64_t mine = ((uint64_t)r << 40) | (test_value(me, k + 4, (uint64_t)r) & 0xffffffffff);
        uint64_t theirs = ((uint64_t)r << 40) | (test_value(left, k + 4, (uint64_t)r) & 0xffffffffff);
        if (r % 2) shmem_signal_set(sig, mine, right);
        else shmem_ctx_signal_set(ctx, sig, mine, right);
        shmem_quiet();
        shmem_ctx_quiet(ctx);
        uint64_t seen = shmem_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)r << 40);
        CHECK(seen == theirs, "%s: ring round %d: signal %#llx, expected %#llx from PE %d", where, r,
              (unsigned long long)seen, (unsigned long long)theirs, left);
        shmem_barrier_all(); /* nobody sets round r+1 before everyone saw round r */
    }
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
}

/* ---- shmem_malloc_with_hints ------------------------------------------------------------------ */
static void test_hints(int k)
{
    static const long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, 1L << 20,
                                 SHMEM_MALLOC_SIGNAL_REMOTE | (1L << 40), -1L};
    for (size_t h = 0; h < sizeof hints / sizeof hints[0]; h++) {
        size_t n = 1 + (size_t)(test_value(0, k, h) % 500);
        long *p = shmem_malloc_with_hints(n * sizeof(long), hints[h]);
        CHECK(p != NULL, "shmem_malloc_with_hints(%zu, %#lx) returned NULL", n * sizeof(long), hints[h]);
        if (!p) continue;
        CHECK(shmem_addr_accessible(p, (me + 1) % npes), "hints %#lx: block not symmetric", hints[h]);
        long src[500];
        for (size_t i = 0; i < n; i++) src[i] = (long)test_value(me, k + 1, i + h * 1000);
        shmem_long_put(p, src, n, (me + 1) % npes);
        shmem_barrier_all();
        int left = (me + npes - 1) % npes, bad = 0;
        for (size_t i = 0; i < n; i++) bad += p[i] != (long)test_value(left, k + 1, i + h * 1000);
        CHECK(bad == 0, "hints %#lx: %d of %zu words wrong after a put", hints[h], bad, n);
        shmem_barrier_all(); /* checked before the left neighbour's add lands */
        shmem_long_atomic_add(&p[0], 1, (me + 1) % npes);
        shmem_barrier_all();
        CHECK(p[0] == (long)test_value(left, k + 1, h * 1000) + 1, "hints %#lx: atomic add lost", hints[h]);
        shmem_free(p);
    }
}

/* One life of the library: everything above, on heap and global objects. */
static void run_all(int life)
{
    int k = 100 * life;
    long *heap_obj = shmem_calloc(NSLOT, sizeof(long));
    uint64_t *heap_sig = shmem_calloc(1, sizeof(uint64_t));
    uint64_t *heap_slots = shmem_calloc(NSLOT, sizeof(uint64_t));
    test_team_ptr(heap_obj, k + 10);
    test_signals(heap_sig, heap_slots, life ? "heap (after re-init)" : "heap", k + 20);
    test_signals(&g_sig, g_slots, life ? "global (after re-init)" : "global", k + 40);
    test_hints(k + 60);
    shmem_free(heap_slots);
    shmem_free(heap_sig);
    shmem_free(heap_obj);
}

int main(int argc, char **argv)
{
    check_query(0, "before shmem_init");
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    check_query(1, "after shmem_init");
    if (argc > 1 && strcmp(argv[1], "bad-signal-pe") == 0) {
        static uint64_t s;
        shmem_signal_add(&s, 1, npes); /* must end the job with a message */
        return 0;
    }
    test_seed();

    /* nested init: counted; a non-last finalize is a barrier_all that keeps everything */
    int provided = -1;
    shmem_init();
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "nested shmem_init_thread failed");
    int level = -1;
    shmem_query_thread(&level);
    CHECK(provided == level, "nested shmem_init_thread: provided %d, query_thread %d", provided, level);
    long *keep = shmem_malloc(sizeof(long) * NSLOT);
    long v = (long)test_value(me, 1, 0);
    shmem_long_p(&keep[me % NSLOT], v, (me + 1) % npes); /* completed by the finalize's barrier */
    shmem_finalize();
    check_query(1, "after 1 of 3 shmem_finalize");
    int left = (me + npes - 1) % npes;
    CHECK(keep[left % NSLOT] == (long)test_value(left, 1, 0), "non-last shmem_finalize: put from PE %d "
          "not complete", left);
    shmem_barrier_all();
    shmem_finalize();
    check_query(1, "after 2 of 3 shmem_finalize");
    CHECK(shmem_my_pe() == me && shmem_n_pes() == npes, "queries changed by a non-last finalize");
    shmem_free(keep);

    run_all(0);

    /* the last finalize ends the library; a new init starts it again */
    long fails_before = test_failures;
    shmem_finalize();
    check_query(0, "after the last shmem_finalize");
    shmem_init();
    check_query(1, "after shmem_init again");
    CHECK(shmem_my_pe() == me && shmem_n_pes() == npes, "re-init: PE %d of %d, was %d of %d",
          shmem_my_pe(), shmem_n_pes(), me, npes);
    CHECK(test_failures == fails_before, "global data changed across re-init");
    run_all(1);
    int rc = test_finish("spec16");
    shmem_finalize();
    check_query(0, "at the end");
    return rc || test_failures != 0;
}
