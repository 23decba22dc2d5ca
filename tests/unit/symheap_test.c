/*
 * symheap_test.c - unit tests for the symmetric-heap offset allocator.
 *
 * Plain C11, no MPI.  Directed tests for the documented behaviour plus
 * randomized alloc/free/resize sequences checked against a reference model
 * (a sorted array of live [offset, offset+size) intervals).  Random runs use
 * fixed seeds and one time-based seed, which is printed so a failure can be
 * replayed with:  ./symheap_test <seed>
 *
 * Exit status is nonzero if any test fails.
 */
#include "symheap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "  CHECK failed %s:%d: %s\n", __FILE__, __LINE__,  \
                    #cond);                                                    \
            return 0;                                                          \
        }                                                                      \
    } while (0)

#define CHECK_RC(expr, want) CHECK((expr) == (want))

static size_t round_up(size_t x, size_t a) { return (x + a - 1) & ~(a - 1); }

/* ------------------------------------------------------------------------ */
/* PRNG (splitmix64): deterministic and platform independent                */

static uint64_t rng_state;
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}
static size_t rng_below(size_t n) { return n ? (size_t)(rng_next() % n) : 0; }
static size_t rng_range(size_t lo, size_t hi) { return lo + rng_below(hi - lo + 1); }

/* ------------------------------------------------------------------------ */
/* reference model: live intervals sorted by offset                          */

typedef struct {
    size_t off, size;
} interval_t;

typedef struct {
    interval_t *v;
    size_t n, cap;
    size_t capacity;
} model_t;

static int model_init(model_t *m, size_t capacity)
{
    m->n = 0;
    m->cap = 1024;
    m->capacity = capacity;
    m->v = (interval_t *)malloc(m->cap * sizeof *m->v);
    return m->v != NULL;
}
static void model_fini(model_t *m) { free(m->v); }

/* first index with v[i].off >= off */
static size_t model_lower(const model_t *m, size_t off)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->v[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* insert, returning 0 if the new interval overlaps a neighbour */
static int model_insert(model_t *m, size_t off, size_t size)
{
    size_t i = model_lower(m, off);
    if (i > 0 && m->v[i - 1].off + m->v[i - 1].size > off)
        return 0;
    if (i < m->n && off + size > m->v[i].off)
        return 0;
    if (m->n == m->cap) {
        interval_t *nv = (interval_t *)realloc(m->v, 2 * m->cap * sizeof *nv);
        if (!nv)
            return 0;
        m->v = nv;
        m->cap *= 2;
    }
    memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof *m->v);
    m->v[i].off = off;
    m->v[i].size = size;
    m->n++;
    return 1;
}

static void model_remove_at(model_t *m, size_t i)
{
    memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof *m->v);
    m->n--;
}

static size_t model_in_use(const model_t *m)
{
    size_t i, s = 0;
    for (i = 0; i < m->n; i++)
        s += m->v[i].size;
    return s;
}

/* free gap after live index i (i == (size_t)-1: the gap before v[0]) */
static void model_gap(const model_t *m, size_t i, size_t *start, size_t *end)
{
    *start = (i == (size_t)-1) ? 0 : m->v[i].off + m->v[i].size;
    *end = (i + 1 < m->n) ? m->v[i + 1].off : m->capacity;
}

static size_t model_largest_gap(const model_t *m)
{
    size_t i, best = 0, s, e;
    for (i = (size_t)-1;; i++) {
        model_gap(m, i, &s, &e);
        if (e - s > best)
            best = e - s;
        if (i + 1 >= m->n)
            break;
    }
    return best;
}

/* can some gap hold s bytes aligned to a?  If excl_last, ignore the final gap */
static int model_can_fit(const model_t *m, size_t s, size_t a, int excl_last)
{
    size_t i, gs, ge;
    for (i = (size_t)-1;; i++) {
        int last = (i + 1 >= m->n);
        model_gap(m, i, &gs, &ge);
        if (!(excl_last && last)) {
            size_t rem = gs & (a - 1);
            size_t pad = rem ? a - rem : 0;
            if (pad <= ge - gs && ge - gs - pad >= s)
                return 1;
        }
        if (last)
            break;
    }
    return 0;
}

/* full comparison of heap and model */
static int verify_full(const symheap_t *h, const model_t *m, size_t min_align)
{
    size_t i;
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    CHECK(symheap_bytes_in_use(h) == model_in_use(m));
    CHECK(symheap_largest_free(h) == model_largest_gap(m));
    CHECK(symheap_high_water(h) <= m->capacity);
    for (i = 0; i < m->n; i++) {
        size_t bs = 0;
        CHECK(m->v[i].off % min_align == 0);
        CHECK(m->v[i].off + m->v[i].size <= m->capacity);
        CHECK(m->v[i].off + m->v[i].size <= symheap_high_water(h));
        if (i + 1 < m->n)
            CHECK(m->v[i].off + m->v[i].size <= m->v[i + 1].off);
        CHECK_RC(symheap_block_size(h, m->v[i].off, &bs), SYMHEAP_OK);
        CHECK(bs == m->v[i].size);
    }
    return 1;
}

