/* libnodeshm_mpi: MPI_Scan, MPI_Exscan, MPI_Reduce_scatter and MPI_Alltoallw (and their _c forms
 * where the MPI has them) on fresh random data, on every communicator shape of
 * mpi_test_common.h: every predefined op on every type it applies to, counts 0..large (across the
 * window, and across the scans' one-phase/chunked switch at 4 KiB), MPI_IN_PLACE.
 *   - scans: against a serial left-to-right reduction of the gathered inputs, bit for bit where
 *     the interposer runs the call on one node (it promises that order), within a float
 *     tolerance between nodes, and against PMPI_Scan/PMPI_Exscan (tolerance for float sums and
 *     products, whose order the MPI library chooses);
 *   - reduce_scatter: irregular counts with zeros, against PMPI_Reduce_scatter;
 *   - alltoallw: a datatype per pair (int, double, a strided vector on either side), counts with
 *     zeros and blocks above the stride, byte displacements out of order, against PMPI_Alltoallw
 *     into an identical buffer (every byte, gaps included).
 * With --expect-accel each op's counter (nodeshm_mpi_accelerated_op) must move by exactly the
 * calls that had to run in the interposer under the windows the test is given (--window BYTES:
 * NODESHM_MPI_SCAN_MAX, _EXSCAN_MAX, _REDUCE_SCATTER_MAX; --stride BYTES: _ALLTOALLW_MAX), on
 * every rank: a call handed to the library silently fails the test.  --expect-none: none moves.
 *
 *   mpi_scan [--expect-accel | --expect-none] [--window BYTES] [--stride BYTES] */
#include "mpi_test_common.h"
#include "nsm_bigcount_config.h" /* NSM_HAVE_MPI_<OP>_C */

static int expect_accel, expect_none;
static long window = 65536;
static long (*acc_fn)(const char *);
static long acc(const char *op) { return acc_fn ? acc_fn(op) : 0; }

enum { O_SCAN, O_EXSCAN, O_RS, O_A2AW, NOPS_T };
static const char *const op_label[NOPS_T] = {"scan", "exscan", "reduce_scatter", "alltoallw"};
static long want[NOPS_T]; /* this rank's calls that must run in the interposer, this communicator */

/* Keeps the run short on a busy machine: on world half the (case, count) pairs, on the other
 * communicators one in six, rotating so every count meets many cases. */
static int thin(const char *cname, int casei, int ci)
{
    return strcmp(cname, "world") ? (casei + ci) % 6 != 0 : (casei + ci) % 2 != 0;
}

/* The shape as the interposer sees it, computed here independently: whether comm's ranks have
 * a node peer (fullest_node), lie on one node, and every node's ranks are consecutive in rank
 * order (a node key per rank: the world rank of its physical node's first rank, and its
 * pseudo-node there, as mpi_check.h's fullest_node splits them). */
typedef struct shape {
    int accel, one_node, in_order;
} shape_t;

static shape_t shape_of(MPI_Comm comm)
{
    shape_t sh;
    int rank, size, local, wr, first;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    MPI_Comm physical;
    PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &physical);
    PMPI_Comm_rank(physical, &local);
    PMPI_Comm_rank(MPI_COMM_WORLD, &wr);
    first = wr;
    PMPI_Bcast(&first, 1, MPI_INT, 0, physical);
    PMPI_Comm_free(&physical);
    const char *ppn_env = getenv("NODESHM_PES_PER_NODE");
    int ppn = ppn_env ? atoi(ppn_env) : 0;
    long key = (long)first * 100000 + (ppn > 0 ? local / ppn : 0), *keys = malloc(sizeof(long) * (size_t)size);
    PMPI_Allgather(&key, 1, MPI_LONG, keys, 1, MPI_LONG, comm);
    sh.in_order = 1;
    sh.one_node = 1;
    for (int r = 1; r < size; r++) {
        if (keys[r] == keys[r - 1]) continue;
        sh.one_node = 0;
        for (int q = 0; q < r; q++) sh.in_order &= keys[q] != keys[r];
    }
    free(keys);
    sh.accel = expect_accel && size > 1 && fullest_node(comm) > 1;
    return sh;
}

