/* nodeshm-fft: the distributed 3D FFT: three batches of 1D FFTs along pencils (axis 0, 1, 2)
 * with remaps between them, plus one from the input bricks and one to the output bricks
 * (skipped when those are the pencils already).  Each remap writes straight into the buffer the
 * next remap reads (node-shared memory for the node strategy) or into the user's output, and the
 * stage between them transforms that buffer in place: FFTW's in-place strided transforms ran 1.7-3x
 * faster here than out-of-place ones (128^3, z at a stride of one x row), and moving the data
 * costs each remap's one copy and nothing more.  A stage that reads the user's input (no remap
 * before it) copies it first and transforms the copy: the input is left as it was, and the copy
 * costs less than the out-of-place transform. */
#include "fftw_backend.h"
#include "remap_internal.h"

#include "core/tuning.h"
#include "core/wait.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FORWARD = 0, BACKWARD = 1 };

struct nodeshm_fft_plan {
    MPI_Comm comm;
    int n[3];
    int grid[2];
    const nsf_fftw_t *fftw;
    nodeshm_remap_strategy_t strategy;
    nodeshm_fft_brick_t in, out, pencil[3];
    /* remap[dir][k]: before stage k (k = 0: from the user's bricks) and after the last (k = 3) */
    nodeshm_remap_t remap[2][4];
    void *work[3];            /* one buffer per pencil */
    /* FFTW plans [dir][k][unaligned] for the stages from k to the next remap (a segment: one
     * multi-dimensional transform where no remap separates the axes), NULL elsewhere; all in
     * place */
    void *plan[2][3][2];
    int segment_end[2][3];    /* [dir][k]: one past the last stage of the segment at k */
    long transforms;
    double seconds, remap_seconds;
    int remap_barrier; /* NODESHM_FFT_REMAP_BARRIER=1: remaps start together (remap_timed) */
};

static int same_everywhere(MPI_Comm comm, int mine)
{
    int all;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm);
    return all;
}

static int make_remaps(nodeshm_fft_plan_t p, size_t es)
{
    /* Forward: in -> x pencils -> y -> z -> out; backward the reverse.  A remap that changes
     * nothing on any rank is left out (with slabs the x to y one is). */
    const nodeshm_fft_brick_t *chain[5] = {&p->in, &p->pencil[0], &p->pencil[1], &p->pencil[2],
                                           &p->out};
    for (int k = 0; k < 4; k++) {
        if (same_everywhere(p->comm, nsf_same_brick(chain[k], chain[k + 1]))) continue;
        for (int dir = 0; dir < 2; dir++) {
            const nodeshm_fft_brick_t *a = chain[k], *b = chain[k + 1];
            int slot = dir == FORWARD ? k : 3 - k;
            int rc = nsf_remap_create("nodeshm_fft_plan_create", p->comm, p->n,
                                      dir == FORWARD ? a : b, dir == FORWARD ? b : a, es,
                                      p->strategy, &p->remap[dir][slot]);
            if (rc != MPI_SUCCESS) return rc;
        }
    }
    return MPI_SUCCESS;
}

static const int axes[2][3] = {{0, 1, 2}, {2, 1, 0}}; /* stage k's axis, per direction */

/* The segment at k reads the user's input when no remap comes before it. */
static int reads_user_input(nodeshm_fft_plan_t p, int dir, int k)
{
    return k == 0 && !p->remap[dir][0];
}

/* One segment's FFTW plans: the transforms along axes[dir][k0..k1) of their pencil (the same
 * brick for all of them: no remap between), looping over the other dimensions. */
static int plan_segment(nodeshm_fft_plan_t p, int dir, int k0, int k1)
{
    const nodeshm_fft_brick_t *b = &p->pencil[axes[dir][k0]];
    size_t points = nodeshm_fft_brick_size(b);
    p->segment_end[dir][k0] = k1;
    if (!points) return MPI_SUCCESS; /* an empty pencil: nothing to transform */
    nsf_layout_t l = nsf_brick_layout(b);
    int dims[3][2], loop[3][2], rank = 0, loops = 0, along[3] = {0, 0, 0};
    for (int k = k0; k < k1; k++) {
        int a = axes[dir][k];
        along[a] = 1;
        dims[rank][0] = p->n[a];
        dims[rank++][1] = (int)l.stride[a];
    }
    for (int d = 0; d < 3; d++)
        if (!along[d]) {
            loop[loops][0] = b->hi[d] - b->lo[d];
            loop[loops++][1] = (int)l.stride[d];
        }
    void *buf = p->work[axes[dir][k0]];
    for (int u = 0; u < 2; u++) {
        p->plan[dir][k0][u] = p->fftw->plan(rank, (const int(*)[2])dims, loops,
                                            (const int(*)[2])loop, buf, buf,
                                            dir == FORWARD ? -1 : 1, u);
        if (!p->plan[dir][k0][u]) {
            nsf_error("nodeshm_fft_plan_create", "FFTW could not plan a rank-%d transform of "
                      "%zu points", rank, points);
            return MPI_ERR_OTHER;
        }
    }
    return MPI_SUCCESS;
}

