/* Contexts: every shmem_ctx_ RMA, AMO and put-with-signal family over the type tables (and the
 * sized and mem forms), on the symmetric heap and on globals, on SHMEM_CTX_DEFAULT, a context from
 * shmem_ctx_create and a context of a team whose PE numbers differ from the world's (checked to
 * land on the right world PE, and nowhere else), each checked on fresh random data against a
 * reference the test computes itself; shmem_ctx_fence / shmem_ctx_quiet ordering across
 * contexts; the C11 generic forms with a leading context; create/destroy many; get_team; the
 * team's num_contexts limit; SHMEM_CTX_INVALID handling.
 *
 * With an argument it runs one erroneous call instead, which must end the job with a clear
 * message (tests/ctx.cmake): bad-invalid-put, bad-destroyed-amo, bad-team-pe, bad-destroy-default. */
#include "common.h"
#include "shmem/ctx.h" /* white box: a context's MPI operation counts (its core domain) */

#include <string.h>

static shmem_ctx_t default_handle = SHMEM_CTX_DEFAULT; /* a link-time constant */

static int me, npes;
static int round_k; /* keys every round's data */

#define BUF_ELEMS 64                   /* elements of the target region per round */
#define BUF_BYTES (BUF_ELEMS * 16)     /* the largest element is 16 bytes */
#define SIG_OFF BUF_BYTES              /* the signal word after the data */
#define AMO_OFF (BUF_BYTES + 64)       /* the atomic word */
#define REGION_BYTES (BUF_BYTES + 128)

static _Alignas(64) unsigned char global_region[REGION_BYTES];
static unsigned char *heap_region;

/* The PEs of one sweep: the context, its team, and the world PE of every team PE. */
typedef struct {
    const char *name;
    shmem_ctx_t ctx;
    shmem_team_t team;
    int n, me;    /* team size and my index (me < 0: not a member) */
    int *world;   /* [n] world PE of each team PE */
} scope_t;

static int right_of(const scope_t *s) { return (s->me + 1) % s->n; }            /* team PE */
static int left_world(const scope_t *s) { return s->world[(s->me - 1 + s->n) % s->n]; }
static int right_world(const scope_t *s) { return s->world[right_of(s)]; }

static void scope_sync(const scope_t *s)
{
    shmem_ctx_quiet(s->ctx);
    shmem_team_sync(s->team);
}

/* values: floating types take 24-bit integers (exact in float) */
#define MKVAL(T, v) ((T)0.5 != 0 ? (T)(int32_t)((v) >> 40) : (T)(v))

/* ---- RMA: one generic sweep over per-type adapters ----------------------------------------------- */
typedef struct {
    const char *name;
    size_t esize;
    void (*mk)(void *dst, uint64_t v);
    int (*eq)(const void *a, const void *b);
    void (*put)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*put_nbi)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*get)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*get_nbi)(shmem_ctx_t, void *, const void *, size_t, int);
    void (*iput)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
    void (*iget)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
    void (*ibput)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, size_t, int);
    void (*ibget)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, size_t, int);
    void (*put_signal)(shmem_ctx_t, void *, const void *, size_t, uint64_t *, uint64_t, int, int);
    void (*put_signal_nbi)(shmem_ctx_t, void *, const void *, size_t, uint64_t *, uint64_t, int, int);
    void (*p)(shmem_ctx_t, void *, const void *, int);  /* NULL for sized and mem forms */
    void (*g)(shmem_ctx_t, void *, const void *, int);
} rma_ops_t;

