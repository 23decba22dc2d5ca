/* libnodeshm_mpi: the rooted collectives (bcast, gather, scatter, reduce; gatherv and scatterv,
 * which go to the MPI library between nodes) with every root in turn, on fresh random data,
 * back to back without barriers, each call checked against values any rank recomputes, and
 * counted per call by its op's own counter (nodeshm_mpi_accelerated_op): a call expected
 * accelerated must move it by one on every rank, one expected to be the MPI library's by none.
 * Written for emulated hosts (tests/hosts.cmake), where a root may be a node leader or not, on
 * the first node or another, and for the defaults by communicator shape (src/mpi/nsmpi_config.h).
 *
 * Arguments: "op:bytes" (accelerated) or "op:bytes:lib" (the MPI library's), bytes a multiple of
 * 8 (k and m suffixes); every argument runs once per root, plain and, for gather, scatter and
 * reduce, with MPI_IN_PLACE at the root.  Op bcast_vec: MPI_Bcast with a strided derived type on
 * the even ranks (counted as bcast). */
#include "mpi_check.h"

#include "nodeshm.h"

#include <string.h>

static long calls;

static long long value(int q, long call, long i)
{
    return (long long)(mix(seed ^ mix(((uint64_t)call << 40) ^ ((uint64_t)q << 24) ^ (uint64_t)i)) >> 12);
}

static long parse_bytes(const char *text)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*end == 'k' || *end == 'K') v <<= 10;
    else if (*end == 'm' || *end == 'M') v <<= 20;
    return v;
}

