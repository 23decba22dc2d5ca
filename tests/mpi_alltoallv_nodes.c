/* libnodeshm_mpi: MPI_Alltoallv pair by pair, between nodes and on one node (src/mpi/alltoallv_pairs.c),
 * against the MPI library's own (PMPI_Alltoallv) on fresh random irregular counts: zeros, sparse
 * exchanges (a few partners per rank), blocks above the stride mixed with small ones in one call,
 * blocks of exactly the stride and one byte more, counts that differ per pair (so each node pair's
 * largest matrix block, which its two leaders compute apart, differs per pair), a whole node that
 * sends nothing to another, in place, a non-contiguous datatype, back to back without barriers;
 * on world and on a reversed communicator (nodes not contiguous in rank order).  Receive buffers
 * start filled with a marker, so a byte written outside its block fails too.  Every call is
 * counted: alltoallv's own counter (nodeshm_mpi_accelerated_op) must move by one per call on every
 * rank of a communicator with two ranks on some node (between nodes too: no call is handed over).
 *
 * Needs NODESHM_MPI_ALLTOALLV_MAX (the stride; tests/mpi_alltoallv.cmake): the boundary blocks
 * are sized from it. */
#include "mpi_check.h"

#include <dlfcn.h>

enum { PATTERNS = 10, ROUNDS = 3 };

static long (*op_fn)(const char *);
static long a2av_count(void) { return op_fn ? op_fn("alltoallv") : 0; }

static int stride_bytes; /* NODESHM_MPI_ALLTOALLV_MAX */
static int counted;      /* the communicator under test has two ranks on some node: every call counts */

/* Elements from rank i to rank j in call `it` of pattern p (both ends compute it; in place the
 * pattern is symmetric).  The patterns differ per pair, so per node pair; pattern 6 silences the
 * first half of the ranks, which leaves some node pairs with nothing to move and others with
 * something, whatever the node split. */
static int count_of(int p, int it, int i, int j, int size, int elem, int in_place)
{
    if (in_place && i > j) {
        int t = i;
        i = j, j = t;
    }
    uint64_t h = mix(seed ^ ((uint64_t)p << 56) ^ ((uint64_t)it << 40) ^ ((uint64_t)i << 20) ^ (uint64_t)j);
    const int T = stride_bytes / elem; /* elements in a stride */
    switch (p) {
    case 0: /* irregular, a quarter zero */
        return h % 4 == 0 ? 0 : (int)((h >> 8) % (uint64_t)(T + 1));
    case 1: /* sparse: about two partners per rank */
        return (h >> 4) % (uint64_t)size < 2 ? 1 + (int)((h >> 12) % (uint64_t)(T > 0 ? T : 1)) : 0;
    case 2: /* big blocks (up to 4 strides, now and then 160 KB: the library's rendezvous) mixed
             * with small ones */
        if (h % 29 == 0) return 160000 / elem;
        return h % 5 == 0 ? T + 1 + (int)((h >> 8) % (uint64_t)(3 * T + 1)) : (int)((h >> 8) % 9);
    case 3: /* at the boundary: exactly the stride, one element more, or nothing */
        return h % 3 == 0 ? T : h % 3 == 1 ? T + 1 : 0;
    case 4: /* nothing at all */
        return 0;
    case 5: /* one element per pair, but for one pair the whole stride */
        return i == it % size && j == (it + 1) % size ? T : 1;
    case 6: /* the first half of the ranks sends nothing, the rest small irregular blocks */
        return i < size / 2 ? 0 : (int)(h % 5);
    case 8: /* each rank with the ranks of its parity only, blocks of 1-128 B: under MPICH the
             * node pairs' blocks go rank to rank (core/coll/library_wins.h) */
        return (i ^ j) & 1 ? 0 : 1 + (int)((h >> 8) % (uint64_t)(128 / elem < T ? 128 / elem : T));
    case 9: /* as 8 from lower to higher ranks, one element per pair the other way: some node
             * pairs rank to rank one way and through the leaders the other */
        return i > j ? 1 : (i ^ j) & 1 ? 0 : 1 + (int)((h >> 8) % (uint64_t)(128 / elem < T ? 128 / elem : T));
    default: /* tiny: 0-3 elements */
        return (int)(h % 4);
    }
}

/* The datatypes: name, handle, bytes per element (its size). */
typedef struct ttype {
    const char *name;
    MPI_Datatype type;
    int size;
} ttype_t;

