/* nodeshm-bench-coll: OpenSHMEM collectives on SHMEM_TEAM_WORLD beside the MPI library's
 * collectives on MPI_COMM_WORLD, same PEs, same run.
 *
 * For each collective and size, the shmem call and its MPI counterpart are measured in
 * interleaved repetitions (so machine noise hits both alike); a repetition times `iters`
 * back-to-back calls (the shmem collectives need no barrier between them) and takes the slowest
 * PE's time per call; the tables show medians over the repetitions.  Sizes are bytes per PE:
 * the broadcast payload, each PE's fcollect contribution, each alltoall block, the reduced
 * array. */
#include <mpi.h>
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define MAX_SIZE ((size_t)1 << 20)

static int me, npes, reps;
static char *sym_src, *sym_dst;   /* symmetric */
static char *priv_src, *priv_dst; /* MPI buffers */

typedef void (*op_fn)(size_t size);

static void sh_bcast(size_t s) { shmem_broadcastmem(SHMEM_TEAM_WORLD, sym_dst, sym_src, s, 0); }
static void mpi_bcast(size_t s) { MPI_Bcast(priv_dst, (int)s, MPI_BYTE, 0, MPI_COMM_WORLD); }
static void sh_fcollect(size_t s) { shmem_fcollectmem(SHMEM_TEAM_WORLD, sym_dst, sym_src, s); }
static void mpi_allgather(size_t s)
{
    MPI_Allgather(priv_src, (int)s, MPI_BYTE, priv_dst, (int)s, MPI_BYTE, MPI_COMM_WORLD);
}
static void sh_alltoall(size_t s) { shmem_alltoallmem(SHMEM_TEAM_WORLD, sym_dst, sym_src, s); }
static void mpi_alltoall(size_t s)
{
    MPI_Alltoall(priv_src, (int)s, MPI_BYTE, priv_dst, (int)s, MPI_BYTE, MPI_COMM_WORLD);
}
static void sh_sum_int(size_t s)
{
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, (int *)sym_dst, (int *)sym_src, s / sizeof(int));
}
static void mpi_sum_int(size_t s)
{
    MPI_Allreduce(priv_src, priv_dst, (int)(s / sizeof(int)), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}
static void sh_sum_double(size_t s)
{
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, (double *)sym_dst, (double *)sym_src,
                            s / sizeof(double));
}
static void mpi_sum_double(size_t s)
{
    MPI_Allreduce(priv_src, priv_dst, (int)(s / sizeof(double)), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
}
static void sh_sync(size_t s)
{
    (void)s;
    shmem_team_sync(SHMEM_TEAM_WORLD);
}
static void mpi_barrier(size_t s)
{
    (void)s;
    MPI_Barrier(MPI_COMM_WORLD);
}

/* seconds per call, the slowest PE's */
static double time_op(op_fn fn, size_t size, long iters)
{
    shmem_barrier_all();
    MPI_Barrier(MPI_COMM_WORLD);
    fn(size); /* warm */
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) fn(size);
    double t = (bench_now() - t0) / (double)iters, worst;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static long iters_for(size_t size)
{
    long n = (long)((16u << 20) / (size ? size : 1) / (size_t)npes);
    if (n > 2000) n = 2000;
    if (n < 5) n = 5;
    return bench_iters(n);
}

static void table(const char *title, const char *shname, op_fn sh, const char *mpiname,
                  op_fn mpi, size_t min, size_t max)
{
    if (me == 0)
        printf("\n# %s, %d PEs\n# %-8s %14s %14s %10s\n", title, npes, "Size", shname, mpiname,
               "MPI/shmem");
    for (size_t s = min; s <= max; s *= 8) {
        double a[64], b[64];
        long iters = iters_for(s);
        for (int r = 0; r < reps; r++) {
            a[r] = time_op(sh, s, iters);
            b[r] = time_op(mpi, s, iters);
        }
        double ma = bench_median(a, reps), mb = bench_median(b, reps);
        char sz[16];
        bench_fmt_size(s, sz);
        if (me == 0) printf("  %-8s %14.3f %14.3f %9.2fx\n", sz, ma * 1e6, mb * 1e6, mb / ma);
        if (s == 0) break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    reps = bench_reps();
    size_t max = MAX_SIZE;
    if (bench_quick()) max = 32 << 10;
    size_t bytes = max * (size_t)npes;
    sym_src = shmem_malloc(bytes);
    sym_dst = shmem_malloc(bytes);
    priv_src = malloc(bytes);
    priv_dst = malloc(bytes);
    if (!sym_src || !sym_dst || !priv_src || !priv_dst) {
        fprintf(stderr, "nodeshm-bench-coll: out of memory\n");
        shmem_global_exit(1);
    }
    memset(sym_src, 1, bytes);
    memset(sym_dst, 2, bytes);
    memset(priv_src, 3, bytes);
    memset(priv_dst, 4, bytes);
    char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(mpi_version, &len);
    char *nl = strchr(mpi_version, '\n');
    if (nl) *nl = 0;
    if (me == 0) {
        printf("# nodeshm-bench-coll: %d PEs, SHMEM_TEAM_WORLD vs MPI_COMM_WORLD, latency in us "
               "(slowest PE), median of %d repetitions\n", npes, reps);
        printf("# MPI library: %s\n", mpi_version);
    }
    table("team_sync vs MPI_Barrier", "team_sync", sh_sync, "MPI_Barrier", mpi_barrier, 0, 0);
    table("broadcast (bytes)", "broadcastmem", sh_bcast, "MPI_Bcast", mpi_bcast, 8, max);
    table("fcollect (bytes per PE)", "fcollectmem", sh_fcollect, "MPI_Allgather", mpi_allgather,
          8, max);
    table("alltoall (bytes per PE pair)", "alltoallmem", sh_alltoall, "MPI_Alltoall",
          mpi_alltoall, 8, max / 4);
    table("sum_reduce int (bytes)", "int_sum_reduce", sh_sum_int, "MPI_Allreduce", mpi_sum_int, 8,
          max);
    table("sum_reduce double (bytes)", "double_sum_reduce", sh_sum_double, "MPI_Allreduce",
          mpi_sum_double, 8, max);

    shmem_free(sym_dst);
    shmem_free(sym_src);
    free(priv_src);
    free(priv_dst);
    shmem_finalize();
    MPI_Finalize();
    return 0;
}
