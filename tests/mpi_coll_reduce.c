/* libnodeshm_mpi: MPI_Reduce, MPI_Reduce_scatter_block, MPI_Alltoall and MPI_Alltoallv against the
 * MPI library's own (PMPI_*) result on fresh random data: every predefined op on every type it
 * applies to, counts 0..large and odd (across the thresholds), every kind of root, MPI_IN_PLACE,
 * irregular alltoallv counts with zeros, permuted displacements and one oversized pair, derived
 * datatypes (packed, or handed to the MPI library with user-defined ops), and back-to-back calls
 * without barriers (alltoall alone too, ranks running ahead of a straggler), on every
 * communicator shape of mpi_test_common.h.
 *
 * Usage: mpi_coll_reduce [--expect-accel | --expect-none]
 *   --expect-accel: also fail unless each op ran through the interposer on a small message */
#include "mpi_test_common.h"

static int expect_accel;
static long (*accel_fn)(void);
static long accel_now(void) { return accel_fn ? accel_fn() : 0; }
static long (*op_fn)(const char *);
static long a2av_now(void) { return op_fn ? op_fn("alltoallv") : 0; } /* alltoallv's own counter */

/* With --expect-accel: the calls since `before` ran through the interposer on every rank of a
 * communicator with at least two ranks on some node (they are all below the thresholds the tests
 * set; with one rank on every node, e.g. parity on 2 hosts x 2, the interposer leaves every call
 * to the MPI library). */
static void check_accel(MPI_Comm comm, long before, const char *what, const char *cname)
{
    if (!expect_accel || fullest_node(comm) < 2) return;
    long mine = accel_now() - before, least;
    PMPI_Allreduce(&mine, &least, 1, MPI_LONG, MPI_MIN, comm);
    CHECK(least > 0, "%s: %s never ran through the interposer", cname, what);
}

/* Keeps the run short on a busy machine (every PMPI reference call costs milliseconds when 8
 * ranks share 2 cores): on world a third of the (case, count) pairs, rotating so that every
 * count meets many cases; on the other communicators one in eight. */
static int thin(const char *cname, int casei, int ci)
{
    return strcmp(cname, "world") ? (casei + ci) % 8 != 0 : (casei + ci) % 3 != 0;
}

/* Counts to try for op on type t (the largest, above the thresholds, only for a few). */
static int skip_count(const tinfo_t *t, int ti, MPI_Op op, int n, int ci)
{
    if (t->kind == K_FLOAT && op == MPI_PROD && n > 1001) return 1;
    return ci == NCOUNTS - 1 && !(op == MPI_SUM && (ti == 0 || ti == 6));
}

/* ---------------------------------------------------------------- reduce */

