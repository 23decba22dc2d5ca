/* libnodeshm_mpi: which calls the default (or set) size windows accelerate, per op, by the op's
 * own counter (nodeshm_mpi_accelerated_op), never a total: a call of one op counts only if that
 * op's counter moved by one on every rank, and a call expected to go to the MPI library only if
 * it moved on none.  Values are checked too.
 *
 * Arguments: calls on MPI_COMM_WORLD, in order, each "op:bytes" (expected accelerated) or
 * "op:bytes:lib" (expected left to the MPI library).  op: bcast gather scatter reduce allreduce
 * allgather alltoall reduce_scatter_block; bytes: a plain count or with k/m (a multiple of 8),
 * as the op's window counts them (per rank for gather, scatter, allgather; per rank pair for
 * alltoall; the whole vector for reduce_scatter_block; the message otherwise), or "small": the
 * smallest message the defaults accelerate on this communicator (8 B; Open MPI's default lower
 * bound of 512 B for bcast, gather, scatter and reduce where every node holds at most 2 ranks).
 * Run by tests/mpi.cmake under several shapes (ranks, NODESHM_PES_PER_NODE) and settings. */
#include "mpi_check.h"

#include "nodeshm.h"

#include <string.h>

static long calls;

static long long value(int q, long call, long i)
{
    return (long long)(mix(seed ^ mix(((uint64_t)call << 40) ^ ((uint64_t)q << 24) ^ (uint64_t)i)) >> 12);
}

static long parse_bytes(const char *op, const char *text, int per_node)
{
    if (!strcmp(text, "small")) {
#ifdef OMPI_MAJOR_VERSION
        int rooted = !strcmp(op, "bcast") || !strcmp(op, "gather") || !strcmp(op, "scatter") || !strcmp(op, "reduce");
        if (rooted && per_node <= 2) return 512;
#endif
        (void)op, (void)per_node;
        return 8;
    }
    char *end;
    long v = strtol(text, &end, 10);
    if (*end == 'k' || *end == 'K') v <<= 10;
    else if (*end == 'm' || *end == 'M') v <<= 20;
    return v;
}

/* One call; returns 0 on success, or fills why. */
static int one_call(const char *op, long bytes, int rank, int size)
{
    long tid = calls++;
    long n = bytes / 8; /* long longs */
    int root = size - 1, bad = 0, known = 1;
    size_t all = (size_t)bytes * (size_t)size;
    long long *a = malloc(all ? all : 8), *b = malloc(all ? all : 8);
    for (long i = 0; i < n * size; i++) a[i] = value(rank, tid, i);
    if (!strcmp(op, "bcast")) {
        if (rank != root) memset(a, 0, (size_t)bytes);
        MPI_Bcast(a, (int)n, MPI_LONG_LONG, root, MPI_COMM_WORLD);
        for (long i = 0; i < n; i++) bad += a[i] != value(root, tid, i);
    } else if (!strcmp(op, "gather")) {
        MPI_Gather(a, (int)n, MPI_LONG_LONG, b, (int)n, MPI_LONG_LONG, root, MPI_COMM_WORLD);
        for (int q = 0; rank == root && q < size; q++)
            for (long i = 0; i < n; i++) bad += b[q * n + i] != value(q, tid, i);
    } else if (!strcmp(op, "scatter")) {
        MPI_Scatter(a, (int)n, MPI_LONG_LONG, b, (int)n, MPI_LONG_LONG, root, MPI_COMM_WORLD);
        for (long i = 0; i < n; i++) bad += b[i] != value(root, tid, rank * n + i);
    } else if (!strcmp(op, "allgather")) {
        MPI_Allgather(a, (int)n, MPI_LONG_LONG, b, (int)n, MPI_LONG_LONG, MPI_COMM_WORLD);
        for (int q = 0; q < size; q++)
            for (long i = 0; i < n; i++) bad += b[q * n + i] != value(q, tid, i);
    } else if (!strcmp(op, "alltoall")) {
        MPI_Alltoall(a, (int)n, MPI_LONG_LONG, b, (int)n, MPI_LONG_LONG, MPI_COMM_WORLD);
        for (int q = 0; q < size; q++)
            for (long i = 0; i < n; i++) bad += b[q * n + i] != value(q, tid, rank * n + i);
    } else if (!strcmp(op, "reduce") || !strcmp(op, "allreduce")) {
        int allr = op[0] == 'a';
        allr ? MPI_Allreduce(a, b, (int)n, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD)
             : MPI_Reduce(a, b, (int)n, MPI_LONG_LONG, MPI_SUM, root, MPI_COMM_WORLD);
        for (long i = 0; (allr || rank == root) && i < n; i++) {
            long long want = 0;
            for (int q = 0; q < size; q++) want += value(q, tid, i);
            bad += b[i] != want;
        }
    } else if (!strcmp(op, "reduce_scatter_block")) {
        long per = n / size;
        MPI_Reduce_scatter_block(a, b, (int)per, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        for (long i = 0; i < per; i++) {
            long long want = 0;
            for (int q = 0; q < size; q++) want += value(q, tid, rank * per + i);
            bad += b[i] != want;
        }
    } else {
        known = 0;
    }
    free(a);
    free(b);
    CHECK(known, "unknown op '%s'", op);
    CHECK(!bad, "%s of %ld bytes: %d wrong values", op, bytes, bad);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    mpi_check_seed();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int per_node = fullest_node(MPI_COMM_WORLD);
    for (int a = 1; a < argc; a++) {
        char spec[128], *op, *bytes_text;
        int want;
        if (!call_spec(argv[a], spec, &op, &bytes_text, &want)) continue;
        long bytes = parse_bytes(op, bytes_text, per_node);
        long before = nodeshm_mpi_accelerated_op(op);
        one_call(op, bytes, rank, size);
        long moved = nodeshm_mpi_accelerated_op(op) - before, lo, hi;
        PMPI_Allreduce(&moved, &lo, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
        PMPI_Allreduce(&moved, &hi, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
        CHECK(want ? lo == 1 && hi == 1 : hi == 0,
              "%d ranks, at most %d per node: %s of %ld bytes: its counter moved by %ld-%ld over the ranks, "
              "expected %s", size, per_node, op, bytes, lo, hi, want ? "1 on every rank (accelerated)"
                                                                     : "0 (the MPI library's)");
        if (rank == 0 && getenv("NODESHM_TEST_VERBOSE"))
            printf("%s %ld bytes: %s\n", op, bytes, hi ? "accelerated" : "MPI library");
    }
    long f = failures, total;
    PMPI_Allreduce(&f, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("mpi_op_windows: %d ranks, at most %d per node: %d calls, %s\n", size, per_node,
                          argc - 1, total ? "FAILED" : "ok");
    MPI_Finalize();
    return total ? 1 : 0;
}
