/* libnodeshm_mpi with many live communicators (issue 15, frugal communicators).  MPICH has 2048
 * context ids per process; an interposer that keeps communicators of its own per accelerated
 * communicator leaves the program fewer (it failed MPI_Comm_dup at 512 live ones).
 *
 *   1. capacity: MPI_Comm_dup of MPI_COMM_WORLD until it fails (MPI_ERRORS_RETURN; at most CAP),
 *      nothing run on them; all freed.
 *   2. --live N communicators at once (dups of the world and of each other, splits in reversed
 *      rank order, dups of those), each then runs one collective (the op rotates over all 13
 *      intercepted ones, root and sizes vary, gatherv/scatterv with one block point to point)
 *      on fresh random data: values checked, and the op's own counter
 *      (nodeshm_mpi_accelerated_op) must have grown by one on every rank (--expect-accel).
 *   3. with all N alive, dups until failure again, with a collective on each of the last 40 (on
 *      one node; across nodes on each): on one node the states must hold no context id (N +
 *      these >= the capacity of 1.); across nodes at most one each (the leaders').  Values checked; the program must neither hang nor
 *      end there (where MPI has no context id left for the interposer, the communicator goes to
 *      the MPI library).
 *   4. --alternate K calls on four communicators of one group (dups A, B, a dup of A, a reversed
 *      split), taking turns: op i on communicator i % 4, each checked and counted.
 *   5. dups outliving their parents: a dup B of a dup A (A freed before B's first call), a dup D
 *      (MPI_Comm_dup_with_info, then MPI_Comm_dup) of B, B and the middle one freed first, a
 *      split of D keeping its order (D freed first), and a dup of a reversed split freed first:
 *      on each an MPI_Iallreduce first (its state exists from the dup on: counted on one node),
 *      then every op, checked and counted (a dup on one node takes its parent's shape: nothing
 *      of it may be left to the parent).
 * --probe: only dups until failure with a collective on each, printing the count (with or
 * without the interposer).
 * The counters are found with dlsym, so the same source runs without the interposer. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi_check.h"

#include <dlfcn.h>
#include <string.h>

#define CAP 2100 /* enough to see MPICH's 2048; Open MPI has no such limit */

enum { BARRIER, BCAST, GATHER, GATHERV, SCATTER, SCATTERV, ALLGATHER, ALLGATHERV, REDUCE, ALLREDUCE, RSB,
       ALLTOALL, ALLTOALLV, N_OPS };
static const char *const op_name[N_OPS] = {"barrier", "bcast", "gather", "gatherv", "scatter", "scatterv",
                                           "allgather", "allgatherv", "reduce", "allreduce",
                                           "reduce_scatter_block", "alltoall", "alltoallv"};
static long (*accel_op)(const char *);
static int expect_accel;

/* value i of comm rank r in call `id`: any rank can recompute it */
static long val(long id, int r, int i)
{
    return (long)(mix(seed ^ mix(((uint64_t)id << 32) ^ ((uint64_t)r << 20) ^ (uint64_t)i)) >> 40);
}

/* What the interposer runs on a communicator of this group: 0 nothing (no node holds 2 of its
 * ranks), 1 all but gatherv and scatterv (several nodes), 2 every op (one node). */
static int shape_of(MPI_Comm comm)
{
    return fullest_node(comm) < 2 ? 0 : on_one_node(comm) ? 2 : 1;
}

/* Runs op on comm (shape: shape_of its group) as call `id` and checks it: values, and the op's
 * counter where expected. */
