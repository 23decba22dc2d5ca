/* MPI tests: what every MPI test program shares: failure counting with located messages (CHECK,
 * on rank `wrank`), one job-wide random seed (rank 0's: the time, or NODESHM_TEST_SEED to replay)
 * and the splitmix64 mixer that turns it into values any rank can recompute. */
#ifndef NODESHM_TESTS_MPI_CHECK_H
#define NODESHM_TESTS_MPI_CHECK_H
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long failures, checks;
static int wrank;
static uint64_t seed;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond) && failures++ < 10) {                                                          \
            char m_[512];                                                                          \
            int n_ = snprintf(m_, sizeof m_, "rank %d: %s:%d: check failed: %s: ", wrank,          \
                              __FILE__, __LINE__, #cond);                                          \
            if (n_ > 0 && n_ < (int)sizeof m_) snprintf(m_ + n_, sizeof m_ - (size_t)n_, __VA_ARGS__); \
            fprintf(stderr, "%s\n", m_);                                                           \
        }                                                                                          \
    } while (0)

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Collective over MPI_COMM_WORLD (through PMPI: no interposer in the way): sets seed. */
static void __attribute__((unused)) mpi_check_seed(void)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    const char *s = getenv("NODESHM_TEST_SEED");
    seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    PMPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
}
#endif
