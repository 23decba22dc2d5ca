/* nodeshm-bench-coll: OpenSHMEM collectives on SHMEM_TEAM_WORLD beside the MPI library's
 * collectives on MPI_COMM_WORLD, same PEs, same run: broadcast, collect, fcollect, alltoall,
 * alltoalls (stride 2, against MPI_Alltoall of a strided vector type), sum_reduce of ints and of
 * doubles, max_reduce of ints, sum_inscan of ints (against MPI_Scan), team_sync.
 *
 * For each collective and size, the shmem call and its MPI counterpart are measured in
 * interleaved repetitions (so machine noise hits both alike); a repetition times `iters`
 * back-to-back calls (the shmem collectives need no barrier between them) and takes the slowest
 * PE's time per call; the tables show medians over the repetitions (-f: min and max too) and
 * the ratio MPI time / nodeshm time (> 1: nodeshm is faster).  Sizes are bytes per PE: the
 * broadcast payload, each PE's collect contribution, each alltoall block, the reduced array;
 * 8 B to 1 MiB by powers of 2 (-m [min:]max), fewer iterations at large sizes.  --csv: rows of
 * the benchmark output contract (bench_util.h), tests bcast, collect, fcollect, alltoall,
 * alltoalls, reduce_int, reduce_double, max_int, inscan_int, team_sync; mechanisms nodeshm and
 * mpi_lib.  -o test,test runs only
 * those tables (nodeshm-bench report measures NODESHM_COLL_EAGER_MAX with -o bcast,collect,
 * alltoall, once per setting). */
#include <mpi.h>
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define MAX_SIZE ((size_t)1 << 20)

static int me, npes, reps;
static bench_opts_t opt;
static char *sym_src, *sym_dst;   /* symmetric */
static char *priv_src, *priv_dst; /* MPI buffers */

typedef void (*op_fn)(size_t size);

static void sh_bcast(size_t s) { shmem_broadcastmem(SHMEM_TEAM_WORLD, sym_dst, sym_src, s, 0); }
static void mpi_bcast(size_t s) { MPI_Bcast(priv_dst, (int)s, MPI_BYTE, 0, MPI_COMM_WORLD); }
static void sh_collect(size_t s) { shmem_collectmem(SHMEM_TEAM_WORLD, sym_dst, sym_src, s); }
static int *counts, *displs; /* MPI_Allgatherv: every PE s bytes, like shmem_collectmem here */
static void mpi_allgatherv(size_t s)
{
    for (int i = 0; i < npes; i++) {
        counts[i] = (int)s;
        displs[i] = (int)(s * (size_t)i);
    }
    MPI_Allgatherv(priv_src, (int)s, MPI_BYTE, priv_dst, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
}
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
/* alltoalls: each PE pair's s bytes at stride 2 on both sides (dst = sst = 2, so a PE's block
 * spans 2s bytes); the MPI counterpart sends one vector of s bytes at stride 2 per rank, resized
 * to the same 2s extent */
static MPI_Datatype strided = MPI_DATATYPE_NULL;
static size_t strided_for;
static void sh_alltoalls(size_t s)
{
    shmem_alltoallsmem(SHMEM_TEAM_WORLD, sym_dst, sym_src, 2, 2, s);
}
static void mpi_alltoalls(size_t s)
{
    if (strided_for != s) { /* built once per size, outside the timed calls after the first */
        if (strided != MPI_DATATYPE_NULL) MPI_Type_free(&strided);
        MPI_Datatype vec;
        MPI_Type_vector((int)s, 1, 2, MPI_BYTE, &vec);
        MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * s), &strided);
        MPI_Type_free(&vec);
        MPI_Type_commit(&strided);
        strided_for = s;
    }
    MPI_Alltoall(priv_src, 1, strided, priv_dst, 1, strided, MPI_COMM_WORLD);
}
static void sh_max_int(size_t s)
{
    shmem_int_max_reduce(SHMEM_TEAM_WORLD, (int *)sym_dst, (int *)sym_src, s / sizeof(int));
}
static void mpi_max_int(size_t s)
{
    MPI_Allreduce(priv_src, priv_dst, (int)(s / sizeof(int)), MPI_INT, MPI_MAX, MPI_COMM_WORLD);
}
static void sh_inscan_int(size_t s)
{
    shmem_int_sum_inscan(SHMEM_TEAM_WORLD, (int *)sym_dst, (int *)sym_src, s / sizeof(int));
}
static void mpi_scan_int(size_t s)
{
    MPI_Scan(priv_src, priv_dst, (int)(s / sizeof(int)), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
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

/* seconds per call over `iters` calls, the slowest PE's */
static double time_op(op_fn fn, size_t size, long iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) fn(size);
    double t = (bench_now() - t0) / (double)iters, worst;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* about 8 MiB moved per repetition, between 4 and 500 calls */
static long iters_for(size_t size)
{
    long n = (long)(((size_t)8 << 20) / (size ? size : 1) / (size_t)npes);
    if (n > 500) n = 500;
    if (n < 4) n = 4;
    return bench_iters_opt(&opt, n);
}

static const char *only; /* -o: comma-separated test names, NULL: all */

static int only_arg(const char *arg, const char *next, void *user)
{
    (void)user;
    if (strcmp(arg, "-o") || !next || !*next) return 0;
    only = next;
    return 2;
}

static int selected(const char *test)
{
    if (!only) return 1;
    size_t n = strlen(test);
    for (const char *p = only; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, test, n)) return 1;
        if (!end) break;
        p = end + 1;
    }
    return 0;
}

