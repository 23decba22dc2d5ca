/* RMA: every typed family of the RMA type table (put, get, put_nbi, get_nbi, p, g, iput, iget,
 * ibput, ibget), the sized families (8..128) and putmem/getmem, on symmetric heap buffers and on
 * global (data segment) arrays, to every PE, with lengths 0, 1, odd and large; plus 1 MiB + 3
 * byte putmem/getmem and the C11 generic selections.
 *
 * Every PE sends its own random data; the receiver recomputes the sender's data from
 * test_value() and replays each transfer on a plain-C model of its buffer, so elements that a
 * (strided) transfer must not touch are checked to still hold their sentinel values. */
#include <shmem.h>
#include <stdalign.h>
#include <string.h>

#include "common.h"

/* ---- one element type, seen through void pointers ------------------------------------------ */
typedef void (*contig_fn)(void *, const void *, size_t, int);
typedef void (*strided_fn)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
typedef void (*bstrided_fn)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, size_t, int);

typedef struct family {
    const char *name;
    size_t size; /* element bytes */
    contig_fn put, get, put_nbi, get_nbi;
    void (*p)(void *dest, const void *value, int pe);   /* NULL: no such call */
    void (*g)(void *result, const void *source, int pe); /* NULL: no such call */
    strided_fn iput, iget;                               /* NULL: no such call */
    bstrided_fn ibput, ibget;                            /* NULL: no such call */
    void (*mk)(void *elem, uint64_t random);             /* an element from 64 random bits */
    int (*eq)(const void *a, const void *b);
    void (*show)(const void *a, char *buf, size_t len);
} family_t;

