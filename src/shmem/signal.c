/* nodeshm OpenSHMEM face: put-with-signal (default context and shmem_ctx_ forms), signal fetch and
 * wait. */
#include "shmem/internal.h"
#include "core/wait.h"

#define PUT_SIGNAL(dest, src, bytes)                                                               \
    NODESHM_CHECK(nodeshm_ctx_put_signal(call_, ctx_, dest, src, bytes, sig_addr, signal, sig_op, pe));
#define SIGNAL_ARGS(T)                                                                             \
    (T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)

#define DEFINE_TYPED_PUT_SIGNAL(T, N, _)                                                           \
    NODESHM_DEFINE2(void, N##_put_signal, SIGNAL_ARGS(T), PUT_SIGNAL(dest, source, nelems * sizeof(T))) \
    NODESHM_DEFINE2(void, N##_put_signal_nbi, SIGNAL_ARGS(T),                                      \
                    PUT_SIGNAL(dest, source, nelems * sizeof(T)))
NODESHM_RMA_TYPES(DEFINE_TYPED_PUT_SIGNAL, _)

#define DEFINE_SIZED_PUT_SIGNAL(B, _)                                                              \
    NODESHM_DEFINE2(void, put##B##_signal, SIGNAL_ARGS(void),                                      \
                    PUT_SIGNAL(dest, source, nelems * ((B) / 8)))                                  \
    NODESHM_DEFINE2(void, put##B##_signal_nbi, SIGNAL_ARGS(void),                                  \
                    PUT_SIGNAL(dest, source, nelems * ((B) / 8)))
NODESHM_RMA_SIZES(DEFINE_SIZED_PUT_SIGNAL, _)

NODESHM_DEFINE2(void, putmem_signal, SIGNAL_ARGS(void), PUT_SIGNAL(dest, source, nelems))
NODESHM_DEFINE2(void, putmem_signal_nbi, SIGNAL_ARGS(void), PUT_SIGNAL(dest, source, nelems))

/* OpenSHMEM 1.6 signal updates without data.  They take nodeshm_ctx_amo, the path of every AMO
 * and of put-with-signal's update: CPU atomics within a node, MPI accumulates once the job spans
 * nodes (even to a node peer), so they stay atomic with each other and with put-with-signal. */
#undef shmem_signal_add /* shmem.h's C11 forms with an optional context */
#undef shmem_signal_set
#define SIGNAL_UPDATE(OP)                                                                          \
    NODESHM_CHECK(nodeshm_ctx_amo(call_, ctx_, NODESHM_AMO_##OP, sizeof(uint64_t), sig_addr, &signal, \
                                  NULL, NULL, pe));
NODESHM_DEFINE2(void, signal_add, (uint64_t *sig_addr, uint64_t signal, int pe), SIGNAL_UPDATE(ADD))
NODESHM_DEFINE2(void, signal_set, (uint64_t *sig_addr, uint64_t signal, int pe), SIGNAL_UPDATE(SET))

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    nodeshm_poll_progress();
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}
NODESHM_PSHMEM(shmem_signal_fetch)

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    NODESHM_CHECK(nodeshm_check_cmp(__func__, cmp));
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    for (;;) {
        uint64_t v = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
        if (NODESHM_SATISFIED(v, cmp, cmp_value)) return v;
        nodeshm_wait_step(&w);
    }
}
NODESHM_PSHMEM(shmem_signal_wait_until)
