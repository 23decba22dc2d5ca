/* libnodeshm_mpi: MPI_Gatherv, MPI_Scatter, MPI_Scatterv, MPI_Allgather and MPI_Allgatherv
 * against the MPI library's own (PMPI_*) result on fresh random data: counts 0..large and odd
 * (around the thresholds the test sets), predefined types and a strided vector type, roots first /
 * last / middle, MPI_IN_PLACE, irregular v-counts with zeros and one block far above the others,
 * displacements in a random rank order with gaps, sender and receiver types that differ but
 * share a signature, and back-to-back calls with no barrier in between.  Whole receive buffers
 * are compared bytewise (holes and a guard byte included), on every communicator shape of
 * mpi_test_common.h.
 *
 * Usage: mpi_coll_gather [--expect-accel | --expect-none] */
#include "mpi_test_common.h"

typedef struct {
    MPI_Datatype type;
    const char *name;
    size_t ext;
    int small_only; /* MPICH 5.0's own collectives reject pair types at large counts */
} ttype_t;

static ttype_t tt[NTYPES + 1];
static int ntt;
static MPI_Datatype vec; /* 3 blocks of 2 ints, stride 4: 6 ints over an extent of 10 */

/* Every predefined type of the shared table, and the vector type. */
static void setup_types(void)
{
    for (ntt = 0; ntt < NTYPES; ntt++)
        tt[ntt] = (ttype_t){types[ntt].type, types[ntt].name, types[ntt].size,
                            types[ntt].kind == K_PAIR_DI || types[ntt].kind == K_PAIR_II};
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    tt[ntt++] = (ttype_t){vec, "vector", 10 * sizeof(int), 0};
    (void)fill, (void)same, (void)op_fits; /* the shared header's reduction helpers */
}

static const int tcounts[] = {0, 1, 3, 17, 1001, 4099};
#define NTC (int)(sizeof tcounts / sizeof *tcounts)

static void rand_bytes(char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (char)rnd();
}

static char *pattern(size_t n, int c)
{
    char *p = malloc(n ? n : 1);
    memset(p, c, n ? n : 1);
    return p;
}

/* Irregular per-rank counts (zeros, one large block) and displacements in a random rank order
 * with gaps; the same on every rank (drawn from the shared seed).  Returns the total extent in
 * elements. */
static int vlayout(int size, int n, uint64_t key, int *cnt, int *dsp)
{
    stream = mix(seed ^ mix(key));
    for (int r = 0; r < size; r++) cnt[r] = r % 3 == 1 ? 0 : (int)(rnd() % (uint64_t)(2 * n + 1));
    if (size > 2) cnt[size - 1] = 4 * n + 3; /* above the others: another path for one block */
    int *perm = malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; r++) perm[r] = r;
    for (int r = size - 1; r > 0; r--) {
        int j = (int)(rnd() % (uint64_t)(r + 1)), x = perm[r];
        perm[r] = perm[j];
        perm[j] = x;
    }
    int at = 0;
    for (int i = 0; i < size; i++) {
        at += (int)(rnd() % 3);
        dsp[perm[i]] = at;
        at += cnt[perm[i]];
    }
    free(perm);
    return at + 1;
}

/* ---------------------------------------------------------------- the five calls */

static void test_allgather(MPI_Comm comm, const char *cname, int rank, int size, const ttype_t *t, int n,
                           int in_place)
{
    size_t block = (size_t)n * t->ext, total = block * (size_t)size + 1;
    char *src = pattern(block, 0), *a = pattern(total, 0x33), *b = pattern(total, 0x33);
    stream = mix(seed ^ mix((uint64_t)rank * 7919 + (uint64_t)n));
    rand_bytes(src, block);
    if (in_place) {
        memcpy(a + (size_t)rank * block, src, block);
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, n, t->type, comm);
    } else {
        MPI_Allgather(src, n, t->type, a, n, t->type, comm);
    }
    PMPI_Allgather(src, n, t->type, b, n, t->type, comm);
    /* in place, our own block's holes hold our random bytes: copy b's block the same way */
    if (in_place) memcpy(b + (size_t)rank * block, src, block);
    CHECK(memcmp(a, b, total) == 0, "%s: MPI_Allgather(%s%d %s) differs from PMPI", cname,
          in_place ? "in place, " : "", n, t->name);
    free(src), free(a), free(b);
}

