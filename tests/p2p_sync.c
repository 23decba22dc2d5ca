/* Point-to-point synchronization, for every type of the P2P table, on heap and global ivars:
 *  - wait_until with each comparison; the producer (another PE) first stores a value that does
 *    not satisfy the condition, then one that does, after random small delays;
 *  - wait_until_all/any/some and their _vector forms, test/test_all/test_any/test_some (+vector)
 *    with status masks: excluded elements hold values that would satisfy an any/some (or fail an
 *    all), so ignoring the mask shows;
 *  - the empty-set conventions: all excluded or nelems 0 -> any returns SIZE_MAX, some 0,
 *    test_all 1, wait_until_all returns at once.
 * Producers write with shmem_p, shmem_<T>_atomic_set (where the type has atomics) or a
 * one-element put, then fence/quiet. */
#include <shmem.h>
#include <stdalign.h>
#include <string.h>

#include "common.h"

typedef struct { alignas(8) unsigned char b[8]; } val_t;

typedef struct family {
    const char *name;
    size_t size;
    void (*wait_until)(void *ivar, int cmp, const void *v);
    void (*wait_all)(void *ivars, size_t n, const int *status, int cmp, const void *v);
    size_t (*wait_any)(void *ivars, size_t n, const int *status, int cmp, const void *v);
    size_t (*wait_some)(void *ivars, size_t n, size_t *idx, const int *status, int cmp, const void *v);
    void (*wait_all_v)(void *ivars, size_t n, const int *status, int cmp, void *vs);
    size_t (*wait_any_v)(void *ivars, size_t n, const int *status, int cmp, void *vs);
    size_t (*wait_some_v)(void *ivars, size_t n, size_t *idx, const int *status, int cmp, void *vs);
    int (*test)(void *ivar, int cmp, const void *v);
    int (*test_all)(void *ivars, size_t n, const int *status, int cmp, const void *v);
    size_t (*test_any)(void *ivars, size_t n, const int *status, int cmp, const void *v);
    size_t (*test_some)(void *ivars, size_t n, size_t *idx, const int *status, int cmp, const void *v);
    int (*test_all_v)(void *ivars, size_t n, const int *status, int cmp, void *vs);
    size_t (*test_any_v)(void *ivars, size_t n, const int *status, int cmp, void *vs);
    size_t (*test_some_v)(void *ivars, size_t n, size_t *idx, const int *status, int cmp, void *vs);
    void (*remote_set)(void *ivar, const void *v, int pe, int how);
    void (*mk3)(uint64_t u, void *lo, void *mid, void *hi); /* three random values, lo < mid < hi */
    int (*eq)(const void *a, const void *b);
    void (*show)(const void *a, char *buf, size_t len);
} family_t;

/* shmem_<T>_atomic_set where the type has atomics; short and ushort have none */
#define ASET(T, N, _)                                                                              \
    static void aset_##N(T *d, T v, int pe) { shmem_##N##_atomic_set(d, v, pe); }
NODESHM_AMO_STANDARD_TYPES(ASET, _)
static void aset_short(short *d, short v, int pe) { shmem_short_put(d, &v, 1, pe); }
static void aset_ushort(unsigned short *d, unsigned short v, int pe) { shmem_ushort_put(d, &v, 1, pe); }