/* ---------------------------------------------------------------- scans */

/* dst = x_0 op x_1 op ... op x_{k-1} in rank order (k >= 1), from the gathered inputs */
static void serial_prefix(void *dst, const char *all, int k, int n, const tinfo_t *t, MPI_Op op)
{
    size_t len = (size_t)n * t->size;
    memcpy(dst, all, len);
    for (int j = 1; j < k; j++) PMPI_Reduce_local(all + (size_t)j * len, dst, n, t->type, op);
}

static int scan_call(int exclusive, int wide, const void *src, void *dst, int n, const tinfo_t *t, MPI_Op op,
                     MPI_Comm comm)
{
#if defined(NSM_HAVE_MPI_SCAN_C) && defined(NSM_HAVE_MPI_EXSCAN_C)
    if (wide)
        return exclusive ? MPI_Exscan_c(src, dst, (MPI_Count)n, t->type, op, comm)
                         : MPI_Scan_c(src, dst, (MPI_Count)n, t->type, op, comm);
#else
    (void)wide;
#endif
    return exclusive ? MPI_Exscan(src, dst, n, t->type, op, comm) : MPI_Scan(src, dst, n, t->type, op, comm);
}

static void test_scans(MPI_Comm comm, const char *cname, shape_t sh)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static const int counts_s[] = {0, 1, 3, 17, 600, 1001, 4099, 30000};
    const int nc = (int)(sizeof counts_s / sizeof *counts_s);
    for (int ti = 0; ti < NTYPES; ti++) {
        const tinfo_t *t = &types[ti];
        for (int oi = 0; oi < NOPS; oi++) {
            if (!op_fits(ops[oi], t->kind)) continue;
            for (int ci = 0; ci < nc; ci++) {
                int n = counts_s[ci];
                if (t->kind == K_FLOAT && ops[oi] == MPI_PROD && n > 1001) continue;
                if (ci == nc - 1 && !(ops[oi] == MPI_SUM && (ti == 0 || ti == 6 || ti == 3))) continue;
                if (thin(cname, ti * NOPS + oi, ci)) continue;
                for (int v = 0; v < 4; v++) { /* exclusive, in place */
                    int exclusive = v & 1, in_place = v >> 1;
                    if (in_place && (oi + ci) % 2) continue;
                    size_t len = (size_t)n * t->size;
                    char *src = malloc(len + 1), *a = malloc(len + 1), *b = malloc(len + 1), *c = malloc(len + 1);
                    char *all = malloc(len * (size_t)size + 1);
                    stream = mix(seed ^ mix((uint64_t)(rank * 1000003 + ti * 10007 + oi * 101 + ci * 7 + v)));
                    memset(src, 0, len + 1);
                    fill(src, t, n, ops[oi]);
                    memset(a, 0x5a, len + 1);
                    memset(b, 0x5a, len + 1);
                    int wide = (ti + ci + v) % 3 == 0; /* some through the _c entries */
                    if (in_place) {
                        memcpy(a, src, len);
                        scan_call(exclusive, wide, MPI_IN_PLACE, a, n, t, ops[oi], comm);
                    } else {
                        scan_call(exclusive, wide, src, a, n, t, ops[oi], comm);
                    }
                    /* ours: the serial order, bit for bit, on one node */
                    int ours = sh.accel && n > 0 && len <= (size_t)window && (sh.one_node || sh.in_order);
                    if (ours) want[exclusive ? O_EXSCAN : O_SCAN]++;
                    if (exclusive) PMPI_Exscan(src, b, n, t->type, ops[oi], comm);
                    else PMPI_Scan(src, b, n, t->type, ops[oi], comm);
                    PMPI_Allgather(src, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, comm);
                    int k = exclusive ? rank : rank + 1, where = -1;
                    if (k > 0 && n > 0) {
                        serial_prefix(c, all, k, n, t, ops[oi]);
                        CHECK(same(a, c, t, n, ours && sh.one_node ? 0 : tolerance(t, ops[oi], size), &where),
                              "%s: MPI_%s(%s%d %s, %s) differs from the serial prefix at element %d", cname,
                              exclusive ? "Exscan" : "Scan", in_place ? "in place, " : "", n, t->name, opname[oi],
                              where);
                        CHECK(same(a, b, t, n, tolerance(t, ops[oi], size), &where),
                              "%s: MPI_%s(%s%d %s, %s) differs from PMPI at element %d", cname,
                              exclusive ? "Exscan" : "Scan", in_place ? "in place, " : "", n, t->name, opname[oi],
                              where);
                    }
                    CHECK((unsigned char)a[len] == 0x5a, "%s: MPI_%s wrote past the message", cname,
                          exclusive ? "Exscan" : "Scan");
                    free(src);
                    free(a);
                    free(b);
                    free(c);
                    free(all);
                }
            }
        }
    }
    /* a user-defined op: the MPI library's */
    MPI_Op mysum;
    MPI_Op_create(sum_ints, 1, &mysum);
    int x[3] = {rank, 2 * rank + 1, -rank}, y[3], z[3];
    MPI_Scan(x, y, 3, MPI_INT, mysum, comm);
    PMPI_Scan(x, z, 3, MPI_INT, MPI_SUM, comm);
    CHECK(!memcmp(y, z, sizeof y), "%s: MPI_Scan with a user-defined op", cname);
    MPI_Op_free(&mysum);
}