/* ------------------------------------------------------------------------ */
/* randomized test against the model, two heaps in lock step                 */

typedef struct {
    uint64_t seed;
    size_t capacity;
    size_t min_align;
    size_t nops;
} rand_cfg_t;

static size_t pick_size(size_t capacity)
{
    unsigned r = (unsigned)rng_below(100);
    if (r < 65)
        return rng_range(1, 512);
    if (r < 93)
        return rng_range(1, 64 * KiB);
    if (r < 99)
        return rng_range(1, capacity / 8 ? capacity / 8 : 1);
    return rng_range(1, capacity + capacity / 4); /* sometimes impossible */
}

static size_t pick_align(void)
{
    static const size_t aligns[] = {1, 8, 64, 128, 256, 4096, 65536, 2 * MiB};
    if (rng_below(100) < 75)
        return 0;
    return aligns[rng_below(sizeof aligns / sizeof aligns[0])];
}

static int run_random(const rand_cfg_t *cfg)
{
    symheap_t *h = NULL, *h2 = NULL;
    model_t m;
    size_t op, n_alloc = 0, n_free = 0, n_resize = 0, n_nomem = 0, n_drain = 0;
    size_t prev_hw = 0;
    const size_t A = cfg->min_align;

    rng_state = cfg->seed;
    CHECK(model_init(&m, cfg->capacity));
    CHECK_RC(symheap_create(&h, cfg->capacity, A), SYMHEAP_OK);
    CHECK_RC(symheap_create(&h2, cfg->capacity, A), SYMHEAP_OK);

    for (op = 0; op < cfg->nops; op++) {
        unsigned r = (unsigned)rng_below(100);
        /* bias toward freeing when many blocks are live */
        if (m.n > 1500 && r < 50)
            r += 45;

        if (op % 7919 == 7918) { /* occasionally drain everything */
            while (m.n) {
                size_t i = rng_below(m.n);
                CHECK_RC(symheap_free(h, m.v[i].off), SYMHEAP_OK);
                CHECK_RC(symheap_free(h2, m.v[i].off), SYMHEAP_OK);
                model_remove_at(&m, i);
            }
            CHECK(symheap_largest_free(h) == cfg->capacity);
            CHECK(symheap_bytes_in_use(h) == 0);
            CHECK_RC(symheap_check(h), SYMHEAP_OK);
            n_drain++;
        } else if (r < 48) { /* alloc */
            size_t size = pick_size(cfg->capacity);
            size_t align = pick_align();
            size_t ea = (align < A) ? A : align;
            size_t s = round_up(size, A);
            size_t off = (size_t)-1, off2 = (size_t)-2;
            int rc = symheap_alloc(h, size, align, &off);
            int rc2 = symheap_alloc(h2, size, align, &off2);
            CHECK(rc == rc2);
            if (rc == SYMHEAP_OK) {
                int in_last_gap;
                CHECK(off == off2); /* determinism */
                CHECK(off % ea == 0);
                CHECK(off + s <= cfg->capacity);
                in_last_gap = (m.n == 0) || off >= m.v[m.n - 1].off + m.v[m.n - 1].size;
                /* wilderness only when no hole below fits */
                if (in_last_gap && m.n > 0)
                    CHECK(!model_can_fit(&m, s, ea, 1));
                CHECK(model_insert(&m, off, s)); /* no overlap */
                CHECK(symheap_high_water(h) >= off + s);
                n_alloc++;
            } else {
                CHECK_RC(rc, SYMHEAP_ENOMEM);
                /* ENOMEM is exact: no gap could hold it */
                CHECK(size > cfg->capacity || !model_can_fit(&m, s, ea, 0));
                n_nomem++;
            }
        } else if (r < 83) { /* free */
            if (m.n) {
                size_t i = rng_below(m.n);
                CHECK_RC(symheap_free(h, m.v[i].off), SYMHEAP_OK);
                CHECK_RC(symheap_free(h2, m.v[i].off), SYMHEAP_OK);
                model_remove_at(&m, i);
                n_free++;
            }
        } else if (r < 96) { /* resize in place */
            if (m.n) {
                size_t i = rng_below(m.n), gs, ge, want, s;
                int rc, rc2;
                unsigned k = (unsigned)rng_below(3);
                if (k == 0)
                    want = rng_range(1, m.v[i].size); /* shrink / same */
                else if (k == 1)
                    want = m.v[i].size + rng_range(1, 4 * KiB); /* small grow */
                else
                    want = pick_size(cfg->capacity);
                s = round_up(want, A);
                model_gap(&m, i, &gs, &ge);
                rc = symheap_resize_in_place(h, m.v[i].off, want);
                rc2 = symheap_resize_in_place(h2, m.v[i].off, want);
                CHECK(rc == rc2);
                if (want <= cfg->capacity && s <= ge - m.v[i].off) {
                    CHECK_RC(rc, SYMHEAP_OK);
                    m.v[i].size = s;
                    CHECK(symheap_high_water(h) >= m.v[i].off + s);
                } else {
                    size_t bs = 0;
                    CHECK_RC(rc, SYMHEAP_ENOMEM);
                    CHECK_RC(symheap_block_size(h, m.v[i].off, &bs), SYMHEAP_OK);
                    CHECK(bs == m.v[i].size); /* unchanged */
                }
                n_resize++;
            }
        } else { /* invalid operations must be rejected without side effects */
            size_t bogus, bs;
            if (m.n && rng_below(2)) {
                size_t i = rng_below(m.n);
                bogus = m.v[i].off + (rng_below(2) ? A : 1); /* interior */
                if (m.v[i].size == A && bogus % A == 0)
                    bogus = m.v[i].off + 1;
            } else {
                bogus = rng_below(cfg->capacity + A);
            }
            if (model_lower(&m, bogus) < m.n && m.v[model_lower(&m, bogus)].off == bogus)
                bogus += 1; /* hit a live start by chance: make it unaligned */
            CHECK_RC(symheap_free(h, bogus), SYMHEAP_EINVAL);
            CHECK_RC(symheap_free(h2, bogus), SYMHEAP_EINVAL);
            CHECK_RC(symheap_block_size(h, bogus, &bs), SYMHEAP_EINVAL);
            CHECK_RC(symheap_resize_in_place(h, bogus, 64), SYMHEAP_EINVAL);
            CHECK_RC(symheap_resize_in_place(h2, bogus, 64), SYMHEAP_EINVAL);
        }

        CHECK(symheap_bytes_in_use(h) == symheap_bytes_in_use(h2));
        CHECK(symheap_high_water(h) >= prev_hw); /* monotone */
        prev_hw = symheap_high_water(h);
        if (op % 101 == 0 || op + 1 == cfg->nops) {
            if (!verify_full(h, &m, A))
                return 0;
            CHECK_RC(symheap_check(h2), SYMHEAP_OK);
            CHECK(symheap_largest_free(h) == symheap_largest_free(h2));
            CHECK(symheap_high_water(h) == symheap_high_water(h2));
        } else {
            CHECK(symheap_bytes_in_use(h) == model_in_use(&m));
        }
    }

    /* free everything in random order: must collapse to one full-size block */
    while (m.n) {
        size_t i = rng_below(m.n);
        CHECK_RC(symheap_free(h, m.v[i].off), SYMHEAP_OK);
        CHECK_RC(symheap_free(h2, m.v[i].off), SYMHEAP_OK);
        model_remove_at(&m, i);
    }
    CHECK(symheap_bytes_in_use(h) == 0);
    CHECK(symheap_largest_free(h) == cfg->capacity);
    CHECK(symheap_largest_free(h2) == cfg->capacity);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    CHECK_RC(symheap_check(h2), SYMHEAP_OK);

    printf("    seed=%llu cap=%zu align=%zu: %zu allocs, %zu frees, %zu resizes, "
           "%zu ENOMEM, %zu drains, high_water=%zu\n",
           (unsigned long long)cfg->seed, cfg->capacity, A, n_alloc, n_free,
           n_resize, n_nomem, n_drain, symheap_high_water(h));

    symheap_destroy(h);
    symheap_destroy(h2);
    model_fini(&m);
    return 1;
}

