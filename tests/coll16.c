/* Zero-length collectives with null pointers (OpenSHMEM 1.6, undefined-behaviour table: "len is
 * 0, pointer is null: supported"): every typed, mem, generic and deprecated active-set form of
 * broadcast, collect, fcollect, alltoall, alltoalls, every team reduction (every op and type of
 * the tables), the scans and every OP_to_all, called with NULL dest and source and a zero count
 * on WORLD and on a strided team.  A zero-length call is still a collective call, matched in
 * order with the others: each batch of them is followed by a real call of the same family on
 * fresh random data whose values are checked (a PE that skipped the call, or counted it
 * differently, would pair the wrong calls and hang or read wrong data).  collect and collect32/64
 * also run with per-PE counts where the PEs contributing nothing pass a null source.
 *
 * Usage: coll16 [bcast|collect|alltoall|reduce|scan|aset] (default: all of them); coll16
 * null-nonzero: an erroneous call (null source, count 1), which must end the job. */
#include "common.h"

#include <complex.h>
#include <string.h>

#define MAXN 64 /* elements per PE in the real calls */

static int me, npes;
static long *src, *dst; /* symmetric, npes * MAXN * 3 each (alltoalls strides up to 3) */
static long psync[SHMEM_SYNC_SIZE];

typedef struct {
    const char *name;
    shmem_team_t team;
    int n, my, pe[256]; /* team size, my index, world PE of each member */
    int next_id;        /* test_value stream of the team's next real call: alike on its members */
} team_t;

static void team_fill(team_t *t, const char *name, shmem_team_t team, int first_id)
{
    t->name = name;
    t->team = team;
    t->n = team == SHMEM_TEAM_INVALID ? 0 : shmem_team_n_pes(team);
    t->my = team == SHMEM_TEAM_INVALID ? -1 : shmem_team_my_pe(team);
    t->next_id = first_id;
    for (int i = 0; i < t->n; i++) t->pe[i] = shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD);
}

static long val(int pe, int id, size_t i) { return (long)(test_value(pe, id, i) >> 1); }

