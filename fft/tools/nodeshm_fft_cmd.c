/* nodeshm-fft: times distributed 3D FFTs per remap strategy beside FFTW's own MPI transform, in
 * one run, and checks each against a serial FFTW transform of the same data.
 *
 *   nodeshm-fft --grid 128x128x128 [--procs PxQ|auto] [--precision double|single]
 *               [--strategy NAME[,NAME...]|all] [--iterations N] [--rounds R]
 *               [--remap-barrier] [--json|--csv]
 *
 * Per strategy: the median time of a forward+backward pair (the slowest rank's), the median time
 * in its remaps, the largest error of the forward result relative to the serial transform's
 * peak, and of the round trip.  Data are fresh random numbers; in bricks are x pencils, out
 * bricks z pencils (the plan's natural layouts).  The pairs are timed in --rounds rounds
 * (default 2), each round every strategy and FFTW-MPI in turn, the order reversed every other
 * round (ABBA): on a shared machine a slow spell then falls on every strategy alike instead of
 * on whichever ran during it.  One plan exists at a time (a 256^3 plan holds GBs).
 * Between nodes (hosts or pseudo-nodes) --strategy all also times the node strategy with its
 * blocks between nodes forced into one message per pair of ranks (row node-pairs) and per pair
 * of nodes (node-agg), beside `node` (the plan's own choice): NODESHM_FFT_NODE_AGGREGATE=off|on
 * while their plans are made.  --strategy also takes a list of names, node-pairs and node-agg
 * included.  --remap-barrier starts every remap from a barrier outside its time
 * (NODESHM_FFT_REMAP_BARRIER=1): the remap column is then each remap's own cost, not the wait for
 * peers still in their FFT stage that an oversubscribed node adds to every strategy alike. */
#include "nodeshm_fft.h"
#include "reference.h"

#include <math.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    int n[3], grid[2];
    nodeshm_fft_precision_t prec;
    int all;      /* --strategy all */
    unsigned pick; /* else bit s: strategy s; bits N, N + 1: node-pairs, node-agg (variants) */
    int iterations, rounds;
    enum { TEXT, JSON, CSV } format;
} options_t;

typedef struct {
    const char *name;
    int ok, failed;
    int strategy;   /* for measure */
    const char *aggregate; /* node-pairs, node-agg: NODESHM_FFT_NODE_AGGREGATE for the plan */
    int between, aggregated; /* node: remaps between nodes, and aggregated (nodeshm_fft_info_t) */
    int count;      /* pairs timed so far (all rounds) */
    double *t, *tr; /* their times, and the time in remaps */
    double pair, remap, error, roundtrip;
    const char *why;
} row_t;

static int rank, nprocs;

#define USAGE                                                                                  \
    "usage: nodeshm-fft --grid NXxNYxNZ [--procs PxQ|auto] [--precision double|single]\n"         \
    "                   [--strategy NAME[,NAME...]|all] [--iterations N] [--rounds R]\n"          \
    "                   [--remap-barrier] [--json|--csv]\n"

/* The node strategy's variants between nodes: row name, NODESHM_FFT_NODE_AGGREGATE. */
static const char *const variants[2][2] = {{"node-pairs", "off"}, {"node-agg", "on"}};

static void usage_error(const char *fmt, const char *value)
{
    if (rank == 0) {
        fprintf(stderr, "nodeshm-fft: ");
        fprintf(stderr, fmt, value);
        fprintf(stderr, "\n" USAGE);
    }
    MPI_Finalize();
    exit(2);
}