/* ------------------------------------------------------------------------ */
/* directed tests                                                            */

static int test_create_args(void)
{
    symheap_t *h = (symheap_t *)&h; /* must be overwritten */
    CHECK_RC(symheap_create(NULL, MiB, 64), SYMHEAP_EINVAL);
    CHECK_RC(symheap_create(&h, MiB, 0), SYMHEAP_EINVAL);
    CHECK(h == NULL);
    CHECK_RC(symheap_create(&h, MiB, 48), SYMHEAP_EINVAL);
    CHECK_RC(symheap_create(&h, 0, 64), SYMHEAP_EINVAL);
    CHECK_RC(symheap_create(&h, 63, 64), SYMHEAP_EINVAL); /* rounds to 0 */
    /* capacity rounded down to a multiple of min_align */
    CHECK_RC(symheap_create(&h, 1000, 64), SYMHEAP_OK);
    CHECK(symheap_largest_free(h) == 960);
    CHECK(symheap_high_water(h) == 0);
    CHECK(symheap_bytes_in_use(h) == 0);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    symheap_destroy(h);
    symheap_destroy(NULL);
    return 1;
}

static int test_basic(void)
{
    symheap_t *h;
    size_t a, b, c, bs;
    CHECK_RC(symheap_create(&h, MiB, 64), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 1, 0, &a), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 100, 0, &b), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 128, 0, &c), SYMHEAP_OK);
    /* fresh heap packs from offset 0 upward */
    CHECK(a == 0 && b == 64 && c == 192);
    CHECK_RC(symheap_block_size(h, a, &bs), SYMHEAP_OK);
    CHECK(bs == 64);
    CHECK_RC(symheap_block_size(h, b, &bs), SYMHEAP_OK);
    CHECK(bs == 128);
    CHECK(symheap_bytes_in_use(h) == 320);
    CHECK(symheap_high_water(h) == 320);
    CHECK(symheap_largest_free(h) == MiB - 320);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    CHECK_RC(symheap_free(h, b), SYMHEAP_OK);
    CHECK_RC(symheap_free(h, a), SYMHEAP_OK);
    CHECK_RC(symheap_free(h, c), SYMHEAP_OK);
    CHECK(symheap_largest_free(h) == MiB);
    CHECK(symheap_high_water(h) == 320); /* never shrinks */
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    symheap_destroy(h);
    return 1;
}

