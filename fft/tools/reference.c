/* nodeshm-fft command: the serial reference (whole grid on rank 0, moved there and back by
 * nodeshm's own remap) and FFTW-MPI, the reference peer. */
#include "reference.h"

#include <fftw3.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef NODESHM_HAVE_FFTW_MPI
#include <fftw3-mpi.h>
#endif

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double median(double *v, int k)
{
    if (k <= 0) return 0;
    qsort(v, (size_t)k, sizeof *v, cmp_double);
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* The whole grid on rank 0 (x fastest), nothing elsewhere. */
static nodeshm_fft_brick_t whole_on_root(MPI_Comm comm, const int n[3])
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    nodeshm_fft_brick_t b = {{0, 0, 0}, {0, 0, 0}, {0, 1, 2}};
    if (rank == 0) memcpy(b.hi, n, sizeof b.hi);
    return b;
}

static int moved(MPI_Comm comm, const int n[3], const nodeshm_fft_brick_t *from,
                 const nodeshm_fft_brick_t *to, size_t es, const void *src, void *dst)
{
    nodeshm_remap_t r;
    int rc = nodeshm_remap_create(comm, n, from, to, es, NODESHM_REMAP_MPI_P2P, &r);
    if (rc == MPI_SUCCESS) rc = nodeshm_remap_execute(r, src, dst);
    nodeshm_remap_destroy(&r);
    return rc;
}

double *reference_serial(MPI_Comm comm, const int n[3], const nodeshm_fft_brick_t *in,
                         const nodeshm_fft_brick_t *out, nodeshm_fft_precision_t prec,
                         const void *in_data)
{
    size_t es = prec == NODESHM_FFT_DOUBLE ? 16 : 8;
    nodeshm_fft_brick_t root = whole_on_root(comm, n);
    size_t N = nodeshm_fft_brick_size(&root);
    char *whole = malloc(es * N + 16);
    fftw_complex *a = fftw_malloc(sizeof *a * (N + 1));
    double *mine = malloc(16 * (nodeshm_fft_brick_size(out) + 1));
    if (!whole || !a || !mine) return NULL;
    moved(comm, n, in, &root, es, in_data, whole);
    for (size_t k = 0; k < N; k++) {
        a[k][0] = es == 16 ? ((double *)whole)[2 * k] : ((float *)whole)[2 * k];
        a[k][1] = es == 16 ? ((double *)whole)[2 * k + 1] : ((float *)whole)[2 * k + 1];
    }
    if (N) {
        fftw_plan p = fftw_plan_dft_3d(n[2], n[1], n[0], a, a, FFTW_FORWARD, FFTW_ESTIMATE);
        fftw_execute(p);
        fftw_destroy_plan(p);
    }
    moved(comm, n, &root, out, 16, a, mine);
    free(whole);
    fftw_free(a);
    return mine;
}

#ifdef NODESHM_HAVE_FFTW_MPI
int reference_fftw_mpi(MPI_Comm comm, const int n[3], const nodeshm_fft_brick_t *in,
                       const nodeshm_fft_brick_t *out, nodeshm_fft_precision_t prec,
                       const void *in_data, const double *ref, double peak, int iterations,
                       int check, double *seconds, double *error, const char **why)
{
    if (prec != NODESHM_FFT_DOUBLE) {
        *why = "the FFTW-MPI reference is built for double precision only";
        return 0;
    }
    static int initialized;
    if (!initialized) fftw_mpi_init();
    initialized = 1;
    /* FFTW's row-major [z][y][x]: z slabs in, y slabs out (transposed), x fastest throughout */
    ptrdiff_t ln0, l0, ln1, l1;
    ptrdiff_t alloc = fftw_mpi_local_size_3d_transposed(n[2], n[1], n[0], comm, &ln0, &l0, &ln1, &l1);
    nodeshm_fft_brick_t slab = {{0, 0, (int)l0}, {n[0], n[1], (int)(l0 + ln0)}, {0, 1, 2}};
    nodeshm_fft_brick_t tslab = {{0, (int)l1, 0}, {n[0], (int)(l1 + ln1), n[2]}, {0, 2, 1}};
    fftw_complex *x = fftw_alloc_complex((size_t)alloc + 1), *y = fftw_alloc_complex((size_t)alloc + 1);
    fftw_complex *x0 = fftw_alloc_complex((size_t)alloc + 1);
    double *mine = malloc(16 * (nodeshm_fft_brick_size(out) + 1));
    moved(comm, n, in, &slab, 16, in_data, x0);
    fftw_plan fwd = fftw_mpi_plan_dft_3d(n[2], n[1], n[0], x, y, comm, FFTW_FORWARD,
                                         nodeshm_fft_fftw_flags() | FFTW_MPI_TRANSPOSED_OUT);
    fftw_plan bwd = fftw_mpi_plan_dft_3d(n[2], n[1], n[0], y, x, comm, FFTW_BACKWARD,
                                         nodeshm_fft_fftw_flags() | FFTW_MPI_TRANSPOSED_IN);
    double max_err = 0;
    for (int it = 0; it <= iterations; it++) { /* iteration 0 warms up */
        memcpy(x, x0, sizeof *x * (size_t)ln0 * n[1] * n[0]);
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        fftw_execute(fwd);
        if (it == 0 && check) { /* its forward result, in our out bricks, against the serial one */
            moved(comm, n, &tslab, out, 16, y, mine);
            for (size_t k = 0; k < 2 * nodeshm_fft_brick_size(out); k++)
                max_err = fmax(max_err, fabs(mine[k] - ref[k]));
            t0 = MPI_Wtime();
        }
        fftw_execute(bwd);
        double dt = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (it) seconds[it - 1] = dt;
    }
    if (check) {
        MPI_Allreduce(MPI_IN_PLACE, &max_err, 1, MPI_DOUBLE, MPI_MAX, comm);
        *error = max_err / (peak > 0 ? peak : 1);
    }
    fftw_destroy_plan(fwd);
    fftw_destroy_plan(bwd);
    fftw_free(x), fftw_free(y), fftw_free(x0);
    free(mine);
    return 1;
}
#else
int reference_fftw_mpi(MPI_Comm comm, const int n[3], const nodeshm_fft_brick_t *in,
                       const nodeshm_fft_brick_t *out, nodeshm_fft_precision_t prec,
                       const void *in_data, const double *ref, double peak, int iterations,
                       int check, double *seconds, double *error, const char **why)
{
    (void)comm, (void)n, (void)in, (void)out, (void)prec, (void)in_data, (void)ref, (void)peak;
    (void)iterations, (void)check, (void)seconds, (void)error;
    *why = "this build has no FFTW-MPI (tools/fftw.sh could not build it; see cmake's output)";
    return 0;
}
#endif
