/* Symmetric heap management: shmem_malloc, calloc, align, realloc, free, malloc_with_hints and
 * the deprecated spellings.
 *  - every returned block has the same offset from a first allocation on every PE (PE 0's
 *    offsets are read with shmem_g) and is usable from other PEs: the left neighbour writes
 *    random data into it with putmem, the owner checks it;
 *  - calloc memory is zero even where freed blocks held data; align honours 1 B .. 1 MiB;
 *  - realloc keeps the contents when growing in place, shrinking, growing into a freed
 *    neighbour and moving (and the live block it moves past is left alone);
 *  - a freed block is reused by the next allocation of its size;
 *  - random rounds of allocations and frees, all data written through the neighbour and checked,
 *    live blocks never overlap;
 *  - size 0 gives NULL. */
#include <shmem.h>
#include <string.h>

#include "common.h"

enum { K_DATA = 1, K_OPS = 2 };
static char *base; /* the first allocation: offsets are taken from here */
static unsigned char *scratch;
#define SCRATCH_BYTES ((size_t)3 << 20)

static void fill(unsigned char *p, size_t len, int pe, uint64_t tag)
{
    for (size_t j = 0; j < len; j += 8) {
        uint64_t w = test_value(pe, K_DATA, (tag << 32) | (j >> 3));
        for (size_t b = 0; b < 8 && j + b < len; b++) p[j + b] = (unsigned char)(w >> (8 * b));
    }
}
static size_t verify(const unsigned char *p, size_t len, int pe, uint64_t tag, size_t *first)
{
    size_t bad = 0;
    *first = SIZE_MAX;
    for (size_t j = 0; j < len; j += 8) {
        uint64_t w = test_value(pe, K_DATA, (tag << 32) | (j >> 3));
        for (size_t b = 0; b < 8 && j + b < len; b++)
            if (p[j + b] != (unsigned char)(w >> (8 * b)) && bad++ == 0) *first = j + b;
    }
    return bad;
}

static int right_pe(void) { return (shmem_my_pe() + 1) % shmem_n_pes(); }
static int left_pe(void) { return (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes(); }

/* Collective: p has the same offset from `base` on every PE as on PE 0. */
static long g_offset;
static void check_symmetric(const void *p, const char *what)
{
    long off = p ? (long)((const char *)p - base) : -1;
    g_offset = off;
    shmem_barrier_all();
    long off0 = shmem_long_g(&g_offset, 0);
    CHECK(off == off0, "%s: offset %ld from the first allocation here, %ld on PE 0", what, off, off0);
    shmem_barrier_all();
}

/* Collective: the left neighbour writes `len` bytes of data tagged `tag` into my block p. */
static void write_through_neighbour(void *p, size_t len, uint64_t tag)
{
    if (len > SCRATCH_BYTES) len = SCRATCH_BYTES;
    fill(scratch, len, shmem_my_pe(), tag);
    shmem_putmem(p, scratch, len, right_pe());
    shmem_barrier_all();
}
static void check_from_neighbour(const void *p, size_t len, uint64_t tag, const char *what)
{
    size_t first, bad = verify(p, len, left_pe(), tag, &first);
    CHECK(bad == 0, "%s: %zu of %zu bytes differ from what PE %d wrote, first at byte %zu", what, bad, len,
          left_pe(), first);
}
/* Allocation check in one: symmetric, usable from the neighbour. */
static void check_block(void *p, size_t len, uint64_t tag, const char *what)
{
    CHECK(p != NULL, "%s: NULL", what);
    check_symmetric(p, what);
    if (!p) return;
    write_through_neighbour(p, len, tag);
    check_from_neighbour(p, len, tag, what);
}

static void test_zero_sizes(void)
{
    CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0) is not NULL");
    CHECK(shmem_calloc(0, 8) == NULL, "shmem_calloc(0, 8) is not NULL");
    CHECK(shmem_calloc(8, 0) == NULL, "shmem_calloc(8, 0) is not NULL");
    CHECK(shmem_align(64, 0) == NULL, "shmem_align(64, 0) is not NULL");
    CHECK(shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE) == NULL, "shmem_malloc_with_hints(0) is not NULL");
    CHECK(shmem_realloc(NULL, 0) == NULL, "shmem_realloc(NULL, 0) is not NULL");
    shmem_free(NULL); /* no-op */
    void *p = shmem_malloc(100);
    CHECK(shmem_realloc(p, 0) == NULL, "shmem_realloc(p, 0) is not NULL");
    /* realloc(p, 0) freed p: the same request gets the same block back */
    void *q = shmem_malloc(100);
    CHECK(q == p, "after shmem_realloc(p, 0), shmem_malloc(100) returned %p, not the freed %p", q, p);
    shmem_free(q);
}