static options_t parse(int argc, char **argv)
{
    options_t o = {{64, 64, 64}, {0, 0}, NODESHM_FFT_DOUBLE, 1, 0, 10, 2, TEXT};
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        char extra;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (rank == 0) printf(USAGE "strategies: mpi-p2p, mpi-alltoallv, node, shmem-barrier, "
                                        "shmem-nopack, shmem-chkbuff, shmem-advchkbuff, auto, all;\n"
                                        "between nodes also node-pairs, node-agg\n");
            MPI_Finalize();
            exit(0);
        } else if (!strcmp(a, "--json")) o.format = JSON;
        else if (!strcmp(a, "--remap-barrier")) setenv("NODESHM_FFT_REMAP_BARRIER", "1", 1);
        else if (!strcmp(a, "--csv")) o.format = CSV;
        else if (!v) usage_error("%s needs a value", a);
        else if (!strcmp(a, "--grid")) {
            if (sscanf(v, "%dx%dx%d%c", &o.n[0], &o.n[1], &o.n[2], &extra) != 3 || o.n[0] < 1 ||
                o.n[1] < 1 || o.n[2] < 1)
                usage_error("--grid %s: accepted: NXxNYxNZ, each >= 1 (e.g. 128x128x128)", v);
            k++;
        } else if (!strcmp(a, "--procs")) {
            if (strcmp(v, "auto") && (sscanf(v, "%dx%d%c", &o.grid[0], &o.grid[1], &extra) != 2 ||
                                      o.grid[0] < 1 || o.grid[1] < 1 ||
                                      o.grid[0] * o.grid[1] != nprocs))
                usage_error("--procs %s: accepted: auto or PxQ with P*Q = the number of ranks", v);
            k++;
        } else if (!strcmp(a, "--precision")) {
            if (!strcmp(v, "double")) o.prec = NODESHM_FFT_DOUBLE;
            else if (!strcmp(v, "single")) o.prec = NODESHM_FFT_SINGLE;
            else usage_error("--precision %s: accepted: double, single", v);
            k++;
        } else if (!strcmp(a, "--strategy")) {
            o.all = !strcmp(v, "all");
            o.pick = 0;
            for (const char *w = v; !o.all && *w;) { /* NAME[,NAME...] */
                char name[32];
                size_t len = strcspn(w, ",");
                snprintf(name, sizeof name, "%.*s", (int)(len < 31 ? len : 31), w);
                nodeshm_remap_strategy_t s;
                if (!strcmp(name, variants[0][0]) || !strcmp(name, variants[1][0]))
                    o.pick |= 1u << (NODESHM_REMAP_N_STRATEGIES + !strcmp(name, variants[1][0]));
                else if (nodeshm_remap_strategy_from_name(name, &s))
                    usage_error("--strategy %s: see above", v);
                else o.pick |= 1u << s;
                w += len + (w[len] == ',');
            }
            k++;
        } else if (!strcmp(a, "--iterations")) {
            if (sscanf(v, "%d%c", &o.iterations, &extra) != 1 || o.iterations < 1)
                usage_error("--iterations %s: accepted: an integer >= 1", v);
            k++;
        } else if (!strcmp(a, "--rounds")) {
            if (sscanf(v, "%d%c", &o.rounds, &extra) != 1 || o.rounds < 1)
                usage_error("--rounds %s: accepted: an integer >= 1", v);
            k++;
        } else usage_error("unknown option %s", a);
    }
    return o;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* One strategy, one round: plan, warm up (and check the result in round 0), time `count` pairs
 * into row->t / row->tr. */
