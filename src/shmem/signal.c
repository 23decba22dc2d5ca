/* nodeshm OpenSHMEM face: put-with-signal, signal fetch and wait. */
#include "shmem/internal.h"
#include "core/wait.h"

#define PUT_SIGNAL(call, dest, src, bytes)                                                         \
    NODESHM_CHECK(nodeshm_put_signal(call, dest, src, bytes, sig_addr, signal, sig_op, pe))
#define SIGNAL_ARGS uint64_t *sig_addr, uint64_t signal, int sig_op, int pe

#define DEFINE_TYPED_PUT_SIGNAL(T, N, _)                                                           \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, SIGNAL_ARGS)             \
    { PUT_SIGNAL(__func__, dest, source, nelems * sizeof(T)); }                                   \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, SIGNAL_ARGS)         \
    { PUT_SIGNAL(__func__, dest, source, nelems * sizeof(T)); }
NODESHM_RMA_TYPES(DEFINE_TYPED_PUT_SIGNAL, _)

#define DEFINE_SIZED_PUT_SIGNAL(B, _)                                                              \
    void shmem_put##B##_signal(void *dest, const void *source, size_t nelems, SIGNAL_ARGS)        \
    { PUT_SIGNAL(__func__, dest, source, nelems * ((B) / 8)); }                                   \
    void shmem_put##B##_signal_nbi(void *dest, const void *source, size_t nelems, SIGNAL_ARGS)    \
    { PUT_SIGNAL(__func__, dest, source, nelems * ((B) / 8)); }
NODESHM_RMA_SIZES(DEFINE_SIZED_PUT_SIGNAL, _)

void shmem_putmem_signal(void *dest, const void *source, size_t nelems, SIGNAL_ARGS)
{ PUT_SIGNAL(__func__, dest, source, nelems); }
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, SIGNAL_ARGS)
{ PUT_SIGNAL(__func__, dest, source, nelems); }

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    nodeshm_poll_progress();
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

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
