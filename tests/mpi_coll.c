/* libnodeshm_mpi: every intercepted collective against the MPI library's own (PMPI_*) result on
 * fresh random data: counts 0..large and odd, several datatypes and ops, every kind of root,
 * MPI_IN_PLACE, communicators world / split by parity / dup / reversed ranks / size 1 / split
 * and freed in a loop.  Bitwise for exact ops, a tolerance for floating sums and products, and
 * floating results must be bitwise identical on all ranks.
 *
 * Usage: mpi_coll [--expect-accel | --expect-none]
 *   --expect-accel: fail unless the interposer ran some calls itself (it is really there)
 *   --expect-none:  fail if it did (NODESHM_MPI_DISABLE=all, or not loaded) */
#include "mpi_test_common.h"

/* ---------------------------------------------------------------- barrier */

static void test_barrier(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* A late rank stores a flag in a shared window just before it enters MPI_Barrier; everyone
     * must see the flag after leaving it.  A barrier that does not wait fails this (the late
     * rank sleeps 20 ms first); load on the machine cannot make a correct barrier fail it. */
    MPI_Comm shm;
    PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
    int shm_size;
    PMPI_Comm_size(shm, &shm_size);
    if (shm_size == size) {
        MPI_Win win;
        int *flags, disp;
        MPI_Aint bytes;
        PMPI_Win_allocate_shared(rank == 0 ? (MPI_Aint)sizeof(int) * size : 0, sizeof(int),
                                 MPI_INFO_NULL, shm, &flags, &win);
        PMPI_Win_shared_query(win, 0, &bytes, &disp, &flags);
        PMPI_Win_lock_all(MPI_MODE_NOCHECK, win);
        if (rank == 0)
            for (int r = 0; r < size; r++) flags[r] = 0;
        PMPI_Win_sync(win);
        PMPI_Barrier(comm);
        int round = 0;
        for (int late = 0; late < size; late += (size > 2 ? size - 1 : 1)) {
            round++;
            PMPI_Barrier(comm);
            if (rank == late) {
                double t0 = MPI_Wtime();
                while (MPI_Wtime() - t0 < 0.02) usleep(1000); /* a signal may cut usleep short */
                __atomic_store_n(&flags[late], round, __ATOMIC_RELEASE);
                PMPI_Win_sync(win);
            }
            MPI_Barrier(comm);
            PMPI_Win_sync(win);
            int seen = __atomic_load_n(&flags[late], __ATOMIC_ACQUIRE);
            CHECK(seen == round, "%s: MPI_Barrier returned before rank %d (20 ms late) arrived "
                  "(its flag %d, expected %d)", cname, late, seen, round);
        }
        PMPI_Win_unlock_all(win);
        PMPI_Win_free(&win);
    }
    PMPI_Comm_free(&shm);
    for (int i = 0; i < 50; i++) MPI_Barrier(comm);
}

/* ---------------------------------------------------------------- bcast */

static void test_bcast(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int roots[3] = {0, size - 1, size / 2};
    for (int ti = 0; ti < NTYPES; ti++) {
        const tinfo_t *t = &types[ti];
        for (int ci = 0; ci < NCOUNTS; ci++) {
            int n = counts[ci];
            for (int ri = 0; ri < 3; ri++) {
                int root = roots[ri];
                size_t bytes = (size_t)n * t->size + 1;
                char *a = malloc(bytes), *b = malloc(bytes);
                memset(a, 0x5a, bytes);
                memset(b, 0x5a, bytes);
                stream = mix(seed ^ (uint64_t)(ti * 1000 + ci * 10 + ri));
                if (rank == root) {
                    fill(a, t, n, MPI_SUM);
                    memcpy(b, a, bytes);
                }
                MPI_Bcast(a, n, t->type, root, comm);
                PMPI_Bcast(b, n, t->type, root, comm);
                int where = -1;
                CHECK(same(a, b, t, n, 0, &where) && a[bytes - 1] == 0x5a,
                      "%s: MPI_Bcast of %d %s from root %d differs from PMPI_Bcast at element %d",
                      cname, n, t->name, root, where);
                free(a);
                free(b);
            }
        }
    }
    /* one rank with a derived type, the others with the predefined one: same signature */
    int n = 999;
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_INT, &three);
    MPI_Type_commit(&three);
    int *a = calloc((size_t)n, sizeof(int)), *b = calloc((size_t)n, sizeof(int));
    if (rank == 0)
        for (int i = 0; i < n; i++) a[i] = b[i] = (int)rnd();
    MPI_Bcast(a, rank == 0 ? n / 3 : n, rank == 0 ? three : MPI_INT, 0, comm);
    PMPI_Bcast(b, n, MPI_INT, 0, comm);
    CHECK(memcmp(a, b, (size_t)n * sizeof(int)) == 0, "%s: MPI_Bcast with mixed datatypes", cname);
    /* a strided derived type everywhere */
    MPI_Datatype vec;
    MPI_Type_vector(100, 2, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    memset(a, 0, (size_t)n * sizeof(int));
    memset(b, 0, (size_t)n * sizeof(int));
    if (rank == size - 1)
        for (int i = 0; i < n; i++) a[i] = b[i] = (int)rnd();
    MPI_Bcast(a, 1, vec, size - 1, comm);
    PMPI_Bcast(b, 1, vec, size - 1, comm);
    CHECK(memcmp(a, b, (size_t)n * sizeof(int)) == 0, "%s: MPI_Bcast with a vector datatype", cname);
    MPI_Type_free(&vec);
    MPI_Type_free(&three);
    free(a);
    free(b);
}