/* ---------------------------------------------------------------- reduce_scatter */

static void test_reduce_scatter(MPI_Comm comm, const char *cname, shape_t sh)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static const int scale[] = {0, 1, 7, 300, 2000};
    const int ns = (int)(sizeof scale / sizeof *scale);
    int *rc = malloc(sizeof(int) * (size_t)size);
    for (int ti = 0; ti < NTYPES; ti++) {
        const tinfo_t *t = &types[ti];
        for (int oi = 0; oi < NOPS; oi++) {
            if (!op_fits(ops[oi], t->kind)) continue;
            for (int ci = 0; ci < ns; ci++) {
                if (thin(cname, ti * NOPS + oi, ci)) continue;
                if (t->kind == K_FLOAT && ops[oi] == MPI_PROD && scale[ci] > 300) continue;
                for (int in_place = 0; in_place < 2; in_place++) {
                    if (in_place && (oi + ci) % 2) continue;
                    /* irregular counts, the same on every rank, some zero */
                    uint64_t x = mix(seed ^ (uint64_t)(ti * 1000 + oi * 10 + ci) ^ 0x5ca77e5ull);
                    long total = 0;
                    for (int r = 0; r < size; r++) {
                        x = mix(x);
                        rc[r] = scale[ci] && x % 4 ? (int)((x >> 16) % (uint64_t)(scale[ci] + 1)) : 0;
                        total += rc[r];
                    }
                    size_t tl = (size_t)total * t->size, mine = (size_t)rc[rank] * t->size;
                    char *src = malloc(tl + 1), *a = malloc(tl + 1), *b = malloc(mine + 1);
                    stream = mix(seed ^ mix((uint64_t)(rank * 100003 + ti * 1009 + oi * 31 + ci * 3 + in_place)));
                    memset(src, 0, tl + 1);
                    fill(src, t, (int)total, ops[oi]);
                    memset(a, 0x66, tl + 1);
                    memset(b, 0x66, mine + 1);
                    const void *sb = src;
                    if (in_place) {
                        memcpy(a, src, tl);
                        sb = MPI_IN_PLACE;
                    }
#ifdef NSM_HAVE_MPI_REDUCE_SCATTER_C
                    if ((ci + oi) % 3 == 0) {
                        MPI_Count *wc = malloc(sizeof(MPI_Count) * (size_t)size);
                        for (int r = 0; r < size; r++) wc[r] = rc[r];
                        MPI_Reduce_scatter_c(sb, a, wc, t->type, ops[oi], comm);
                        free(wc);
                    } else
#endif
                        MPI_Reduce_scatter(sb, a, rc, t->type, ops[oi], comm);
                    if (sh.accel && total > 0 && tl <= (size_t)window) want[O_RS]++;
                    PMPI_Reduce_scatter(src, b, rc, t->type, ops[oi], comm);
                    int where = -1;
                    CHECK(same(a, b, t, rc[rank], tolerance(t, ops[oi], size), &where) &&
                              (in_place || (unsigned char)a[mine] == 0x66),
                          "%s: MPI_Reduce_scatter(%s%d of %ld %s, %s) differs from PMPI at element %d", cname,
                          in_place ? "in place, " : "", rc[rank], total, t->name, opname[oi], where);
                    free(src);
                    free(a);
                    free(b);
                }
            }
        }
    }
    free(rc);
}

