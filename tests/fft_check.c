/* nodeshm-fft: values of distributed 3D FFTs against a serial FFTW transform of the whole grid,
 * round trips, and every remap strategy bitwise equal to every other, on fresh random data.
 *
 * For each grid (powers of two, odd and prime sizes, a degenerate 1xNxN, more ranks than
 * planes), each layout (the plan's own pencils; 2D pencils on a given P x Q grid; 3D bricks; uneven random slabs with some empty
 * and permuted memory orders; in-place), each precision and each strategy: forward, compared
 * with the serial transform (max error relative to the largest value: < 1e-12 double, < 1e-5
 * single), backward, compared with the input times the grid size; and strategy k's outputs
 * memcmp'd with strategy 0's.  The shmem-* strategies need OpenSHMEM: it runs after MPI_Init.  Usage: fft_check [grid AxBxC ...]; prints "fft_check: PASS".
 * FFT_CHECK_STRATEGIES=name,name,... runs only those beside mpi-p2p (the reference).  Between
 * nodes the node strategy's remaps must say they moved blocks between nodes (some of them, in
 * the pencil layouts), and with NODESHM_FFT_NODE_AGGREGATE=on every such remap must be
 * aggregated per pair of nodes, with =off none. */
#include "nodeshm_fft.h"

#include <fftw3.h>
#include <shmem.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi_check.h"

#define rank wrank
static int nprocs;

/* The input value at global point g (x-fastest index), component c: in [-1, 1). */
static double value(uint64_t case_seed, size_t g, int c)
{
    return (double)(mix(case_seed ^ (g * 2 + (size_t)c)) >> 11) * 0x1p-52 - 1.0;
}

/* Element (x,y,z) of a brick's array. */
static size_t brick_index(const nodeshm_fft_brick_t *b, const int i[3])
{
    size_t off = 0, stride = 1;
    for (int k = 0; k < 3; k++) {
        int d = b->order[k];
        off += (size_t)(i[d] - b->lo[d]) * stride;
        stride *= (size_t)(b->hi[d] - b->lo[d]);
    }
    return off;
}

#define FOR_BRICK(b, i)                                                                            \
    for (i[2] = (b)->lo[2]; i[2] < (b)->hi[2]; i[2]++)                                             \
        for (i[1] = (b)->lo[1]; i[1] < (b)->hi[1]; i[1]++)                                         \
            for (i[0] = (b)->lo[0]; i[0] < (b)->hi[0]; i[0]++)

static size_t global_index(const int n[3], const int i[3])
{
    return (size_t)i[0] + (size_t)n[0] * ((size_t)i[1] + (size_t)n[1] * (size_t)i[2]);
}

/* ---- layouts: this rank's in and out bricks */
enum { LAYOUT_PENCIL, LAYOUT_PENCIL2D, LAYOUT_BRICK, LAYOUT_SLABS, LAYOUT_INPLACE, N_LAYOUTS };
static const char *layout_names[] = {"pencil", "pencil2d", "brick", "slabs", "inplace"};

/* The pencil grid a case plans on: the plan's own choice (NULL), or for pencil2d the squarest
 * P x Q with P >= Q (2x2 at 4 ranks, 3x2 at 6, 4x2 at 8, P x 1 at a prime P), which the plan's
 * choice only takes where slabs leave ranks without a plane: every remap of a 2D pencil
 * decomposition then runs on every grid, not just on the degenerate ones. */
static const int *layout_grid(int layout, int grid[2])
{
    if (layout != LAYOUT_PENCIL2D) return NULL;
    int dims[2] = {0, 0};
    MPI_Dims_create(nprocs, 2, dims);
    grid[0] = dims[0];
    grid[1] = dims[1];
    return grid;
}

static void split(int N, int parts, int k, int *lo, int *hi)
{
    *lo = (int)((long long)k * N / parts);
    *hi = (int)((long long)(k + 1) * N / parts);
}