static int test_reuse(void)
{
    symheap_t *h;
    size_t a, b, c, x, hw;
    CHECK_RC(symheap_create(&h, 64 * MiB, 64), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 1000, 0, &a), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 5000, 0, &b), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 3000, 0, &c), SYMHEAP_OK);
    hw = symheap_high_water(h);
    CHECK_RC(symheap_free(h, b), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 5000, 0, &x), SYMHEAP_OK);
    CHECK(x == b);
    CHECK(symheap_high_water(h) == hw);
    /* a smaller request also goes into the hole, not the untouched wilderness */
    CHECK_RC(symheap_free(h, b), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 200, 0, &x), SYMHEAP_OK);
    CHECK(x == b);
    CHECK(symheap_high_water(h) == hw);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    (void)a;
    (void)c;
    symheap_destroy(h);
    return 1;
}

static int test_coalesce(void)
{
    symheap_t *h;
    size_t a, b, c, d, x, sa, sb;
    int order;
    for (order = 0; order < 2; order++) {
        CHECK_RC(symheap_create(&h, 16 * MiB, 64), SYMHEAP_OK);
        CHECK_RC(symheap_alloc(h, 4096, 0, &a), SYMHEAP_OK);
        CHECK_RC(symheap_alloc(h, 1000, 0, &b), SYMHEAP_OK);
        CHECK_RC(symheap_alloc(h, 64, 0, &c), SYMHEAP_OK);
        CHECK_RC(symheap_block_size(h, a, &sa), SYMHEAP_OK);
        CHECK_RC(symheap_block_size(h, b, &sb), SYMHEAP_OK);
        if (order == 0) {
            CHECK_RC(symheap_free(h, a), SYMHEAP_OK);
            CHECK_RC(symheap_free(h, b), SYMHEAP_OK);
        } else {
            CHECK_RC(symheap_free(h, b), SYMHEAP_OK);
            CHECK_RC(symheap_free(h, a), SYMHEAP_OK);
        }
        CHECK(symheap_largest_free(h) == 16 * MiB - sa - sb - 64);
        CHECK_RC(symheap_alloc(h, sa + sb, 0, &x), SYMHEAP_OK);
        CHECK(x == a);
        CHECK(symheap_high_water(h) == sa + sb + 64);
        /* three-way merge: free the middle block last */
        CHECK_RC(symheap_alloc(h, 64, 0, &d), SYMHEAP_OK);
        CHECK(d == c + 64);
        CHECK_RC(symheap_free(h, x), SYMHEAP_OK);
        CHECK_RC(symheap_free(h, d), SYMHEAP_OK);
        CHECK_RC(symheap_free(h, c), SYMHEAP_OK);
        CHECK(symheap_largest_free(h) == 16 * MiB);
        CHECK(symheap_bytes_in_use(h) == 0);
        CHECK_RC(symheap_check(h), SYMHEAP_OK);
        symheap_destroy(h);
    }
    return 1;
}