static void test_allgatherv(MPI_Comm comm, const char *cname, int rank, int size, const ttype_t *t, int n,
                            int in_place)
{
    int *cnt = malloc(sizeof(int) * 2 * (size_t)size), *dsp = cnt + size;
    size_t total = (size_t)vlayout(size, n, (uint64_t)n * 31 + 5, cnt, dsp) * t->ext + 1;
    size_t block = (size_t)cnt[rank] * t->ext;
    char *src = pattern(block, 0), *a = pattern(total, 0x44), *b = pattern(total, 0x44);
    stream = mix(seed ^ mix((uint64_t)rank * 7919 + (uint64_t)n + 1));
    rand_bytes(src, block);
    if (in_place) {
        memcpy(a + (size_t)dsp[rank] * t->ext, src, block);
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, cnt, dsp, t->type, comm);
    } else {
        MPI_Allgatherv(src, cnt[rank], t->type, a, cnt, dsp, t->type, comm);
    }
    PMPI_Allgatherv(src, cnt[rank], t->type, b, cnt, dsp, t->type, comm);
    if (in_place) memcpy(b + (size_t)dsp[rank] * t->ext, src, block);
    CHECK(memcmp(a, b, total) == 0, "%s: MPI_Allgatherv(%s~%d %s) differs from PMPI", cname,
          in_place ? "in place, " : "", n, t->name);
    free(src), free(a), free(b), free(cnt);
}

static void test_scatter(MPI_Comm comm, const char *cname, int rank, int size, const ttype_t *t, int n,
                         int root, int in_place)
{
    size_t block = (size_t)n * t->ext, total = block * (size_t)size;
    char *src = pattern(total, 0), *a = pattern(block + 1, 0x55), *b = pattern(block + 1, 0x55);
    stream = mix(seed ^ mix((uint64_t)rank * 7919 + (uint64_t)n + 2));
    if (rank == root) rand_bytes(src, total);
    if (in_place && rank == root)
        MPI_Scatter(src, n, t->type, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, comm);
    else
        MPI_Scatter(src, n, t->type, a, n, t->type, root, comm);
    PMPI_Scatter(src, n, t->type, b, n, t->type, root, comm);
    if (!(in_place && rank == root))
        CHECK(memcmp(a, b, block + 1) == 0, "%s: MPI_Scatter(%s%d %s, root %d) differs from PMPI", cname,
              in_place ? "in place, " : "", n, t->name, root);
    free(src), free(a), free(b);
}

static void test_scatterv(MPI_Comm comm, const char *cname, int rank, int size, const ttype_t *t, int n,
                          int root, int in_place)
{
    int *cnt = malloc(sizeof(int) * 2 * (size_t)size), *dsp = cnt + size;
    size_t total = (size_t)vlayout(size, n, (uint64_t)n * 31 + 7 + (uint64_t)root, cnt, dsp) * t->ext;
    size_t block = (size_t)cnt[rank] * t->ext;
    char *src = pattern(total, 0), *a = pattern(block + 1, 0x66), *b = pattern(block + 1, 0x66);
    stream = mix(seed ^ mix((uint64_t)rank * 7919 + (uint64_t)n + 3));
    if (rank == root) rand_bytes(src, total);
    if (in_place && rank == root)
        MPI_Scatterv(src, cnt, dsp, t->type, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, comm);
    else
        MPI_Scatterv(src, cnt, dsp, t->type, a, cnt[rank], t->type, root, comm);
    PMPI_Scatterv(src, cnt, dsp, t->type, b, cnt[rank], t->type, root, comm);
    if (!(in_place && rank == root))
        CHECK(memcmp(a, b, block + 1) == 0, "%s: MPI_Scatterv(%s%d of ~%d %s, root %d) differs from PMPI",
              cname, in_place ? "in place, " : "", cnt[rank], n, t->name, root);
    free(src), free(a), free(b), free(cnt);
}

