/* NODESHM_MPI_STATS: a known number of calls per op and per outcome (accelerated, empty, and each
 * reason a call goes to the MPI library), then rank 0 writes what the report must say
 * (argv[1]: "op,field,value" lines, summed over ranks) for tests/mpi_stats.py to compare.
 * Every rank makes the same calls with the same byte counts, so a sum is ranks x one rank's.
 *
 * Needs the settings of tests/mpi_stats.cmake: every op's MAX 4k, MIN 16 (gatherv, scatterv,
 * allgatherv 0), NODESHM_MPI_DISABLE=allgatherv.  NODESHM_PES_PER_NODE (pseudo-nodes) is read
 * here too: gatherv and scatterv then span nodes. */

#include <mpi.h>
#include <nodeshm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BARRIER, BCAST, GATHER, GATHERV, SCATTER, SCATTERV, ALLGATHER, ALLGATHERV, REDUCE, ALLREDUCE,
       REDUCE_SCATTER_BLOCK, ALLTOALL, ALLTOALLV, NOPS };
static const char *const op_name[NOPS] = {"barrier", "bcast", "gather", "gatherv", "scatter", "scatterv",
                                          "allgather", "allgatherv", "reduce", "allreduce",
                                          "reduce_scatter_block", "alltoall", "alltoallv"};
/* the outcomes the report counts (its columns) */
enum { ACCEL, EMPTY, DISABLED, BELOW_MIN, ABOVE_MAX, OPR, INTER, ALONE, NODES, NOUT };
static const char *const out_name[NOUT] = {"accelerated", "empty", "disabled", "below_min", "above_max",
                                           "reduce_op", "inter", "alone", "nodes"};
static long expect_calls[NOPS][NOUT], expect_bytes[NOPS];

/* one call of op made by this rank, with this outcome and these bytes (stats.c's definition) */
static void expect(int op, int outcome, long bytes)
{
    expect_calls[op][outcome]++;
    expect_bytes[op] += bytes;
}