/* Typed families: one set of wrappers per row of the RMA type table. */
#define TYPED_WRAPPERS(T, N, _)                                                                    \
    static void put_##N(void *d, const void *s, size_t n, int pe) { shmem_##N##_put(d, s, n, pe); } \
    static void get_##N(void *d, const void *s, size_t n, int pe) { shmem_##N##_get(d, s, n, pe); } \
    static void put_nbi_##N(void *d, const void *s, size_t n, int pe)                             \
    { shmem_##N##_put_nbi(d, s, n, pe); }                                                         \
    static void get_nbi_##N(void *d, const void *s, size_t n, int pe)                             \
    { shmem_##N##_get_nbi(d, s, n, pe); }                                                         \
    static void p_##N(void *d, const void *v, int pe) { shmem_##N##_p(d, *(const T *)v, pe); }    \
    static void g_##N(void *r, const void *s, int pe) { *(T *)r = shmem_##N##_g(s, pe); }          \
    static void iput_##N(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe)  \
    { shmem_##N##_iput(d, s, dst, sst, n, pe); }                                                  \
    static void iget_##N(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe)  \
    { shmem_##N##_iget(d, s, dst, sst, n, pe); }                                                  \
    static void ibput_##N(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b,         \
                          size_t n, int pe)                                                        \
    { shmem_##N##_ibput(d, s, dst, sst, b, n, pe); }                                              \
    static void ibget_##N(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b,         \
                          size_t n, int pe)                                                        \
    { shmem_##N##_ibget(d, s, dst, sst, b, n, pe); }                                              \
    static void mk_##N(void *e, uint64_t u) { *(T *)e = (T)(int64_t)u; }                          \
    static int eq_##N(const void *a, const void *b) { return *(const T *)a == *(const T *)b; }    \
    static void show_##N(const void *a, char *buf, size_t len)                                    \
    {                                                                                              \
        T x = *(const T *)a, zero = 0, minus1 = (T)(zero - 1);                                     \
        if ((T)0.5 != zero) snprintf(buf, len, "%Lg", (long double)x);                             \
        else if (minus1 > zero) snprintf(buf, len, "%llu", (unsigned long long)x);                 \
        else snprintf(buf, len, "%lld", (long long)x);                                             \
    }
NODESHM_RMA_TYPES(TYPED_WRAPPERS, _)

#define TYPED_ENTRY(T, N, _)                                                                       \
    {#N, sizeof(T), put_##N, get_##N, put_nbi_##N, get_nbi_##N, p_##N, g_##N, iput_##N, iget_##N, \
     ibput_##N, ibget_##N, mk_##N, eq_##N, show_##N},

/* Sized families: elements are B/8 opaque bytes. */
static void mk_bytes(void *e, uint64_t u, size_t n)
{
    unsigned char *p = e;
    for (size_t k = 0; k < n; k++) {
        if (k % 8 == 0 && k) u = test_mix(u);
        p[k] = (unsigned char)(u >> (8 * (k % 8)));
    }
}
static void show_bytes(const void *a, size_t n, char *buf, size_t len)
{
    const unsigned char *p = a;
    size_t o = 0;
    for (size_t k = 0; k < n && o + 3 < len; k++) o += (size_t)snprintf(buf + o, len - o, "%02x", p[k]);
}
#define SIZED_WRAPPERS(B, _)                                                                       \
    static void put##B##_w(void *d, const void *s, size_t n, int pe) { shmem_put##B(d, s, n, pe); } \
    static void get##B##_w(void *d, const void *s, size_t n, int pe) { shmem_get##B(d, s, n, pe); } \
    static void put##B##_nbi_w(void *d, const void *s, size_t n, int pe)                          \
    { shmem_put##B##_nbi(d, s, n, pe); }                                                          \
    static void get##B##_nbi_w(void *d, const void *s, size_t n, int pe)                          \
    { shmem_get##B##_nbi(d, s, n, pe); }                                                          \
    static void iput##B##_w(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) \
    { shmem_iput##B(d, s, dst, sst, n, pe); }                                                     \
    static void iget##B##_w(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) \
    { shmem_iget##B(d, s, dst, sst, n, pe); }                                                     \
    static void ibput##B##_w(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b,      \
                             size_t n, int pe)                                                     \
    { shmem_ibput##B(d, s, dst, sst, b, n, pe); }                                                 \
    static void ibget##B##_w(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b,      \
                             size_t n, int pe)                                                     \
    { shmem_ibget##B(d, s, dst, sst, b, n, pe); }                                                 \
    static void mk##B(void *e, uint64_t u) { mk_bytes(e, u, (B) / 8); }                            \
    static int eq##B(const void *a, const void *b) { return memcmp(a, b, (B) / 8) == 0; }          \
    static void show##B(const void *a, char *buf, size_t len) { show_bytes(a, (B) / 8, buf, len); }
NODESHM_RMA_SIZES(SIZED_WRAPPERS, _)
#define SIZED_ENTRY(B, _)                                                                          \
    {"size" #B, (B) / 8, put##B##_w, get##B##_w, put##B##_nbi_w, get##B##_nbi_w, NULL, NULL,       \
     iput##B##_w, iget##B##_w, ibput##B##_w, ibget##B##_w, mk##B, eq##B, show##B},

static const family_t families[] = {
    NODESHM_RMA_TYPES(TYPED_ENTRY, _)
    NODESHM_RMA_SIZES(SIZED_ENTRY, _)
    {"mem", 1, shmem_putmem, shmem_getmem, shmem_putmem_nbi, shmem_getmem_nbi, NULL, NULL, NULL,
     NULL, NULL, NULL, mk8, eq8, show8},
};
#define NFAMILIES (sizeof families / sizeof families[0])

/* ---- the transfers each PE does to every PE, per family --------------------------------------- */
enum { X_CONTIG, X_NBI, X_SINGLE, X_STRIDED, X_BSTRIDED };
static const char *const kind_name[] = {"put/get", "put_nbi/get_nbi", "p/g", "iput/iget",
                                        "ibput/ibget"};
/* nblocks blocks of bsize elements; block b goes from source index soff + b*sst to destination
 * index b*dst (within the transfer's own area).  X_CONTIG/X_NBI: one block of the length.
 * X_SINGLE: nblocks single-element p/g calls.  X_STRIDED: iput/iget of nblocks elements. */
typedef struct xfer { int kind; size_t soff; ptrdiff_t dst, sst; size_t bsize, nblocks; } xfer_t;
static const xfer_t xfers[] = {
    {X_CONTIG, 0, 1, 1, 0, 1},      {X_CONTIG, 2, 1, 1, 1, 1},    {X_CONTIG, 3, 1, 1, 7, 1},
    {X_CONTIG, 1, 1, 1, 300, 1},    {X_NBI, 0, 1, 1, 0, 1},       {X_NBI, 5, 1, 1, 1, 1},
    {X_NBI, 4, 1, 1, 13, 1},        {X_NBI, 2, 1, 1, 301, 1},     {X_SINGLE, 1, 2, 3, 1, 5},
    {X_SINGLE, 7, 1, 1, 1, 1},      {X_STRIDED, 0, 3, 2, 1, 0},   {X_STRIDED, 1, 2, 1, 1, 1},
    {X_STRIDED, 3, 3, 2, 1, 7},     {X_STRIDED, 0, 1, 4, 1, 9},   {X_STRIDED, 2, 5, 1, 1, 6},
    {X_STRIDED, 0, 2, 2, 1, 65},    {X_BSTRIDED, 0, 5, 4, 3, 4},  {X_BSTRIDED, 1, 2, 7, 2, 5},
    {X_BSTRIDED, 2, 9, 3, 3, 6},    {X_BSTRIDED, 0, 6, 6, 4, 1},  {X_BSTRIDED, 0, 4, 4, 2, 0},
    {X_BSTRIDED, 0, 3, 3, 0, 4},    {X_BSTRIDED, 3, 4, 4, 4, 5},  {X_BSTRIDED, 1, 7, 2, 2, 9},
};
#define NXFERS (sizeof xfers / sizeof xfers[0])

static size_t area_base[NXFERS]; /* start of transfer i's area in a per-source region */
static size_t region_len;        /* elements per source region: all areas plus sentinel gaps */
static size_t src_len;           /* elements of source data any transfer reads */

static size_t xfer_extent(const xfer_t *x, ptrdiff_t stride, size_t bsize)
{
    return x->nblocks ? (x->nblocks - 1) * (size_t)stride + bsize : 0;
}

static void layout(void)
{
    size_t at = 1; /* element 0 of each region is a gap */
    src_len = 0;
    for (size_t i = 0; i < NXFERS; i++) {
        area_base[i] = at;
        at += xfer_extent(&xfers[i], xfers[i].dst, xfers[i].bsize) + 2; /* 2 gap elements */
        size_t s = xfers[i].soff + xfer_extent(&xfers[i], xfers[i].sst, xfers[i].bsize);
        if (s > src_len) src_len = s;
    }
    region_len = at;
}

static int supported(const family_t *f, int kind)
{
    switch (kind) {
    case X_SINGLE: return f->p != NULL;
    case X_STRIDED: return f->iput != NULL;
    case X_BSTRIDED: return f->ibput != NULL;
    default: return 1;
    }
}

/* Random-number streams (test_value's k) and element indices: i = family << 24 | element. */
enum { K_SENT = 1, K_PUT = 2, K_GET = 4, K_BIG = 8, K_GBIG = 12, K_GENERIC = 16, K_GSENT = 18 };
static uint64_t elem_index(size_t fam, size_t j) { return ((uint64_t)fam << 24) | j; }

static const char *const mem_name[] = {"heap", "global"};

/* Replays every transfer from source PE src_pe on a model region holding receiver me's sentinels
 * (region number `region` of me's buffer). */
static void model_region(const family_t *f, size_t fam, int mem, int k, int me, int src_pe,
                         size_t region, unsigned char *model)
{
    size_t es = f->size;
    for (size_t j = 0; j < region_len; j++)
        f->mk(model + j * es, test_value(me, K_SENT + 32 * mem, elem_index(fam, region * region_len + j)));
    for (size_t i = 0; i < NXFERS; i++) {
        const xfer_t *x = &xfers[i];
        if (!supported(f, x->kind)) continue;
        for (size_t b = 0; b < x->nblocks; b++)
            for (size_t e = 0; e < x->bsize; e++) {
                size_t d = area_base[i] + b * (size_t)x->dst + e;
                size_t s = x->soff + b * (size_t)x->sst + e;
                f->mk(model + d * es, test_value(src_pe, k + mem, elem_index(fam, s)));
            }
    }
}

static void fill_sentinels(const family_t *f, size_t fam, int mem, unsigned char *buf, size_t n)
{
    for (size_t j = 0; j < n; j++)
        f->mk(buf + j * f->size, test_value(shmem_my_pe(), K_SENT + 32 * mem, elem_index(fam, j)));
}

static const char *area_of(size_t j, char *buf, size_t len)
{
    for (size_t i = NXFERS; i-- > 0;)
        if (j >= area_base[i]) {
            const xfer_t *x = &xfers[i];
            snprintf(buf, len, "transfer %zu (%s, bsize %zu, nblocks %zu, dst %td, sst %td), area "
                     "index %zu", i, kind_name[x->kind], x->bsize, x->nblocks, x->dst, x->sst,
                     j - area_base[i]);
            return buf;
        }
    snprintf(buf, len, "gap before the first area");
    return buf;
}

static void compare_region(const family_t *f, const char *what, int mem, int peer,
                           const unsigned char *got, const unsigned char *model)
{
    char a[64], b[64], where[160];
    for (size_t j = 0; j < region_len; j++) {
        const void *g = got + j * f->size, *m = model + j * f->size;
        int ok = f->eq(g, m);
        if (!ok) {
            f->show(g, a, sizeof a);
            f->show(m, b, sizeof b);
        }
        CHECK(ok, "%s %s %s, peer PE %d, element %zu: got %s, expected %s; %s", f->name, what,
              mem_name[mem], peer, j, a, b, area_of(j, where, sizeof where));
    }
}

/* Every PE puts into its own region of every PE's buffer; each checks what arrived. */
static void put_phase(const family_t *f, size_t fam, int mem, unsigned char *dst, unsigned char *src,
                      unsigned char *model)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    size_t es = f->size;
    fill_sentinels(f, fam, mem, dst, (size_t)n * region_len);
    for (size_t j = 0; j < src_len; j++) f->mk(src + j * es, test_value(me, K_PUT + mem, elem_index(fam, j)));
    shmem_barrier_all();
    for (int r = 0; r < n; r++) {
        int t = (me + r) % n;
        unsigned char *region = dst + (size_t)me * region_len * es;
        for (size_t i = 0; i < NXFERS; i++) {
            const xfer_t *x = &xfers[i];
            unsigned char *d = region + area_base[i] * es;
            const unsigned char *s = src + x->soff * es;
            switch (x->kind) {
            case X_CONTIG: f->put(d, s, x->bsize, t); break;
            case X_NBI: f->put_nbi(d, s, x->bsize, t); break;
            case X_SINGLE:
                if (f->p)
                    for (size_t b = 0; b < x->nblocks; b++) f->p(d + b * x->dst * es, s + b * x->sst * es, t);
                break;
            case X_STRIDED:
                if (f->iput) f->iput(d, s, x->dst, x->sst, x->nblocks, t);
                break;
            case X_BSTRIDED:
                if (f->ibput) f->ibput(d, s, x->dst, x->sst, x->bsize, x->nblocks, t);
                break;
            }
        }
    }
    shmem_quiet();
    shmem_barrier_all();
    for (int s = 0; s < n; s++) {
        model_region(f, fam, mem, K_PUT, me, s, (size_t)s, model);
        compare_region(f, "put", mem, s, dst + (size_t)s * region_len * es, model);
    }
}

/* Every PE gets every transfer from every PE's source buffer into a private buffer. */
static void get_phase(const family_t *f, size_t fam, int mem, unsigned char *gsrc, unsigned char *ldst,
                      unsigned char *model)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    size_t es = f->size;
    for (size_t j = 0; j < src_len; j++) f->mk(gsrc + j * es, test_value(me, K_GET + mem, elem_index(fam, j)));
    fill_sentinels(f, fam, mem, ldst, (size_t)n * region_len);
    shmem_barrier_all();
    for (int r = 0; r < n; r++) {
        int t = (me + n - r) % n;
        unsigned char *region = ldst + (size_t)t * region_len * es;
        for (size_t i = 0; i < NXFERS; i++) {
            const xfer_t *x = &xfers[i];
            unsigned char *d = region + area_base[i] * es;
            const unsigned char *s = gsrc + x->soff * es;
            switch (x->kind) {
            case X_CONTIG: f->get(d, s, x->bsize, t); break;
            case X_NBI: f->get_nbi(d, s, x->bsize, t); break;
            case X_SINGLE:
                if (f->g)
                    for (size_t b = 0; b < x->nblocks; b++) f->g(d + b * x->dst * es, s + b * x->sst * es, t);
                break;
            case X_STRIDED:
                if (f->iget) f->iget(d, s, x->dst, x->sst, x->nblocks, t);
                break;
            case X_BSTRIDED:
                if (f->ibget) f->ibget(d, s, x->dst, x->sst, x->bsize, x->nblocks, t);
                break;
            }
        }
    }
    shmem_quiet();
    for (int t = 0; t < n; t++) {
        model_region(f, fam, mem, K_GET, me, t, (size_t)t, model);
        compare_region(f, "get", mem, t, ldst + (size_t)t * region_len * es, model);
    }
    shmem_barrier_all(); /* nobody refills gsrc while a peer may still read it */
}

/* Global (data segment) buffers, for up to MAX_GLOBAL_PES PEs. */
#define MAX_GLOBAL_PES 16
#define MAX_REGION 1280
#define MAX_SRC 512
static alignas(16) unsigned char g_dst[MAX_GLOBAL_PES * MAX_REGION * 16];
static alignas(16) unsigned char g_src[MAX_SRC * 16];

static void test_families(void)
{
    int n = shmem_n_pes();
    layout();
    if (region_len > MAX_REGION || src_len > MAX_SRC) {
        CHECK(0, "test layout too large: region %zu, source %zu", region_len, src_len);
        return;
    }
    size_t max_es = 16;
    unsigned char *h_dst = shmem_malloc((size_t)n * region_len * max_es);
    unsigned char *h_src = shmem_malloc(src_len * max_es);
    unsigned char *src = malloc(src_len * max_es);
    unsigned char *ldst = malloc((size_t)n * region_len * max_es);
    unsigned char *model = malloc(region_len * max_es);
    CHECK(h_dst && h_src && src && ldst && model, "allocation failed");
    if (!(h_dst && h_src && src && ldst && model)) return;
    for (size_t fam = 0; fam < NFAMILIES; fam++) {
        const family_t *f = &families[fam];
        CHECK(f->size <= max_es, "%s: element size %zu", f->name, f->size);
        put_phase(f, fam, 0, h_dst, src, model);
        get_phase(f, fam, 0, h_src, ldst, model);
        if (n <= MAX_GLOBAL_PES) {
            put_phase(f, fam, 1, g_dst, src, model);
            get_phase(f, fam, 1, g_src, ldst, model);
        }
    }
    free(model);
    free(ldst);
    free(src);
    shmem_free(h_src);
    shmem_free(h_dst);
}

/* ---- 1 MiB + 3 bytes with putmem/getmem (and their nbi) --------------------------------------- */
#define BIG (((size_t)1 << 20) + 3)
#define BIG_STRIDE (BIG + 13) /* per-source region: 5 gap bytes, BIG data bytes, 8 gap bytes */
#define BIG_AT 5
#define SENT_BYTE(me) ((unsigned char)(0xa5 ^ (me)))
static unsigned char g_big[BIG_STRIDE];

static void fill_big(unsigned char *p, size_t len, int pe, int k, uint64_t tag)
{
    size_t j = 0;
    for (; j + 8 <= len; j += 8) {
        uint64_t w = test_value(pe, k, (tag << 32) | (j >> 3));
        memcpy(p + j, &w, 8);
    }
    if (j < len) {
        uint64_t w = test_value(pe, k, (tag << 32) | (j >> 3));
        memcpy(p + j, &w, len - j);
    }
}

/* One check per transfer: data bytes, then the sentinel gaps around them. */
static unsigned char *big_expect;
static void check_big(const char *what, const unsigned char *region, int pe, int k, uint64_t tag,
                      int with_gaps)
{
    const unsigned char *p = region + (with_gaps ? BIG_AT : 0);
    fill_big(big_expect, BIG, pe, k, tag);
    size_t bad = 0, first = SIZE_MAX;
    if (memcmp(p, big_expect, BIG) != 0)
        for (size_t j = 0; j < BIG; j++)
            if (p[j] != big_expect[j] && bad++ == 0) first = j;
    CHECK(bad == 0, "%s from PE %d: %zu of %zu bytes wrong, first at byte %zu", what, pe, bad, BIG, first);
    if (!with_gaps) return;
    size_t badgap = 0;
    unsigned char sent = SENT_BYTE(shmem_my_pe());
    for (size_t j = 0; j < BIG_AT; j++) badgap += region[j] != sent;
    for (size_t j = BIG_AT + BIG; j < BIG_STRIDE; j++) badgap += region[j] != sent;
    CHECK(badgap == 0, "%s from PE %d: %zu sentinel bytes around the data overwritten", what, pe, badgap);
}

/* Each variant (blocking, nbi; heap, global) goes to every PE when there are few PEs; with more,
 * targets alternate between the variants, so the volume stays linear in the PE count. */
static void test_big(void)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    unsigned char *dst = shmem_malloc((size_t)n * BIG_STRIDE);
    unsigned char *gsrc = shmem_malloc(BIG + 16);
    unsigned char *src = malloc(BIG + 8), *ldst = malloc(BIG + 8);
    big_expect = malloc(BIG + 8);
    CHECK(dst && gsrc && src && ldst && big_expect, "allocation failed");
    if (!(dst && gsrc && src && ldst && big_expect)) return;
    static const char *const put_what[] = {"putmem 1 MiB+3 heap", "putmem_nbi 1 MiB+3 heap"};
    int few = n <= 2;

    /* heap: all PEs put to all PEs at once, into per-source regions (odd source/dest offsets) */
    for (int pass = 0; pass < (few ? 2 : 1); pass++) {
        memset(dst, SENT_BYTE(me), (size_t)n * BIG_STRIDE);
        fill_big(src + 1, BIG, me, K_BIG, (uint64_t)pass);
        shmem_barrier_all();
        for (int r = 0; r < n; r++) {
            int t = (me + r) % n, nbi = few ? pass : r % 2;
            unsigned char *d = dst + (size_t)me * BIG_STRIDE + BIG_AT;
            if (nbi) shmem_putmem_nbi(d, src + 1, BIG, t);
            else shmem_putmem(d, src + 1, BIG, t);
        }
        shmem_quiet();
        shmem_barrier_all();
        for (int s = 0; s < n; s++) {
            int r = (s + n - me) % n; /* s put to me as its target number r */
            check_big(put_what[few ? pass : r % 2], dst + (size_t)s * BIG_STRIDE, s, K_BIG, (uint64_t)pass, 1);
        }
    }

    /* global: one region, so one source per round: round r, PE me puts to PE me+r */
    int rounds = n < 2 ? 2 : n;
    for (int round = 0; round < rounds; round++) {
        int r = round % n, nbi = round % 2, t = (me + r) % n, from = (me + n - r) % n;
        memset(g_big, SENT_BYTE(me), sizeof g_big);
        fill_big(src + 1, BIG, me, K_GBIG, (uint64_t)round);
        shmem_barrier_all();
        if (nbi) {
            shmem_putmem_nbi(g_big + BIG_AT, src + 1, BIG, t);
            shmem_quiet();
        } else {
            shmem_putmem(g_big + BIG_AT, src + 1, BIG, t);
        }
        shmem_barrier_all();
        check_big(nbi ? "putmem_nbi 1 MiB+3 global" : "putmem 1 MiB+3 global", g_big, from, K_GBIG,
                  (uint64_t)round, 1);
        shmem_barrier_all();
    }

    /* gets from every PE, heap and global sources, into a private buffer at an odd offset */
    fill_big(gsrc + 3, BIG, me, K_BIG + 2, 0);
    fill_big(g_big + 1, BIG, me, K_BIG + 3, 0);
    shmem_barrier_all();
    for (int r = 0; r < n; r++) {
        int t = (me + n - r) % n;
        for (int v = 0; v < 4; v++) {
            int global = v / 2, nbi = v % 2;
            if (!few && nbi != (r + global) % 2) continue;
            const unsigned char *s = global ? g_big + 1 : gsrc + 3;
            memset(ldst, 0, BIG + 8);
            if (nbi) {
                shmem_getmem_nbi(ldst + 1, s, BIG, t);
                shmem_quiet();
            } else {
                shmem_getmem(ldst + 1, s, BIG, t);
            }
            static const char *const what[] = {"getmem 1 MiB+3 heap", "getmem_nbi 1 MiB+3 heap",
                                               "getmem 1 MiB+3 global", "getmem_nbi 1 MiB+3 global"};
            check_big(what[v], ldst + 1, t, K_BIG + 2 + global, 0, 0);
        }
    }
    shmem_barrier_all();
    free(big_expect);
    free(ldst);
    free(src);
    shmem_free(gsrc);
    shmem_free(dst);
}

/* ---- C11 generic selections --------------------------------------------------------------------- */
/* Region of 24 elements per source PE: [0,5) put, [5] p, [6,9) put_nbi, 9/11/13 iput (stride 2),
 * [16,18) and [20,22) ibput (2 blocks of 2, dst stride 4); the rest keeps its sentinels. */
#define GREGION 24
static int generic_written(size_t j, size_t *src_index)
{
    if (j < 5) return *src_index = j, 1;
    if (j == 5) return *src_index = 5, 1;
    if (j >= 6 && j < 9) return *src_index = j, 1;
    if (j == 9 || j == 11 || j == 13) return *src_index = 9 + (j - 9) / 2, 1;
    if (j == 16 || j == 17) return *src_index = 12 + (j - 16), 1;
    if (j == 20 || j == 21) return *src_index = 16 + (j - 20), 1; /* sst 4: source 16, 17 */
    return 0;
}

#define GENERIC_TEST(T, TAG, FMT, CAST)                                                            \
    static T g_gen_##TAG[MAX_GLOBAL_PES * GREGION];                                                \
    static void generic_##TAG(int tag)                                                             \
    {                                                                                              \
        int me = shmem_my_pe(), n = shmem_n_pes();                                                 \
        T *heap = shmem_malloc(sizeof(T) * GREGION * (size_t)n);                                   \
        T src[GREGION], got[GREGION];                                                              \
        for (int mem = 0; mem < 2; mem++) {                                                        \
            if (mem == 1 && n > MAX_GLOBAL_PES) break;                                             \
            T *buf = mem ? g_gen_##TAG : heap;                                                     \
            int k = K_GENERIC + mem;                                                               \
            for (size_t j = 0; j < GREGION * (size_t)n; j++)                                       \
                buf[j] = (T)(int64_t)test_value(me, K_GSENT + mem, ((uint64_t)tag << 24) | j);     \
            for (size_t j = 0; j < GREGION; j++)                                                   \
                src[j] = (T)(int64_t)test_value(me, k, ((uint64_t)tag << 24) | j);                 \
            shmem_barrier_all();                                                                   \
            for (int r = 0; r < n; r++) {                                                          \
                int t = (me + r) % n;                                                              \
                T *d = buf + (size_t)me * GREGION;                                                 \
                shmem_put(d, src, 5, t);                                                           \
                shmem_p(d + 5, src[5], t);                                                         \
                shmem_put_nbi(d + 6, src + 6, 3, t);                                               \
                shmem_iput(d + 9, src + 9, 2, 1, 3, t);                                            \
                shmem_ibput(d + 16, src + 12, 4, 4, 2, 2, t);                                      \
            }                                                                                      \
            shmem_quiet();                                                                         \
            shmem_barrier_all();                                                                   \
            /* what PE t's region me holds after the puts, for any t: */                          \
            for (int s = 0; s < n; s++)                                                            \
                for (size_t j = 0; j < GREGION; j++) {                                             \
                    size_t si;                                                                     \
                    T want = generic_written(j, &si)                                               \
                                 ? (T)(int64_t)test_value(s, k, ((uint64_t)tag << 24) | si)        \
                                 : (T)(int64_t)test_value(me, K_GSENT + mem,                       \
                                                          ((uint64_t)tag << 24) |                  \
                                                              ((size_t)s * GREGION + j));          \
                    T have = buf[(size_t)s * GREGION + j];                                         \
                    CHECK(have == want, "generic %s %s put from PE %d, element %zu: got " FMT      \
                          ", expected " FMT, #T, mem_name[mem], s, j, CAST have, CAST want);       \
                }                                                                                  \
            /* read back my region from every PE with the generic gets */                         \
            for (int r = 0; r < n; r++) {                                                          \
                int t = (me + n - r) % n;                                                          \
                const T *s = buf + (size_t)me * GREGION;                                           \
                for (size_t j = 0; j < GREGION; j++) got[j] = (T)0;                                \
                shmem_get(got, s, 5, t);                                                           \
                got[5] = shmem_g(s + 5, t);                                                        \
                shmem_get_nbi(got + 6, s + 6, 3, t);                                               \
                shmem_iget(got + 9, s + 9, 2, 2, 3, t);                                            \
                shmem_ibget(got + 16, s + 16, 4, 4, 2, 2, t);                                      \
                shmem_quiet();                                                                     \
                for (size_t j = 0; j < GREGION; j++) {                                             \
                    size_t si;                                                                     \
                    int w = generic_written(j, &si);                                               \
                    if (j == 10 || j == 12 || (j >= 18 && j < 20)) w = 0;                          \
                    else if (!w) continue; /* not read back */                                     \
                    T want = w ? (T)(int64_t)test_value(me, k, ((uint64_t)tag << 24) | si) : (T)0; \
                    CHECK(got[j] == want, "generic %s %s get from PE %d, element %zu: got " FMT    \
                          ", expected " FMT, #T, mem_name[mem], t, j, CAST got[j], CAST want);     \
                }                                                                                  \
            }                                                                                      \
            shmem_barrier_all();                                                                   \
        }                                                                                          \
        shmem_free(heap);                                                                          \
    }
GENERIC_TEST(int, int, "%d", (int))
GENERIC_TEST(double, double, "%g", (double))
GENERIC_TEST(long double, longdouble, "%Lg", (long double))
GENERIC_TEST(unsigned char, uchar, "%u", (unsigned))
GENERIC_TEST(short, short, "%d", (int))
GENERIC_TEST(unsigned long long, ulonglong, "%llu", (unsigned long long))
GENERIC_TEST(float, float, "%g", (double))

int main(void)
{
    shmem_init();
    test_seed();
    test_families();
    test_big();
    generic_int(1);
    generic_double(2);
    generic_longdouble(3);
    generic_uchar(4);
    generic_short(5);
    generic_ulonglong(6);
    generic_float(7);
    int status = test_finish("rma");
    shmem_finalize();
    return status;
}