static void test_gatherv(MPI_Comm comm, const char *cname, int rank, int size, const ttype_t *t, int n,
                         int root, int in_place)
{
    int *cnt = malloc(sizeof(int) * 2 * (size_t)size), *dsp = cnt + size;
    size_t total = (size_t)vlayout(size, n, (uint64_t)n * 31 + 11 + (uint64_t)root, cnt, dsp) * t->ext + 1;
    size_t block = (size_t)cnt[rank] * t->ext;
    char *src = pattern(block, 0), *a = pattern(total, 0x77), *b = pattern(total, 0x77);
    stream = mix(seed ^ mix((uint64_t)rank * 7919 + (uint64_t)n + 4));
    rand_bytes(src, block);
    if (in_place && rank == root) {
        memcpy(a + (size_t)dsp[rank] * t->ext, src, block);
        MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, cnt, dsp, t->type, root, comm);
    } else {
        MPI_Gatherv(src, cnt[rank], t->type, a, cnt, dsp, t->type, root, comm);
    }
    PMPI_Gatherv(src, cnt[rank], t->type, b, cnt, dsp, t->type, root, comm);
    if (rank == root) {
        if (in_place) memcpy(b + (size_t)dsp[rank] * t->ext, src, block);
        CHECK(memcmp(a, b, total) == 0, "%s: MPI_Gatherv(%s~%d %s, root %d) differs from PMPI", cname,
              in_place ? "in place, " : "", n, t->name, root);
    }
    free(src), free(a), free(b), free(cnt);
}

/* Sender and receiver types differ, the signature is the same: 6 ints vs one vector. */
static void test_mixed_types(MPI_Comm comm, const char *cname, int rank, int size)
{
    const int n = 37;
    size_t vext = 10 * sizeof(int), total = vext * (size_t)n * (size_t)size;
    int *src = calloc((size_t)n * 6 * (size_t)size, sizeof(int));
    char *a = pattern(total, 0x11), *b = pattern(total, 0x11);
    stream = mix(seed ^ mix((uint64_t)rank * 7919 + 99));
    for (int i = 0; i < n * 6 * size; i++) src[i] = (int)rnd();
    MPI_Allgather(src, 6 * n, MPI_INT, a, n, vec, comm);
    /* The reference is built here, not by PMPI_Allgather: Open MPI 5.0.11's own is wrong between
     * nodes (coll/han; 2 emulated hosts x 2 ranks: 880 of 888 ints, none with coll ^han). Rank
     * r's 6n ints, 2 to a block of vec (blocks 4 ints apart, vec's extent 10): gaps untouched. */
    uint64_t mine = stream;
    for (int r = 0; r < size; r++) {
        stream = mix(seed ^ mix((uint64_t)r * 7919 + 99));
        for (int i = 0; i < 6 * n; i++) {
            int v = (int)rnd();
            memcpy(b + ((size_t)(r * n + i / 6) * 10 + (size_t)(i % 6 / 2 * 4 + i % 2)) * sizeof(int), &v,
                   sizeof v);
        }
    }
    stream = mine;
    CHECK(memcmp(a, b, total) == 0, "%s: MPI_Allgather of ints into a vector type", cname);
    int root = size - 1;
    memset(a, 0x11, total);
    memset(b, 0x11, total);
    MPI_Scatter(src, 6 * n, MPI_INT, a, n, vec, root, comm);
    PMPI_Scatter(src, 6 * n, MPI_INT, b, n, vec, root, comm);
    CHECK(memcmp(a, b, vext * (size_t)n) == 0, "%s: MPI_Scatter of ints into a vector type", cname);
    int *cnt = malloc(sizeof(int) * 2 * (size_t)size), *dsp = cnt + size;
    for (int r = 0; r < size; r++) cnt[r] = 6 * ((r * 5 + 3) % 7), dsp[r] = 6 * n * (size - 1 - r);
    memset(a, 0x11, total);
    memset(b, 0x11, total);
    MPI_Gatherv(src, cnt[rank] / 6, vec, a, cnt, dsp, MPI_INT, 0, comm);
    char *c = pattern(total, 0x11);
    PMPI_Gatherv(src, cnt[rank] / 6, vec, c, cnt, dsp, MPI_INT, 0, comm);
    if (rank == 0) CHECK(memcmp(a, c, total) == 0, "%s: MPI_Gatherv of vectors into ints", cname);
    free(src), free(a), free(b), free(c), free(cnt);
}