/* ---------------------------------------------------------------- alltoallw */

/* The pair (i -> j)'s element count and kind, the same on both ends: 0 int, 1 double, 2 a strided
 * vector of ints on the sender's side, 3 on the receiver's. */
static void pair_of(uint64_t round, int i, int j, int big, int *n, int *kind)
{
    uint64_t x = mix(seed ^ (round << 40) ^ ((uint64_t)i << 20) ^ (uint64_t)j ^ 0xa77a11ull);
    *kind = (int)(x % 4);
    int m = (int)((x >> 8) % 8);
    *n = m == 0 ? 0 : m < 6 ? 1 + (int)((x >> 16) % 40) : 1 + (int)((x >> 16) % (uint64_t)big);
}

static void test_alltoallw(MPI_Comm comm, const char *cname, shape_t sh, int stride)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Datatype vec; /* one int, then a gap of one: extent 2 ints (resized to stride 2) */
    MPI_Type_vector(1, 1, 2, MPI_INT, &vec);
    MPI_Datatype vec2;
    MPI_Type_create_resized(vec, 0, 2 * sizeof(int), &vec2);
    MPI_Type_commit(&vec2);
    MPI_Type_free(&vec);
    int *sc = malloc(sizeof(int) * 4 * (size_t)size), *sd = sc + size, *rcn = sd + size, *rd = rcn + size;
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * 2 * (size_t)size), *rt = st + size;
    int rounds = strcmp(cname, "world") ? 3 : 8;
    for (int round = 0; round < rounds; round++) {
        int big = round % 2 ? 2 * stride / 4 + 64 : 64; /* odd rounds: blocks above the stride */
        size_t soff = 0, roff = 0;
        for (int pass = 0; pass < 2; pass++) { /* displacements in reverse rank order */
            for (int q = size - 1; q >= 0; q--) {
                int n, kind;
                if (pass == 0) { /* what I send to q */
                    pair_of((uint64_t)round, rank, q, big, &n, &kind);
                    sc[q] = n;
                    st[q] = kind == 1 ? MPI_DOUBLE : kind == 2 ? vec2 : MPI_INT;
                    sd[q] = (int)soff;
                    soff += (size_t)n * (kind == 1 ? sizeof(double) : kind == 2 ? 2 * sizeof(int) : sizeof(int)) + 8;
                } else { /* what q sends me */
                    pair_of((uint64_t)round, q, rank, big, &n, &kind);
                    rcn[q] = n;
                    rt[q] = kind == 1 ? MPI_DOUBLE : kind == 3 ? vec2 : MPI_INT;
                    rd[q] = (int)roff;
                    roff += (size_t)n * (kind == 1 ? sizeof(double) : kind == 3 ? 2 * sizeof(int) : sizeof(int)) + 8;
                }
            }
        }
        unsigned char *src = malloc(soff + 1), *a = malloc(roff + 1), *b = malloc(roff + 1);
        stream = mix(seed ^ mix((uint64_t)(rank * 7919 + round)));
        for (size_t i = 0; i < soff; i++) src[i] = (unsigned char)rnd();
        memset(a, 0x3c, roff + 1);
        memset(b, 0x3c, roff + 1);
#ifdef NSM_HAVE_MPI_ALLTOALLW_C
        if (round % 3 == 2) {
            MPI_Count *wc = malloc(sizeof(MPI_Count) * 2 * (size_t)size), *wr = wc + size;
            MPI_Aint *ds = malloc(sizeof(MPI_Aint) * 2 * (size_t)size), *dr = ds + size;
            for (int q = 0; q < size; q++) wc[q] = sc[q], wr[q] = rcn[q], ds[q] = sd[q], dr[q] = rd[q];
            MPI_Alltoallw_c(src, wc, ds, st, a, wr, dr, rt, comm);
            free(wc);
            free(ds);
        } else
#endif
            MPI_Alltoallw(src, sc, sd, st, a, rcn, rd, rt, comm);
        if (sh.accel && sh.one_node) want[O_A2AW]++;
        PMPI_Alltoallw(src, sc, sd, st, b, rcn, rd, rt, comm);
        size_t at = 0;
        while (at < roff && a[at] == b[at]) at++;
        CHECK(at == roff && a[roff] == 0x3c, "%s: MPI_Alltoallw round %d differs from PMPI at byte %zu of %zu",
              cname, round, at, roff);
        free(src);
        free(a);
        free(b);
    }
    /* MPI_IN_PLACE: the MPI library's (not counted) */
    for (int q = 0; q < size; q++) rcn[q] = 2, rd[q] = (int)(q * 2 * sizeof(int)), rt[q] = MPI_INT;
    int *buf = malloc(sizeof(int) * 2 * (size_t)size), *ref = malloc(sizeof(int) * 2 * (size_t)size);
    for (int q = 0; q < 2 * size; q++) buf[q] = rank * 1000 + q;
    for (int q = 0; q < size; q++) ref[2 * q] = q * 1000 + 2 * rank, ref[2 * q + 1] = q * 1000 + 2 * rank + 1;
    MPI_Alltoallw(MPI_IN_PLACE, rcn, rd, rt, buf, rcn, rd, rt, comm); /* send arguments ignored */
    CHECK(!memcmp(buf, ref, sizeof(int) * 2 * (size_t)size), "%s: MPI_Alltoallw in place", cname);
    free(buf);
    free(ref);
    free(sc);
    free(st);
    MPI_Type_free(&vec2);
}

