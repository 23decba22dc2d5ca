/* libnodeshm_mpi: every intercepted collective through its plain entry (MPI_Bcast) and, where the
 * MPI library has it, its MPI-4 large-count entry (MPI_Bcast_c), on fresh random data, compared
 * with the MPI library's own call (PMPI_*), and each op's counter (nodeshm_mpi_accelerated_op)
 * checked to move by exactly the calls the interposer must have run: all of them where the test's
 * environment puts every op in its window (tests/mpi_bigcount.cmake), on more than one rank,
 * gatherv and scatterv only on one node.  So an entry that went to the MPI library instead (a
 * missing MPI_<Op>_c, say) fails here.  Also through the large-count entries: counts a call
 * ignores that do not fit an int (a non-root's recvcount of Gather), displacements that do not
 * (MPI_BOTTOM with absolute addresses: rebased), and MPI_Alltoallv_c where one rank's
 * displacements span more than an int, which the interposer runs with its wide arrays as they are.
 *
 *   mpi_bigcount [--expect-none]    (--expect-none: the interposer is off, no counter moves)
 *   mpi_bigcount --far-gatherv      (a call the interposer cannot run nor hand over alone) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nsm_bigcount_config.h" /* NSM_HAVE_MPI_<OP>_C: the MPI_<Op>_c this MPI has */

#include <dlfcn.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int size, n_nodes, expect_none;
#include "mpi_check.h"
#define rank wrank
static uint64_t shared_ctr, own_ctr;

/* the same on every rank (counts, roots) / this rank's own (data) */
static uint64_t shared_rnd(void) { return mix(seed ^ mix(++shared_ctr)); }
static int own_rnd(void) { return (int)(mix(seed ^ ((uint64_t)rank << 40) ^ mix(++own_ctr)) % 2000001) - 1000000; }
static int *fresh(size_t n)
{
    int *p = malloc(sizeof(int) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) p[i] = own_rnd();
    return p;
}
static int *zeros(size_t n) { return calloc(n ? n : 1, sizeof(int)); }

static long (*acc_op)(const char *), (*acc_all)(void);
static long acc(const char *op) { return acc_op ? acc_op(op) : 0; }
static long acc_total(void) { return acc_all ? acc_all() : 0; }

#define CALLS 12 /* per op and entry */
static int hosts;          /* comm_hosts(MPI_COMM_WORLD) */
static long library_calls; /* of the current run's: the MPI library's by design (library_alltoall) */

/* Runs the op `op` CALLS times through one entry (wide: the _c one), each call compared with the
 * MPI library's; then checks its counter. */
static void run(const char *op, int wide, int expected_here, void (*one)(int wide, int i))
{
    long before = acc(op), before_all = acc_total();
    library_calls = 0;
    for (int i = 0; i < CALLS; i++) one(wide, i);
    long moved = acc(op) - before;
    long want = expect_none || size == 1 || !expected_here ? 0 : CALLS - library_calls;
    CHECK(moved == want, "%s%s: %ld of %d calls accelerated, expected %ld", op, wide ? " (_c)" : "", moved,
          CALLS, want);
    /* and counted as this op, not another (the reference calls go to PMPI: never counted) */
    CHECK(acc_total() - before_all == want, "%s%s: all ops' counters moved by %ld, expected %ld", op,
          wide ? " (_c)" : "", acc_total() - before_all, want);
}

static int count_now(void) { return 1 + (int)(shared_rnd() % 200); }

#define SAME(a, b, n, what) CHECK(!memcmp((a), (b), sizeof(int) * (size_t)(n)), "%s call %d: result differs", what, i)

/* ---- one call of each op, through the plain or the large-count entry */

static void one_bcast(int wide, int i)
{
    int n = count_now(), root = i % size;
    int *buf = fresh((size_t)n), *ref = malloc(sizeof(int) * (size_t)n);
    memcpy(ref, buf, sizeof(int) * (size_t)n);
    int rc = MPI_SUCCESS;
    if (!wide) rc = MPI_Bcast(buf, n, MPI_INT, root, MPI_COMM_WORLD);
#ifdef NSM_HAVE_MPI_BCAST_C
    else rc = MPI_Bcast_c(buf, (MPI_Count)n, MPI_INT, root, MPI_COMM_WORLD);
#endif
    PMPI_Bcast(ref, n, MPI_INT, root, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "bcast rc %d", rc);
    SAME(buf, ref, n, "bcast");
    free(buf), free(ref);
}