/* Back-to-back calls, changing roots, no barrier: the shared buffers are reused at once. */
static void test_back_to_back(MPI_Comm comm, const char *cname, int rank, int size)
{
    long *all = malloc(sizeof(long) * 64 * (size_t)size), *mine = malloc(sizeof(long) * 64);
    int *cnt = malloc(sizeof(int) * 2 * (size_t)size), *dsp = cnt + size;
    int ok[5] = {1, 1, 1, 1, 1};
    for (int it = 0; it < 40; it++) {
        int root = (it * 7) % size, m = 1 + it % 64;
        for (int i = 0; i < m; i++) mine[i] = rank * 1000 + it * 7 + i;
        straggle(comm, it);
        MPI_Allgather(mine, m, MPI_LONG, all, m, MPI_LONG, comm);
        for (int r = 0; r < size; r++)
            for (int i = 0; i < m; i++) ok[0] &= all[r * m + i] == r * 1000 + it * 7 + i;
        if (rank == root)
            for (int i = 0; i < m * size; i++) all[i] = it * 100000 + i;
        MPI_Scatter(all, m, MPI_LONG, mine, m, MPI_LONG, root, comm);
        for (int i = 0; i < m; i++) ok[1] &= mine[i] == it * 100000 + rank * m + i;
        for (int r = 0; r < size; r++) cnt[r] = (r + it) % 3 ? (r * 11 + it) % 64 : 0, dsp[r] = 64 * (size - 1 - r);
        for (int i = 0; i < cnt[rank]; i++) mine[i] = -rank * 1000 - it - i;
        MPI_Gatherv(mine, cnt[rank], MPI_LONG, all, cnt, dsp, MPI_LONG, root, comm);
        if (rank == root)
            for (int r = 0; r < size; r++)
                for (int i = 0; i < cnt[r]; i++) ok[2] &= all[dsp[r] + i] == -r * 1000 - it - i;
        MPI_Allgatherv(mine, cnt[rank], MPI_LONG, all, cnt, dsp, MPI_LONG, comm);
        for (int r = 0; r < size; r++)
            for (int i = 0; i < cnt[r]; i++) ok[3] &= all[dsp[r] + i] == -r * 1000 - it - i;
        if (rank == root)
            for (int r = 0; r < size; r++)
                for (int i = 0; i < cnt[r]; i++) all[dsp[r] + i] = it * 3 + r * 100 + i;
        MPI_Scatterv(all, cnt, dsp, MPI_LONG, mine, cnt[rank], MPI_LONG, root, comm);
        for (int i = 0; i < cnt[rank]; i++) ok[4] &= mine[i] == it * 3 + rank * 100 + i;
    }
    CHECK(ok[0] && ok[1] && ok[2] && ok[3] && ok[4],
          "%s: back-to-back allgather %d scatter %d gatherv %d allgatherv %d scatterv %d", cname, ok[0],
          ok[1], ok[2], ok[3], ok[4]);
    free(all), free(mine), free(cnt);
}

