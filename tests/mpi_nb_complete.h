/* MPI tests of the non-blocking collectives (mpi_nonblocking.c, mpi_nonblocking_v.c,
 * mpi_nb_bcast.c): compute between starts and waits, completing an array of requests in one of
 * eight ways, chosen per rank and round (Waitall, Wait in reverse, Waitany, Waitsome, Testall
 * with compute between: overlap, Test and Testany in a random order, Testsome,
 * Request_get_status then Wait), each request returned complete once only, with a point-to-point
 * ring in the same array; the values' formula and the interposer's per-op counters.
 * mpi_persistent.c completes its requests the same way. */
#ifndef NODESHM_TESTS_MPI_NB_COMPLETE_H
#define NODESHM_TESTS_MPI_NB_COMPLETE_H
#include "mpi_check.h"

#include <dlfcn.h>
#include <string.h>

static void __attribute__((unused)) spin_us(double us)
{
    double t = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < t) {
    }
}

/* Completes n requests (at most NB_COMPLETE_MAX; persistent ones stay, inactive) the way `mode`
 * (0 to NB_COMPLETE_MODES - 1) says; each may be returned complete once only. */
#define NB_COMPLETE_MODES 8
#define NB_COMPLETE_MAX 64
static __attribute__((unused)) const char *complete_all(int mode, int n, MPI_Request *req, uint64_t x)
{
    int done[NB_COMPLETE_MAX] = {0}, left = n, idx[NB_COMPLETE_MAX], out, flag;
    switch (mode) {
    case 0:
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        return "waitall";
    case 1:
        for (int i = n - 1; i >= 0; i--) MPI_Wait(&req[i], MPI_STATUS_IGNORE);
        return "wait in reverse";
    case 2:
        while (left > 0) {
            MPI_Waitany(n, req, &out, MPI_STATUS_IGNORE);
            CHECK(out != MPI_UNDEFINED && !done[out], "waitany: %d with %d of %d left", out, left, n);
            if (out == MPI_UNDEFINED || done[out]) break;
            done[out] = 1, left--;
        }
        return "waitany";
    case 3:
        while (left > 0) {
            MPI_Waitsome(n, req, &out, idx, MPI_STATUSES_IGNORE);
            CHECK(out != MPI_UNDEFINED && out > 0, "waitsome: outcount %d with %d of %d left", out, left, n);
            if (out == MPI_UNDEFINED || out <= 0) break;
            for (int j = 0; j < out; j++) {
                CHECK(!done[idx[j]], "waitsome: request %d returned twice", idx[j]);
                done[idx[j]] = 1, left--;
            }
        }
        return "waitsome";
    case 4: { /* overlap: compute between tests.  MPICH 5.0.2's MPI_Testall says MPI_ERR_IN_STATUS
               * for the persistent collectives it runs, every status MPI_SUCCESS or MPI_ERR_PENDING
               * (also when all have completed; bare MPICH too): that, and only that, is let pass */
        MPI_Status st[NB_COMPLETE_MAX];
        for (flag = 0; !flag;) {
            spin_us(2);
            int rc = MPI_Testall(n, req, &flag, st);
            for (int j = 0; rc == MPI_ERR_IN_STATUS && j < n; j++)
                CHECK(st[j].MPI_ERROR == MPI_SUCCESS || st[j].MPI_ERROR == MPI_ERR_PENDING,
                      "testall: request %d: error %d", j, st[j].MPI_ERROR);
            CHECK(rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS, "testall: error %d", rc);
        }
        return "testall with compute";
    }
    case 5: /* a test at a time in this rank's own order, and Testany */
        while (left > 0) {
            int i = (int)((x = mix(x)) % (uint64_t)n);
            if (done[i]) {
                MPI_Testany(n, req, &out, &flag, MPI_STATUS_IGNORE);
                if (flag && out != MPI_UNDEFINED) {
                    CHECK(!done[out], "testany: request %d returned twice", out);
                    done[out] = 1, left--;
                }
                continue;
            }
            MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
            if (flag) done[i] = 1, left--;
        }
        return "test in random order, testany";
    case 6:
        while (left > 0) {
            spin_us(1);
            MPI_Testsome(n, req, &out, idx, MPI_STATUSES_IGNORE);
            CHECK(out != MPI_UNDEFINED, "testsome: no active request with %d of %d left", left, n);
            if (out == MPI_UNDEFINED) break;
            for (int j = 0; j < out; j++) {
                CHECK(!done[idx[j]], "testsome: request %d returned twice", idx[j]);
                done[idx[j]] = 1, left--;
            }
        }
        return "testsome";
    default: /* Request_get_status until it says complete, then Wait */
        while (left > 0)
            for (int i = 0; i < n; i++) {
                if (done[i]) continue;
                MPI_Request_get_status(req[i], &flag, MPI_STATUS_IGNORE);
                if (flag) MPI_Wait(&req[i], MPI_STATUS_IGNORE), done[i] = 1, left--;
            }
        return "request_get_status, wait";
    }
}

