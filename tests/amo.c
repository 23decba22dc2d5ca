/* Atomic memory operations: every AMO family over its type table, on the symmetric heap and on
 * global variables (the symmetric data segment), with values from fresh random data.
 *
 * The tests are generated from the type tables of nodeshm_typetables.h with X-macros.  Each
 * test body names its calls through CALL_<A>(N, op), so one body serves
 *   typed    shmem_<N>_atomic_<op>          (every type of the table)
 *   generic  shmem_atomic_<op>              (C11 _Generic, the *_GENERIC_TYPES tables)
 *   dep      shmem_<N>_fadd/finc/cswap/...  (deprecated names; they have no nbi forms, so a
 *                                            blocking call stands in for those)
 *   oldswap  shmem_swap                     (untyped deprecated swap on long)
 *
 * Families and what is checked:
 *   mix     add/fetch_add/inc/fetch_inc/fetch_add_nbi/fetch_inc_nbi from all PEs to every PE's
 *           counter: exact totals; every fetched value lies between what this PE has already
 *           added and the final total.
 *   fadd    fetch_add(d) and fetch_inc from all PEs to every PE: the returned values, gathered
 *           at the target, are all distinct, are exactly {0, d, 2d, ...}, and increase per PE.
 *   cswap   compare_swap race: per round and target exactly one winner, every loser sees the
 *           winner's value, the target holds the winner's value.
 *   swap    swap chain: after random swaps the multiset {hands} + {slots} is the start one.
 *   setget  set to every PE, then fetch/fetch_nbi from every PE.
 *   bitwise and/or/xor with random masks from all PEs: the result is the combination of all
 *           masks; fetched values contain (or/and) what this PE has applied so far. */
#include "common.h"

#include <shmem.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PES 64
#define ITERS_MAX 16
enum { S_MIX, S_FADD, S_FINC, S_CSWAP, S_SWAP, S_OR, S_AND, S_XOR, S_SET, NSLOT = S_SET + MAX_PES };

static int me, npes, iters, rounds, swaps;
static uint64_t *gather; /* symmetric, MAX_PES * 2 * ITERS_MAX words */
static int stream;
static const char *where;

static int next_stream(void) { return ++stream; }
static uint64_t rv(int pe, int k, uint64_t i) { return test_value(pe, k, i); }

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- how each API flavour names an operation ----------------------------------------------- */
#define CALL_typed(N, op) shmem_##N##_atomic_##op
#define CALL_generic(N, op) shmem_atomic_##op
#define CALL_dep(N, op) DEP_##op(N)
#define DEP_add(N) shmem_##N##_add
#define DEP_inc(N) shmem_##N##_inc
#define DEP_fetch_add(N) shmem_##N##_fadd
#define DEP_fetch_inc(N) shmem_##N##_finc
#define DEP_compare_swap(N) shmem_##N##_cswap
#define DEP_swap(N) shmem_##N##_swap
#define DEP_fetch(N) shmem_##N##_fetch
#define DEP_set(N) shmem_##N##_set
#define DEP_fetch_add_nbi(N) dep_fadd_nbi_##N
#define DEP_fetch_inc_nbi(N) dep_finc_nbi_##N
#define DEP_compare_swap_nbi(N) dep_cswap_nbi_##N
#define DEP_swap_nbi(N) dep_swap_nbi_##N
#define DEP_fetch_nbi(N) dep_fetch_nbi_##N
#define CALL_oldswap(N, op) OLDSWAP_##op
#define OLDSWAP_swap shmem_swap
#define OLDSWAP_swap_nbi oldswap_nbi

#define DEFINE_DEP_SHIMS(T, N, _)                                                                  \
    static void dep_fadd_nbi_##N(T *f, T *d, T v, int pe) { *f = shmem_##N##_fadd(d, v, pe); }  \
    static void dep_finc_nbi_##N(T *f, T *d, int pe) { *f = shmem_##N##_finc(d, pe); }           \
    static void dep_cswap_nbi_##N(T *f, T *d, T c, T v, int pe) { *f = shmem_##N##_cswap(d, c, v, pe); }
NODESHM_DEPRECATED_AMO_TYPES(DEFINE_DEP_SHIMS, _)
#define DEFINE_DEP_EXT_SHIMS(T, N, _)                                                              \
    static void dep_swap_nbi_##N(T *f, T *d, T v, int pe) { *f = shmem_##N##_swap(d, v, pe); }  \
    static void dep_fetch_nbi_##N(T *f, const T *s, int pe) { *f = shmem_##N##_fetch(s, pe); }