static int make_fftw_plans(nodeshm_fft_plan_t p)
{
    for (int dir = 0; dir < 2; dir++)
        for (int k0 = 0; k0 < 3;) {
            int k1 = k0 + 1;
            while (k1 < 3 && !p->remap[dir][k1]) k1++;
            int rc = plan_segment(p, dir, k0, k1);
            if (rc != MPI_SUCCESS) return rc;
            k0 = k1;
        }
    return MPI_SUCCESS;
}

/* A plan-time broadcast whose waiters yield their core to the rank that is planning. */
static void bcast_yielding(void *buf, int count, MPI_Datatype type, MPI_Comm comm)
{
    MPI_Request req;
    MPI_Ibcast(buf, count, type, 0, comm, &req);
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    for (int done = 0; MPI_Test(&req, &done, MPI_STATUS_IGNORE), !done;) nodeshm_wait_step(&w);
}

/* FFTW_MEASURE times candidate algorithms; with every rank measuring at once on shared cores
 * the timings are noise and the ranks pick different, often slow, plans (a standalone 64-plane
 * z stage: 3.3 ms planned alone, 10.8 ms planned beside another process).  So rank 0 plans
 * alone first and hands its wisdom to the others, whose problems of the same shape are then
 * planned without measuring. */
static int make_fftw_plans_in_turn(nodeshm_fft_plan_t p)
{
    int rank;
    MPI_Comm_rank(p->comm, &rank);
    int rc = rank == 0 ? make_fftw_plans(p) : MPI_SUCCESS;
    char *wisdom = rank == 0 ? p->fftw->export_wisdom() : NULL;
    int len = wisdom ? (int)strlen(wisdom) + 1 : 0;
    bcast_yielding(&len, 1, MPI_INT, p->comm);
    if (len) {
        if (rank != 0 && !(wisdom = malloc((size_t)len))) len = 0; /* plans without it */
        MPI_Bcast(wisdom ? (void *)wisdom : (void *)&len, wisdom ? len : 0, MPI_CHAR, 0, p->comm);
        if (rank != 0 && wisdom) p->fftw->import_wisdom(wisdom);
    }
    free(wisdom);
    return rank == 0 ? rc : make_fftw_plans(p);
}

/* 1 with *on set from NODESHM_FFT_REMAP_BARRIER (environment or tuning file), 0 if it is bad. */
static int remap_barrier_setting(int *on)
{
    const char *v = nodeshm_getenv("NODESHM_FFT_REMAP_BARRIER");
    if (!v || !*v || !strcmp(v, "0")) return *on = 0, 1;
    return *on = 1, !strcmp(v, "1");
}