static void test_reduce(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int roots[3] = {0, size - 1, size / 2};
    long before = accel_now();
    for (int ti = 0; ti < NTYPES; ti++) {
        const tinfo_t *t = &types[ti];
        for (int oi = 0; oi < NOPS; oi++) {
            if (!op_fits(ops[oi], t->kind)) continue;
            for (int ci = 0; ci < NCOUNTS; ci++) {
                int n = counts[ci];
                if (skip_count(t, ti, ops[oi], n, ci) || thin(cname, ti * NOPS + oi, ci)) continue;
                int root = roots[(ti + oi + ci) % 3];
                for (int in_place = 0; in_place < 2; in_place++) {
                    if (in_place && (oi + ci / 2) % 2) continue; /* half the cases, all ops and types */
                    size_t bytes = (size_t)n * t->size + 1;
                    char *src = malloc(bytes), *a = malloc(bytes), *b = malloc(bytes);
                    stream = mix(seed ^ mix((uint64_t)(rank * 100000 + ti * 1000 + oi * 20 + ci * 2 + in_place)));
                    memset(src, 0, bytes);
                    fill(src, t, n, ops[oi]);
                    memset(a, 0x77, bytes);
                    memset(b, 0x77, bytes);
                    if (in_place && rank == root) {
                        memcpy(a, src, (size_t)n * t->size);
                        MPI_Reduce(MPI_IN_PLACE, a, n, t->type, ops[oi], root, comm);
                    } else {
                        MPI_Reduce(src, a, n, t->type, ops[oi], root, comm);
                    }
                    PMPI_Reduce(src, b, n, t->type, ops[oi], root, comm);
                    int where = -1;
                    if (rank == root)
                        CHECK(same(a, b, t, n, tolerance(t, ops[oi], size), &where) && a[bytes - 1] == 0x77,
                              "%s: MPI_Reduce(%s%d %s, %s, root %d) differs from PMPI at element %d", cname,
                              in_place ? "in place, " : "", n, t->name, opname[oi], root, where);
                    else /* a non-root's receive buffer is not touched */
                        CHECK(in_place || (unsigned char)a[0] == 0x77,
                              "%s: MPI_Reduce wrote a non-root's buffer", cname);
                    free(src);
                    free(a);
                    free(b);
                }
            }
        }
    }
    check_accel(comm, before, "MPI_Reduce", cname);
    /* a user-defined op and a derived datatype: the MPI library's business */
    MPI_Op mysum;
    MPI_Op_create(sum_ints, 1, &mysum);
    int v[5] = {rank, 1, 2, 3, -rank}, w[5] = {0}, x[5] = {0};
    MPI_Reduce(v, w, 5, MPI_INT, mysum, size - 1, comm);
    PMPI_Reduce(v, x, 5, MPI_INT, MPI_SUM, size - 1, comm);
    if (rank == size - 1) CHECK(memcmp(w, x, sizeof w) == 0, "%s: MPI_Reduce with a user-defined op", cname);
    MPI_Op_free(&mysum);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op pairsum;
    MPI_Op_create(sum_pairs, 1, &pairsum);
    int y[4] = {rank, 2, 3, rank * 7}, z[4] = {0};
    MPI_Reduce(y, z, 2, pair, pairsum, 0, comm);
    PMPI_Reduce(y, x, 4, MPI_INT, MPI_SUM, 0, comm);
    if (rank == 0) CHECK(memcmp(z, x, sizeof z) == 0, "%s: MPI_Reduce with a derived datatype", cname);
    MPI_Op_free(&pairsum);
    MPI_Type_free(&pair);
}

/* ---------------------------------------------------------------- reduce_scatter_block */

static void test_reduce_scatter_block(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static const int rcounts[] = {0, 1, 3, 17, 301, 1001, 5003};
    const int nrc = (int)(sizeof rcounts / sizeof *rcounts);
    long before = accel_now();
    for (int ti = 0; ti < NTYPES; ti++) {
        const tinfo_t *t = &types[ti];
        for (int oi = 0; oi < NOPS; oi++) {
            if (!op_fits(ops[oi], t->kind)) continue;
            for (int ci = 0; ci < nrc; ci++) {
                int n = rcounts[ci];
                if (ci == nrc - 1 && !(ops[oi] == MPI_SUM && (ti == 0 || ti == 6))) continue;
                if (t->kind == K_FLOAT && ops[oi] == MPI_PROD && n > 1001) continue;
                if (thin(cname, ti * NOPS + oi, ci)) continue;
                for (int in_place = 0; in_place < 2; in_place++) {
                    if (in_place && (oi + ci / 2) % 2) continue;
                    size_t total = (size_t)n * (size_t)size * t->size, block = (size_t)n * t->size;
                    char *src = malloc(total + 1), *a = malloc(total + 1), *b = malloc(block + 1);
                    stream = mix(seed ^ mix((uint64_t)(rank * 100000 + ti * 1000 + oi * 20 + ci * 2 + in_place + 7)));
                    memset(src, 0, total + 1);
                    fill(src, t, n * size, ops[oi]);
                    memset(a, 0x66, total + 1);
                    memset(b, 0x66, block + 1);
                    if (in_place) {
                        memcpy(a, src, total);
                        MPI_Reduce_scatter_block(MPI_IN_PLACE, a, n, t->type, ops[oi], comm);
                    } else {
                        MPI_Reduce_scatter_block(src, a, n, t->type, ops[oi], comm);
                    }
                    PMPI_Reduce_scatter_block(src, b, n, t->type, ops[oi], comm);
                    int where = -1;
                    CHECK(same(a, b, t, n, tolerance(t, ops[oi], size), &where) &&
                              (in_place || a[block] == 0x66),
                          "%s: MPI_Reduce_scatter_block(%s%d %s, %s) differs from PMPI at element %d", cname,
                          in_place ? "in place, " : "", n, t->name, opname[oi], where);
                    free(src);
                    free(a);
                    free(b);
                }
            }
        }
    }
    check_accel(comm, before, "MPI_Reduce_scatter_block", cname);
    MPI_Op mysum;
    MPI_Op_create(sum_ints, 1, &mysum);
    int *v = malloc(sizeof(int) * 3 * (size_t)size), w[3], x[3];
    for (int i = 0; i < 3 * size; i++) v[i] = rank * 1000 + i;
    MPI_Reduce_scatter_block(v, w, 3, MPI_INT, mysum, comm);
    PMPI_Reduce_scatter_block(v, x, 3, MPI_INT, MPI_SUM, comm);
    CHECK(memcmp(w, x, sizeof w) == 0, "%s: MPI_Reduce_scatter_block with a user-defined op", cname);
    MPI_Op_free(&mysum);
    free(v);
}

