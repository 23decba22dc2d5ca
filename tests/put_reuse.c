/* A blocking put's source is the caller's again when the put returns (OpenSHMEM 1.6, 9.5.1), also
 * where the put crosses nodes and goes out of nodeshm's bounce ring (src/core/remote.c): every PE
 * puts a run of blocks of growing sizes (8 B to 32 KiB: in and above the ring's largest put; more
 * bytes than the ring holds, so it wraps) from ONE private buffer to its right neighbour,
 * scribbling over that buffer right after each put returns; after a barrier every PE checks
 * every block it got against the sender's fresh random data.  usage: put_reuse [rounds] */
#include "common.h"

#include <shmem.h>
#include <stdint.h>
#include <string.h>

#define MAX_BLOCK ((size_t)32 << 10)
static const size_t sizes[] = {8, 100, 512, 2048, 4096, 16384, 16385, 32768};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define REPEAT 12 /* blocks of each size per round: 12 x ~74 KiB, more than the ring */

static unsigned char expect_byte(int pe, int round, size_t blk, size_t i)
{
    return (unsigned char)test_value(pe, round, ((uint64_t)blk << 20) | i);
}

int main(int argc, char **argv)
{
    shmem_init();
    test_seed();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    size_t total = 0;
    for (size_t k = 0; k < NSIZES; k++) total += REPEAT * sizes[k];
    unsigned char *dst = shmem_malloc(total), *src = malloc(MAX_BLOCK);
    if (!dst || !src) {
        fprintf(stderr, "put_reuse: out of memory\n");
        shmem_global_exit(2);
    }
    for (int round = 0; round < rounds; round++) {
        memset(dst, 0, total);
        shmem_barrier_all();
        size_t at = 0, blk = 0;
        for (int r = 0; r < REPEAT; r++)
            for (size_t k = 0; k < NSIZES; k++, blk++) {
                size_t len = sizes[k];
                for (size_t i = 0; i < len; i++) src[i] = expect_byte(me, round, blk, i);
                shmem_putmem(dst + at, src, len, right);
                memset(src, 0xA5 ^ (int)blk, len); /* the source is ours again */
                at += len;
            }
        shmem_barrier_all();
        size_t bad = 0, first = SIZE_MAX;
        at = 0, blk = 0;
        for (int r = 0; r < REPEAT; r++)
            for (size_t k = 0; k < NSIZES; k++, blk++) {
                for (size_t i = 0; i < sizes[k]; i++)
                    if (dst[at + i] != expect_byte(left, round, blk, i) && !bad++) first = at + i;
                at += sizes[k];
            }
        CHECK(bad == 0, "round %d: %zu of %zu bytes from PE %d differ (first at byte %zu)", round, bad,
              total, left, first);
    }
    free(src);
    shmem_free(dst);
    int rc = test_finish("put_reuse");
    shmem_finalize();
    return rc;
}
