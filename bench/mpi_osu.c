/* OSU-style latencies of the MPI collectives libnodeshm_mpi intercepts, with the interposer
 * (MPI_*: libnodeshm_mpi is linked) and without it (PMPI_*: the MPI library), side by side in
 * the same run: per size, repetitions alternate between the two, each repetition is the mean
 * time per call of a batch (max over ranks), and the table shows the median (and with -f the min
 * and max) over repetitions.  The interposer applies its own thresholds: raise
 * NODESHM_MPI_<OP>_MAX to see nodeshm above them (below a threshold both columns are the MPI
 * library, ratio ~1).
 *
 * -d D (imbalance): before each call every rank computes for a random 0..D us of its own CPU
 * time, as application ranks arrive at a collective at different times.  The delays are a fixed
 * sequence per rank, size, repetition and call (not per column), so both columns see the same
 * ones.  Work, not wall time: a rank that waits by spinning takes the core from a late peer still
 * computing (4-8 ranks on 2 cores), and the late arrival that follows is the op's cost too.  The
 * time per call is then the loop's (slowest rank) minus the busiest rank's own compute (its delays
 * summed, / calls): what the op adds to a program's step, the same subtraction in both columns;
 * without imbalance that is the lockstep latency.  Test names get the suffix _imb<D>.  A _c row
 * gets its plain row's delays.
 *
 * -R r: the root of bcast, gather(v), scatter(v) and reduce and their _c rows (default 0); their
 * rows are then tests <op>_root<r>.
 *
 * -c C: the compute between start and wait of the non-blocking *_ovl rows (us; 10 by default).
 *
 * The rows (mpi_osu_rows.c): the blocking, non-blocking (i<op>, i<op>_ovl) and persistent
 * (<op>_init) collectives, and the MPI-4 large-count twin <row>_c of each row whose entry has a
 * MPI_<Op>_c in mpi.h (MPICH >= 4.1: all 33; Open MPI 5.0: none).  -o op,op: those rows, in that order (an
 * unknown one is an error; the word _c: every _c row); without it every row but the _c ones
 * (they run their rows' paths: the default run, and the report's, stay as long as they were).
 *
 * Before a row's size is timed, its result with the interposer must be the library's, on fresh
 * data at every rank (check_row); a difference ends the run (exit 1) naming the row, size and rank.
 *
 * Usage: mpi_osu [-m [min:]max] [-i iters] [-x warmup] [-r reps] [-d us] [-c us] [-R root] [-f] [--csv] [-o op,op...]
 * NODESHM_BENCH_QUICK=1: tiny sizes and few iterations (the test suite). */
#include "mpi_osu.h"

#include "nodeshm.h"
#include "bench_util.h"
#include "core/env.h"

#include <ctype.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp(const void *x, const void *y)
{
    double u = *(const double *)x, v = *(const double *)y;
    return u < v ? -1 : u > v;
}

/* ---- imbalance (-d) */
static long delay_max_ns; /* 0: lockstep */
static long *delays;      /* [iters] this rank's delays of the current batch, ns */

static uint64_t mix64(uint64_t x) /* splitmix64's finalizer */
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* This rank's delays for a batch: the same for both columns (key: op, size, repetition). */
static void make_delays(int rank, int op, long bytes, int rep, int iters)
{
    uint64_t key = mix64(((uint64_t)op << 48) ^ ((uint64_t)bytes << 8) ^ (uint64_t)rep);
    for (int i = 0; i < iters; i++)
        delays[i] = (long)(mix64(key ^ mix64(((uint64_t)rank << 32) | (uint64_t)i)) % (uint64_t)(delay_max_ns + 1));
}

static long cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* ns of this thread's CPU time: work, stretched in wall time when the core is taken */
void osu_compute(long ns)
{
    long end = cpu_ns() + ns;
    while (cpu_ns() < end) {
    }
}

/* Mean time per call of `iters` calls, max over ranks; with imbalance, minus the busiest rank's
 * compute per call. */