/* ---------------------------------------------------------------- alltoall */

static void test_alltoall(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static const int acounts[] = {0, 1, 5, 17, 129, 1001};
    long before = accel_now();
    for (int ti = 0; ti < NTYPES; ti++) {
        const tinfo_t *t = &types[ti];
        for (int ci = 0; ci < (int)(sizeof acounts / sizeof *acounts); ci++) {
            int n = acounts[ci];
            if (thin(cname, ti, ci)) continue;
            for (int in_place = 0; in_place < 2; in_place++) {
                size_t total = (size_t)n * t->size * (size_t)size;
                char *src = malloc(total + 1), *a = malloc(total + 1), *b = malloc(total + 1);
                stream = mix(seed ^ mix((uint64_t)(rank * 100000 + ti * 1000 + ci * 2 + in_place + 3)));
                memset(src, 0, total + 1);
                fill(src, t, n * size, MPI_BAND);
                memset(a, 0x55, total + 1);
                memset(b, 0x55, total + 1);
                if (in_place) {
                    memcpy(a, src, total);
                    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, n, t->type, comm);
                } else {
                    MPI_Alltoall(src, n, t->type, a, n, t->type, comm);
                }
                /* the reference moves bytes: MPICH 5.0 mishandles some pair types at larger counts */
                PMPI_Alltoall(src, (int)(n * t->size), MPI_BYTE, b, (int)(n * t->size), MPI_BYTE, comm);
                int where = -1;
                CHECK(same(a, b, t, n * size, 0, &where) && a[total] == 0x55,
                      "%s: MPI_Alltoall(%s%d %s) differs from PMPI at element %d", cname,
                      in_place ? "in place, " : "", n, t->name, where);
                free(src);
                free(a);
                free(b);
            }
        }
    }
    check_accel(comm, before, "MPI_Alltoall", cname);
    /* different datatypes with one signature: 3 ints sent as one contiguous type, received as
     * a strided vector of 3 ints (stride 2) */
    MPI_Datatype three, strided, strided_r;
    MPI_Type_contiguous(3, MPI_INT, &three);
    MPI_Type_commit(&three);
    MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
    MPI_Type_create_resized(strided, 0, 6 * sizeof(int), &strided_r);
    MPI_Type_commit(&strided_r);
    int *s3 = malloc(sizeof(int) * 3 * (size_t)size), *a = calloc(6 * (size_t)size, sizeof(int)),
        *b = calloc(6 * (size_t)size, sizeof(int));
    for (int i = 0; i < 3 * size; i++) s3[i] = (int)rnd();
    MPI_Alltoall(s3, 1, three, a, 1, strided_r, comm);
    PMPI_Alltoall(s3, 3, MPI_INT, b, 1, strided_r, comm);
    CHECK(memcmp(a, b, sizeof(int) * 6 * (size_t)size) == 0, "%s: MPI_Alltoall between derived types", cname);
    MPI_Type_free(&three);
    MPI_Type_free(&strided);
    MPI_Type_free(&strided_r);
    free(s3);
    free(a);
    free(b);
}