/* Calls in a row, nothing symmetric between them: the root (bcast, scatter(v)) or the senders
 * (gather(v), reduce) run ahead of a straggling peer by as many calls as the interposer lets them
 * (its ring of small buffers: the _ring3 run wraps it all the time), allgather(v)'s ranks by one
 * call; every value must still be right.  Values depend on the call number, so a block read a
 * call late shows. */
static void test_run_ahead(MPI_Comm comm, const char *cname, int rank, int size)
{
    enum { N = 16, ITERS = 45 };
    long *all = malloc(sizeof(long) * N * (size_t)size), mine[N];
    int *cnt = malloc(sizeof(int) * 2 * (size_t)size), *dsp = cnt + size;
    int ok[8] = {1, 1, 1, 1, 1, 1, 1, 1}, root = size - 1;
    uint64_t salt = rnd() % 1000; /* fresh values each run, the same on every rank */
    PMPI_Bcast(&salt, 1, MPI_UINT64_T, 0, comm);
    for (int it = 0; it < ITERS; it++) {
        long base = (long)(salt + (uint64_t)it) * 1000;
        for (int i = 0; i < N; i++) mine[i] = rank == root ? base + i : -1;
        straggle(comm, it);
        MPI_Bcast(mine, N, MPI_LONG, root, comm);
        for (int i = 0; i < N; i++) ok[0] &= mine[i] == base + i;
    }
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < N; i++) mine[i] = rank * 100000L + (long)(salt + (uint64_t)it) * 100 + i;
        straggle(comm, it);
        MPI_Gather(mine, N, MPI_LONG, all, N, MPI_LONG, root, comm);
        if (rank == root)
            for (int r = 0; r < size; r++)
                for (int i = 0; i < N; i++) ok[1] &= all[r * N + i] == r * 100000L + (long)(salt + (uint64_t)it) * 100 + i;
    }
    for (int it = 0; it < ITERS; it++) {
        if (rank == root)
            for (int i = 0; i < N * size; i++) all[i] = (long)(salt + (uint64_t)it) * 7 + i;
        straggle(comm, it);
        MPI_Scatter(all, N, MPI_LONG, mine, N, MPI_LONG, root, comm);
        for (int i = 0; i < N; i++) ok[2] &= mine[i] == (long)(salt + (uint64_t)it) * 7 + rank * N + i;
    }
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < N; i++) mine[i] = rank + it + i + (long)salt;
        straggle(comm, it);
        MPI_Reduce(mine, all, N, MPI_LONG, MPI_SUM, root, comm);
        if (rank == root)
            for (int i = 0; i < N; i++)
                ok[3] &= all[i] == (long)size * (it + i + (long)salt) + (long)size * (size - 1) / 2;
    }
    for (int it = 0; it < ITERS; it++) {
        for (int r = 0; r < size; r++) cnt[r] = (r + it) % (N + 1), dsp[r] = r * N;
        for (int i = 0; i < cnt[rank]; i++) mine[i] = rank * 1000L + it * 31 + i + (long)salt;
        straggle(comm, it);
        MPI_Gatherv(mine, cnt[rank], MPI_LONG, all, cnt, dsp, MPI_LONG, root, comm);
        if (rank == root)
            for (int r = 0; r < size; r++)
                for (int i = 0; i < cnt[r]; i++) ok[4] &= all[dsp[r] + i] == r * 1000L + it * 31 + i + (long)salt;
    }
    for (int it = 0; it < ITERS; it++) {
        for (int r = 0; r < size; r++) cnt[r] = (r * 3 + it) % (N + 1), dsp[r] = (size - 1 - r) * N;
        if (rank == root)
            for (int r = 0; r < size; r++)
                for (int i = 0; i < cnt[r]; i++) all[dsp[r] + i] = r * 1000L - it * 17 + i + (long)salt;
        straggle(comm, it);
        MPI_Scatterv(all, cnt, dsp, MPI_LONG, mine, cnt[rank], MPI_LONG, root, comm);
        for (int i = 0; i < cnt[rank]; i++) ok[5] &= mine[i] == rank * 1000L - it * 17 + i + (long)salt;
    }
    /* allgather(v) (core/coll/collect.h on one node): a rank that has every block runs on into
     * the next call while a straggler still copies this one's */
    for (int it = 0; it < ITERS; it++) {
        int m = 1 + (it * 5) % N;
        for (int i = 0; i < m; i++) mine[i] = rank * 1000L + it * 13 + i + (long)salt;
        straggle(comm, it);
        MPI_Allgather(mine, m, MPI_LONG, all, m, MPI_LONG, comm);
        for (int r = 0; r < size; r++)
            for (int i = 0; i < m; i++) ok[6] &= all[r * m + i] == r * 1000L + it * 13 + i + (long)salt;
    }
    for (int it = 0; it < ITERS; it++) {
        for (int r = 0; r < size; r++) cnt[r] = (r * 5 + it) % (N + 1), dsp[r] = (size - 1 - r) * N;
        for (int i = 0; i < cnt[rank]; i++) mine[i] = rank * 1000L + it * 29 - i + (long)salt;
        straggle(comm, it);
        MPI_Allgatherv(mine, cnt[rank], MPI_LONG, all, cnt, dsp, MPI_LONG, comm);
        for (int r = 0; r < size; r++)
            for (int i = 0; i < cnt[r]; i++) ok[7] &= all[dsp[r] + i] == r * 1000L + it * 29 - i + (long)salt;
    }
    CHECK(ok[0] && ok[1] && ok[2] && ok[3] && ok[4] && ok[5] && ok[6] && ok[7],
          "%s: run-ahead bcast %d gather %d scatter %d reduce %d gatherv %d scatterv %d allgather %d "
          "allgatherv %d",
          cname, ok[0], ok[1], ok[2], ok[3], ok[4], ok[5], ok[6], ok[7]);
    free(all), free(cnt);
}

