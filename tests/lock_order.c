/* Locks, ordering and barriers, on the symmetric heap and on global variables.
 *
 *   lock      set_lock/clear_lock around a non-atomic read-modify-write (get, add, put, quiet)
 *             of a counter on PE 0 from every PE: the total is exact, nobody else is inside
 *             while a PE holds the lock, and a log of critical sections holds every
 *             (PE, iteration) once, in order per PE.
 *   test_lock returns 0 when it acquires a free lock, nonzero while another PE holds it; a
 *             test_lock-only spin lock also protects the counter exactly.
 *   fairness  each PE in turn asks for the lock while all others take it in turns in a loop:
 *             it gets in, within a (loose) bound of their acquisitions.
 *   fence     data put, shmem_fence, flag put to the same PE: a receiver that sees the flag
 *             sees the data.
 *   quiet     data put to PE t, shmem_quiet or shmem_pe_quiet, then a flag to a third PE u:
 *             u sees the flag, gets the data from t and finds it complete.
 *   barrier   barrier_all and sync_all many times: after each, every PE reads every other
 *             PE's round number with shmem_g (stores and puts issued before the barrier). */
#include "common.h"

#include <shmem.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define MAX_PES 64
#define ITERS_MAX 64
#define DLEN 32

typedef struct {
    long *lock, *counter, *nops, *log, *counts, *stop;
    int *inside;
    long *data, *flags;   /* [MAX_PES * DLEN], [MAX_PES] */
    long *slots;          /* [2 * MAX_PES] for the barrier rounds */
} syms_t;

/* global (data segment) copies */
static long g_lock, g_counter, g_nops, g_log[MAX_PES * ITERS_MAX], g_counts[MAX_PES], g_stop;
static int g_inside;
static long g_data[MAX_PES * DLEN], g_flags[MAX_PES], g_slots[2 * MAX_PES];

static int me, npes, iters, brounds;
static const char *where;

/* ---- the critical section shared by the lock tests ------------------------------------------ */
/* Adds `inc` to PE 0's counter non-atomically and logs (me, i); checks nobody else is inside. */
static void critical(syms_t *s, long inc, long i)
{
    int in = shmem_int_atomic_fetch_inc(s->inside, 0);
    CHECK(in == 0, "%s: %d other PE(s) inside the critical section with PE %d", where, in, me);
    long v = shmem_long_g(s->counter, 0);
    long n = shmem_long_g(s->nops, 0);
    shmem_long_p(s->counter, v + inc, 0);
    if (n < (long)MAX_PES * ITERS_MAX) shmem_long_p(&s->log[n], ((long)me << 32) | i, 0);
    shmem_long_p(s->nops, n + 1, 0);
    shmem_quiet();
    in = shmem_int_atomic_fetch_add(s->inside, -1, 0);
    CHECK(in == 1, "%s: inside count %d when PE %d leaves, expected 1", where, in, me);
}

static long inc_of(int pe, int k, int i) { return 1 + (long)(test_value(pe, k, (uint64_t)i) % 100); }

static void reset(syms_t *s)
{
    *s->lock = 0;
    *s->counter = 0;
    *s->nops = 0;
    *s->inside = 0;
    *s->stop = 0;
    for (int p = 0; p < MAX_PES; p++) s->counts[p] = 0;
    shmem_barrier_all();
}

/* PE 0 checks the counter and the log of the last `n_iters` critical sections per PE. */
static void check_log(syms_t *s, const char *what, int k, int n_iters)
{
    shmem_barrier_all();
    if (me == 0) {
        long want = 0;
        for (int p = 0; p < npes; p++)
            for (int i = 0; i < n_iters; i++) want += inc_of(p, k, i);
        CHECK(*s->counter == want, "%s %s: counter %ld, expected %ld (lost updates)", what, where,
              *s->counter, want);
        CHECK(*s->nops == (long)npes * n_iters, "%s %s: %ld critical sections logged, expected %ld",
              what, where, *s->nops, (long)npes * n_iters);
        long next[MAX_PES] = {0};
        long n = *s->nops < (long)MAX_PES * ITERS_MAX ? *s->nops : (long)MAX_PES * ITERS_MAX;
        for (long j = 0; j < n; j++) {
            int p = (int)(s->log[j] >> 32);
            long i = s->log[j] & 0xffffffffL;
            CHECK(p >= 0 && p < npes && i == next[p], "%s %s: log entry %ld is PE %d iteration %ld, "
                  "expected iteration %ld", what, where, j, p, i, p >= 0 && p < npes ? next[p] : -1L);
            if (p >= 0 && p < npes) next[p] = i + 1;
        }
    }
    shmem_barrier_all();
}

