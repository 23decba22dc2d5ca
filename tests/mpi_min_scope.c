/* libnodeshm_mpi: where the lower bounds (NODESHM_MPI_<OP>_MIN) hold.  A default bound (Open
 * MPI: 512 B for bcast, gather, scatter and reduce; MPICH: none) applies only to communicators
 * with at most 2 ranks on every node; a bound set in the environment applies to all.  For each
 * such op, one 8-byte call and one 1 KiB call on every communicator shape of mpi_test_main
 * (the ranks of one parity have at most 2 on a node in a bigger world: the bound is then found
 * after the state lookup).  The interposer's counter
 * (nodeshm_mpi_accelerated) says whether the call was accelerated, which is compared with what
 * the rules say for that communicator; the values are checked too.
 * Run with NODESHM_PES_PER_NODE and NODESHM_MPI_<OP>_MIN (plain byte counts) in several ways
 * (tests/mpi.cmake): the expectation is computed from the same environment. */
#include "mpi_test_common.h"

#include "nodeshm.h"

/* Fresh random values, the same on every rank: element i of rank q's data in call `call`. */
static long long value(int q, long call, int i)
{
    return (long long)(mix(seed ^ mix(((uint64_t)call << 40) ^ ((uint64_t)q << 24) ^ (uint64_t)i)) >> 8);
}
static long calls; /* the same on every rank: every call is made by all */

enum { OP_BCAST, OP_GATHER, OP_SCATTER, OP_REDUCE, N_OPS };
static const char *op_names[N_OPS] = {"BCAST", "GATHER", "SCATTER", "REDUCE"};

/* The bound the rules give on a communicator whose fullest node holds `per_node` of its ranks. */
static long expected_min(int op, int per_node)
{
    char var[64];
    snprintf(var, sizeof var, "NODESHM_MPI_%s_MIN", op_names[op]);
    const char *set = getenv(var);
    if (set) return atol(set);
#ifdef OMPI_MAJOR_VERSION
    long dflt = 512;
#else
    long dflt = 0;
#endif
    return per_node <= 2 ? dflt : 0;
}

/* One call of `op` with `bytes` (a multiple of 8) on comm: returns 1 if any rank's counter
 * moved; checks the values. */
static int one_call(int op, MPI_Comm comm, const char *cname, int bytes)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int n = bytes / 8, root = size - 1;
    long tid = calls++;
    long long *a = malloc((size_t)bytes * (size_t)size), *b = malloc((size_t)bytes * (size_t)size);
    for (int i = 0; i < n * size; i++) a[i] = value(rank, tid, i);
    long before = nodeshm_mpi_accelerated();
    int bad = 0;
    switch (op) {
    case OP_BCAST:
        if (rank != root) memset(a, 0, (size_t)bytes);
        MPI_Bcast(a, n, MPI_LONG_LONG, root, comm);
        for (int i = 0; i < n; i++) bad += a[i] != value(root, tid, i);
        break;
    case OP_GATHER:
        MPI_Gather(a, n, MPI_LONG_LONG, b, n, MPI_LONG_LONG, root, comm);
        for (int q = 0; rank == root && q < size; q++)
            for (int i = 0; i < n; i++) bad += b[q * n + i] != value(q, tid, i);
        break;
    case OP_SCATTER:
        MPI_Scatter(a, n, MPI_LONG_LONG, b, n, MPI_LONG_LONG, root, comm);
        for (int i = 0; i < n; i++) bad += b[i] != value(root, tid, rank * n + i);
        break;
    default:
        MPI_Reduce(a, b, n, MPI_LONG_LONG, MPI_SUM, root, comm);
        for (int i = 0; rank == root && i < n; i++) {
            long long want = 0;
            for (int q = 0; q < size; q++) want += value(q, tid, i);
            bad += b[i] != want;
        }
    }
    CHECK(!bad, "%s: %s of %d bytes: %d wrong values", cname, op_names[op], bytes, bad);
    long moved = nodeshm_mpi_accelerated() != before, any;
    PMPI_Allreduce(&moved, &any, 1, MPI_LONG, MPI_MAX, comm);
    free(a);
    free(b);
    return (int)any;
}

static void test_comm(MPI_Comm comm, const char *cname)
{
    int size;
    MPI_Comm_size(comm, &size);
    int per_node = fullest_node(comm);
    for (int op = 0; op < N_OPS; op++)
        for (int bytes = 8; bytes <= 1024; bytes *= 128) {
            long lo = expected_min(op, per_node);
            /* accelerated only where a node holds 2 of the ranks, and inside the window */
            int want = size > 1 && per_node > 1 && bytes >= lo;
            int got = one_call(op, comm, cname, bytes);
            CHECK(got == want, "%s (%d ranks, at most %d on a node): %s of %d bytes %s accelerated, "
                  "expected %s (lower bound %ld)", cname, size, per_node, op_names[op], bytes,
                  got ? "was" : "was not", want ? "so" : "not", lo);
        }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rc = mpi_test_main(argc, argv, "mpi_min_scope", test_comm);
    MPI_Finalize();
    return rc;
}