/* documented within-class policy: best fit, ties to the lowest offset */
static int test_best_fit(void)
{
    symheap_t *h;
    size_t big, s1, small, s2, tie, s3, x;
    CHECK_RC(symheap_create(&h, 16 * MiB, 64), SYMHEAP_OK);
    /* 1216 and 1088 are in the same size class (1024..1279) */
    CHECK_RC(symheap_alloc(h, 1216, 0, &big), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 64, 0, &s1), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 1088, 0, &small), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 64, 0, &s2), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 1088, 0, &tie), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 64, 0, &s3), SYMHEAP_OK);
    /* free order chosen so that the class list head is the worst candidate */
    CHECK_RC(symheap_free(h, small), SYMHEAP_OK);
    CHECK_RC(symheap_free(h, tie), SYMHEAP_OK);
    CHECK_RC(symheap_free(h, big), SYMHEAP_OK);
    /* best fit: a 1088-byte hole beats the lower 1216-byte hole;
     * among the two 1088-byte holes the lower offset wins */
    CHECK_RC(symheap_alloc(h, 1050, 0, &x), SYMHEAP_OK);
    CHECK(x == small);
    CHECK_RC(symheap_alloc(h, 1050, 0, &x), SYMHEAP_OK);
    CHECK(x == tie);
    CHECK_RC(symheap_alloc(h, 1050, 0, &x), SYMHEAP_OK);
    CHECK(x == big);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    (void)s1;
    (void)s2;
    (void)s3;
    symheap_destroy(h);
    return 1;
}

static int test_alignment(void)
{
    symheap_t *h;
    size_t a, b, c, d, e, bs;
    CHECK_RC(symheap_create(&h, 64 * MiB, 64), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 64, 0, &a), SYMHEAP_OK);
    CHECK(a == 0);
    CHECK_RC(symheap_alloc(h, 100, 4096, &b), SYMHEAP_OK);
    CHECK(b == 4096);
    CHECK_RC(symheap_block_size(h, b, &bs), SYMHEAP_OK);
    CHECK(bs == 128);
    /* leading fragment [64, 4096) was returned to the free lists */
    CHECK_RC(symheap_alloc(h, 64, 0, &c), SYMHEAP_OK);
    CHECK(c == 64);
    CHECK_RC(symheap_alloc(h, 1, 65536, &d), SYMHEAP_OK);
    CHECK(d % 65536 == 0);
    CHECK_RC(symheap_alloc(h, 1, 2 * MiB, &e), SYMHEAP_OK);
    CHECK(e % (2 * MiB) == 0);
    /* align below min_align is raised; align 1 is a power of two */
    CHECK_RC(symheap_alloc(h, 1, 1, &a), SYMHEAP_OK);
    CHECK(a % 64 == 0);
    CHECK_RC(symheap_alloc(h, 1, 3, &a), SYMHEAP_EINVAL);
    CHECK_RC(symheap_alloc(h, 1, 4096 + 64, &a), SYMHEAP_EINVAL);
    /* alignment larger than the whole heap cannot be honoured past offset 0,
     * which is taken */
    CHECK_RC(symheap_alloc(h, 64, 128 * MiB, &a), SYMHEAP_ENOMEM);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    symheap_destroy(h);
    return 1;
}

static int test_exhaustion(void)
{
    symheap_t *h;
    size_t offs[300], n = 0, x, hw, i;
    int rc;
    CHECK_RC(symheap_create(&h, MiB, 64), SYMHEAP_OK);
    for (;;) {
        rc = symheap_alloc(h, 4096, 0, &x);
        if (rc != SYMHEAP_OK)
            break;
        CHECK(n < 300);
        offs[n++] = x;
    }
    CHECK_RC(rc, SYMHEAP_ENOMEM);
    CHECK(n == 256);
    CHECK(symheap_bytes_in_use(h) == MiB);
    CHECK(symheap_largest_free(h) == 0);
    CHECK(symheap_high_water(h) == MiB);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 1, 0, &x), SYMHEAP_ENOMEM);
    CHECK_RC(symheap_alloc(h, SIZE_MAX, 0, &x), SYMHEAP_ENOMEM);
    CHECK_RC(symheap_alloc(h, SIZE_MAX - 10, 4096, &x), SYMHEAP_ENOMEM);
    CHECK_RC(symheap_resize_in_place(h, offs[0], SIZE_MAX), SYMHEAP_ENOMEM);
    CHECK_RC(symheap_resize_in_place(h, offs[0], 8192), SYMHEAP_ENOMEM);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    /* state is intact: free one, it is reusable exactly */
    CHECK_RC(symheap_free(h, offs[100]), SYMHEAP_OK);
    CHECK(symheap_largest_free(h) == 4096);
    CHECK_RC(symheap_alloc(h, 8192, 0, &x), SYMHEAP_ENOMEM);
    CHECK_RC(symheap_alloc(h, 4096, 8192, &x), offs[100] % 8192 == 0 ? SYMHEAP_OK : SYMHEAP_ENOMEM);
    if (offs[100] % 8192 == 0)
        CHECK_RC(symheap_free(h, x), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 4000, 0, &x), SYMHEAP_OK);
    CHECK(x == offs[100]);
    hw = symheap_high_water(h);
    for (i = 0; i < n; i++)
        CHECK_RC(symheap_free(h, offs[i]), SYMHEAP_OK);
    CHECK(symheap_largest_free(h) == MiB);
    CHECK(symheap_bytes_in_use(h) == 0);
    CHECK(symheap_high_water(h) == hw);
    CHECK_RC(symheap_alloc(h, MiB, 0, &x), SYMHEAP_OK); /* whole region */
    CHECK(x == 0);
    CHECK_RC(symheap_free(h, x), SYMHEAP_OK);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    symheap_destroy(h);
    return 1;
}

