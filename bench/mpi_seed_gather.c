/* The seed scenario of libnodeshm_mpi: every rank contributes 10,000 doubles per step, rank 0
 * validates all of them, 512 steps.  Measured in the same run:
 *   MPI_Gather   - the MPI library's gather (PMPI_Gather: the interposer is bypassed)
 *   node-shared  - nodeshm.h: each rank writes its values straight into its part of a node-shared
 *                  region (two halves, alternating steps), one nodeshm_shared_sync per step, and
 *                  rank 0 validates them in place: no copy at all.
 * Needs all ranks on one node (rank 0 reads everything in place).  Prints median time per step
 * and the speedup.  Usage: mpi_seed_gather [doubles_per_rank [steps]] */
#include "nodeshm.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double value(int step, int rank, int i) { return (double)(((long)step * 131 + rank) * 10007L + i); }

static long validate(const double *v, int step, int rank, int n)
{
    long bad = 0;
    for (int i = 0; i < n; i++) bad += v[i] != value(step, rank, i);
    return bad;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 10000;
    int steps = argc > 2 ? atoi(argv[2]) : 512;
    int reps = 5;

    nodeshm_shared_t h;
    nodeshm_shared_alloc(MPI_COMM_WORLD, 2 * (size_t)n * sizeof(double), &h);
    int node_size;
    nodeshm_shared_node_info(h, NULL, &node_size, NULL, NULL);
    if (node_size != size) {
        if (rank == 0) printf("mpi_seed_gather: needs all %d ranks on one node (NODESHM_PES_PER_NODE unset)\n", size);
        nodeshm_shared_free(&h);
        MPI_Finalize();
        return 0;
    }
    double **peer = malloc(sizeof(double *) * (size_t)size);
    for (int r = 0; r < size; r++) peer[r] = nodeshm_shared_ptr(h, r, NULL);
    double *mine = peer[rank];
    double *local = malloc(sizeof(double) * (size_t)n);
    double *all = rank == 0 ? malloc(sizeof(double) * (size_t)n * (size_t)size) : NULL;

    double t_mpi[8], t_shm[8];
    long bad_mpi = 0, bad_shm = 0;
    for (int rep = 0; rep < reps; rep++) {
        /* MPI library gather */
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int s = 0; s < steps; s++) {
            for (int i = 0; i < n; i++) local[i] = value(s, rank, i);
            PMPI_Gather(local, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (rank == 0)
                for (int r = 0; r < size; r++) bad_mpi += validate(all + (size_t)r * n, s, r, n);
        }
        PMPI_Barrier(MPI_COMM_WORLD);
        t_mpi[rep] = (MPI_Wtime() - t0) / steps;

        /* node-shared: write in place, sync, validate in place */
        PMPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int s = 0; s < steps; s++) {
            double *half = mine + (size_t)(s & 1) * n;
            for (int i = 0; i < n; i++) half[i] = value(s, rank, i);
            nodeshm_shared_sync(h); /* also: rank 0 is done with step s-2's half */
            if (rank == 0)
                for (int r = 0; r < size; r++) bad_shm += validate(peer[r] + (size_t)(s & 1) * n, s, r, n);
        }
        nodeshm_shared_sync(h);
        PMPI_Barrier(MPI_COMM_WORLD);
        t_shm[rep] = (MPI_Wtime() - t0) / steps;
    }
    qsort(t_mpi, (size_t)reps, sizeof(double), cmp);
    qsort(t_shm, (size_t)reps, sizeof(double), cmp);
    if (rank == 0) {
        printf("# seed gather: %d ranks x %d doubles, %d steps, median of %d runs, time per step\n",
               size, n, steps, reps);
        printf("%-28s %12s %10s\n", "# method", "us/step", "errors");
        printf("%-28s %12.1f %10ld\n", "MPI_Gather (MPI library)", t_mpi[reps / 2] * 1e6, bad_mpi);
        printf("%-28s %12.1f %10ld\n", "node-shared (nodeshm.h)", t_shm[reps / 2] * 1e6, bad_shm);
        printf("speedup node-shared / MPI_Gather: %.2fx (target >= 3x)\n", t_mpi[reps / 2] / t_shm[reps / 2]);
    }
    free(all);
    free(local);
    free(peer);
    nodeshm_shared_free(&h);
    MPI_Finalize();
    return bad_mpi || bad_shm;
}