/* One call of pattern p with type t: MPI_Alltoallv against PMPI_Alltoallv, and its count. */
static void one_call(MPI_Comm comm, const char *cname, const ttype_t *t, int p, int it, int in_place)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *sc = malloc(sizeof(int) * 4 * (size_t)size), *sd = sc + size, *rc = sc + 2 * size, *rd = sc + 3 * size;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t->type, &lb, &ext);
    /* blocks in a permuted order with random gaps: displacements in elements */
    int spos = 1, rpos = 2;
    for (int j = 0; j < size; j++) {
        sc[j] = count_of(p, it, rank, j, size, t->size, in_place);
        rc[j] = count_of(p, it, j, rank, size, t->size, in_place);
    }
    for (int k = 0; k < size; k++) {
        int j = size - 1 - (k + it) % size; /* reversed, rotated */
        sd[j] = spos;
        spos += sc[j] + (int)(mix(seed ^ (uint64_t)(it * 131 + j)) % 3);
        rd[j] = rpos;
        rpos += rc[j] + (int)(mix(seed ^ (uint64_t)(it * 137 + j)) % 3);
    }
    if (in_place) memcpy(sd, rd, sizeof(int) * (size_t)size), spos = rpos;
    const size_t sbytes = (size_t)spos * (size_t)ext + 16, rbytes = (size_t)rpos * (size_t)ext + 16;
    unsigned char *src = malloc(sbytes), *a = malloc(rbytes), *b = malloc(rbytes), *tmp = malloc(rbytes);
    for (size_t k = 0; k < sbytes; k++) src[k] = (unsigned char)mix(seed ^ ((uint64_t)rank << 32) ^ (uint64_t)it ^ (k << 8));
    memset(a, 0xa5, rbytes);
    memset(b, 0xa5, rbytes);
    long before = a2av_count();
    if (in_place) {
        for (size_t k = 0; k < rbytes; k++) a[k] = src[k % sbytes];
        memcpy(b, a, rbytes);
        memcpy(tmp, a, rbytes);
        MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, a, rc, rd, t->type, comm);
        PMPI_Alltoallv(tmp, rc, rd, t->type, b, rc, rd, t->type, comm); /* the same, out of place */
    } else {
        MPI_Alltoallv(src, sc, sd, t->type, a, rc, rd, t->type, comm);
        PMPI_Alltoallv(src, sc, sd, t->type, b, rc, rd, t->type, comm);
    }
    long ran = a2av_count() - before;
    size_t where = 0;
    while (where < rbytes && a[where] == b[where]) where++;
    CHECK(where == rbytes, "%s: MPI_Alltoallv(%spattern %d, call %d, %s) differs from PMPI at byte %zu of %zu", cname,
          in_place ? "in place, " : "", p, it, t->name, where, rbytes);
    if (counted)
        CHECK(ran == 1, "%s: MPI_Alltoallv(%spattern %d, call %d, %s): alltoallv's counter moved by %ld, expected 1",
              cname, in_place ? "in place, " : "", p, it, t->name, ran);
    free(src), free(a), free(b), free(tmp);
    free(sc);
}

static void test_comm(MPI_Comm comm, const char *cname)
{
    MPI_Datatype gappy; /* 2 ints 1 apart: size 8, extent 12, not contiguous (packed) */
    MPI_Type_vector(2, 1, 2, MPI_INT, &gappy);
    MPI_Type_commit(&gappy);
    const ttype_t types[] = {{"MPI_BYTE", MPI_BYTE, 1}, {"MPI_INT", MPI_INT, 4}, {"MPI_DOUBLE", MPI_DOUBLE, 8},
                             {"vector of 2 ints", gappy, 8}};
    const int ntypes = (int)(sizeof types / sizeof *types);
    counted = op_fn && fullest_node(comm) >= 2;
    int it = 0;
    for (int round = 0; round < ROUNDS; round++)
        for (int p = 0; p < PATTERNS; p++)
            for (int ti = 0; ti < ntypes; ti++, it++) {
                one_call(comm, cname, &types[ti], p, it, 0);
                if ((p + ti + round) % 3 == 0) one_call(comm, cname, &types[ti], p, it, 1);
            }
    MPI_Type_free(&gappy);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    (void)argc, (void)argv;
    mpi_check_seed();
    const char *max = getenv("NODESHM_MPI_ALLTOALLV_MAX");
    stride_bytes = max ? atoi(max) : 0;
    op_fn = (long (*)(const char *))dlsym(RTLD_DEFAULT, "nodeshm_mpi_accelerated_op");
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(stride_bytes >= 64, "NODESHM_MPI_ALLTOALLV_MAX must be set (bytes, at least 64), not %s",
          max ? max : "unset");
    if (wrank == 0) printf("mpi_alltoallv_nodes: %d ranks, stride %d, seed %llu\n", size, stride_bytes,
                           (unsigned long long)seed);
    double t0 = MPI_Wtime();
    test_comm(MPI_COMM_WORLD, "world");
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - wrank, &rev);
    test_comm(rev, "reversed");
    MPI_Comm_free(&rev);
    long f[2] = {failures, checks}, tot[2];
    PMPI_Allreduce(f, tot, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("mpi_alltoallv_nodes: %s: %ld checks, %ld failed, %.2f s\n", tot[0] ? "FAIL" : "PASS", tot[1], tot[0],
               MPI_Wtime() - t0);
    MPI_Finalize();
    return tot[0] ? 1 : 0;
}