#define P2P_WRAPPERS(T, N, _)                                                                      \
    static void wu_##N(void *iv, int c, const void *v) { shmem_##N##_wait_until(iv, c, *(const T *)v); } \
    static void wall_##N(void *iv, size_t n, const int *st, int c, const void *v)                 \
    { shmem_##N##_wait_until_all(iv, n, st, c, *(const T *)v); }                                  \
    static size_t wany_##N(void *iv, size_t n, const int *st, int c, const void *v)               \
    { return shmem_##N##_wait_until_any(iv, n, st, c, *(const T *)v); }                           \
    static size_t wsome_##N(void *iv, size_t n, size_t *ix, const int *st, int c, const void *v)  \
    { return shmem_##N##_wait_until_some(iv, n, ix, st, c, *(const T *)v); }                      \
    static void wallv_##N(void *iv, size_t n, const int *st, int c, void *vs)                     \
    { shmem_##N##_wait_until_all_vector(iv, n, st, c, vs); }                                      \
    static size_t wanyv_##N(void *iv, size_t n, const int *st, int c, void *vs)                   \
    { return shmem_##N##_wait_until_any_vector(iv, n, st, c, vs); }                               \
    static size_t wsomev_##N(void *iv, size_t n, size_t *ix, const int *st, int c, void *vs)      \
    { return shmem_##N##_wait_until_some_vector(iv, n, ix, st, c, vs); }                          \
    static int t_##N(void *iv, int c, const void *v) { return shmem_##N##_test(iv, c, *(const T *)v); } \
    static int tall_##N(void *iv, size_t n, const int *st, int c, const void *v)                  \
    { return shmem_##N##_test_all(iv, n, st, c, *(const T *)v); }                                 \
    static size_t tany_##N(void *iv, size_t n, const int *st, int c, const void *v)               \
    { return shmem_##N##_test_any(iv, n, st, c, *(const T *)v); }                                 \
    static size_t tsome_##N(void *iv, size_t n, size_t *ix, const int *st, int c, const void *v)  \
    { return shmem_##N##_test_some(iv, n, ix, st, c, *(const T *)v); }                            \
    static int tallv_##N(void *iv, size_t n, const int *st, int c, void *vs)                      \
    { return shmem_##N##_test_all_vector(iv, n, st, c, vs); }                                     \
    static size_t tanyv_##N(void *iv, size_t n, const int *st, int c, void *vs)                   \
    { return shmem_##N##_test_any_vector(iv, n, st, c, vs); }                                     \
    static size_t tsomev_##N(void *iv, size_t n, size_t *ix, const int *st, int c, void *vs)      \
    { return shmem_##N##_test_some_vector(iv, n, ix, st, c, vs); }                                \
    static void rset_##N(void *iv, const void *v, int pe, int how)                                \
    {                                                                                              \
        T x = *(const T *)v;                                                                       \
        if (how == 0) shmem_##N##_p(iv, x, pe);                                                    \
        else if (how == 1) aset_##N(iv, x, pe);                                                    \
        else shmem_##N##_put(iv, &x, 1, pe);                                                       \
    }                                                                                              \
    static void mk3_##N(uint64_t u, void *lo, void *mid, void *hi)                                 \
    {                                                                                              \
        T a[3], t;                                                                                 \
        for (;;) {                                                                                 \
            a[0] = (T)u;                                                                           \
            a[1] = (T)test_mix(u);                                                                 \
            a[2] = (T)test_mix(u + 1);                                                             \
            if (a[0] != a[1] && a[1] != a[2] && a[0] != a[2]) break;                               \
            u = test_mix(u + 2);                                                                   \
        }                                                                                          \
        if (a[1] < a[0]) t = a[0], a[0] = a[1], a[1] = t;                                          \
        if (a[2] < a[1]) t = a[1], a[1] = a[2], a[2] = t;                                          \
        if (a[1] < a[0]) t = a[0], a[0] = a[1], a[1] = t;                                          \
        *(T *)lo = a[0];                                                                           \
        *(T *)mid = a[1];                                                                          \
        *(T *)hi = a[2];                                                                           \
    }                                                                                              \
    static int eq_##N(const void *a, const void *b) { return *(const T *)a == *(const T *)b; }    \
    static void show_##N(const void *a, char *buf, size_t len)                                    \
    {                                                                                              \
        T x = *(const T *)a, zero = 0, minus1 = (T)(zero - 1);                                     \
        if (minus1 > zero) snprintf(buf, len, "%llu", (unsigned long long)x);                      \
        else snprintf(buf, len, "%lld", (long long)x);                                             \
    }
NODESHM_P2P_TYPES(P2P_WRAPPERS, _)

#define P2P_ENTRY(T, N, _)                                                                         \
    {#N, sizeof(T), wu_##N, wall_##N, wany_##N, wsome_##N, wallv_##N, wanyv_##N, wsomev_##N,      \
     t_##N, tall_##N, tany_##N, tsome_##N, tallv_##N, tanyv_##N, tsomev_##N, rset_##N, mk3_##N,   \
     eq_##N, show_##N},
static const family_t families[] = {NODESHM_P2P_TYPES(P2P_ENTRY, _)};
#define NFAMILIES (sizeof families / sizeof families[0])

static const char *const cmp_name[] = {"EQ", "NE", "GT", "GE", "LT", "LE"};
static const char *const mem_name[] = {"heap", "global"};
static const char *const how_name[] = {"shmem_p", "atomic_set", "put"};

/* For comparison c against mid: a value that satisfies it and one that does not (alt picks
 * between two choices, so both sides of the boundary get used). */
typedef struct { val_t lo, mid, hi; } triple_t;
static const val_t *sat_value(const triple_t *t, int c, int alt)
{
    switch (c) {
    case SHMEM_CMP_EQ: return &t->mid;
    case SHMEM_CMP_NE: return alt ? &t->lo : &t->hi;
    case SHMEM_CMP_GT: return &t->hi;
    case SHMEM_CMP_GE: return alt ? &t->hi : &t->mid;
    case SHMEM_CMP_LT: return &t->lo;
    default: return alt ? &t->mid : &t->lo; /* LE */
    }
}
static const val_t *unsat_value(const triple_t *t, int c, int alt)
{
    switch (c) {
    case SHMEM_CMP_EQ: return alt ? &t->hi : &t->lo;
    case SHMEM_CMP_NE: return &t->mid;
    case SHMEM_CMP_GT: return alt ? &t->lo : &t->mid;
    case SHMEM_CMP_GE: return &t->lo;
    case SHMEM_CMP_LT: return alt ? &t->hi : &t->mid;
    default: return &t->hi; /* LE */
    }
}

enum { K_VAL = 1, K_DELAY = 2, K_MASK = 3 };

static triple_t make_triple(const family_t *f, size_t fam, int mem, int round, size_t i)
{
    triple_t t;
    memset(&t, 0, sizeof t);
    f->mk3(test_value(0, K_VAL, ((uint64_t)fam << 40) | ((uint64_t)mem << 36) | ((uint64_t)round << 16) | i),
           t.lo.b, t.mid.b, t.hi.b);
    return t;
}

static void random_delay(uint64_t u)
{
    unsigned us = (unsigned)(u % 150);
    if (us > 100) usleep(us - 100);
    else for (volatile unsigned k = 0; k < us * 50; k++) {}
}

static unsigned char *elem(void *base, const family_t *f, size_t i) { return (unsigned char *)base + i * f->size; }
static void store(void *base, const family_t *f, size_t i, const val_t *v)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    memcpy(elem(base, f, i), v->b, f->size);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
static int holds(void *base, const family_t *f, size_t i, const val_t *v)
{
    val_t x;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    memcpy(x.b, elem(base, f, i), f->size);
    return f->eq(x.b, v->b);
}
static const char *show_elem(void *base, const family_t *f, size_t i, char *buf)
{
    f->show(elem(base, f, i), buf, 40);
    return buf;
}

/* This PE's producer and consumer for a given family: another PE when there is one. */
static int shift_for(size_t fam)
{
    int n = shmem_n_pes();
    return n == 1 ? 0 : 1 + (int)(fam % (size_t)(n - 1));
}

/* ---- wait_until with each comparison ---------------------------------------------------------- */
static void test_wait_until(const family_t *f, size_t fam, int mem, void *ivars)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), shift = shift_for(fam);
    int consumer = (me + n - shift) % n, producer = (me + shift) % n;
    triple_t t[6];
    for (int c = 0; c < 6; c++) {
        t[c] = make_triple(f, fam, mem, c, 0);
        store(ivars, f, (size_t)c, unsat_value(&t[c], c, 0));
    }
    shmem_barrier_all();
    for (int c = 0; c < 6; c++) {
        int how = (c + (int)fam + mem) % 3;
        uint64_t u = test_value(me, K_DELAY, ((uint64_t)fam << 32) | ((uint64_t)mem << 16) | (uint64_t)c);
        /* produce for my consumer: a non-satisfying value first, then the satisfying one */
        random_delay(u);
        f->remote_set(elem(ivars, f, (size_t)c), unsat_value(&t[c], c, 1)->b, consumer, how);
        shmem_fence();
        random_delay(u >> 20);
        f->remote_set(elem(ivars, f, (size_t)c), sat_value(&t[c], c, c & 1)->b, consumer, how);
        shmem_quiet();
        /* consume what my producer sends */
        f->wait_until(elem(ivars, f, (size_t)c), c, t[c].mid.b);
        char a[40], b[40], m[40];
        const val_t *want = sat_value(&t[c], c, c & 1);
        f->show(want->b, b, sizeof b);
        f->show(t[c].mid.b, m, sizeof m);
        CHECK(holds(ivars, f, (size_t)c, want), "%s wait_until(%s %s) on %s ivar returned with the value %s; "
              "PE %d stores %s (by %s), after a value that does not satisfy it", f->name, cmp_name[c], m,
              mem_name[mem], show_elem(ivars, f, (size_t)c, a), producer, b, how_name[how]);
        CHECK(f->test(elem(ivars, f, (size_t)c), c, t[c].mid.b) == 1, "%s test(%s %s) is 0 after "
              "wait_until returned", f->name, cmp_name[c], m);
    }
    shmem_barrier_all();
}

/* ---- test, locally, on both sides of each boundary ---------------------------------------------- */
static void test_test(const family_t *f, size_t fam, int mem, void *ivars)
{
    for (int c = 0; c < 6; c++) {
        triple_t t = make_triple(f, fam, mem, 10 + c, 0);
        char m[40], v[40];
        f->show(t.mid.b, m, sizeof m);
        for (int alt = 0; alt < 2; alt++) {
            store(ivars, f, 0, sat_value(&t, c, alt));
            CHECK(f->test(ivars, c, t.mid.b) == 1, "%s test(%s %s) with %s (%s): 0, expected 1", f->name,
                  cmp_name[c], m, show_elem(ivars, f, 0, v), mem_name[mem]);
            store(ivars, f, 0, unsat_value(&t, c, alt));
            CHECK(f->test(ivars, c, t.mid.b) == 0, "%s test(%s %s) with %s (%s): 1, expected 0", f->name,
                  cmp_name[c], m, show_elem(ivars, f, 0, v), mem_name[mem]);
        }
    }
}

/* ---- sets: all / any / some, scalar and vector ------------------------------------------------ */
#define M 10
enum { ANY, SOME, ALL };

typedef struct {
    const family_t *f;
    int vector, cmp;
    triple_t t[M];   /* per element (all the same when not vector) */
    alignas(8) unsigned char cmpv[M * 8]; /* the vector of comparison values: a packed T[M] */
    int status[M];
} set_t;

static size_t call_any(set_t *s, int wait, void *iv, size_t n, const int *st)
{
    const family_t *f = s->f;
    if (s->vector) return wait ? f->wait_any_v(iv, n, st, s->cmp, s->cmpv) : f->test_any_v(iv, n, st, s->cmp, s->cmpv);
    return wait ? f->wait_any(iv, n, st, s->cmp, s->t[0].mid.b) : f->test_any(iv, n, st, s->cmp, s->t[0].mid.b);
}
static size_t call_some(set_t *s, int wait, void *iv, size_t n, size_t *ix, const int *st)
{
    const family_t *f = s->f;
    if (s->vector)
        return wait ? f->wait_some_v(iv, n, ix, st, s->cmp, s->cmpv) : f->test_some_v(iv, n, ix, st, s->cmp, s->cmpv);
    return wait ? f->wait_some(iv, n, ix, st, s->cmp, s->t[0].mid.b)
                : f->test_some(iv, n, ix, st, s->cmp, s->t[0].mid.b);
}
/* wait_until_all returns nothing: report 1 */
static int call_all(set_t *s, int wait, void *iv, size_t n, const int *st)
{
    const family_t *f = s->f;
    if (s->vector) {
        if (!wait) return f->test_all_v(iv, n, st, s->cmp, s->cmpv);
        f->wait_all_v(iv, n, st, s->cmp, s->cmpv);
        return 1;
    }
    if (!wait) return f->test_all(iv, n, st, s->cmp, s->t[0].mid.b);
    f->wait_all(iv, n, st, s->cmp, s->t[0].mid.b);
    return 1;
}

/* indices ix[0..k) are distinct and exactly (exact) or a non-empty part of (!exact) set `want` */
static int same_indices(const size_t *ix, size_t k, const int *want, int exact)
{
    int seen[M] = {0};
    size_t nwant = 0;
    for (size_t i = 0; i < M; i++) nwant += want[i] != 0;
    for (size_t i = 0; i < k; i++) {
        if (ix[i] >= M || !want[ix[i]] || seen[ix[i]]) return 0;
        seen[ix[i]] = 1;
    }
    return exact ? k == nwant : k >= 1 && k <= nwant;
}

static void test_set(const family_t *f, size_t fam, int mem, void *ivars, int kind, int vector, int round)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), shift = shift_for(fam + (size_t)round);
    int consumer = (me + n - shift) % n;
    set_t s;
    memset(&s, 0, sizeof s);
    s.f = f;
    s.vector = vector;
    s.cmp = (int)((fam + (size_t)round) % 6);
    const char *what = vector ? "_vector" : "";
    char buf[40];

    /* the mask: some excluded (with various nonzero values), at least two included */
    uint64_t mask = test_value(0, K_MASK, ((uint64_t)fam << 24) | ((uint64_t)mem << 16) | (uint64_t)round);
    int included[M], ninc = 0, first_excluded = -1;
    for (size_t i = 0; i < M; i++) {
        int excl = (mask >> i) & 1;
        if (i == 0 || i == 5) excl = 0; /* at least two included */
        if (i == 3) excl = 1;           /* at least one excluded */
        static const int nonzero[] = {1, -1, 7, 1 << 30};
        s.status[i] = excl ? nonzero[(mask >> (16 + 2 * i)) & 3] : 0;
        included[i] = !excl;
        ninc += !excl;
        if (excl && first_excluded < 0) first_excluded = (int)i;
    }
    for (size_t i = 0; i < M; i++) {
        s.t[i] = make_triple(f, fam, mem, 100 + round, vector ? i : 0);
        memcpy(s.cmpv + i * f->size, s.t[i].mid.b, f->size);
    }
    /* what the producer makes satisfied: any -> one element, some -> a subset, all -> all */
    int target[M] = {0};
    uint64_t pick = test_value(0, K_MASK, 1000 + ((uint64_t)fam << 24) + (uint64_t)round);
    int one = (int)(pick % M);
    while (!included[one]) one = (one + 1) % M;
    for (size_t i = 0; i < M; i++)
        target[i] = included[i] && (kind == ALL || (kind == SOME ? ((pick >> (8 + i)) & 1) || (int)i == one
                                                                 : (int)i == one));
    int ntarget = 0;
    for (size_t i = 0; i < M; i++) ntarget += target[i];

    /* initial values: included elements unsatisfied; excluded ones satisfied for any/some (a set
     * that ignored the mask would find them) and unsatisfied for all */
    for (size_t i = 0; i < M; i++) {
        int sat = !included[i] && kind != ALL;
        store(ivars, f, i, sat ? sat_value(&s.t[i], s.cmp, (int)i & 1) : unsat_value(&s.t[i], s.cmp, (int)i & 1));
    }

    /* before anything is produced (nobody writes until the barrier) */
    size_t ix[M + 1];
    size_t r = call_any(&s, 0, ivars, M, s.status);
    CHECK(r == SIZE_MAX, "%s test_any%s(%s) (%s) before any update: %zu, expected SIZE_MAX", f->name, what,
          cmp_name[s.cmp], mem_name[mem], r);
    r = call_some(&s, 0, ivars, M, ix, s.status);
    CHECK(r == 0, "%s test_some%s(%s) (%s) before any update: %zu, expected 0", f->name, what, cmp_name[s.cmp],
          mem_name[mem], r);
    int a = call_all(&s, 0, ivars, M, s.status);
    CHECK(a == 0, "%s test_all%s(%s) (%s) before any update: %d, expected 0", f->name, what, cmp_name[s.cmp],
          mem_name[mem], a);
    if (kind != ALL) { /* status NULL: every element counts, so the excluded satisfied ones are found */
        r = call_any(&s, 0, ivars, M, NULL);
        CHECK(r < M && !included[r], "%s test_any%s(%s, status NULL): %zu, not one of the satisfied elements "
              "(those the mask excludes, e.g. %d)", f->name, what, cmp_name[s.cmp], r, first_excluded);
        r = call_some(&s, 0, ivars, M, ix, NULL);
        int excl[M];
        for (size_t i = 0; i < M; i++) excl[i] = !included[i];
        CHECK(r == (size_t)(M - ninc) && same_indices(ix, r, excl, 1), "%s test_some%s(%s, status NULL): %zu, "
              "expected the %d excluded elements", f->name, what, cmp_name[s.cmp], r, M - ninc);
        r = call_any(&s, 1, ivars, M, NULL);
        CHECK(r < M && !included[r], "%s wait_until_any%s(%s, status NULL): %zu, not one of the satisfied "
              "elements (those the mask excludes, e.g. %d)", f->name, what, cmp_name[s.cmp], r, first_excluded);
    } else {
        a = call_all(&s, 0, ivars, M, NULL);
        CHECK(a == 0, "%s test_all%s(%s, status NULL) with excluded unsatisfied: %d, expected 0", f->name,
              what, cmp_name[s.cmp], a);
    }
    shmem_barrier_all();

    /* produce for my consumer, in a random order, with delays */
    uint64_t u = test_value(me, K_DELAY, ((uint64_t)fam << 32) | ((uint64_t)mem << 24) | (uint64_t)round << 8);
    for (size_t k = 0; k < M; k++) {
        size_t i = (k + (size_t)(u % M)) % M;
        if (!target[i]) continue;
        random_delay(test_mix(u + k));
        f->remote_set(elem(ivars, f, i), sat_value(&s.t[i], s.cmp, (int)(i + 1) & 1)->b, consumer,
                      (int)((i + (size_t)round) % 3));
        shmem_fence();
    }
    shmem_quiet();

    /* consume */
    if (kind == ANY) {
        r = call_any(&s, 1, ivars, M, s.status);
        CHECK(r == (size_t)one, "%s wait_until_any%s(%s) (%s): %zu, expected %d, the one element updated",
              f->name, what, cmp_name[s.cmp], mem_name[mem], r, one);
    } else if (kind == SOME) {
        for (size_t i = 0; i <= M; i++) ix[i] = SIZE_MAX;
        r = call_some(&s, 1, ivars, M, ix, s.status);
        int ok = same_indices(ix, r, target, 0);
        for (size_t i = 0; ok && i < r; i++)
            ok = holds(ivars, f, ix[i], sat_value(&s.t[ix[i]], s.cmp, (int)(ix[i] + 1) & 1));
        CHECK(ok, "%s wait_until_some%s(%s) (%s): %zu indices (first %zu), not a non-empty subset of the %d "
              "updated ones", f->name, what,
              cmp_name[s.cmp], mem_name[mem], r, ix[0], ntarget);
    } else {
        call_all(&s, 1, ivars, M, s.status);
        for (size_t i = 0; i < M; i++)
            if (included[i])
                CHECK(holds(ivars, f, i, sat_value(&s.t[i], s.cmp, (int)(i + 1) & 1)),
                      "%s wait_until_all%s(%s) (%s) returned with element %zu = %s, not yet updated", f->name,
                      what, cmp_name[s.cmp], mem_name[mem], i, show_elem(ivars, f, i, buf));
    }
    shmem_barrier_all();

    /* everything produced: exact answers */
    r = call_some(&s, 0, ivars, M, ix, s.status);
    CHECK(same_indices(ix, r, target, 1), "%s test_some%s(%s) (%s) after all updates: %zu, expected %d",
          f->name, what, cmp_name[s.cmp], mem_name[mem], r, ntarget);
    r = call_some(&s, 1, ivars, M, ix, s.status);
    CHECK(same_indices(ix, r, target, 1), "%s wait_until_some%s(%s) (%s) after all updates: %zu, expected %d",
          f->name, what, cmp_name[s.cmp], mem_name[mem], r, ntarget);
    r = call_any(&s, 0, ivars, M, s.status);
    CHECK(r < M && target[r], "%s test_any%s(%s) (%s) after all updates: %zu, not an updated element",
          f->name, what, cmp_name[s.cmp], mem_name[mem], r);
    a = call_all(&s, 0, ivars, M, s.status);
    CHECK(a == (ntarget == ninc), "%s test_all%s(%s) (%s) after all updates: %d, expected %d", f->name, what,
          cmp_name[s.cmp], mem_name[mem], a, ntarget == ninc);

    /* empty sets: every element excluded, or nelems 0 */
    int none[M];
    for (size_t i = 0; i < M; i++) none[i] = 1 + (int)i;
    for (int empty = 0; empty < 2; empty++) {
        const int *st = empty ? s.status : none;
        size_t nel = empty ? 0 : M;
        const char *how = empty ? "nelems 0" : "all excluded";
        r = call_any(&s, 0, ivars, nel, st);
        CHECK(r == SIZE_MAX, "%s test_any%s (%s): %zu, expected SIZE_MAX", f->name, what, how, r);
        r = call_any(&s, 1, ivars, nel, st);
        CHECK(r == SIZE_MAX, "%s wait_until_any%s (%s): %zu, expected SIZE_MAX", f->name, what, how, r);
        r = call_some(&s, 0, ivars, nel, ix, st);
        CHECK(r == 0, "%s test_some%s (%s): %zu, expected 0", f->name, what, how, r);
        r = call_some(&s, 1, ivars, nel, ix, st);
        CHECK(r == 0, "%s wait_until_some%s (%s): %zu, expected 0", f->name, what, how, r);
        a = call_all(&s, 0, ivars, nel, st);
        CHECK(a == 1, "%s test_all%s (%s): %d, expected 1", f->name, what, how, a);
        call_all(&s, 1, ivars, nel, st); /* must return */
    }
}

/* ---- C11 generic selections ------------------------------------------------------------------- */
static int g_gen_int[4];
static void test_generic(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    long long *ll = shmem_malloc(4 * sizeof *ll);
    unsigned short us[2] = {5, 9};
    for (int i = 0; i < 4; i++) ll[i] = -3 - i, g_gen_int[i] = 0;
    int st[4] = {0, 0, 1, 0};
    size_t ix[4];
    CHECK(shmem_test(&us[0], SHMEM_CMP_LT, (unsigned short)6) == 1, "generic shmem_test ushort");
    CHECK(shmem_test(&ll[1], SHMEM_CMP_GE, -4LL) == 1, "generic shmem_test longlong");
    CHECK(shmem_test_any(ll, 4, st, SHMEM_CMP_LT, -5LL) == 3, "generic shmem_test_any longlong");
    CHECK(shmem_test_some(ll, 4, ix, st, SHMEM_CMP_GT, -6LL) == 2, "generic shmem_test_some longlong");
    CHECK(shmem_test_all(us, 2, NULL, SHMEM_CMP_NE, (unsigned short)7) == 1, "generic shmem_test_all ushort");
    long long lv[4] = {-3, -4, -100, -6};
    CHECK(shmem_test_all_vector(ll, 4, st, SHMEM_CMP_EQ, lv) == 1, "generic shmem_test_all_vector longlong");
    CHECK(shmem_test_any_vector(ll, 4, st, SHMEM_CMP_GT, lv) == SIZE_MAX, "generic shmem_test_any_vector");
    CHECK(shmem_test_some_vector(ll, 4, ix, NULL, SHMEM_CMP_LE, lv) == 3, "generic shmem_test_some_vector");
    shmem_barrier_all();
    /* the left neighbour sets my g_gen_int[1], then [3] */
    int right = (me + 1) % n;
    shmem_int_p(&g_gen_int[1], 11, right);
    shmem_fence();
    shmem_int_atomic_set(&g_gen_int[3], -2, right);
    shmem_quiet();
    shmem_wait_until(&g_gen_int[1], SHMEM_CMP_EQ, 11);
    shmem_wait_until_all(g_gen_int, 4, (int[]){1, 0, 1, 0}, SHMEM_CMP_NE, 0);
    CHECK(g_gen_int[1] == 11 && g_gen_int[3] == -2, "generic shmem_wait_until_all: %d %d", g_gen_int[1],
          g_gen_int[3]);
    CHECK(shmem_wait_until_any(g_gen_int, 4, NULL, SHMEM_CMP_LT, 0) == 3, "generic shmem_wait_until_any");
    CHECK(shmem_wait_until_some(g_gen_int, 4, ix, NULL, SHMEM_CMP_NE, 0) == 2 &&
              ((ix[0] == 1 && ix[1] == 3) || (ix[0] == 3 && ix[1] == 1)),
          "generic shmem_wait_until_some");
    int iv[4] = {0, 11, 0, -2};
    shmem_wait_until_all_vector(g_gen_int, 4, NULL, SHMEM_CMP_EQ, iv);
    size_t any = shmem_wait_until_any_vector(g_gen_int, 4, (int[]){1, 0, 0, 0}, SHMEM_CMP_EQ, iv);
    CHECK(any >= 1 && any <= 3, "generic shmem_wait_until_any_vector: %zu", any);
    CHECK(shmem_wait_until_some_vector(g_gen_int, 4, ix, NULL, SHMEM_CMP_GE, iv) == 4,
          "generic shmem_wait_until_some_vector");
    shmem_barrier_all();
    shmem_free(ll);
}

static alignas(8) unsigned char g_ivars[M * 8];

int main(void)
{
    shmem_init();
    test_seed();
    void *h_ivars = shmem_malloc(M * 8);
    for (size_t fam = 0; fam < NFAMILIES; fam++) {
        const family_t *f = &families[fam];
        for (int mem = 0; mem < 2; mem++) {
            void *ivars = mem ? (void *)g_ivars : h_ivars;
            test_test(f, fam, mem, ivars);
            shmem_barrier_all();
            test_wait_until(f, fam, mem, ivars);
            int round = 0;
            for (int vector = 0; vector < 2; vector++)
                for (int kind = ANY; kind <= ALL; kind++) {
                    test_set(f, fam, mem, ivars, kind, vector, round++);
                    shmem_barrier_all();
                }
        }
    }
    shmem_free(h_ivars);
    test_generic();
    int status = test_finish("p2p_sync");
    shmem_finalize();
    return status;
}