/* A 3D grid of bricks, x fastest in memory. */
static void brick3d(const int n[3], nodeshm_fft_brick_t *b)
{
    int p[3] = {1, 1, nprocs};
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(nprocs, 3, dims);
    for (int d = 0; d < 3; d++) p[d] = dims[2 - d];
    int c[3] = {rank % p[0], (rank / p[0]) % p[1], rank / (p[0] * p[1])};
    for (int d = 0; d < 3; d++) {
        split(n[d], p[d], c[d], &b->lo[d], &b->hi[d]);
        b->order[d] = d;
    }
}

/* Uneven slabs along `axis` with random cuts (some slabs empty), memory order `order`. */
static void slabs(const int n[3], int axis, const int order[3], uint64_t s, nodeshm_fft_brick_t *b)
{
    int *cut = malloc(sizeof(int) * (size_t)(nprocs + 1));
    cut[0] = 0;
    cut[nprocs] = n[axis];
    for (int k = 1; k < nprocs; k++) cut[k] = (int)(mix(s + (uint64_t)k) % (uint64_t)(n[axis] + 1));
    for (int k = 1; k < nprocs; k++) /* sort the inner cuts */
        for (int j = k; j > 1 && cut[j - 1] > cut[j]; j--) {
            int t = cut[j];
            cut[j] = cut[j - 1];
            cut[j - 1] = t;
        }
    for (int d = 0; d < 3; d++) {
        b->lo[d] = 0;
        b->hi[d] = n[d];
        b->order[d] = order[d];
    }
    b->lo[axis] = cut[rank];
    b->hi[axis] = cut[rank + 1];
    free(cut);
}

static void make_layout(int layout, const int n[3], uint64_t s, nodeshm_fft_brick_t *in,
                        nodeshm_fft_brick_t *out)
{
    int grid[2];
    if (!layout_grid(layout, grid)) nodeshm_fft_pencil_grid(nprocs, n, grid);
    switch (layout) {
    case LAYOUT_PENCIL:
    case LAYOUT_PENCIL2D:
    case LAYOUT_INPLACE:
        nodeshm_fft_pencil_brick(n, grid, rank, 0, in);
        nodeshm_fft_pencil_brick(n, grid, rank, 2, out);
        break;
    case LAYOUT_BRICK:
        brick3d(n, in);
        *out = *in;
        break;
    default: {
        static const int o1[3] = {2, 0, 1}, o2[3] = {1, 2, 0};
        slabs(n, 2, o1, s, in);
        slabs(n, 0, o2, s * 7 + 1, out);
    }
    }
}

/* ---- one case */
typedef struct {
    int n[3];
    size_t es;
    double tol;
    nodeshm_fft_precision_t prec;
} problem_t;

/* Compares complex values a (in precision) with reference r (double): max |a - r|. */
static double max_diff(const problem_t *pb, const void *a, const double *r, size_t count, double scale)
{
    double m = 0;
    for (size_t k = 0; k < 2 * count; k++) {
        double v = pb->prec == NODESHM_FFT_DOUBLE ? ((const double *)a)[k] : ((const float *)a)[k];
        double d = fabs(v - r[k] * scale);
        if (d > m || isnan(d)) m = isnan(d) ? INFINITY : d;
    }
    return m;
}

static void put(const problem_t *pb, void *a, size_t k, double re, double im)
{
    if (pb->prec == NODESHM_FFT_DOUBLE) {
        ((double *)a)[2 * k] = re;
        ((double *)a)[2 * k + 1] = im;
    } else {
        ((float *)a)[2 * k] = (float)re;
        ((float *)a)[2 * k + 1] = (float)im;
    }
}

