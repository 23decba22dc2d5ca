/* Collectives over teams: broadcast, collect, fcollect, alltoall, alltoalls (every RMA type and
 * the mem forms), and the and/or/xor/max/min/sum/prod reductions (every type of the spec's
 * table, complex included), checked against references computed locally from test_value()
 * data of every member.  Teams: WORLD, SHARED, a strided split, both axes of a 2d split and a
 * team from an MPI communicator with reordered ranks (so nodes interleave in team order).
 * Counts 0, 1, odd, and 100k elements; collect with a different count on every PE; in-place
 * reductions; PE_root on every member.  No barrier separates the collectives, also when they
 * alternate between overlapping teams: the library alone must keep buffers safe. */
#include "common.h"
#include "coll_team.h"

#include <complex.h>
#include <mpi.h>
#include <shmemx.h>
#include <string.h>

#define BUF_BYTES ((size_t)48 << 20)
#define LARGE 100000

static int me, npes;
static char *sbuf, *dbuf; /* symmetric */
static unsigned char *ref; /* private reference */

static int tid_counter; /* data stream key: advanced identically on every PE of a team */

/* ---- data ------------------------------------------------------------------------------------ */
/* byte i of PE pe's block for stream tid */
static inline unsigned char byte_of(int pe, int tid, size_t i)
{
    return (unsigned char)(test_value(pe, tid, i / 8) >> (8 * (i % 8)));
}
static void fill_bytes(void *buf, size_t n, int pe, int tid, size_t from)
{
    unsigned char *b = buf;
    size_t i = 0;
    for (; i < n && (from + i) % 8; i++) b[i] = byte_of(pe, tid, from + i);
    for (; i + 8 <= n; i += 8) { /* a word at a time: one test_value per 8 bytes */
        uint64_t v = test_value(pe, tid, (from + i) / 8);
        memcpy(b + i, &v, 8); /* little-endian: byte k of the word is bits 8k.. */
    }
    for (; i < n; i++) b[i] = byte_of(pe, tid, from + i);
}

/* ---- data movement: checked byte for byte --------------------------------------------------------- */
static size_t count_for(int k) { static const size_t c[] = {0, 1, 7, 33}; return c[k & 3]; }

