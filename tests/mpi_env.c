/* libnodeshm_mpi settings (tests/mpi_env.sh, tests/mpi_env.cmake).
 *
 * Usage: mpi_env smoke            a bcast and an alltoallv checked against PMPI_*: the job runs
 *                                 with the settings it was given (the script checks the
 *                                 NODESHM_DEBUG lines)
 *        mpi_env a2av MAX         NODESHM_MPI_ALLTOALLV_MAX=MAX (bytes) was widened: 8-byte and
 *                                 1 KiB alltoallv calls are still accelerated (one more
 *                                 nodeshm_mpi_accelerated() each) and every size up to past MAX
 *                                 matches PMPI_Alltoallv
 * Extra arguments are ignored (tests/expect_failure.sh appends a tag).  Prints "mpi_env: PASS". */
#include "nodeshm.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "mpi_env: FAIL: " __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* One alltoallv of `block` bytes per rank pair (rank-dependent counts for blocks > 8: pair
 * (r -> q) moves block - 8 * ((r + q) % 2) bytes), checked against PMPI_Alltoallv; returns how
 * many calls the interposer counted for it (the same on every rank). */
static long one_alltoallv(size_t block, unsigned seed)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *sc = malloc(sizeof(int) * 4 * (size_t)size), *sd = sc + size, *rc = sc + 2 * size, *rd = sc + 3 * size;
    size_t total = block * (size_t)size;
    unsigned char *sbuf = malloc(total), *got = malloc(total), *want = malloc(total);
    for (int q = 0; q < size; q++) {
        size_t shrink = block > 8 ? 8 * (size_t)((rank + q) % 2) : 0;
        sc[q] = rc[q] = (int)(block - shrink);
        sd[q] = rd[q] = (int)(block * (size_t)q);
    }
    for (size_t i = 0; i < total; i++) sbuf[i] = (unsigned char)(seed * 131u + (unsigned)rank * 17u + i * 7u);
    memset(got, 0xee, total);
    memset(want, 0xee, total);
    long before = nodeshm_mpi_accelerated();
    MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, got, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
    long counted = nodeshm_mpi_accelerated() - before;
    PMPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, want, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
    CHECK(!memcmp(got, want, total), "rank %d: alltoallv of %zu-byte blocks differs from PMPI_Alltoallv",
          rank, block);
    free(sbuf);
    free(got);
    free(want);
    free(sc);
    return counted;
}

static void smoke(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double v[4] = {rank ? 0 : 1.5, rank ? 0 : 2.5, rank ? 0 : 3.5, rank ? 0 : 4.5};
    MPI_Bcast(v, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    CHECK(v[0] == 1.5 && v[3] == 4.5, "rank %d: bcast", rank);
    (void)one_alltoallv(8, 1);
}

static void a2av(size_t max)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* small calls first: a too-big vote makes the next calls skip the vote (alltoall.c) */
    const size_t small[] = {8, 1024};
    for (int k = 0; k < 2; k++)
        for (unsigned i = 0; i < 10; i++) {
            long n = one_alltoallv(small[k], i);
            CHECK(n == 1, "rank %d: alltoallv of %zu-byte blocks, call %u: %ld accelerated (want 1; "
                  "NODESHM_MPI_ALLTOALLV_MAX=%zu)", rank, small[k], i, n, max);
        }
    /* large ones: correct whichever path they take (above the matrix's stride: the library) */
    const size_t large[] = {max / 4, max / 2, max - 8, max, max + 64};
    for (int k = 0; k < 5; k++) (void)one_alltoallv(large[k], 100 + (unsigned)k);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc >= 2 && !strcmp(argv[1], "smoke")) {
        smoke();
    } else if (argc >= 3 && !strcmp(argv[1], "a2av")) {
        a2av((size_t)strtoull(argv[2], NULL, 10));
    } else {
        if (rank == 0) fprintf(stderr, "usage: mpi_env smoke | a2av MAX\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf(all ? "mpi_env: FAIL (%d)\n" : "mpi_env: PASS\n", all);
    MPI_Finalize();
    return all != 0;
}
