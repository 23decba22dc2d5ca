/* Large contiguous put/get, meant for pseudo-node mode (NODESHM_PES_PER_NODE), where PE p's
 * partner (p + npes/2) % npes is on another (pseudo-)node and every transfer takes MPI RMA.
 *
 * Sizes 1 MiB .. 64 MiB, several of them not multiples of any chunk size, at odd offsets on
 * both sides; putmem, putmem_nbi, getmem, getmem_nbi into symmetric and private buffers.  Each
 * case carries fresh random data (the job seed, the case and the sender); the receiver
 * recomputes it and checks the bytes just outside the transfer kept their sentinels.  With
 * NODESHM_RMA_CHUNK_MAX set small (tests/rma_large.cmake) the same cases cross the splitting
 * of transfers into several MPI operations, which otherwise needs transfers over 2 GiB. */
#include <shmem.h>
#include <string.h>

#include "common.h"

#define MAX_BYTES ((size_t)64 << 20)
#define SLACK 4096 /* room for offsets and the sentinels after the data */
#define SENTINEL 0xa5

/* Byte j of case k's data from PE pe: the words of the PE's stream k, from the transfer start */
static void fill(unsigned char *p, size_t n, int pe, int k)
{
    size_t j = 0;
    for (; j + 8 <= n; j += 8) {
        uint64_t v = test_value(pe, k, j / 8);
        memcpy(p + j, &v, 8);
    }
    if (j < n) {
        uint64_t v = test_value(pe, k, j / 8);
        memcpy(p + j, &v, n - j);
    }
}

/* Checks n bytes at p against case k of PE pe, and one sentinel byte on each side. */
static void verify(const char *what, const unsigned char *p, size_t n, int pe, int k)
{
    size_t j = 0, bad = 0, first = 0;
    for (; j + 8 <= n; j += 8) {
        uint64_t v = test_value(pe, k, j / 8), got;
        memcpy(&got, p + j, 8);
        if (got != v && !bad++) first = j;
    }
    if (j < n) {
        uint64_t v = test_value(pe, k, j / 8), got = 0, want = 0;
        memcpy(&got, p + j, n - j);
        memcpy(&want, &v, n - j);
        if (got != want && !bad++) first = j;
    }
    CHECK(bad == 0, "%s case %d, %zu bytes from PE %d: %zu bad words, first at byte %zu", what, k,
          n, pe, bad, first);
    CHECK(p[-1] == SENTINEL && p[n] == SENTINEL,
          "%s case %d, %zu bytes: sentinel overwritten (before %#x, after %#x)", what, k, n, p[-1],
          p[n]);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int partner = (me + npes / 2) % npes;      /* I put to / get from it */
    int from = (me - npes / 2 + npes) % npes;  /* it puts to me */
    uint64_t seed = test_seed();
    (void)seed;
    size_t bytes = MAX_BYTES + SLACK;
    unsigned char *sym_src = shmem_malloc(bytes), *sym_dst = shmem_malloc(bytes);
    unsigned char *priv = malloc(bytes);
    if (!sym_src || !sym_dst || !priv) {
        fprintf(stderr, "PE %d: cannot allocate 3 x %zu bytes\n", me, bytes);
        shmem_global_exit(1);
    }
    /* sizes: powers of two, odd ones and one just below the top; offsets: odd on both sides */
    static const size_t sizes[] = {(size_t)1 << 20,         ((size_t)1 << 20) + 1,
                                   ((size_t)3 << 20) + 7,   (size_t)8 << 20,
                                   ((size_t)16 << 20) + 12345, ((size_t)33 << 20) - 3,
                                   MAX_BYTES - 1};
    static const size_t offs[][2] = {{0, 0}, {1, 3}, {4093, 8}, {17, 2049}};
    const int nsizes = (int)(sizeof sizes / sizeof *sizes), noffs = (int)(sizeof offs / sizeof *offs);
    int k = 0;
    for (int si = 0; si < nsizes; si++) {
        for (int op = 0; op < 4; op++, k++) { /* put, put_nbi, get, get_nbi */
            size_t n = sizes[si];
            size_t so = offs[(si + op) % noffs][0] + 1, doff = offs[(si + op) % noffs][1] + 1;
            if (op < 2) {
                /* put: private (op 0) or symmetric (op 1) source into the partner's sym_dst */
                unsigned char *src = op == 0 ? priv : sym_src;
                fill(src + so, n, me, k);
                memset(sym_dst, SENTINEL, bytes);
                shmem_barrier_all(); /* everyone's sentinels are down before data arrives */
                if (op == 0) shmem_putmem(sym_dst + doff, src + so, n, partner);
                else shmem_putmem_nbi(sym_dst + doff, src + so, n, partner);
                if (op == 0) memset(src + so, 0, n); /* blocking: the source is reusable */
                shmem_barrier_all(); /* completes the puts */
                verify(op == 0 ? "putmem" : "putmem_nbi", sym_dst + doff, n, from, k);
            } else {
                /* get: the partner's sym_src into my private buffer (op 2) or sym_dst (op 3) */
                memset(sym_src, SENTINEL, bytes);
                fill(sym_src + so, n, me, k);
                unsigned char *dst = op == 2 ? priv : sym_dst;
                memset(dst, SENTINEL, bytes);
                shmem_barrier_all();
                if (op == 2) {
                    shmem_getmem(dst + doff, sym_src + so, n, partner);
                } else {
                    shmem_getmem_nbi(dst + doff, sym_src + so, n, partner);
                    shmem_quiet();
                }
                verify(op == 2 ? "getmem" : "getmem_nbi", dst + doff, n, partner, k);
                shmem_barrier_all(); /* nobody refills sym_src while a partner reads it */
            }
        }
    }
    shmem_free(sym_src);
    shmem_free(sym_dst);
    free(priv);
    int status = test_finish("rma_large");
    shmem_finalize();
    return status;
}