static int test_invalid(void)
{
    symheap_t *h;
    size_t a, b, bs;
    CHECK_RC(symheap_create(&h, MiB, 64), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 0, 0, &a), SYMHEAP_EINVAL);
    CHECK_RC(symheap_alloc(h, 64, 0, NULL), SYMHEAP_EINVAL);
    CHECK_RC(symheap_alloc(NULL, 64, 0, &a), SYMHEAP_EINVAL);
    CHECK_RC(symheap_alloc(h, 256, 0, &a), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 256, 0, &b), SYMHEAP_OK);
    CHECK_RC(symheap_free(h, 512), SYMHEAP_EINVAL);        /* free space */
    CHECK_RC(symheap_free(h, a + 64), SYMHEAP_EINVAL);     /* interior */
    CHECK_RC(symheap_free(h, a + 1), SYMHEAP_EINVAL);      /* unaligned */
    CHECK_RC(symheap_free(h, MiB), SYMHEAP_EINVAL);        /* out of range */
    CHECK_RC(symheap_free(h, SIZE_MAX), SYMHEAP_EINVAL);
    CHECK_RC(symheap_free(NULL, 0), SYMHEAP_EINVAL);
    CHECK_RC(symheap_block_size(h, b + 64, &bs), SYMHEAP_EINVAL);
    CHECK_RC(symheap_block_size(h, b, NULL), SYMHEAP_EINVAL);
    CHECK_RC(symheap_resize_in_place(h, 512, 64), SYMHEAP_EINVAL);
    CHECK_RC(symheap_resize_in_place(h, a, 0), SYMHEAP_EINVAL);
    CHECK_RC(symheap_free(h, a), SYMHEAP_OK);
    CHECK_RC(symheap_free(h, a), SYMHEAP_EINVAL); /* double free */
    CHECK_RC(symheap_block_size(h, a, &bs), SYMHEAP_EINVAL);
    CHECK_RC(symheap_resize_in_place(h, a, 64), SYMHEAP_EINVAL);
    CHECK(symheap_bytes_in_use(h) == 256);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    CHECK_RC(symheap_free(h, b), SYMHEAP_OK);
    CHECK(symheap_largest_free(h) == MiB);
    symheap_destroy(h);
    return 1;
}

static int test_resize(void)
{
    symheap_t *h;
    size_t a, b, c, x, bs, hw;
    CHECK_RC(symheap_create(&h, 16 * MiB, 64), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 1024, 0, &a), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 1024, 0, &b), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, 1024, 0, &c), SYMHEAP_OK);
    CHECK_RC(symheap_resize_in_place(h, a, 1024), SYMHEAP_OK); /* same size */
    CHECK_RC(symheap_resize_in_place(h, a, 1000), SYMHEAP_OK); /* rounds to same */
    CHECK_RC(symheap_resize_in_place(h, a, 1025), SYMHEAP_ENOMEM); /* b is live */
    CHECK_RC(symheap_block_size(h, a, &bs), SYMHEAP_OK);
    CHECK(bs == 1024);
    CHECK_RC(symheap_free(h, b), SYMHEAP_OK);
    CHECK_RC(symheap_resize_in_place(h, a, 1500), SYMHEAP_OK); /* partial grow */
    CHECK_RC(symheap_block_size(h, a, &bs), SYMHEAP_OK);
    CHECK(bs == 1536);
    CHECK(symheap_largest_free(h) == 16 * MiB - 3072);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    CHECK_RC(symheap_resize_in_place(h, a, 2048), SYMHEAP_OK); /* consume hole */
    CHECK_RC(symheap_resize_in_place(h, a, 2049), SYMHEAP_ENOMEM);
    CHECK(symheap_bytes_in_use(h) == 3072);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    /* shrink splits off the tail, which is immediately reusable */
    CHECK_RC(symheap_resize_in_place(h, a, 100), SYMHEAP_OK);
    CHECK_RC(symheap_block_size(h, a, &bs), SYMHEAP_OK);
    CHECK(bs == 128);
    CHECK(symheap_bytes_in_use(h) == 128 + 1024);
    CHECK_RC(symheap_alloc(h, 1024, 0, &x), SYMHEAP_OK);
    CHECK(x == a + 128);
    /* shrink next to a free neighbour merges into it */
    CHECK_RC(symheap_free(h, x), SYMHEAP_OK);
    CHECK_RC(symheap_resize_in_place(h, a, 64), SYMHEAP_OK);
    CHECK(symheap_largest_free(h) == 16 * MiB - 3072);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    /* the last block grows into the wilderness and shrinks back into it */
    hw = symheap_high_water(h);
    CHECK_RC(symheap_resize_in_place(h, c, MiB), SYMHEAP_OK);
    CHECK(symheap_high_water(h) == c + MiB);
    CHECK(symheap_high_water(h) > hw);
    CHECK_RC(symheap_resize_in_place(h, c, 16 * MiB - c), SYMHEAP_OK);
    CHECK(symheap_high_water(h) == 16 * MiB);
    CHECK_RC(symheap_resize_in_place(h, c, 16 * MiB - c + 64), SYMHEAP_ENOMEM);
    CHECK_RC(symheap_resize_in_place(h, c, 64), SYMHEAP_OK);
    CHECK(symheap_largest_free(h) == 16 * MiB - c - 64);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    CHECK_RC(symheap_free(h, a), SYMHEAP_OK);
    CHECK_RC(symheap_free(h, c), SYMHEAP_OK);
    CHECK(symheap_largest_free(h) == 16 * MiB);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    symheap_destroy(h);
    return 1;
}

