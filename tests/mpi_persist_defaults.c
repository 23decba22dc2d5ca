/* libnodeshm_mpi: the MPI-4 persistent collectives at their DEFAULT windows (issue 15).  No
 * NODESHM_MPI_<OP>_INIT_MAX or _MIN is set: each op's window on this job's shape is read from the
 * defaults the library is built with (NSM_OPS and NSM_OP_MINS in src/mpi/nsmpi_config.h, the
 * column of the MPI of this mpi.h: NSM_MAX_ROW, NSM_MIN_ROW), never written here again.  The
 * shape is worked out here on its own (the most ranks on one (pseudo-)node, one node or several;
 * between pseudo-nodes the lower bounds are the one-node ones).
 *
 * Per op (barrier, bcast, allreduce, reduce, gather, scatter, allgather _init), on a dup of
 * MPI_COMM_WORLD: a request made at each size, started twice on fresh random data, each start
 * counted by the op's own counter (nodeshm_mpi_accelerated_op("<op>_init")) on every rank: it
 * must move by 1 on every rank where the size is inside the window, and on none outside.  Sizes
 * (bytes as the window counts them: the message; one rank's block for gather, scatter,
 * allgather): the upper bound (inside) and 8 B more (outside); the lower bound (inside) and 8 B
 * less (outside) where there is one, else 8 B (inside); an op whose window is 0 on this shape:
 * 8 B and 4 KiB, both the library's; barrier_init (no size): ours where its column is not 0, on
 * one node too (Open MPI's column at <= 2 ranks is 0).  Nothing is accelerated where no node
 * holds 2 ranks.  Every result is
 * compared with the MPI library's own (PMPI_<Op>) on the same data.
 *
 *   mpi_persist_defaults [--shape K]   K: the column (0-5, nsm_shape) the job must have, so that a
 *                                      launch that does not make the intended shape fails
 * Exit 77 (skipped) where the MPI has no persistent collectives. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nsm_bigcount_config.h" /* NSM_HAVE_MPI_<OP>_INIT */
#include "mpi/nsmpi_config.h"    /* the defaults: NSM_OPS, NSM_OP_MINS */

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"
#include "nodeshm.h"

#if !defined(NSM_HAVE_MPI_BARRIER_INIT) || !defined(NSM_HAVE_MPI_BCAST_INIT) ||                      \
    !defined(NSM_HAVE_MPI_ALLREDUCE_INIT) || !defined(NSM_HAVE_MPI_REDUCE_INIT) ||                   \
    !defined(NSM_HAVE_MPI_GATHER_INIT) || !defined(NSM_HAVE_MPI_SCATTER_INIT) || !defined(NSM_HAVE_MPI_ALLGATHER_INIT)
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (wrank == 0) printf("mpi_persist_defaults: SKIP (this MPI has no MPI-4 persistent collectives)\n");
    MPI_Finalize();
    return 77;
}
#else

/* the defaults as the library has them (init.c builds its tables with the same rows) */
static const size_t max_default[NSM_OP_COUNT][NSM_SHAPES] = {NSM_OPS(NSM_MAX_ROW)};
static const size_t min_default[NSM_OP_COUNT][NSM_SHAPES + 1] = {NSM_OP_MINS(NSM_MIN_ROW)};

enum { P_BARRIER, P_BCAST, P_ALLREDUCE, P_REDUCE, P_GATHER, P_SCATTER, P_ALLGATHER, P_OPS };
static const int op_id[P_OPS] = {NSM_OP_BARRIER_INIT, NSM_OP_BCAST_INIT,  NSM_OP_ALLREDUCE_INIT, NSM_OP_REDUCE_INIT,
                                 NSM_OP_GATHER_INIT,  NSM_OP_SCATTER_INIT, NSM_OP_ALLGATHER_INIT};
static const char *const op_name[P_OPS] = {"barrier_init", "bcast_init",   "allreduce_init", "reduce_init",
                                           "gather_init",  "scatter_init", "allgather_init"};
static long want[P_OPS], moved_sum[P_OPS], lib_calls[P_OPS];
static int wsize, calls;

static long long value(int q, int call, int start, long i)
{
    return (long long)(mix(seed ^ mix(((uint64_t)call << 44) ^ ((uint64_t)start << 40) ^ ((uint64_t)q << 24) ^
                                      (uint64_t)i)) >> 12);
}

