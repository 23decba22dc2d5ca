/* The C11 type-generic interfaces of shmem.h against the specification's tables: every generic
 * name is called with every type its table lists (the fixed-width and size_t/ptrdiff_t names
 * included, generated from the full tables of nodeshm_typetables.h, which are the
 * specification's), with and without a leading context where the specification has that form;
 * the value-returning ones are checked at compile time to return exactly that type.  Then a few
 * run-time checks that the selection reaches the right typed routine: the values of bitwise
 * reductions on int8/16/32/64_t and of puts, atomics and waits on fixed-width types, with
 * sentinels past every array (a routine of another width would miss or overrun them).
 *
 * tests/generic11.cmake compiles this file with -std=c11 -Werror (and checks that types outside a
 * table are rejected: GENERIC11_REJECT=k); it is also a program run on 1 to 4 PEs. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <complex.h>
#include <string.h>

/* ---- every family x every type of its table (compiled; run once with count 1) ---------------- */
static int me, npes, right;
static shmem_ctx_t ctx;
static uint64_t sig;
static void *coll_d, *coll_s; /* collectives' buffers (shmem_malloc: no declared type) */

#define SAME_TYPE(E, T) _Generic((E), T : 1, default : 0)

#define RMA_ALL(T, N, _)                                                                           \
    {                                                                                              \
        static T d[4], s[4];                                                                       \
        shmem_put(d, s, 1, right); shmem_put(ctx, d, s, 1, right);                                 \
        shmem_get(d, s, 1, right); shmem_get(ctx, d, s, 1, right);                                 \
        shmem_put_nbi(d, s, 1, right); shmem_put_nbi(ctx, d, s, 1, right);                         \
        shmem_get_nbi(d, s, 1, right); shmem_get_nbi(ctx, d, s, 1, right);                         \
        shmem_p(d, s[0], right); shmem_p(ctx, d, s[0], right);                                     \
        d[1] = shmem_g(s, right); d[1] = shmem_g(ctx, s, right);                                   \
        _Static_assert(SAME_TYPE(shmem_g((const T *)s, 0), T), "shmem_g on " #T);                  \
        _Static_assert(SAME_TYPE(shmem_g(ctx, (const T *)s, 0), T), "shmem_g(ctx) on " #T);        \
        shmem_iput(d, s, 2, 1, 2, right); shmem_iput(ctx, d, s, 2, 1, 2, right);                   \
        shmem_iget(d, s, 2, 1, 2, right); shmem_iget(ctx, d, s, 2, 1, 2, right);                   \
        shmem_ibput(d, s, 2, 2, 1, 2, right); shmem_ibput(ctx, d, s, 2, 2, 1, 2, right);           \
        shmem_ibget(d, s, 2, 2, 1, 2, right); shmem_ibget(ctx, d, s, 2, 2, 1, 2, right);           \
        shmem_put_signal(d, s, 1, &sig, 1, SHMEM_SIGNAL_ADD, right);                               \
        shmem_put_signal(ctx, d, s, 1, &sig, 1, SHMEM_SIGNAL_ADD, right);                          \
        shmem_put_signal_nbi(d, s, 1, &sig, 1, SHMEM_SIGNAL_ADD, right);                           \
        shmem_put_signal_nbi(ctx, d, s, 1, &sig, 1, SHMEM_SIGNAL_ADD, right);                      \
        shmem_quiet();                                                                             \
        shmem_ctx_quiet(ctx);                                                                      \
        shmem_broadcast(SHMEM_TEAM_WORLD, (T *)coll_d, (const T *)coll_s, 1, 0);                   \
        shmem_collect(SHMEM_TEAM_WORLD, (T *)coll_d, (const T *)coll_s, 1);                        \
        shmem_fcollect(SHMEM_TEAM_WORLD, (T *)coll_d, (const T *)coll_s, 1);                       \
        shmem_alltoall(SHMEM_TEAM_WORLD, (T *)coll_d, (const T *)coll_s, 1);                       \
        shmem_alltoalls(SHMEM_TEAM_WORLD, (T *)coll_d, (const T *)coll_s, 1, 1, 1);                \
    }

/* the extended AMOs (fetch, set, swap, and their nbi forms) */
#define AMO_EXT_ALL(T, N, _)                                                                       \
    {                                                                                              \
        static T a, f;                                                                             \
        f = shmem_atomic_fetch(&a, right); f = shmem_atomic_fetch(ctx, &a, right);                 \
        _Static_assert(SAME_TYPE(shmem_atomic_fetch((const T *)&a, 0), T), "fetch " #T);           \
        _Static_assert(SAME_TYPE(shmem_atomic_swap(ctx, &a, (T)0, 0), T), "swap(ctx) " #T);        \
        shmem_atomic_set(&a, (T)1, right); shmem_atomic_set(ctx, &a, (T)1, right);                 \
        f = shmem_atomic_swap(&a, (T)1, right); f = shmem_atomic_swap(ctx, &a, (T)1, right);       \
        shmem_atomic_fetch_nbi(&f, &a, right); shmem_atomic_fetch_nbi(ctx, &f, &a, right);         \
        shmem_atomic_swap_nbi(&f, &a, (T)1, right); shmem_atomic_swap_nbi(ctx, &f, &a, (T)1, right); \
        shmem_quiet();                                                                             \
        shmem_ctx_quiet(ctx);                                                                      \
    }

#define AMO_STD_ALL(T, N, _)                                                                       \
    {                                                                                              \
        static T a, f;                                                                             \
        f = shmem_atomic_compare_swap(&a, (T)0, (T)0, right);                                      \
        f = shmem_atomic_compare_swap(ctx, &a, (T)0, (T)0, right);                                 \
        _Static_assert(SAME_TYPE(shmem_atomic_compare_swap(&a, (T)0, (T)0, 0), T), "cswap " #T);   \
        _Static_assert(SAME_TYPE(shmem_atomic_fetch_add(ctx, &a, (T)0, 0), T), "fadd(ctx) " #T);   \
        f = shmem_atomic_fetch_inc(&a, right); f = shmem_atomic_fetch_inc(ctx, &a, right);         \
        shmem_atomic_inc(&a, right); shmem_atomic_inc(ctx, &a, right);                             \
        f = shmem_atomic_fetch_add(&a, (T)1, right); f = shmem_atomic_fetch_add(ctx, &a, (T)1, right); \
        shmem_atomic_add(&a, (T)1, right); shmem_atomic_add(ctx, &a, (T)1, right);                 \
        shmem_atomic_compare_swap_nbi(&f, &a, (T)0, (T)0, right);                                  \
        shmem_atomic_compare_swap_nbi(ctx, &f, &a, (T)0, (T)0, right);                             \
        shmem_atomic_fetch_inc_nbi(&f, &a, right); shmem_atomic_fetch_inc_nbi(ctx, &f, &a, right); \
        shmem_atomic_fetch_add_nbi(&f, &a, (T)1, right);                                           \
        shmem_atomic_fetch_add_nbi(ctx, &f, &a, (T)1, right);                                      \
        shmem_quiet();                                                                             \
        shmem_ctx_quiet(ctx);                                                                      \
    }

#define AMO_BIT_ALL(T, N, _)                                                                       \
    {                                                                                              \
        static T a, f;                                                                             \
        f = shmem_atomic_fetch_and(&a, (T)1, right); f = shmem_atomic_fetch_and(ctx, &a, (T)1, right); \
        f = shmem_atomic_fetch_or(&a, (T)1, right); f = shmem_atomic_fetch_or(ctx, &a, (T)1, right); \
        f = shmem_atomic_fetch_xor(&a, (T)1, right); f = shmem_atomic_fetch_xor(ctx, &a, (T)1, right); \
        _Static_assert(SAME_TYPE(shmem_atomic_fetch_xor(ctx, &a, (T)0, 0), T), "fxor(ctx) " #T);   \
        shmem_atomic_and(&a, (T)1, right); shmem_atomic_and(ctx, &a, (T)1, right);                 \
        shmem_atomic_or(&a, (T)1, right); shmem_atomic_or(ctx, &a, (T)1, right);                   \
        shmem_atomic_xor(&a, (T)1, right); shmem_atomic_xor(ctx, &a, (T)1, right);                 \
        shmem_atomic_fetch_and_nbi(&f, &a, (T)1, right); shmem_atomic_fetch_and_nbi(ctx, &f, &a, (T)1, right); \
        shmem_atomic_fetch_or_nbi(&f, &a, (T)1, right); shmem_atomic_fetch_or_nbi(ctx, &f, &a, (T)1, right); \
        shmem_atomic_fetch_xor_nbi(&f, &a, (T)1, right); shmem_atomic_fetch_xor_nbi(ctx, &f, &a, (T)1, right); \
        shmem_quiet();                                                                             \
        shmem_ctx_quiet(ctx);                                                                      \
    }

/* waits and tests on my own variables, conditions already true (nothing blocks) */
#define P2P_ALL(T, N, _)                                                                           \
    {                                                                                              \
        static T v[2];                                                                             \
        T cv[2] = {v[0], v[1]};                                                                    \
        int st[2] = {0, 0};                                                                        \
        size_t idx[2];                                                                             \
        shmem_wait_until(v, SHMEM_CMP_EQ, v[0]);                                                   \
        shmem_wait_until_all(v, 2, st, SHMEM_CMP_GE, v[0] < v[1] ? v[0] : v[1]);                   \
        (void)shmem_wait_until_any(v, 2, st, SHMEM_CMP_EQ, v[0]);                                  \
        (void)shmem_wait_until_some(v, 2, idx, st, SHMEM_CMP_EQ, v[0]);                            \
        shmem_wait_until_all_vector(v, 2, st, SHMEM_CMP_EQ, cv);                                   \
        (void)shmem_wait_until_any_vector(v, 2, st, SHMEM_CMP_EQ, cv);                             \
        (void)shmem_wait_until_some_vector(v, 2, idx, st, SHMEM_CMP_EQ, cv);                       \
        CHECK(shmem_test(v, SHMEM_CMP_EQ, v[0]) == 1, "test " #T);                                 \
        CHECK(shmem_test_all(v, 2, st, SHMEM_CMP_EQ, v[0]) == 1, "test_all " #T);                  \
        CHECK(shmem_test_any(v, 2, st, SHMEM_CMP_EQ, v[0]) < 2, "test_any " #T);                   \
        CHECK(shmem_test_some(v, 2, idx, st, SHMEM_CMP_EQ, v[0]) == 2, "test_some " #T);           \
        CHECK(shmem_test_all_vector(v, 2, st, SHMEM_CMP_EQ, cv) == 1, "test_all_vector " #T);      \
        CHECK(shmem_test_any_vector(v, 2, st, SHMEM_CMP_EQ, cv) < 2, "test_any_vector " #T);       \
        CHECK(shmem_test_some_vector(v, 2, idx, st, SHMEM_CMP_EQ, cv) == 2, "test_some_vector " #T); \
    }

#define REDUCE_ALL(T, N, OP)                                                                       \
    {                                                                                              \
        static T d[2], s[2];                                                                       \
        CHECK(shmem_##OP##_reduce(SHMEM_TEAM_WORLD, d, s, 2) == 0, #OP "_reduce " #T);             \
    }
#define SCAN_ALL(T, N, _)                                                                          \
    {                                                                                              \
        static T d[2], s[2];                                                                       \
        CHECK(shmem_sum_inscan(SHMEM_TEAM_WORLD, d, s, 2) == 0, "sum_inscan " #T);                 \
        CHECK(shmem_sum_exscan(SHMEM_TEAM_WORLD, d, s, 2) == 0, "sum_exscan " #T);                 \
    }

static void every_generic(void)
{
    NODESHM_RMA_TYPES(RMA_ALL, _)
    NODESHM_AMO_EXTENDED_TYPES(AMO_EXT_ALL, _)
    NODESHM_AMO_STANDARD_TYPES(AMO_STD_ALL, _)
    NODESHM_AMO_BITWISE_TYPES(AMO_BIT_ALL, _)
    NODESHM_P2P_TYPES(P2P_ALL, _)
    NODESHM_REDUCE_BITWISE_TYPES(REDUCE_ALL, and)
    NODESHM_REDUCE_BITWISE_TYPES(REDUCE_ALL, or)
    NODESHM_REDUCE_BITWISE_TYPES(REDUCE_ALL, xor)
    NODESHM_REDUCE_MINMAX_TYPES(REDUCE_ALL, max)
    NODESHM_REDUCE_MINMAX_TYPES(REDUCE_ALL, min)
    NODESHM_REDUCE_MINMAX_TYPES(REDUCE_ALL, sum)
    NODESHM_REDUCE_MINMAX_TYPES(REDUCE_ALL, prod)
    NODESHM_REDUCE_COMPLEX_TYPES(REDUCE_ALL, sum)
    NODESHM_REDUCE_COMPLEX_TYPES(REDUCE_ALL, prod)
    NODESHM_REDUCE_MINMAX_TYPES(SCAN_ALL, _)
    NODESHM_REDUCE_COMPLEX_TYPES(SCAN_ALL, _)
    shmem_barrier_all();
}

/* ---- hand-written spot checks: the fixed-width names, with values ------------------------------ */
#define NBIT 37
static int8_t s8[NBIT + 1], d8[NBIT + 1];
static int16_t s16[NBIT + 1], d16[NBIT + 1];
static int32_t s32[NBIT + 1], d32[NBIT + 1];
static int64_t s64[NBIT + 1], d64[NBIT + 1];

/* dest = OP over every PE's source via the generic name, against a local reference; the element
 * past the end must keep its sentinel */
#define BITWISE_CHECK(T, S, D, OP, OPNAME, KK)                                                     \
    do {                                                                                           \
        int K = (KK);                                                                              \
        for (int i = 0; i < NBIT; i++) S[i] = (T)test_value(me, K, (uint64_t)i);                   \
        D[NBIT] = (T)-99;                                                                          \
        CHECK(shmem_##OPNAME##_reduce(SHMEM_TEAM_WORLD, D, S, NBIT) == 0, #OPNAME " " #T);         \
        int bad_ = -1;                                                                             \
        for (int i = 0; i < NBIT && bad_ < 0; i++) {                                               \
            T r_ = (T)test_value(0, K, (uint64_t)i);                                               \
            for (int p = 1; p < npes; p++) r_ = (T)(r_ OP(T) test_value(p, K, (uint64_t)i));       \
            if (D[i] != r_) bad_ = i;                                                              \
        }                                                                                          \
        CHECK(bad_ < 0 && D[NBIT] == (T)-99, "shmem_" #OPNAME "_reduce on " #T                     \
              ": first bad element %d, sentinel %lld", bad_, (long long)D[NBIT]);                  \
    } while (0)

static void spot_checks(void)
{
    int k = 100;
    BITWISE_CHECK(int8_t, s8, d8, &, and, k++);
    BITWISE_CHECK(int8_t, s8, d8, |, or, k++);
    BITWISE_CHECK(int8_t, s8, d8, ^, xor, k++);
    BITWISE_CHECK(int16_t, s16, d16, &, and, k++);
    BITWISE_CHECK(int16_t, s16, d16, |, or, k++);
    BITWISE_CHECK(int16_t, s16, d16, ^, xor, k++);
    BITWISE_CHECK(int32_t, s32, d32, &, and, k++);
    BITWISE_CHECK(int32_t, s32, d32, |, or, k++);
    BITWISE_CHECK(int32_t, s32, d32, ^, xor, k++);
    BITWISE_CHECK(int64_t, s64, d64, &, and, k++);
    BITWISE_CHECK(int64_t, s64, d64, |, or, k++);
    BITWISE_CHECK(int64_t, s64, d64, ^, xor, k++);
    /* the typed names they must be: compile-time */
    _Static_assert(SAME_TYPE(shmem_g(s8, 0), int8_t) && SAME_TYPE(shmem_g(s16, 0), int16_t) &&
                       SAME_TYPE(shmem_g(s64, 0), int64_t),
                   "shmem_g on fixed-width types");
    _Static_assert(SAME_TYPE(shmem_atomic_fetch_and(&d32[0], 0, 0), int32_t) &&
                       SAME_TYPE(shmem_atomic_fetch_xor(ctx, &d64[0], 0, 0), int64_t),
                   "bitwise AMOs on int32_t / int64_t");
    shmem_barrier_all();

    /* put of int16_t through the context form: exactly NBIT elements land on the right PE */
    for (int i = 0; i < NBIT; i++) s16[i] = (int16_t)test_value(me, k, (uint64_t)i);
    d16[NBIT] = -99;
    shmem_barrier_all();
    shmem_put(ctx, d16, s16, NBIT, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    int left = (me + npes - 1) % npes, bad = -1;
    for (int i = 0; i < NBIT && bad < 0; i++)
        if (d16[i] != (int16_t)test_value(left, k, (uint64_t)i)) bad = i;
    CHECK(bad < 0 && d16[NBIT] == -99, "shmem_put(ctx) on int16_t: first bad element %d", bad);
    k++;

    /* fetching AMOs on fixed-width and size types, context and default forms */
    static int64_t a64;
    static uint32_t au32;
    static size_t asz;
    static ptrdiff_t apd;
    a64 = 0, au32 = 0, asz = 0, apd = 0;
    shmem_barrier_all();
    int64_t m64 = (int64_t)(test_value(me, k, 0) | 1);
    (void)shmem_atomic_fetch_xor(ctx, &a64, m64, right);
    shmem_atomic_add(&au32, (uint32_t)(me + 1), right);
    (void)shmem_atomic_fetch_add(ctx, &asz, (size_t)1 << 40, right);
    shmem_atomic_add(&apd, (ptrdiff_t)-(me + 1), right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(a64 == (int64_t)(test_value(left, k, 0) | 1), "fetch_xor int64_t: %lld", (long long)a64);
    CHECK(au32 == (uint32_t)(left + 1), "atomic_add uint32_t: %u", (unsigned)au32);
    CHECK(asz == (size_t)1 << 40, "fetch_add size_t: %zu", asz);
    CHECK(apd == -(ptrdiff_t)(left + 1), "atomic_add ptrdiff_t: %td", apd);
    shmem_wait_until(&asz, SHMEM_CMP_EQ, (size_t)1 << 40); /* ulong selection: must not block */
    CHECK(shmem_test(&apd, SHMEM_CMP_LT, (ptrdiff_t)0) == 1, "test on ptrdiff_t");
    shmem_barrier_all();
}

#ifdef GENERIC11_REJECT
/* Types outside a table must not compile (tests/generic11.cmake builds each case alone). */
void generic11_reject(void)
{
    static char c[2];
    static float f[2];
    static long double ld;
#if GENERIC11_REJECT == 1
    shmem_and_reduce(SHMEM_TEAM_WORLD, c, c, 1); /* char: MAX, MIN, SUM, PROD only */
#elif GENERIC11_REJECT == 2
    shmem_xor_reduce(SHMEM_TEAM_WORLD, f, f, 1);
#elif GENERIC11_REJECT == 3
    shmem_atomic_and(f, f[0], 0);
#elif GENERIC11_REJECT == 4
    shmem_atomic_fetch_add(&ld, ld, 0); /* long double: no AMO */
#elif GENERIC11_REJECT == 5
    shmem_wait_until(c, SHMEM_CMP_EQ, 0); /* char: no point-to-point sync */
#endif
    (void)c, (void)f, (void)ld;
}
#endif

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    test_seed();
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create");
    coll_d = shmem_malloc(sizeof(long double _Complex) * (size_t)npes);
    coll_s = shmem_malloc(sizeof(long double _Complex) * (size_t)npes);
    every_generic();
    spot_checks();
    shmem_ctx_destroy(ctx);
    shmem_free(coll_d);
    shmem_free(coll_s);
    int rc = test_finish("generic11");
    shmem_finalize();
    return rc;
}
