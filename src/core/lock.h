/* nodeshm core: a process-wide lock that costs a flag, not a mutex, where the program has at most
 * one thread in the library at a time.
 *
 * The non-blocking collectives' progress (core/coll/progress.c) and the MPI face's tables of live
 * requests take a lock at every start and test; an uncontended pthread mutex pair cost a
 * self-only MPI_Ialltoallv + MPI_Wait at 2 ranks about 15% of its time (Open MPI, perf).  MPI below
 * MPI_THREAD_MULTIPLE promises no two threads in MPI at once (FUNNELED, SERIALIZED: the program
 * orders them), so the MPI face says so at init (nodeshm_lock_single_thread) and the locks become
 * a busy flag, which still keeps a pass from re-entering itself.  Until a face says so, locks are
 * mutexes.  Counters the threads share (ops outstanding, references) go the same way: a locked
 * add under threads, else a relaxed load and store, plain moves (each lock prefix costs ~20 cycles,
 * and a small non-blocking op made nine). */
#ifndef NODESHM_LOCK_H
#define NODESHM_LOCK_H

#include <pthread.h>

typedef struct nodeshm_lock {
    pthread_mutex_t m;
    int busy; /* single-thread mode: held */
} nodeshm_lock_t;
#define NODESHM_LOCK_INIT {PTHREAD_MUTEX_INITIALIZER, 0}

extern int nodeshm_lock_threads; /* 1: threads may be in the library at once (mutexes) */
/* The face, once, before any lock is taken: at most one thread in the library at a time. */
static inline void nodeshm_lock_single_thread(void) { nodeshm_lock_threads = 0; }

static inline void nodeshm_lock(nodeshm_lock_t *l)
{
    if (nodeshm_lock_threads) pthread_mutex_lock(&l->m);
    else l->busy = 1;
}
/* 1 when taken; 0 when another thread (or, single-threaded, an outer frame) holds it */
static inline int nodeshm_lock_try(nodeshm_lock_t *l)
{
    if (nodeshm_lock_threads) return pthread_mutex_trylock(&l->m) == 0;
    if (l->busy) return 0;
    l->busy = 1;
    return 1;
}
static inline void nodeshm_unlock(nodeshm_lock_t *l)
{
    if (nodeshm_lock_threads) pthread_mutex_unlock(&l->m);
    else l->busy = 0;
}

/* *c += d, returning the new value (nodeshm_count_add: long, int or unsigned long counters) */
#define NODESHM_COUNT_ADD_FN(name, T)                                                                  \
    static inline T name(T *c, T d)                                                                    \
    {                                                                                                  \
        if (nodeshm_lock_threads) return __atomic_add_fetch(c, d, __ATOMIC_ACQ_REL);                   \
        T v = __atomic_load_n(c, __ATOMIC_RELAXED) + d;                                                \
        __atomic_store_n(c, v, __ATOMIC_RELAXED);                                                      \
        return v;                                                                                      \
    }
NODESHM_COUNT_ADD_FN(nodeshm_count_add_long, long)
NODESHM_COUNT_ADD_FN(nodeshm_count_add_int, int)
NODESHM_COUNT_ADD_FN(nodeshm_count_add_ulong, unsigned long)
#define nodeshm_count_add(c, d)                                                                        \
    _Generic((c), long *: nodeshm_count_add_long, int *: nodeshm_count_add_int,                         \
             unsigned long *: nodeshm_count_add_ulong)((c), (d))

#endif