NODESHM_DEPRECATED_AMO_EXTENDED_TYPES(DEFINE_DEP_EXT_SHIMS, _)
static void oldswap_nbi(long *f, long *d, long v, int pe) { *f = shmem_swap(d, v, pe); }

/* ---- per-type storage: heap blocks and global arrays ------------------------------------------ */
#define DECLARE_STORAGE(T, N, _)                                                                   \
    static T glob_##N[NSLOT];                                                                      \
    static T *heap_##N;
NODESHM_AMO_EXTENDED_TYPES(DECLARE_STORAGE, _)

/* ---- mix ---------------------------------------------------------------------------------- */
static int mix_op(int p, int i, int t) { return (p + i + t) % 6; }
static uint64_t mix_val(int p, int k, int i, int t)
{
    int op = mix_op(p, i, t);
    return op == 2 || op == 3 || op == 5 ? 1 : 1 + rv(p, k, (uint64_t)i * MAX_PES + t) % 1000;
}
static uint64_t mix_total(int k, int t)
{
    uint64_t s = 0;
    for (int p = 0; p < npes; p++)
        for (int i = 0; i < iters; i++) s += mix_val(p, k, i, t);
    return s;
}

#define DEFINE_MIX(T, N, A)                                                                        \
    static void mix_##A##_##N(T *x)                                                                \
    {                                                                                              \
        int k = next_stream();                                                                     \
        uint64_t total[MAX_PES], mine[MAX_PES] = {0};                                              \
        for (int t = 0; t < npes; t++) total[t] = mix_total(k, t);                                \
        x[S_MIX] = 0;                                                                              \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < iters; i++)                                                            \
            for (int j = 0; j < npes; j++) {                                                       \
                int t = (me + j) % npes, fetched = 1;                                              \
                T v = (T)mix_val(me, k, i, t), old = 0;                                            \
                switch (mix_op(me, i, t)) {                                                        \
                case 0: CALL_##A(N, add)(&x[S_MIX], v, t); fetched = 0; break;                     \
                case 1: old = CALL_##A(N, fetch_add)(&x[S_MIX], v, t); break;                      \
                case 2: CALL_##A(N, inc)(&x[S_MIX], t); fetched = 0; break;                        \
                case 3: old = CALL_##A(N, fetch_inc)(&x[S_MIX], t); break;                         \
                case 4: CALL_##A(N, fetch_add_nbi)(&old, &x[S_MIX], v, t); shmem_quiet(); break;   \
                default: CALL_##A(N, fetch_inc_nbi)(&old, &x[S_MIX], t); shmem_quiet(); break;    \
                }                                                                                  \
                if (fetched) {                                                                     \
                    CHECK((uint64_t)old >= mine[t] && (uint64_t)old + (uint64_t)v <= total[t],     \
                          "%s %s %s: fetched %llu from PE %d, outside [%llu, %llu]", #A, #N,       \
                          where, (unsigned long long)old, t, (unsigned long long)mine[t],          \
                          (unsigned long long)(total[t] - (uint64_t)v));                           \
                    mine[t] += (uint64_t)v;                                                        \
                }                                                                                  \
            }                                                                                      \
        shmem_barrier_all();                                                                       \
        CHECK(x[S_MIX] == (T)total[me], "%s %s %s: counter %llu, expected %llu", #A, #N, where,   \
              (unsigned long long)x[S_MIX], (unsigned long long)total[me]);                        \
        int peer = (me + 1) % npes;                                                                \
        T got = CALL_##A(N, fetch)(&x[S_MIX], peer);                                               \
        CHECK(got == (T)total[peer], "%s %s %s: PE %d's counter %llu, expected %llu", #A, #N,      \
              where, peer, (unsigned long long)got, (unsigned long long)total[peer]);              \
        shmem_barrier_all();                                                                       \
    }