static void test_comm(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int roots[3] = {0, size - 1, size / 2};
    double t0 = MPI_Wtime();
    for (int ti = 0; ti < ntt; ti++) {
        const ttype_t *t = &tt[ti];
        for (int ci = 0; ci < NTC; ci++) {
            int n = tcounts[ci];
            if (t->small_only && n > 17) continue;
            /* int and the vector type at every count, the others at every third one (each at two),
             * in place or not and the root rotating with the count: every op sees every count,
             * both kinds of call and all three roots, and the whole test stays within seconds at
             * 8 ranks on 2 busy cores */
            int every = ti == 0 || t->type == vec;
            if (!every && (ti + ci) % 3) continue;
            int in_place = (ti + ci) % 2, root = roots[(ti + ci / 2) % 3];
            test_allgather(comm, cname, rank, size, t, n, in_place);
            test_allgatherv(comm, cname, rank, size, t, n, in_place);
            test_scatter(comm, cname, rank, size, t, n, root, in_place);
            test_scatterv(comm, cname, rank, size, t, n, root, in_place);
            test_gatherv(comm, cname, rank, size, t, n, root, in_place);
        }
    }
    test_mixed_types(comm, cname, rank, size);
    test_back_to_back(comm, cname, rank, size);
    test_run_ahead(comm, cname, rank, size);
    if (wrank == 0 && getenv("MPI_COLL_TIMES")) printf("%-9s %.2f s\n", cname, MPI_Wtime() - t0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    setup_types();
    int rc = mpi_test_main(argc, argv, "mpi_coll_gather", test_comm);
    MPI_Type_free(&vec);
    MPI_Finalize();
    return rc;
}
