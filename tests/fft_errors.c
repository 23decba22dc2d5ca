/* nodeshm-fft: bad input to plan and remap creation.  Every rank must get the same nonzero
 * result and no plan (nobody hangs), and the rank that reports it must say what the call, the
 * value and the rule are: each case captures stderr and looks for the words.  Prints
 * "fft_errors: PASS". */
#include "nodeshm_fft.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, nprocs;
static long failures;

/* Runs fn with stderr captured; returns its result and the text (static). */
static int captured(int (*fn)(void *), void *arg, char *text, size_t len)
{
    fflush(stderr);
    int saved = dup(2);
    FILE *tmp = tmpfile();
    dup2(fileno(tmp), 2);
    int rc = fn(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t got = fread(text, 1, len - 1, tmp);
    text[got] = 0;
    fclose(tmp);
    return rc;
}

typedef struct {
    const char *name;
    int n[3];
    nodeshm_fft_brick_t in, out;
    int precision;
    int remap; /* through nodeshm_remap_create (elem size 0) instead of a plan */
    int reporter; /* the rank that must say it */
    const char *words[3];
} bad_case_t;

static int make(void *arg)
{
    bad_case_t *c = arg;
    if (c->remap) {
        nodeshm_remap_t r = (nodeshm_remap_t)(void *)&r; /* must come back NULL */
        int rc = nodeshm_remap_create(MPI_COMM_WORLD, c->n, &c->in, &c->out, 0,
                                      NODESHM_REMAP_AUTO, &r);
        return rc && !r ? rc : (r ? -1 : 0);
    }
    nodeshm_fft_plan_t p = (nodeshm_fft_plan_t)(void *)&p;
    int rc = nodeshm_fft_plan_create(MPI_COMM_WORLD, c->n, &c->in, &c->out,
                                     (nodeshm_fft_precision_t)c->precision, NODESHM_REMAP_AUTO, &p);
    return rc && !p ? rc : (p ? -1 : 0);
}

typedef struct {
    nodeshm_fft_plan_t *p;
    const int *n;
    nodeshm_fft_brick_t *in, *out;
} shmem_case_t;

static int shmem_plan(void *arg)
{
    shmem_case_t *c = arg;
    return nodeshm_fft_plan_create(MPI_COMM_WORLD, c->n, c->in, c->out, NODESHM_FFT_DOUBLE,
                                   NODESHM_REMAP_SHMEM_BARRIER, c->p);
}

static void run(bad_case_t *c)
{
    char text[4096];
    int rc = captured(make, c, text, sizeof text);
    int ok = rc > 0, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!ok) {
        fprintf(stderr, "rank %d: %s: expected an error and no plan, got %d\n", rank, c->name, rc);
        failures++;
    }
    if (rank == c->reporter)
        for (int k = 0; k < 3 && c->words[k]; k++)
            if (!strstr(text, c->words[k])) {
                fprintf(stderr, "rank %d: %s: the message lacks '%s':\n%s", rank, c->name,
                        c->words[k], text);
                failures++;
            }
    if (rank != c->reporter && text[0]) {
        fprintf(stderr, "rank %d: %s: only rank %d should speak, this one said:\n%s", rank,
                c->name, c->reporter, text);
        failures++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int n[3] = {8, 6, 5 * nprocs}, grid[2];
    nodeshm_fft_pencil_grid(nprocs, n, grid);
    nodeshm_fft_brick_t in, out;
    nodeshm_fft_pencil_brick(n, grid, rank, 0, &in);
    nodeshm_fft_pencil_brick(n, grid, rank, 2, &out);
    int last = nprocs - 1;

    bad_case_t zero = {"zero extent", {8, 0, 5}, in, out, 0, 0, 0,
                       {"nodeshm_fft_plan_create", "n[1] = 0", ">= 1"}};
    run(&zero);
    bad_case_t order = {"bad order", {0}, in, out, 0, 0, last,
                        {"nodeshm_fft_plan_create", "order {0,0,1}", "permutation"}};
    memcpy(order.n, n, sizeof n);
    if (rank == last) order.in.order[1] = 0, order.in.order[2] = 1;
    run(&order);
    bad_case_t prec = {"precision", {0}, in, out, 7, 0, 0,
                       {"nodeshm_fft_plan_create", "precision 7", "NODESHM_FFT_SINGLE"}};
    memcpy(prec.n, n, sizeof n);
    run(&prec);
    bad_case_t elem = {"element size", {0}, in, out, 0, 1, 0,
                       {"nodeshm_remap_create", "element size 0"}};
    memcpy(elem.n, n, sizeof n);
    run(&elem);
    /* bricks that do not tile: one rank's output brick grown into its neighbour's, or shrunk */
    bad_case_t leave = {"points left out", {0}, in, out, 0, 0, 0,
                        {"nodeshm_fft_plan_create", "output bricks do not cover", "8x6x"}};
    memcpy(leave.n, n, sizeof n);
    if (rank == last) leave.out.hi[2] = leave.out.lo[2];
    run(&leave);
    if (nprocs > 1) {
        bad_case_t overlap = {"overlap", {0}, in, out, 0, 0, 0,
                              {"nodeshm_fft_plan_create", "input bricks of ranks", "overlap"}};
        memcpy(overlap.n, n, sizeof n);
        if (rank == 1) { /* rank 1 claims rank 0's brick */
            nodeshm_fft_pencil_brick(n, grid, 0, 0, &overlap.in);
        }
        run(&overlap);
        bad_case_t differ = {"plans differ", {0}, in, out, 0, 0, 0,
                             {"nodeshm_fft_plan_create", "do not match", "rank 0 has grid 8x6x"}};
        memcpy(differ.n, n, sizeof n);
        if (rank == last) differ.n[0] = 9;
        run(&differ);
    }
    setenv("NODESHM_FFT_STRATEGY", "bogus", 1);
    bad_case_t env = {"environment", {0}, in, out, 0, 0, 0,
                      {"NODESHM_FFT_STRATEGY=bogus", "accepted: auto, mpi-p2p"}};
    memcpy(env.n, n, sizeof n);
    run(&env);
    /* the node strategy's setting between nodes */
    setenv("NODESHM_FFT_STRATEGY", "node", 1);
    setenv("NODESHM_FFT_NODE_AGGREGATE", "sometimes", 1);
    bad_case_t agg = {"node aggregate setting", {0}, in, out, 0, 0, 0,
                      {"nodeshm_fft_plan_create", "NODESHM_FFT_NODE_AGGREGATE=sometimes",
                       "accepted: off, on, or the largest mean block"}};
    memcpy(agg.n, n, sizeof n);
    run(&agg);
    unsetenv("NODESHM_FFT_NODE_AGGREGATE");
    unsetenv("NODESHM_FFT_STRATEGY");
    /* the remap timing setting (the --remap-barrier of nodeshm-fft) */
    setenv("NODESHM_FFT_REMAP_BARRIER", "2", 1);
    bad_case_t sync = {"remap barrier setting", {0}, in, out, 0, 0, 0,
                       {"nodeshm_fft_plan_create", "NODESHM_FFT_REMAP_BARRIER=2", "accepted: 0, 1"}};
    memcpy(sync.n, n, sizeof n);
    run(&sync);
    unsetenv("NODESHM_FFT_REMAP_BARRIER");
    /* the shmem strategies without shmem_init (this program never calls it) */
    {
        nodeshm_fft_plan_t p = (nodeshm_fft_plan_t)(void *)&p;
        char text[4096];
        shmem_case_t sc = {&p, n, &in, &out};
        int rc = captured(shmem_plan, &sc, text, sizeof text);
        if (!rc || p) {
            fprintf(stderr, "rank %d: shmem strategy without shmem_init: %d\n", rank, rc);
            failures++;
        }
        if (rank == 0 && !strstr(text, "shmem-barrier needs OpenSHMEM: call shmem_init")) {
            fprintf(stderr, "rank 0: shmem strategy without shmem_init: message:\n%s", text);
            failures++;
        }
    }
    /* and a good plan still works afterwards (nothing was left half made) */
    nodeshm_fft_plan_t p;
    int rc = nodeshm_fft_plan_create(MPI_COMM_WORLD, n, &in, &out, NODESHM_FFT_DOUBLE,
                                     NODESHM_REMAP_AUTO, &p);
    if (rc || !p) {
        fprintf(stderr, "rank %d: a good plan after the bad ones failed: %d\n", rank, rc);
        failures++;
    }
    nodeshm_fft_destroy(&p);
    long sum;
    MPI_Allreduce(&failures, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("fft_errors: %d ranks: %s\n", nprocs, sum ? "FAIL" : "PASS");
    MPI_Finalize();
    return sum ? 1 : 0;
}