/* ---------------------------------------------------------------- alltoallv */

/* Elements rank i sends to rank j in round `it`: irregular, about a quarter zeros; with `big`,
 * the pair (size - 1 -> 0) alone is far above the thresholds (only those two ranks know). */
static int vcount(int i, int j, int it, int maxc, int big, int size)
{
    if (big && i == size - 1 && j == 0) return 20000;
    uint64_t h = mix(seed ^ ((uint64_t)it << 40) ^ ((uint64_t)i << 20) ^ (uint64_t)j);
    return h % 4 == 0 ? 0 : (int)((h >> 8) % (uint64_t)(maxc + 1));
}

/* Displacements (in elements) for counts c[]: blocks in a permuted order (reversed, rotated by
 * it) with random gaps; returns the buffer length. */
static int make_displs(const int *c, int *d, int size, int it)
{
    int pos = 3;
    for (int k = 0; k < size; k++) {
        int j = (size - 1 - k + it) % size;
        d[j] = pos;
        pos += c[j] + (int)(rnd() % 3);
    }
    return pos + 1;
}

static void test_alltoallv(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *sc = malloc(sizeof(int) * 4 * (size_t)size), *sd = sc + size, *rc = sc + 2 * size, *rd = sc + 3 * size;
    static const int maxcs[] = {0, 1, 7, 60, 300};
    long before = accel_now();
    int it = 0;
    for (int ti = 0; ti < NTYPES; ti++) {
        const tinfo_t *t = &types[ti];
        for (int mi = 0; mi < (int)(sizeof maxcs / sizeof *maxcs); mi++) {
            for (int variant = 0; variant < 3; variant++) { /* 0 plain, 1 in place, 2 one big pair */
                it++;
                int big = variant == 2, in_place = variant == 1;
                /* the oversized pair: three types, on world (one node and across nodes) */
                if (big ? mi != 2 || ti % 3 || strcmp(cname, "world") : thin(cname, ti * 3 + variant, mi)) continue;
                stream = mix(seed ^ mix((uint64_t)(rank * 100000 + it * 7 + 11)));
                for (int j = 0; j < size; j++) {
                    /* in place: the counts both ways are recvcounts, so the pattern is symmetric */
                    int lo = rank < j ? rank : j, hi = rank < j ? j : rank;
                    sc[j] = in_place ? vcount(lo, hi, it, maxcs[mi], 0, size) : vcount(rank, j, it, maxcs[mi], big, size);
                    rc[j] = in_place ? sc[j] : vcount(j, rank, it, maxcs[mi], big, size);
                }
                int slen = make_displs(sc, sd, size, it), rlen = make_displs(rc, rd, size, it + 1);
                if (in_place) {
                    memcpy(sd, rd, sizeof(int) * (size_t)size);
                    slen = rlen;
                }
                char *src = malloc((size_t)slen * t->size), *a = malloc((size_t)rlen * t->size),
                     *b = malloc((size_t)rlen * t->size);
                memset(src, 0, (size_t)slen * t->size);
                fill(src, t, slen, MPI_BAND);
                memset(a, 0x44, (size_t)rlen * t->size);
                memset(b, 0x44, (size_t)rlen * t->size);
                if (in_place) {
                    memcpy(a, src, (size_t)rlen * t->size);
                    MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, a, rc, rd, t->type, comm);
                    memcpy(b, src, (size_t)rlen * t->size);
                    /* the reference: the same exchange out of place into the same layout */
                    char *tmp = malloc((size_t)rlen * t->size);
                    memcpy(tmp, src, (size_t)rlen * t->size);
                    PMPI_Alltoallv(tmp, rc, rd, t->type, b, rc, rd, t->type, comm);
                    free(tmp);
                } else {
                    MPI_Alltoallv(src, sc, sd, t->type, a, rc, rd, t->type, comm);
                    PMPI_Alltoallv(src, sc, sd, t->type, b, rc, rd, t->type, comm);
                }
                int where = -1;
                CHECK(same(a, b, t, rlen, 0, &where),
                      "%s: MPI_Alltoallv(%s%s, counts up to %d %s) differs from PMPI at element %d", cname,
                      in_place ? "in place, " : "", big ? "one big pair" : "irregular", maxcs[mi], t->name, where);
                free(src);
                free(a);
                free(b);
            }
        }
    }
    check_accel(comm, before, "MPI_Alltoallv", cname);
    /* a strided derived type on the receive side, contiguous on the send side */
    MPI_Datatype strided, strided_r;
    MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &strided);
    MPI_Type_create_resized(strided, 0, 4 * sizeof(double), &strided_r);
    MPI_Type_commit(&strided_r);
    for (int j = 0; j < size; j++) {
        sc[j] = 2 * ((rank + j) % 3);
        rc[j] = (rank + j) % 3; /* elements of strided_r: 2 doubles each */
    }
    int spos = 0, rpos = 0;
    for (int j = 0; j < size; j++) {
        sd[j] = spos;
        spos += sc[j];
        rd[j] = rpos;
        rpos += rc[j];
    }
    double *src = malloc(sizeof(double) * (size_t)(spos + 1)), *a = calloc((size_t)rpos * 4 + 1, sizeof(double)),
           *b = calloc((size_t)rpos * 4 + 1, sizeof(double));
    for (int i = 0; i < spos; i++) src[i] = (double)(rnd() % 1000) + 0.5;
    MPI_Alltoallv(src, sc, sd, MPI_DOUBLE, a, rc, rd, strided_r, comm);
    PMPI_Alltoallv(src, sc, sd, MPI_DOUBLE, b, rc, rd, strided_r, comm);
    CHECK(memcmp(a, b, sizeof(double) * ((size_t)rpos * 4 + 1)) == 0, "%s: MPI_Alltoallv into a derived type",
          cname);
    MPI_Type_free(&strided);
    MPI_Type_free(&strided_r);
    free(src);
    free(a);
    free(b);
    free(sc);
}