/* ---- fadd: distinct fetched values ----------------------------------------------------------- */
/* Checks the gathered values at this PE: chunk p of each half holds what PE p fetched. */
static void check_fetched_set(const char *what, uint64_t d)
{
    uint64_t all[2][MAX_PES * ITERS_MAX];
    size_t m = (size_t)npes * iters;
    for (int p = 0; p < npes; p++)
        for (int h = 0; h < 2; h++)
            for (int i = 0; i < iters; i++) {
                uint64_t v = gather[(size_t)p * 2 * iters + (size_t)h * iters + i];
                all[h][(size_t)p * iters + i] = v;
                if (i > 0) {
                    uint64_t prev = gather[(size_t)p * 2 * iters + (size_t)h * iters + i - 1];
                    CHECK(v > prev, "%s %s: PE %d's %s results not increasing: %llu after %llu",
                          what, where, p, h ? "fetch_inc" : "fetch_add", (unsigned long long)v,
                          (unsigned long long)prev);
                }
            }
    for (int h = 0; h < 2; h++) {
        qsort(all[h], m, sizeof(uint64_t), cmp_u64);
        uint64_t step = h ? 1 : d;
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < m; i++)
            if (all[h][i] != i * step && bad++ == 0) first = i;
        CHECK(bad == 0, "%s %s: %s results are not {0, %llu, ..., %llu}: %zu wrong, first #%zu = %llu",
              what, where, h ? "fetch_inc" : "fetch_add", (unsigned long long)step,
              (unsigned long long)((m - 1) * step), bad, first, (unsigned long long)all[h][first]);
    }
}

