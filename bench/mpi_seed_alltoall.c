/* The seed scenario of 2DECOMP&FFT: the transposes of a pencil-decomposed 3-D FFT are
 * MPI_Alltoallv calls where every rank sends one block to every rank, blocks of equal size
 * ("uniform": the grid divides evenly) or differing by one element between ranks ("uneven":
 * it does not; some blocks may be empty at the smallest size).  Measured in the same run,
 * repetitions alternating:
 *   nodeshm   MPI_Alltoallv through libnodeshm_mpi (its own thresholds apply: below them, or
 *             while it does not accelerate Alltoallv, this is the MPI library again, ratio ~1)
 *   mpi_lib   PMPI_Alltoallv: the MPI library
 * Run it with NODESHM_PES_PER_NODE=k as well: the ranks then form pseudo-nodes of k ranks and
 * the between-node path (leaders aggregating their node's blocks) shows on one machine.  Every
 * size is first checked: both mechanisms must deliver the same, expected blocks.
 *
 * Usage: mpi_seed_alltoall [-m [min:]max] [-i iters] [-x warmup] [-f] [--csv] [-r reps]
 *   -m: bytes per rank pair (default 8:65536, powers of two); elements are doubles.
 * CSV rows: test alltoallv_uniform / alltoallv_uneven, bytes = nominal bytes per rank pair,
 * param = NODESHM_PES_PER_NODE (0: physical nodes). */
#include "bench_util.h"
#include "nodeshm.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "mpi_seed_alltoall";

typedef struct setup {
    int rank, size, uneven;
    int *scount, *sdispl, *rcount, *rdispl; /* in doubles */
    double *send, *recv;
} setup_t;

/* Doubles rank i sends to rank j for a nominal `base` doubles per pair. */
static int pair_count(int uneven, int base, int i, int j)
{
    if (!uneven) return base;
    int c = base + (i + 2 * j) % 3 - 1; /* one element more or less, like uneven pencils */
    return c < 0 ? 0 : c;
}

static double payload(int from, int to, int k) { return (double)from * 1e6 + (double)to * 1e3 + k; }

static void layout(setup_t *s, int base)
{
    int so = 0, ro = 0;
    for (int j = 0; j < s->size; j++) {
        s->scount[j] = pair_count(s->uneven, base, s->rank, j);
        s->rcount[j] = pair_count(s->uneven, base, j, s->rank);
        s->sdispl[j] = so;
        s->rdispl[j] = ro;
        so += s->scount[j];
        ro += s->rcount[j];
    }
    for (int j = 0; j < s->size; j++)
        for (int k = 0; k < s->scount[j]; k++) s->send[s->sdispl[j] + k] = payload(s->rank, j, k);
}

static void call(setup_t *s, int pmpi)
{
    if (pmpi)
        PMPI_Alltoallv(s->send, s->scount, s->sdispl, MPI_DOUBLE, s->recv, s->rcount, s->rdispl, MPI_DOUBLE,
                       MPI_COMM_WORLD);
    else
        MPI_Alltoallv(s->send, s->scount, s->sdispl, MPI_DOUBLE, s->recv, s->rcount, s->rdispl, MPI_DOUBLE,
                      MPI_COMM_WORLD);
}

static long check(setup_t *s, int pmpi)
{
    long bad = 0;
    int total = s->rdispl[s->size - 1] + s->rcount[s->size - 1];
    for (int k = 0; k < total; k++) s->recv[k] = -1;
    call(s, pmpi);
    for (int j = 0; j < s->size; j++)
        for (int k = 0; k < s->rcount[j]; k++) bad += s->recv[s->rdispl[j] + k] != payload(j, s->rank, k);
    return bad;
}

/* Mean time per call of `iters` calls, max over ranks. */
static double batch(setup_t *s, int pmpi, long iters)
{
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) call(s, pmpi);
    double dt = (MPI_Wtime() - t0) / (double)iters, mx;
    PMPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return mx;
}