/* ---- zero-length calls with null pointers, generated from the type tables ------------------- */
#define Z_BCAST(T, N, TM)                                                                          \
    CHECK(shmem_##N##_broadcast(TM, (T *)NULL, (const T *)NULL, 0, 0) == 0, #N "_broadcast");
#define Z_COLLECT(T, N, TM)                                                                        \
    CHECK(shmem_##N##_collect(TM, (T *)NULL, (const T *)NULL, 0) == 0, #N "_collect");             \
    CHECK(shmem_##N##_fcollect(TM, (T *)NULL, (const T *)NULL, 0) == 0, #N "_fcollect");
#define Z_ALLTOALL(T, N, TM)                                                                       \
    CHECK(shmem_##N##_alltoall(TM, (T *)NULL, (const T *)NULL, 0) == 0, #N "_alltoall");           \
    CHECK(shmem_##N##_alltoalls(TM, (T *)NULL, (const T *)NULL, 2, 3, 0) == 0, #N "_alltoalls");
#define Z_REDUCE(T, N, OP)                                                                         \
    CHECK(shmem_##N##_##OP##_reduce(z_team, (T *)NULL, (const T *)NULL, 0) == 0,                   \
          #N "_" #OP "_reduce");
#define Z_SCAN(T, N, _)                                                                            \
    CHECK(shmem_##N##_sum_inscan(z_team, (T *)NULL, (const T *)NULL, 0) == 0, #N "_sum_inscan");   \
    CHECK(shmem_##N##_sum_exscan(z_team, (T *)NULL, (const T *)NULL, 0) == 0, #N "_sum_exscan");
#define Z_TO_ALL(T, N, OP)                                                                         \
    shmem_##N##_##OP##_to_all((T *)NULL, (const T *)NULL, 0, as_start, as_log, as_size, (T *)NULL, \
                              psync);

static shmem_team_t z_team; /* the team of Z_REDUCE / Z_SCAN */
static int as_start, as_log, as_size; /* the active set of Z_TO_ALL */

/* ---- real calls, checked ------------------------------------------------------------------------ */
static void real_broadcast(team_t *t)
{
    int id = t->next_id++, root = (int)(test_value(0, id, 999) % (uint64_t)t->n);
    size_t n = 1 + test_value(0, id, 998) % MAXN;
    for (size_t i = 0; i < n; i++) src[i] = val(shmem_my_pe(), id, i);
    dst[n] = -7;
    CHECK(shmem_long_broadcast(t->team, dst, src, n, root) == 0, "%s: broadcast", t->name);
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n; i++)
        if (dst[i] != val(t->pe[root], id, i)) bad = i;
    CHECK(bad == n && dst[n] == -7, "%s: broadcast n=%zu root %d: first bad element %zu", t->name,
          n, root, bad);
}

/* collect with per-PE counts: members whose count is 0 (every other one, and all of them on
 * alternate calls) pass a null source; dest is null when nobody contributes. */
static void real_collect(team_t *t, int all_zero, int sized)
{
    int id = t->next_id++;
    size_t cnt[256] = {0}, total = 0;
    for (int i = 0; i < t->n; i++) {
        cnt[i] = all_zero || i % 2 == (int)(test_value(0, id, 997) % 2) ? 0
                                                                         : 1 + test_value(0, id, i) % MAXN;
        total += cnt[i];
    }
    size_t mine = cnt[t->my];
    for (size_t i = 0; i < mine; i++) src[i] = val(shmem_my_pe(), id, i);
    long *s = mine ? src : NULL, *d = total ? dst : NULL;
    if (total) dst[total] = -7;
    if (sized) /* 64-bit active-set form on WORLD */
        shmem_collect64(d, s, mine, 0, 0, npes, psync);
    else
        CHECK(shmem_long_collect(t->team, d, s, mine) == 0, "%s: collect", t->name);
    size_t off = 0, bad = SIZE_MAX;
    for (int p = 0; p < t->n; p++)
        for (size_t i = 0; i < cnt[p]; i++, off++)
            if (bad == SIZE_MAX && dst[off] != val(t->pe[p], id, i)) bad = off;
    CHECK(bad == SIZE_MAX && (!total || dst[total] == -7),
          "%s: collect%s total %zu (mine %zu%s): first bad element %zu", t->name, sized ? "64" : "",
          total, mine, s ? "" : ", null source", bad);
}

static void real_fcollect(team_t *t)
{
    int id = t->next_id++;
    size_t n = 1 + test_value(0, id, 996) % MAXN;
    for (size_t i = 0; i < n; i++) src[i] = val(shmem_my_pe(), id, i);
    CHECK(shmem_long_fcollect(t->team, dst, src, n) == 0, "%s: fcollect", t->name);
    size_t bad = SIZE_MAX;
    for (int p = 0; p < t->n; p++)
        for (size_t i = 0; i < n; i++)
            if (bad == SIZE_MAX && dst[(size_t)p * n + i] != val(t->pe[p], id, i)) bad = (size_t)p * n + i;
    CHECK(bad == SIZE_MAX, "%s: fcollect n=%zu: first bad element %zu", t->name, n, bad);
}

static void real_alltoall(team_t *t)
{
    int id = t->next_id++;
    size_t n = 1 + test_value(0, id, 995) % MAXN, nn = (size_t)t->n * n;
    for (size_t i = 0; i < nn; i++) src[i] = val(shmem_my_pe(), id, i);
    CHECK(shmem_long_alltoall(t->team, dst, src, n) == 0, "%s: alltoall", t->name);
    size_t bad = SIZE_MAX;
    for (int p = 0; p < t->n; p++) /* block p of dest: member p's block for me */
        for (size_t k = 0; k < n; k++)
            if (bad == SIZE_MAX && dst[(size_t)p * n + k] != val(t->pe[p], id, (size_t)t->my * n + k))
                bad = (size_t)p * n + k;
    CHECK(bad == SIZE_MAX, "%s: alltoall n=%zu: first bad element %zu", t->name, n, bad);
}

static void real_reduce(team_t *t)
{
    int id = t->next_id++;
    size_t n = 1 + test_value(0, id, 994) % MAXN;
    for (size_t i = 0; i < n; i++) src[i] = val(shmem_my_pe(), id, i) % 1000000;
    CHECK(shmem_long_sum_reduce(t->team, dst, src, n) == 0, "%s: sum_reduce", t->name);
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n; i++) {
        long s = 0;
        for (int p = 0; p < t->n; p++) s += val(t->pe[p], id, i) % 1000000;
        if (dst[i] != s) bad = i;
    }
    CHECK(bad == n, "%s: sum_reduce n=%zu: first bad element %zu", t->name, n, bad);
    /* and a bitwise one on a signed fixed-width type (the typed name; generic11 checks the C11 one) */
    int32_t *s32 = (int32_t *)src, *d32 = (int32_t *)dst;
    for (size_t i = 0; i < n; i++) s32[i] = (int32_t)val(shmem_my_pe(), id, i + 500);
    CHECK(shmem_int32_xor_reduce(t->team, d32, s32, n) == 0, "%s: int32_xor_reduce", t->name);
    bad = n;
    for (size_t i = 0; i < n && bad == n; i++) {
        int32_t x = 0;
        for (int p = 0; p < t->n; p++) x ^= (int32_t)val(t->pe[p], id, i + 500);
        if (d32[i] != x) bad = i;
    }
    CHECK(bad == n, "%s: int32_xor_reduce n=%zu: first bad element %zu", t->name, n, bad);
}

static void real_scan(team_t *t)
{
    int id = t->next_id++;
    size_t n = 1 + test_value(0, id, 993) % MAXN;
    for (size_t i = 0; i < n; i++) src[i] = val(shmem_my_pe(), id, i) % 1000000;
    for (int excl = 0; excl < 2; excl++) {
        CHECK((excl ? shmem_long_sum_exscan(t->team, dst, src, n)
                    : shmem_long_sum_inscan(t->team, dst, src, n)) == 0,
              "%s: scan", t->name);
        size_t bad = n;
        for (size_t i = 0; i < n && bad == n; i++) {
            long s = 0;
            for (int p = 0; p < t->my + !excl; p++) s += val(t->pe[p], id, i) % 1000000;
            if (dst[i] != s) bad = i;
        }
        CHECK(bad == n, "%s: sum_%sscan n=%zu: first bad element %zu", t->name, excl ? "ex" : "in",
              n, bad);
    }
}

/* ---- families ----------------------------------------------------------------------------------- */
static void zero_bcast(shmem_team_t tm)
{
    NODESHM_RMA_TYPES(Z_BCAST, tm)
    CHECK(shmem_broadcastmem(tm, NULL, NULL, 0, 0) == 0, "broadcastmem");
    CHECK(shmem_broadcast(tm, (double *)NULL, (const double *)NULL, 0, 0) == 0, "broadcast");
}

static void zero_collect(shmem_team_t tm)
{
    NODESHM_RMA_TYPES(Z_COLLECT, tm)
    CHECK(shmem_collectmem(tm, NULL, NULL, 0) == 0, "collectmem");
    CHECK(shmem_fcollectmem(tm, NULL, NULL, 0) == 0, "fcollectmem");
    CHECK(shmem_collect(tm, (int *)NULL, (const int *)NULL, 0) == 0, "collect");
    CHECK(shmem_fcollect(tm, (char *)NULL, (const char *)NULL, 0) == 0, "fcollect");
}

static void zero_alltoall(shmem_team_t tm)
{
    NODESHM_RMA_TYPES(Z_ALLTOALL, tm)
    CHECK(shmem_alltoallmem(tm, NULL, NULL, 0) == 0, "alltoallmem");
    CHECK(shmem_alltoallsmem(tm, NULL, NULL, 1, 1, 0) == 0, "alltoallsmem");
    CHECK(shmem_alltoall(tm, (short *)NULL, (const short *)NULL, 0) == 0, "alltoall");
    CHECK(shmem_alltoalls(tm, (long *)NULL, (const long *)NULL, 1, 1, 0) == 0, "alltoalls");
}

static void family(const char *f, team_t *t)
{
    if (!t->n) return; /* not a member */
    if (!strcmp(f, "bcast")) {
        zero_bcast(t->team);
        real_broadcast(t);
        CHECK(shmem_long_broadcast(t->team, NULL, NULL, 0, t->n - 1) == 0, "broadcast, last root");
        real_broadcast(t);
    } else if (!strcmp(f, "collect")) {
        zero_collect(t->team);
        real_collect(t, 1, 0); /* everybody null */
        real_collect(t, 0, 0); /* some null */
        real_collect(t, 0, 0);
        real_fcollect(t);
        CHECK(shmem_long_fcollect(t->team, NULL, NULL, 0) == 0, "fcollect");
        real_fcollect(t);
    } else if (!strcmp(f, "alltoall")) {
        zero_alltoall(t->team);
        real_alltoall(t);
        CHECK(shmem_long_alltoalls(t->team, NULL, NULL, 3, 2, 0) == 0, "alltoalls");
        real_alltoall(t);
    } else if (!strcmp(f, "reduce")) {
        z_team = t->team;
        NODESHM_REDUCE_BITWISE_TYPES(Z_REDUCE, and)
        NODESHM_REDUCE_BITWISE_TYPES(Z_REDUCE, or)
        NODESHM_REDUCE_BITWISE_TYPES(Z_REDUCE, xor)
        real_reduce(t);
        NODESHM_REDUCE_MINMAX_TYPES(Z_REDUCE, max)
        NODESHM_REDUCE_MINMAX_TYPES(Z_REDUCE, min)
        NODESHM_REDUCE_MINMAX_TYPES(Z_REDUCE, sum)
        NODESHM_REDUCE_MINMAX_TYPES(Z_REDUCE, prod)
        NODESHM_REDUCE_COMPLEX_TYPES(Z_REDUCE, sum)
        NODESHM_REDUCE_COMPLEX_TYPES(Z_REDUCE, prod)
        CHECK(shmem_and_reduce(t->team, (uint64_t *)NULL, (const uint64_t *)NULL, 0) == 0, "and_reduce");
        CHECK(shmem_sum_reduce(t->team, (float *)NULL, (const float *)NULL, 0) == 0, "sum_reduce");
        real_reduce(t);
    } else if (!strcmp(f, "scan")) {
        z_team = t->team;
        NODESHM_REDUCE_MINMAX_TYPES(Z_SCAN, _)
        NODESHM_REDUCE_COMPLEX_TYPES(Z_SCAN, _)
        real_scan(t);
        CHECK(shmem_sum_exscan(t->team, (double *)NULL, (const double *)NULL, 0) == 0, "sum_exscan");
        real_scan(t);
    }
}

/* Deprecated active-set forms, over WORLD and over the even PEs (log stride 1). */
static void aset(team_t *world, team_t *even)
{
    team_t *sets[2] = {world, even};
    for (int k = 0; k < 2; k++) {
        team_t *t = sets[k];
        if (!t->n) continue;
        as_start = 0, as_log = k, as_size = t->n;
        shmem_broadcast32(NULL, NULL, 0, 0, as_start, as_log, as_size, psync);
        shmem_broadcast64(NULL, NULL, 0, as_size - 1, as_start, as_log, as_size, psync);
        shmem_collect32(NULL, NULL, 0, as_start, as_log, as_size, psync);
        shmem_collect64(NULL, NULL, 0, as_start, as_log, as_size, psync);
        shmem_fcollect32(NULL, NULL, 0, as_start, as_log, as_size, psync);
        shmem_fcollect64(NULL, NULL, 0, as_start, as_log, as_size, psync);
        shmem_alltoall32(NULL, NULL, 0, as_start, as_log, as_size, psync);
        shmem_alltoall64(NULL, NULL, 0, as_start, as_log, as_size, psync);
        shmem_alltoalls32(NULL, NULL, 1, 1, 0, as_start, as_log, as_size, psync);
        shmem_alltoalls64(NULL, NULL, 2, 3, 0, as_start, as_log, as_size, psync);
        NODESHM_TOALL_BITWISE_TYPES(Z_TO_ALL, and)
        NODESHM_TOALL_BITWISE_TYPES(Z_TO_ALL, or)
        NODESHM_TOALL_BITWISE_TYPES(Z_TO_ALL, xor)
        NODESHM_TOALL_MINMAX_TYPES(Z_TO_ALL, max)
        NODESHM_TOALL_MINMAX_TYPES(Z_TO_ALL, min)
        NODESHM_TOALL_MINMAX_TYPES(Z_TO_ALL, sum)
        NODESHM_TOALL_MINMAX_TYPES(Z_TO_ALL, prod)
        NODESHM_REDUCE_COMPLEX_TYPES(Z_TO_ALL, sum)
        NODESHM_REDUCE_COMPLEX_TYPES(Z_TO_ALL, prod)
        /* a real one on the same set: the zero-length calls were matched */
        int id = t->next_id++;
        size_t n = 1 + test_value(0, id, 992) % MAXN;
        for (size_t i = 0; i < n; i++) src[i] = val(shmem_my_pe(), id, i) % 1000000;
        shmem_long_sum_to_all(dst, src, (int)n, as_start, as_log, as_size, dst + MAXN, psync);
        size_t bad = n;
        for (size_t i = 0; i < n && bad == n; i++) {
            long s = 0;
            for (int p = 0; p < t->n; p++) s += val(t->pe[p], id, i) % 1000000;
            if (dst[i] != s) bad = i;
        }
        CHECK(bad == n, "active set %d: sum_to_all n=%zu: first bad element %zu", k, n, bad);
    }
    /* collect64 with per-PE counts, null sources where 0, over WORLD */
    real_collect(world, 0, 1);
    real_collect(world, 1, 1);
    real_collect(world, 0, 1);
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    test_seed();
    src = shmem_malloc(sizeof(long) * (size_t)npes * MAXN * 3 + 64);
    dst = shmem_malloc(sizeof(long) * (size_t)npes * MAXN * 3 + 64);
    team_t world, even;
    shmem_team_t ev = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &ev);
    team_fill(&world, "WORLD", SHMEM_TEAM_WORLD, 0);
    team_fill(&even, "even PEs", ev, 1 << 20);

    if (argc > 1 && !strcmp(argv[1], "null-nonzero")) {
        /* a null source with something to send is still an error (tests/coll16.cmake); the
         * others pass theirs */
        shmem_long_collect(SHMEM_TEAM_WORLD, dst, me == 0 ? NULL : src, 1);
        shmem_barrier_all();
    }
    static const char *const all[] = {"bcast", "collect", "alltoall", "reduce", "scan", "aset"};
    for (int k = 0; k < 6; k++) {
        const char *f = all[k];
        if (argc > 1 && strcmp(argv[1], f)) continue;
        if (!strcmp(f, "aset")) {
            aset(&world, &even);
        } else {
            /* back to back on overlapping teams, twice: no barrier between the calls */
            for (int rep = 0; rep < 2; rep++) {
                family(f, &world);
                family(f, &even);
            }
        }
        shmem_barrier_all();
    }
    if (ev != SHMEM_TEAM_INVALID) shmem_team_destroy(ev);
    int rc = test_finish("coll16");
    shmem_free(src);
    shmem_free(dst);
    shmem_finalize();
    return rc;
}
