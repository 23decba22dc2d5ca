/* Deprecated active-set collectives: shmem_barrier, shmem_sync (4 arguments), broadcast32/64
 * (the root's dest untouched), collect32/64, fcollect32/64, alltoall32/64, alltoalls32/64 and
 * every shmem_TYPENAME_OP_to_all of the active-set table, on the whole job, the even PEs, the
 * odd PEs and PEs 1..n-1, called back to back (and alternating between overlapping sets) with
 * pSync arrays initialized to SHMEM_SYNC_VALUE as the specification asks. */
#include "common.h"

#include <complex.h>
#include <string.h>

#define CAP 4096

static int me, npes;
static long pSync[SHMEM_BCAST_SYNC_SIZE + SHMEM_COLLECT_SYNC_SIZE + SHMEM_REDUCE_SYNC_SIZE +
                  SHMEM_BARRIER_SYNC_SIZE + SHMEM_ALLTOALL_SYNC_SIZE + SHMEM_ALLTOALLS_SYNC_SIZE];
static long double pWrk[CAP];
static char src[CAP * 16], dst[CAP * 16]; /* symmetric (data segment) */
static unsigned char ref[CAP * 16];
static long barrier_marks[4][64];

typedef struct { int start, log, size, n, my, pes[64]; const char *name; } aset_t;

static unsigned char byte_of(int pe, int tid, size_t i)
{
    return (unsigned char)(test_value(pe, tid, i / 8) >> (8 * (i % 8)));
}
static void fill(void *b, size_t n, int pe, int tid, size_t from)
{
    for (size_t i = 0; i < n; i++) ((unsigned char *)b)[i] = byte_of(pe, tid, from + i);
}

#include "coll_values.h"

static int tid;

#define TO_ALL(T, N, OP, GEN, A, COUNT)                                                             \
    do {                                                                                            \
        int cnt_ = (COUNT), id_ = tid++;                                                            \
        T *s_ = (T *)src, *d_ = (T *)dst, *r_ = (T *)ref;                                           \
        for (int k_ = 0; k_ < cnt_; k_++) s_[k_] = GEN(T, test_value(me, id_, k_));                \
        shmem_##N##_##OP##_to_all(d_, s_, cnt_, (A)->start, (A)->log, (A)->size, (T *)pWrk, pSync); \
        int bad_ = -1;                                                                              \
        for (int k_ = 0; k_ < cnt_; k_++) {                                                         \
            T a_ = GEN(T, test_value((A)->pes[0], id_, k_));                                        \
            for (int i_ = 1; i_ < (A)->n; i_++)                                                     \
                a_ = (T)F_##OP(a_, GEN(T, test_value((A)->pes[i_], id_, k_)));                      \
            r_[k_] = a_;                                                                            \
            if (d_[k_] != r_[k_] && bad_ < 0) bad_ = k_;                                            \
        }                                                                                           \
        CHECK(bad_ < 0, "%s: %s_%s_to_all n=%d: first bad element %d", (A)->name, #N, #OP, cnt_,   \
              bad_);                                                                                \
    } while (0)