/* values: the same formula on every rank (round, communicator, comm rank, element) */
static uint64_t __attribute__((unused)) val(int r, int c, int q, int i)
{
    return mix(seed ^ ((uint64_t)r << 44) ^ ((uint64_t)c << 36) ^ ((uint64_t)q << 24) ^ (uint64_t)i);
}

/* Whether the interposer keeps shared buffers for comm (some node, or pseudo-node, holds two of
 * its ranks): where MPI_Ibarrier, Ibcast, Iallreduce and Ireduce run in it, on one node or
 * between nodes (the other non-blocking ops: on one node only). */
static int __attribute__((unused)) nb_active(MPI_Comm comm)
{
    int size;
    PMPI_Comm_size(comm, &size);
    return size > 1 && fullest_node(comm) >= 2;
}

/* The interposer's per-op counter, where it is loaded (nodeshm_mpi_accelerated_op), else 0. */
static long (*acc_fn)(const char *);
static long __attribute__((unused)) acc(const char *op) { return acc_fn ? acc_fn(op) : 0; }

/* A round's end: a point-to-point ring on MPI_COMM_WORLD in req[n], req[n + 1], the same array's
 * n collectives, some compute first on some rounds, then all completed in this rank's way of the
 * round; returns which. */
static __attribute__((unused)) const char *complete_round(int r, int n, MPI_Request *req)
{
    int wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    long out = (long)val(r, 9, wrank, 0), in = -1;
    MPI_Irecv(&in, 1, MPI_LONG, (wrank + wsize - 1) % wsize, r, MPI_COMM_WORLD, &req[n]);
    MPI_Isend(&out, 1, MPI_LONG, (wrank + 1) % wsize, r, MPI_COMM_WORLD, &req[n + 1]);
    uint64_t x = mix(seed ^ ((uint64_t)r << 32) ^ (uint64_t)wrank);
    if (x % 3 == 0) spin_us((double)(x >> 8 & 63)); /* overlap: compute before completing */
    const char *how = complete_all((int)((x >> 16) % NB_COMPLETE_MODES), n + 2, req, x);
    CHECK(in == (long)val(r, 9, (wrank + wsize - 1) % wsize, 0), "round %d: point to point (%s): %ld", r, how, in);
    return how;
}

/* The command line these tests take (0, or 2 after a usage message); loads the counter. */
static int expect_accel, expect_none, window = 16384, rounds = 10;
static int __attribute__((unused)) nb_args(int argc, char **argv, const char *prog)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--expect-accel")) expect_accel = 1;
        else if (!strcmp(argv[i], "--expect-none")) expect_none = 1;
        else if (!strcmp(argv[i], "--window") && i + 1 < argc) window = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else {
            if (wrank == 0) fprintf(stderr, "usage: %s [--expect-accel|--expect-none] [--window B] [--rounds N]\n", prog);
            return 2;
        }
    }
    acc_fn = (long (*)(const char *))dlsym(RTLD_DEFAULT, "nodeshm_mpi_accelerated_op");
    if (expect_accel && !acc_fn) {
        fprintf(stderr, "%s: --expect-accel, but libnodeshm_mpi is not loaded\n", prog);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return 0;
}

/* MPI_Init, the seed, the command line (nb_args) and a window above the small ring's 4 KiB (the
 * tests pick sizes between the two); returns MPI_COMM_WORLD's size, or 0 after a usage message
 * (MPI finalized: exit with 2). */
static int __attribute__((unused)) nb_init(int *argc, char ***argv, const char *prog)
{
    int wsize;
    MPI_Init(argc, argv);
    mpi_check_seed();
    if (nb_args(*argc, *argv, prog)) {
        MPI_Finalize();
        return 0;
    }
    if (window <= 4096) window = 4097 + 4096;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    return wsize;
}

/* The end of these tests: each op's counter moved by exactly want[i] since before[i] (none with
 * --expect-none); every op expected somewhere where the test can expect any (one_node: the
 * first communicator lies on one node); the verdict on rank 0.  Returns the exit status. */
static int __attribute__((unused)) nb_finish(const char *prog, int nops, const char *const *names, const long *before,
                                             long *want, int one_node)
{
    long moved[64];
    int none_expected = 0, wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int i = 0; i < nops; i++) {
        moved[i] = acc(names[i]) - before[i];
        if (expect_none) want[i] = 0;
        if (expect_accel || expect_none)
            CHECK(moved[i] == want[i], "%s: %ld calls accelerated, expected %ld", names[i], moved[i], want[i]);
        none_expected |= !want[i];
    }
    if (expect_accel && wsize > 1 && one_node)
        CHECK(!none_expected, "an op with no call expected accelerated: the test cannot fail for it");
    long f = failures, all;
    PMPI_Allreduce(&f, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0) {
        if (all) printf("%s: FAIL (%ld failures)\n", prog, all);
        else {
            printf("%s: PASS (%ld checks on rank 0; accelerated on rank 0:", prog, checks);
            for (int i = 0; i < nops; i++) printf(" %s %ld", names[i], moved[i]);
            printf(")\n");
        }
    }
    MPI_Finalize();
    return all ? 1 : 0;
}

#endif