/* Same call sequence on separately created heaps, with unrelated malloc
 * traffic in between, must yield identical offsets and codes. */
static int det_run(uint64_t seed, size_t *log, size_t nlog, int perturb)
{
    symheap_t *h;
    size_t live[512], nlive = 0, i;
    void *junk[64] = {0};
    CHECK_RC(symheap_create(&h, 8 * MiB, 64), SYMHEAP_OK);
    rng_state = seed;
    for (i = 0; i < nlog; i++) {
        uint64_t r = rng_next();
        if (perturb) { /* disturb the process heap in a seed-independent way */
            size_t j = (size_t)(i * 7 % 64);
            free(junk[j]);
            junk[j] = malloc(1 + (i * 131) % 5000);
        }
        if ((r & 3) != 0 && nlive < 512) {
            size_t off = (size_t)-1;
            size_t align = (r >> 8 & 7) == 0 ? 4096 : 0;
            int rc = symheap_alloc(h, 1 + (size_t)(r >> 16) % 20000, align, &off);
            log[i] = rc == SYMHEAP_OK ? off : (size_t)-1 - (size_t)rc;
            if (rc == SYMHEAP_OK)
                live[nlive++] = off;
        } else if (nlive) {
            size_t k = (size_t)(r >> 20) % nlive;
            if ((r >> 4 & 3) == 0) {
                int rc = symheap_resize_in_place(h, live[k], 1 + (size_t)(r >> 32) % 30000);
                log[i] = (size_t)rc;
            } else {
                log[i] = (size_t)symheap_free(h, live[k]);
                live[k] = live[--nlive];
            }
        } else {
            log[i] = 0;
        }
    }
    log[nlog - 1] ^= symheap_high_water(h) * 31 + symheap_largest_free(h);
    for (i = 0; i < 64; i++)
        free(junk[i]);
    symheap_destroy(h);
    return 1;
}

static int test_determinism(void)
{
    enum { N = 20000 };
    size_t *l1 = (size_t *)malloc(N * sizeof *l1);
    size_t *l2 = (size_t *)malloc(N * sizeof *l2);
    int ok;
    CHECK(l1 && l2);
    ok = det_run(42, l1, N, 0) && det_run(42, l2, N, 1) &&
         memcmp(l1, l2, N * sizeof *l1) == 0;
    free(l1);
    free(l2);
    CHECK(ok);
    return 1;
}

/* Huge reserved capacity: metadata stays proportional to the block count. */
static int test_large_capacity(void)
{
    symheap_t *h;
    size_t cap = (SIZE_MAX >> 20) >= ((size_t)1 << 20) ? ((size_t)1 << 40) : ((size_t)1 << 30);
    size_t a, b, x;
    CHECK_RC(symheap_create(&h, cap, 64), SYMHEAP_OK);
    CHECK(symheap_largest_free(h) == cap);
    CHECK_RC(symheap_alloc(h, 64, 0, &a), SYMHEAP_OK);
    CHECK(a == 0);
    CHECK_RC(symheap_alloc(h, cap / 2, GiB, &b), SYMHEAP_OK);
    CHECK(b % GiB == 0);
    CHECK(symheap_high_water(h) == b + cap / 2);
    CHECK_RC(symheap_alloc(h, cap, 0, &x), SYMHEAP_ENOMEM);
    CHECK_RC(symheap_free(h, b), SYMHEAP_OK);
    CHECK_RC(symheap_free(h, a), SYMHEAP_OK);
    CHECK(symheap_largest_free(h) == cap);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    symheap_destroy(h);

    /* capacity close to SIZE_MAX is rounded down and usable */
    CHECK_RC(symheap_create(&h, SIZE_MAX, 4096), SYMHEAP_OK);
    CHECK(symheap_largest_free(h) == (SIZE_MAX & ~(size_t)4095));
    CHECK_RC(symheap_alloc(h, SIZE_MAX / 2, 0, &a), SYMHEAP_OK);
    CHECK_RC(symheap_alloc(h, SIZE_MAX / 2, 0, &b), SYMHEAP_ENOMEM);
    CHECK_RC(symheap_alloc(h, SIZE_MAX - 8192, 0, &b), SYMHEAP_ENOMEM);
    CHECK_RC(symheap_resize_in_place(h, a, SIZE_MAX - 4096), SYMHEAP_OK);
    CHECK_RC(symheap_free(h, a), SYMHEAP_OK);
    CHECK_RC(symheap_check(h), SYMHEAP_OK);
    symheap_destroy(h);
    return 1;
}