static double batch(const op_desc_t *op, int lib, bufs_t *b, int bytes, int iters)
{
    int f = op->form | lib;
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (delay_max_ns)
        for (int i = 0; i < iters; i++) {
            osu_compute(delays[i]);
            op->fn(f, b, bytes, MPI_COMM_WORLD);
        }
    else
        for (int i = 0; i < iters; i++) op->fn(f, b, bytes, MPI_COMM_WORLD);
    double in[2] = {MPI_Wtime() - t0, 0}, mx[2];
    for (int i = 0; delay_max_ns && i < iters; i++) in[1] += delays[i] * 1e-9;
    if (op->overlap) in[1] += osu_overlap_ns * 1e-9 * iters;
    PMPI_Allreduce(in, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return (mx[0] - mx[1]) / iters;
}

/* The run ends with `status` on every rank together (each knows it must: the same arguments, or
 * an agreed verdict); the ranks have said what is wrong.  Not MPI_Abort: another rank's abort
 * could kill rank 0 before its message was out (bench_cli_errors lost it once under MPICH). */
static void finish(int status)
{
    osu_persist_free(0);
    osu_persist_free(OSU_LIB);
    MPI_Finalize();
    exit(status);
}
static void bad_args(void) { finish(2); }

/* ---- the value check (check_row): a row's call by the interposer leaves what the library's
 * leaves in the send and receive buffers of every rank (size x bytes of each), on fresh data:
 * random bytes, and for the rows on doubles small integers, whose sums are exact in any order.
 * The receive buffer of exscan's rank 0 is undefined: not compared. */
static void random_bytes(unsigned char *p, long from, long n, uint64_t seed)
{
    for (long i = from; i < n; i += 8) {
        uint64_t x = mix64(seed ^ (uint64_t)i);
        for (long j = i; j < n && j < i + 8; j++, x >>= 8) p[j] = (unsigned char)x;
    }
}

static void fill(bufs_t *b, long n, int dbl, uint64_t seed)
{
    long i = 0;
    for (; dbl && i + 8 <= n; i += 8) ((double *)b->send)[i / 8] = (double)(mix64(seed ^ (uint64_t)i) % 1000);
    random_bytes(b->send, i, n, seed);
    random_bytes(b->recv, 0, n, ~seed);
}

/* 0 if the interposer's result is the library's on every rank; else this rank says where not.
 * ref: 2 x size x bytes. */
static int check_row(const op_desc_t *op, bufs_t *b, int bytes, unsigned char *ref, uint64_t seed)
{
    long n = (long)b->size * bytes;
    int dbl = op->min_bytes >= 8, nbuf = b->rank == 0 && !strncmp(op->name, "exscan", 6) ? 1 : 2, bad = 0, any;
    fill(b, n, dbl, seed);
    op->fn(op->form | OSU_LIB, b, bytes, MPI_COMM_WORLD);
    memcpy(ref, b->send, (size_t)n);
    memcpy(ref + n, b->recv, (size_t)n);
    fill(b, n, dbl, seed);
    op->fn(op->form, b, bytes, MPI_COMM_WORLD);
    const unsigned char *got[2] = {b->send, b->recv};
    for (int k = 0; k < nbuf && !bad; k++)
        for (long i = 0; i < n; i++)
            if (got[k][i] != ref[k * n + i]) {
                fprintf(stderr, "mpi_osu: %s, %d bytes, rank %d: the %s buffer's byte %ld is 0x%02x with "
                        "libnodeshm_mpi, 0x%02x with the MPI library (PMPI_*): wrong result\n",
                        op->name, bytes, b->rank, k ? "receive" : "send", i, got[k][i], ref[k * n + i]);
                bad = 1;
                break;
            }
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

static int find_row(const char *name, int len)
{
    for (int o = 0; o < osu_nops; o++)
        if ((int)strlen(osu_ops[o].name) == len && !strncmp(osu_ops[o].name, name, (size_t)len)) return o;
    return -1;
}

/* -o's rows, in its order, into pick (room: osu_nops per word); how many.  Without -o every row
 * but the _c twins (the same paths as their rows: named, or the word _c for all of them, in the
 * table's order).  An unknown name is an error, and a _c row this MPI lacks says so. */
static int pick_rows(const char *only, int *pick, int rank)
{
    int n = 0;
    for (int o = 0; !only && o < osu_nops; o++)
        if (!osu_ops[o].form) pick[n++] = o;
    for (const char *p = only; p; p = p[strcspn(p, ",")] ? p + strcspn(p, ",") + 1 : NULL) {
        int len = (int)strcspn(p, ","), o = find_row(p, len), all_c = len == 2 && !strncmp(p, "_c", 2), had = n;
        for (int t = 0; all_c && t < osu_nops; t++)
            if (osu_ops[t].form & OSU_C) pick[n++] = t;
        if (o >= 0) pick[n++] = o;
        if (n > had) continue;
        int twin = len > 2 && !strncmp(p + len - 2, "_c", 2) && find_row(p, len - 2) >= 0;
        if (rank == 0 && (all_c || twin)) {
            char entry[48] = "MPI_<Op>_c";
            if (twin) snprintf(entry, sizeof entry, "MPI_%c%.*s", toupper((unsigned char)p[0]), len > 40 ? 40 : len - 1, p + 1);
            fprintf(stderr, "mpi_osu: -o: no row '%.*s': the MPI's mpi.h has no %s (MPI-4 large counts: "
                    "MPICH >= 4.1 has them, Open MPI 5.0 none)\n", len, p, entry);
        } else if (rank == 0) {
            fprintf(stderr, "mpi_osu: -o: unknown op '%.*s' in '%s'; the ops:", len, p, only);
            for (o = 0; o < osu_nops; o++) fprintf(stderr, " %s", osu_ops[o].name);
            fprintf(stderr, ", or _c for every <row>_c\n");
        }
        bad_args();
    }
    return n;
}

/* A time in us on the command line (0 to 1 s), in ns. */
static long ns_arg(const char *opt, const char *arg, const char *what, int rank)
{
    char *end;
    double us = strtod(arg, &end);
    if (*end || !(us >= 0 && us <= 1e6)) {
        if (rank == 0) fprintf(stderr, "mpi_osu: %s %s: expected %s in us, 0 to 1000000\n", opt, arg, what);
        bad_args();
    }
    return (long)(us * 1000);
}

static void usage(int rank)
{
    if (rank == 0)
        fprintf(stderr, "usage: mpi_osu [-m [min:]max] [-i iters] [-x warmup] [-r reps] [-f] [--csv] "
                        "[-d max_delay_us] [-c overlap_us] [-R root] [-o op,op...]   (-o: those rows in that order; "
                        "<row>_c: its MPI_<Op>_c, _c: all of them; --cold: not here; NODESHM_BENCH_REPS: default reps)\n");
    bad_args();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int quick = getenv("NODESHM_BENCH_QUICK") && atoi(getenv("NODESHM_BENCH_QUICK")) > 0;
    long min_bytes = 1, max_bytes = quick ? 4096 : 1 << 20;
    int iters = -1, warmup = 3, reps = quick ? 3 : 9, full = 0, csv = 0;
    const char *reps_env = getenv("NODESHM_BENCH_REPS"); /* the suite's setting; -r wins */
    if (reps_env && atoi(reps_env) > 0) reps = atoi(reps_env);
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-m") && i + 1 < argc) {
            char lo[64], *colon = strchr(argv[++i], ':');
            size_t a = min_bytes, b;
            snprintf(lo, sizeof lo, "%.*s", colon ? (int)(colon - argv[i]) : 0, argv[i]);
            if ((colon && bench_parse_bytes(lo, &a)) || bench_parse_bytes(colon ? colon + 1 : argv[i], &b) || a > b) {
                if (rank == 0)
                    fprintf(stderr, "mpi_osu: -m %s: expected [min:]max with min <= max, each %s\n",
                            argv[i], NODESHM_SIZE_SYNTAX);
                bad_args();
            }
            min_bytes = a, max_bytes = b;
        } else if (!strcmp(a, "-i") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(a, "-x") && i + 1 < argc) warmup = atoi(argv[++i]);
        else if (!strcmp(a, "-r") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(a, "-d") && i + 1 < argc) delay_max_ns = ns_arg("-d", argv[++i], "a delay", rank);
        else if (!strcmp(a, "-o") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(a, "-R") && i + 1 < argc) {
            char *end;
            long r = strtol(argv[++i], &end, 10);
            if (*end || r < 0 || r >= size) {
                if (rank == 0) fprintf(stderr, "mpi_osu: -R %s: expected a root rank, 0 to %d\n", argv[i], size - 1);
                bad_args();
            }
            osu_root = (int)r;
        }
        else if (!strcmp(a, "-c") && i + 1 < argc) osu_overlap_ns = ns_arg("-c", argv[++i], "a compute time", rank);
        else if (!strcmp(a, "-f")) full = 1;
        else if (!strcmp(a, "--csv")) csv = 1;
        else if (!strcmp(a, "--cold")) {
            if (rank == 0)
                fprintf(stderr, "mpi_osu: --cold: not supported here (the interposer's "
                                "collectives reuse their buffers); the buffer rotation is in "
                                "nodeshm-bench-p2p, -pairs and -dt\n");
            bad_args();
        } else usage(rank);
    }
    if (min_bytes < 1 || max_bytes < min_bytes || max_bytes > (1L << 30) || reps < 1 || warmup < 0)
        usage(rank);

    int npick = osu_nops;
    for (const char *p = only; p && *p; p++) npick += *p == ',' ? osu_nops : 0;
    int *pick = malloc(sizeof(int) * (size_t)npick);
    if (!pick) MPI_Abort(MPI_COMM_WORLD, 1);
    npick = pick_rows(only, pick, rank);

    bufs_t b = {0};
    b.rank = rank;
    b.size = size;
    b.send = calloc((size_t)max_bytes * (size_t)size, 1);
    b.recv = calloc((size_t)max_bytes * (size_t)size, 1);
    b.counts = calloc((size_t)size, sizeof(int));
    b.displs = calloc((size_t)size, sizeof(int));
    b.ccounts = calloc((size_t)size, sizeof(MPI_Count));
    b.cdispls = calloc((size_t)size, sizeof(MPI_Aint));
    unsigned char *ref = malloc((size_t)max_bytes * (size_t)size * 2); /* check_row's */
    double *tl = malloc(sizeof(double) * (size_t)reps), *tn = malloc(sizeof(double) * (size_t)reps);
    int max_iters = iters > 0 ? iters : 400;
    delays = calloc((size_t)max_iters, sizeof(long));
    if (!b.send || !b.recv || !b.counts || !b.displs || !b.ccounts || !b.cdispls || !ref || !tl || !tn || !delays) {
        fprintf(stderr, "mpi_osu: out of memory for %ld-byte buffers\n", max_bytes * size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* the interposer's state for MPI_COMM_WORLD: its non-blocking calls run there only after a
     * blocking one (the state is made collectively) */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        if (csv)
            printf("test,mechanism,bytes,param,pes,median_us,min_us,max_us,mbps\n");
        else {
            printf("# %d ranks: latency in us (median of %d), MPI library (PMPI_*) vs with "
                   "libnodeshm_mpi (MPI_*); ratio = MPI lib / nodeshm\n", size, reps);
            printf("# *_ovl rows: start, %g us of compute, wait; time = loop per call minus the compute\n",
                   osu_overlap_ns / 1000.0);
            if (delay_max_ns)
                printf("# imbalance: each call after 0-%g us of compute per rank (same delays in both "
                       "columns); time = loop per call minus the busiest rank's compute\n",
                       delay_max_ns / 1000.0);
            printf("%-22s %9s %12s %12s %8s%s\n", "# op", "bytes", "MPI lib", "nodeshm", "ratio",
                   full ? "   lib min/max    nodeshm min/max" : "");
        }
    }
    for (int k = 0; k < npick; k++) {
        int o = pick[k], plain = 0;
        const op_desc_t *op = &osu_ops[o];
        while (osu_ops[plain].fn != op->fn) plain++; /* a _c twin: its row's delays (-d) */
        long lo = op->sized ? (min_bytes < op->min_bytes ? op->min_bytes : min_bytes) : 0;
        /* Unmeasured first, the row's first use of the node's shared buffers, whose pages are
         * touched there for the first time (the interposer's ring: 256 entries of up to 4 KiB, a
         * page or two each): about 1 us a call over the first few hundred calls, once per
         * communicator and buffer, not the op's steady state.  Uncounted, it held the median of a
         * row's first size, and of its first 4 KiB, at -i 100 (MPICH, 2 ranks: bcast 8 B 0.08x of
         * the library, 1.2 us a call; 0.04 us once warm).  So 512 calls of each column at the
         * row's largest size up to 4 KiB. */
        long prime = op->sized ? (max_bytes < 4096 ? max_bytes : 4096) : 0;
        if (op->sized) prime = prime - prime % op->min_bytes < lo ? lo : prime - prime % op->min_bytes;
        for (int w = 0; !quick && prime <= (op->sized ? max_bytes : 0) && w < 512; w++) {
            op->fn(op->form | OSU_LIB, &b, (int)prime, MPI_COMM_WORLD);
            op->fn(op->form, &b, (int)prime, MPI_COMM_WORLD);
        }
        for (long bytes = lo; bytes <= (op->sized ? max_bytes : 0); bytes = bytes ? bytes * 2 : 1) {
            if (op->sized && bytes % op->min_bytes) continue;
            int n = iters > 0 ? iters : quick ? 5 : bytes >= 262144 ? 20 : bytes >= 16384 ? 100 : 400;
            if (op->sized && check_row(op, &b, (int)bytes, ref, mix64(mix64((uint64_t)o << 32 | (uint64_t)rank) ^ (uint64_t)bytes)))
                finish(1);
            for (int w = 0; w < warmup; w++) {
                op->fn(op->form | OSU_LIB, &b, (int)bytes, MPI_COMM_WORLD);
                op->fn(op->form, &b, (int)bytes, MPI_COMM_WORLD);
            }
            for (int r = 0; r < reps; r++) { /* alternate: both see the same machine noise */
                if (delay_max_ns) make_delays(rank, plain, bytes, r, n);
                tl[r] = batch(op, OSU_LIB, &b, (int)bytes, n) * 1e6;
                tn[r] = batch(op, 0, &b, (int)bytes, n) * 1e6;
            }
            qsort(tl, (size_t)reps, sizeof(double), cmp);
            qsort(tn, (size_t)reps, sizeof(double), cmp);
            double ml = tl[reps / 2], mn = tn[reps / 2];
            if (rank == 0) {
                char name[64], rooted[16] = "";
                if (osu_root && op->rooted) snprintf(rooted, sizeof rooted, "_root%d", osu_root);
                if (delay_max_ns) snprintf(name, sizeof name, "%s%s_imb%g", op->name, rooted, delay_max_ns / 1000.0);
                else snprintf(name, sizeof name, "%s%s", op->name, rooted);
                if (csv) {
                    printf("%s,mpi_lib,%ld,0,%d,%.4f,%.4f,%.4f,0\n", name, bytes, size, ml, tl[0],
                           tl[reps - 1]);
                    printf("%s,nodeshm,%ld,0,%d,%.4f,%.4f,%.4f,0\n", name, bytes, size, mn, tn[0],
                           tn[reps - 1]);
                } else {
                    printf("%-22s %9ld %12.2f %12.2f %7.2fx", name, bytes, ml, mn, ml / mn);
                    if (full) printf("   %6.2f/%-8.2f %6.2f/%-8.2f", tl[0], tl[reps - 1], tn[0], tn[reps - 1]);
                    printf("\n");
                }
                fflush(stdout);
            }
            if (!op->sized) break;
        }
    }
    osu_persist_free(0);
    osu_persist_free(OSU_LIB);
    free(pick);
    free(ref);
    free(tl);
    free(tn);
    free(delays);
    free(b.send);
    free(b.recv);
    free(b.counts);
    free(b.displs);
    free(b.ccounts);
    free(b.cdispls);
    MPI_Finalize();
    return 0;
}