static int plan_create(const char *call, MPI_Comm comm, const int n[3], const int grid[2],
                       const nodeshm_fft_brick_t *in, const nodeshm_fft_brick_t *out,
                       nodeshm_fft_precision_t precision, nodeshm_remap_strategy_t strategy,
                       nodeshm_fft_plan_t *plan)
{
    if (comm == MPI_COMM_NULL) {
        nsf_error(call, "MPI_COMM_NULL (accepted: an intra-communicator)");
        return MPI_ERR_COMM;
    }
    /* Local problems first, agreed on by all ranks before anything else collective. */
    const nsf_fftw_t *fftw = nsf_fftw_for(precision);
    int nranks;
    MPI_Comm_size(comm, &nranks);
    char problem[200] = "";
    int remap_barrier = 0;
    if (!fftw)
        snprintf(problem, sizeof problem, "precision %d (accepted: NODESHM_FFT_DOUBLE, "
                 "NODESHM_FFT_SINGLE)", (int)precision);
    else if (!plan)
        snprintf(problem, sizeof problem, "a NULL plan pointer");
    else if (!remap_barrier_setting(&remap_barrier))
        snprintf(problem, sizeof problem, "NODESHM_FFT_REMAP_BARRIER=%.40s (accepted: 0, 1)",
                 nodeshm_getenv("NODESHM_FFT_REMAP_BARRIER"));
    else if (grid && (grid[0] < 1 || grid[1] < 1 || grid[0] * grid[1] != nranks))
        snprintf(problem, sizeof problem, "pencil grid %dx%d (accepted: P x Q = %d ranks)",
                 grid[0], grid[1], nranks);
    if (plan) *plan = NULL;
    if (nsf_agree(comm, call, problem[0] ? problem : NULL)) return MPI_ERR_ARG;
    nodeshm_fft_plan_t p = calloc(1, sizeof *p);
    if (!p) return MPI_ERR_NO_MEM;
    p->fftw = fftw;
    p->strategy = strategy;
    p->remap_barrier = remap_barrier;
    int size, rank;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_dup(comm, &p->comm);
    /* The pencils are made from n; an n that is bad (or differs between ranks) is reported by
     * the first remap's checks, which see every rank's arguments. */
    int n_ok[3] = {1, 1, 1};
    if (n)
        for (int d = 0; d < 3; d++) n_ok[d] = n[d] > 0 ? n[d] : 1;
    memcpy(p->n, n_ok, sizeof p->n);
    if (grid) memcpy(p->grid, grid, sizeof p->grid);
    else nodeshm_fft_pencil_grid(size, p->n, p->grid);
    for (int axis = 0; axis < 3; axis++)
        nodeshm_fft_pencil_brick(p->n, p->grid, rank, axis, &p->pencil[axis]);
    if (in) p->in = *in;
    if (out) p->out = *out;
    /* Checks n, the bricks and the strategy on every rank (same verdict everywhere). */
    int rc = nsf_remap_check(call, comm, n, in, out, fftw->elem_bytes, &p->strategy);
    for (int axis = 0; axis < 3 && rc == MPI_SUCCESS; axis++) {
        p->work[axis] = nsf_alloc(nodeshm_fft_brick_size(&p->pencil[axis]) * fftw->elem_bytes);
        if (!same_everywhere(comm, p->work[axis] != NULL)) rc = MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS) rc = make_remaps(p, fftw->elem_bytes);
    if (rc == MPI_SUCCESS && !same_everywhere(comm, make_fftw_plans_in_turn(p) == MPI_SUCCESS))
        rc = MPI_ERR_OTHER;
    if (rc != MPI_SUCCESS) {
        nodeshm_fft_destroy(&p);
        return rc;
    }
    *plan = p;
    return MPI_SUCCESS;
}

int nodeshm_fft_plan_create(MPI_Comm comm, const int n[3], const nodeshm_fft_brick_t *in,
                            const nodeshm_fft_brick_t *out, nodeshm_fft_precision_t precision,
                            nodeshm_remap_strategy_t strategy, nodeshm_fft_plan_t *plan)
{
    return plan_create("nodeshm_fft_plan_create", comm, n, NULL, in, out, precision, strategy, plan);
}

int nodeshm_fft_plan_create_on_grid(MPI_Comm comm, const int n[3], const int grid[2],
                                    const nodeshm_fft_brick_t *in, const nodeshm_fft_brick_t *out,
                                    nodeshm_fft_precision_t precision,
                                    nodeshm_remap_strategy_t strategy, nodeshm_fft_plan_t *plan)
{
    return plan_create("nodeshm_fft_plan_create_on_grid", comm, n, grid, in, out, precision,
                       strategy, plan);
}

/* One segment's transform, in place in buf. */
static void fft_segment(nodeshm_fft_plan_t p, int dir, int k0, void *buf)
{
    void *aligned = p->plan[dir][k0][0];
    if (!aligned) return; /* an empty pencil */
    p->fftw->execute(p->fftw->alignment_of(buf) == 0 ? aligned : p->plan[dir][k0][1], buf, buf);
}

/* Time in remaps.  With remap_barrier every remap starts from a barrier, outside its time:
 * then it is the remap's own cost.  Without, a rank's remap time also holds its wait for peers
 * still in their FFT stage, which with more ranks than cores is most of it (4-8 ranks on 2
 * cores: 600 of 750 us per 64^3 remap) and the same for every strategy. */
static int remap_timed(nodeshm_fft_plan_t p, nodeshm_remap_t r, const void *src, void *dst)
{
    if (p->remap_barrier) MPI_Barrier(p->comm);
    double t = MPI_Wtime();
    int rc = nodeshm_remap_execute(r, src, dst);
    p->remap_seconds += MPI_Wtime() - t;
    return rc;
}

