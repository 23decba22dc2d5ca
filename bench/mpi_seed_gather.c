/* The seed scenario of libnodeshm_mpi: every rank contributes 10,000 doubles per step, rank 0
 * validates all of them, 512 steps.  Measured in the same run, repetitions alternating:
 *   mpi_lib       MPI_Gather of the MPI library (PMPI_Gather: the interposer is bypassed), then
 *                 rank 0 validates the gathered copy
 *   nodeshm       nodeshm.h: each rank writes its values straight into its part of a node-shared
 *                 region (a ring of `depth` buffers, default 2: halves used in alternate steps)
 *                 and publishes the step; rank 0 waits for all, validates them in place (no copy
 *                 at all) and releases the step; a writer waits only for rank 0's release of
 *                 the buffer it is about to overwrite
 *   nodeshm_sync  the same data in two halves, but one nodeshm_shared_sync (a node barrier) per
 *                 step
 *   compute       a reference, not a competitor: the same fills, and rank 0's validation of a
 *                 copy of all blocks that it wrote itself (nothing moves between ranks): the
 *                 compute every mechanism pays, so the part of a step above it is data movement
 * Needs all ranks on one node (rank 0 reads everything in place).  Time per step: each
 * repetition runs all steps, max over ranks; median (min, max) over repetitions.
 *
 * Usage: mpi_seed_gather [-m bytes_per_rank] [-i steps] [-x warmup_steps] [-f] [--csv]
 *                        [-r repetitions] [-d depth] [-o mpi_lib,nodeshm,nodeshm_sync,compute]
 * Defaults: 80000 bytes (10,000 doubles), 512 steps, 5 repetitions (NODESHM_BENCH_REPS);
 * NODESHM_BENCH_QUICK=1: 1000 doubles, 16 steps, 3 repetitions.
 * CSV rows: test seed_gather, bytes = bytes per rank, param = steps. */
#include "bench_util.h"
#include "nodeshm.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog = "mpi_seed_gather";

/* Element i of a rank's block in a step is base + i, exact in a double (below 2^53).  The fill and
 * the validation are the application's compute, the same for every mechanism, written the way a
 * tuned application would: the validation ORs the bits of value ^ expected (no dependency chain
 * through a floating-point sum, which GCC may not reorder) against i taken from a table of
 * doubles (no int-to-double conversion in the loop), and counts the wrong values only when there
 * are some.  It went from 1.2 to 0.3-0.6 ns per value, so the data movement under comparison is
 * not hidden under a slow loop. */
static double *index_table; /* index_table[i] == i */

static double base(long step, int rank) { return (double)((step * 131 + rank) * 10007L); }

static long validate(const double *restrict v, long step, int rank, int n)
{
    const double b = base(step, rank);
    const double *restrict x = index_table;
    uint64_t diff = 0;
    for (int i = 0; i < n; i++) {
        double e = b + x[i];
        uint64_t got, want;
        memcpy(&got, &v[i], sizeof got);
        memcpy(&want, &e, sizeof want);
        diff |= got ^ want;
    }
    long bad = 0;
    for (int i = 0; diff && i < n; i++) bad += v[i] != b + x[i];
    return bad;
}

static void fill(double *restrict v, long step, int rank, int n)
{
    const double b = base(step, rank);
    for (int i = 0; i < n; i++) v[i] = b + index_table[i];
}

typedef struct run {
    int rank, size, n;
    nodeshm_shared_t h;
    int depth;           /* nodeshm: buffers per rank in the node-shared region (-d) */
    double **peer;       /* [size] each rank's `depth` buffers in the node-shared region */
    double *local, *all; /* mpi_lib: my block, rank 0's gathered copy */
    double *own;         /* compute: rank 0's own copy of all blocks of step 0 */
    nodeshm_shared_t flag; /* compute: rank 0's done word, node-shared */
    uint64_t *compute_done, compute_epoch;
    uint64_t epoch;      /* nodeshm: epochs grow across repetitions */
    long bad;
} run_t;