/* One call of op with root, n long longs per rank (or the message); returns the wrong values. */
static long one_call(const char *op, long n, int root, int in_place, int rank, int size, int *known)
{
    long tid = calls++, bad = 0;
    int at_root = rank == root;
    size_t all = (size_t)n * (size_t)size * sizeof(long long);
    long long *a = malloc(all ? all : 8), *b = malloc(all ? all : 8);
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    for (int q = 0; q < size; q++) {
        counts[q] = (int)n;
        displs[q] = (size - 1 - q) * (int)n; /* blocks in reverse order: displacements matter */
    }
    for (long i = 0; i < n * size; i++) a[i] = value(rank, tid, i);
    for (long i = 0; i < n * size; i++) b[i] = -1;
    *known = 1;
    if (!strcmp(op, "bcast")) {
        if (!at_root) memset(a, 0, (size_t)n * sizeof(long long));
        MPI_Bcast(a, (int)n, MPI_LONG_LONG, root, MPI_COMM_WORLD);
        for (long i = 0; i < n; i++) bad += a[i] != value(root, tid, i);
    } else if (!strcmp(op, "bcast_vec")) {
        /* a derived datatype: every other long long of 2n on even ranks (the root packs it, readers
         * unpack into it: the gaps keep their value), n contiguous ones on odd ranks (the same
         * type signature) */
        MPI_Datatype vec;
        MPI_Type_vector((int)n, 1, 2, MPI_LONG_LONG, &vec);
        MPI_Type_commit(&vec);
        int strided = rank % 2 == 0;
        long long *v = malloc(sizeof(long long) * (size_t)(2 * n + 1));
        for (long i = 0; i < 2 * n + 1; i++) v[i] = -7;
        for (long i = 0; i < n; i++) v[strided ? 2 * i : i] = at_root ? value(root, tid, i) : 0;
        MPI_Bcast(v, strided ? 1 : (int)n, strided ? vec : MPI_LONG_LONG, root, MPI_COMM_WORLD);
        for (long i = 0; i < n; i++) bad += v[strided ? 2 * i : i] != value(root, tid, i);
        for (long i = strided ? 1 : n; i < 2 * n + 1; i += strided ? 2 : 1) bad += v[i] != -7;
        MPI_Type_free(&vec);
        free(v);
    } else if (!strcmp(op, "gather")) {
        if (in_place && at_root) {
            for (long i = 0; i < n; i++) b[root * n + i] = a[i];
            MPI_Gather(MPI_IN_PLACE, (int)n, MPI_LONG_LONG, b, (int)n, MPI_LONG_LONG, root, MPI_COMM_WORLD);
        } else {
            MPI_Gather(a, (int)n, MPI_LONG_LONG, b, (int)n, MPI_LONG_LONG, root, MPI_COMM_WORLD);
        }
        for (int q = 0; at_root && q < size; q++)
            for (long i = 0; i < n; i++) bad += b[q * n + i] != value(q, tid, i);
    } else if (!strcmp(op, "gatherv")) {
        MPI_Gatherv(a, (int)n, MPI_LONG_LONG, b, counts, displs, MPI_LONG_LONG, root, MPI_COMM_WORLD);
        for (int q = 0; at_root && q < size; q++)
            for (long i = 0; i < n; i++) bad += b[displs[q] + i] != value(q, tid, i);
    } else if (!strcmp(op, "scatter")) {
        if (in_place && at_root) {
            MPI_Scatter(a, (int)n, MPI_LONG_LONG, MPI_IN_PLACE, (int)n, MPI_LONG_LONG, root, MPI_COMM_WORLD);
            for (long i = 0; i < n * size; i++) bad += a[i] != value(root, tid, i); /* untouched */
        } else {
            MPI_Scatter(a, (int)n, MPI_LONG_LONG, b, (int)n, MPI_LONG_LONG, root, MPI_COMM_WORLD);
            for (long i = 0; i < n; i++) bad += b[i] != value(root, tid, rank * n + i);
        }
    } else if (!strcmp(op, "scatterv")) {
        MPI_Scatterv(a, counts, displs, MPI_LONG_LONG, b, (int)n, MPI_LONG_LONG, root, MPI_COMM_WORLD);
        for (long i = 0; i < n; i++) bad += b[i] != value(root, tid, displs[rank] + i);
    } else if (!strcmp(op, "reduce")) {
        if (in_place && at_root) {
            for (long i = 0; i < n; i++) b[i] = a[i];
            MPI_Reduce(MPI_IN_PLACE, b, (int)n, MPI_LONG_LONG, MPI_SUM, root, MPI_COMM_WORLD);
        } else {
            MPI_Reduce(a, b, (int)n, MPI_LONG_LONG, MPI_SUM, root, MPI_COMM_WORLD);
        }
        for (long i = 0; at_root && i < n; i++) {
            long long want = 0;
            for (int q = 0; q < size; q++) want += value(q, tid, i);
            bad += b[i] != want;
        }
    } else {
        *known = 0;
    }
    free(a);
    free(b);
    free(counts);
    free(displs);
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
    /* per call: its op's counter moved by (here), and whether it should have; compared over the
     * ranks only at the end, so the calls run back to back, root after root */
    long cap = 64, ncalls = 0, *moved = malloc(sizeof(long) * (size_t)cap);
    char (*what)[160] = malloc(sizeof *what * (size_t)cap);
    int *want = malloc(sizeof(int) * (size_t)cap);
    for (int a = 1; a < argc; a++) {
        char spec[128], *op, *bytes_text;
        int want_acc;
        if (!call_spec(argv[a], spec, &op, &bytes_text, &want_acc)) continue;
        long bytes = parse_bytes(bytes_text);
        CHECK(bytes > 0 && bytes % 8 == 0, "'%s': bytes must be a positive multiple of 8", argv[a]);
        if (bytes <= 0 || bytes % 8) continue;
        int has_in_place = !strcmp(op, "gather") || !strcmp(op, "scatter") || !strcmp(op, "reduce");
        for (int in_place = 0; in_place <= has_in_place; in_place++)
            for (int root = 0; root < size; root++) {
                if (ncalls == cap) {
                    cap *= 2;
                    moved = realloc(moved, sizeof(long) * (size_t)cap);
                    what = realloc(what, sizeof *what * (size_t)cap);
                    want = realloc(want, sizeof(int) * (size_t)cap);
                }
                const char *counter = strcmp(op, "bcast_vec") ? op : "bcast"; /* its op's counter */
                long before = nodeshm_mpi_accelerated_op(counter);
                int known;
                long bad = one_call(op, bytes / 8, root, in_place, rank, size, &known);
                moved[ncalls] = nodeshm_mpi_accelerated_op(counter) - before;
                want[ncalls] = want_acc;
                snprintf(what[ncalls], sizeof what[ncalls], "%.40s of %ld bytes, root %d%s", op, bytes, root,
                         in_place ? " (in place)" : "");
                CHECK(known, "unknown op '%s'", op);
                CHECK(!bad, "%s: %ld wrong values", what[ncalls], bad);
                ncalls++;
            }
    }
    long *lo = malloc(sizeof(long) * (size_t)(ncalls + 1)), *hi = malloc(sizeof(long) * (size_t)(ncalls + 1));
    PMPI_Allreduce(moved, lo, (int)ncalls, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Allreduce(moved, hi, (int)ncalls, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    for (long c = 0; rank == 0 && c < ncalls; c++) {
        CHECK(want[c] ? lo[c] == 1 && hi[c] == 1 : hi[c] == 0,
              "%d ranks, at most %d per node: %s: its counter moved by %ld-%ld over the ranks, expected %s",
              size, per_node, what[c], lo[c], hi[c],
              want[c] ? "1 on every rank (accelerated)" : "0 (the MPI library's)");
        if (getenv("NODESHM_TEST_VERBOSE")) printf("%s: %s\n", what[c], hi[c] ? "accelerated" : "MPI library");
    }
    free(lo);
    free(hi);
    free(moved);
    free(what);
    free(want);
    long f = failures, total;
    PMPI_Allreduce(&f, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_rooted: %d ranks, at most %d per node: %ld calls, %s\n", size, per_node, ncalls,
               total ? "FAILED" : "ok");
    MPI_Finalize();
    return total ? 1 : 0;
}
