/* shmem_init_thread(SHMEM_THREAD_MULTIPLE): returns 0, provides the level MPI provides (but at
 * most SERIALIZED under Open MPI 4.x when the job spans nodes: its osc/pt2pt refuses windows under
 * MPI_THREAD_MULTIPLE), and shmem_query_thread reports the same level.  When SHMEM_THREAD_MULTIPLE is provided, threads
 * put to every PE at once, and the data arrives. */
#include <mpi.h>
#include <pthread.h>
#include <shmem.h>
#include <shmemx.h>
#include <string.h>

#include "common.h"

#define THREADS 4
#define ELEMS 64
#define MAX_PES 64
static long g_slots[MAX_PES * THREADS * ELEMS];
static long *h_slots;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg, me = shmem_my_pe(), n = shmem_n_pes();
    long src[ELEMS];
    for (int r = 0; r < n; r++) {
        int pe = (me + r + t) % n;
        for (int i = 0; i < ELEMS; i++) src[i] = (long)test_value(me, 1 + t, (uint64_t)(pe * ELEMS + i));
        size_t at = ((size_t)me * THREADS + (size_t)t) * ELEMS;
        shmem_long_put(&h_slots[at], src, ELEMS, pe);
        shmem_long_put_nbi(&g_slots[at], src, ELEMS, pe);
        shmem_quiet();
    }
    return NULL;
}

int main(void)
{
    int provided = -1;
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    test_seed();
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(rc == 0, "shmem_init_thread returned %d", rc);
    CHECK(provided >= SHMEM_THREAD_SINGLE && provided <= SHMEM_THREAD_MULTIPLE,
          "shmem_init_thread provided %d, not a thread level", provided);
    int mpi_level = -1, expected = SHMEM_THREAD_SINGLE;
    MPI_Query_thread(&mpi_level);
    if (mpi_level == MPI_THREAD_FUNNELED) expected = SHMEM_THREAD_FUNNELED;
    if (mpi_level == MPI_THREAD_SERIALIZED) expected = SHMEM_THREAD_SERIALIZED;
    if (mpi_level == MPI_THREAD_MULTIPLE) expected = SHMEM_THREAD_MULTIPLE;
    CHECK(provided == expected, "shmem_init_thread provided %d, MPI runs at level %d", provided,
          mpi_level);
#if defined(OPEN_MPI) && OPEN_MPI && OMPI_MAJOR_VERSION < 5
    if (shmemx_n_nodes() > 1)
        CHECK(mpi_level <= MPI_THREAD_SERIALIZED,
              "Open MPI 4.x, %d nodes: MPI runs at level %d, its windows need <= SERIALIZED",
              shmemx_n_nodes(), mpi_level);
#endif
    int queried = -1;
    shmem_query_thread(&queried);
    CHECK(queried == provided, "shmem_query_thread: %d, shmem_init_thread provided %d", queried, provided);
    if (me == 0) printf("requested SHMEM_THREAD_MULTIPLE (%d), provided %d\n", SHMEM_THREAD_MULTIPLE, provided);

    if (provided == SHMEM_THREAD_MULTIPLE && n <= MAX_PES) {
        h_slots = shmem_malloc(sizeof(long) * (size_t)n * THREADS * ELEMS);
        memset(h_slots, 0, sizeof(long) * (size_t)n * THREADS * ELEMS);
        memset(g_slots, 0, sizeof g_slots);
        shmem_barrier_all();
        pthread_t th[THREADS];
        for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
        for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
        shmem_barrier_all();
        for (int s = 0; s < n; s++)
            for (int t = 0; t < THREADS; t++) {
                size_t at = ((size_t)s * THREADS + (size_t)t) * ELEMS, bad_h = 0, bad_g = 0;
                for (int i = 0; i < ELEMS; i++) {
                    long want = (long)test_value(s, 1 + t, (uint64_t)(me * ELEMS + i));
                    bad_h += h_slots[at + (size_t)i] != want;
                    bad_g += g_slots[at + (size_t)i] != want;
                }
                CHECK(bad_h == 0 && bad_g == 0, "thread %d of PE %d: %zu heap and %zu global elements wrong", t, s,
                      bad_h, bad_g);
            }
        shmem_barrier_all();
        shmem_free(h_slots);
    }
    int status = test_finish("init_thread");
    shmem_finalize();
    return status;
}
