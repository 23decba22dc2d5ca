/* nodeshm tests: shared helpers.  Every test checks values on fresh random data: the seed comes
 * from the time (or NODESHM_TEST_SEED to replay) and is printed by PE 0. */
#ifndef NODESHM_TEST_COMMON_H
#define NODESHM_TEST_COMMON_H

#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long test_failures;
static long test_checks;

/* Records one check; prints the first few failures with their location. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        test_checks++;                                                                             \
        if (!(cond) && test_failures++ < 10) {                                                     \
            char msg_[512];                                                                        \
            int n_ = snprintf(msg_, sizeof msg_, "PE %d: %s:%d: check failed: %s: ", shmem_my_pe(), \
                              __FILE__, __LINE__, #cond);                                          \
            if (n_ > 0 && n_ < (int)sizeof msg_)                                                   \
                snprintf(msg_ + n_, sizeof msg_ - (size_t)n_, __VA_ARGS__);                        \
            fprintf(stderr, "%s\n", msg_); /* one write: lines of PEs do not interleave */          \
        }                                                                                          \
    } while (0)

/* splitmix64: a per-PE stream from one job-wide seed, so any PE can recompute another's data */
static inline uint64_t test_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t test_seed_value;

/* Collective: agrees on one seed (PE 0's) through the symmetric data segment. */
static inline uint64_t test_seed(void)
{
    static uint64_t seed;
    if (shmem_my_pe() == 0) {
        const char *env = getenv("NODESHM_TEST_SEED");
        seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
        printf("seed %llu (replay with NODESHM_TEST_SEED=%llu)\n", (unsigned long long)seed,
               (unsigned long long)seed);
        fflush(stdout);
    }
    shmem_barrier_all();
    if (shmem_my_pe() != 0) shmem_getmem(&seed, &seed, sizeof seed, 0);
    shmem_barrier_all();
    test_seed_value = seed;
    return seed;
}

/* Deterministic "random" value number i of PE pe's stream k. */
static inline uint64_t test_value(int pe, int k, uint64_t i)
{
    return test_mix(test_seed_value ^ test_mix(((uint64_t)pe << 40) ^ ((uint64_t)k << 32) ^ i));
}

/* Sums failures over all PEs; PE 0 prints "N passed, M failed"; returns the exit status. */
static inline int test_finish(const char *name)
{
    static long fails, sum;
    static long checks, checks_sum;
    fails = test_failures;
    checks = test_checks;
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        sum = fails;
        checks_sum = checks;
        for (int pe = 1; pe < shmem_n_pes(); pe++) {
            sum += shmem_long_g(&fails, pe);
            checks_sum += shmem_long_g(&checks, pe);
        }
        printf("%s: %d PEs: %ld checks\n", name, shmem_n_pes(), checks_sum);
        printf("%ld passed, %ld failed\n", checks_sum - sum, sum);
    }
    shmem_barrier_all();
    long total = shmem_long_g(&sum, 0);
    if (checks_sum == 0 && shmem_my_pe() == 0) fprintf(stderr, "%s: no checks ran\n", name);
    shmem_barrier_all();
    return total != 0 || shmem_long_g(&checks_sum, 0) == 0;
}

#endif