static void test_sizes(void)
{
    static const size_t sizes[] = {1, 7, 8, 63, 64, 65, 1000, 4096, 65541, ((size_t)1 << 20) + 3};
    enum { N = sizeof sizes / sizeof sizes[0] };
    void *p[N];
    char what[64];
    for (size_t i = 0; i < N; i++) {
        p[i] = shmem_malloc(sizes[i]);
        snprintf(what, sizeof what, "shmem_malloc(%zu)", sizes[i]);
        CHECK(((uintptr_t)p[i] & 15) == 0, "%s = %p: not aligned for any type", what, p[i]);
        check_block(p[i], sizes[i], 100 + i, what);
    }
    /* every block still holds its data: no two overlap */
    for (size_t i = 0; i < N; i++) {
        snprintf(what, sizeof what, "shmem_malloc(%zu) after later allocations", sizes[i]);
        check_from_neighbour(p[i], sizes[i], 100 + i, what);
    }
    shmem_barrier_all();
    for (size_t i = N; i-- > 0;) shmem_free(p[i]);
}

static void test_calloc(void)
{
    static const size_t shapes[][2] = {{1, 1}, {3, 5}, {100, 8}, {1000, 3}, {4096, 16}, {1, 300001}};
    char what[64];
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        size_t bytes = shapes[i][0] * shapes[i][1];
        /* leave data behind, written locally and by the neighbour, in the space calloc reuses */
        unsigned char *dirty = shmem_malloc(bytes);
        memset(dirty, 0xa5, bytes);
        write_through_neighbour(dirty, bytes / 2 + 1, 200 + i);
        shmem_free(dirty);
        unsigned char *p = shmem_calloc(shapes[i][0], shapes[i][1]);
        snprintf(what, sizeof what, "shmem_calloc(%zu, %zu)", shapes[i][0], shapes[i][1]);
        CHECK(p == dirty, "%s: %p, not the freed block %p of the same size", what, (void *)p, (void *)dirty);
        size_t nonzero = 0;
        for (size_t j = 0; p && j < bytes; j++) nonzero += p[j] != 0;
        CHECK(p && nonzero == 0, "%s: %zu of %zu bytes not zero", what, nonzero, bytes);
        shmem_barrier_all();
        check_block(p, bytes, 300 + i, what);
        shmem_free(p);
    }
}

static void test_align(void)
{
    void *small[21], *aligned[21];
    char what[64];
    for (int k = 0; k <= 20; k++) {
        size_t a = (size_t)1 << k, size = 24 + 40 * (size_t)k;
        small[k] = shmem_malloc(24 + 8 * (size_t)k); /* moves the heap's end off any alignment */
        aligned[k] = shmem_align(a, size);
        snprintf(what, sizeof what, "shmem_align(%zu, %zu)", a, size);
        CHECK(((uintptr_t)aligned[k] & (a - 1)) == 0, "%s = %p: not aligned to %zu (address mod %zu = %zu)", what,
              aligned[k], a, a, (size_t)((uintptr_t)aligned[k] & (a - 1)));
        check_block(aligned[k], size, 400 + (uint64_t)k, what);
    }
    for (int k = 0; k <= 20; k++) {
        snprintf(what, sizeof what, "shmem_align(%zu) after later allocations", (size_t)1 << k);
        check_from_neighbour(aligned[k], 24 + 40 * (size_t)k, 400 + (uint64_t)k, what);
    }
    CHECK(shmemalign(4096, 100) != NULL, "shmemalign");
    shmem_barrier_all();
    for (int k = 20; k >= 0; k--) {
        shmem_free(aligned[k]);
        shmem_free(small[k]);
    }
    /* a large alignment in an otherwise empty region of the heap, and one in a hole */
    void *big = shmem_align((size_t)1 << 20, 3 << 20);
    CHECK(((uintptr_t)big & (((size_t)1 << 20) - 1)) == 0, "shmem_align(1 MiB, 3 MiB) = %p", big);
    check_block(big, 3 << 20, 450, "shmem_align(1 MiB, 3 MiB)");
    shmem_free(big);
}