/* The column of NSM_OPS for a job whose fullest (pseudo-)node holds per_node ranks: one node of
 * at most 2, 3-4, 5 and more ranks (0-2), the same over several nodes (3-5); worked out here,
 * not by the library's nsm_shape, so that a wrong column there fails here. */
static int column(int per_node, int several) { return (several ? 3 : 0) + (per_node <= 2 ? 0 : per_node <= 4 ? 1 : 2); }

/* One request of op at bytes (long longs), started twice on fresh data; each start's counter
 * and values checked. */
static void one(int p, long bytes, int accel, MPI_Comm comm)
{
    int call = calls++, me, root = call % wsize;
    long n = bytes / 8;
    size_t all = (size_t)(n ? n : 1) * (size_t)wsize * sizeof(long long);
    long long *send = malloc(all), *recv = malloc(all), *ref = malloc(all);
    MPI_Comm_rank(comm, &me);
    MPI_Request req;
    switch (p) {
    case P_BARRIER: MPI_Barrier_init(comm, MPI_INFO_NULL, &req); break;
    case P_BCAST: MPI_Bcast_init(recv, (int)n, MPI_LONG_LONG, root, comm, MPI_INFO_NULL, &req); break;
    case P_ALLREDUCE:
        MPI_Allreduce_init(send, recv, (int)n, MPI_LONG_LONG, MPI_SUM, comm, MPI_INFO_NULL, &req);
        break;
    case P_REDUCE: MPI_Reduce_init(send, recv, (int)n, MPI_LONG_LONG, MPI_SUM, root, comm, MPI_INFO_NULL, &req); break;
    case P_GATHER:
        MPI_Gather_init(send, (int)n, MPI_LONG_LONG, recv, (int)n, MPI_LONG_LONG, root, comm, MPI_INFO_NULL, &req);
        break;
    case P_SCATTER:
        MPI_Scatter_init(send, (int)n, MPI_LONG_LONG, recv, (int)n, MPI_LONG_LONG, root, comm, MPI_INFO_NULL, &req);
        break;
    default:
        MPI_Allgather_init(send, (int)n, MPI_LONG_LONG, recv, (int)n, MPI_LONG_LONG, comm, MPI_INFO_NULL, &req);
        break;
    }
    for (int start = 0; start < 2; start++) {
        /* fresh data: every rank's send buffer (bcast: the root's message), garbage elsewhere */
        for (long i = 0; i < n * wsize; i++) send[i] = value(me, call, start, i), recv[i] = ref[i] = -7 - i;
        if (p == P_BCAST && me == root) memcpy(recv, send, (size_t)n * sizeof *recv);
        long before = nodeshm_mpi_accelerated_op(op_name[p]), moved, lo, hi;
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        moved = nodeshm_mpi_accelerated_op(op_name[p]) - before;
        PMPI_Allreduce(&moved, &lo, 1, MPI_LONG, MPI_MIN, comm);
        PMPI_Allreduce(&moved, &hi, 1, MPI_LONG, MPI_MAX, comm);
        CHECK(accel ? lo == 1 && hi == 1 : hi == 0,
              "%s of %ld bytes (start %d, root %d): its counter moved by %ld-%ld over the ranks, expected %s", op_name[p],
              bytes, start, root, lo, hi, accel ? "1 on every rank (inside the default window)" : "0 (the MPI library's)");
        want[p] += accel;
        moved_sum[p] += moved;
        lib_calls[p] += !accel;
        /* the library's result on the same data */
        size_t check = (size_t)n * sizeof *ref;
        switch (p) {
        case P_BARRIER: PMPI_Barrier(comm); check = 0; break;
        case P_BCAST:
            if (me == root) memcpy(ref, send, check);
            PMPI_Bcast(ref, (int)n, MPI_LONG_LONG, root, comm);
            break;
        case P_ALLREDUCE: PMPI_Allreduce(send, ref, (int)n, MPI_LONG_LONG, MPI_SUM, comm); break;
        case P_REDUCE:
            PMPI_Reduce(send, ref, (int)n, MPI_LONG_LONG, MPI_SUM, root, comm);
            if (me != root) check = 0;
            break;
        case P_GATHER:
            PMPI_Gather(send, (int)n, MPI_LONG_LONG, ref, (int)n, MPI_LONG_LONG, root, comm);
            check = me == root ? check * (size_t)wsize : 0;
            break;
        case P_SCATTER: PMPI_Scatter(send, (int)n, MPI_LONG_LONG, ref, (int)n, MPI_LONG_LONG, root, comm); break;
        default:
            PMPI_Allgather(send, (int)n, MPI_LONG_LONG, ref, (int)n, MPI_LONG_LONG, comm);
            check *= (size_t)wsize;
            break;
        }
        CHECK(!memcmp(recv, ref, check), "%s of %ld bytes (start %d, root %d, %s): result differs from PMPI's",
              op_name[p], bytes, start, root, hi ? "accelerated" : "the library's");
    }
    MPI_Request_free(&req);
    free(send);
    free(recv);
    free(ref);
}