/* Calls with a block above the stride between small ones: values right throughout, and with
 * --expect-accel every call runs through the interposer (its alltoallv counter moves by one per
 * call), on one node and between nodes: the big block goes point to point, no call is handed
 * over, and none after a big one is. */
static void test_alltoallv_recheck(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size < 2 || strcmp(cname, "world")) return;
    enum { BIG = 20000, SMALL = 3, WARM = 17, BIGS = 3, AFTER = 6 };
    int *sc = malloc(sizeof(int) * 4 * (size_t)size), *sd = sc + size, *rc = sc + 2 * size, *rd = sc + 3 * size;
    long *v = malloc(sizeof(long) * (BIG + (size_t)SMALL * size)), *w = malloc(sizeof(long) * (BIG + (size_t)SMALL * size));
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long accel[WARM + BIGS + AFTER + 1];
    for (int it = 0; it < WARM + BIGS + AFTER; it++) {
        int big = it >= WARM && it < WARM + BIGS;
        long salt = (long)(rnd() % 100000);
        PMPI_Bcast(&salt, 1, MPI_LONG, 0, comm);
        int spos = 0, rpos = 0;
        for (int j = 0; j < size; j++) {
            sc[j] = big && j == next ? BIG : SMALL;
            rc[j] = big && j == prev ? BIG : SMALL;
            sd[j] = spos;
            rd[j] = rpos;
            spos += sc[j];
            rpos += rc[j];
        }
        for (int j = 0; j < size; j++)
            for (int i = 0; i < sc[j]; i++) v[sd[j] + i] = salt + rank * 1000003L + j * 100003L + i;
        memset(w, 0x5a, sizeof(long) * (size_t)rpos);
        accel[it] = a2av_now();
        MPI_Alltoallv(v, sc, sd, MPI_LONG, w, rc, rd, MPI_LONG, comm);
        int bad = -1;
        for (int j = 0; j < size && bad < 0; j++)
            for (int i = 0; i < rc[j]; i++)
                if (w[rd[j] + i] != salt + j * 1000003L + rank * 100003L + i) {
                    bad = j;
                    break;
                }
        CHECK(bad < 0, "%s: alltoallv recheck call %d (%s): block from rank %d wrong", cname, it,
              big ? "too big" : "small", bad);
    }
    accel[WARM + BIGS + AFTER] = a2av_now();
    if (expect_accel && fullest_node(comm) >= 2)
        for (int k = 0; k < BIGS + AFTER; k++) {
            long ran = accel[WARM + k + 1] - accel[WARM + k];
            CHECK(ran == 1, "%s: alltoallv recheck call %d (%s): its counter moved by %ld, expected 1", cname,
                  WARM + k, k < BIGS ? "with a big block" : "small", ran);
        }
    free(v);
    free(w);
    free(sc);
}