/* `steps` steps starting at step number `first` with one mechanism. */
static void steps_mpi_lib(run_t *r, long first, long steps)
{
    for (long s = first; s < first + steps; s++) {
        fill(r->local, s, r->rank, r->n);
        PMPI_Gather(r->local, r->n, MPI_DOUBLE, r->all, r->n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (r->rank == 0)
            for (int q = 0; q < r->size; q++) r->bad += validate(r->all + (size_t)q * r->n, s, q, r->n);
    }
}

static void steps_nodeshm(run_t *r, long first, long steps)
{
    for (long s = first; s < first + steps; s++) {
        uint64_t e = ++r->epoch;
        int half = (int)(e % (uint64_t)r->depth);
        if (e > (uint64_t)r->depth) /* rank 0 has read what this buffer held */
            nodeshm_shared_wait_released(r->h, 0, e - (uint64_t)r->depth);
        fill(r->peer[r->rank] + (size_t)half * r->n, s, r->rank, r->n);
        nodeshm_shared_publish(r->h, e);
        if (r->rank == 0) {
            nodeshm_shared_wait(r->h, NODESHM_ALL_RANKS, e);
            for (int q = 0; q < r->size; q++) r->bad += validate(r->peer[q] + (size_t)half * r->n, s, q, r->n);
            nodeshm_shared_release(r->h, e);
        }
    }
    nodeshm_shared_wait_released(r->h, 0, r->epoch); /* the repetition ends when rank 0 is done */
}

static void steps_nodeshm_sync(run_t *r, long first, long steps)
{
    for (long s = first; s < first + steps; s++) {
        int half = (int)(s & 1);
        fill(r->peer[r->rank] + (size_t)half * r->n, s, r->rank, r->n);
        nodeshm_shared_sync(r->h); /* also: rank 0 is done with step s-2's half */
        if (r->rank == 0)
            for (int q = 0; q < r->size; q++) r->bad += validate(r->peer[q] + (size_t)half * r->n, s, q, r->n);
    }
    nodeshm_shared_sync(r->h);
}

static void steps_compute(run_t *r, long first, long steps)
{
    for (long s = first; s < first + steps; s++) {
        fill(r->local, s, r->rank, r->n);
        if (r->rank == 0)
            for (int q = 0; q < r->size; q++) r->bad += validate(r->own + (size_t)q * r->n, 0, q, r->n);
    }
    /* the others wait for rank 0 asleep: waiting ranks that spin, yield or poll in the MPI library
     * (MPICH does, 8 ranks on 2 cores) would take a share of rank 0's core and make the reference
     * slower than the mechanisms it is the floor of */
    uint64_t *done = r->compute_done, e = ++r->compute_epoch;
    if (r->rank == 0)
        __atomic_store_n(done, e, __ATOMIC_RELEASE);
    else
        while (__atomic_load_n(done, __ATOMIC_ACQUIRE) < e) usleep(500); /* <= 1 us per step of 512 */
}

typedef struct mech {
    const char *name, *label;
    void (*fn)(run_t *, long, long);
} mech_t;

static const mech_t mechs[] = {
    {"mpi_lib", "MPI_Gather (MPI library)", steps_mpi_lib},
    {"nodeshm", "node-shared, publish/wait", steps_nodeshm},
    {"nodeshm_sync", "node-shared, sync per step", steps_nodeshm_sync},
    {"compute", "compute only (reference)", steps_compute},
};
#define COMPUTE (NMECH - 1) /* a reference: no speedup against it */
#define NMECH (int)(sizeof mechs / sizeof *mechs)

typedef struct extra_opts {
    int reps, depth;
    const char *only;
} extra_opts_t;

static int extra(const char *arg, const char *next, void *user)
{
    extra_opts_t *x = user;
    if (!strcmp(arg, "-r") && next && atoi(next) > 0) {
        x->reps = atoi(next) < 64 ? atoi(next) : 64;
        return 2;
    }
    if (!strcmp(arg, "-d") && next && atoi(next) >= 2) {
        x->depth = atoi(next);
        return 2;
    }
    if (!strcmp(arg, "-o") && next) {
        x->only = next;
        return 2;
    }
    return 0;
}

static int selected(const char *only, const char *name)
{
    if (!only) return 1;
    size_t len = strlen(name);
    for (const char *p = only; (p = strstr(p, name)); p += len)
        if ((p == only || p[-1] == ',') && (p[len] == 0 || p[len] == ',')) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    run_t r = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r.size);
    bench_opts_t o;
    extra_opts_t x = {0, 2, NULL};
    int rc = bench_parse(argc, argv, prog, r.rank, &o, extra, &x,
                         "[-r repetitions] [-d depth] [-o mpi_lib,nodeshm,nodeshm_sync,compute]   (-m: bytes "
                         "per rank, -i: steps, -d: buffers per rank for nodeshm, >= 2)");
    if (!rc) rc = bench_cold_refuse(&o, prog, r.rank, "the seed scenario is the application's own");
    if (rc) {
        MPI_Finalize();
        return rc;
    }
    int quick = bench_quick();
    size_t bytes = o.max_size ? o.max_size : quick ? 8000 : 80000;
    r.n = (int)(bytes / sizeof(double));
    if (r.n < 1) r.n = 1;
    bytes = (size_t)r.n * sizeof(double);
    long steps = o.iters > 0 ? o.iters : quick ? 16 : 512;
    long warmup = bench_warmup(&o, 16);
    int reps = x.reps ? x.reps : getenv("NODESHM_BENCH_REPS") || quick ? bench_reps() : 5;

    if (r.rank == 0 && o.csv) bench_csv_header();
    r.depth = x.depth;
    nodeshm_shared_alloc(MPI_COMM_WORLD, (size_t)r.depth * bytes, &r.h);
    int node_size;
    nodeshm_shared_node_info(r.h, NULL, &node_size, NULL, NULL);
    if (node_size != r.size) {
        if (r.rank == 0)
            bench_note(prog, "needs all %d ranks on one node (NODESHM_PES_PER_NODE unset): skipped", r.size);
        nodeshm_shared_free(&r.h);
        MPI_Finalize();
        return 0;
    }
    index_table = malloc(bytes);
    for (int i = 0; index_table && i < r.n; i++) index_table[i] = i;
    r.peer = malloc(sizeof(double *) * (size_t)r.size);
    r.local = malloc(bytes);
    r.all = r.rank == 0 ? malloc(bytes * (size_t)r.size) : NULL;
    r.own = r.rank == 0 ? malloc(bytes * (size_t)r.size) : NULL;
    nodeshm_shared_alloc(MPI_COMM_WORLD, r.rank == 0 ? 64 : 0, &r.flag);
    r.compute_done = nodeshm_shared_ptr(r.flag, 0, NULL);
    if (r.rank == 0) *r.compute_done = 0;
    nodeshm_shared_sync(r.flag);
    double(*t)[64] = calloc(NMECH, sizeof *t);
    if (!index_table || !r.peer || !r.local || (r.rank == 0 && (!r.all || !r.own)) || !t) {
        fprintf(stderr, "%s: out of memory\n", prog);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int q = 0; q < r.size; q++) r.peer[q] = nodeshm_shared_ptr(r.h, q, NULL);
    for (int q = 0; r.own && q < r.size; q++) fill(r.own + (size_t)q * r.n, 0, q, r.n);

    long step = 0;
    for (int m = 0; m < NMECH; m++)
        if (selected(x.only, mechs[m].name)) {
            mechs[m].fn(&r, step, warmup);
            step += warmup;
        }
    for (int rep = 0; rep < reps; rep++) /* alternate: every mechanism sees the same noise */
        for (int m = 0; m < NMECH; m++) {
            if (!selected(x.only, mechs[m].name)) continue;
            PMPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            mechs[m].fn(&r, step, steps);
            double dt = (MPI_Wtime() - t0) / (double)steps;
            step += steps;
            PMPI_Allreduce(&dt, &t[m][rep], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        }
    long bad = 0;
    PMPI_Reduce(&r.bad, &bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);

    if (r.rank == 0) {
        bench_stats_t st[NMECH];
        char param[32];
        snprintf(param, sizeof param, "%ld", steps);
        for (int m = 0; m < NMECH; m++)
            if (selected(x.only, mechs[m].name)) st[m] = bench_stats(t[m], reps);
        if (!o.csv) {
            printf("# seed gather: %d ranks x %d doubles (%zu bytes), %ld steps, median of %d "
                   "repetitions, time per step\n", r.size, r.n, bytes, steps, reps);
            printf("%-14s %-28s %12s%s\n", "# mechanism", "", "us/step", o.full ? "       min us       max us" : "");
        }
        for (int m = 0; m < NMECH; m++) {
            if (!selected(x.only, mechs[m].name)) continue;
            char name[32]; /* a deeper ring than the scenario's two halves says so */
            snprintf(name, sizeof name, "%s", mechs[m].name);
            if (mechs[m].fn == steps_nodeshm && r.depth != 2) snprintf(name, sizeof name, "nodeshm_ring%d", r.depth);
            if (o.csv) {
                bench_row("seed_gather", name, bytes, param, r.size, st[m]);
            } else {
                printf("%-14s %-28s %12.1f", name, mechs[m].label, st[m].median * 1e6);
                if (o.full) printf(" %12.1f %12.1f", st[m].min * 1e6, st[m].max * 1e6);
                printf("\n");
            }
        }
        if (!o.csv && selected(x.only, "mpi_lib"))
            for (int m = 1; m < COMPUTE; m++)
                if (selected(x.only, mechs[m].name))
                    printf("speedup %s / mpi_lib: %.2fx%s\n", mechs[m].name, st[0].median / st[m].median,
                           m == 1 ? " (target >= 3x)" : "");
        if (!o.csv && selected(x.only, "mpi_lib") && selected(x.only, "nodeshm") && selected(x.only, "compute"))
            printf("above the compute: mpi_lib %.1f us, nodeshm %.1f us per step\n",
                   (st[0].median - st[COMPUTE].median) * 1e6, (st[1].median - st[COMPUTE].median) * 1e6);
        if (bad) fprintf(stderr, "%s: %ld values wrong\n", prog, bad);
        fflush(stdout);
    }
    free(t);
    free(r.all);
    free(r.own);
    free(r.local);
    free(r.peer);
    free(index_table);
    nodeshm_shared_free(&r.flag);
    nodeshm_shared_free(&r.h);
    MPI_Finalize();
    return r.rank == 0 && bad ? 1 : 0;
}
