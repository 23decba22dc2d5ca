/* nodeshm OpenSHMEM face: distributed locks.
 *
 * A ticket lock kept in PE 0's copy of the symmetric `long`: the high 32 bits hand out tickets,
 * the low 32 bits say which ticket is served.  Tickets make it fair (first come, first served)
 * under contention, and all updates are AMOs, so the lock works across nodes as well. */
#include "shmem/internal.h"
#include "core/wait.h"

#define LOCK_HOME 0
#define TICKET ((uint64_t)1 << 32)
#define SERVING(v) ((uint32_t)(v))
#define NEXT(v) ((uint32_t)((v) >> 32))

static uint64_t lock_read(const char *call, long *lock)
{
    uint64_t v;
    NODESHM_CHECK(nodeshm_amo(call, NODESHM_AMO_FETCH, 8, lock, NULL, NULL, &v, LOCK_HOME));
    return v;
}

void shmem_set_lock(long *lock)
{
    uint64_t old, ticket = TICKET;
    NODESHM_CHECK(nodeshm_amo(__func__, NODESHM_AMO_ADD, 8, lock, &ticket, NULL, &old, LOCK_HOME));
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    while (SERVING(lock_read(__func__, lock)) != NEXT(old)) nodeshm_wait_step(&w);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
NODESHM_PSHMEM(shmem_set_lock)

int shmem_test_lock(long *lock)
{
    uint64_t v = lock_read(__func__, lock);
    if (SERVING(v) != NEXT(v)) return 1; /* held */
    uint64_t want = v + TICKET, old;
    NODESHM_CHECK(nodeshm_amo(__func__, NODESHM_AMO_CSWAP, 8, lock, &want, &v, &old, LOCK_HOME));
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return old == v ? 0 : 1;
}
NODESHM_PSHMEM(shmem_test_lock)

void shmem_clear_lock(long *lock)
{
    /* the holder's writes must be visible before the next holder gets in */
    NODESHM_CHECK(nodeshm_quiet());
    uint64_t v = lock_read(__func__, lock), old;
    for (;;) { /* only the serving half changes: no carry into the ticket half */
        uint64_t next = (v & ~(uint64_t)0xffffffffu) | (uint32_t)(SERVING(v) + 1);
        NODESHM_CHECK(nodeshm_amo(__func__, NODESHM_AMO_CSWAP, 8, lock, &next, &v, &old, LOCK_HOME));
        if (old == v) return;
        v = old;
    }
}
NODESHM_PSHMEM(shmem_clear_lock)