/* ---------------------------------------------------------------- back to back */

/* All four ops and allreduce in a row, changing roots and sizes, no barrier between calls:
 * the shared buffers are reused safely. */
static void test_mixed(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    long *v = malloc(sizeof(long) * 64 * (size_t)size), *w = malloc(sizeof(long) * 64 * (size_t)size);
    int *sc = malloc(sizeof(int) * 4 * (size_t)size), *sd = sc + size, *rc = sc + 2 * size, *rd = sc + 3 * size;
    for (int it = 0; it < 24; it++) {
        int root = (it * 7) % size, n = 1 + it % 64;
        for (int i = 0; i < n; i++) v[i] = rank * 1000 + i + it;
        straggle(comm, it);
        MPI_Reduce(v, w, n, MPI_LONG, MPI_SUM, root, comm);
        if (rank == root) {
            int ok = 1;
            for (int i = 0; i < n; i++) ok &= w[i] == 1000L * size * (size - 1) / 2 + (long)size * (i + it);
            CHECK(ok, "%s: reduce #%d at root %d", cname, it, root);
        }
        for (int i = 0; i < n * size; i++) v[i] = rank + i + it;
        MPI_Reduce_scatter_block(v, w, n, MPI_LONG, MPI_MAX, comm);
        int ok = 1;
        for (int i = 0; i < n; i++) ok &= w[i] == size - 1 + rank * n + i + it;
        CHECK(ok, "%s: reduce_scatter_block #%d", cname, it);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < n; i++) v[j * n + i] = rank * 100000 + j * 100 + i + it;
        straggle(comm, it + 1);
        MPI_Alltoall(v, n, MPI_LONG, w, n, MPI_LONG, comm);
        ok = 1;
        for (int j = 0; j < size; j++)
            for (int i = 0; i < n; i++) ok &= w[j * n + i] == j * 100000 + rank * 100 + i + it;
        CHECK(ok, "%s: alltoall #%d", cname, it);
        int pos = 0;
        for (int j = 0; j < size; j++) {
            sc[j] = (rank + j + it) % 5;
            rc[j] = (j + rank + it) % 5;
            sd[j] = pos;
            rd[j] = pos;
            pos += 5;
        }
        for (int j = 0; j < size; j++)
            for (int i = 0; i < sc[j]; i++) v[sd[j] + i] = rank * 100000 + j * 100 + i + it;
        MPI_Alltoallv(v, sc, sd, MPI_LONG, w, rc, rd, MPI_LONG, comm);
        ok = 1;
        for (int j = 0; j < size; j++)
            for (int i = 0; i < rc[j]; i++) ok &= w[rd[j] + i] == j * 100000 + rank * 100 + i + it;
        CHECK(ok, "%s: alltoallv #%d", cname, it);
        long me = rank + it, sum;
        MPI_Allreduce(&me, &sum, 1, MPI_LONG, MPI_SUM, comm);
        CHECK(sum == (long)size * (size - 1) / 2 + (long)size * it, "%s: allreduce #%d", cname, it);
    }
    free(v);
    free(w);
    free(sc);
}

