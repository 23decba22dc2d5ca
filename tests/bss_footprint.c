/* The data segment is shared at init without committing untouched .bss: a program with a large
 * static array must not pay for it in memory (it did: the first version copied every page).
 * The array is also remotely accessible at both ends. */
#include "common.h"

#include <string.h>

#define BIG (256u << 20)
static char big[BIG];
static long marker = 42; /* initialized data must survive the remap */

static long rss_mib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        fclose(f);
    }
    return resident * sysconf(_SC_PAGESIZE) / (1 << 20);
}

int main(void)
{
    shmem_init();
    test_seed();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long rss = rss_mib();
    CHECK(rss < 128, "resident %ld MiB after shmem_init with a %u MiB untouched .bss", rss, BIG >> 20);
    CHECK(marker == 42, "initialized global lost in the remap: %ld", marker);
    unsigned char v = (unsigned char)test_value(me, 0, 0);
    int right = (me + 1) % n;
    shmem_putmem(&big[0], &v, 1, right);
    shmem_putmem(&big[BIG - 1], &v, 1, right);
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    unsigned char want = (unsigned char)test_value(left, 0, 0);
    CHECK((unsigned char)big[0] == want && (unsigned char)big[BIG - 1] == want,
          "ends of the big array: %u %u, want %u", (unsigned char)big[0], (unsigned char)big[BIG - 1],
          want);
    int status = test_finish("bss_footprint");
    shmem_finalize();
    return status;
}