static int transform(nodeshm_fft_plan_t p, int dir, const void *in, void *out, const char *call)
{
    if (!p) nsf_fatal(MPI_COMM_WORLD, call, "a NULL plan");
    const nodeshm_fft_brick_t *from = dir == FORWARD ? &p->in : &p->out;
    const nodeshm_fft_brick_t *to = dir == FORWARD ? &p->out : &p->in;
    if ((!in && nodeshm_fft_brick_size(from)) || (!out && nodeshm_fft_brick_size(to))) {
        int rank;
        MPI_Comm_rank(p->comm, &rank);
        nsf_fatal(p->comm, call, "rank %d: a NULL %s array for a brick of %zu points", rank,
                  !in ? "input" : "output", nodeshm_fft_brick_size(!in ? from : to));
    }
    double t0 = MPI_Wtime();
    nodeshm_remap_t *r = p->remap[dir];
    int rc = MPI_SUCCESS;
    const void *cur = in; /* where the data is */
    for (int k = 0; k < 3 && rc == MPI_SUCCESS; k = p->segment_end[dir][k]) {
        int next = p->segment_end[dir][k];
        void *work = p->work[axes[dir][k]];
        size_t bytes = nodeshm_fft_brick_size(&p->pencil[axes[dir][k]]) * p->fftw->elem_bytes;
        /* Where this segment leaves its result: what the next remap reads, or the output. */
        void *dst = r[next] ? nodeshm_remap_source(r[next]) : out;
        if (reads_user_input(p, dir, k)) { /* copied first: the input stays as it was */
            if (dst != cur) memcpy(dst, cur, bytes);
            fft_segment(p, dir, k, dst);
        } else if (dst != cur) {
            rc = remap_timed(p, r[k], cur, dst);
            if (rc == MPI_SUCCESS) fft_segment(p, dir, k, dst);
        } else { /* in == out with one remap in all: the remap does not run in place */
            rc = remap_timed(p, r[k], cur, work);
            if (rc == MPI_SUCCESS) fft_segment(p, dir, k, work);
            memcpy(dst, work, bytes);
        }
        cur = dst;
    }
    if (rc == MPI_SUCCESS && r[3]) rc = remap_timed(p, r[3], cur, out);
    p->seconds += MPI_Wtime() - t0;
    p->transforms++;
    return rc;
}

int nodeshm_fft_forward(nodeshm_fft_plan_t p, const void *in, void *out)
{
    return transform(p, FORWARD, in, out, "nodeshm_fft_forward");
}

int nodeshm_fft_backward(nodeshm_fft_plan_t p, const void *in, void *out)
{
    return transform(p, BACKWARD, in, out, "nodeshm_fft_backward");
}

int nodeshm_fft_destroy(nodeshm_fft_plan_t *plan)
{
    if (!plan || !*plan) return MPI_SUCCESS;
    nodeshm_fft_plan_t p = *plan;
    for (int dir = 0; dir < 2; dir++)
        for (int k = 0; k < 4; k++) nodeshm_remap_destroy(&p->remap[dir][k]);
    for (int dir = 0; dir < 2; dir++)
        for (int k = 0; k < 3; k++)
            for (int u = 0; u < 2; u++)
                if (p->plan[dir][k][u]) p->fftw->destroy(p->plan[dir][k][u]);
    for (int axis = 0; axis < 3; axis++) free(p->work[axis]);
    if (p->comm != MPI_COMM_NULL && p->comm) MPI_Comm_free(&p->comm);
    free(p);
    *plan = NULL;
    return MPI_SUCCESS;
}

int nodeshm_fft_plan_info(nodeshm_fft_plan_t p, nodeshm_fft_info_t *info)
{
    if (!p || !info) return MPI_ERR_ARG;
    info->strategy = p->strategy;
    info->grid[0] = p->grid[0];
    info->grid[1] = p->grid[1];
    info->remaps = info->remaps_between_nodes = info->remaps_aggregated = 0;
    for (int k = 0; k < 4; k++) {
        const struct nodeshm_remap *r = p->remap[FORWARD][k];
        info->remaps += r != NULL;
        info->remaps_between_nodes += r && r->between_nodes;
        info->remaps_aggregated += r && r->aggregated;
    }
    info->transforms = p->transforms;
    info->seconds = p->seconds;
    info->remap_seconds = p->remap_seconds;
    return MPI_SUCCESS;
}