#define TEST_DATA(T, N, TM)                                                                         \
    do {                                                                                            \
        const team_t *t_ = (TM);                                                                    \
        size_t cn_ = count_for(variant++), e_ = sizeof(T);                                           \
        int tid_;                                                                                   \
        /* broadcast from a root that moves with the variant */                                     \
        int root_ = variant % t_->n;                                                                \
        tid_ = tid_counter++;                                                                       \
        fill_bytes(sbuf, cn_ * e_, me, tid_, 0);                                                     \
        memset(dbuf, 0xee, (cn_ + 1) * e_);                                                          \
        int rc_ = shmem_##N##_broadcast(t_->team, (T *)dbuf, (T *)sbuf, cn_, root_);                 \
        fill_bytes(ref, cn_ * e_, t_->pes[root_], tid_, 0);                                          \
        memset(ref + cn_ * e_, 0xee, e_);                                                            \
        CHECK(rc_ == 0 && !memcmp(dbuf, ref, (cn_ + 1) * e_), "%s: %s_broadcast n=%zu root %d rc %d",\
              t_->name, #N, cn_, root_, rc_);                                                        \
        /* fcollect */                                                                              \
        tid_ = tid_counter++;                                                                       \
        fill_bytes(sbuf, cn_ * e_, me, tid_, 0);                                                     \
        rc_ = shmem_##N##_fcollect(t_->team, (T *)dbuf, (T *)sbuf, cn_);                             \
        for (int i_ = 0; i_ < t_->n; i_++) fill_bytes(ref + i_ * cn_ * e_, cn_ * e_, t_->pes[i_], tid_, 0); \
        CHECK(rc_ == 0 && !memcmp(dbuf, ref, t_->n * cn_ * e_), "%s: %s_fcollect n=%zu", t_->name,   \
              #N, cn_);                                                                              \
        /* collect: member i contributes (i + variant) % 4 elements */                              \
        tid_ = tid_counter++;                                                                       \
        size_t mine_ = (size_t)(t_->my + variant) % 4, tot_ = 0;                                    \
        fill_bytes(sbuf, mine_ * e_, me, tid_, 0);                                                  \
        rc_ = shmem_##N##_collect(t_->team, (T *)dbuf, (T *)sbuf, mine_);                           \
        for (int i_ = 0; i_ < t_->n; i_++) {                                                        \
            size_t c_ = (size_t)(i_ + variant) % 4;                                                 \
            fill_bytes(ref + tot_ * e_, c_ * e_, t_->pes[i_], tid_, 0);                             \
            tot_ += c_;                                                                             \
        }                                                                                           \
        CHECK(rc_ == 0 && !memcmp(dbuf, ref, tot_ * e_), "%s: %s_collect", t_->name, #N);           \
        /* alltoall: block j of my source goes to member j */                                       \
        tid_ = tid_counter++;                                                                       \
        fill_bytes(sbuf, t_->n * cn_ * e_, me, tid_, 0);                                             \
        rc_ = shmem_##N##_alltoall(t_->team, (T *)dbuf, (T *)sbuf, cn_);                             \
        for (int i_ = 0; i_ < t_->n; i_++)                                                          \
            fill_bytes(ref + i_ * cn_ * e_, cn_ * e_, t_->pes[i_], tid_, (size_t)t_->my * cn_ * e_);   \
        CHECK(rc_ == 0 && !memcmp(dbuf, ref, t_->n * cn_ * e_), "%s: %s_alltoall n=%zu", t_->name,   \
              #N, cn_);                                                                              \
        /* alltoalls with dst 2, sst 3: untouched dest elements keep their value */                 \
        tid_ = tid_counter++;                                                                       \
        size_t tot2_ = t_->n * cn_;                                                                  \
        fill_bytes(sbuf, tot2_ * 3 * e_, me, tid_, 0);                                              \
        memset(dbuf, 0x5a, tot2_ * 2 * e_);                                                         \
        rc_ = shmem_##N##_alltoalls(t_->team, (T *)dbuf, (T *)sbuf, 2, 3, cn_);                      \
        memset(ref, 0x5a, tot2_ * 2 * e_);                                                          \
        for (int i_ = 0; i_ < t_->n; i_++)                                                          \
            for (size_t k_ = 0; k_ < cn_; k_++)                                                      \
                fill_bytes(ref + (i_ * cn_ + k_) * 2 * e_, e_, t_->pes[i_], tid_,                    \
                           ((size_t)t_->my * cn_ + k_) * 3 * e_);                                    \
        CHECK(rc_ == 0 && !memcmp(dbuf, ref, tot2_ * 2 * e_), "%s: %s_alltoalls n=%zu", t_->name,   \
              #N, cn_);                                                                              \
    } while (0)

static int variant;

/* WORLD and the from-communicator team run every type; the other teams a quarter of them each
 * (a different quarter per team), which keeps 8 oversubscribed PEs within seconds */
static int full_suite, type_sel, type_i;
#define SELECTED() (full_suite || type_i++ % 4 == type_sel)

static void test_data(const team_t *t)
{
#define ONE_DATA(T, N, _)                                                                           \
    if (SELECTED()) TEST_DATA(T, N, t);
    NODESHM_RMA_TYPES(ONE_DATA, _)
    /* mem forms with odd byte counts */
    size_t n = 13 + (size_t)variant % 7;
    int tid = tid_counter++;
    int root = t->n - 1;
    fill_bytes(sbuf, n, me, tid, 0);
    CHECK(shmem_broadcastmem(t->team, dbuf, sbuf, n, root) == 0, "broadcastmem");
    fill_bytes(ref, n, t->pes[root], tid, 0);
    CHECK(!memcmp(dbuf, ref, n), "%s: broadcastmem", t->name);
    tid = tid_counter++;
    fill_bytes(sbuf, n, me, tid, 0);
    CHECK(shmem_fcollectmem(t->team, dbuf, sbuf, n) == 0, "fcollectmem");
    for (int i = 0; i < t->n; i++) fill_bytes(ref + i * n, n, t->pes[i], tid, 0);
    CHECK(!memcmp(dbuf, ref, t->n * n), "%s: fcollectmem", t->name);
    tid = tid_counter++;
    fill_bytes(sbuf, (size_t)t->my + 1, me, tid, 0);
    CHECK(shmem_collectmem(t->team, dbuf, sbuf, (size_t)t->my + 1) == 0, "collectmem");
    size_t off = 0;
    for (int i = 0; i < t->n; i++) {
        fill_bytes(ref + off, (size_t)i + 1, t->pes[i], tid, 0);
        off += (size_t)i + 1;
    }
    CHECK(!memcmp(dbuf, ref, off), "%s: collectmem", t->name);
    tid = tid_counter++;
    fill_bytes(sbuf, t->n * n, me, tid, 0);
    CHECK(shmem_alltoallmem(t->team, dbuf, sbuf, n) == 0, "alltoallmem");
    for (int i = 0; i < t->n; i++) fill_bytes(ref + i * n, n, t->pes[i], tid, (size_t)t->my * n);
    CHECK(!memcmp(dbuf, ref, t->n * n), "%s: alltoallmem", t->name);
    tid = tid_counter++;
    fill_bytes(sbuf, t->n * n, me, tid, 0);
    memset(dbuf, 1, t->n * n * 3);
    CHECK(shmem_alltoallsmem(t->team, dbuf, sbuf, 3, 1, n) == 0, "alltoallsmem");
    memset(ref, 1, t->n * n * 3);
    for (int i = 0; i < t->n; i++)
        for (size_t k = 0; k < n; k++)
            fill_bytes(ref + (i * n + k) * 3, 1, t->pes[i], tid, (size_t)t->my * n + k);
    CHECK(!memcmp(dbuf, ref, t->n * n * 3), "%s: alltoallsmem", t->name);
}

/* large: 100k elements of long and double, all five movements */
static void test_data_large(const team_t *t)
{
#define LARGE_ONE(T, N)                                                                             \
    do {                                                                                            \
        size_t cn_ = LARGE, e_ = sizeof(T);                                                          \
        int tid_ = tid_counter++, root_ = t->n / 2;                                                 \
        fill_bytes(sbuf, cn_ * e_, me, tid_, 0);                                                     \
        shmem_##N##_broadcast(t->team, (T *)dbuf, (T *)sbuf, cn_, root_);                            \
        fill_bytes(ref, cn_ * e_, t->pes[root_], tid_, 0);                                           \
        CHECK(!memcmp(dbuf, ref, cn_ * e_), "%s: large %s_broadcast", t->name, #N);                  \
        tid_ = tid_counter++;                                                                       \
        fill_bytes(sbuf, cn_ * e_, me, tid_, 0);                                                     \
        shmem_##N##_fcollect(t->team, (T *)dbuf, (T *)sbuf, cn_);                                    \
        for (int i_ = 0; i_ < t->n; i_++) fill_bytes(ref + i_ * cn_ * e_, cn_ * e_, t->pes[i_], tid_, 0); \
        CHECK(!memcmp(dbuf, ref, t->n * cn_ * e_), "%s: large %s_fcollect", t->name, #N);            \
        tid_ = tid_counter++;                                                                       \
        fill_bytes(sbuf, cn_ * e_, me, tid_, 0);                                                     \
        shmem_##N##_collect(t->team, (T *)dbuf, (T *)sbuf, t->my % 2 ? cn_ : cn_ / 3);                \
        size_t o_ = 0;                                                                              \
        for (int i_ = 0; i_ < t->n; i_++) {                                                         \
            size_t c_ = i_ % 2 ? cn_ : cn_ / 3;                                                       \
            fill_bytes(ref + o_ * e_, c_ * e_, t->pes[i_], tid_, 0);                                \
            o_ += c_;                                                                               \
        }                                                                                           \
        CHECK(!memcmp(dbuf, ref, o_ * e_), "%s: large %s_collect", t->name, #N);                    \
        size_t b_ = cn_ / (size_t)t->n;                                                              \
        tid_ = tid_counter++;                                                                       \
        fill_bytes(sbuf, t->n * b_ * e_, me, tid_, 0);                                              \
        shmem_##N##_alltoall(t->team, (T *)dbuf, (T *)sbuf, b_);                                    \
        for (int i_ = 0; i_ < t->n; i_++)                                                           \
            fill_bytes(ref + i_ * b_ * e_, b_ * e_, t->pes[i_], tid_, (size_t)t->my * b_ * e_);     \
        CHECK(!memcmp(dbuf, ref, t->n * b_ * e_), "%s: large %s_alltoall", t->name, #N);            \
    } while (0)
    LARGE_ONE(long, long);
    LARGE_ONE(double, double);
    /* back-to-back broadcasts from 512 KiB (between nodes: pipelined in 128 KiB chunks, members
     * copying each as it lands): a partial last chunk, whole chunks, roots moving */
    static const size_t pipe_sizes[] = {((size_t)512 << 10) + 1, (size_t)640 << 10, ((size_t)1 << 20) - 3};
    for (int r = 0; r < 3; r++) {
        size_t n = pipe_sizes[r];
        int tid = tid_counter++, root = (t->n - 1 + r * (t->n / 2 + 1)) % t->n;
        fill_bytes(sbuf, n, me, tid, 0);
        memset(dbuf, 0xa5, n + 1);
        int rc = shmem_broadcastmem(t->team, dbuf, sbuf, n, root);
        fill_bytes(ref, n, t->pes[root], tid, 0);
        ref[n] = 0xa5;
        CHECK(rc == 0 && !memcmp(dbuf, ref, n + 1), "%s: broadcastmem of %zu B from %d", t->name, n, root);
    }
}

/* collect with nodes of very different totals (between nodes each node's sizes and pieces travel
 * in one message up to 64 KiB, larger pieces in a second): the first half of the team small or
 * empty pieces, the second half ~40 KB each; then the first half all empty (a node with nothing
 * to send).  Checked up to one byte past the end, which stays untouched. */
static void test_collect_mixed(const team_t *t)
{
    for (int r = 0; r < 2; r++) {
        size_t sz[64], off = 0;
        for (int i = 0; i < t->n; i++)
            sz[i] = i < t->n / 2 ? (r || i % 2 ? 0 : 5 + (size_t)i) : 40000 + 13 * (size_t)i;
        int tid = tid_counter++;
        fill_bytes(sbuf, sz[t->my], me, tid, 0);
        size_t total = 0;
        for (int i = 0; i < t->n; i++) total += sz[i];
        memset(dbuf, 0x5a, total + 1);
        int rc = shmem_collectmem(t->team, dbuf, sz[t->my] ? sbuf : NULL, sz[t->my]);
        for (int i = 0; i < t->n; i++) {
            fill_bytes(ref + off, sz[i], t->pes[i], tid, 0);
            off += sz[i];
        }
        ref[off] = 0x5a;
        CHECK(rc == 0 && !memcmp(dbuf, ref, off + 1),
              "%s: collectmem with mixed node totals (round %d)", t->name, r);
    }
}

/* ---- reductions: checked element by element against a local fold ------------------------------- */
/* values: full bits (bitwise), small integers (sum, max, min: exact in floating point too),
 * {-2,-1,1,2} (prod: no overflow of int at 8 PEs, exact in floating point) */
#include "coll_values.h"
#define V_CBITS V_SMALL

static size_t red_count(int k) { static const size_t c[] = {1, 0, 19, 257, 5}; return c[k % 5]; }

#define TEST_REDUCE(T, N, OP, GEN, TM, COUNT, INPLACE)                                              \
    do {                                                                                            \
        const team_t *t_ = (TM);                                                                    \
        size_t cn_ = (COUNT);                                                                        \
        int tid_ = tid_counter++;                                                                   \
        T *s_ = (T *)sbuf, *d_ = (INPLACE) ? s_ : (T *)dbuf, *r_ = (T *)ref;                        \
        for (size_t k_ = 0; k_ < cn_; k_++) s_[k_] = GEN(T, test_value(me, tid_, k_));              \
        if (!(INPLACE)) d_[cn_] = GEN(T, 7);                                                         \
        int rc_ = shmem_##N##_##OP##_reduce(t_->team, d_, s_, cn_);                                  \
        for (size_t k_ = 0; k_ < cn_; k_++) {                                                        \
            T a_ = GEN(T, test_value(t_->pes[0], tid_, k_));                                        \
            for (int i_ = 1; i_ < t_->n; i_++)                                                      \
                a_ = (T)F_##OP(a_, GEN(T, test_value(t_->pes[i_], tid_, k_)));                      \
            r_[k_] = a_;                                                                            \
        }                                                                                           \
        size_t bad_ = cn_;                                                                           \
        for (size_t k_ = 0; k_ < cn_ && bad_ == cn_; k_++)                                            \
            if (d_[k_] != r_[k_]) bad_ = k_;                                                        \
        CHECK(rc_ == 0 && bad_ == cn_ && ((INPLACE) || d_[cn_] == GEN(T, 7)),                         \
              "%s: %s_%s_reduce n=%zu%s: first bad element %zu", t_->name, #N, #OP, cn_,            \
              (INPLACE) ? " in place" : "", bad_);                                                  \
    } while (0)

static void test_reduce(const team_t *t)
{
#define RED(T, N, OP, GEN)                                                                          \
    if (SELECTED()) TEST_REDUCE(T, N, OP, GEN, t, red_count(variant), variant % 3 == 0);            \
    variant++;
#define RED_AND(T, N, _) RED(T, N, and, V_BITS)
#define RED_OR(T, N, _) RED(T, N, or, V_BITS)
#define RED_XOR(T, N, _) RED(T, N, xor, V_BITS)
#define RED_MAX(T, N, _) RED(T, N, max, V_SMALL)
#define RED_MIN(T, N, _) RED(T, N, min, V_SMALL)
#define RED_SUM(T, N, _) RED(T, N, sum, V_SMALL)
#define RED_PROD(T, N, _) RED(T, N, prod, V_PROD)
#define RED_CSUM(T, N, _) RED(T, N, sum, V_CSMALL)
#define RED_CPROD(T, N, _) RED(T, N, prod, V_CPROD)
    NODESHM_REDUCE_BITWISE_TYPES(RED_AND, _)
    NODESHM_REDUCE_BITWISE_TYPES(RED_OR, _)
    NODESHM_REDUCE_BITWISE_TYPES(RED_XOR, _)
    NODESHM_REDUCE_MINMAX_TYPES(RED_MAX, _)
    NODESHM_REDUCE_MINMAX_TYPES(RED_MIN, _)
    NODESHM_REDUCE_MINMAX_TYPES(RED_SUM, _)
    NODESHM_REDUCE_MINMAX_TYPES(RED_PROD, _)
    NODESHM_REDUCE_COMPLEX_TYPES(RED_CSUM, _)
    NODESHM_REDUCE_COMPLEX_TYPES(RED_CPROD, _)
    /* large, and the C11 generic names */
    TEST_REDUCE(int, int, sum, V_SMALL, t, LARGE, 0);
    TEST_REDUCE(double, double, sum, V_SMALL, t, LARGE, 1);
    TEST_REDUCE(unsigned long, ulong, xor, V_BITS, t, LARGE + 3, 0);
    {
        long *s = (long *)sbuf, *d = (long *)dbuf;
        *s = me + 1;
        shmem_sum_reduce(t->team, d, s, 1);
        long want = 0;
        for (int i = 0; i < t->n; i++) want += t->pes[i] + 1;
        CHECK(*d == want, "%s: generic shmem_sum_reduce: %ld, want %ld", t->name, *d, want);
        double *x = (double *)sbuf, *y = (double *)dbuf;
        *x = -(double)me;
        shmem_max_reduce(t->team, y, x, 1);
        int lo = t->pes[0];
        for (int i = 0; i < t->n; i++) lo = t->pes[i] < lo ? t->pes[i] : lo;
        CHECK(*y == -(double)lo, "%s: generic shmem_max_reduce: %g", t->name, *y);
        *s = me + 1;
        shmem_broadcast(t->team, d, s, 1, 0);
        CHECK(*d == t->pes[0] + 1, "%s: generic shmem_broadcast: %ld", t->name, *d);
    }
}

/* ---- broadcast bursts ---------------------------------------------------------------------------- */
/* Many more back-to-back broadcasts than any ring holds (the small-broadcast ring has 64 entries,
 * the staging ring 4), with the source rewritten right after each call (it is free on return).
 * mixed: sizes around the small/staged and eager/rendezvous switches (560 B, 4 KiB), the root
 * changing every 7 calls, readers that sleep now and then.  small only (the staged and
 * rendezvous paths would hold a root back): the root changes every 150 calls and a reader
 * sleeps 3 ms early in each run, so the root gets far more than a ring ahead of it (a ring
 * entry overwritten before it was read fails the check); every third call is a sum_inscan
 * instead, whose member 0 reads nobody and runs ahead the same way.  Optionally alternating with
 * a second, overlapping team. */
static const size_t burst_mixed[] = {1, 8, 48, 49, 560, 561, 64, 4096, 4097, 13, 300, 8};
static const size_t burst_small[] = {1, 8, 48, 49, 560, 64, 13, 300, 8};
static void test_bcast_burst(const team_t *a, const team_t *b, int calls, int small)
{
    const size_t *sizes = small ? burst_small : burst_mixed;
    int nsizes = small ? (int)(sizeof burst_small / sizeof *sizes)
                       : (int)(sizeof burst_mixed / sizeof *sizes);
    int run = small ? 150 : 7;
    for (int r = 0; r < calls; r++) {
        const team_t *t = b && r % 2 ? b : a;
        size_t n = sizes[(r / 3) % nsizes];
        int root = (r / run) % t->n;
        int tid = tid_counter++;
        fill_bytes(sbuf, n, me, tid, 0);
        memset(dbuf, 0xa5, n + 1);
        if (small && t->my == (root + 1) % t->n && r % run == 2) usleep(3000);
        else if (!small && t->my != root && r % 23 == t->my % 23) usleep(300);
        if (small && r % 3 == 2) {
            /* an inclusive scan: member 0 reads nobody, so it runs ahead like a root */
            size_t c = n / sizeof(long) + 1;
            long *s = (long *)sbuf, *d = (long *)dbuf;
            for (size_t k = 0; k < c; k++) s[k] = (long)(test_value(me, tid, k) % 1000);
            d[c] = 77;
            int rc = shmem_long_sum_inscan(t->team, d, s, c);
            size_t bad = c;
            for (size_t k = 0; k < c && bad == c; k++) {
                long want = 0;
                for (int i = 0; i <= t->my; i++) want += (long)(test_value(t->pes[i], tid, k) % 1000);
                if (d[k] != want) bad = k;
            }
            CHECK(rc == 0 && bad == c && d[c] == 77, "%s: burst sum_inscan %d of %zu longs: first "
                  "bad element %zu", t->name, r, c, bad);
            continue;
        }
        int rc = shmem_broadcastmem(t->team, dbuf, sbuf, n, root);
        fill_bytes(ref, n, t->pes[root], tid, 0);
        ref[n] = 0xa5;
        CHECK(rc == 0 && !memcmp(dbuf, ref, n + 1), "%s: burst broadcast %d of %zu B from %d",
              t->name, r, n, root);
    }
}

/* Team slots are reused: a team whose root filled its rings, destroyed, then a team in the same
 * slot with a member that was not in the first: the root must not wait for that member to have
 * read the first team's broadcasts. */
static void test_slot_reuse(void)
{
    team_t t;
    shmem_team_t first, second;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 2, NULL, 0, &first);
    if (make(&t, "pair-01", first)) {
        test_bcast_burst(&t, NULL, 150, 1);
        shmem_team_destroy(first);
    }
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, 2, NULL, 0, &second);
    if (make(&t, "pair-02", second)) {
        tid_counter = 300000;
        test_bcast_burst(&t, NULL, 150, 1);
        shmem_team_destroy(second);
    }
}

/* sync: every member puts its mark into every member, then shmem_sync; all marks are there */
static long marks[6][64]; /* per team: the test's own mailbox, apart from the collectives' buffers */
static void test_sync(const team_t *t, int ti, int round)
{
    long *m = marks[ti];
    for (int i = 0; i < t->n; i++) shmem_long_p(&m[t->my], round * 1000 + t->my, t->pes[i]);
    shmem_quiet();
    CHECK(shmem_sync(t->team) == 0, "shmem_sync");
    int ok = 1;
    for (int i = 0; i < t->n; i++) ok &= m[i] == round * 1000 + i;
    CHECK(ok, "%s: shmem_sync round %d: a member's mark is missing", t->name, round);
    shmem_sync(t->team); /* nobody overwrites marks I still read */
}

/* erroneous calls, one per run (tests/coll.cmake): each must end the job with a clear message */
static int bad_call(const char *which)
{
    static long x[4], y[4];
    long priv[4] = {0};
    if (!strcmp(which, "bad-root")) shmem_long_broadcast(SHMEM_TEAM_WORLD, y, x, 1, npes);
    else if (!strcmp(which, "bad-team")) shmem_long_sum_reduce(SHMEM_TEAM_INVALID, y, x, 1);
    else if (!strcmp(which, "bad-dest")) shmem_long_fcollect(SHMEM_TEAM_WORLD, priv, x, 1);
    else if (!strcmp(which, "bad-aset")) shmem_barrier(0, 0, npes + 1, y);
    else fprintf(stderr, "coll: unknown case %s\n", which);
    shmem_finalize();
    return 0; /* reaching here is the failure: the job should have ended */
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (argc > 1) return bad_call(argv[1]);
    test_seed();
    sbuf = shmem_malloc(BUF_BYTES);
    dbuf = shmem_malloc(BUF_BYTES);
    ref = malloc(BUF_BYTES);
    if (!sbuf || !dbuf || !ref || npes > 64) {
        fprintf(stderr, "coll: setup failed\n");
        shmem_global_exit(2);
    }

    team_t teams[6];
    int member[6] = {0};
    int nt = 0;
    member[nt] = make(&teams[nt], "WORLD", SHMEM_TEAM_WORLD), nt++;
    member[nt] = make(&teams[nt], "SHARED", SHMEM_TEAM_SHARED), nt++;
    shmem_team_t st, xt, yt, ct;
    /* odd PEs (all PEs at npes 1) */
    shmem_team_split_strided(SHMEM_TEAM_WORLD, npes > 1, npes > 1 ? 2 : 1, npes > 1 ? npes / 2 : 1,
                             NULL, 0, &st);
    member[nt] = make(&teams[nt], "strided", st), nt++;
    shmem_team_split_2d(SHMEM_TEAM_WORLD, npes > 1 ? 2 : 1, NULL, 0, &xt, NULL, 0, &yt);
    member[nt] = make(&teams[nt], "2d-x", xt), nt++;
    member[nt] = make(&teams[nt], "2d-y", yt), nt++;
    /* from a communicator: evens then odds, each reversed, so nodes interleave in team order */
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, 0, (me % 2) * npes + (npes - me), &comm);
    shmemx_team_create_from_comm(comm, &ct);
    member[nt] = make(&teams[nt], "from-comm", ct), nt++;

    /* each team's suite, back to back; then the teams interleaved */
    for (int i = 0; i < nt; i++) {
        if (!member[i]) continue;
        variant = 100 * i; /* counts and data streams agree on the members of each team */
        tid_counter = 1000 * i;
        full_suite = i == 0 || i == 5;
        type_sel = i % 4;
        type_i = 0;
        test_sync(&teams[i], i, 1);
        test_data(&teams[i]);
        test_reduce(&teams[i]);
    }
    for (int i = 0; i < nt; i++)
        if (member[i] && (i == 0 || i == 5)) {
            tid_counter = 1000 * i;
            test_data_large(&teams[i]);
            test_collect_mixed(&teams[i]);
        }
    /* overlapping teams, alternating, no barrier: WORLD, strided, from-comm, 2d-y */
    for (int r = 0; r < 8; r++)
        for (int i = 0; i < nt; i++) {
            if (!member[i]) continue;
            variant = r;
            tid_counter = 100000 + 10 * r;
            TEST_REDUCE(long, long, sum, V_SMALL, &teams[i], (size_t)r * 37 + 1, r % 2);
            TEST_DATA(int, int, &teams[i]);
        }
    /* bursts: each team alone, then WORLD alternating with from-comm */
    for (int i = 0; i < nt; i++)
        if (member[i]) {
            tid_counter = 200000 + 1000 * i;
            test_bcast_burst(&teams[i], NULL, 120, 0);
            test_bcast_burst(&teams[i], NULL, 300, 1);
        }
    tid_counter = 250000;
    test_bcast_burst(&teams[0], &teams[5], 200, 0);
    for (int i = 0; i < nt; i++)
        if (member[i]) test_sync(&teams[i], i, 2);

    shmem_team_destroy(st);
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
    shmem_team_destroy(ct);
    MPI_Comm_free(&comm);
    if (npes >= 3) {
        tid_counter = 280000;
        test_slot_reuse();
    }
    shmem_free(sbuf);
    shmem_free(dbuf);
    free(ref);
    int rc = test_finish("coll");
    shmem_finalize();
    return rc;
}
