/* libnodeshm_mpi with MPI_THREAD_MULTIPLE: two threads run collectives at the same time, each on
 * its own duplicate of MPI_COMM_WORLD, and each keeps making, using and freeing further
 * duplicates, so that the interposer creates and frees per-communicator state (node windows,
 * the states list, ids, point-to-point tags, the keyval) in both threads at once.  Every result is checked against
 * values computed here from fresh random data (seed printed; NODESHM_TEST_SEED replays).  Each
 * thread also leaves KEPT communicators alive, each made at the same moment as the other's:
 * MPI_Finalize must free their windows in the same order on every rank (else it hangs).
 * Skipped (message, exit 0) if the MPI does not provide MPI_THREAD_MULTIPLE. */
#include "nodeshm.h"

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ITERS 40
#define KEPT 6 /* communicators per thread left for MPI_Finalize */
#define N 3000 /* longs: above the smallest thresholds, below the allreduce one */
#define GV_BIG 1000 /* longs: a gatherv block above NODESHM_MPI_GATHERV_MAX (the tests' 4k) */

static uint64_t seed;
static int wrank, wsize;
static long failures[2], checks[2];

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
/* value i of rank r in thread t, iteration it, stream k: any rank can recompute it */
static long val(int t, int it, int k, int r, int i)
{
    return (long)(mix(seed ^ mix(((uint64_t)t << 60) ^ ((uint64_t)it << 44) ^ ((uint64_t)k << 40) ^
                                 ((uint64_t)r << 24) ^ (uint64_t)i)) >> 40);
}

