/* Contexts under SHMEM_THREAD_MULTIPLE: every thread creates a PRIVATE context and hammers puts
 * and atomics to every PE on it, then shmem_ctx_quiet and destroy; the values are checked after
 * a barrier.  The puts are checked by data (each thread and source PE has its own slots on every
 * target), the atomics by count.  Skipped, with a message, when MPI does not give
 * MPI_THREAD_MULTIPLE. */
#include "common.h"

#include <pthread.h>
#include <string.h>

#define NTHREADS 4
#define ITERS 200
#define SLOTS 32
#define MAX_PES 64

static int me, npes;
static long counters[NTHREADS];                   /* atomics: ITERS * npes adds per thread slot */
static long *slots;                               /* [MAX_PES][NTHREADS][SLOTS] on the heap */
static long fetch_sum[NTHREADS];

static long slot_value(int pe, int t, int i) { return (long)test_value(pe, t, (uint64_t)i); }

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        CHECK(0, "thread %d: ctx_create failed", t);
        return NULL;
    }
    long src[SLOTS];
    for (int i = 0; i < SLOTS; i++) src[i] = slot_value(me, t, i);
    long sum = 0;
    for (int it = 0; it < ITERS; it++) {
        for (int d = 0; d < npes; d++) {
            int pe = (me + d + it) % npes;
            if (it % 2 == 0) shmem_ctx_long_atomic_add(ctx, &counters[t], 1, pe);
            else sum += shmem_ctx_long_atomic_fetch_inc(ctx, &counters[t], pe) >= 0;
            int i = (it + d) % SLOTS;
            shmem_ctx_long_p(ctx, &slots[((size_t)me * NTHREADS + t) * SLOTS + i], src[i], pe);
        }
        if (it % 50 == 0) shmem_ctx_long_put_nbi(ctx, &slots[((size_t)me * NTHREADS + t) * SLOTS], src, SLOTS, (me + it) % npes);
    }
    for (int pe = 0; pe < npes; pe++)
        shmem_ctx_long_put_nbi(ctx, &slots[((size_t)me * NTHREADS + t) * SLOTS], src, SLOTS, pe);
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    fetch_sum[t] = sum;
    return NULL;
}

int main(void)
{
    int provided = -1;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (provided != SHMEM_THREAD_MULTIPLE) {
        if (me == 0)
            printf("ctx_threads: SKIPPED: shmem_init_thread provided level %d, not "
                   "SHMEM_THREAD_MULTIPLE (the MPI library lacks MPI_THREAD_MULTIPLE, or Open MPI "
                   "4.x across nodes)\n", provided);
        shmem_finalize();
        return 0;
    }
    if (npes > MAX_PES) {
        if (me == 0) printf("ctx_threads: SKIPPED: more than %d PEs\n", MAX_PES);
        shmem_finalize();
        return 0;
    }
    test_seed();
    slots = shmem_calloc((size_t)MAX_PES * NTHREADS * SLOTS, sizeof(long));
    shmem_barrier_all();
    for (int round = 0; round < 3; round++) {
        memset(counters, 0, sizeof counters);
        memset(slots, 0, (size_t)MAX_PES * NTHREADS * SLOTS * sizeof(long));
        shmem_barrier_all();
        pthread_t th[NTHREADS];
        for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
        for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
        shmem_barrier_all();
        for (int t = 0; t < NTHREADS; t++) {
            CHECK(counters[t] == (long)ITERS * npes, "round %d thread %d: counter %ld, want %ld",
                  round, t, counters[t], (long)ITERS * npes);
            CHECK(fetch_sum[t] == (long)(ITERS / 2) * npes, "thread %d fetches", t);
        }
        int bad = 0;
        for (int pe = 0; pe < npes; pe++)
            for (int t = 0; t < NTHREADS; t++)
                for (int i = 0; i < SLOTS; i++)
                    bad += slots[((size_t)pe * NTHREADS + t) * SLOTS + i] != slot_value(pe, t, i);
        CHECK(bad == 0, "round %d: %d slots wrong", round, bad);
        shmem_barrier_all();
    }
    shmem_free(slots);
    int rc = test_finish("ctx_threads");
    shmem_finalize();
    return rc;
}