static void test_realloc(void)
{
    size_t first;
    /* grow in place (nothing after it), then shrink */
    unsigned char *a = shmem_malloc(1000);
    check_block(a, 1000, 500, "realloc: block to grow");
    unsigned char *a2 = shmem_realloc(a, 5000);
    CHECK(a2 != NULL, "shmem_realloc(1000 -> 5000) is NULL");
    if (!a2) return;
    CHECK(verify(a2, 1000, left_pe(), 500, &first) == 0, "shmem_realloc(1000 -> 5000) lost data, first at %zu", first);
    check_block(a2, 5000, 501, "shmem_realloc(1000 -> 5000)");
    unsigned char *a3 = shmem_realloc(a2, 300);
    CHECK(a3 && verify(a3, 300, left_pe(), 501, &first) == 0, "shmem_realloc(5000 -> 300) lost data, first %zu", first);
    check_block(a3, 300, 502, "shmem_realloc(5000 -> 300)");

    /* grow into a freed neighbour: A B C, free B, grow A over B's space */
    unsigned char *b = shmem_malloc(2000), *c = shmem_malloc(64);
    check_block(b, 2000, 503, "realloc: middle block");
    check_block(c, 64, 504, "realloc: guard block");
    shmem_free(b);
    unsigned char *a4 = shmem_realloc(a3, 2200);
    CHECK(a4 && verify(a4, 300, left_pe(), 502, &first) == 0, "shmem_realloc(300 -> 2200) after freeing the next "
          "block lost data, first %zu", first);
    check_block(a4, 2200, 505, "shmem_realloc(300 -> 2200) into a freed neighbour");
    CHECK(verify(c, 64, left_pe(), 504, &first) == 0, "growing into a freed neighbour overwrote the block after it");

    /* moving: the block right after is live, so growing must move and leave it alone */
    unsigned char *a5 = shmem_realloc(a4, 40000);
    CHECK(a5 && verify(a5, 2200, left_pe(), 505, &first) == 0, "shmem_realloc(2200 -> 40000) lost data, "
          "first %zu", first);
    CHECK(verify(c, 64, left_pe(), 504, &first) == 0, "moving realloc overwrote the live block after it");
    CHECK(a5 + 40000 <= c || a5 >= c + 64, "shmem_realloc(2200 -> 40000) = %p overlaps the live block %p",
          (void *)a5, (void *)c);
    check_block(a5, 40000, 506, "shmem_realloc(2200 -> 40000), moved");
    /* and the space it left is reused */
    unsigned char *d = shmem_malloc(2000);
    check_block(d, 2000, 507, "malloc after a moving realloc");
    CHECK(verify(a5, 40000, left_pe(), 506, &first) == 0, "malloc after moving realloc overwrote the moved block");
    /* realloc(NULL) is malloc; shrealloc */
    unsigned char *e = shmem_realloc(NULL, 777);
    check_block(e, 777, 508, "shmem_realloc(NULL, 777)");
    unsigned char *e2 = shrealloc(e, 7777);
    CHECK(e2 && verify(e2, 777, left_pe(), 508, &first) == 0, "shrealloc(777 -> 7777) lost data");
    check_block(e2, 7777, 509, "shrealloc(777 -> 7777)");
    shmem_free(e2);
    shmem_free(d);
    shmem_free(a5);
    shmem_free(c);
}

static void test_reuse(void)
{
    void *a = shmem_malloc(5000), *b = shmem_malloc(3000), *c = shmem_malloc(700);
    shmem_free(b);
    void *b2 = shmem_malloc(3000);
    CHECK(b2 == b, "malloc/free/malloc of 3000 bytes between live blocks: %p, then %p", b, b2);
    shmem_free(c);
    void *c2 = shmem_malloc(700);
    CHECK(c2 == c, "malloc/free/malloc of 700 bytes at the end: %p, then %p", c, c2);
    void *h = shmem_malloc_with_hints(5000, 0);
    shmem_free(h);
    void *h2 = shmem_malloc(5000);
    CHECK(h2 == h, "malloc_with_hints/free/malloc: %p, then %p", h, h2);
    void *s = shmalloc(123);
    shfree(s);
    void *s2 = shmem_malloc(123);
    CHECK(s2 == s, "shmalloc/shfree/shmem_malloc: %p, then %p", s, s2);
    shmem_free(s2);
    shmem_free(h2);
    shmem_free(c2);
    shmem_free(b2);
    shmem_free(a);
}

static void test_hints(void)
{
    static const long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                                 SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
    int n = shmem_n_pes();
    for (size_t i = 0; i < 4; i++) {
        long *p = shmem_malloc_with_hints(16 * sizeof(long), hints[i]);
        char what[64];
        snprintf(what, sizeof what, "shmem_malloc_with_hints(128, %ld)", hints[i]);
        check_block(p, 16 * sizeof(long), 600 + i, what);
        if (!p) continue;
        p[3] = 0;
        shmem_barrier_all();
        for (int t = 0; t < n; t++) shmem_long_atomic_add(&p[3], t + 1, t);
        shmem_barrier_all();
        CHECK(p[3] == (long)n * (shmem_my_pe() + 1), "%s: atomic adds from all PEs gave %ld, expected %ld", what,
              p[3], (long)n * (shmem_my_pe() + 1));
        shmem_free(p);
    }
}