#define CHECK(t, cond, ...)                                                                        \
    do {                                                                                           \
        checks[t]++;                                                                               \
        if (!(cond) && failures[t]++ < 5) {                                                        \
            char m_[400];                                                                          \
            int n_ = snprintf(m_, sizeof m_, "rank %d thread %d: check failed: %s: ", wrank, t, #cond); \
            if (n_ > 0 && n_ < (int)sizeof m_) snprintf(m_ + n_, sizeof m_ - (size_t)n_, __VA_ARGS__); \
            fprintf(stderr, "%s\n", m_);                                                           \
        }                                                                                          \
    } while (0)

static pthread_barrier_t both;

typedef struct arg {
    int t;
    MPI_Comm comm;  /* this thread's duplicate of MPI_COMM_WORLD */
    MPI_Comm kept[KEPT]; /* made last and left for MPI_Finalize */
} arg_t;

static void collectives(int t, int it, MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static long send[2][N], recv[2][N], all[2][8 * 64];
    long *s = send[t], *r = recv[t];
    int n = 1 + (int)(mix(seed ^ (uint64_t)(it * 2 + t)) % N); /* the same on every rank */
    for (int i = 0; i < n; i++) s[i] = val(t, it, 0, rank, i);
    MPI_Allreduce(s, r, n, MPI_LONG, MPI_SUM, comm);
    long bad = 0;
    for (int i = 0; i < n; i++) {
        long want = 0;
        for (int q = 0; q < size; q++) want += val(t, it, 0, q, i);
        bad += r[i] != want;
    }
    CHECK(t, bad == 0, "iteration %d: MPI_Allreduce of %d longs: %ld wrong", it, n, bad);

    int root = it % size;
    for (int i = 0; i < n; i++) r[i] = rank == root ? val(t, it, 1, root, i) : -1;
    MPI_Bcast(r, n, MPI_LONG, root, comm);
    bad = 0;
    for (int i = 0; i < n; i++) bad += r[i] != val(t, it, 1, root, i);
    CHECK(t, bad == 0, "iteration %d: MPI_Bcast of %d longs from %d: %ld wrong", it, n, root, bad);

    int g = 64;
    for (int i = 0; i < g; i++) s[i] = val(t, it, 2, rank, i);
    MPI_Gather(s, g, MPI_LONG, all[t], g, MPI_LONG, root, comm);
    if (rank == root) {
        bad = 0;
        for (int q = 0; q < size && q < 8; q++)
            for (int i = 0; i < g; i++) bad += all[t][q * g + i] != val(t, it, 2, q, i);
        CHECK(t, bad == 0, "iteration %d: MPI_Gather to %d: %ld wrong", it, root, bad);
    }

    /* gatherv with one block above its window (NODESHM_MPI_GATHERV_MAX=4k): that block goes
     * point to point on the interposer's one shared communicator, told apart from the other
     * thread's by its communicator's own tag */
    static long gv[2][8 * (GV_BIG + 32)];
    int cnt[8], dsp[8], big = (it + 1) % size;
    if (size <= 8) {
        for (int q = 0, at = 0; q < size; q++) {
            cnt[q] = q == big ? GV_BIG : 16 + q;
            dsp[q] = at;
            at += cnt[q] + 1;
        }
        for (int i = 0; i < cnt[rank]; i++) s[i] = val(t, it, 3, rank, i);
        MPI_Gatherv(s, cnt[rank], MPI_LONG, gv[t], cnt, dsp, MPI_LONG, root, comm);
        bad = 0;
        for (int q = 0; q < size && rank == root; q++)
            for (int i = 0; i < cnt[q]; i++) bad += gv[t][dsp[q] + i] != val(t, it, 3, q, i);
        CHECK(t, bad == 0, "iteration %d: MPI_Gatherv to %d (rank %d's block point to point): %ld wrong", it,
              root, big, bad);
    }
    MPI_Barrier(comm);
}

static void *thread_main(void *p)
{
    arg_t *a = p;
    for (int it = 0; it < ITERS; it++) {
        collectives(a->t, it, a->comm);
        if (it % 4 == 0) { /* a fresh communicator: the interposer makes its state now */
            MPI_Comm fresh;
            MPI_Comm_dup(a->comm, &fresh);
            collectives(a->t, it, fresh);
            MPI_Comm_free(&fresh);
        }
    }
    for (int k = 0; k < KEPT; k++) {
        MPI_Comm_dup(a->comm, &a->kept[k]);
        pthread_barrier_wait(&both); /* both threads make their state at the same moment */
        collectives(a->t, ITERS + k, a->kept[k]);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (wrank == 0) printf("mpi_threads: SKIP: the MPI provides thread level %d, not MPI_THREAD_MULTIPLE\n", provided);
        MPI_Finalize();
        return 0;
    }
    if (wrank == 0) {
        const char *env = getenv("NODESHM_TEST_SEED");
        seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
        printf("seed %llu (replay with NODESHM_TEST_SEED=%llu)\n", (unsigned long long)seed, (unsigned long long)seed);
        fflush(stdout);
    }
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    arg_t a[2];
    pthread_t th[2];
    for (int t = 0; t < 2; t++) {
        a[t].t = t;
        MPI_Comm_dup(MPI_COMM_WORLD, &a[t].comm);
    }
    pthread_barrier_init(&both, NULL, 2);
    long before = nodeshm_mpi_accelerated();
    for (int t = 0; t < 2; t++) pthread_create(&th[t], NULL, thread_main, &a[t]);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    long accelerated = nodeshm_mpi_accelerated() - before;
    if (wsize > 1) CHECK(0, accelerated > 0, "the interposer ran no collective itself");
    long mine[2] = {failures[0] + failures[1], checks[0] + checks[1]}, sum[2];
    MPI_Allreduce(mine, sum, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("mpi_threads: %d ranks, 2 threads: %ld checks, %ld calls run by nodeshm on rank 0: %s\n", wsize,
               sum[1], accelerated, sum[0] ? "FAIL" : "PASS");
    MPI_Comm_free(&a[0].comm);
    MPI_Comm_free(&a[1].comm);
    MPI_Finalize(); /* a[t].kept[]: freed here, in an order all ranks must agree on */
    return sum[0] != 0;
}