static int a2aw_stride = 4096;

static void test_comm(MPI_Comm comm, const char *cname)
{
    shape_t sh = shape_of(comm);
    long before[NOPS_T];
    for (int i = 0; i < NOPS_T; i++) before[i] = acc(op_label[i]), want[i] = 0;
    test_scans(comm, cname, sh);
    test_reduce_scatter(comm, cname, sh);
    test_alltoallw(comm, cname, sh, a2aw_stride);
    for (int i = 0; i < NOPS_T; i++) {
        long got = acc(op_label[i]) - before[i];
        if (expect_accel) CHECK(got == want[i], "%s: %s: %ld calls ran in the interposer, expected %ld", cname,
                                op_label[i], got, want[i]);
        if (expect_none) CHECK(got == 0, "%s: %s: %ld calls ran in the interposer, expected none", cname,
                               op_label[i], got);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--expect-accel")) expect_accel = 1;
        else if (!strcmp(argv[i], "--expect-none")) expect_none = 1;
        else if (!strcmp(argv[i], "--window") && i + 1 < argc) window = atol(argv[++i]);
        else if (!strcmp(argv[i], "--stride") && i + 1 < argc) a2aw_stride = atoi(argv[++i]);
    }
    acc_fn = (long (*)(const char *))dlsym(RTLD_DEFAULT, "nodeshm_mpi_accelerated_op");
    if (expect_accel && !acc_fn) {
        fprintf(stderr, "mpi_scan: --expect-accel, but libnodeshm_mpi is not loaded\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rc = mpi_test_main(argc, argv, "mpi_scan", test_comm);
    MPI_Finalize();
    return rc;
}