static void run(const aset_t *a, int set, int round)
{
    /* barrier: marks put before it are seen after it */
    long *m = barrier_marks[set];
    for (int i = 0; i < a->n; i++) shmem_long_p(&m[a->my], round + 1, a->pes[i]);
    shmem_barrier(a->start, a->log, a->size, pSync);
    int ok = 1;
    for (int i = 0; i < a->n; i++) ok &= m[i] == round + 1;
    CHECK(ok, "%s: shmem_barrier: a mark is missing", a->name);
    shmem_sync(a->start, a->log, a->size, pSync);

    for (int bits = 32; bits <= 64; bits += 32) {
        size_t e = (size_t)bits / 8, n = (size_t)(round * 5 + bits / 32) % 9;
        int root = (round + bits) % a->n;
        int id = tid++;
        fill(src, n * e, me, id, 0);
        memset(dst, 0x77, n * e + 1);
        if (bits == 32) shmem_broadcast32(dst, src, n, root, a->start, a->log, a->size, pSync);
        else shmem_broadcast64(dst, src, n, root, a->start, a->log, a->size, pSync);
        if (a->my == root) memset(ref, 0x77, n * e + 1);
        else {
            fill(ref, n * e, a->pes[root], id, 0);
            ref[n * e] = 0x77;
        }
        CHECK(!memcmp(dst, ref, n * e + 1), "%s: broadcast%d n=%zu root %d", a->name, bits, n, root);

        id = tid++;
        fill(src, n * e, me, id, 0);
        if (bits == 32) shmem_fcollect32(dst, src, n, a->start, a->log, a->size, pSync);
        else shmem_fcollect64(dst, src, n, a->start, a->log, a->size, pSync);
        for (int i = 0; i < a->n; i++) fill(ref + i * n * e, n * e, a->pes[i], id, 0);
        CHECK(!memcmp(dst, ref, a->n * n * e), "%s: fcollect%d n=%zu", a->name, bits, n);

        id = tid++;
        size_t mine = (size_t)(a->my + round) % 3, off = 0;
        fill(src, mine * e, me, id, 0);
        if (bits == 32) shmem_collect32(dst, src, mine, a->start, a->log, a->size, pSync);
        else shmem_collect64(dst, src, mine, a->start, a->log, a->size, pSync);
        for (int i = 0; i < a->n; i++) {
            size_t c = (size_t)(i + round) % 3;
            fill(ref + off * e, c * e, a->pes[i], id, 0);
            off += c;
        }
        CHECK(!memcmp(dst, ref, off * e), "%s: collect%d", a->name, bits);

        id = tid++;
        fill(src, a->n * n * e, me, id, 0);
        if (bits == 32) shmem_alltoall32(dst, src, n, a->start, a->log, a->size, pSync);
        else shmem_alltoall64(dst, src, n, a->start, a->log, a->size, pSync);
        for (int i = 0; i < a->n; i++) fill(ref + i * n * e, n * e, a->pes[i], id, a->my * n * e);
        CHECK(!memcmp(dst, ref, a->n * n * e), "%s: alltoall%d n=%zu", a->name, bits, n);

        id = tid++;
        fill(src, a->n * n * e * 2, me, id, 0);
        memset(dst, 3, a->n * n * e * 3);
        if (bits == 32) shmem_alltoalls32(dst, src, 3, 2, n, a->start, a->log, a->size, pSync);
        else shmem_alltoalls64(dst, src, 3, 2, n, a->start, a->log, a->size, pSync);
        memset(ref, 3, a->n * n * e * 3);
        for (int i = 0; i < a->n; i++)
            for (size_t k = 0; k < n; k++)
                fill(ref + (i * n + k) * 3 * e, e, a->pes[i], id, (a->my * n + k) * 2 * e);
        CHECK(!memcmp(dst, ref, a->n * n * e * 3), "%s: alltoalls%d n=%zu", a->name, bits, n);
    }

    int cnt = round % 3 == 0 ? 1 : round % 3 == 1 ? 17 : CAP;
#define T_AND(T, N, _) TO_ALL(T, N, and, V_BITS, a, cnt);
#define T_OR(T, N, _) TO_ALL(T, N, or, V_BITS, a, cnt);
#define T_XOR(T, N, _) TO_ALL(T, N, xor, V_BITS, a, cnt);
#define T_MAX(T, N, _) TO_ALL(T, N, max, V_SMALL, a, cnt);
#define T_MIN(T, N, _) TO_ALL(T, N, min, V_SMALL, a, cnt);
#define T_SUM(T, N, _) TO_ALL(T, N, sum, V_SMALL, a, cnt);
#define T_PROD(T, N, _) TO_ALL(T, N, prod, V_PROD, a, cnt);
#define T_CSUM(T, N, _) TO_ALL(T, N, sum, V_CSMALL, a, cnt);
#define T_CPROD(T, N, _) TO_ALL(T, N, prod, V_CPROD, a, cnt);
    NODESHM_TOALL_BITWISE_TYPES(T_AND, _)
    NODESHM_TOALL_BITWISE_TYPES(T_OR, _)
    NODESHM_TOALL_BITWISE_TYPES(T_XOR, _)
    NODESHM_TOALL_MINMAX_TYPES(T_MAX, _)
    NODESHM_TOALL_MINMAX_TYPES(T_MIN, _)
    NODESHM_TOALL_MINMAX_TYPES(T_SUM, _)
    NODESHM_TOALL_MINMAX_TYPES(T_PROD, _)
    NODESHM_REDUCE_COMPLEX_TYPES(T_CSUM, _)
    NODESHM_REDUCE_COMPLEX_TYPES(T_CPROD, _)
}

static int make(aset_t *a, const char *name, int start, int log, int size)
{
    a->name = name;
    a->start = start;
    a->log = log;
    a->size = size;
    a->n = size;
    a->my = -1;
    for (int i = 0; i < size; i++) {
        a->pes[i] = start + (i << log);
        if (a->pes[i] == me) a->my = i;
    }
    return size > 0 && a->my >= 0;
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    test_seed();
    for (size_t i = 0; i < sizeof pSync / sizeof *pSync; i++) pSync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    aset_t sets[4];
    int in[4];
    in[0] = make(&sets[0], "all", 0, 0, npes);
    in[1] = make(&sets[1], "evens", 0, 1, (npes + 1) / 2);
    in[2] = make(&sets[2], "odds", 1, 1, npes / 2);
    in[3] = make(&sets[3], "1..n-1", 1, 0, npes - 1);
    /* rounds alternate between the sets: the same (cached) team serves every call on a set */
    for (int round = 0; round < 3; round++)
        for (int s = 0; s < 4; s++) {
            if (!in[s]) continue;
            tid = 1000 * (round * 4 + s); /* the same on every member of the set */
            run(&sets[s], s, round);
        }
    int rc = test_finish("coll_aset");
    shmem_finalize();
    return rc;
}