static int extra(const char *arg, const char *next, void *user)
{
    if (!strcmp(arg, "-r") && next && atoi(next) > 0) {
        *(int *)user = atoi(next) < 64 ? atoi(next) : 64;
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    setup_t s = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.size);
    bench_opts_t o;
    int reps = 0;
    int rc = bench_parse(argc, argv, prog, s.rank, &o, extra, &reps,
                         "[-r repetitions]   (-m: bytes per rank pair)");
    if (!rc) rc = bench_cold_refuse(&o, prog, s.rank, "the seed scenario is the application's own");
    if (rc) {
        MPI_Finalize();
        return rc;
    }
    if (!reps) reps = bench_reps();
    size_t lo, hi;
    bench_range(&o, 8, 65536, 1024, 8, 1 << 24, &lo, &hi);
    const char *ppn_env = getenv("NODESHM_PES_PER_NODE");
    int ppn = ppn_env ? atoi(ppn_env) : 0;
    char param[16];
    snprintf(param, sizeof param, "%d", ppn);

    int maxc = (int)(hi / sizeof(double)) + 1; /* the uneven layout adds one element */
    s.scount = malloc(sizeof(int) * 4 * (size_t)s.size);
    s.sdispl = s.scount + s.size;
    s.rcount = s.sdispl + s.size;
    s.rdispl = s.rcount + s.size;
    s.send = malloc(sizeof(double) * (size_t)maxc * (size_t)s.size);
    s.recv = malloc(sizeof(double) * (size_t)maxc * (size_t)s.size);
    double *tl = malloc(sizeof(double) * (size_t)reps), *tn = malloc(sizeof(double) * (size_t)reps);
    if (!s.scount || !s.send || !s.recv || !tl || !tn) {
        fprintf(stderr, "%s: out of memory\n", prog);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (s.rank == 0) {
        if (o.csv)
            bench_csv_header();
        else
            printf("# seed alltoall (2DECOMP&FFT transposes): %d ranks%s%s, MPI_Alltoallv of doubles, latency "
                   "in us (median of %d)\n# ratio = MPI lib / nodeshm\n%-18s %9s %12s %12s %8s%s\n",
                   s.size, ppn ? ", pseudo-nodes of " : "", ppn ? ppn_env : "", reps, "# test", "bytes",
                   "MPI lib", "nodeshm", "ratio", o.full ? "   lib min/max      nodeshm min/max" : "");
    }
    long bad_total = 0;
    for (int uneven = 0; uneven < 2; uneven++) {
        s.uneven = uneven;
        const char *test = uneven ? "alltoallv_uneven" : "alltoallv_uniform";
        for (size_t bytes = lo; bytes <= hi; bytes *= 2) {
            int base = (int)(bytes / sizeof(double));
            if (base < 1) base = 1;
            layout(&s, base);
            long bad = check(&s, 0) + check(&s, 1), all_bad;
            PMPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            if (all_bad && s.rank == 0) bench_note(prog, "%s %zu bytes: %ld values wrong", test, bytes, all_bad);
            bad_total += all_bad;
            long iters = bench_iters_opt(&o, bytes <= 1024 ? 200 : bytes <= 16384 ? 50 : 10);
            long warm = bench_warmup(&o, 3);
            for (long w = 0; w < warm; w++) {
                call(&s, 1);
                call(&s, 0);
            }
            for (int r = 0; r < reps; r++) { /* alternate: both see the same machine noise */
                tl[r] = batch(&s, 1, iters);
                tn[r] = batch(&s, 0, iters);
            }
            bench_stats_t sl = bench_stats(tl, reps), sn = bench_stats(tn, reps);
            if (s.rank != 0) continue;
            if (o.csv) {
                bench_row(test, "mpi_lib", bytes, param, s.size, sl);
                bench_row(test, "nodeshm", bytes, param, s.size, sn);
            } else {
                printf("%-18s %9zu %12.2f %12.2f %7.2fx", test, bytes, sl.median * 1e6, sn.median * 1e6,
                       sl.median / sn.median);
                if (o.full)
                    printf("   %7.2f/%-9.2f %7.2f/%-9.2f", sl.min * 1e6, sl.max * 1e6, sn.min * 1e6, sn.max * 1e6);
                printf("\n");
            }
            fflush(stdout);
        }
    }
    free(tl);
    free(tn);
    free(s.send);
    free(s.recv);
    free(s.scount);
    MPI_Finalize();
    return bad_total ? 1 : 0;
}