static void one_gather(int wide, int i)
{
    int n = count_now(), root = i % size;
    int *s = fresh((size_t)n), *r = zeros((size_t)n * size), *ref = zeros((size_t)n * size);
    int rc = MPI_SUCCESS;
    if (!wide) rc = MPI_Gather(s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
#ifdef NSM_HAVE_MPI_GATHER_C
    /* a non-root's recvcount is ignored: one that does not fit an int must not matter */
    else rc = MPI_Gather_c(s, n, MPI_INT, r, rank == root ? (MPI_Count)n : (MPI_Count)1 << 40, MPI_INT, root,
                           MPI_COMM_WORLD);
#endif
    PMPI_Gather(s, n, MPI_INT, ref, n, MPI_INT, root, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "gather rc %d", rc);
    if (rank == root) SAME(r, ref, n * size, "gather");
    free(s), free(r), free(ref);
}

static void one_scatter(int wide, int i)
{
    int n = count_now(), root = i % size;
    int *s = fresh((size_t)n * size), *r = zeros((size_t)n), *ref = zeros((size_t)n);
    int rc = MPI_SUCCESS;
    if (!wide) rc = MPI_Scatter(s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
#ifdef NSM_HAVE_MPI_SCATTER_C
    else rc = MPI_Scatter_c(s, rank == root ? (MPI_Count)n : (MPI_Count)1 << 40, MPI_INT, r, n, MPI_INT, root,
                            MPI_COMM_WORLD);
#endif
    PMPI_Scatter(s, n, MPI_INT, ref, n, MPI_INT, root, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "scatter rc %d", rc);
    SAME(r, ref, n, "scatter");
    free(s), free(r), free(ref);
}

static void one_allgather(int wide, int i)
{
    int n = count_now();
    int *s = fresh((size_t)n), *r = zeros((size_t)n * size), *ref = zeros((size_t)n * size);
    int rc = MPI_SUCCESS;
    if (!wide) rc = MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
#ifdef NSM_HAVE_MPI_ALLGATHER_C
    else rc = MPI_Allgather_c(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
#endif
    PMPI_Allgather(s, n, MPI_INT, ref, n, MPI_INT, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "allgather rc %d", rc);
    SAME(r, ref, n * size, "allgather");
    free(s), free(r), free(ref);
}

static void one_alltoall(int wide, int i)
{
    int n = count_now() / 4 + 1;
    int *s = fresh((size_t)n * size), *r = zeros((size_t)n * size), *ref = zeros((size_t)n * size);
    int rc = MPI_SUCCESS;
    library_calls += library_alltoall(size, hosts, (size_t)n * sizeof(int));
    if (!wide) rc = MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
#ifdef NSM_HAVE_MPI_ALLTOALL_C
    else rc = MPI_Alltoall_c(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
#endif
    PMPI_Alltoall(s, n, MPI_INT, ref, n, MPI_INT, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "alltoall rc %d", rc);
    SAME(r, ref, n * size, "alltoall");
    free(s), free(r), free(ref);
}

static MPI_Op pick_op(int i) { return i % 3 == 0 ? MPI_SUM : i % 3 == 1 ? MPI_MAX : MPI_MIN; }

static void one_reduce(int wide, int i)
{
    int n = count_now(), root = i % size;
    int *s = fresh((size_t)n), *r = zeros((size_t)n), *ref = zeros((size_t)n);
    int rc = MPI_SUCCESS;
    if (!wide) rc = MPI_Reduce(s, r, n, MPI_INT, pick_op(i), root, MPI_COMM_WORLD);
#ifdef NSM_HAVE_MPI_REDUCE_C
    else rc = MPI_Reduce_c(s, r, n, MPI_INT, pick_op(i), root, MPI_COMM_WORLD);
#endif
    PMPI_Reduce(s, ref, n, MPI_INT, pick_op(i), root, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "reduce rc %d", rc);
    if (rank == root) SAME(r, ref, n, "reduce");
    free(s), free(r), free(ref);
}

static void one_allreduce(int wide, int i)
{
    int n = count_now();
    int *s = fresh((size_t)n), *r = zeros((size_t)n), *ref = zeros((size_t)n);
    int in_place = i % 4 == 3, rc = MPI_SUCCESS;
    if (in_place) memcpy(r, s, sizeof(int) * (size_t)n);
    if (!wide) rc = MPI_Allreduce(in_place ? MPI_IN_PLACE : s, r, n, MPI_INT, pick_op(i), MPI_COMM_WORLD);
#ifdef NSM_HAVE_MPI_ALLREDUCE_C
    else rc = MPI_Allreduce_c(in_place ? MPI_IN_PLACE : s, r, n, MPI_INT, pick_op(i), MPI_COMM_WORLD);
#endif
    PMPI_Allreduce(s, ref, n, MPI_INT, pick_op(i), MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "allreduce rc %d", rc);
    SAME(r, ref, n, "allreduce");
    free(s), free(r), free(ref);
}

static void one_reduce_scatter_block(int wide, int i)
{
    int n = count_now() / 4 + 1;
    int *s = fresh((size_t)n * size), *r = zeros((size_t)n), *ref = zeros((size_t)n);
    int rc = MPI_SUCCESS;
    if (!wide) rc = MPI_Reduce_scatter_block(s, r, n, MPI_INT, pick_op(i), MPI_COMM_WORLD);
#ifdef NSM_HAVE_MPI_REDUCE_SCATTER_BLOCK_C
    else rc = MPI_Reduce_scatter_block_c(s, r, n, MPI_INT, pick_op(i), MPI_COMM_WORLD);
#endif
    PMPI_Reduce_scatter_block(s, ref, n, MPI_INT, pick_op(i), MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "reduce_scatter_block rc %d", rc);
    SAME(r, ref, n, "reduce_scatter_block");
    free(s), free(r), free(ref);
}

/* v-forms: random block sizes (the same on every rank), blocks laid out in reverse rank order
 * with gaps, so displacements matter; every other large-count call addresses the blocks by
 * absolute address from MPI_BOTTOM (displacements far beyond an int: the interposer rebases). */
typedef struct vlayout {
    int counts[64], displs[64], total;
} vlayout_t;

static vlayout_t layout(void)
{
    vlayout_t v = {.total = 0};
    for (int r = size - 1; r >= 0; r--) {
        v.counts[r] = (int)(shared_rnd() % 120) + (r % 3 == 1 ? 0 : 1); /* some empty blocks */
        v.displs[r] = v.total + 1;
        v.total += v.counts[r] + 1;
    }
    return v;
}

static void __attribute__((unused)) wide_arrays(const vlayout_t *v, const void *base, int absolute, MPI_Count *c, MPI_Aint *d)
{
    for (int r = 0; r < size; r++) {
        c[r] = v->counts[r];
        d[r] = absolute ? (MPI_Aint)((uintptr_t)base + sizeof(int) * (size_t)v->displs[r]) : v->displs[r];
    }
}

static void one_gatherv(int wide, int i)
{
    int root = i % size;
    vlayout_t v = layout();
    int n = v.counts[rank];
    int *s = fresh((size_t)n), *r = zeros((size_t)v.total), *ref = zeros((size_t)v.total);
    int rc = MPI_SUCCESS;
    if (!wide) rc = MPI_Gatherv(s, n, MPI_INT, r, v.counts, v.displs, MPI_INT, root, MPI_COMM_WORLD);
#ifdef NSM_HAVE_MPI_GATHERV_C
    else {
        MPI_Count c[64];
        MPI_Aint d[64];
        int absolute = i % 2;
        wide_arrays(&v, r, absolute, c, d);
        if (absolute) /* byte displacements from MPI_BOTTOM */
            for (int k = 0; k < size; k++) c[k] *= (MPI_Count)sizeof(int);
        MPI_Datatype t = absolute ? MPI_BYTE : MPI_INT;
        MPI_Count each = absolute ? (MPI_Count)sizeof(int) : 1;
        rc = MPI_Gatherv_c(s, n * each, t, absolute ? MPI_BOTTOM : r, c, d, t, root, MPI_COMM_WORLD);
    }
#endif
    PMPI_Gatherv(s, n, MPI_INT, ref, v.counts, v.displs, MPI_INT, root, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "gatherv rc %d", rc);
    if (rank == root) SAME(r, ref, v.total, "gatherv");
    free(s), free(r), free(ref);
}

static void one_scatterv(int wide, int i)
{
    int root = i % size;
    vlayout_t v = layout();
    int n = v.counts[rank];
    int *s = fresh((size_t)v.total), *r = zeros((size_t)n), *ref = zeros((size_t)n);
    int rc = MPI_SUCCESS;
    if (!wide) rc = MPI_Scatterv(s, v.counts, v.displs, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
#ifdef NSM_HAVE_MPI_SCATTERV_C
    else {
        MPI_Count c[64];
        MPI_Aint d[64];
        int absolute = i % 2;
        wide_arrays(&v, s, absolute, c, d);
        if (absolute)
            for (int k = 0; k < size; k++) c[k] *= (MPI_Count)sizeof(int);
        MPI_Datatype t = absolute ? MPI_BYTE : MPI_INT;
        MPI_Count each = absolute ? (MPI_Count)sizeof(int) : 1;
        rc = MPI_Scatterv_c(absolute ? MPI_BOTTOM : s, c, d, t, r, n * each, t, root, MPI_COMM_WORLD);
    }
#endif
    PMPI_Scatterv(s, v.counts, v.displs, MPI_INT, ref, n, MPI_INT, root, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "scatterv rc %d", rc);
    SAME(r, ref, n, "scatterv");
    free(s), free(r), free(ref);
}

static void one_allgatherv(int wide, int i)
{
    vlayout_t v = layout();
    int n = v.counts[rank];
    int *s = fresh((size_t)n), *r = zeros((size_t)v.total), *ref = zeros((size_t)v.total);
    int rc = MPI_SUCCESS;
    if (!wide) rc = MPI_Allgatherv(s, n, MPI_INT, r, v.counts, v.displs, MPI_INT, MPI_COMM_WORLD);
#ifdef NSM_HAVE_MPI_ALLGATHERV_C
    else {
        MPI_Count c[64];
        MPI_Aint d[64];
        int absolute = i % 2;
        wide_arrays(&v, r, absolute, c, d);
        if (absolute)
            for (int k = 0; k < size; k++) c[k] *= (MPI_Count)sizeof(int);
        MPI_Datatype t = absolute ? MPI_BYTE : MPI_INT;
        MPI_Count each = absolute ? (MPI_Count)sizeof(int) : 1;
        rc = MPI_Allgatherv_c(s, n * each, t, absolute ? MPI_BOTTOM : r, c, d, t, MPI_COMM_WORLD);
    }
#endif
    PMPI_Allgatherv(s, n, MPI_INT, ref, v.counts, v.displs, MPI_INT, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "allgatherv rc %d", rc);
    SAME(r, ref, v.total, "allgatherv");
    free(s), free(r), free(ref);
}

/* alltoallv: block from i to j has (i * 7 + j * 3 + k) % 17 + 1 elements */
static int a2av_count(int from, int to, int k) { return (from * 7 + to * 3 + k) % 17 + 1; }

static void a2av_layout(int k, int *sc, int *sd, int *rc, int *rd, int *stot, int *rtot)
{
    *stot = *rtot = 0;
    for (int r = size - 1; r >= 0; r--) { /* reverse order, gaps */
        sc[r] = a2av_count(rank, r, k);
        sd[r] = *stot + 2;
        *stot += sc[r] + 2;
        rc[r] = a2av_count(r, rank, k);
        rd[r] = *rtot + 1;
        *rtot += rc[r] + 1;
    }
}

/* The large-count call moves bytes, received from MPI_BOTTOM at absolute addresses (rebased);
 * far: this rank's block 0 goes to the stack, the others to the heap, displacements spanning
 * more than an int (the wide arrays are taken as they are: no rank needs the others to agree). */
static void one_alltoallv_at(int wide, int i, int far)
{
    int sc[64], sd[64], rcn[64], rd[64], stot, rtot;
    a2av_layout(i, sc, sd, rcn, rd, &stot, &rtot);
    int *s = fresh((size_t)stot), *r = zeros((size_t)rtot), *ref = zeros((size_t)rtot);
    int rc = MPI_SUCCESS;
    (void)far; /* without MPI_Alltoallv_c: plain calls only */
    if (!wide) rc = MPI_Alltoallv(s, sc, sd, MPI_INT, r, rcn, rd, MPI_INT, MPI_COMM_WORLD);
#ifdef NSM_HAVE_MPI_ALLTOALLV_C
    else {
        MPI_Count c1[64], c2[64];
        MPI_Aint d1[64], d2[64];
        int faraway[18];
        for (int k = 0; k < size; k++) {
            c1[k] = (MPI_Count)sc[k] * (MPI_Count)sizeof(int);
            d1[k] = (MPI_Aint)sd[k] * (MPI_Aint)sizeof(int);
            c2[k] = (MPI_Count)rcn[k] * (MPI_Count)sizeof(int);
            d2[k] = (MPI_Aint)(uintptr_t)(r + rd[k]);
        }
        if (far) /* block 0 lands elsewhere: copied into place below */
            d2[0] = (MPI_Aint)(uintptr_t)faraway;
        rc = MPI_Alltoallv_c(s, c1, d1, MPI_BYTE, MPI_BOTTOM, c2, d2, MPI_BYTE, MPI_COMM_WORLD);
        if (far) memcpy(r + rd[0], faraway, sizeof(int) * (size_t)rcn[0]);
    }
#endif
    PMPI_Alltoallv(s, sc, sd, MPI_INT, ref, rcn, rd, MPI_INT, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "alltoallv rc %d", rc);
    SAME(r, ref, rtot, "alltoallv");
    free(s), free(r), free(ref);
}
static void one_alltoallv(int wide, int i) { one_alltoallv_at(wide, i, 0); }
static int far_rank; /* the rank whose blocks are far apart */
static void __attribute__((unused)) one_alltoallv_far(int wide, int i) { one_alltoallv_at(wide, i, rank == far_rank); }

static void one_barrier(int wide, int i)
{
    (void)wide, (void)i;
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "barrier");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int k = 1; k < argc; k++)
        if (!strcmp(argv[k], "--expect-none")) expect_none = 1;
    if (size > 64) {
        if (!rank) fprintf(stderr, "mpi_bigcount: at most 64 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int k = 1; k < argc; k++)
        if (!strcmp(argv[k], "--far-gatherv")) {
            /* the root's displacements span more than an int on one node, where the other ranks
             * are on the shared-memory path: the job must end with a message naming the call
             * and the value (tests/mpi_bigcount.cmake matches it), not hang */
#ifdef NSM_HAVE_MPI_GATHERV_C
            int near[1], *far_ = malloc(sizeof(int) * 64), mine = rank;
            MPI_Count c[64];
            MPI_Aint d[64];
            for (int r = 0; r < size; r++) {
                c[r] = sizeof(int);
                d[r] = (MPI_Aint)(uintptr_t)(r ? far_ + r : near);
            }
            MPI_Gatherv_c(&mine, sizeof(int), MPI_BYTE, MPI_BOTTOM, c, d, MPI_BYTE, 0, MPI_COMM_WORLD);
            printf("mpi_bigcount: rank %d: MPI_Gatherv_c with far displacements returned\n", rank);
            free(far_);
#else
            if (!rank) printf("mpi_bigcount: SKIP: this MPI has no MPI_Gatherv_c\n");
#endif
            MPI_Finalize();
            return 0;
        }
    mpi_check_seed();
    /* nodes: MPI's (emulated hosts: oshrun --hosts), each cut into pseudo-nodes of
     * NODESHM_PES_PER_NODE ranks; one per first rank of a (pseudo-)node */
    const char *ppn_env = getenv("NODESHM_PES_PER_NODE");
    int ppn = ppn_env && atoi(ppn_env) > 0 ? atoi(ppn_env) : size, local, first;
    MPI_Comm physical;
    PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &physical);
    PMPI_Comm_rank(physical, &local);
    PMPI_Comm_free(&physical);
    first = local % ppn == 0;
    PMPI_Allreduce(&first, &n_nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    hosts = comm_hosts(MPI_COMM_WORLD);
    acc_op = (long (*)(const char *))dlsym(RTLD_DEFAULT, "nodeshm_mpi_accelerated_op");
    acc_all = (long (*)(void))dlsym(RTLD_DEFAULT, "nodeshm_mpi_accelerated");
    if (!rank) printf("mpi_bigcount: %d ranks, %d node(s), seed %llu (NODESHM_TEST_SEED replays)\n", size, n_nodes,
                      (unsigned long long)seed);
    if (!expect_none) CHECK(acc_op != NULL, "nodeshm_mpi_accelerated_op not found: is libnodeshm_mpi there?");
    if (acc_op) CHECK(acc_op("no_such_op") == -1, "an unknown op name must give -1");

    /* op name, one call, whether the MPI has its _c entry, accelerated between nodes too */
    int one_node = n_nodes == 1;
    struct {
        const char *op;
        void (*one)(int, int);
        int have_c, expected;
    } ops[] = {
        {"barrier", one_barrier, 0, 1},
#ifdef NSM_HAVE_MPI_BCAST_C
        {"bcast", one_bcast, 1, 1},
#else
        {"bcast", one_bcast, 0, 1},
#endif
#ifdef NSM_HAVE_MPI_GATHER_C
        {"gather", one_gather, 1, 1},
#else
        {"gather", one_gather, 0, 1},
#endif
#ifdef NSM_HAVE_MPI_GATHERV_C
        {"gatherv", one_gatherv, 1, 0},
#else
        {"gatherv", one_gatherv, 0, 0},
#endif
#ifdef NSM_HAVE_MPI_SCATTER_C
        {"scatter", one_scatter, 1, 1},
#else
        {"scatter", one_scatter, 0, 1},
#endif
#ifdef NSM_HAVE_MPI_SCATTERV_C
        {"scatterv", one_scatterv, 1, 0},
#else
        {"scatterv", one_scatterv, 0, 0},
#endif
#ifdef NSM_HAVE_MPI_ALLGATHER_C
        {"allgather", one_allgather, 1, 1},
#else
        {"allgather", one_allgather, 0, 1},
#endif
#ifdef NSM_HAVE_MPI_ALLGATHERV_C
        {"allgatherv", one_allgatherv, 1, 1},
#else
        {"allgatherv", one_allgatherv, 0, 1},
#endif
#ifdef NSM_HAVE_MPI_REDUCE_C
        {"reduce", one_reduce, 1, 1},
#else
        {"reduce", one_reduce, 0, 1},
#endif
#ifdef NSM_HAVE_MPI_ALLREDUCE_C
        {"allreduce", one_allreduce, 1, 1},
#else
        {"allreduce", one_allreduce, 0, 1},
#endif
#ifdef NSM_HAVE_MPI_REDUCE_SCATTER_BLOCK_C
        {"reduce_scatter_block", one_reduce_scatter_block, 1, 1},
#else
        {"reduce_scatter_block", one_reduce_scatter_block, 0, 1},
#endif
#ifdef NSM_HAVE_MPI_ALLTOALL_C
        {"alltoall", one_alltoall, 1, 1},
#else
        {"alltoall", one_alltoall, 0, 1},
#endif
#ifdef NSM_HAVE_MPI_ALLTOALLV_C
        {"alltoallv", one_alltoallv, 1, 1},
#else
        {"alltoallv", one_alltoallv, 0, 1},
#endif
    };
    int n_c = 0, n_ops = (int)(sizeof ops / sizeof ops[0]);
    for (int k = 0; k < n_ops; k++) {
        /* gatherv and scatterv: one node only (between nodes the MPI library's) */
        int expected = ops[k].expected || one_node;
        run(ops[k].op, 0, expected, ops[k].one);
        if (ops[k].have_c) {
            run(ops[k].op, 1, expected, ops[k].one);
            n_c++;
        }
    }
#ifdef NSM_HAVE_MPI_ALLTOALLV_C
    /* one rank's displacements span more than an int: its wide arrays are taken as they are, on
     * one node and between nodes (alltoallv_pairs.c), so every call still runs here, none
     * through another op */
    if (size > 1) {
        int probe;
        int *heap = malloc(sizeof(int));
        long long span = (long long)((intptr_t)&probe - (intptr_t)heap);
        free(heap);
        CHECK(span > INT_MAX || span < -(long long)INT_MAX,
              "stack and heap only %lld bytes apart here: the test needs more", span);
        far_rank = size - 1;
        long before = acc("alltoallv"), before_all = acc_total();
        for (int i = 0; i < CALLS; i++) one_alltoallv_far(1, i);
        long want = expect_none ? 0 : CALLS;
        CHECK(acc("alltoallv") - before == want, "alltoallv_c with displacements beyond an int: %ld calls "
              "accelerated, expected %ld", acc("alltoallv") - before, want);
        CHECK(acc_total() - before_all == want, "alltoallv_c with displacements beyond an int: all ops' counters "
              "moved by %ld, expected %ld", acc_total() - before_all, want);
    }
#endif
    long f[2] = {failures, checks}, tot[2];
    PMPI_Allreduce(f, tot, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (!rank)
        printf("mpi_bigcount: %s: %d ops, %d large-count entries, %ld checks, %ld failed\n",
               tot[0] ? "FAIL" : "PASS", n_ops, n_c, tot[1], tot[0]);
    MPI_Finalize();
    return tot[0] ? 1 : 0;
}