static void table(const char *test, const char *title, const char *shname, op_fn sh,
                  const char *mpiname, op_fn mpi, size_t min, size_t max)
{
    if (!selected(test)) return;
    if (me == 0) bench_note("nodeshm-bench-coll", "%s %zu..%zu bytes", test, min, max);
    if (me == 0 && !opt.csv) {
        printf("\n# %s, %d PEs\n# %-8s %12s %12s", title, npes, "Size", shname, mpiname);
        if (opt.full) printf(" %10s %10s %10s %10s", "min", "max", "mpi min", "mpi max");
        printf(" %10s\n", "MPI/shmem");
    }
    for (size_t s = min; s <= max; s *= 2) {
        double a[64], b[64];
        long iters = iters_for(s), warm = bench_warmup(&opt, iters < 10 ? iters : 10);
        for (long w = 0; w < warm; w++) sh(s);
        for (long w = 0; w < warm; w++) mpi(s);
        int r_n = s >= ((size_t)256 << 10) && reps > 5 ? 5 : reps; /* fewer reps at large sizes */
        for (int r = 0; r < r_n; r++) {
            a[r] = time_op(sh, s, iters);
            b[r] = time_op(mpi, s, iters);
        }
        bench_stats_t sa = bench_stats(a, r_n), sb = bench_stats(b, r_n);
        if (me == 0 && opt.csv) {
            bench_row(test, "nodeshm", s, NULL, npes, sa);
            bench_row(test, "mpi_lib", s, NULL, npes, sb);
        } else if (me == 0) {
            char sz[16];
            bench_fmt_size(s, sz);
            printf("  %-8s %12.3f %12.3f", sz, sa.median * 1e6, sb.median * 1e6);
            if (opt.full)
                printf(" %10.3f %10.3f %10.3f %10.3f", sa.min * 1e6, sa.max * 1e6, sb.min * 1e6,
                       sb.max * 1e6);
            printf(" %9.2fx\n", sb.median / sa.median);
            fflush(stdout);
        }
        if (s == 0) break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int bad = bench_parse(argc, argv, "nodeshm-bench-coll", me, &opt, only_arg, NULL,
                          "[-o test,test]  (tests: team_sync bcast collect fcollect alltoall "
                          "alltoalls reduce_int reduce_double max_int inscan_int)");
    static const char *const known = ",team_sync,bcast,collect,fcollect,alltoall,alltoalls,"
                                     "reduce_int,reduce_double,max_int,inscan_int,";
    for (const char *p = only; !bad && p && *p;) { /* every -o name must be a table */
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char word[40];
        snprintf(word, sizeof word, ",%.*s,", (int)(len < 30 ? len : 30), p);
        if (!len || len >= 30 || !strstr(known, word)) {
            if (me == 0) bench_note("nodeshm-bench-coll", "-o: unknown test '%.*s' in '%s'",
                                    (int)len, p, only);
            bad = 2;
        }
        p = end ? end + 1 : p + len;
    }
    if (!bad) /* a collective's buffers are the team's: a rotation would need one per slot */
        bad = bench_cold_refuse(&opt, "nodeshm-bench-coll", me, "collectives reuse their buffers");
    if (bad) {
        shmem_finalize();
        MPI_Finalize();
        return bad;
    }
    reps = bench_reps();
    size_t min, max;
    bench_range(&opt, 8, MAX_SIZE, 32 << 10, 1, MAX_SIZE, &min, &max);
    size_t bytes = max * (size_t)npes;
    sym_src = shmem_malloc(bytes);
    sym_dst = shmem_malloc(bytes);
    priv_src = malloc(bytes);
    priv_dst = malloc(bytes);
    counts = malloc(sizeof(int) * (size_t)npes);
    displs = malloc(sizeof(int) * (size_t)npes);
    if (!sym_src || !sym_dst || !priv_src || !priv_dst || !counts || !displs) {
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
    if (me == 0 && opt.csv) {
        bench_csv_header();
        bench_note("nodeshm-bench-coll", "%d PEs, MPI library: %s", npes, mpi_version);
    } else if (me == 0) {
        printf("# nodeshm-bench-coll: %d PEs, SHMEM_TEAM_WORLD vs MPI_COMM_WORLD, latency in us "
               "(slowest PE), median of %d repetitions (5 from 256K)\n", npes, reps);
        printf("# MPI library: %s\n", mpi_version);
    }
    table("team_sync", "team_sync vs MPI_Barrier", "team_sync", sh_sync, "MPI_Barrier",
          mpi_barrier, 0, 0);
    table("bcast", "broadcast (bytes)", "broadcastmem", sh_bcast, "MPI_Bcast", mpi_bcast, min, max);
    table("collect", "collect (bytes per PE)", "collectmem", sh_collect, "MPI_Allgatherv",
          mpi_allgatherv, min, max);
    table("fcollect", "fcollect (bytes per PE)", "fcollectmem", sh_fcollect, "MPI_Allgather",
          mpi_allgather, min, max);
    table("alltoall", "alltoall (bytes per PE pair)", "alltoallmem", sh_alltoall, "MPI_Alltoall",
          mpi_alltoall, min, max / (size_t)npes ? max / (size_t)npes : min);
    table("alltoalls", "alltoalls, stride 2 (bytes per PE pair)", "alltoallsmem", sh_alltoalls,
          "MPI_Alltoall(vector)", mpi_alltoalls, min,
          max / (size_t)npes / 2 ? max / (size_t)npes / 2 : min);
    table("reduce_int", "sum_reduce int (bytes)", "int_sum_reduce", sh_sum_int, "MPI_Allreduce",
          mpi_sum_int, min < 4 ? 4 : min, max);
    table("reduce_double", "sum_reduce double (bytes)", "double_sum_reduce", sh_sum_double,
          "MPI_Allreduce", mpi_sum_double, min < 8 ? 8 : min, max);
    table("max_int", "max_reduce int (bytes)", "int_max_reduce", sh_max_int, "MPI_Allreduce(MAX)",
          mpi_max_int, min < 4 ? 4 : min, max);
    table("inscan_int", "sum_inscan int (bytes)", "int_sum_inscan", sh_inscan_int, "MPI_Scan",
          mpi_scan_int, min < 4 ? 4 : min, max);
    if (strided != MPI_DATATYPE_NULL) MPI_Type_free(&strided);

    shmem_free(sym_dst);
    shmem_free(sym_src);
    free(priv_src);
    free(priv_dst);
    free(counts);
    free(displs);
    shmem_finalize();
    MPI_Finalize();
    return 0;
}