/* Large messages, odd sizes, where each side may use another datatype of the same signature:
 * contiguous on both sides, a contiguous derived type at the root or at a reader, a strided type
 * everywhere. */
static void test_bcast_large(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Datatype three, vec;
    MPI_Type_contiguous(3, MPI_INT, &three);
    MPI_Type_commit(&three);
    const int ns[] = {49152, 199998}; /* 192 KiB and 781 KiB; multiples of 3 (`three`) */
    for (int ni = 0; ni < 2; ni++) {
        int n = ns[ni];
        int *a = malloc(sizeof(int) * (size_t)(n + 1)), *b = malloc(sizeof(int) * (size_t)(n + 1));
        for (int form = 0; form < 4; form++) {
            int root = form % 2 ? size - 1 : 0;
            /* form 0: MPI_INT everywhere; 1: rank 0 (a reader unless size 1) uses `three`;
             * 2: the root (rank 0) uses `three`; 3: a vector of every other int everywhere */
            int derived = (form == 1 || form == 2) && rank == 0;
            if (form == 3) {
                MPI_Type_vector(n / 2, 1, 2, MPI_INT, &vec);
                MPI_Type_commit(&vec);
            }
            stream = mix(seed ^ (uint64_t)(7000 + ni * 10 + form));
            for (int i = 0; i <= n; i++) a[i] = b[i] = rank == root ? (int)rnd() : -1;
            if (form == 3) {
                MPI_Bcast(a, 1, vec, root, comm);
                PMPI_Bcast(b, 1, vec, root, comm);
            } else {
                MPI_Bcast(a, derived ? n / 3 : n, derived ? three : MPI_INT, root, comm);
                PMPI_Bcast(b, n, MPI_INT, root, comm);
            }
            int where = -1;
            for (int i = 0; i <= n && where < 0; i++)
                if (a[i] != b[i]) where = i;
            CHECK(where < 0, "%s: MPI_Bcast of %d ints (form %d) from root %d differs from PMPI_Bcast at %d",
                  cname, n, form, root, where);
            if (form == 3) MPI_Type_free(&vec);
        }
        free(a);
        free(b);
    }
    MPI_Type_free(&three);
}

/* ---------------------------------------------------------------- allreduce */