/* The serial transform of the whole grid (every rank computes it: grids here are small). */
static double *reference(const problem_t *pb, uint64_t cs, double *peak)
{
    size_t N = (size_t)pb->n[0] * pb->n[1] * pb->n[2];
    fftw_complex *a = fftw_malloc(sizeof *a * N);
    for (size_t g = 0; g < N; g++) {
        /* single precision gets the rounded inputs, so only the transform's error counts */
        double re = value(cs, g, 0), im = value(cs, g, 1);
        if (pb->prec == NODESHM_FFT_SINGLE) re = (float)re, im = (float)im;
        a[g][0] = re;
        a[g][1] = im;
    }
    fftw_plan p = fftw_plan_dft_3d(pb->n[2], pb->n[1], pb->n[0], a, a, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_destroy_plan(p);
    *peak = 0;
    for (size_t g = 0; g < N; g++) *peak = fmax(*peak, hypot(a[g][0], a[g][1]));
    return (double *)a;
}

/* Whether strategy s runs (FFT_CHECK_STRATEGIES). */
static int wanted(int s)
{
    const char *list = getenv("FFT_CHECK_STRATEGIES"), *name = nodeshm_remap_strategy_name(s);
    if (!list || !*list || s == NODESHM_REMAP_MPI_P2P) return 1;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
    return 0;
}

/* The node strategy's remaps between nodes, and those aggregated, over all cases. */
static long node_between, node_aggregated, node_remaps;

static void check_node_paths(const nodeshm_fft_info_t *info, int s, int layout, const char *what)
{
    const char *agg = getenv("NODESHM_FFT_NODE_AGGREGATE");
    CHECK(info->remaps_aggregated <= info->remaps_between_nodes &&
          info->remaps_between_nodes <= info->remaps, "%s: %d of %d remaps between nodes, %d "
          "aggregated", what, info->remaps_between_nodes, info->remaps, info->remaps_aggregated);
    if (s != NODESHM_REMAP_NODE) {
        CHECK(info->remaps_between_nodes == 0 && info->remaps_aggregated == 0, "%s: not the node "
              "strategy, yet %d remaps between nodes, %d aggregated", what,
              info->remaps_between_nodes, info->remaps_aggregated);
        return;
    }
    if (agg && !strcmp(agg, "on"))
        CHECK(info->remaps_aggregated == info->remaps_between_nodes, "%s: "
              "NODESHM_FFT_NODE_AGGREGATE=on, yet %d of %d remaps between nodes aggregated", what,
              info->remaps_aggregated, info->remaps_between_nodes);
    if (agg && !strcmp(agg, "off"))
        CHECK(info->remaps_aggregated == 0, "%s: NODESHM_FFT_NODE_AGGREGATE=off, yet %d remaps "
              "aggregated", what, info->remaps_aggregated);
    if (layout == LAYOUT_PENCIL || layout == LAYOUT_PENCIL2D) {
        node_between += info->remaps_between_nodes;
        node_aggregated += info->remaps_aggregated;
        node_remaps += info->remaps;
    }
}

static void run_case(const problem_t *pb, int layout, uint64_t cs)
{
    nodeshm_fft_brick_t in, out;
    make_layout(layout, pb->n, cs, &in, &out);
    size_t nin = nodeshm_fft_brick_size(&in), nout = nodeshm_fft_brick_size(&out);
    size_t cap = nin > nout ? nin : nout;
    double peak;
    double *ref = reference(pb, cs, &peak);
    /* my parts of the input and of the reference, in my bricks' layouts */
    double *ref_out = malloc(sizeof(double) * 2 * (nout + 1));
    double *orig = malloc(sizeof(double) * 2 * (nin + 1));
    int i[3];
    FOR_BRICK(&in, i) {
        size_t k = brick_index(&in, i), g = global_index(pb->n, i);
        orig[2 * k] = value(cs, g, 0);
        orig[2 * k + 1] = value(cs, g, 1);
        if (pb->prec == NODESHM_FFT_SINGLE) orig[2 * k] = (float)orig[2 * k], orig[2 * k + 1] = (float)orig[2 * k + 1];
    }
    FOR_BRICK(&out, i) {
        size_t k = brick_index(&out, i), g = global_index(pb->n, i);
        ref_out[2 * k] = ref[2 * g];
        ref_out[2 * k + 1] = ref[2 * g + 1];
    }
    fftw_free(ref);
    double N = (double)pb->n[0] * pb->n[1] * pb->n[2];
    void *first_fwd = malloc(pb->es * (nout + 1)), *first_bwd = malloc(pb->es * (nin + 1));
    char *a = malloc(pb->es * (cap + 1)), *b = malloc(pb->es * (cap + 1));
    for (int s = NODESHM_REMAP_MPI_P2P; s < NODESHM_REMAP_N_STRATEGIES; s++) {
        if (!wanted(s)) continue;
        const char *sname = nodeshm_remap_strategy_name((nodeshm_remap_strategy_t)s);
        nodeshm_fft_plan_t plan;
        int grid[2];
        const int *on = layout_grid(layout, grid);
        int rc = on ? nodeshm_fft_plan_create_on_grid(MPI_COMM_WORLD, pb->n, on, &in, &out,
                                                      pb->prec, (nodeshm_remap_strategy_t)s, &plan)
                    : nodeshm_fft_plan_create(MPI_COMM_WORLD, pb->n, &in, &out, pb->prec,
                                              (nodeshm_remap_strategy_t)s, &plan);
        CHECK(rc == 0, "plan_create: %d (%s)", rc, sname);
        if (rc) continue;
        for (size_t k = 0; k < nin; k++) put(pb, a, k, orig[2 * k], orig[2 * k + 1]);
        char *fwd_out = layout == LAYOUT_INPLACE ? a : b;
        rc = nodeshm_fft_forward(plan, a, fwd_out);
        CHECK(rc == 0, "forward: %d", rc);
        double err = max_diff(pb, fwd_out, ref_out, nout, 1.0) / (peak > 0 ? peak : 1);
        CHECK(err < pb->tol, "%dx%dx%d %s %s %s forward: relative error %.3g (tolerance %.1g)",
              pb->n[0], pb->n[1], pb->n[2], layout_names[layout], sname,
              pb->prec ? "single" : "double", err, pb->tol);
        if (s == NODESHM_REMAP_MPI_P2P) memcpy(first_fwd, fwd_out, pb->es * nout);
        else
            CHECK(!memcmp(first_fwd, fwd_out, pb->es * nout), "%dx%dx%d %s: %s forward output "
                  "differs bitwise from mpi-p2p's", pb->n[0], pb->n[1], pb->n[2],
                  layout_names[layout], sname);
        char *bwd_out = layout == LAYOUT_INPLACE ? fwd_out : a;
        rc = nodeshm_fft_backward(plan, fwd_out, bwd_out);
        CHECK(rc == 0, "backward: %d", rc);
        err = max_diff(pb, bwd_out, orig, nin, N) / N;
        CHECK(err < pb->tol, "%dx%dx%d %s %s %s round trip: relative error %.3g", pb->n[0],
              pb->n[1], pb->n[2], layout_names[layout], sname, pb->prec ? "single" : "double", err);
        if (s == NODESHM_REMAP_MPI_P2P) memcpy(first_bwd, bwd_out, pb->es * nin);
        else
            CHECK(!memcmp(first_bwd, bwd_out, pb->es * nin), "%dx%dx%d %s: %s backward output "
                  "differs bitwise from mpi-p2p's", pb->n[0], pb->n[1], pb->n[2],
                  layout_names[layout], sname);
        nodeshm_fft_info_t info;
        nodeshm_fft_plan_info(plan, &info);
        if (getenv("FFT_CHECK_VERBOSE"))
            fprintf(stderr, "rank %d: %dx%dx%d %s %s: %.4f s, remaps %.4f s\n", rank, pb->n[0],
                    pb->n[1], pb->n[2], layout_names[layout], sname, info.seconds, info.remap_seconds);
        CHECK((int)info.strategy == s && info.transforms == 2, "info: strategy %d transforms %ld",
              (int)info.strategy, info.transforms);
        char what[160];
        snprintf(what, sizeof what, "%dx%dx%d %s %s %s", pb->n[0], pb->n[1], pb->n[2],
                 layout_names[layout], sname, pb->prec ? "single" : "double");
        check_node_paths(&info, s, layout, what);
        if (on) CHECK(info.grid[0] == on[0] && info.grid[1] == on[1], "info: grid %dx%d, planned "
                      "on %dx%d", info.grid[0], info.grid[1], on[0], on[1]);
        nodeshm_fft_destroy(&plan);
        CHECK(plan == NULL, "destroy left the plan");
    }
    free(first_fwd), free(first_bwd), free(a), free(b), free(orig), free(ref_out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    shmem_init(); /* for the shmem-* strategies: MPI and OpenSHMEM in one program */
    mpi_check_seed();
    if (rank == 0) {
        printf("seed %llu (replay with NODESHM_TEST_SEED=%llu)\n", (unsigned long long)seed,
               (unsigned long long)seed);
        fflush(stdout);
    }
    /* powers of two; odd and prime; degenerate; more ranks than planes (4 z planes, 3 y) */
    int grids[][3] = {{16, 16, 16}, {45, 36, 25}, {17, 19, 23}, {1, 12, 10}, {8, 3, 4}};
    int ngrids = (int)(sizeof grids / sizeof grids[0]);
    if (argc > 1) {
        ngrids = 0;
        for (int k = 1; k < argc && ngrids < 5; k++)
            if (sscanf(argv[k], "%dx%dx%d", &grids[ngrids][0], &grids[ngrids][1], &grids[ngrids][2]) == 3)
                ngrids++;
    }
    long cases = 0;
    for (int g = 0; g < ngrids; g++)
        for (int prec = 0; prec < 2; prec++)
            for (int layout = 0; layout < N_LAYOUTS; layout++) {
                problem_t pb = {.prec = (nodeshm_fft_precision_t)prec,
                                .es = prec ? 2 * sizeof(float) : 2 * sizeof(double),
                                .tol = prec ? 1e-5 : 1e-12};
                memcpy(pb.n, grids[g], sizeof pb.n);
                run_case(&pb, layout, mix(seed + (uint64_t)(g * 100 + prec * 10 + layout)));
                cases++;
            }
    /* several nodes (pseudo-nodes or hosts): the node strategy's pencil remaps crossed them */
    int several = shmem_team_n_pes(SHMEM_TEAM_SHARED) < nprocs;
    MPI_Allreduce(MPI_IN_PLACE, &several, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (wanted(NODESHM_REMAP_NODE)) {
        CHECK(several ? node_between > 0 : node_between == 0, "%s nodes, yet %ld of the node "
              "strategy's %ld pencil remaps moved blocks between nodes", several ? "several" :
              "one node", node_between, node_remaps);
        if (rank == 0 && several)
            printf("fft_check: node strategy, pencil layouts: %ld of %ld remaps between nodes, %ld "
                   "of them aggregated per pair of nodes\n", node_between, node_remaps,
                   node_aggregated);
    }
    int nwanted = 0;
    for (int s = NODESHM_REMAP_MPI_P2P; s < NODESHM_REMAP_N_STRATEGIES; s++) nwanted += wanted(s);
    long tot[2] = {failures, checks}, sum[2] = {0, 0};
    MPI_Reduce(tot, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("fft_check: %d ranks, %ld cases x %d strategies, %ld checks, %ld failed\n", nprocs,
               cases, nwanted, sum[1], sum[0]);
        printf("fft_check: %s\n", sum[0] ? "FAIL" : "PASS");
    }
    shmem_finalize();
    MPI_Finalize();
    return sum[0] && rank == 0 ? 1 : 0;
}