/* Many live blocks: exercises hash-table growth and backward-shift deletion. */
static int test_many_blocks(void)
{
    enum { N = 100000 };
    symheap_t *h;
    size_t *offs = (size_t *)malloc(N * sizeof *offs), i;
    int ok = 1;
    CHECK(offs != NULL);
    if (symheap_create(&h, GiB, 64) != SYMHEAP_OK) {
        free(offs);
        CHECK(0);
    }
    for (i = 0; i < N && ok; i++)
        ok = symheap_alloc(h, 64 + (i % 3) * 64, 0, &offs[i]) == SYMHEAP_OK;
    ok = ok && symheap_check(h) == SYMHEAP_OK;
    /* free every other block, then the rest, in a shuffled order */
    rng_state = 7;
    for (i = N - 1; i > 0 && ok; i--) {
        size_t j = rng_below(i + 1), t = offs[i];
        offs[i] = offs[j];
        offs[j] = t;
    }
    for (i = 0; i < N && ok; i++) {
        size_t bs;
        ok = symheap_block_size(h, offs[i], &bs) == SYMHEAP_OK &&
             symheap_free(h, offs[i]) == SYMHEAP_OK &&
             symheap_free(h, offs[i]) == SYMHEAP_EINVAL;
        if (ok && i == N / 2)
            ok = symheap_check(h) == SYMHEAP_OK;
    }
    ok = ok && symheap_largest_free(h) == GiB && symheap_bytes_in_use(h) == 0 &&
         symheap_check(h) == SYMHEAP_OK;
    symheap_destroy(h);
    free(offs);
    CHECK(ok);
    return 1;
}

/* ------------------------------------------------------------------------ */

static uint64_t g_time_seed;

static int test_random_fixed(void)
{
    static const rand_cfg_t cfgs[] = {
        {1, 16 * MiB, 64, 40000},
        {2, 1 * MiB, 64, 40000},
        {3, 64 * MiB, 8, 30000},
        {4, 4 * MiB, 4096, 30000},
        {5, 256 * MiB, 64, 30000},
    };
    size_t i;
    for (i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++)
        if (!run_random(&cfgs[i])) {
            fprintf(stderr, "  random run with seed %llu failed\n",
                    (unsigned long long)cfgs[i].seed);
            return 0;
        }
    return 1;
}

static int test_random_timeseed(void)
{
    rand_cfg_t cfg = {0, 16 * MiB, 64, 40000};
    cfg.seed = g_time_seed;
    if (!run_random(&cfg)) {
        fprintf(stderr, "  random run with seed %llu failed (replay: symheap_test %llu)\n",
                (unsigned long long)cfg.seed, (unsigned long long)cfg.seed);
        return 0;
    }
    return 1;
}

typedef struct {
    const char *name;
    int (*fn)(void);
} test_t;

int main(int argc, char **argv)
{
    static const test_t tests[] = {
        {"create_args", test_create_args},
        {"basic", test_basic},
        {"reuse", test_reuse},
        {"coalesce", test_coalesce},
        {"best_fit", test_best_fit},
        {"alignment", test_alignment},
        {"exhaustion", test_exhaustion},
        {"invalid", test_invalid},
        {"resize", test_resize},
        {"determinism", test_determinism},
        {"large_capacity", test_large_capacity},
        {"many_blocks", test_many_blocks},
        {"random_fixed", test_random_fixed},
        {"random_timeseed", test_random_timeseed},
    };
    size_t i, n = sizeof tests / sizeof tests[0];
    int passed = 0, failed = 0;

    if (argc > 1)
        g_time_seed = (uint64_t)strtoull(argv[1], NULL, 0);
    else
        g_time_seed = (uint64_t)time(NULL);
    printf("symheap_test: time seed = %llu\n", (unsigned long long)g_time_seed);

    for (i = 0; i < n; i++) {
        int ok;
        printf("[ RUN  ] %s\n", tests[i].name);
        fflush(stdout);
        ok = tests[i].fn();
        printf("[ %s ] %s\n", ok ? " OK " : "FAIL", tests[i].name);
        if (ok)
            passed++;
        else
            failed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