static void test_lock_counter(syms_t *s)
{
    int k = 1000;
    reset(s);
    for (int i = 0; i < iters; i++) {
        shmem_set_lock(s->lock);
        critical(s, inc_of(me, k, i), i);
        shmem_clear_lock(s->lock);
    }
    check_log(s, "set_lock", k, iters);
}

static void test_test_lock(syms_t *s)
{
    reset(s);
    /* directed: a held lock is reported held; a free one is acquired */
    for (int r = 0; r < 2 * npes && r < 16; r++) {
        int h = r % npes;
        if (me == h) {
            if (r % 2) {
                shmem_set_lock(s->lock);
            } else {
                int rc = shmem_test_lock(s->lock);
                CHECK(rc == 0, "%s: test_lock on a free lock returned %d", where, rc);
                if (rc) shmem_set_lock(s->lock);
            }
        }
        shmem_barrier_all();
        if (me != h) {
            int rc = shmem_test_lock(s->lock);
            CHECK(rc != 0, "%s: round %d: test_lock acquired the lock PE %d holds", where, r, h);
            if (rc == 0) shmem_clear_lock(s->lock);
        }
        shmem_barrier_all();
        if (me == h) shmem_clear_lock(s->lock);
        shmem_barrier_all();
        if (me == (h + 1) % npes) {
            int rc = shmem_test_lock(s->lock);
            CHECK(rc == 0, "%s: round %d: test_lock on a released lock returned %d", where, r, rc);
            if (rc == 0) shmem_clear_lock(s->lock);
        }
        shmem_barrier_all();
    }
    /* contended: a spin lock made of test_lock only */
    reset(s);
    int k = 2000;
    for (int i = 0; i < iters; i++) {
        while (shmem_test_lock(s->lock)) {
        }
        critical(s, inc_of(me, k, i), i);
        shmem_clear_lock(s->lock);
    }
    check_log(s, "test_lock", k, iters);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Each PE in turn is the latecomer: the others ("hogs") acquire and release the lock in a loop;
 * once they are going, the latecomer asks for the lock and counts how many acquisitions by the
 * hogs it had to wait for.  A FIFO lock lets in at most one per hog before it; a lock that lets
 * a releasing PE take it straight back starves the latecomer.  The hogs stop when the latecomer
 * got in, or after FAIR_SECONDS (then it is reported starved).  A smoke test: the count also
 * covers the time between counting and asking, which grows without bound when the latecomer is
 * descheduled or its request waits in the MPI progress engine (pseudo-nodes, 8 PEs on 2 cores,
 * other jobs beside: hundreds of acquisitions seen), so the bound is loose and the best of
 * FAIR_TRIES tries counts; it catches starvation and gross unfairness, not FIFO order. */
#define FAIR_SECONDS 10.0
#define FAIR_TRIES 3
static void test_fairness(syms_t *s)
{
    long worst = 0;
    const long bound = 4096; /* a FIFO lock: about npes - 1 (see above) */
    for (int v = 0; v < npes; v++) {
        long best = -1;
        for (int try = 0; try < FAIR_TRIES; try++) {
            reset(s);
            if (me == v) {
                /* wait until the hogs are at it (or there are none) */
                double t0 = now_s();
                while (npes > 1 && shmem_long_atomic_fetch(s->nops, 0) < 20L * npes &&
                       now_s() - t0 < FAIR_SECONDS) {
                }
                long before = shmem_long_atomic_fetch(s->nops, 0);
                shmem_set_lock(s->lock);
                long passed = shmem_long_atomic_fetch(s->nops, 0) - before;
                shmem_long_atomic_set(s->stop, 1, 0);
                shmem_clear_lock(s->lock);
                if (best < 0 || passed < best) best = passed;
            } else {
                double t0 = now_s();
                for (;;) {
                    shmem_set_lock(s->lock);
                    shmem_long_atomic_inc(s->nops, 0);
                    long stop = shmem_long_atomic_fetch(s->stop, 0);
                    shmem_clear_lock(s->lock);
                    if (stop) break;
                    if (now_s() - t0 > FAIR_SECONDS) {
                        CHECK(0, "%s: fairness: PE %d did not get the lock in %.0f s while %d "
                              "PE(s) took it in turns", where, v, FAIR_SECONDS, npes - 1);
                        break;
                    }
                }
            }
            shmem_barrier_all();
        }
        if (me == v) {
            CHECK(best <= bound, "%s: fairness: PE %d waited for %ld acquisitions by the other %d "
                  "PE(s) at best of %d tries (bound %ld)", where, v, best, npes - 1, FAIR_TRIES, bound);
            worst = best;
        }
    }
    if (getenv("LOCK_ORDER_VERBOSE"))
        printf("%s: fairness: PE %d waited for %ld acquisitions at best\n", where, me, worst);
    shmem_barrier_all();
}

static long data_val(int s, int k, int r, int t, int i)
{
    return (long)(test_value(s, k, ((uint64_t)r << 24) | ((uint64_t)t << 12) | (uint64_t)i) >> 1);
}

static void test_fence(syms_t *s)
{
    int k = 3000, rounds = npes <= 4 ? 24 : 12;
    for (int p = 0; p < MAX_PES; p++) s->flags[p] = 0;
    shmem_barrier_all();
    for (int r = 0; r < rounds; r++) {
        long buf[DLEN];
        if (r % 2) { /* per target: data, fence, flag */
            for (int j = 0; j < npes; j++) {
                int t = (me + j) % npes;
                for (int i = 0; i < DLEN; i++) buf[i] = data_val(me, k, r, t, i);
                shmem_long_put(&s->data[me * DLEN], buf, DLEN, t);
                shmem_fence();
                shmem_long_p(&s->flags[me], r + 1, t);
            }
        } else { /* all data, one fence, all flags */
            for (int j = 0; j < npes; j++) {
                int t = (me + j) % npes;
                for (int i = 0; i < DLEN; i++) buf[i] = data_val(me, k, r, t, i);
                shmem_long_put(&s->data[me * DLEN], buf, DLEN, t);
            }
            shmem_fence();
            for (int j = 0; j < npes; j++) shmem_long_p(&s->flags[me], r + 1, (me + j) % npes);
        }
        for (int j = 0; j < npes; j++) {
            int from = (me + npes - j) % npes;
            shmem_long_wait_until(&s->flags[from], SHMEM_CMP_GE, r + 1);
            int bad = 0, first = -1;
            for (int i = 0; i < DLEN; i++)
                if (s->data[from * DLEN + i] != data_val(from, k, r, me, i) && bad++ == 0) first = i;
            CHECK(bad == 0, "%s: fence round %d: flag from PE %d seen, but %d of %d data words are "
                  "not there yet (first #%d)", where, r, from, bad, DLEN, first);
        }
        shmem_barrier_all(); /* the data blocks are reused next round */
    }
}

static void test_quiet(syms_t *s)
{
    int k = 4000, rounds = npes <= 4 ? 24 : 12;
    for (int p = 0; p < MAX_PES; p++) s->flags[p] = 0;
    shmem_barrier_all();
    int t = (me + 1) % npes, u = (me + 2) % npes;
    int sender = (me + 2 * npes - 2) % npes; /* the PE whose flag comes here */
    int via = (sender + 1) % npes;            /* ... and whose data went there */
    for (int r = 0; r < rounds; r++) {
        long buf[DLEN];
        for (int i = 0; i < DLEN; i++) buf[i] = data_val(me, k, r, t, i);
        shmem_long_put(&s->data[me * DLEN], buf, DLEN, t);
        switch (r % 3) {
        case 0: shmem_quiet(); break;
        case 1: shmem_pe_quiet(&t, 1); break;
        default: {
            int pes[3] = {u, t, me};
            shmem_pe_quiet(pes, 3);
        }
        }
        shmem_long_p(&s->flags[me], r + 1, u);
        shmem_long_wait_until(&s->flags[sender], SHMEM_CMP_GE, r + 1);
        shmem_long_get(buf, &s->data[sender * DLEN], DLEN, via);
        int bad = 0, first = -1;
        for (int i = 0; i < DLEN; i++)
            if (buf[i] != data_val(sender, k, r, via, i) && bad++ == 0) first = i;
        CHECK(bad == 0, "%s: %s round %d: PE %d's flag seen, but %d of %d words of its put to PE %d "
              "are missing (first #%d)", where, r % 3 ? "pe_quiet" : "quiet", r, sender, bad, DLEN,
              via, first);
        shmem_barrier_all();
    }
}

static void test_barriers(syms_t *s)
{
    for (int p = 0; p < 2 * MAX_PES; p++) s->slots[p] = -1;
    shmem_barrier_all();
    for (int r = 0; r < brounds; r++) {
        int mode = r % 4, slot = r % 2;
        long *mine = &s->slots[slot * MAX_PES + me];
        switch (mode) {
        case 0: /* local store, barrier_all */
            *mine = r;
            shmem_barrier_all();
            break;
        case 1: /* local store, sync_all */
            *mine = r;
            shmem_sync_all();
            break;
        case 2: /* puts to every PE's copy, barrier_all completes them */
            for (int t = 0; t < npes; t++) shmem_long_p(mine, r, t);
            shmem_barrier_all();
            break;
        default: /* puts, quiet, sync_all */
            for (int t = 0; t < npes; t++) shmem_long_p(mine, r, t);
            shmem_quiet();
            shmem_sync_all();
            break;
        }
        int bad = 0, first = -1;
        long seen = 0;
        for (int j = 1; j <= npes; j++) {
            int p = (me + j) % npes;
            /* modes 2 and 3 put into every PE's copy: read mine; else read the owner's */
            long v = mode >= 2 ? s->slots[slot * MAX_PES + p]
                               : shmem_long_g(&s->slots[slot * MAX_PES + p], p);
            if (v != r && bad++ == 0) first = p, seen = v;
        }
        CHECK(bad == 0, "%s: %s round %d: %d PE(s) not at this round, e.g. PE %d at %ld", where,
              mode % 2 ? "sync_all" : "barrier_all", r, bad, first, seen);
    }
    shmem_barrier_all();
}

static void run_all(syms_t *s)
{
    test_lock_counter(s);
    test_test_lock(s);
    test_fairness(s);
    test_fence(s);
    test_quiet(s);
    test_barriers(s);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > MAX_PES) {
        if (me == 0) fprintf(stderr, "lock_order: at most %d PEs\n", MAX_PES);
        shmem_global_exit(1);
    }
    test_seed();
    iters = npes <= 2 ? 64 : npes <= 4 ? 32 : 16;
    brounds = npes <= 4 ? 200 : 100;

    syms_t g = {&g_lock, &g_counter, &g_nops, g_log, g_counts, &g_stop, &g_inside,
                g_data, g_flags, g_slots};
    syms_t h = {
        .lock = shmem_malloc(sizeof(long)),
        .counter = shmem_malloc(sizeof(long)),
        .nops = shmem_malloc(sizeof(long)),
        .log = shmem_malloc(sizeof(long) * MAX_PES * ITERS_MAX),
        .counts = shmem_malloc(sizeof(long) * MAX_PES),
        .stop = shmem_malloc(sizeof(long)),
        .inside = shmem_malloc(sizeof(int)),
        .data = shmem_malloc(sizeof(long) * MAX_PES * DLEN),
        .flags = shmem_malloc(sizeof(long) * MAX_PES),
        .slots = shmem_malloc(sizeof(long) * 2 * MAX_PES),
    };
    if (!h.lock || !h.counter || !h.nops || !h.log || !h.counts || !h.stop || !h.inside ||
        !h.data || !h.flags || !h.slots) {
        fprintf(stderr, "lock_order: shmem_malloc failed\n");
        shmem_global_exit(1);
    }
    where = "global";
    run_all(&g);
    where = "heap";
    run_all(&h);
    /* a lock in one place, the data in the other */
    syms_t mixed = h;
    mixed.lock = &g_lock;
    where = "global lock, heap data";
    test_lock_counter(&mixed);

    shmem_free(h.slots);
    shmem_free(h.flags);
    shmem_free(h.data);
    shmem_free(h.inside);
    shmem_free(h.stop);
    shmem_free(h.counts);
    shmem_free(h.log);
    shmem_free(h.nops);
    shmem_free(h.counter);
    shmem_free(h.lock);
    int rc = test_finish("lock_order");
    shmem_finalize();
    return rc;
}
