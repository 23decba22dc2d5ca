/* OSU-style latencies of MPI_Barrier, MPI_Bcast, MPI_Allreduce (double sum) and MPI_Gather, with
 * the interposer (MPI_*, libnodeshm_mpi, linked) and without it (PMPI_*: the MPI library), in the
 * same run: median over repetitions of the mean time per call, in microseconds.  Raise the
 * NODESHM_MPI_*_MAX thresholds to see nodeshm above the defaults.
 * Usage: mpi_osu [max_bytes] */
#include "nodeshm.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BARRIER, BCAST, ALLREDUCE, GATHER };
static const char *names[] = {"barrier", "bcast", "allreduce", "gather"};

static void run(int what, int pmpi, void *a, void *b, int bytes, int root)
{
    int n = bytes / 8;
    switch (what) {
    case BARRIER: pmpi ? PMPI_Barrier(MPI_COMM_WORLD) : MPI_Barrier(MPI_COMM_WORLD); break;
    case BCAST: pmpi ? PMPI_Bcast(a, bytes, MPI_BYTE, root, MPI_COMM_WORLD)
                     : MPI_Bcast(a, bytes, MPI_BYTE, root, MPI_COMM_WORLD); break;
    case ALLREDUCE: pmpi ? PMPI_Allreduce(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD)
                         : MPI_Allreduce(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    case GATHER: pmpi ? PMPI_Gather(a, bytes, MPI_BYTE, b, bytes, MPI_BYTE, root, MPI_COMM_WORLD)
                      : MPI_Gather(a, bytes, MPI_BYTE, b, bytes, MPI_BYTE, root, MPI_COMM_WORLD); break;
    }
}

static int cmp(const void *x, const void *y)
{
    double u = *(const double *)x, v = *(const double *)y;
    return u < v ? -1 : u > v;
}

static double measure(int what, int pmpi, void *a, void *b, int bytes, int iters)
{
    double t[5];
    for (int rep = 0; rep < 5; rep++) {
        for (int i = 0; i < 3; i++) run(what, pmpi, a, b, bytes, 0); /* warm up */
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) run(what, pmpi, a, b, bytes, 0);
        double dt = (MPI_Wtime() - t0) / iters, mx;
        PMPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t[rep] = mx;
    }
    qsort(t, 5, sizeof(double), cmp);
    return t[2] * 1e6;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int max_bytes = argc > 1 ? atoi(argv[1]) : 1 << 20;
    char *a = calloc((size_t)max_bytes, 1), *b = calloc((size_t)max_bytes * (size_t)size, 1);
    if (rank == 0)
        printf("# %d ranks: latency in us, MPI library (PMPI) vs with libnodeshm_mpi (MPI)\n"
               "%-10s %9s %12s %12s %8s\n", size, "# op", "bytes", "MPI lib", "nodeshm", "speedup");
    for (int what = BARRIER; what <= GATHER; what++) {
        for (int bytes = what == BARRIER ? 0 : 8; bytes <= (what == BARRIER ? 0 : max_bytes); bytes *= 4) {
            int iters = bytes >= 262144 ? 20 : bytes >= 16384 ? 100 : 400;
            double lib = measure(what, 1, a, b, bytes, iters);
            double ns = measure(what, 0, a, b, bytes, iters);
            if (rank == 0)
                printf("%-10s %9d %12.2f %12.2f %7.2fx\n", names[what], bytes, lib, ns, lib / ns);
            if (!bytes) break;
        }
    }
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
