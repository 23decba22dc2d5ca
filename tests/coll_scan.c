/* OpenSHMEM 1.6 scans: shmem_TYPENAME_sum_inscan / sum_exscan for every type of the SUM
 * reduction table (complex included) and the C11 generic shmem_sum_inscan / shmem_sum_exscan,
 * checked element by element against a prefix sum computed locally from every member's
 * test_value() data.  Teams: WORLD, a strided split, both axes of a 2d split and a team from an
 * MPI communicator with reordered ranks (team order differs from world order, and nodes
 * interleave in it under NODESHM_PES_PER_NODE).  Counts 0, 1, odd, and larger than one staging
 * buffer (several eager rounds, the last one also small); in place on alternate calls.  Scans on overlapping teams follow
 * each other with no barrier between them. */
#include "common.h"
#include "coll_team.h"

#include <complex.h>
#include <mpi.h>
#include <shmemx.h>
#include <string.h>

#define BUF_BYTES ((size_t)4 << 20)
#define LARGE 20011 /* elements: more than 64 KiB for every type but the 1- and 2-byte ones */
#define ROUND_INTS 16384 /* ints in a staging buffer (64 KiB): a scan round */

#include "coll_values.h"

static int me, npes;
static char *sbuf, *dbuf; /* symmetric */
static char *ref;         /* private reference */

static int tid_counter;
static size_t scan_count(int k) { static const size_t c[] = {1, 0, 19, LARGE, 5, 257}; return c[k % 6]; }

/* One scan of type T: exclusive or not, in place or not, checked against the local prefix. */
#define TEST_SCAN(T, N, GEN, TM, COUNT, EXCL, INPLACE)                                              \
    do {                                                                                            \
        const team_t *t_ = (TM);                                                                    \
        size_t cn_ = (COUNT);                                                                        \
        int tid_ = tid_counter++;                                                                   \
        T *s_ = (T *)sbuf, *d_ = (INPLACE) ? s_ : (T *)dbuf, *r_ = (T *)ref;                        \
        for (size_t k_ = 0; k_ < cn_; k_++) s_[k_] = GEN(T, test_value(me, tid_, k_));              \
        if (!(INPLACE)) d_[cn_] = GEN(T, 7);                                                         \
        int rc_ = (EXCL) ? shmem_##N##_sum_exscan(t_->team, d_, s_, cn_)                              \
                         : shmem_##N##_sum_inscan(t_->team, d_, s_, cn_);                             \
        int upto_ = (EXCL) ? t_->my - 1 : t_->my; /* last team member summed */                      \
        for (size_t k_ = 0; k_ < cn_; k_++) {                                                        \
            T a_ = (T)0;                                                                            \
            for (int i_ = 0; i_ <= upto_; i_++)                                                     \
                a_ = (T)F_sum(a_, GEN(T, test_value(t_->pes[i_], tid_, k_)));                       \
            r_[k_] = a_;                                                                            \
        }                                                                                           \
        size_t bad_ = cn_;                                                                           \
        for (size_t k_ = 0; k_ < cn_ && bad_ == cn_; k_++)                                            \
            if (d_[k_] != r_[k_]) bad_ = k_;                                                        \
        CHECK(rc_ == 0 && bad_ == cn_ && ((INPLACE) || d_[cn_] == GEN(T, 7)),                         \
              "%s: %s_sum_%s n=%zu%s: first bad element %zu", t_->name, #N,                         \
              (EXCL) ? "exscan" : "inscan", cn_, (INPLACE) ? " in place" : "", bad_);              \
    } while (0)

static int variant;

static void test_scans(const team_t *t)
{
#define SCAN2(T, N, GEN)                                                                            \
    TEST_SCAN(T, N, GEN, t, scan_count(variant), 0, variant % 3 == 0);                              \
    variant++;                                                                                      \
    TEST_SCAN(T, N, GEN, t, scan_count(variant), 1, variant % 3 == 1);                              \
    variant++;
#define SCAN_REAL(T, N, _) SCAN2(T, N, V_SMALL)
#define SCAN_CPLX(T, N, _) SCAN2(T, N, V_CSMALL)
    NODESHM_REDUCE_MINMAX_TYPES(SCAN_REAL, _)
    NODESHM_REDUCE_COMPLEX_TYPES(SCAN_CPLX, _)
    /* large for two types whatever the variant, both kinds, in place and not */
    TEST_SCAN(long, long, V_SMALL, t, LARGE, 0, 1);
    TEST_SCAN(double, double, V_SMALL, t, LARGE, 1, 0);
    /* a staging buffer and a few elements: the last round small enough for the small ring
     * (between nodes the node total then still goes through staging) */
    TEST_SCAN(int, int, V_SMALL, t, ROUND_INTS + 5, 0, 0);
    TEST_SCAN(int, int, V_SMALL, t, ROUND_INTS + 9, 1, 1);
    /* the C11 generic names */
    long *s = (long *)sbuf, *d = (long *)dbuf;
    *s = me + 1;
    int rc = shmem_sum_inscan(t->team, d, s, 1);
    long want = 0;
    for (int i = 0; i <= t->my; i++) want += t->pes[i] + 1;
    CHECK(rc == 0 && *d == want, "%s: generic shmem_sum_inscan: %ld, want %ld", t->name, *d, want);
    double *x = (double *)sbuf, *y = (double *)dbuf;
    *x = 0.5 * (me + 1);
    rc = shmem_sum_exscan(t->team, y, x, 1);
    double wx = 0;
    for (int i = 0; i < t->my; i++) wx += 0.5 * (t->pes[i] + 1);
    CHECK(rc == 0 && *y == wx, "%s: generic shmem_sum_exscan: %g, want %g", t->name, *y, wx);
}