static void *aligned_bytes(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes)) {
        fprintf(stderr, "nodeshm-fft: out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

static void measure(const options_t *o, const nodeshm_fft_brick_t *in,
                    const nodeshm_fft_brick_t *out, const void *orig, const double *ref,
                    double peak, row_t *row, int round, int count)
{
    size_t es = o->prec == NODESHM_FFT_DOUBLE ? 16 : 8;
    size_t nin = nodeshm_fft_brick_size(in), nout = nodeshm_fft_brick_size(out);
    nodeshm_fft_plan_t plan;
    int strategy = row->strategy;
    char *saved = getenv("NODESHM_FFT_NODE_AGGREGATE");
    saved = saved ? strdup(saved) : NULL;
    if (row->aggregate) setenv("NODESHM_FFT_NODE_AGGREGATE", row->aggregate, 1);
    int rc = o->grid[0] ? nodeshm_fft_plan_create_on_grid(MPI_COMM_WORLD, o->n, o->grid, in, out,
                                                          o->prec, strategy, &plan)
                        : nodeshm_fft_plan_create(MPI_COMM_WORLD, o->n, in, out, o->prec,
                                                  strategy, &plan);
    if (row->aggregate) { /* the user's setting back for the other rows */
        if (saved) setenv("NODESHM_FFT_NODE_AGGREGATE", saved, 1);
        else unsetenv("NODESHM_FFT_NODE_AGGREGATE");
    }
    free(saved);
    if (!row->name) row->name = nodeshm_remap_strategy_name((nodeshm_remap_strategy_t)strategy);
    if (rc) {
        row->why = "plan creation failed (see above)";
        row->failed = 1;
        return;
    }
    /* 64-byte aligned, as FFTW-MPI's fftw_alloc'd arrays: FFTW's SIMD codelets ran 30-40% slower
     * on malloc's 16-byte alignment (a z-stage of 128^3 over 2 ranks: 4.2 vs 3.1 ms). */
    char *a = aligned_bytes(es * (nin + 1)), *b = aligned_bytes(es * (nout + 1));
    double err = 0, rt = 0, Nd = (double)o->n[0] * o->n[1] * o->n[2];
    for (int it = 0; it <= count; it++) { /* iteration 0 warms up */
        memcpy(a, orig, es * nin);
        nodeshm_fft_info_t before, after;
        nodeshm_fft_plan_info(plan, &before);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        nodeshm_fft_forward(plan, a, b);
        double t1 = MPI_Wtime();
        if (it == 0 && round == 0) /* the first forward result against the serial transform */
            for (size_t k = 0; k < 2 * nout; k++) {
                double v = es == 16 ? ((double *)b)[k] : ((float *)b)[k];
                err = fmax(err, fabs(v - ref[k]));
            }
        double t2 = MPI_Wtime();
        nodeshm_fft_backward(plan, b, a);
        double dt[2] = {t1 - t0 + MPI_Wtime() - t2, 0};
        nodeshm_fft_plan_info(plan, &after);
        dt[1] = after.remap_seconds - before.remap_seconds;
        MPI_Allreduce(MPI_IN_PLACE, dt, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (it) row->t[row->count] = dt[0], row->tr[row->count++] = dt[1];
        if (it == 0 && round == 0)
            for (size_t k = 0; k < 2 * nin; k++) {
                double v = es == 16 ? ((double *)a)[k] : ((float *)a)[k];
                double w = es == 16 ? ((const double *)orig)[k] : ((const float *)orig)[k];
                rt = fmax(rt, fabs(v / Nd - w));
            }
    }
    if (round == 0) {
        double e[2] = {err, rt};
        MPI_Allreduce(MPI_IN_PLACE, e, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        row->error = e[0] / (peak > 0 ? peak : 1);
        row->roundtrip = e[1];
    }
    nodeshm_fft_info_t info;
    nodeshm_fft_plan_info(plan, &info);
    if (!row->aggregate) row->name = nodeshm_remap_strategy_name(info.strategy);
    row->between = info.remaps_between_nodes;
    row->aggregated = info.remaps_aggregated;
    nodeshm_fft_destroy(&plan);
    free(a), free(b);
}

static void print(const options_t *o, int grid[2], int nodes, const row_t *rows, int nrows)
{
    const char *prec = o->prec == NODESHM_FFT_DOUBLE ? "double" : "single";
    double base = 0; /* the FFTW-MPI row's time: the ratio column */
    for (int k = 0; k < nrows; k++)
        if (rows[k].ok && !strcmp(rows[k].name, "fftw-mpi")) base = rows[k].pair;
    if (o->format == JSON) {
        printf("{\"grid\": [%d, %d, %d], \"ranks\": %d, \"nodes\": %d, \"procs\": [%d, %d], "
               "\"precision\": \"%s\", \"iterations\": %d, \"rounds\": %d, \"rows\": [", o->n[0],
               o->n[1], o->n[2], nprocs, nodes, grid[0], grid[1], prec, o->iterations, o->rounds);
        for (int k = 0; k < nrows; k++) {
            printf("%s\n  {\"strategy\": \"%s\", ", k ? "," : "", rows[k].name);
            if (rows[k].ok) {
                printf("\"pair_s\": %.9g, \"error\": %.3g", rows[k].pair, rows[k].error);
                if (k) printf(", \"remap_s\": %.9g, \"roundtrip_error\": %.3g", rows[k].remap,
                              rows[k].roundtrip);
                if (rows[k].between)
                    printf(", \"remaps_between_nodes\": %d, \"remaps_aggregated\": %d",
                           rows[k].between, rows[k].aggregated);
                if (base > 0) printf(", \"vs_fftw_mpi\": %.4g", base / rows[k].pair);
                printf("}");
            }
            else printf("\"skipped\": \"%s\"}", rows[k].why);
        }
        printf("\n]}\n");
        return;
    }
    if (o->format == CSV) {
        printf("grid,ranks,nodes,procs,precision,strategy,pair_s,remap_s,error,roundtrip_error,vs_fftw_mpi\n");
        for (int k = 0; k < nrows; k++)
            if (rows[k].ok)
                printf("%dx%dx%d,%d,%d,%dx%d,%s,%s,%.9g,%.9g,%.3g,%.3g,%.4g\n", o->n[0], o->n[1],
                       o->n[2], nprocs, nodes, grid[0], grid[1], prec, rows[k].name, rows[k].pair,
                       k ? rows[k].remap : NAN, rows[k].error, k ? rows[k].roundtrip : NAN,
                       base > 0 ? base / rows[k].pair : NAN);
        return;
    }
    printf("nodeshm-fft: grid %dx%dx%d, %d ranks on %d node(s), pencils %dx%d, %s, medians of %d "
           "forward+backward pairs (slowest rank) in %d interleaved rounds\n", o->n[0], o->n[1],
           o->n[2], nprocs, nodes, grid[0], grid[1], prec, o->iterations, o->rounds);
    printf("%-16s %12s %12s %8s %12s %12s %10s\n", "strategy", "pair ms", "remap ms", "remap%",
           "error", "roundtrip", "vs fftw-mpi");
    for (int k = 0; k < nrows; k++) {
        if (!rows[k].ok) {
            printf("%-16s skipped: %s\n", rows[k].name, rows[k].why);
            continue;
        }
        printf("%-16s %12.3f ", rows[k].name, rows[k].pair * 1e3);
        if (strcmp(rows[k].name, "fftw-mpi"))
            printf("%12.3f %7.0f%% ", rows[k].remap * 1e3, 100 * rows[k].remap / rows[k].pair);
        else printf("%12s %8s ", "-", "-");
        printf("%12.2e ", rows[k].error);
        if (k) printf("%12.2e ", rows[k].roundtrip);
        else printf("%12s ", "-");
        if (base > 0) printf("%9.2fx", base / rows[k].pair);
        else printf("%10s", "-");
        if (rows[k].between) /* the node strategy's choice between nodes */
            printf("  (%d of %d remaps between nodes aggregated)", rows[k].aggregated,
                   rows[k].between);
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    options_t o = parse(argc, argv);
    shmem_init(); /* the shmem-* strategies: OpenSHMEM beside MPI */
    int grid[2];
    if (o.grid[0]) memcpy(grid, o.grid, sizeof grid);
    else nodeshm_fft_pencil_grid(nprocs, o.n, grid);
    nodeshm_fft_brick_t in, out;
    nodeshm_fft_pencil_brick(o.n, grid, rank, 0, &in);
    nodeshm_fft_pencil_brick(o.n, grid, rank, 2, &out);
    size_t es = o.prec == NODESHM_FFT_DOUBLE ? 16 : 8, nin = nodeshm_fft_brick_size(&in);
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    void *orig = malloc(es * (nin + 1));
    for (size_t k = 0; k < 2 * nin; k++) {
        double v = (double)(mix(seed ^ mix((uint64_t)rank << 40 | k)) >> 11) * 0x1p-52 - 1.0;
        if (es == 16) ((double *)orig)[k] = v;
        else ((float *)orig)[k] = (float)v;
    }
    double *ref = reference_serial(MPI_COMM_WORLD, o.n, &in, &out, o.prec, orig);
    double peak = 0;
    for (size_t k = 0; ref && k < nodeshm_fft_brick_size(&out); k++)
        peak = fmax(peak, hypot(ref[2 * k], ref[2 * k + 1]));
    MPI_Allreduce(MPI_IN_PLACE, &peak, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    /* nodes: how many distinct hosts (the MPI library's view, not pseudo-nodes) */
    MPI_Comm shm;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    int shm_rank, nodes;
    MPI_Comm_rank(shm, &shm_rank);
    int leader = shm_rank == 0;
    MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&shm);

    /* several nodes of nodeshm's (pseudo-nodes too): the node strategy's variants between them */
    int several = shmem_team_n_pes(SHMEM_TEAM_SHARED) < nprocs;
    MPI_Allreduce(MPI_IN_PLACE, &several, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    row_t rows[NODESHM_REMAP_N_STRATEGIES + 3];
    memset(rows, 0, sizeof rows);
    int nrows = 0;
    rows[nrows++].name = "fftw-mpi";
    for (int s = NODESHM_REMAP_MPI_P2P; s < NODESHM_REMAP_N_STRATEGIES; s++) {
        if (!o.all && (o.pick & 1u)) { /* auto: the one it picks */
            rows[nrows++].strategy = 0;
            break;
        }
        if (o.all || (o.pick >> s & 1u)) rows[nrows++].strategy = s;
        for (int v = 0; v < 2 && s == NODESHM_REMAP_NODE; v++)
            if ((o.all && several) || (o.pick >> (NODESHM_REMAP_N_STRATEGIES + v) & 1u))
                rows[nrows++] = (row_t){.name = variants[v][0], .aggregate = variants[v][1],
                                        .strategy = s};
    }
    if (o.rounds > o.iterations) o.rounds = o.iterations;
    for (int k = 0; k < nrows; k++) {
        rows[k].t = malloc(sizeof(double) * (size_t)o.iterations);
        rows[k].tr = malloc(sizeof(double) * (size_t)o.iterations);
    }
    for (int round = 0; round < o.rounds; round++) {
        int count = o.iterations / o.rounds + (round < o.iterations % o.rounds);
        for (int j = 0; j < nrows; j++) {
            row_t *r = &rows[round % 2 ? nrows - 1 - j : j]; /* ABBA */
            if (r->failed) continue;
            if (r == &rows[0])
                r->failed = !reference_fftw_mpi(MPI_COMM_WORLD, o.n, &in, &out, o.prec, orig, ref,
                                                peak, count, round == 0, r->t + r->count,
                                                &r->error, &r->why);
            else measure(&o, &in, &out, orig, ref, peak, r, round, count);
            if (r == &rows[0] && !r->failed) r->count += count;
        }
    }
    for (int k = 0; k < nrows; k++) {
        rows[k].ok = !rows[k].failed && rows[k].count > 0;
        if (rows[k].ok) {
            rows[k].pair = median(rows[k].t, rows[k].count);
            rows[k].remap = median(rows[k].tr, rows[k].count);
        }
    }
    if (rank == 0) print(&o, grid, nodes, rows, nrows);
    int bad = 0;
    double tol = o.prec == NODESHM_FFT_DOUBLE ? 1e-12 : 1e-5;
    for (int k = 1; k < nrows; k++)
        if (!rows[k].ok || !(rows[k].error < tol && rows[k].roundtrip < tol)) {
            if (rank == 0)
                fprintf(stderr, "nodeshm-fft: %s: %s\n", rows[k].name, !rows[k].ok ? rows[k].why :
                        "error above the tolerance");
            bad = 1;
        }
    for (int k = 0; k < nrows; k++) free(rows[k].t), free(rows[k].tr);
    free(orig);
    free(ref);
    shmem_finalize();
    MPI_Finalize();
    return bad;
}
