/* A PPPM-like Poisson solve with nodeshm-fft: the long-range part of LAMMPS' PPPM solves
 * laplacian(phi) = -rho on a periodic grid by a forward FFT of rho, a multiplication by the
 * Green's function 1/|k|^2, and a backward FFT.
 *
 * Here rho comes from a known potential (a sum of three plane waves), so the solve can be
 * checked: it prints the largest error of phi against the exact one and exits nonzero above 1e-10.
 *
 *   oshrun -np 4 ./fft_poisson [N] [strategy]      (default 32, auto) */
#include "nodeshm_fft.h"

#include <complex.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static const double L = 1.0;        /* the box */
static const int modes[3][3] = {{1, 0, 0}, {2, -3, 1}, {0, 1, 4}};
static const double amp[3] = {1.0, 0.5, 0.25};

static double exact_phi(const int n[3], const int i[3])
{
    double phi = 0;
    for (int m = 0; m < 3; m++) {
        double arg = 0;
        for (int d = 0; d < 3; d++) arg += 2 * M_PI * modes[m][d] * (i[d] * L / n[d]) / L;
        phi += amp[m] * cos(arg);
    }
    return phi;
}

/* -laplacian(phi): each plane wave times |k|^2 */
static double rho_at(const int n[3], const int i[3])
{
    double rho = 0;
    for (int m = 0; m < 3; m++) {
        double arg = 0, k2 = 0;
        for (int d = 0; d < 3; d++) {
            double k = 2 * M_PI * modes[m][d] / L;
            arg += k * (i[d] * L / n[d]);
            k2 += k * k;
        }
        rho += amp[m] * k2 * cos(arg);
    }
    return rho;
}

/* Every point of brick b in its memory order (order[0] fastest): k counts them. */
#define FOR_BRICK(b, i, k)                                                                         \
    for (i[(b).order[2]] = (b).lo[(b).order[2]]; i[(b).order[2]] < (b).hi[(b).order[2]];          \
         i[(b).order[2]]++)                                                                        \
        for (i[(b).order[1]] = (b).lo[(b).order[1]]; i[(b).order[1]] < (b).hi[(b).order[1]];      \
             i[(b).order[1]]++)                                                                    \
            for (i[(b).order[0]] = (b).lo[(b).order[0]]; i[(b).order[0]] < (b).hi[(b).order[0]];  \
                 i[(b).order[0]]++, k++)

/* The wavenumber of index i on an n-point axis. */
static double wavenumber(int i, int n) { return 2 * M_PI / L * (i <= n / 2 ? i : i - n); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int N = argc > 1 ? atoi(argv[1]) : 32;
    nodeshm_remap_strategy_t strategy = NODESHM_REMAP_AUTO;
    if (argc > 2 && nodeshm_remap_strategy_from_name(argv[2], &strategy)) MPI_Abort(MPI_COMM_WORLD, 2);
    int n[3] = {N, N, N}, grid[2];
    nodeshm_fft_brick_t in, out;
    nodeshm_fft_pencil_grid(nranks, n, grid);
    nodeshm_fft_pencil_brick(n, grid, rank, 0, &in);  /* real space: x pencils */
    nodeshm_fft_pencil_brick(n, grid, rank, 2, &out); /* k space: z pencils */
    nodeshm_fft_plan_t plan;
    if (nodeshm_fft_plan_create(MPI_COMM_WORLD, n, &in, &out, NODESHM_FFT_DOUBLE, strategy, &plan)) {
        MPI_Finalize(); /* every rank got the error, and one said why: no abort needed */
        return 1;
    }
    size_t nin = nodeshm_fft_brick_size(&in), nout = nodeshm_fft_brick_size(&out);
    double complex *grid_r = malloc(sizeof *grid_r * (nin + 1));
    double complex *grid_k = malloc(sizeof *grid_k * (nout + 1));
    int i[3];
    size_t k = 0;
    FOR_BRICK(in, i, k) grid_r[k] = rho_at(n, i);

    nodeshm_fft_forward(plan, grid_r, grid_k);
    k = 0; /* phi(k) = rho(k) / |k|^2, and the mean (k = 0) is zero */
    FOR_BRICK(out, i, k) {
        double kx = wavenumber(i[0], N), ky = wavenumber(i[1], N), kz = wavenumber(i[2], N);
        double k2 = kx * kx + ky * ky + kz * kz;
        grid_k[k] = k2 > 0 ? grid_k[k] / k2 : 0;
    }
    nodeshm_fft_backward(plan, grid_k, grid_r);

    double err = 0, total = (double)N * N * N;
    k = 0;
    FOR_BRICK(in, i, k) err = fmax(err, cabs(grid_r[k] / total - exact_phi(n, i)));
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    nodeshm_fft_info_t info;
    nodeshm_fft_plan_info(plan, &info);
    if (rank == 0)
        printf("fft_poisson: %d^3 grid, %d ranks, strategy %s: max error %.2e: %s\n", N, nranks,
               nodeshm_remap_strategy_name(info.strategy), err, err < 1e-10 ? "OK" : "WRONG");
    nodeshm_fft_destroy(&plan);
    free(grid_r);
    free(grid_k);
    MPI_Finalize();
    return err < 1e-10 ? 0 : 1;
}
