/* nodeshm core: flags a waiter may sleep on (bell.h says why and how). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "core/coll/bell.h"
#include "core/coll/flags.h"

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void nodeshm_bell_store(nodeshm_bell_t *bell, uint64_t value)
{
    nodeshm_flag_store(&bell->value, value);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* store, fence, load: Dekker */
    if (__atomic_load_n(&bell->waiters, __ATOMIC_RELAXED)) {
        __atomic_fetch_add(&bell->rings, 1, __ATOMIC_RELEASE);
        syscall(SYS_futex, &bell->rings, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    }
}

/* A sleeper in a job that spans nodes wakes this often to drive MPI progress (core/wait.h):
 * RMA aimed at it from another node completes only while it is inside MPI (MPICH's write
 * confirmation, Open MPI's osc over tcp), so a peer's shmem_quiet waits up to this long for a
 * sleeper, not the 50 ms safety net.  A wake-up costs about a microsecond of MPI_Iprobe. */
#define BELL_POLL_NS (200 * 1000L)

/* The first of [first, first + n) still below value, or -1 (acquire). */
static int lagging(const nodeshm_bells_t *b, int first, int n, uint64_t value)
{
    for (int i = first; i < first + n; i++)
        if (nodeshm_flag_load(&nodeshm_bell_at(b, i)->value) < value) return i;
    return -1;
}

static long elapsed_ns(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000000000L + (t.tv_nsec - t0->tv_nsec);
}

void nodeshm_bells_wait_ge(const nodeshm_bells_t *b, int first, int n, uint64_t value)
{
    nodeshm_bells_wait_ge_yielding(b, first, n, value, 0);
}

void nodeshm_bells_wait_ge_yielding(const nodeshm_bells_t *b, int first, int n, uint64_t value, long yield_ns)
{
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    struct timespec yields_from;
    int yielding = 0;
    for (int lag; (lag = lagging(b, first, n, value)) >= 0; n -= lag - first, first = lag) {
        if (w.spins < nodeshm_spin_limit) { /* the spin only: no yields (bell.h says why) */
            nodeshm_wait_step(&w);
            continue;
        }
        if (yield_ns > 0) { /* then yields for a while, without MPI polls (core/wait.c) */
            if (!yielding) yielding = 1, clock_gettime(CLOCK_MONOTONIC, &yields_from);
            if (elapsed_ns(&yields_from) < yield_ns) {
                sched_yield();
                continue;
            }
        }
        nodeshm_bell_t *bell = nodeshm_bell_at(b, lag); /* sleep until this one stores */
        uint32_t rings = __atomic_load_n(&bell->rings, __ATOMIC_ACQUIRE);
        __atomic_fetch_add(&bell->waiters, 1, __ATOMIC_SEQ_CST);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (nodeshm_flag_load(&bell->value) < value) {
            /* a safety net, not the mechanism; where the job spans nodes, the poll interval */
            struct timespec limit = {0, nodeshm_wait_needs_progress ? BELL_POLL_NS : 50000000L};
            syscall(SYS_futex, &bell->rings, FUTEX_WAIT, rings, &limit, NULL, 0);
        }
        __atomic_fetch_sub(&bell->waiters, 1, __ATOMIC_SEQ_CST);
        if (nodeshm_flag_load(&bell->value) < value) nodeshm_poll_progress(); /* timed out */
    }
}