int main(int argc, char **argv)
{
    int want_shape = -1;
    MPI_Init(&argc, &argv);
    mpi_check_seed();
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--shape") && i + 1 < argc) want_shape = atoi(argv[++i]);
        else {
            if (wrank == 0) fprintf(stderr, "usage: mpi_persist_defaults [--shape K]\n");
            MPI_Finalize();
            return 2;
        }
    }
    const char *ppn = getenv("NODESHM_PES_PER_NODE");
    int pseudo = ppn && atoi(ppn) > 0, per_node = fullest_node(MPI_COMM_WORLD), several = !on_one_node(MPI_COMM_WORLD);
    int k = column(per_node, several), k_min = column(per_node, several && !pseudo), active = wsize > 1 && per_node >= 2;
    CHECK(want_shape < 0 || k == want_shape, "the job's shape is column %d (%d ranks, at most %d on a node, %s), "
          "expected %d", k, wsize, per_node, several ? "several nodes" : "one node", want_shape);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Barrier(comm); /* its state */
    if (wrank == 0)
        printf("mpi_persist_defaults: %d ranks, at most %d on a %snode, %s: column %d (lower bounds %d), seed %llu\n",
               wsize, per_node, pseudo ? "pseudo-" : "", several ? "several nodes" : "one node", k, k_min,
               (unsigned long long)seed);
    for (int p = 0; p < P_OPS; p++) {
        size_t hi = max_default[op_id[p]][k], lo = min_default[op_id[p]][k_min];
        if (p == P_BARRIER) {
            one(p, 0, active && hi, comm); /* on one node too (Open MPI <= 2 ranks: the library's) */
        } else if (!hi) { /* off on this shape */
            one(p, 8, 0, comm);
            one(p, 4096, 0, comm);
        } else {
            if (lo > 8) one(p, (long)lo - 8, 0, comm);
            one(p, lo > 8 ? (long)lo : 8, active, comm);
            one(p, (long)hi, active, comm);
            one(p, (long)hi + 8, 0, comm);
        }
        if (wrank == 0 && p == P_BARRIER)
            printf("  %-15s %s: %ld starts accelerated, %ld the library's\n", op_name[p],
                   hi ? "on" : "off", want[p], lib_calls[p]);
        else if (wrank == 0)
            printf("  %-15s window %zu-%zu B: %ld starts accelerated, %ld the library's\n", op_name[p], lo, hi,
                   want[p], lib_calls[p]);
    }
    /* every op had a start that must be accelerated, where any can be: else it cannot fail there */
    int vacuous = 0;
    for (int p = 0; p < P_OPS; p++) vacuous |= active && max_default[op_id[p]][k] && !want[p];
    CHECK(!vacuous, "an op with a window here had no start expected accelerated");
    MPI_Comm_free(&comm);
    long f = failures, total;
    PMPI_Allreduce(&f, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0) {
        if (total) printf("mpi_persist_defaults: FAIL (%ld failures)\n", total);
        else {
            printf("mpi_persist_defaults: PASS (%ld checks on rank 0; starts accelerated on rank 0:", checks);
            for (int p = 0; p < P_OPS; p++) printf(" %s %ld", op_name[p], moved_sum[p]);
            printf(")\n");
        }
    }
    MPI_Finalize();
    return total ? 1 : 0;
}
#endif