static void run_op(int op, MPI_Comm comm, int shape, long id)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int root = (int)(id % size), n = 64 + (int)(mix(seed ^ (uint64_t)id) % 65); /* 512-1024 bytes */
    int big = (int)((id + 1) % size), nbig = 768; /* gatherv/scatterv: above the window (4 KiB) */
    size_t cap = (size_t)size * (size_t)(nbig + n + size + 8) + 16;
    long *s = calloc(cap, sizeof(long)), *r = calloc(cap, sizeof(long));
    int *cnt = calloc((size_t)size * 4, sizeof(int)), *dsp = cnt + size, *cnt2 = dsp + size, *dsp2 = cnt2 + size;
    long bad = 0, before = accel_op ? accel_op(op_name[op]) : 0;
    for (int q = 0, at = 0; q < size; q++) { /* v-ops: uneven blocks, a gap of one between them */
        cnt[q] = op == GATHERV || op == SCATTERV ? (q == big ? nbig : n + q) : n + q % 5;
        dsp[q] = at;
        at += cnt[q] + 1;
    }
    switch (op) {
    case BARRIER:
        MPI_Barrier(comm);
        break;
    case BCAST:
        for (int i = 0; i < n; i++) r[i] = rank == root ? val(id, root, i) : -1;
        MPI_Bcast(r, n, MPI_LONG, root, comm);
        for (int i = 0; i < n; i++) bad += r[i] != val(id, root, i);
        break;
    case GATHER:
    case ALLGATHER:
        for (int i = 0; i < n; i++) s[i] = val(id, rank, i);
        if (op == GATHER) MPI_Gather(s, n, MPI_LONG, r, n, MPI_LONG, root, comm);
        else MPI_Allgather(s, n, MPI_LONG, r, n, MPI_LONG, comm);
        for (int q = 0; q < size && (op == ALLGATHER || rank == root); q++)
            for (int i = 0; i < n; i++) bad += r[(size_t)q * n + i] != val(id, q, i);
        break;
    case GATHERV:
    case ALLGATHERV:
        for (int i = 0; i < cnt[rank]; i++) s[i] = val(id, rank, i);
        if (op == GATHERV) MPI_Gatherv(s, cnt[rank], MPI_LONG, r, cnt, dsp, MPI_LONG, root, comm);
        else MPI_Allgatherv(s, cnt[rank], MPI_LONG, r, cnt, dsp, MPI_LONG, comm);
        for (int q = 0; q < size && (op == ALLGATHERV || rank == root); q++)
            for (int i = 0; i < cnt[q]; i++) bad += r[dsp[q] + i] != val(id, q, i);
        break;
    case SCATTER:
        for (int q = 0; q < size && rank == root; q++)
            for (int i = 0; i < n; i++) s[(size_t)q * n + i] = val(id, q, i);
        MPI_Scatter(s, n, MPI_LONG, r, n, MPI_LONG, root, comm);
        for (int i = 0; i < n; i++) bad += r[i] != val(id, rank, i);
        break;
    case SCATTERV:
        for (int q = 0; q < size && rank == root; q++)
            for (int i = 0; i < cnt[q]; i++) s[dsp[q] + i] = val(id, q, i);
        MPI_Scatterv(s, cnt, dsp, MPI_LONG, r, cnt[rank], MPI_LONG, root, comm);
        for (int i = 0; i < cnt[rank]; i++) bad += r[i] != val(id, rank, i);
        break;
    case REDUCE:
    case ALLREDUCE:
    case RSB:
        for (int i = 0; i < n * size; i++) s[i] = val(id, rank, i);
        if (op == REDUCE) MPI_Reduce(s, r, n, MPI_LONG, MPI_SUM, root, comm);
        else if (op == ALLREDUCE) MPI_Allreduce(s, r, n, MPI_LONG, MPI_SUM, comm);
        else MPI_Reduce_scatter_block(s, r, n, MPI_LONG, MPI_SUM, comm);
        for (int i = 0; i < n && (op != REDUCE || rank == root); i++) {
            long want = 0;
            for (int q = 0; q < size; q++) want += val(id, q, op == RSB ? rank * n + i : i);
            bad += r[i] != want;
        }
        break;
    case ALLTOALL:
        for (int i = 0; i < n * size; i++) s[i] = val(id, rank, i);
        MPI_Alltoall(s, n, MPI_LONG, r, n, MPI_LONG, comm);
        for (int q = 0; q < size; q++)
            for (int i = 0; i < n; i++) bad += r[(size_t)q * n + i] != val(id, q, rank * n + i);
        break;
    case ALLTOALLV: /* rank q sends (q + p) % 7 + n/2 values to p */
        for (int q = 0, at = 0, at2 = 0; q < size; q++) {
            cnt[q] = (rank + q) % 7 + n / 2;
            dsp[q] = at;
            at += cnt[q] + 1;
            cnt2[q] = (q + rank) % 7 + n / 2;
            dsp2[q] = at2;
            at2 += cnt2[q] + 2;
            for (int i = 0; i < cnt[q]; i++) s[dsp[q] + i] = val(id, rank, q * 4096 + i);
        }
        MPI_Alltoallv(s, cnt, dsp, MPI_LONG, r, cnt2, dsp2, MPI_LONG, comm);
        for (int q = 0; q < size; q++)
            for (int i = 0; i < cnt2[q]; i++) bad += r[dsp2[q] + i] != val(id, q, rank * 4096 + i);
        break;
    }
    CHECK(bad == 0, "call %ld: MPI_%s on %d ranks (root %d, %d values): %ld wrong", id, op_name[op], size, root, n,
          bad);
    if (expect_accel && (shape == 2 || (shape == 1 && op != GATHERV && op != SCATTERV))) {
        long grew = accel_op ? accel_op(op_name[op]) - before : 0;
        CHECK(grew == 1, "call %ld: MPI_%s on %d ranks: nodeshm_mpi_accelerated_op(\"%s\") grew by %ld, not 1",
              id, op_name[op], size, op_name[op], grew);
    }
    free(s);
    free(r);
    free(cnt);
}

