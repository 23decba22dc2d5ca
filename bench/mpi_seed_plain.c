/* The seed scenario as an unmodified MPI program: no nodeshm header, no nodeshm call, linked
 * only to the MPI library, so that it measures libnodeshm_mpi the way a user meets it (run it
 * bare and under LD_PRELOAD=libnodeshm_mpi.so and compare).  Every rank fills 10,000 doubles per
 * step, MPI_Gather sends them to rank 0, which validates all of them; 512 steps after 16 warm-up
 * steps.  Prints one line: microseconds per step (max over ranks), and how many values were
 * wrong (must be 0).
 *
 * Usage: mpi_seed_plain [-n doubles_per_rank] [-i steps] [-x warmup_steps] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double base(long step, int rank) { return (double)((step * 131 + rank) * 10007L); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, n = 10000;
    long steps = 512, warmup = 16;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-n")) n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-i")) steps = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "-x")) warmup = atol(argv[i + 1]);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *local = malloc(sizeof(double) * (size_t)n);
    double *all = rank == 0 ? malloc(sizeof(double) * (size_t)n * (size_t)size) : NULL;
    long bad = 0;
    double t0 = 0;
    for (long step = 0; step < warmup + steps; step++) {
        if (step == warmup) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        const double b = base(step, rank);
        for (int i = 0; i < n; i++) local[i] = b + (double)i;
        MPI_Gather(local, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0)
            for (int q = 0; q < size; q++) {
                const double bq = base(step, q), *v = all + (size_t)q * (size_t)n;
                for (int i = 0; i < n; i++) bad += v[i] != bq + (double)i;
            }
    }
    double dt = (MPI_Wtime() - t0) / (double)steps * 1e6, mx;
    MPI_Reduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("seed_gather ranks %d bytes_per_rank %zu us_per_step %.2f wrong %ld\n", size,
                          (size_t)n * sizeof(double), mx, bad);
    free(local);
    free(all);
    MPI_Finalize();
    return bad != 0;
}