static void test_allreduce(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR, MPI_BXOR,
                    MPI_LAND, MPI_LOR, MPI_LXOR, MPI_MAXLOC, MPI_MINLOC};
    const char *opname[] = {"sum", "prod", "max", "min", "band", "bor", "bxor",
                            "land", "lor", "lxor", "maxloc", "minloc"};
    int nops = (int)(sizeof ops / sizeof *ops);
    for (int ti = 0; ti < NTYPES; ti++) {
        const tinfo_t *t = &types[ti];
        for (int oi = 0; oi < nops; oi++) {
            if (!op_fits(ops[oi], t->kind)) continue;
            for (int ci = 0; ci < NCOUNTS; ci++) {
                int n = counts[ci];
                if (t->kind == K_FLOAT && ops[oi] == MPI_PROD && n > 1001) continue;
                /* the largest count (above the threshold) with sum only, on int and double */
                if (ci == NCOUNTS - 1 && !(ops[oi] == MPI_SUM && (ti == 0 || ti == 6))) continue;
                int sum_or_max = ops[oi] == MPI_SUM || ops[oi] == MPI_MAX || ops[oi] == MPI_MAXLOC;
                for (int in_place = 0; in_place < 1 + sum_or_max; in_place++) {
                    size_t bytes = (size_t)n * t->size + 1;
                    char *src = malloc(bytes), *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
                    stream = mix(seed ^ mix((uint64_t)(rank * 100000 + ti * 1000 + oi * 20 + ci * 2 + in_place)));
                    memset(src, 0, bytes);
                    fill(src, t, n, ops[oi]);
                    memset(a, 0x77, bytes);
                    memset(b, 0x77, bytes);
                    if (in_place) {
                        memcpy(a, src, (size_t)n * t->size);
                        MPI_Allreduce(MPI_IN_PLACE, a, n, t->type, ops[oi], comm);
                    } else {
                        MPI_Allreduce(src, a, n, t->type, ops[oi], comm);
                    }
                    PMPI_Allreduce(src, b, n, t->type, ops[oi], comm);
                    double tol = 0;
                    if (t->kind == K_FLOAT && (ops[oi] == MPI_SUM || ops[oi] == MPI_PROD))
                        tol = (t->size == 4 ? FLT_EPSILON : DBL_EPSILON) * 4 * size;
                    int where = -1;
                    CHECK(same(a, b, t, n, tol, &where) && a[bytes - 1] == 0x77,
                          "%s: MPI_Allreduce(%s%d %s, %s) differs from PMPI at element %d", cname,
                          in_place ? "in place, " : "", n, t->name, opname[oi], where);
                    /* every rank holds the same bits */
                    memcpy(c, a, bytes);
                    PMPI_Bcast(c, (int)bytes, MPI_BYTE, 0, comm);
                    CHECK(same(a, c, t, n, 0, &where),
                          "%s: MPI_Allreduce(%d %s, %s): ranks disagree at element %d", cname, n,
                          t->name, opname[oi], where);
                    free(src);
                    free(a);
                    free(b);
                    free(c);
                }
            }
        }
    }
    /* a user-defined op and a derived datatype: the MPI library's business */
    MPI_Op mysum;
    MPI_Op_create(sum_ints, 1, &mysum);
    int v[5] = {rank, 1, 2, 3, -rank}, w[5], x[5];
    MPI_Allreduce(v, w, 5, MPI_INT, mysum, comm);
    PMPI_Allreduce(v, x, 5, MPI_INT, MPI_SUM, comm);
    CHECK(memcmp(w, x, sizeof w) == 0, "%s: MPI_Allreduce with a user-defined op", cname);
    MPI_Op_free(&mysum);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op pairsum;
    MPI_Op_create(sum_pairs, 1, &pairsum);
    int y[4] = {rank, 2, 3, rank * 7}, z[4];
    MPI_Allreduce(y, z, 2, pair, pairsum, comm);
    MPI_Op_free(&pairsum);
    PMPI_Allreduce(y, x, 4, MPI_INT, MPI_SUM, comm);
    CHECK(memcmp(z, x, sizeof z) == 0, "%s: MPI_Allreduce with a derived datatype", cname);
    MPI_Type_free(&pair);
}

/* ---------------------------------------------------------------- gather */