/* typed: shmem_ctx_<N>_<op> */
#define DEFINE_TYPED(T, N, _)                                                                      \
    static void mk_##N(void *d, uint64_t v)                                                        \
    {                                                                                              \
        T x;                                                                                       \
        memset(&x, 0, sizeof x);                                                                   \
        x = MKVAL(T, v);                                                                           \
        memcpy(d, &x, sizeof x);                                                                   \
    }                                                                                              \
    static int eq_##N(const void *a, const void *b)                                                \
    {                                                                                              \
        T x, y;                                                                                    \
        memcpy(&x, a, sizeof x);                                                                   \
        memcpy(&y, b, sizeof y);                                                                   \
        return x == y;                                                                             \
    }                                                                                              \
    static void t_put_##N(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)                 \
    { shmem_ctx_##N##_put(c, (T *)d, (const T *)s, n, pe); }                                        \
    static void t_put_nbi_##N(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)             \
    { shmem_ctx_##N##_put_nbi(c, (T *)d, (const T *)s, n, pe); }                                    \
    static void t_get_##N(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)                 \
    { shmem_ctx_##N##_get(c, (T *)d, (const T *)s, n, pe); }                                        \
    static void t_get_nbi_##N(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)             \
    { shmem_ctx_##N##_get_nbi(c, (T *)d, (const T *)s, n, pe); }                                    \
    static void t_iput_##N(shmem_ctx_t c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss,      \
                           size_t n, int pe)                                                       \
    { shmem_ctx_##N##_iput(c, (T *)d, (const T *)s, ds, ss, n, pe); }                               \
    static void t_iget_##N(shmem_ctx_t c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss,      \
                           size_t n, int pe)                                                       \
    { shmem_ctx_##N##_iget(c, (T *)d, (const T *)s, ds, ss, n, pe); }                               \
    static void t_ibput_##N(shmem_ctx_t c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss,     \
                            size_t b, size_t nb, int pe)                                           \
    { shmem_ctx_##N##_ibput(c, (T *)d, (const T *)s, ds, ss, b, nb, pe); }                          \
    static void t_ibget_##N(shmem_ctx_t c, void *d, const void *s, ptrdiff_t ds, ptrdiff_t ss,     \
                            size_t b, size_t nb, int pe)                                           \
    { shmem_ctx_##N##_ibget(c, (T *)d, (const T *)s, ds, ss, b, nb, pe); }                          \
    static void t_put_signal_##N(shmem_ctx_t c, void *d, const void *s, size_t n, uint64_t *sig,   \
                                 uint64_t v, int op, int pe)                                       \
    { shmem_ctx_##N##_put_signal(c, (T *)d, (const T *)s, n, sig, v, op, pe); }                     \
    static void t_put_signal_nbi_##N(shmem_ctx_t c, void *d, const void *s, size_t n,              \
                                     uint64_t *sig, uint64_t v, int op, int pe)                    \
    { shmem_ctx_##N##_put_signal_nbi(c, (T *)d, (const T *)s, n, sig, v, op, pe); }                 \
    static void t_p_##N(shmem_ctx_t c, void *d, const void *v, int pe)                             \
    {                                                                                              \
        T x;                                                                                       \
        memcpy(&x, v, sizeof x);                                                                   \
        shmem_ctx_##N##_p(c, (T *)d, x, pe);                                                       \
    }                                                                                              \
    static void t_g_##N(shmem_ctx_t c, void *out, const void *s, int pe)                           \
    {                                                                                              \
        T x = shmem_ctx_##N##_g(c, (const T *)s, pe);                                              \
        memcpy(out, &x, sizeof x);                                                                 \
    }
NODESHM_RMA_TYPES(DEFINE_TYPED, _)

#define TYPED_OPS(T, N, _)                                                                         \
    {#N, sizeof(T), mk_##N, eq_##N, t_put_##N, t_put_nbi_##N, t_get_##N, t_get_nbi_##N,           \
     t_iput_##N, t_iget_##N, t_ibput_##N, t_ibget_##N, t_put_signal_##N, t_put_signal_nbi_##N,     \
     t_p_##N, t_g_##N},

/* sized: shmem_ctx_put<B> ...; elements are B/8 bytes of random data */
#define DEFINE_SIZED(B, _)                                                                         \
    static void mk_##B(void *d, uint64_t v)                                                        \
    {                                                                                              \
        for (size_t i = 0; i < (B) / 8; i++) ((unsigned char *)d)[i] = (unsigned char)test_mix(v + i); \
    }                                                                                              \
    static int eq_##B(const void *a, const void *b) { return memcmp(a, b, (B) / 8) == 0; }         \
    static void s_put_##B(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)                 \
    { shmem_ctx_put##B(c, d, s, n, pe); }                                                          \
    static void s_put_nbi_##B(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)             \
    { shmem_ctx_put##B##_nbi(c, d, s, n, pe); }                                                    \
    static void s_get_##B(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)                 \
    { shmem_ctx_get##B(c, d, s, n, pe); }                                                          \
    static void s_get_nbi_##B(shmem_ctx_t c, void *d, const void *s, size_t n, int pe)             \
    { shmem_ctx_get##B##_nbi(c, d, s, n, pe); }                                                    \
    static void s_put_signal_##B(shmem_ctx_t c, void *d, const void *s, size_t n, uint64_t *sig,   \
                                 uint64_t v, int op, int pe)                                       \
    { shmem_ctx_put##B##_signal(c, d, s, n, sig, v, op, pe); }                                     \
    static void s_put_signal_nbi_##B(shmem_ctx_t c, void *d, const void *s, size_t n,              \
                                     uint64_t *sig, uint64_t v, int op, int pe)                    \
    { shmem_ctx_put##B##_signal_nbi(c, d, s, n, sig, v, op, pe); }
NODESHM_RMA_SIZES(DEFINE_SIZED, _)

#define SIZED_OPS(B, _)                                                                            \
    {"size" #B, (B) / 8, mk_##B, eq_##B, s_put_##B, s_put_nbi_##B, s_get_##B, s_get_nbi_##B,       \
     shmem_ctx_iput##B, shmem_ctx_iget##B, shmem_ctx_ibput##B, shmem_ctx_ibget##B,                 \
     s_put_signal_##B, s_put_signal_nbi_##B, NULL, NULL},

static void mk_mem(void *d, uint64_t v) { *(unsigned char *)d = (unsigned char)test_mix(v); }
static int eq_mem(const void *a, const void *b) { return *(const unsigned char *)a == *(const unsigned char *)b; }

static const rma_ops_t rma_ops[] = {
    NODESHM_RMA_TYPES(TYPED_OPS, _) NODESHM_RMA_SIZES(SIZED_OPS, _)
    {"mem", 1, mk_mem, eq_mem, shmem_ctx_putmem, shmem_ctx_putmem_nbi, shmem_ctx_getmem,
     shmem_ctx_getmem_nbi, NULL, NULL, NULL, NULL, shmem_ctx_putmem_signal,
     shmem_ctx_putmem_signal_nbi, NULL, NULL},
};

/* element j of PE pe's data in round k */
static void fill(const rma_ops_t *o, unsigned char *buf, int pe, int k)
{
    memset(buf, 0, BUF_BYTES);
    for (size_t j = 0; j < BUF_ELEMS; j++) o->mk(buf + j * o->esize, test_value(pe, k, j));
}

/* the reference: nblocks blocks of bsize elements, dst/src block starts ds/ss elements apart */
static void apply(const rma_ops_t *o, unsigned char *dst, const unsigned char *src, size_t ds,
                  size_t ss, size_t bsize, size_t nblocks)
{
    for (size_t b = 0; b < nblocks; b++)
        memcpy(dst + b * ds * o->esize, src + b * ss * o->esize, bsize * o->esize);
}

static int compare(const rma_ops_t *o, const scope_t *s, const char *op, const char *where,
                   const unsigned char *got, const unsigned char *want)
{
    for (size_t j = 0; j < BUF_ELEMS; j++)
        if (!o->eq(got + j * o->esize, want + j * o->esize)) {
            CHECK(0, "%s: ctx_%s %s (%s): element %zu differs (round %d)", s->name, o->name, op,
                  where, j, round_k);
            return 0;
        }
    CHECK(1, "ok");
    return 1;
}

enum { OP_PUT, OP_PUT_NBI, OP_P, OP_IPUT, OP_IBPUT, OP_SIGNAL, OP_SIGNAL_NBI, N_PUT_OPS };
enum { OP_GET, OP_GET_NBI, OP_G, OP_IGET, OP_IBGET, N_GET_OPS };
static const char *put_names[] = {"put", "put_nbi", "p", "iput", "ibput", "put_signal", "put_signal_nbi"};
static const char *get_names[] = {"get", "get_nbi", "g", "iget", "ibget"};

/* the shape of round k, the same on every PE: contiguous n; strides; blocks */
typedef struct { size_t n, ds, ss, bsize, nblocks; } shape_t;
static shape_t shape(int k)
{
    uint64_t r = test_value(0, k, 0xfffff);
    shape_t sh;
    sh.n = 1 + r % 16;
    sh.bsize = 1 + (r >> 8) % 3;
    sh.ds = sh.bsize + (r >> 12) % 4;  /* blocks do not overlap: dst span <= 6*7+3 < 64 */
    sh.ss = sh.bsize + (r >> 16) % 3;
    sh.nblocks = 1 + (r >> 20) % 8;
    return sh;
}

static void rma_sweep(const scope_t *s, const rma_ops_t *o, unsigned char *region)
{
    unsigned char *buf = region, src[BUF_BYTES], got[BUF_BYTES], want[BUF_BYTES], from[BUF_BYTES];
    uint64_t *sig = (uint64_t *)(region + SIG_OFF);
    int partner = right_of(s);
    const char *where = region == heap_region ? "heap" : "global";
    for (int op = 0; op < N_PUT_OPS; op++) {
        if ((op == OP_P && !o->p) || ((op == OP_IPUT || op == OP_IBPUT) && !o->iput)) continue;
        int k = ++round_k;
        shape_t sh = shape(k);
        memset(buf, 0, BUF_BYTES);
        *sig = 0;
        scope_sync(s);
        fill(o, src, s->world[s->me], k);
        uint64_t sigval = test_value(s->world[s->me], k, 0x5151) | 1;
        int sigop = (k & 1) ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET;
        switch (op) {
        case OP_PUT: o->put(s->ctx, buf, src, sh.n, partner); break;
        case OP_PUT_NBI: o->put_nbi(s->ctx, buf, src, sh.n, partner); break;
        case OP_P: o->p(s->ctx, buf + 5 * o->esize, src + 5 * o->esize, partner); break;
        case OP_IPUT: o->iput(s->ctx, buf, src, (ptrdiff_t)sh.ds, (ptrdiff_t)sh.ss, sh.nblocks, partner); break;
        case OP_IBPUT:
            o->ibput(s->ctx, buf, src, (ptrdiff_t)sh.ds, (ptrdiff_t)sh.ss, sh.bsize, sh.nblocks, partner);
            break;
        case OP_SIGNAL: o->put_signal(s->ctx, buf, src, sh.n, sig, sigval, sigop, partner); break;
        default: o->put_signal_nbi(s->ctx, buf, src, sh.n, sig, sigval, sigop, partner); break;
        }
        int left = left_world(s);
        if (op == OP_SIGNAL || op == OP_SIGNAL_NBI) {
            uint64_t want_sig = test_value(left, k, 0x5151) | 1;
            uint64_t seen = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, want_sig);
            CHECK(seen == want_sig, "%s: ctx_%s %s: signal %llu", s->name, o->name, put_names[op],
                  (unsigned long long)seen);
        }
        scope_sync(s);
        fill(o, from, left, k);
        memset(want, 0, BUF_BYTES);
        switch (op) {
        case OP_P: memcpy(want + 5 * o->esize, from + 5 * o->esize, o->esize); break;
        case OP_IPUT: apply(o, want, from, sh.ds, sh.ss, 1, sh.nblocks); break;
        case OP_IBPUT: apply(o, want, from, sh.ds, sh.ss, sh.bsize, sh.nblocks); break;
        default: apply(o, want, from, sh.n, sh.n, sh.n, 1); break;
        }
        compare(o, s, put_names[op], where, buf, want);
    }
    for (int op = 0; op < N_GET_OPS; op++) {
        if ((op == OP_G && !o->g) || ((op == OP_IGET || op == OP_IBGET) && !o->iget)) continue;
        int k = ++round_k;
        shape_t sh = shape(k);
        fill(o, buf, s->world[s->me], k);
        scope_sync(s);
        memset(got, 0, BUF_BYTES);
        switch (op) {
        case OP_GET: o->get(s->ctx, got, buf, sh.n, partner); break;
        case OP_GET_NBI: o->get_nbi(s->ctx, got, buf, sh.n, partner); shmem_ctx_quiet(s->ctx); break;
        case OP_G: o->g(s->ctx, got + 3 * o->esize, buf + 3 * o->esize, partner); break;
        case OP_IGET: o->iget(s->ctx, got, buf, (ptrdiff_t)sh.ds, (ptrdiff_t)sh.ss, sh.nblocks, partner); break;
        default:
            o->ibget(s->ctx, got, buf, (ptrdiff_t)sh.ds, (ptrdiff_t)sh.ss, sh.bsize, sh.nblocks, partner);
            break;
        }
        fill(o, from, right_world(s), k);
        memset(want, 0, BUF_BYTES);
        switch (op) {
        case OP_G: memcpy(want + 3 * o->esize, from + 3 * o->esize, o->esize); break;
        case OP_IGET: apply(o, want, from, sh.ds, sh.ss, 1, sh.nblocks); break;
        case OP_IBGET: apply(o, want, from, sh.ds, sh.ss, sh.bsize, sh.nblocks); break;
        default: apply(o, want, from, sh.n, sh.n, sh.n, 1); break;
        }
        compare(o, s, get_names[op], where, got, want);
        scope_sync(s);
    }
}

/* ---- AMO: one sweep per type, over the three AMO tables --------------------------------------- */
/* A round: my word = A(me); sync; the ops on my right neighbour's word; quiet; sync; check mine. */
#define AMO_ROUND_BEGIN(T)                                                                         \
    {                                                                                              \
        int k = ++round_k;                                                                         \
        T a_me = MKVAL(T, test_value(wme, k, 1)), a_right = MKVAL(T, test_value(wright, k, 1));    \
        T b_me = MKVAL(T, test_value(wme, k, 2)), b_left = MKVAL(T, test_value(wleft, k, 2));      \
        T a_right_wrong = (T)(a_right + 1);                                                        \
        T fetched, nbi_out;                                                                        \
        (void)a_me; (void)a_right; (void)b_me; (void)b_left; (void)a_right_wrong;                  \
        (void)fetched; (void)nbi_out;                                                              \
        *w = a_me;                                                                                 \
        scope_sync(s);
#define AMO_SYNC scope_sync(s);
#define AMO_ROUND_END }
#define AMO_CHECK(cond, what)                                                                      \
    CHECK(cond, "%s: ctx_%s_%s (%s) round %d", s->name, tname, what, where, round_k)

#define AMO_SWEEP_EXTENDED(T, N, _)                                                                \
    static void amo_ext_##N(const scope_t *s, unsigned char *region)                               \
    {                                                                                              \
        const char *tname = #N, *where = region == heap_region ? "heap" : "global";               \
        T *w = (T *)(region + AMO_OFF);                                                            \
        int p = right_of(s), wme = s->world[s->me], wright = right_world(s), wleft = left_world(s); \
        AMO_ROUND_BEGIN(T)                                                                         \
        fetched = shmem_ctx_##N##_atomic_fetch(s->ctx, w, p);                                      \
        shmem_ctx_##N##_atomic_fetch_nbi(s->ctx, &nbi_out, w, p);                                  \
        shmem_ctx_quiet(s->ctx);                                                                   \
        AMO_CHECK(fetched == a_right, "atomic_fetch");                                             \
        AMO_CHECK(nbi_out == a_right, "atomic_fetch_nbi");                                         \
        AMO_SYNC                                                                                   \
        AMO_ROUND_END                                                                              \
        AMO_ROUND_BEGIN(T)                                                                         \
        shmem_ctx_##N##_atomic_set(s->ctx, w, b_me, p);                                            \
        AMO_SYNC                                                                                   \
        AMO_CHECK(*w == b_left, "atomic_set");                                                     \
        AMO_ROUND_END                                                                              \
        AMO_ROUND_BEGIN(T)                                                                         \
        fetched = shmem_ctx_##N##_atomic_swap(s->ctx, w, b_me, p);                                 \
        AMO_CHECK(fetched == a_right, "atomic_swap (fetched)");                                    \
        AMO_SYNC                                                                                   \
        AMO_CHECK(*w == b_left, "atomic_swap");                                                    \
        AMO_ROUND_END                                                                              \
        AMO_ROUND_BEGIN(T)                                                                         \
        shmem_ctx_##N##_atomic_swap_nbi(s->ctx, &nbi_out, w, b_me, p);                             \
        shmem_ctx_quiet(s->ctx);                                                                   \
        AMO_CHECK(nbi_out == a_right, "atomic_swap_nbi (fetched)");                                \
        AMO_SYNC                                                                                   \
        AMO_CHECK(*w == b_left, "atomic_swap_nbi");                                                \
        AMO_ROUND_END                                                                              \
    }
NODESHM_AMO_EXTENDED_TYPES(AMO_SWEEP_EXTENDED, _)

#define AMO_SWEEP_STANDARD(T, N, _)                                                                \
    static void amo_std_##N(const scope_t *s, unsigned char *region)                               \
    {                                                                                              \
        const char *tname = #N, *where = region == heap_region ? "heap" : "global";               \
        T *w = (T *)(region + AMO_OFF);                                                            \
        int p = right_of(s), wme = s->world[s->me], wright = right_world(s), wleft = left_world(s); \
        AMO_ROUND_BEGIN(T)                                                                         \
        fetched = shmem_ctx_##N##_atomic_compare_swap(s->ctx, w, a_right_wrong, b_me, p);          \
        AMO_CHECK(fetched == a_right, "atomic_compare_swap (failing)");                            \
        fetched = shmem_ctx_##N##_atomic_compare_swap(s->ctx, w, a_right, b_me, p);                \
        AMO_CHECK(fetched == a_right, "atomic_compare_swap (fetched)");                            \
        AMO_SYNC                                                                                   \
        AMO_CHECK(*w == b_left, "atomic_compare_swap");                                            \
        AMO_ROUND_END                                                                              \
        AMO_ROUND_BEGIN(T)                                                                         \
        shmem_ctx_##N##_atomic_compare_swap_nbi(s->ctx, &nbi_out, w, a_right, b_me, p);            \
        shmem_ctx_quiet(s->ctx);                                                                   \
        AMO_CHECK(nbi_out == a_right, "atomic_compare_swap_nbi (fetched)");                        \
        AMO_SYNC                                                                                   \
        AMO_CHECK(*w == b_left, "atomic_compare_swap_nbi");                                        \
        AMO_ROUND_END                                                                              \
        AMO_ROUND_BEGIN(T)                                                                         \
        fetched = shmem_ctx_##N##_atomic_fetch_inc(s->ctx, w, p);                                  \
        AMO_CHECK(fetched == a_right, "atomic_fetch_inc (fetched)");                               \
        shmem_ctx_##N##_atomic_inc(s->ctx, w, p);                                                  \
        shmem_ctx_##N##_atomic_fetch_inc_nbi(s->ctx, &nbi_out, w, p);                              \
        shmem_ctx_quiet(s->ctx);                                                                   \
        AMO_CHECK(nbi_out == (T)(a_right + 2), "atomic_fetch_inc_nbi (fetched)");                  \
        AMO_SYNC                                                                                   \
        AMO_CHECK(*w == (T)(a_me + 3), "atomic_fetch_inc + inc + fetch_inc_nbi");                  \
        AMO_ROUND_END                                                                              \
        AMO_ROUND_BEGIN(T)                                                                         \
        fetched = shmem_ctx_##N##_atomic_fetch_add(s->ctx, w, b_me, p);                            \
        AMO_CHECK(fetched == a_right, "atomic_fetch_add (fetched)");                               \
        shmem_ctx_##N##_atomic_add(s->ctx, w, b_me, p);                                            \
        shmem_ctx_##N##_atomic_fetch_add_nbi(s->ctx, &nbi_out, w, b_me, p);                        \
        shmem_ctx_quiet(s->ctx);                                                                   \
        AMO_CHECK(nbi_out == (T)(a_right + b_me + b_me), "atomic_fetch_add_nbi (fetched)");        \
        AMO_SYNC                                                                                   \
        AMO_CHECK(*w == (T)(a_me + b_left + b_left + b_left), "atomic_fetch_add + add + nbi");     \
        AMO_ROUND_END                                                                              \
    }
NODESHM_AMO_STANDARD_TYPES(AMO_SWEEP_STANDARD, _)

#define AMO_BITWISE_ONE(T, N, name, OP)                                                            \
    AMO_ROUND_BEGIN(T)                                                                             \
    fetched = shmem_ctx_##N##_atomic_fetch_##name(s->ctx, w, b_me, p);                             \
    AMO_CHECK(fetched == a_right, "atomic_fetch_" #name " (fetched)");                             \
    AMO_SYNC                                                                                   \
    AMO_CHECK(*w == (T)(a_me OP b_left), "atomic_fetch_" #name);                                   \
    AMO_ROUND_END                                                                                  \
    AMO_ROUND_BEGIN(T)                                                                             \
    shmem_ctx_##N##_atomic_##name(s->ctx, w, b_me, p);                                             \
    AMO_SYNC                                                                                   \
    AMO_CHECK(*w == (T)(a_me OP b_left), "atomic_" #name);                                         \
    AMO_ROUND_END                                                                                  \
    AMO_ROUND_BEGIN(T)                                                                             \
    shmem_ctx_##N##_atomic_fetch_##name##_nbi(s->ctx, &nbi_out, w, b_me, p);                       \
    shmem_ctx_quiet(s->ctx);                                                                       \
    AMO_CHECK(nbi_out == a_right, "atomic_fetch_" #name "_nbi (fetched)");                         \
    AMO_SYNC                                                                                   \
    AMO_CHECK(*w == (T)(a_me OP b_left), "atomic_fetch_" #name "_nbi");                          \
    AMO_ROUND_END
#define AMO_SWEEP_BITWISE(T, N, _)                                                                 \
    static void amo_bit_##N(const scope_t *s, unsigned char *region)                               \
    {                                                                                              \
        const char *tname = #N, *where = region == heap_region ? "heap" : "global";               \
        T *w = (T *)(region + AMO_OFF);                                                            \
        int p = right_of(s), wme = s->world[s->me], wright = right_world(s), wleft = left_world(s); \
        AMO_BITWISE_ONE(T, N, and, &)                                                              \
        AMO_BITWISE_ONE(T, N, or, |)                                                               \
        AMO_BITWISE_ONE(T, N, xor, ^)                                                              \
    }
NODESHM_AMO_BITWISE_TYPES(AMO_SWEEP_BITWISE, _)

#define CALL_EXT(T, N, _) amo_ext_##N(s, region);
#define CALL_STD(T, N, _) amo_std_##N(s, region);
#define CALL_BIT(T, N, _) amo_bit_##N(s, region);

/* every family, both regions; members of the scope only */
static void sweep(const scope_t *s)
{
    if (s->me < 0) return;
    unsigned char *regions[] = {heap_region, global_region};
    for (int r = 0; r < 2; r++) {
        unsigned char *region = regions[r];
        for (size_t i = 0; i < sizeof rma_ops / sizeof rma_ops[0]; i++) rma_sweep(s, &rma_ops[i], region);
        NODESHM_AMO_EXTENDED_TYPES(CALL_EXT, _)
        NODESHM_AMO_STANDARD_TYPES(CALL_STD, _)
        NODESHM_AMO_BITWISE_TYPES(CALL_BIT, _)
    }
}

static scope_t world_scope(const char *name, shmem_ctx_t ctx)
{
    scope_t s = {name, ctx, SHMEM_TEAM_WORLD, npes, me, malloc(sizeof(int) * (size_t)npes)};
    for (int i = 0; i < npes; i++) s.world[i] = i;
    return s;
}

/* ---- team contexts: PE numbers of the team, data on the right world PE -------------------------- */
static long team_mark[64];

static void team_contexts(void)
{
    /* PEs 1, 3, 5 ... (or 1..n-1 when n < 4, or 0 alone): team PE i is never world PE i */
    int start = npes > 1 ? 1 : 0, stride = npes >= 4 ? 2 : 1;
    int size = npes >= 4 ? npes / 2 : (npes > 1 ? npes - 1 : 1);
    shmem_team_t team;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &team);
    CHECK(rc == 0, "split_strided returned %d", rc);
    int tme = -1;
    for (int i = 0; i < size; i++)
        if (start + i * stride == me) tme = i;
    CHECK((tme >= 0) == (team != SHMEM_TEAM_INVALID), "membership");
    scope_t s = {"team ctx", SHMEM_CTX_INVALID, team, size, tme, malloc(sizeof(int) * (size_t)size)};
    for (int i = 0; i < size; i++) s.world[i] = start + i * stride;

    memset(team_mark, 0, sizeof team_mark);
    shmem_barrier_all();
    if (tme >= 0) {
        shmem_ctx_t ctx = SHMEM_CTX_INVALID;
        rc = shmem_team_create_ctx(team, 0, &ctx);
        CHECK(rc == 0 && ctx != SHMEM_CTX_INVALID, "team_create_ctx returned %d", rc);
        shmem_team_t got = SHMEM_TEAM_INVALID;
        CHECK(shmem_ctx_get_team(ctx, &got) == 0 && got == team, "ctx_get_team of a team context");
        s.ctx = ctx;
        /* one p per team PE, keyed by the writer: each must land on that team PE's world PE */
        for (int t = 0; t < size; t++)
            shmem_ctx_long_p(ctx, &team_mark[tme], 1000 + s.world[tme] * 10 + t, t);
        shmem_ctx_quiet(ctx);
    }
    shmem_barrier_all();
    /* world check: members hold one mark per member; non-members none */
    for (int i = 0; i < 64; i++) {
        long want = 0;
        if (tme >= 0 && i < size) want = 1000 + s.world[i] * 10 + tme;
        CHECK(team_mark[i] == want, "team ctx p: world PE %d slot %d holds %ld, want %ld", me, i,
              team_mark[i], want);
    }
    shmem_barrier_all();
    sweep(&s);
    shmem_barrier_all();
    if (tme >= 0) shmem_ctx_destroy(s.ctx);

    /* num_contexts: a team configured for 2 contexts gives 2 at a time, collectively */
    shmem_team_config_t cfg = {.num_contexts = 2};
    shmem_team_t limited;
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &limited);
    CHECK(rc == 0, "split_strided with num_contexts");
    shmem_ctx_t c1 = SHMEM_CTX_INVALID, c2 = SHMEM_CTX_INVALID, c3 = SHMEM_CTX_INVALID;
    CHECK(shmem_team_create_ctx(limited, SHMEM_CTX_PRIVATE, &c1) == 0, "num_contexts: 1st");
    CHECK(shmem_team_create_ctx(limited, 0, &c2) == 0, "num_contexts: 2nd");
    CHECK(shmem_team_create_ctx(limited, 0, &c3) != 0, "num_contexts: 3rd must fail");
    CHECK(c3 == SHMEM_CTX_INVALID, "num_contexts: failed creation leaves ctx unmodified");
    shmem_ctx_destroy(c1);
    CHECK(shmem_team_create_ctx(limited, 0, &c3) == 0, "num_contexts: again after a destroy");
    shmem_ctx_destroy(c2);
    shmem_ctx_destroy(c3);
    shmem_team_destroy(limited);
    if (team != SHMEM_TEAM_INVALID) shmem_team_destroy(team);
    /* SHMEM_TEAM_INVALID: nonzero, ctx set to SHMEM_CTX_INVALID (the specification's text) */
    shmem_ctx_t c4 = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c4) != 0 && c4 == SHMEM_CTX_INVALID,
          "team_create_ctx(SHMEM_TEAM_INVALID)");
    free(s.world);
}

/* ---- ordering: data on one context, flag after ctx_fence / ctx_quiet ---------------------------- */
#define ORDER_LONGS 8192
static long order_flag;

static void ordering(shmem_ctx_t a, shmem_ctx_t b)
{
    long *data = shmem_malloc(ORDER_LONGS * sizeof(long));
    long *src = malloc(ORDER_LONGS * sizeof(long));
    int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
    for (int it = 0; it < 8; it++) {
        int k = ++round_k;
        order_flag = 0;
        shmem_barrier_all();
        for (int i = 0; i < ORDER_LONGS; i++) src[i] = (long)test_value(me, k, (uint64_t)i);
        shmem_ctx_long_put(a, data, src, ORDER_LONGS, right);
        if (it & 1) { /* fence: ordered on the same context */
            shmem_ctx_fence(a);
            shmem_ctx_long_atomic_set(a, &order_flag, k, right);
        } else {      /* quiet: complete, so a flag on another context may follow */
            shmem_ctx_quiet(a);
            /* white box: after its quiet, a flush covers every MPI operation the context issued (the
             * data checks alone cannot see a missing flush: waiting drives MPI, which flushes) */
            const nodeshm_domain_t *ca = a->dom;
            CHECK(__atomic_load_n(&ca->completed, __ATOMIC_ACQUIRE) == __atomic_load_n(&ca->issued, __ATOMIC_ACQUIRE),
                  "ctx_quiet left %llu of %llu MPI operations unflushed",
                  (unsigned long long)(ca->issued - ca->completed), (unsigned long long)ca->issued);
            shmem_ctx_long_p(b, &order_flag, k, right);
            shmem_ctx_quiet(b);
        }
        shmem_long_wait_until(&order_flag, SHMEM_CMP_EQ, k);
        int bad = 0;
        for (int i = 0; i < ORDER_LONGS; i++) bad += data[i] != (long)test_value(left, k, (uint64_t)i);
        CHECK(bad == 0, "ordering (%s) iteration %d: %d words not there when the flag was",
              (it & 1) ? "ctx_fence" : "ctx_quiet", it, bad);
        shmem_ctx_quiet(a);
    }
    shmem_barrier_all();
    shmem_free(data);
    free(src);
}

/* ---- C11 generic forms with and without a context ----------------------------------------------- */
static long gen_long[4];
static double gen_double;
static unsigned int gen_uint;

static void generic_forms(shmem_ctx_t ctx)
{
    int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
    int k = ++round_k;
    long v[4];
    for (int i = 0; i < 4; i++) v[i] = (long)test_value(me, k, (uint64_t)i);
    gen_uint = 0;
    shmem_barrier_all();
    shmem_put(ctx, gen_long, v, 4, right);
    shmem_p(ctx, &gen_double, (double)me + 0.5, right);
    shmem_atomic_add(ctx, &gen_uint, 3u, right);
    shmem_atomic_inc(ctx, &gen_uint, right);
    shmem_atomic_fetch_or(&gen_uint, 0x100u, right); /* no context: the default one */
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        CHECK(gen_long[i] == (long)test_value(left, k, (uint64_t)i), "generic shmem_put(ctx, ...)");
    CHECK(gen_double == (double)left + 0.5, "generic shmem_p(ctx, ...)");
    CHECK(gen_uint == (4u | 0x100u), "generic shmem_atomic_*(ctx, ...): %u", gen_uint);
    long g = shmem_g(ctx, &gen_long[2], right);
    CHECK(g == (long)test_value(me, k, 2), "generic shmem_g(ctx, ...)");
    CHECK(shmem_atomic_fetch(ctx, &gen_uint, right) == (4u | 0x100u), "generic shmem_atomic_fetch(ctx, ...)");
    CHECK(shmem_atomic_fetch(&gen_uint, right) == (4u | 0x100u), "generic shmem_atomic_fetch(...)");
    shmem_barrier_all();
}

/* ---- lifetimes ----------------------------------------------------------------------------------- */
static long many_word;

static void lifetimes(void)
{
    /* create/destroy many, one at a time and many alive at once, each used */
    int right = (me + 1) % npes;
    many_word = 0;
    shmem_barrier_all();
    for (int i = 0; i < 500; i++) {
        shmem_ctx_t c;
        long opts = (i % 4 == 0) ? 0 : (i % 4 == 1) ? SHMEM_CTX_PRIVATE : (i % 4 == 2) ? SHMEM_CTX_SERIALIZED : SHMEM_CTX_NOSTORE;
        int rc = shmem_ctx_create(opts, &c);
        CHECK(rc == 0, "ctx_create #%d", i);
        if (rc) break;
        if (opts != SHMEM_CTX_NOSTORE) shmem_ctx_long_atomic_inc(c, &many_word, right);
        shmem_ctx_destroy(c); /* quiet first */
    }
    enum { ALIVE = 100 };
    shmem_ctx_t alive[ALIVE];
    for (int i = 0; i < ALIVE; i++) CHECK(shmem_ctx_create(SHMEM_CTX_SERIALIZED, &alive[i]) == 0, "alive %d", i);
    for (int i = 0; i < ALIVE; i++) {
        for (int j = 0; j < i; j++) CHECK(alive[i] != alive[j], "distinct handles");
        shmem_ctx_long_atomic_add(alive[i], &many_word, 2, right);
    }
    for (int i = ALIVE - 1; i >= 0; i--) shmem_ctx_destroy(alive[i]);
    shmem_barrier_all();
    CHECK(many_word == 375 + 2 * ALIVE, "incremented by every context: %ld", many_word);

    /* get_team and invalid handles */
    shmem_team_t t = SHMEM_TEAM_INVALID;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t) == 0 && t == SHMEM_TEAM_WORLD, "default's team");
    CHECK(default_handle == SHMEM_CTX_DEFAULT, "SHMEM_CTX_DEFAULT is a constant");
    shmem_ctx_t c;
    CHECK(shmem_ctx_create(0, &c) == 0, "ctx_create");
    CHECK(shmem_ctx_get_team(c, &t) == 0 && t == SHMEM_TEAM_WORLD, "ctx_create's team");
    shmem_ctx_destroy(c);
    t = SHMEM_TEAM_WORLD;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0 && t == SHMEM_TEAM_INVALID, "invalid's team");
    shmem_ctx_t failed = SHMEM_CTX_DEFAULT; /* 1.5+: a failed creation sets SHMEM_CTX_INVALID */
    CHECK(shmem_ctx_create(1L << 20, &failed) != 0 && failed == SHMEM_CTX_INVALID,
          "unknown options: nonzero, ctx set to SHMEM_CTX_INVALID");
    shmem_ctx_fence(SHMEM_CTX_INVALID); /* no-ops */
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    CHECK(1, "invalid-handle no-ops");
    shmem_barrier_all();
}

static void erroneous(const char *what)
{
    static int word;
    shmem_ctx_t c;
    if (strcmp(what, "bad-invalid-put") == 0) {
        shmem_ctx_int_p(SHMEM_CTX_INVALID, &word, 1, 0);
    } else if (strcmp(what, "bad-destroyed-amo") == 0) {
        shmem_ctx_create(0, &c);
        shmem_ctx_destroy(c);
        shmem_ctx_int_atomic_inc(c, &word, 0);
    } else if (strcmp(what, "bad-team-pe") == 0) {
        shmem_team_t team;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &team);
        if (me == 0) {
            shmem_team_create_ctx(team, 0, &c);
            shmem_ctx_int_p(c, &word, 1, 1); /* the team has one PE */
        }
        shmem_barrier_all();
        return;
    } else if (strcmp(what, "bad-destroy-default") == 0) {
        shmem_ctx_destroy(SHMEM_CTX_DEFAULT);
    }
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (argc > 1) {
        erroneous(argv[1]);
        printf("UNEXPECTED: %s returned\n", argv[1]);
        shmem_finalize();
        return 0;
    }
    test_seed();
    heap_region = shmem_align(64, REGION_BYTES);

    scope_t d = world_scope("SHMEM_CTX_DEFAULT", SHMEM_CTX_DEFAULT);
    sweep(&d);
    shmem_ctx_t c;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &c) == 0, "ctx_create");
    scope_t w = world_scope("ctx_create", c);
    sweep(&w);
    shmem_barrier_all();
    team_contexts();
    round_k = 1 << 24; /* non-members of the team ran fewer rounds: agree again */
    shmem_ctx_t c2;
    CHECK(shmem_ctx_create(0, &c2) == 0, "ctx_create");
    ordering(c, c2);
    ordering(c, SHMEM_CTX_DEFAULT);
    generic_forms(c);
    generic_forms(SHMEM_CTX_DEFAULT);
    shmem_ctx_destroy(c2);
    shmem_ctx_destroy(c);
    lifetimes();
    free(d.world);
    free(w.world);
    shmem_free(heap_region);
    int rc = test_finish("ctx");
    shmem_finalize();
    return rc;
}
