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

/* The first of [first, first + n) still below value, or -1 (acquire). */
static int lagging(const nodeshm_bells_t *b, int first, int n, uint64_t value)
{
    for (int i = first; i < first + n; i++)
        if (nodeshm_flag_load(&nodeshm_bell_at(b, i)->value) < value) return i;
    return -1;
}

void nodeshm_bells_wait_ge(const nodeshm_bells_t *b, int first, int n, uint64_t value)
{
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    for (int lag; (lag = lagging(b, first, n, value)) >= 0; n -= lag - first, first = lag) {
        if (w.spins < nodeshm_spin_limit) { /* the spin only: no yields (bell.h says why) */
            nodeshm_wait_step(&w);
            continue;
        }
        nodeshm_bell_t *bell = nodeshm_bell_at(b, lag); /* sleep until this one stores */
        uint32_t rings = __atomic_load_n(&bell->rings, __ATOMIC_ACQUIRE);
        __atomic_fetch_add(&bell->waiters, 1, __ATOMIC_SEQ_CST);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (nodeshm_flag_load(&bell->value) < value) {
            struct timespec limit = {0, 50 * 1000 * 1000}; /* a safety net, not the mechanism */
            syscall(SYS_futex, &bell->rings, FUTEX_WAIT, rings, &limit, NULL, 0);
        }
        __atomic_fetch_sub(&bell->waiters, 1, __ATOMIC_SEQ_CST);
    }
}