/* A non-blocking allreduce first on comm (shape: as run_op), checked; counted on one node. */
static void first_iallreduce(MPI_Comm comm, int shape, long id)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    long x = val(id, rank, 0), y = -1, want = 0, before = accel_op ? accel_op("iallreduce") : 0;
    for (int q = 0; q < size; q++) want += val(id, q, 0);
    MPI_Request rq;
    MPI_Iallreduce(&x, &y, 1, MPI_LONG, MPI_SUM, comm, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK(y == want, "call %ld: MPI_Iallreduce first on a dup: %ld, expected %ld", id, y, want);
    if (expect_accel && shape == 2) {
        long grew = accel_op ? accel_op("iallreduce") - before : 0;
        CHECK(grew == 1, "call %ld: MPI_Iallreduce first on a dup: accelerated %ld times, not 1", id, grew);
    }
}

/* 5. (see the top): every op on dups whose parents were freed first */
static void orphans(int world_shape)
{
    MPI_Comm a, b, c, d, split, e;
    MPI_Info info;
    long id = 2000000;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    run_op(ALLREDUCE, a, world_shape, id++);
    MPI_Comm_dup(a, &b);
    MPI_Comm_free(&a);
    first_iallreduce(b, world_shape, id++);
    for (int i = 0; i < N_OPS; i++) run_op(i, b, world_shape, id++);
    MPI_Info_create(&info);
    MPI_Comm_dup_with_info(b, info, &c);
    MPI_Info_free(&info);
    MPI_Comm_dup(c, &d);
    MPI_Comm_free(&b);
    MPI_Comm_free(&c);
    first_iallreduce(d, world_shape, id++);
    for (int i = 0; i < 2 * N_OPS; i++) run_op(i % N_OPS, d, world_shape, id++);
    MPI_Comm f; /* a split that keeps every rank in order: a dup in all but name */
    MPI_Comm_split(d, 7, wrank, &f);
    MPI_Comm_free(&d);
    first_iallreduce(f, world_shape, id++);
    for (int i = 0; i < N_OPS; i++) run_op(i, f, world_shape, id++);
    MPI_Comm_free(&f);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split(MPI_COMM_WORLD, size > 2 ? wrank % 2 : 0, -wrank, &split);
    int split_shape = shape_of(split);
    MPI_Comm_dup(split, &e);
    MPI_Comm_free(&split);
    first_iallreduce(e, split_shape, id++);
    for (int i = 0; i < N_OPS; i++) run_op(i, e, split_shape, id++);
    MPI_Comm_free(&e);
}

/* Dups of the world until one fails (at most cap), a collective on each from the `from`-th on
 * (values checked: the program must go on however the interposer fares; -1: none); frees them;
 * their count. */
static int dups_until_failure(int cap, int from, long *accelerated)
{
    MPI_Comm *c = malloc(sizeof *c * (size_t)cap);
    int n = 0;
    long before = accel_op ? accel_op("allreduce") : 0;
    for (; n < cap; n++) {
        if (MPI_Comm_dup(MPI_COMM_WORLD, &c[n]) != MPI_SUCCESS) break;
        if (from >= 0 && n >= from) {
            long x = val(n, wrank, 0), y = 0, want = 0;
            int size;
            MPI_Comm_size(c[n], &size);
            MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, c[n]);
            for (int q = 0; q < size; q++) want += val(n, q, 0);
            CHECK(y == want, "dup %d: MPI_Allreduce gave %ld, expected %ld", n, y, want);
        }
    }
    if (accelerated) *accelerated = accel_op ? accel_op("allreduce") - before : 0;
    for (int i = n - 1; i >= 0; i--) MPI_Comm_free(&c[i]);
    free(c);
    return n;
}