/* ---- random rounds ----------------------------------------------------------------------------- */
#define LIVE 24
#define OPS 300
static long g_offsets[OPS];

typedef struct { unsigned char *p; size_t size; uint64_t tag; } block_t;

static void test_random(void)
{
    block_t live[LIVE];
    memset(live, 0, sizeof live);
    char what[96];
    size_t first;
    int nalloc = 0;
    for (int op = 0; op < OPS; op++) {
        /* the same decisions on every PE: the calls are collective */
        uint64_t u = test_value(0, K_OPS, (uint64_t)op);
        int slot = (int)(u % LIVE), kind = (int)((u >> 8) % 8);
        size_t size = 1 + (size_t)((u >> 16) % ((u >> 40) % 8 == 0 ? 200000 : 16384));
        uint64_t tag = 1000 + (uint64_t)op;
        block_t *b = &live[slot];
        const char *call;
        int check_zero = 0;
        size_t keep = 0; /* bytes realloc must preserve */
        uint64_t old_tag = b->tag;
        if (b->p && kind < 3) { /* free */
            shmem_free(b->p);
            b->p = NULL;
            continue;
        }
        if (b->p) { /* realloc */
            call = "shmem_realloc";
            keep = b->size < size ? b->size : size;
            b->p = shmem_realloc(b->p, size);
        } else if (kind < 3) {
            call = "shmem_malloc";
            b->p = shmem_malloc(size);
        } else if (kind < 5) {
            call = "shmem_calloc";
            size = size / 4 + 1;
            b->p = shmem_calloc(size, 4);
            size *= 4;
            check_zero = 1;
        } else if (kind < 7) {
            size_t a = (size_t)1 << ((u >> 50) % 17);
            call = "shmem_align";
            b->p = shmem_align(a, size);
            CHECK(((uintptr_t)b->p & (a - 1)) == 0, "op %d: shmem_align(%zu, %zu) = %p", op, a, size, (void *)b->p);
        } else {
            call = "shmem_malloc_with_hints";
            b->p = shmem_malloc_with_hints(size, SHMEM_MALLOC_ATOMICS_REMOTE);
        }
        snprintf(what, sizeof what, "op %d: %s(%zu)", op, call, size);
        CHECK(b->p != NULL, "%s: NULL", what);
        if (!b->p) continue;
        b->size = size;
        b->tag = tag;
        g_offsets[nalloc++] = (long)((char *)b->p - base);
        if (keep)
            CHECK(verify(b->p, keep, left_pe(), old_tag, &first) == 0, "%s: the first %zu bytes changed, first "
                  "at %zu", what, keep, first);
        if (check_zero) {
            size_t nonzero = 0;
            for (size_t j = 0; j < size; j++) nonzero += b->p[j] != 0;
            CHECK(nonzero == 0, "%s: %zu bytes not zero", what, nonzero);
        }
        /* no overlap with any other live block */
        for (int i = 0; i < LIVE; i++)
            if (i != slot && live[i].p)
                CHECK(b->p + b->size <= live[i].p || live[i].p + live[i].size <= b->p,
                      "%s = [%p, +%zu) overlaps a live block [%p, +%zu)", what, (void *)b->p, b->size,
                      (void *)live[i].p, live[i].size);
        shmem_barrier_all(); /* checked before the neighbour overwrites it */
        write_through_neighbour(b->p, size, tag);
        check_from_neighbour(b->p, size, tag, what);
        if (op % 5 == 4)
            for (int i = 0; i < LIVE; i++)
                if (live[i].p) {
                    snprintf(what, sizeof what, "op %d: live block %d of %zu bytes", op, i, live[i].size);
                    check_from_neighbour(live[i].p, live[i].size, live[i].tag, what);
                }
    }
    /* every PE got the same offsets */
    shmem_barrier_all();
    long *theirs = malloc(sizeof(long) * OPS);
    shmem_long_get(theirs, g_offsets, (size_t)nalloc, 0);
    int differ = 0;
    for (int i = 0; i < nalloc; i++) differ += theirs[i] != g_offsets[i];
    CHECK(differ == 0, "random rounds: %d of %d allocations at other offsets than on PE 0", differ, nalloc);
    free(theirs);
    shmem_barrier_all();
    for (int i = 0; i < LIVE; i++) shmem_free(live[i].p);
}

int main(void)
{
    shmem_init();
    test_seed();
    base = shmem_malloc(1);
    scratch = malloc(SCRATCH_BYTES);
    CHECK(base != NULL, "shmem_malloc(1) is NULL");
    test_zero_sizes();
    test_sizes();
    test_calloc();
    test_align();
    test_realloc();
    test_reuse();
    test_hints();
    test_random();
    free(scratch);
    shmem_free(base);
    int status = test_finish("memory");
    shmem_finalize();
    return status;
}