static void test_gather(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int roots[3] = {0, size - 1, size / 2};
    const int gcounts[] = {0, 1, 5, 1001, 2047, 6000};
    for (int ti = 0; ti < NTYPES; ti++) {
        const tinfo_t *t = &types[ti];
        for (int ci = 0; ci < (int)(sizeof gcounts / sizeof *gcounts); ci++) {
            int n = gcounts[ci];
            /* MPICH 5.0's own MPI_Gather fails ("signature does not match") on pair types at 1001
             * elements: keep them to small counts, which it gets right */
            if ((t->kind == K_PAIR_DI || t->kind == K_PAIR_II) && n > 5) continue;
            for (int ri = 0; ri < 3; ri++) {
                for (int in_place = 0; in_place < 2; in_place++) {
                    int root = roots[ri];
                    size_t block = (size_t)n * t->size, total = block * (size_t)size + 1;
                    char *src = malloc(block + 1), *a = malloc(total), *b = malloc(total);
                    stream = mix(seed ^ mix((uint64_t)(rank * 100000 + ti * 1000 + ci * 20 + ri * 2 + in_place)));
                    memset(src, 0, block + 1);
                    fill(src, t, n, MPI_BAND);
                    memset(a, 0x33, total);
                    memset(b, 0x33, total);
                    if (in_place && rank == root) {
                        memcpy(a + (size_t)rank * block, src, block);
                        MPI_Gather(MPI_IN_PLACE, n, t->type, a, n, t->type, root, comm);
                    } else {
                        MPI_Gather(src, n, t->type, a, n, t->type, root, comm);
                    }
                    /* MPICH 5.0's own gather rejects MPI_DOUBLE_INT at 1001 elements: the
                     * reference for pair types moves their bytes */
                    if (t->kind == K_PAIR_DI || t->kind == K_PAIR_II)
                        PMPI_Gather(src, (int)block, MPI_BYTE, b, (int)block, MPI_BYTE, root, comm);
                    else
                        PMPI_Gather(src, n, t->type, b, n, t->type, root, comm);
                    if (rank == root) {
                        int where = -1;
                        CHECK(same(a, b, t, n * size, 0, &where) && a[total - 1] == 0x33,
                              "%s: MPI_Gather(%s%d %s, root %d) differs from PMPI at element %d",
                              cname, in_place ? "in place, " : "", n, t->name, root, where);
                    }
                    free(src);
                    free(a);
                    free(b);
                }
            }
        }
    }
    /* different datatypes with one signature: 2 doubles sent, received as a strided type */
    MPI_Datatype two;
    MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &two);
    MPI_Datatype two_r;
    MPI_Type_create_resized(two, 0, 2 * sizeof(double), &two_r);
    MPI_Type_commit(&two_r);
    double s[2] = {rank + 0.25, -rank - 0.5};
    size_t cnt = (size_t)size * 2 + 2;
    double *a = calloc(cnt, sizeof(double)), *b = calloc(cnt, sizeof(double));
    MPI_Gather(s, 2, MPI_DOUBLE, a, 1, two_r, 0, comm);
    /* The reference is built here, not by PMPI_Gather: Open MPI 5.0.11's own leaves the root's
     * second double unwritten between nodes (coll/han; 2 emulated hosts x 2, right with ^han). */
    for (int r = 0; r < size; r++) b[2 * r] = r + 0.25, b[2 * r + 3] = -r - 0.5;
    if (rank == 0) CHECK(memcmp(a, b, cnt * sizeof(double)) == 0, "%s: MPI_Gather into a strided type", cname);
    MPI_Type_free(&two_r);
    MPI_Type_free(&two);
    free(a);
    free(b);
}

/* Back-to-back calls with changing roots and no barrier in between: buffer reuse. */
static void test_mixed(MPI_Comm comm, const char *cname)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int it = 0; it < 200; it++) {
        int root = it % size;
        long v[64], w[64];
        for (int i = 0; i < 64; i++) v[i] = it * 1000 + (rank == root ? i : -1);
        straggle(comm, it);
        MPI_Bcast(v, 64, MPI_LONG, root, comm);
        int okb = 1;
        for (int i = 0; i < 64; i++) okb &= v[i] == it * 1000 + i;
        CHECK(okb, "%s: bcast #%d from %d", cname, it, root);
        long me = rank + it, sum;
        MPI_Allreduce(&me, &sum, 1, MPI_LONG, MPI_SUM, comm);
        CHECK(sum == (long)size * (size - 1) / 2 + (long)size * it, "%s: allreduce #%d = %ld", cname, it, sum);
        for (int i = 0; i < 64; i++) v[i] = rank * 100 + i + it;
        long *all = rank == root ? malloc(sizeof(long) * 64 * (size_t)size) : NULL;
        MPI_Gather(v, 64, MPI_LONG, all, 64, MPI_LONG, root, comm);
        if (all) {
            int okg = 1;
            for (int r = 0; r < size; r++)
                for (int i = 0; i < 64; i++) okg &= all[r * 64 + i] == r * 100 + i + it;
            CHECK(okg, "%s: gather #%d at %d", cname, it, root);
            free(all);
        }
        (void)w;
    }
}

static void test_comm(MPI_Comm comm, const char *cname)
{
    double t[6];
    t[0] = MPI_Wtime();
    test_barrier(comm, cname);
    t[1] = MPI_Wtime();
    test_bcast(comm, cname);
    test_bcast_large(comm, cname);
    t[2] = MPI_Wtime();
    test_allreduce(comm, cname);
    t[3] = MPI_Wtime();
    test_gather(comm, cname);
    t[4] = MPI_Wtime();
    test_mixed(comm, cname);
    t[5] = MPI_Wtime();
    if (wrank == 0 && getenv("MPI_COLL_TIMES"))
        printf("%-9s barrier %.2f bcast %.2f allreduce %.2f gather %.2f mixed %.2f s\n", cname,
               t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3], t[5] - t[4]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rc = mpi_test_main(argc, argv, "mpi_coll", test_comm);
    MPI_Finalize();
    return rc;
}