int main(int argc, char **argv)
{
    int live = 2000, alternate = 200, probe = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--live") && i + 1 < argc) live = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--alternate") && i + 1 < argc) alternate = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--expect-accel")) expect_accel = 1;
        else if (!strcmp(argv[i], "--probe")) probe = 1;
        else {
            fprintf(stderr, "usage: mpi_comms [--live N] [--alternate K] [--expect-accel] [--probe]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mpi_check_seed();
    accel_op = (long (*)(const char *))dlsym(RTLD_DEFAULT, "nodeshm_mpi_accelerated_op");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    double t0 = MPI_Wtime();
    if (probe) {
        long acc;
        int n = dups_until_failure(CAP, 0, &acc);
        long most = 0;
        PMPI_Allreduce(&acc, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
        if (wrank == 0)
            printf("mpi_comms --probe: %d ranks: %d live communicators%s (a collective on each; %ld run by "
                   "nodeshm on the busiest rank)\n", size, n, n == CAP ? " (the probe's cap)" : "", most);
        MPI_Finalize();
        return 0;
    }
    if (wrank == 0) printf("seed %llu (replay with NODESHM_TEST_SEED)\n", (unsigned long long)seed);

    double t[5];
    int capacity = dups_until_failure(CAP, -1, NULL);
    t[0] = MPI_Wtime();
    CHECK(capacity >= live + 16, "only %d live communicators (with %d wanted, and room for 16 more)", capacity,
          live);
    int n = live < capacity - 16 ? live : capacity - 16;
    if (n < 0) n = 0;
    MPI_Comm *c = malloc(sizeof *c * (size_t)(n > 0 ? n : 1));
    int made = 0;
    /* in fours: a dup of the world, a dup of that, a split in reversed rank order (of the world,
     * then of the split before), a dup of that: two groups */
    for (; made < n; made++) {
        int rc, kind = made % 4;
        if (kind == 0) rc = MPI_Comm_dup(MPI_COMM_WORLD, &c[made]);
        else if (kind == 2)
            rc = MPI_Comm_split(made >= 4 ? c[made - 4] : MPI_COMM_WORLD, size > 2 ? wrank % 2 : 0, -wrank, &c[made]);
        else rc = MPI_Comm_dup(c[made - 1], &c[made]);
        if (rc != MPI_SUCCESS) break;
    }
    CHECK(made == n, "MPI_Comm_dup/split failed at %d live communicators (of %d)", made, n);
    t[1] = MPI_Wtime();
    int world_shape = shape_of(MPI_COMM_WORLD), single = world_shape == 2;
    int split_shape = made > 2 ? shape_of(c[2]) : 0;
    for (int i = 0; i < made; i++) run_op(i % N_OPS, c[i], i % 4 >= 2 ? split_shape : world_shape, i);
    t[2] = MPI_Wtime();
    /* on one node the last 40 before MPI runs out: states made with few context ids left, or
     * none; across nodes each holds one on the leaders: all of them */
    long accelerated;
    int from = single ? capacity - made - 40 : 0;
    int extra = dups_until_failure(capacity - made + 1, from, &accelerated);
    int states = made + (extra > from ? extra - from : 0);
    t[3] = MPI_Wtime();
    if (capacity < CAP) /* a library with a limit (MPICH): what the live states cost */
        CHECK(capacity - made - extra <= (single ? 0 : states),
              "with %d accelerated communicators alive only %d more could be made (%d before): the "
              "interposer holds %d context ids (%s)", made, extra, capacity, capacity - made - extra,
              single ? "none on one node" : "at most one per state across nodes");
    for (int i = made - 1; i >= 0; i--) MPI_Comm_free(&c[i]);
    free(c);

    MPI_Comm turns[4];
    MPI_Comm_dup(MPI_COMM_WORLD, &turns[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &turns[1]);
    MPI_Comm_dup(turns[0], &turns[2]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, -wrank, &turns[3]);
    for (int i = 0; i < alternate; i++) run_op(i % N_OPS, turns[i % 4], world_shape, 1000000 + i);
    for (int k = 0; k < 4; k++) MPI_Comm_free(&turns[k]);
    orphans(world_shape);
    t[4] = MPI_Wtime();
    long mine[2] = {failures, checks}, sum[2];
    PMPI_Allreduce(mine, sum, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("mpi_comms: %d ranks%s: capacity %d; %d live, each ran one collective, then %d more (an "
               "allreduce on each of the last %d: %ld run by nodeshm on rank 0); %d "
               "calls on 4 dups in turns; %ld checks, %ld failed, %.1f s (%.1f capacity, %.1f making, %.1f first "
               "calls, %.1f capacity left, %.1f turns): %s\n",
               size, single ? "" : " on several nodes", capacity, made, extra, extra - from, accelerated, alternate,
               sum[1], sum[0], MPI_Wtime() - t0, t[0] - t0, t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3],
               sum[0] ? "FAIL" : "PASS");
    MPI_Finalize();
    return sum[0] != 0;
}