/* A team spanning (pseudo-)nodes whose node of PE 0 holds 2 members (0 and 1, plus PE k of the
 * next node) scans small arrays, then is destroyed; a new team {0, 2}, both on PE 0's node, gets
 * its slot, and PE 2 never used it.  Destroying the first team must have retired its staging and
 * small ring there, or the new team's reductions wait forever for PE 2 to finish turns it never
 * took.  Needs NODESHM_PES_PER_NODE=k >= 3 and more than k PEs. */
static void test_slot_reuse(void)
{
    const char *ppn = getenv("NODESHM_PES_PER_NODE");
    int k = ppn ? atoi(ppn) : 0;
    if (k < 3 || npes <= k) return;
    MPI_Comm comm;
    int in_a = me == 0 || me == 1 || me == k;
    MPI_Comm_split(MPI_COMM_WORLD, in_a ? 0 : MPI_UNDEFINED, me, &comm);
    shmem_team_t a = SHMEM_TEAM_INVALID, b = SHMEM_TEAM_INVALID;
    if (in_a) shmemx_team_create_from_comm(comm, &a);
    team_t ta, tb;
    if (make(&ta, "slot-reuse A", a)) {
        for (int r = 0; r < 5; r++) {
            tid_counter = 200000 + r;
            TEST_SCAN(long, long, V_SMALL, &ta, (size_t)r + 1, r % 2, 0);
        }
        shmem_team_destroy(a);
        MPI_Comm_free(&comm);
    }
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, 2, NULL, 0, &b);
    if (make(&tb, "slot-reuse B", b)) {
        for (int r = 0; r < 5; r++) {
            tid_counter = 300000 + r;
            TEST_SCAN(long, long, V_SMALL, &tb, (size_t)r + 1, r % 2, 0);
            long *s = (long *)sbuf, *d = (long *)dbuf;
            *s = me + 1;
            int rc = shmem_long_sum_reduce(b, d, s, 1);
            CHECK(rc == 0 && *d == 1 + 3, "slot-reuse B: sum_reduce %ld, want 4", *d);
        }
        shmem_team_destroy(b);
    }
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    test_seed();
    sbuf = shmem_malloc(BUF_BYTES);
    dbuf = shmem_malloc(BUF_BYTES);
    ref = malloc(BUF_BYTES);
    if (!sbuf || !dbuf || !ref || npes > 64) {
        fprintf(stderr, "coll_scan: setup failed\n");
        shmem_global_exit(2);
    }
    team_t teams[5];
    int member[5] = {0}, nt = 0;
    member[nt] = make(&teams[nt], "WORLD", SHMEM_TEAM_WORLD), nt++;
    shmem_team_t st, xt, yt, ct;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, npes > 1, npes > 1 ? 2 : 1, npes > 1 ? npes / 2 : 1,
                             NULL, 0, &st);
    member[nt] = make(&teams[nt], "strided", st), nt++;
    shmem_team_split_2d(SHMEM_TEAM_WORLD, npes > 1 ? 2 : 1, NULL, 0, &xt, NULL, 0, &yt);
    member[nt] = make(&teams[nt], "2d-x", xt), nt++;
    member[nt] = make(&teams[nt], "2d-y", yt), nt++;
    /* from a communicator: evens then odds, each reversed */
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, 0, (me % 2) * npes + (npes - me), &comm);
    shmemx_team_create_from_comm(comm, &ct);
    member[nt] = make(&teams[nt], "from-comm", ct), nt++;

    for (int i = 0; i < nt; i++) {
        if (!member[i]) continue;
        variant = 10 * i;
        tid_counter = 1000 * i;
        test_scans(&teams[i]);
    }
    /* overlapping teams, alternating, no barrier */
    for (int r = 0; r < 6; r++)
        for (int i = 0; i < nt; i++) {
            if (!member[i]) continue;
            tid_counter = 100000 + 10 * r;
            TEST_SCAN(int, int, V_SMALL, &teams[i], (size_t)r * 41 + 1, r % 2, r % 3 == 0);
            TEST_SCAN(double, double, V_SMALL, &teams[i], (size_t)r * 13 + 2, (r + 1) % 2, r % 3 == 1);
        }
    shmem_team_destroy(st);
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
    shmem_team_destroy(ct);
    MPI_Comm_free(&comm);
    test_slot_reuse();
    shmem_free(sbuf);
    shmem_free(dbuf);
    free(ref);
    int rc = test_finish("coll_scan");
    shmem_finalize();
    return rc;
}