/* Alltoall calls in a row, nothing symmetric between them (one node: core/coll/alltoall.h): a
 * rank that has every block runs on into the next call while a straggler still copies this
 * one's, and the ranks take their peers' blocks in different orders.  Values depend on the call
 * number, so a block read a call late (or before its sender packed it) shows; every third call
 * in place (the own block through the matrix), sizes changing. */
static void test_alltoall_run_ahead(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    enum { N = 16, ITERS = 45 };
    long *v = malloc(sizeof(long) * N * (size_t)size), *w = malloc(sizeof(long) * N * (size_t)size);
    long salt = (long)(rnd() % 100000); /* fresh values each run, the same on every rank */
    PMPI_Bcast(&salt, 1, MPI_LONG, 0, comm);
    int bad_it = -1, bad_from = -1;
    long before = accel_now();
#define A2A_VALUE(from, to, it, i) (salt + (from) * 1000003L + (to) * 10007L + (it) * 131L + (i))
    for (int it = 0; it < ITERS; it++) {
        int m = 1 + (it * 5) % N, in_place = it % 3 == 2;
        for (int j = 0; j < size; j++)
            for (int i = 0; i < m; i++) v[j * m + i] = A2A_VALUE(rank, j, it, i);
        straggle(comm, it);
        if (in_place) {
            memcpy(w, v, sizeof(long) * (size_t)m * (size_t)size);
            MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, w, m, MPI_LONG, comm);
        } else {
            MPI_Alltoall(v, m, MPI_LONG, w, m, MPI_LONG, comm);
        }
        for (int j = 0; j < size && bad_it < 0; j++)
            for (int i = 0; i < m; i++)
                if (w[j * m + i] != A2A_VALUE(j, rank, it, i)) {
                    bad_it = it, bad_from = j;
                    break;
                }
    }
#undef A2A_VALUE
    CHECK(bad_it < 0, "%s: run-ahead alltoall: call %d, block from rank %d wrong", cname, bad_it, bad_from);
    check_accel(comm, before, "MPI_Alltoall (run ahead)", cname);
    free(v);
    free(w);
}

static void test_comm(MPI_Comm comm, const char *cname)
{
    double t[6];
    t[0] = MPI_Wtime();
    test_reduce(comm, cname);
    t[1] = MPI_Wtime();
    test_reduce_scatter_block(comm, cname);
    t[2] = MPI_Wtime();
    test_alltoall(comm, cname);
    t[3] = MPI_Wtime();
    test_alltoallv(comm, cname);
    test_alltoallv_recheck(comm, cname);
    t[4] = MPI_Wtime();
    test_mixed(comm, cname);
    test_alltoall_run_ahead(comm, cname);
    t[5] = MPI_Wtime();
    if (wrank == 0 && getenv("MPI_COLL_TIMES"))
        printf("%-9s reduce %.2f rsb %.2f alltoall %.2f alltoallv %.2f mixed %.2f s\n", cname, t[1] - t[0],
               t[2] - t[1], t[3] - t[2], t[4] - t[3], t[5] - t[4]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--expect-accel")) expect_accel = 1;
    accel_fn = (long (*)(void))dlsym(RTLD_DEFAULT, "nodeshm_mpi_accelerated");
    op_fn = (long (*)(const char *))dlsym(RTLD_DEFAULT, "nodeshm_mpi_accelerated_op");
    int rc = mpi_test_main(argc, argv, "mpi_coll_reduce", test_comm);
    MPI_Finalize();
    return rc;
}