#define DEFINE_FADD(T, N, A)                                                                       \
    static void fadd_##A##_##N(T *x)                                                               \
    {                                                                                              \
        int k = next_stream();                                                                     \
        T d = (T)(1 + rv(0, k, 0) % 7), ra[MAX_PES][ITERS_MAX], rb[MAX_PES][ITERS_MAX];            \
        x[S_FADD] = 0;                                                                             \
        x[S_FINC] = 0;                                                                             \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < iters; i++) {                                                          \
            for (int j = 0; j < npes; j++) { /* each target once per round */                     \
                int t = (me + j) % npes;                                                           \
                if (i % 2) ra[t][i] = CALL_##A(N, fetch_add)(&x[S_FADD], d, t);                    \
                else CALL_##A(N, fetch_add_nbi)(&ra[t][i], &x[S_FADD], d, t);                      \
                if (i % 3) rb[t][i] = CALL_##A(N, fetch_inc)(&x[S_FINC], t);                       \
                else CALL_##A(N, fetch_inc_nbi)(&rb[t][i], &x[S_FINC], t);                         \
            }                                                                                      \
            shmem_quiet(); /* completes this round's nbi fetches */                                \
        }                                                                                          \
        for (int t = 0; t < npes; t++) {                                                           \
            uint64_t buf[2 * ITERS_MAX];                                                           \
            for (int i = 0; i < iters; i++) {                                                      \
                buf[i] = (uint64_t)ra[t][i];                                                       \
                buf[iters + i] = (uint64_t)rb[t][i];                                               \
            }                                                                                      \
            shmem_uint64_put(&gather[(size_t)me * 2 * iters], buf, 2 * (size_t)iters, t);          \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        check_fetched_set(#A " " #N, (uint64_t)d);                                                 \
        CHECK(x[S_FADD] == (T)((uint64_t)npes * iters * (uint64_t)d) &&                            \
                  x[S_FINC] == (T)((uint64_t)npes * iters),                                        \
              "%s %s %s: fetch_add counter %llu (expected %llu), fetch_inc counter %llu "          \
              "(expected %llu)", #A, #N, where, (unsigned long long)x[S_FADD],                     \
              (unsigned long long)((uint64_t)npes * iters * (uint64_t)d),                          \
              (unsigned long long)x[S_FINC], (unsigned long long)((uint64_t)npes * iters));        \
        shmem_barrier_all();                                                                       \
    }

/* ---- cswap race ------------------------------------------------------------------------------ */
static uint64_t cswap_base(int pe, int k, int r) { return rv(pe, k, (uint64_t)r) % 1000000; }

/* Target side of one round: gather[p] is what PE p's compare_swap returned here. */
static void check_cswap_round(const char *what, uint64_t base, uint64_t now, int r)
{
    int winners = 0, winner = -1;
    for (int p = 0; p < npes; p++)
        if (gather[p] == base) winners++, winner = p;
    CHECK(winners == 1, "%s %s: round %d: %d winners at PE %d", what, where, r, winners, me);
    if (winners != 1) return;
    uint64_t won = base + 1 + (uint64_t)winner;
    for (int p = 0; p < npes; p++)
        CHECK(p == winner || gather[p] == won, "%s %s: round %d: loser PE %d saw %llu, winner's value %llu",
              what, where, r, p, (unsigned long long)gather[p], (unsigned long long)won);
    CHECK(now == won, "%s %s: round %d: value %llu after the race, winner PE %d wrote %llu", what,
          where, r, (unsigned long long)now, winner, (unsigned long long)won);
}

#define DEFINE_CSWAP(T, N, A)                                                                      \
    static void cswap_##A##_##N(T *x)                                                              \
    {                                                                                              \
        int k = next_stream();                                                                     \
        for (int r = 0; r < rounds; r++) {                                                         \
            x[S_CSWAP] = (T)cswap_base(me, k, r);                                                  \
            shmem_barrier_all();                                                                   \
            T old[MAX_PES];                                                                        \
            for (int j = 0; j < npes; j++) {                                                       \
                int t = (me + j) % npes;                                                           \
                T base = (T)cswap_base(t, k, r), cand = (T)(cswap_base(t, k, r) + 1 + (uint64_t)me); \
                if (r % 2) old[t] = CALL_##A(N, compare_swap)(&x[S_CSWAP], base, cand, t);         \
                else CALL_##A(N, compare_swap_nbi)(&old[t], &x[S_CSWAP], base, cand, t);           \
            }                                                                                      \
            shmem_quiet();                                                                         \
            for (int t = 0; t < npes; t++) shmem_uint64_p(&gather[me], (uint64_t)old[t], t);       \
            shmem_barrier_all();                                                                   \
            check_cswap_round(#A " " #N, cswap_base(me, k, r), (uint64_t)x[S_CSWAP], r);           \
            shmem_barrier_all();                                                                   \
        }                                                                                          \
    }

/* ---- swap chain -------------------------------------------------------------------------------- */
/* Distinct for every (pe, w), exact in float: value % (2 npes) = 2 pe + w. */
static uint64_t swap_val(int pe, int k, int w)
{
    return (rv(pe, k, (uint64_t)w) % 100000) * 2 * (uint64_t)npes + 2 * (uint64_t)pe + (uint64_t)w;
}

static void check_swap_chain(const char *what, int k)
{
    uint64_t want[2 * MAX_PES];
    for (int p = 0; p < npes; p++) {
        want[2 * p] = swap_val(p, k, 0);
        want[2 * p + 1] = swap_val(p, k, 1);
    }
    qsort(want, 2 * (size_t)npes, sizeof(uint64_t), cmp_u64);
    qsort(gather, 2 * (size_t)npes, sizeof(uint64_t), cmp_u64);
    size_t bad = 0, first = 0;
    for (int i = 0; i < 2 * npes; i++)
        if (gather[i] != want[i] && bad++ == 0) first = (size_t)i;
    CHECK(bad == 0, "%s %s: values not conserved by swaps: %zu differ, first #%zu: %llu, expected %llu",
          what, where, bad, first, (unsigned long long)gather[first], (unsigned long long)want[first]);
}

#define DEFINE_SWAP(T, N, A)                                                                       \
    static void swap_##A##_##N(T *x)                                                               \
    {                                                                                              \
        int k = next_stream();                                                                     \
        T hand = (T)swap_val(me, k, 1);                                                            \
        x[S_SWAP] = (T)swap_val(me, k, 0);                                                         \
        shmem_barrier_all();                                                                       \
        for (int s = 0; s < swaps; s++) {                                                          \
            int t = (int)(rv(me, k, 1000 + (uint64_t)s) % (uint64_t)npes);                        \
            if (s % 2) {                                                                           \
                hand = CALL_##A(N, swap)(&x[S_SWAP], hand, t);                                     \
            } else {                                                                               \
                T got;                                                                             \
                CALL_##A(N, swap_nbi)(&got, &x[S_SWAP], hand, t);                                  \
                shmem_quiet();                                                                     \
                hand = got;                                                                        \
            }                                                                                      \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        uint64_t mine[2] = {(uint64_t)hand, (uint64_t)x[S_SWAP]};                                  \
        shmem_uint64_put(&gather[2 * me], mine, 2, 0);                                             \
        shmem_barrier_all();                                                                       \
        if (me == 0) check_swap_chain(#A " " #N, k);                                               \
        shmem_barrier_all();                                                                       \
    }

/* ---- set / fetch ------------------------------------------------------------------------------- */
static uint64_t set_val(int p, int k, int t) { return rv(p, k, (uint64_t)t) % 1000000; }

#define DEFINE_SETGET(T, N, A)                                                                     \
    static void setget_##A##_##N(T *x)                                                             \
    {                                                                                              \
        int k = next_stream();                                                                     \
        for (int p = 0; p < npes; p++) x[S_SET + p] = (T)0;                                        \
        shmem_barrier_all();                                                                       \
        for (int j = 0; j < npes; j++) {                                                           \
            int t = (me + j) % npes;                                                               \
            CALL_##A(N, set)(&x[S_SET + me], (T)set_val(me, k, t), t);                             \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        for (int p = 0; p < npes; p++)                                                             \
            CHECK(x[S_SET + p] == (T)set_val(p, k, me), "%s %s %s: slot %d is %llu, PE %d set %llu", \
                  #A, #N, where, p, (unsigned long long)x[S_SET + p], p,                           \
                  (unsigned long long)set_val(p, k, me));                                          \
        T nb[MAX_PES];                                                                             \
        for (int j = 0; j < npes; j++) { /* from every PE: the slot of a random writer */          \
            int t = (me + j) % npes, p = (int)(rv(me, k, 5000 + (uint64_t)t) % (uint64_t)npes);    \
            T got = CALL_##A(N, fetch)(&x[S_SET + p], t);                                          \
            CHECK(got == (T)set_val(p, k, t), "%s %s %s: fetch of PE %d slot %d: %llu, expected %llu", \
                  #A, #N, where, t, p, (unsigned long long)got, (unsigned long long)set_val(p, k, t)); \
            CALL_##A(N, fetch_nbi)(&nb[t], &x[S_SET + me], t);                                     \
        }                                                                                          \
        shmem_quiet();                                                                             \
        for (int t = 0; t < npes; t++)                                                             \
            CHECK(nb[t] == (T)set_val(me, k, t), "%s %s %s: fetch_nbi of PE %d: %llu, expected %llu", \
                  #A, #N, where, t, (unsigned long long)nb[t], (unsigned long long)set_val(me, k, t)); \
        shmem_barrier_all();                                                                       \
    }

/* ---- bitwise ----------------------------------------------------------------------------------- */
static uint64_t mask_or(int p, int k, int i, int t)
{
    uint64_t j = ((uint64_t)i * MAX_PES + (uint64_t)t) * 8;
    return rv(p, k, j) & rv(p, k, j + 1) & rv(p, k, j + 2); /* sparse ones */
}
static uint64_t mask_and(int p, int k, int i, int t)
{
    uint64_t j = ((uint64_t)i * MAX_PES + (uint64_t)t) * 8 + 3;
    return ~(rv(p, k, j) & rv(p, k, j + 1) & rv(p, k, j + 2)); /* sparse zeros */
}
static uint64_t mask_xor(int p, int k, int i, int t)
{
    return rv(p, k, ((uint64_t)i * MAX_PES + (uint64_t)t) * 8 + 6);
}
static void bitwise_expected(int k, int t, uint64_t out[3])
{
    out[0] = rv(t, k, 1u << 30);
    out[1] = rv(t, k, (1u << 30) + 1);
    out[2] = rv(t, k, (1u << 30) + 2);
    for (int p = 0; p < npes; p++)
        for (int i = 0; i < iters; i++) {
            out[0] |= mask_or(p, k, i, t);
            out[1] &= mask_and(p, k, i, t);
            out[2] ^= mask_xor(p, k, i, t);
        }
}

#define DEFINE_BITWISE(T, N, A)                                                                    \
    static void bitwise_##A##_##N(T *x)                                                            \
    {                                                                                              \
        int k = next_stream();                                                                     \
        uint64_t acc_or[MAX_PES], acc_and[MAX_PES];                                                \
        x[S_OR] = (T)rv(me, k, 1u << 30);                                                          \
        x[S_AND] = (T)rv(me, k, (1u << 30) + 1);                                                   \
        x[S_XOR] = (T)rv(me, k, (1u << 30) + 2);                                                   \
        for (int t = 0; t < npes; t++) acc_or[t] = 0, acc_and[t] = ~(uint64_t)0;                   \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < iters; i++) {                                                          \
            T nbo[MAX_PES], nba[MAX_PES], nbx[MAX_PES];                                            \
            for (int j = 0; j < npes; j++) {                                                       \
                int t = (me + j) % npes;                                                           \
                T mo = (T)mask_or(me, k, i, t), ma = (T)mask_and(me, k, i, t);                     \
                T mx = (T)mask_xor(me, k, i, t);                                                   \
                switch (i % 3) {                                                                   \
                case 0:                                                                            \
                    CALL_##A(N, or)(&x[S_OR], mo, t);                                              \
                    CALL_##A(N, and)(&x[S_AND], ma, t);                                            \
                    CALL_##A(N, xor)(&x[S_XOR], mx, t);                                            \
                    break;                                                                         \
                case 1: {                                                                          \
                    T oo = CALL_##A(N, fetch_or)(&x[S_OR], mo, t);                                 \
                    T oa = CALL_##A(N, fetch_and)(&x[S_AND], ma, t);                               \
                    (void)CALL_##A(N, fetch_xor)(&x[S_XOR], mx, t);                                \
                    CHECK((oo & (T)acc_or[t]) == (T)acc_or[t] && (oa & (T)~acc_and[t]) == 0,       \
                          "%s %s %s: fetch_or/and from PE %d: %llx/%llx lost this PE's earlier "    \
                          "masks %llx/%llx", #A, #N, where, t, (unsigned long long)oo,             \
                          (unsigned long long)oa, (unsigned long long)(T)acc_or[t],                \
                          (unsigned long long)(T)acc_and[t]);                                      \
                    acc_or[t] |= (uint64_t)mo;                                                     \
                    acc_and[t] &= (uint64_t)ma;                                                    \
                    break;                                                                         \
                }                                                                                  \
                default:                                                                           \
                    CALL_##A(N, fetch_or_nbi)(&nbo[t], &x[S_OR], mo, t);                           \
                    CALL_##A(N, fetch_and_nbi)(&nba[t], &x[S_AND], ma, t);                         \
                    CALL_##A(N, fetch_xor_nbi)(&nbx[t], &x[S_XOR], mx, t);                         \
                    break;                                                                         \
                }                                                                                  \
            }                                                                                      \
            if (i % 3 == 2) {                                                                      \
                shmem_quiet();                                                                     \
                for (int t = 0; t < npes; t++) {                                                   \
                    CHECK((nbo[t] & (T)acc_or[t]) == (T)acc_or[t] && (nba[t] & (T)~acc_and[t]) == 0, \
                          "%s %s %s: fetch_or/and_nbi from PE %d: %llx/%llx lost this PE's "        \
                          "earlier masks %llx/%llx", #A, #N, where, t, (unsigned long long)nbo[t], \
                          (unsigned long long)nba[t], (unsigned long long)(T)acc_or[t],            \
                          (unsigned long long)(T)acc_and[t]);                                      \
                    acc_or[t] |= mask_or(me, k, i, t);                                             \
                    acc_and[t] &= mask_and(me, k, i, t);                                           \
                    (void)nbx[t];                                                                  \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        uint64_t want[3];                                                                          \
        bitwise_expected(k, me, want);                                                             \
        CHECK(x[S_OR] == (T)want[0], "%s %s %s: or result %llx, expected %llx", #A, #N, where,     \
              (unsigned long long)x[S_OR], (unsigned long long)(T)want[0]);                        \
        CHECK(x[S_AND] == (T)want[1], "%s %s %s: and result %llx, expected %llx", #A, #N, where,   \
              (unsigned long long)x[S_AND], (unsigned long long)(T)want[1]);                       \
        CHECK(x[S_XOR] == (T)want[2], "%s %s %s: xor result %llx, expected %llx", #A, #N, where,   \
              (unsigned long long)x[S_XOR], (unsigned long long)(T)want[2]);                       \
        shmem_barrier_all();                                                                       \
    }

/* ---- instantiate ------------------------------------------------------------------------------- */
#define DEFINE_STANDARD(T, N, A) DEFINE_MIX(T, N, A) DEFINE_FADD(T, N, A) DEFINE_CSWAP(T, N, A)
#define DEFINE_EXTENDED(T, N, A) DEFINE_SWAP(T, N, A) DEFINE_SETGET(T, N, A)
NODESHM_AMO_STANDARD_TYPES(DEFINE_STANDARD, typed)
NODESHM_AMO_EXTENDED_TYPES(DEFINE_EXTENDED, typed)
NODESHM_AMO_BITWISE_TYPES(DEFINE_BITWISE, typed)
/* The C11 generic selections expand the *_GENERIC_TYPES tables themselves, and a macro is not
 * expanded again inside its own expansion, so the generic bodies cannot be instantiated through
 * those tables: they are listed here.  main() runs them through the tables, so a type missing
 * here fails to compile. */
DEFINE_STANDARD(int, int, generic)
DEFINE_STANDARD(long, long, generic)
DEFINE_STANDARD(long long, longlong, generic)
DEFINE_STANDARD(unsigned int, uint, generic)
DEFINE_STANDARD(unsigned long, ulong, generic)
DEFINE_STANDARD(unsigned long long, ulonglong, generic)
DEFINE_EXTENDED(float, float, generic)
DEFINE_EXTENDED(double, double, generic)
DEFINE_EXTENDED(int, int, generic)
DEFINE_EXTENDED(long, long, generic)
DEFINE_EXTENDED(long long, longlong, generic)
DEFINE_EXTENDED(unsigned int, uint, generic)
DEFINE_EXTENDED(unsigned long, ulong, generic)
DEFINE_EXTENDED(unsigned long long, ulonglong, generic)
DEFINE_BITWISE(unsigned int, uint, generic)
DEFINE_BITWISE(unsigned long, ulong, generic)
DEFINE_BITWISE(unsigned long long, ulonglong, generic)
DEFINE_BITWISE(int32_t, int32, generic)
DEFINE_BITWISE(int64_t, int64, generic)
NODESHM_DEPRECATED_AMO_TYPES(DEFINE_STANDARD, dep)
NODESHM_DEPRECATED_AMO_EXTENDED_TYPES(DEFINE_EXTENDED, dep)
DEFINE_SWAP(long, long, oldswap)

static int use_global;
#define PTR(N) (use_global ? glob_##N : heap_##N)
#define RUN_STANDARD(T, N, A) mix_##A##_##N(PTR(N)); fadd_##A##_##N(PTR(N)); cswap_##A##_##N(PTR(N));
#define RUN_EXTENDED(T, N, A) swap_##A##_##N(PTR(N)); setget_##A##_##N(PTR(N));
#define RUN_BITWISE(T, N, A) bitwise_##A##_##N(PTR(N));
#define ALLOC(T, N, _)                                                                             \
    heap_##N = shmem_malloc(NSLOT * sizeof(T));                                                    \
    CHECK(heap_##N != NULL, "shmem_malloc for %s failed", #N);                                      \
    if (!heap_##N) shmem_global_exit(1);
#define FREE(T, N, _) shmem_free(heap_##N);

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > MAX_PES) {
        if (me == 0) fprintf(stderr, "amo: at most %d PEs\n", MAX_PES);
        shmem_global_exit(1);
    }
    test_seed();
    /* keep the run short when oversubscribed: ~ (iters * npes) AMOs per PE per test */
    iters = npes <= 2 ? 16 : npes <= 4 ? 12 : 8;
    rounds = npes <= 4 ? 6 : 4;
    swaps = npes <= 4 ? 32 : 16;
    gather = shmem_malloc(sizeof(uint64_t) * MAX_PES * 2 * ITERS_MAX);
    NODESHM_AMO_EXTENDED_TYPES(ALLOC, _)

    for (use_global = 0; use_global < 2; use_global++) {
        where = use_global ? "global" : "heap";
        NODESHM_AMO_STANDARD_TYPES(RUN_STANDARD, typed)
        NODESHM_AMO_EXTENDED_TYPES(RUN_EXTENDED, typed)
        NODESHM_AMO_BITWISE_TYPES(RUN_BITWISE, typed)
        NODESHM_AMO_STANDARD_GENERIC_TYPES(RUN_STANDARD, generic)
        NODESHM_AMO_EXTENDED_GENERIC_TYPES(RUN_EXTENDED, generic)
        NODESHM_AMO_BITWISE_GENERIC_TYPES(RUN_BITWISE, generic)
        NODESHM_DEPRECATED_AMO_TYPES(RUN_STANDARD, dep)
        NODESHM_DEPRECATED_AMO_EXTENDED_TYPES(RUN_EXTENDED, dep)
        swap_oldswap_long(PTR(long));
    }

    NODESHM_AMO_EXTENDED_TYPES(FREE, _)
    shmem_free(gather);
    int rc = test_finish("amo");
    shmem_finalize();
    return rc;
}
