/* Put-with-signal: every typed, sized and putmem put_signal / put_signal_nbi with
 * SHMEM_SIGNAL_SET and SHMEM_SIGNAL_ADD, on heap and global (data segment) data and signals.
 *
 *  ring:   a token goes round the PEs for 100 rounds; each PE waits for its left neighbour's
 *          signal, checks the round's payload is all there (data before signal), and forwards
 *          its own payload with the next family in the list.
 *  stream: each PE streams rounds into separate slots of its right neighbour, shmem_fence
 *          between them; the neighbour polls with shmem_signal_fetch while it streams too, and
 *          every slot the signal counts must be complete.
 *  sum:    signal ADD from every PE to every PE (and to PE 0) adds up; SET into per-source
 *          signal slots, waited for with every comparison. */
#include <sched.h>
#include <shmem.h>
#include <string.h>

#include "common.h"

typedef void (*ps_fn)(void *dest, const void *src, size_t nelems, uint64_t *sig, uint64_t value,
                      int op, int pe);
typedef struct { const char *name; size_t size; ps_fn fn; int nbi; } ps_family_t;

#define TYPED_PS(T, N, _)                                                                          \
    static void ps_##N(void *d, const void *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe) \
    { shmem_##N##_put_signal(d, s, n, sig, v, op, pe); }                                          \
    static void psn_##N(void *d, const void *s, size_t n, uint64_t *sig, uint64_t v, int op,      \
                        int pe)                                                                    \
    { shmem_##N##_put_signal_nbi(d, s, n, sig, v, op, pe); }
NODESHM_RMA_TYPES(TYPED_PS, _)
#define TYPED_PS_ENTRY(T, N, _)                                                                    \
    {"shmem_" #N "_put_signal", sizeof(T), ps_##N, 0},                                             \
    {"shmem_" #N "_put_signal_nbi", sizeof(T), psn_##N, 1},
#define SIZED_PS_ENTRY(B, _)                                                                       \
    {"shmem_put" #B "_signal", (B) / 8, shmem_put##B##_signal, 0},                                 \
    {"shmem_put" #B "_signal_nbi", (B) / 8, shmem_put##B##_signal_nbi, 1},
static const ps_family_t families[] = {
    NODESHM_RMA_TYPES(TYPED_PS_ENTRY, _)
    NODESHM_RMA_SIZES(SIZED_PS_ENTRY, _)
    {"shmem_putmem_signal", 1, shmem_putmem_signal, 0},
    {"shmem_putmem_signal_nbi", 1, shmem_putmem_signal_nbi, 1},
};
#define NFAMILIES (sizeof families / sizeof families[0])

enum { K_RING = 1, K_RINGP = 2, K_STREAM = 3, K_SUM = 4, K_SUMD = 5, K_SET = 6, K_SETD = 7 };

/* Payload bytes: byte j of PE pe's stream k, round tag. */
static void fill(unsigned char *p, size_t len, int pe, int k, uint64_t tag)
{
    for (size_t j = 0; j < len; j += 8) {
        uint64_t w = test_value(pe, k, (tag << 32) | (j >> 3));
        for (size_t b = 0; b < 8 && j + b < len; b++) p[j + b] = (unsigned char)(w >> (8 * b));
    }
}
/* Number of wrong bytes; *first gets the first wrong one. */
static size_t verify(const unsigned char *p, size_t len, int pe, int k, uint64_t tag, size_t *first)
{
    size_t bad = 0;
    *first = SIZE_MAX;
    for (size_t j = 0; j < len; j += 8) {
        uint64_t w = test_value(pe, k, (tag << 32) | (j >> 3));
        for (size_t b = 0; b < 8 && j + b < len; b++)
            if (p[j + b] != (unsigned char)(w >> (8 * b)) && bad++ == 0) *first = j + b;
    }
    return bad;
}

static const char *const mem_name[] = {"heap", "global"};

/* ---- ring ------------------------------------------------------------------------------------- */
#define RING_ROUNDS 100
#define RING_MAX_BYTES 65536
static unsigned char g_ring[RING_MAX_BYTES];
static uint64_t g_ring_sig;

typedef struct { const ps_family_t *f; size_t nelems; int data_mem, sig_mem, op; uint64_t delta; } round_t;

/* The same on every PE: what round r sends. */
static round_t ring_round(int r)
{
    round_t x;
    uint64_t u = test_value(0, K_RINGP, (uint64_t)r);
    x.f = &families[(size_t)r % NFAMILIES];
    size_t max_bytes = r % 10 == 9 ? RING_MAX_BYTES : 2048;
    x.nelems = r % 17 == 5 ? 0 : (size_t)(u % (max_bytes / x.f->size + 1));
    x.data_mem = (r / 2) % 2;
    x.sig_mem = r % 2;
    x.op = (r % 3 == 1) ? SHMEM_SIGNAL_SET : SHMEM_SIGNAL_ADD;
    x.delta = 1 + (u >> 40) % 1000;
    return x;
}

static void test_ring(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    unsigned char *h_data = shmem_malloc(RING_MAX_BYTES);
    uint64_t *h_sig = shmem_malloc(sizeof *h_sig);
    unsigned char *src = malloc(RING_MAX_BYTES);
    *h_sig = 0;
    g_ring_sig = 0;
    uint64_t value[2] = {0, 0}; /* each signal's value after the current round */
    shmem_barrier_all();
    for (int r = 1; r <= RING_ROUNDS; r++) {
        round_t x = ring_round(r);
        value[x.sig_mem] += x.delta;
        uint64_t want = value[x.sig_mem];
        unsigned char *data = x.data_mem ? g_ring : h_data;
        uint64_t *sig = x.sig_mem ? &g_ring_sig : h_sig;
        size_t bytes = x.nelems * x.f->size;
        for (int step = 0; step < 2; step++) {
            /* PE 0 sends first and receives last; every other PE receives, then sends */
            int sending = (me == 0) == (step == 0);
            if (sending) {
                fill(src, bytes, me, K_RING, (uint64_t)r);
                x.f->fn(data, src, x.nelems, sig, x.op == SHMEM_SIGNAL_SET ? want : x.delta, x.op, right);
                if (x.f->nbi) shmem_quiet();
            } else {
                uint64_t got = shmem_signal_wait_until(sig, r % 2 ? SHMEM_CMP_GE : SHMEM_CMP_EQ, want);
                CHECK(got == want, "ring round %d (%s): signal_wait_until returned %llu, expected %llu",
                      r, x.f->name, (unsigned long long)got, (unsigned long long)want);
                size_t first, bad = verify(data, bytes, left, K_RING, (uint64_t)r, &first);
                CHECK(bad == 0, "ring round %d (%s, %zu elements, %s data, %s signal, %s): %zu of %zu "
                      "bytes from PE %d not there when the signal was, first at byte %zu", r, x.f->name,
                      x.nelems, mem_name[x.data_mem], mem_name[x.sig_mem],
                      x.op == SHMEM_SIGNAL_SET ? "SET" : "ADD", bad, bytes, left, first);
            }
        }
    }
    CHECK(shmem_signal_fetch(h_sig) == value[0], "ring: heap signal %llu after the ring, expected %llu",
          (unsigned long long)shmem_signal_fetch(h_sig), (unsigned long long)value[0]);
    CHECK(shmem_signal_fetch(&g_ring_sig) == value[1], "ring: global signal %llu after the ring, "
          "expected %llu", (unsigned long long)shmem_signal_fetch(&g_ring_sig),
          (unsigned long long)value[1]);
    shmem_barrier_all();
    free(src);
    shmem_free(h_sig);
    shmem_free(h_data);
}

/* ---- stream with fence ------------------------------------------------------------------------ */
#define STREAM_ROUNDS 1000
#define SLOT 64
static unsigned char g_stream[STREAM_ROUNDS * SLOT];
static uint64_t g_stream_sig;

static size_t stream_nelems(int r, const ps_family_t *f)
{
    return (size_t)(test_value(0, K_RINGP, 1000 + (uint64_t)r) % (SLOT / f->size)) + 1;
}

static void check_slots(const unsigned char *data, int from, int lo, int hi, int mem, uint64_t seen_by)
{
    for (int r = lo; r < hi; r++) {
        const ps_family_t *f = &families[(size_t)(r * 7) % NFAMILIES];
        size_t bytes = stream_nelems(r, f) * f->size, first;
        size_t bad = verify(data + (size_t)r * SLOT, bytes, from, K_STREAM, (uint64_t)(r + 1000 * mem), &first);
        CHECK(bad == 0, "stream (%s) slot %d (%s): %zu of %zu bytes missing when the signal read %llu, "
              "first at byte %zu", mem_name[mem], r, f->name, bad, bytes, (unsigned long long)seen_by, first);
    }
}

static void test_stream(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    unsigned char *h_data = shmem_calloc(STREAM_ROUNDS, SLOT);
    uint64_t *h_sig = shmem_calloc(1, sizeof *h_sig);
    unsigned char src[SLOT];
    for (int mem = 0; mem < 2; mem++) {
        unsigned char *data = mem ? g_stream : h_data;
        uint64_t *sig = mem ? &g_stream_sig : h_sig;
        memset(data, 0, STREAM_ROUNDS * SLOT);
        *sig = 0;
        shmem_barrier_all();
        int seen = 0;
        for (int r = 0; r < STREAM_ROUNDS; r++) {
            const ps_family_t *f = &families[(size_t)(r * 7) % NFAMILIES];
            size_t nelems = stream_nelems(r, f);
            fill(src, nelems * f->size, me, K_STREAM, (uint64_t)(r + 1000 * mem));
            f->fn(data + (size_t)r * SLOT, src, nelems, sig, 1, SHMEM_SIGNAL_ADD, right);
            shmem_fence();
            if (r % 50 == 49) sched_yield(); /* let the neighbours run when PEs outnumber cores */
            /* meanwhile, whatever the left neighbour's signal counts must have arrived */
            uint64_t v = shmem_signal_fetch(sig);
            CHECK(v <= STREAM_ROUNDS, "stream: signal %llu > %d rounds", (unsigned long long)v, STREAM_ROUNDS);
            if (v > (uint64_t)seen && v <= STREAM_ROUNDS) {
                check_slots(data, left, seen, (int)v, mem, v);
                seen = (int)v;
            }
        }
        shmem_quiet();
        while (seen < STREAM_ROUNDS) {
            uint64_t v = shmem_signal_wait_until(sig, SHMEM_CMP_GT, (uint64_t)seen);
            CHECK(v > (uint64_t)seen && v <= STREAM_ROUNDS, "stream: signal_wait_until(GT %d) returned %llu",
                  seen, (unsigned long long)v);
            if (v > STREAM_ROUNDS) break;
            check_slots(data, left, seen, (int)v, mem, v);
            seen = (int)v;
        }
        shmem_barrier_all();
        CHECK(shmem_signal_fetch(sig) == STREAM_ROUNDS, "stream: final signal %llu",
              (unsigned long long)shmem_signal_fetch(sig));
        shmem_barrier_all();
    }
    shmem_free(h_sig);
    shmem_free(h_data);
}

/* ---- sums and sets from every PE ------------------------------------------------------------------ */
#define MAX_PES 64
#define SUM_ROUNDS 20
#define SUM_BYTES 96
static uint64_t g_sum_sig;
static uint64_t g_set_sigs[MAX_PES];
static unsigned char g_sum_data[MAX_PES * SUM_ROUNDS * SUM_BYTES];

static uint64_t add_value(int from, int to, int k, int mem)
{
    return test_value(from, K_SUM, ((uint64_t)mem << 40) | ((uint64_t)to << 16) | (uint64_t)k) >> 34;
}

static void test_sums(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n > MAX_PES) return;
    uint64_t *h_sig = shmem_malloc(sizeof *h_sig);
    uint64_t *h_set = shmem_malloc(sizeof(uint64_t) * (size_t)n);
    unsigned char *h_data = shmem_malloc((size_t)n * SUM_ROUNDS * SUM_BYTES);
    unsigned char src[SUM_BYTES];
    for (int mem = 0; mem < 2; mem++) {
        uint64_t *sig = mem ? &g_sum_sig : h_sig;
        uint64_t *sets = mem ? g_set_sigs : h_set;
        unsigned char *data = mem ? g_sum_data : h_data;

        /* all to PE 0: SUM_ROUNDS put_signal ADDs each, data into per-source slots */
        *sig = 0;
        shmem_barrier_all();
        for (int k = 0; k < SUM_ROUNDS; k++) {
            const ps_family_t *f = &families[(size_t)(k * 5 + me) % NFAMILIES];
            size_t nelems = SUM_BYTES / f->size;
            fill(src, nelems * f->size, me, K_SUMD, (uint64_t)(k + 100 * mem));
            f->fn(data + ((size_t)me * SUM_ROUNDS + (size_t)k) * SUM_BYTES, src, nelems, sig,
                  add_value(me, 0, k, mem), SHMEM_SIGNAL_ADD, 0);
            if (f->nbi && k % 4 == 3) shmem_quiet();
        }
        shmem_quiet();
        if (me == 0) {
            uint64_t total = 0;
            for (int p = 0; p < n; p++)
                for (int k = 0; k < SUM_ROUNDS; k++) total += add_value(p, 0, k, mem);
            uint64_t got = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, total);
            CHECK(got == total, "sum to PE 0 (%s): wait_until returned %llu, expected %llu", mem_name[mem],
                  (unsigned long long)got, (unsigned long long)total);
            for (int p = 0; p < n; p++)
                for (int k = 0; k < SUM_ROUNDS; k++) {
                    const ps_family_t *f = &families[(size_t)(k * 5 + p) % NFAMILIES];
                    size_t bytes = SUM_BYTES / f->size * f->size, first;
                    size_t bad = verify(data + ((size_t)p * SUM_ROUNDS + (size_t)k) * SUM_BYTES, bytes, p,
                                        K_SUMD, (uint64_t)(k + 100 * mem), &first);
                    CHECK(bad == 0, "sum to PE 0 (%s): round %d of PE %d (%s): %zu bytes wrong, first %zu",
                          mem_name[mem], k, p, f->name, bad, first);
                }
        }
        shmem_barrier_all();
        if (me == 0) {
            uint64_t total = 0;
            for (int p = 0; p < n; p++)
                for (int k = 0; k < SUM_ROUNDS; k++) total += add_value(p, 0, k, mem);
            CHECK(shmem_signal_fetch(sig) == total, "sum to PE 0 (%s): signal_fetch %llu, expected %llu",
                  mem_name[mem], (unsigned long long)shmem_signal_fetch(sig), (unsigned long long)total);
        }

        /* all to all: signal-only ADDs (0 elements) and ADDs with data, to every PE */
        *sig = 0;
        shmem_barrier_all();
        for (int r = 0; r < n; r++) {
            int t = (me + r) % n;
            for (int k = 0; k < 4; k++) {
                const ps_family_t *f = &families[(size_t)(k + 3 * t + 11 * me) % NFAMILIES];
                size_t nelems = k == 0 ? 0 : 8 / f->size + 1;
                fill(src, nelems * f->size, me, K_SUMD, (uint64_t)(1000 + 10 * t + k));
                f->fn(data + ((size_t)me * SUM_ROUNDS + (size_t)k) * SUM_BYTES, src, nelems, sig,
                      add_value(me, t, 100 + k, mem), SHMEM_SIGNAL_ADD, t);
            }
        }
        shmem_quiet();
        uint64_t total = 0;
        for (int p = 0; p < n; p++)
            for (int k = 0; k < 4; k++) total += add_value(p, me, 100 + k, mem);
        uint64_t got = shmem_signal_wait_until(sig, SHMEM_CMP_GE, total);
        CHECK(got == total, "all-to-all sum (%s): wait_until(GE) returned %llu, expected %llu", mem_name[mem],
              (unsigned long long)got, (unsigned long long)total);
        shmem_barrier_all();
        CHECK(shmem_signal_fetch(sig) == total, "all-to-all sum (%s): signal_fetch %llu after the "
              "barrier, expected %llu", mem_name[mem], (unsigned long long)shmem_signal_fetch(sig),
              (unsigned long long)total);
        for (int p = 0; p < n; p++)
            for (int k = 1; k < 4; k++) {
                const ps_family_t *f = &families[(size_t)(k + 3 * me + 11 * p) % NFAMILIES];
                size_t first, bytes = (8 / f->size + 1) * f->size;
                size_t bad = verify(data + ((size_t)p * SUM_ROUNDS + (size_t)k) * SUM_BYTES, bytes, p,
                                    K_SUMD, (uint64_t)(1000 + 10 * me + k), &first);
                CHECK(bad == 0, "all-to-all (%s): data %d of PE %d (%s): %zu bytes wrong", mem_name[mem], k,
                      p, f->name, bad);
            }
        shmem_barrier_all();

        /* SET into per-source slots, waited for with each comparison */
        for (int p = 0; p < n; p++) sets[p] = UINT64_MAX;
        shmem_barrier_all();
        for (int r = 0; r < n; r++) {
            int t = (me + r) % n;
            const ps_family_t *f = &families[(size_t)(t + 2 * me + 7 * mem) % NFAMILIES];
            size_t nelems = SUM_BYTES / f->size;
            uint64_t v = test_value(me, K_SET, ((uint64_t)mem << 32) | (uint64_t)t) >> 1; /* < MAX */
            fill(src, nelems * f->size, me, K_SETD, (uint64_t)(t + 100 * mem));
            f->fn(data + (size_t)me * SUM_ROUNDS * SUM_BYTES, src, nelems, &sets[me], v, SHMEM_SIGNAL_SET, t);
            if (f->nbi) shmem_quiet();
        }
        for (int i = 0; i < n; i++) {
            int p = (me + n - i) % n;
            uint64_t v = test_value(p, K_SET, ((uint64_t)mem << 32) | (uint64_t)me) >> 1, got;
            static const int cmps[] = {SHMEM_CMP_NE, SHMEM_CMP_LT, SHMEM_CMP_LE, SHMEM_CMP_EQ};
            static const char *const cmp_name[] = {"NE MAX", "LT MAX", "LE v", "EQ v"};
            int c = (p + mem) % 4;
            got = shmem_signal_wait_until(&sets[p], cmps[c], c < 2 ? UINT64_MAX : v);
            CHECK(got == v, "SET slot of PE %d (%s): wait_until(%s) returned %llu, expected %llu", p,
                  mem_name[mem], cmp_name[c], (unsigned long long)got, (unsigned long long)v);
            const ps_family_t *f = &families[(size_t)(me + 2 * p + 7 * mem) % NFAMILIES];
            size_t first, bytes = SUM_BYTES / f->size * f->size;
            size_t bad = verify(data + (size_t)p * SUM_ROUNDS * SUM_BYTES, bytes, p, K_SETD,
                                (uint64_t)(me + 100 * mem), &first);
            CHECK(bad == 0, "SET from PE %d (%s, %s): %zu of %zu data bytes missing after the signal, first %zu",
                  p, f->name, mem_name[mem], bad, bytes, first);
            CHECK(shmem_signal_fetch(&sets[p]) == v, "SET slot of PE %d: signal_fetch %llu, expected %llu", p,
                  (unsigned long long)shmem_signal_fetch(&sets[p]), (unsigned long long)v);
        }
        shmem_barrier_all();
    }
    shmem_free(h_data);
    shmem_free(h_set);
    shmem_free(h_sig);
}

int main(void)
{
    shmem_init();
    test_seed();
    test_ring();
    test_stream();
    test_sums();
    int status = test_finish("signal");
    shmem_finalize();
    return status;
}