static void fail(const char *what)
{
    fprintf(stderr, "mpi_stats: FAIL: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++) ((double *)inout)[i] += ((double *)in)[i];
}

#define N_IN 10   /* in-window calls per op */
#define SMALL 8   /* doubles: 64 B, inside every window */
#define BIG 1024  /* doubles: 8 KiB, above the 4k windows */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || size < 2) fail("usage: mpi_stats EXPECT_FILE, at least 2 ranks");
    const char *ppn_text = getenv("NODESHM_PES_PER_NODE");
    int ppn = ppn_text ? atoi(ppn_text) : size;
    int one_node = ppn >= size;
    const long D = sizeof(double);
    double *a = calloc((size_t)BIG * size, sizeof(double)), *b = calloc((size_t)BIG * size, sizeof(double));
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    if (!a || !b || !counts || !displs) fail("out of memory");
    for (int i = 0; i < BIG * size; i++) a[i] = rank + i;
    MPI_Datatype vec; /* a derived datatype of SMALL doubles: bcast and allgather take it */
    MPI_Type_contiguous(SMALL, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    MPI_Op mysum;
    MPI_Op_create(user_sum, 1, &mysum);

    for (int i = 0; i < N_IN; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        expect(BARRIER, ACCEL, 0);
        MPI_Bcast(a, SMALL, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        expect(BCAST, ACCEL, SMALL * D);
        MPI_Gather(a, SMALL, MPI_DOUBLE, b, SMALL, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        expect(GATHER, ACCEL, SMALL * D);
        for (int r = 0; r < size; r++) counts[r] = SMALL, displs[r] = r * SMALL;
        MPI_Gatherv(a, SMALL, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        expect(GATHERV, one_node ? ACCEL : NODES, SMALL * D);
        MPI_Scatter(a, SMALL, MPI_DOUBLE, b, SMALL, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        expect(SCATTER, ACCEL, SMALL * D);
        MPI_Scatterv(a, counts, displs, MPI_DOUBLE, b, SMALL, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        expect(SCATTERV, one_node ? ACCEL : NODES, SMALL * D);
        MPI_Allgather(a, SMALL, MPI_DOUBLE, b, SMALL, MPI_DOUBLE, MPI_COMM_WORLD);
        expect(ALLGATHER, ACCEL, SMALL * D);
        MPI_Reduce(a, b, SMALL, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        expect(REDUCE, ACCEL, SMALL * D);
        MPI_Allreduce(a, b, SMALL, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        expect(ALLREDUCE, ACCEL, SMALL * D);
        MPI_Reduce_scatter_block(a, b, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        expect(REDUCE_SCATTER_BLOCK, ACCEL, 2 * D * size);
        MPI_Alltoall(a, 2, MPI_DOUBLE, b, 2, MPI_DOUBLE, MPI_COMM_WORLD);
        expect(ALLTOALL, ACCEL, 2 * D * size);
        for (int r = 0; r < size; r++) counts[r] = 2, displs[r] = 2 * r;
        MPI_Alltoallv(a, counts, displs, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
        expect(ALLTOALLV, ACCEL, 2 * D * size);
    }
    /* derived datatypes (bcast and allgather pack them): accelerated */
    for (int i = 0; i < 2; i++) {
        MPI_Bcast(a, 1, vec, 0, MPI_COMM_WORLD);
        expect(BCAST, ACCEL, SMALL * D);
        MPI_Allgather(a, 1, vec, b, 1, vec, MPI_COMM_WORLD);
        expect(ALLGATHER, ACCEL, SMALL * D);
    }
    /* nothing to move */
    MPI_Bcast(a, 0, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    expect(BCAST, EMPTY, 0);
    MPI_Allreduce(a, b, 0, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    expect(ALLREDUCE, EMPTY, 0);
    /* below MIN (16 B) */
    for (int i = 0; i < 3; i++) {
        MPI_Bcast(a, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        expect(BCAST, BELOW_MIN, D);
        MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD);
        expect(GATHER, BELOW_MIN, sizeof(int));
        MPI_Reduce(a, b, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        expect(REDUCE, BELOW_MIN, D);
    }
    /* above MAX (4k) */
    for (int i = 0; i < 2; i++) {
        MPI_Bcast(a, BIG, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        expect(BCAST, ABOVE_MAX, BIG * D);
        MPI_Gather(a, BIG, MPI_DOUBLE, b, BIG, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        expect(GATHER, ABOVE_MAX, BIG * D);
        MPI_Scatter(a, BIG, MPI_DOUBLE, b, BIG, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        expect(SCATTER, ABOVE_MAX, BIG * D);
        MPI_Allreduce(a, b, BIG, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        expect(ALLREDUCE, ABOVE_MAX, BIG * D);
        MPI_Alltoall(a, BIG, MPI_DOUBLE, b, BIG, MPI_DOUBLE, MPI_COMM_WORLD);
        expect(ALLTOALL, ABOVE_MAX, BIG * D * size);
    }
    /* a user-defined reduction op */
    for (int i = 0; i < 3; i++) {
        MPI_Reduce(a, b, SMALL, MPI_DOUBLE, mysum, 0, MPI_COMM_WORLD);
        expect(REDUCE, OPR, SMALL * D);
        MPI_Allreduce(a, b, SMALL, MPI_DOUBLE, mysum, MPI_COMM_WORLD);
        expect(ALLREDUCE, OPR, SMALL * D);
        MPI_Reduce_scatter_block(a, b, 2, MPI_DOUBLE, mysum, MPI_COMM_WORLD);
        expect(REDUCE_SCATTER_BLOCK, OPR, 2 * D * size);
    }
    /* switched off by NODESHM_MPI_DISABLE=allgatherv */
    for (int r = 0; r < size; r++) counts[r] = SMALL, displs[r] = r * SMALL;
    for (int i = 0; i < 3; i++) {
        MPI_Allgatherv(a, SMALL, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
        expect(ALLGATHERV, DISABLED, SMALL * D);
    }
    /* alltoallv: blocks above the stride go point to point, on one node and between nodes:
     * every call is accelerated */
    for (int r = 0; r < size; r++) counts[r] = BIG, displs[r] = BIG * r;
    MPI_Alltoallv(a, counts, displs, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    expect(ALLTOALLV, ACCEL, BIG * D * size);
    for (int r = 0; r < size; r++) counts[r] = 2, displs[r] = 2 * r;
    MPI_Alltoallv(a, counts, displs, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    expect(ALLTOALLV, ACCEL, 2 * D * size);
    MPI_Alltoallv(a, counts, displs, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    expect(ALLTOALLV, ACCEL, 2 * D * size);
    /* a communicator of one rank */
    for (int i = 0; i < 2; i++) {
        MPI_Barrier(MPI_COMM_SELF);
        expect(BARRIER, ALONE, 0);
        MPI_Bcast(a, SMALL, MPI_DOUBLE, 0, MPI_COMM_SELF);
        expect(BCAST, ALONE, SMALL * D);
        MPI_Allreduce(a, b, SMALL, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
        expect(ALLREDUCE, ALONE, SMALL * D);
    }
    /* an intercommunicator: even ranks and odd ranks */
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 77, &inter);
    for (int i = 0; i < 2; i++) {
        MPI_Barrier(inter);
        expect(BARRIER, INTER, 0);
        int root = rank % 2 ? 0 : rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
        MPI_Bcast(a, SMALL, MPI_DOUBLE, root, inter);
        expect(BCAST, INTER, SMALL * D);
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
#if defined(MPICH_VERSION) && MPI_VERSION >= 4
    /* the MPI-4 large-count entries run the same code: counted under their op */
    for (int i = 0; i < 2; i++) {
        MPI_Bcast_c(a, SMALL, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        expect(BCAST, ACCEL, SMALL * D);
        MPI_Allreduce_c(a, b, SMALL, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        expect(ALLREDUCE, ACCEL, SMALL * D);
    }
#endif
    /* nodeshm_mpi_accelerated_op still says what the report's accelerated column says */
    for (int op = 0; op < NOPS; op++)
        if (nodeshm_mpi_accelerated_op(op_name[op]) != expect_calls[op][ACCEL]) {
            char what[128];
            snprintf(what, sizeof what, "nodeshm_mpi_accelerated_op(\"%s\") = %ld, expected %ld", op_name[op],
                     nodeshm_mpi_accelerated_op(op_name[op]), expect_calls[op][ACCEL]);
            fail(what);
        }
    if (rank == 0) {
        FILE *f = fopen(argv[1], "w");
        if (!f) fail("cannot write the expectations");
        fprintf(f, "ranks,%d\n", size);
        for (int op = 0; op < NOPS; op++) {
            long calls = 0;
            for (int o = 0; o < NOUT; o++) {
                calls += expect_calls[op][o];
                fprintf(f, "%s,%s,%ld\n", op_name[op], out_name[o], expect_calls[op][o] * size);
            }
            fprintf(f, "%s,calls,%ld\n%s,bytes,%ld\n", op_name[op], calls * size, op_name[op],
                    expect_bytes[op] * size);
        }
        fclose(f);
        printf("mpi_stats: %d ranks: calls made, expectations in %s\n", size, argv[1]);
    }
    MPI_Type_free(&vec);
    MPI_Op_free(&mysum);
    free(a);
    free(b);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
