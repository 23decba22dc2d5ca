/* nodeshm core: put, get, atomics and signals, node-local or through MPI. */
#include "core/access.h"

#include <stdint.h>

static void copy_blocks(char *dst, const char *src, size_t block, size_t nblocks,
                        size_t dst_stride, size_t src_stride)
{
    if (nblocks == 1 || (dst_stride == block && src_stride == block)) {
        memcpy(dst, src, block * nblocks);
        return;
    }
    for (size_t b = 0; b < nblocks; b++) memcpy(dst + b * dst_stride, src + b * src_stride, block);
}

/* A strided request in bytes; fails (reporting) when the sizes overflow. */
typedef struct { size_t block, dst_stride, src_stride, dst_span, src_span; } strided_t;

static int strided_bytes(const char *call, size_t elem, size_t bsize, size_t nblocks,
                         size_t dst_stride, size_t src_stride, strided_t *r)
{
    size_t dlast, slast;
    if (__builtin_mul_overflow(elem, bsize, &r->block) ||
        __builtin_mul_overflow(elem, dst_stride, &r->dst_stride) ||
        __builtin_mul_overflow(elem, src_stride, &r->src_stride) ||
        __builtin_mul_overflow(nblocks - 1, r->dst_stride, &dlast) ||
        __builtin_mul_overflow(nblocks - 1, r->src_stride, &slast) ||
        __builtin_add_overflow(dlast, r->block, &r->dst_span) ||
        __builtin_add_overflow(slast, r->block, &r->src_span))
        return nodeshm_report(NODESHM_ERR_ARG, call,
                              "strided transfer too large: %zu blocks of %zu elements, strides %zu "
                              "and %zu", nblocks, bsize, dst_stride, src_stride);
    return NODESHM_OK;
}

int nodeshm_dom_put(const char *call, nodeshm_domain_t *d, void *dest, const void *src, size_t elem,
                    size_t bsize, size_t nblocks, size_t dst_stride, size_t src_stride, int pe)
{
    nodeshm_target_t t;
    strided_t r;
    int rc = nodeshm_domain_pe(call, d, &pe);
    if (rc) return rc;
    if (bsize == 0 || nblocks == 0) return NODESHM_OK;
    rc = strided_bytes(call, elem, bsize, nblocks, dst_stride, src_stride, &r);
    if (!rc) rc = nodeshm_resolve(call, "dest", dest, r.dst_span, pe, &t);
    if (rc) return rc;
    if (t.local) {
        copy_blocks(t.local, src, r.block, nblocks, r.dst_stride, r.src_stride);
        return NODESHM_OK;
    }
    rc = nodeshm_remote_put(call, t.seg, t.off, src, r.block, nblocks, r.dst_stride, r.src_stride, pe, 0);
    nodeshm_domain_issued(d);
    return rc;
}

int nodeshm_dom_get(const char *call, nodeshm_domain_t *d, void *dest, const void *src, size_t elem,
                    size_t bsize, size_t nblocks, size_t dst_stride, size_t src_stride, int pe)
{
    nodeshm_target_t t;
    strided_t r;
    int rc = nodeshm_domain_pe(call, d, &pe);
    if (rc) return rc;
    if (bsize == 0 || nblocks == 0) return NODESHM_OK;
    rc = strided_bytes(call, elem, bsize, nblocks, dst_stride, src_stride, &r);
    if (!rc) rc = nodeshm_resolve(call, "source", src, r.src_span, pe, &t);
    if (rc) return rc;
    if (t.local) {
        copy_blocks(dest, t.local, r.block, nblocks, r.dst_stride, r.src_stride);
        return NODESHM_OK;
    }
    return nodeshm_remote_get(call, dest, t.seg, t.off, r.block, nblocks, r.dst_stride, r.src_stride, pe, 0);
}

/* CPU atomics on a node peer's word; one body for both word sizes.  Sequentially consistent:
 * AMOs are ordered with puts by fence/quiet, and on x86 every locked op is a full barrier. */
#define LOCAL_AMO(UINT)                                                                            \
    static void local_amo_##UINT(int op, UINT *p, const void *operand, const void *compare,        \
                                 void *result)                                                     \
    {                                                                                              \
        UINT v = 0, c = 0, old;                                                                    \
        if (operand) memcpy(&v, operand, sizeof v);                                                \
        switch (op) {                                                                              \
        case NODESHM_AMO_FETCH: old = __atomic_load_n(p, __ATOMIC_SEQ_CST); break;                \
        case NODESHM_AMO_SET: __atomic_store_n(p, v, __ATOMIC_SEQ_CST); old = 0; break;            \
        case NODESHM_AMO_SWAP: old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); break;           \
        case NODESHM_AMO_CSWAP:                                                                    \
            memcpy(&c, compare, sizeof c);                                                         \
            old = c;                                                                               \
            __atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);        \
            break;                                                                                 \
        case NODESHM_AMO_ADD: old = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); break;             \
        case NODESHM_AMO_AND: old = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); break;             \
        case NODESHM_AMO_OR: old = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); break;               \
        default: old = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); break;                          \
        }                                                                                          \
        if (result) memcpy(result, &old, sizeof old);                                              \
    }
LOCAL_AMO(uint32_t)
LOCAL_AMO(uint64_t)

int nodeshm_dom_amo(const char *call, nodeshm_domain_t *d, int op, size_t size, void *dest,
                    const void *operand, const void *compare, void *result, int pe)
{
    nodeshm_target_t t;
    int rc = nodeshm_domain_pe(call, d, &pe);
    if (!rc) rc = nodeshm_resolve(call, "dest", dest, size, pe, &t);
    if (rc) return rc;
    if (__builtin_expect(((uintptr_t)dest & (size - 1)) != 0, 0))
        return nodeshm_report(NODESHM_ERR_ARG, call, "dest %p is not aligned to %zu bytes", dest, size);
    if (t.local && !nodeshm_rt.atomics_via_mpi) {
        if (size == 4) local_amo_uint32_t(op, (uint32_t *)t.local, operand, compare, result);
        else local_amo_uint64_t(op, (uint64_t *)t.local, operand, compare, result);
        return NODESHM_OK;
    }
    rc = nodeshm_remote_amo(call, op, size, t.seg, t.off, operand, compare, result, pe);
    if (!result) nodeshm_domain_issued(d);
    return rc;
}

int nodeshm_dom_put_signal(const char *call, nodeshm_domain_t *d, void *dest, const void *src,
                           size_t nbytes, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    if (sig_op != 0 && sig_op != 1) /* SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD */
        return nodeshm_report(NODESHM_ERR_ARG, call, "invalid sig_op %d", sig_op);
    nodeshm_target_t t, td = {0};
    int rc = nodeshm_domain_pe(call, d, &pe); /* world PE from here on */
    if (!rc && nbytes) rc = nodeshm_resolve(call, "dest", dest, nbytes, pe, &td);
    if (rc) return rc;
    if (nbytes && !td.local) { /* between nodes: data, its completion there, signal */
        rc = nodeshm_resolve(call, "sig_addr", sig_addr, sizeof *sig_addr, pe, &t);
        if (rc) return rc;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        rc = nodeshm_remote_put_signal(call, td.seg, td.off, src, nbytes, t.seg, t.off, signal,
                                       sig_op, pe);
        nodeshm_domain_issued(d);
        return rc;
    }
    if (nbytes) memcpy(td.local, src, nbytes);
    rc = nodeshm_resolve(call, "sig_addr", sig_addr, sizeof *sig_addr, pe, &t);
    if (rc) return rc;
    int op = sig_op == 0 ? NODESHM_AMO_SET : NODESHM_AMO_ADD;
    if (t.local && !nodeshm_rt.atomics_via_mpi) {
        /* xchg / lock xadd order every earlier store, non-temporal ones included */
        if (op == NODESHM_AMO_SET) __atomic_exchange_n((uint64_t *)t.local, signal, __ATOMIC_SEQ_CST);
        else __atomic_fetch_add((uint64_t *)t.local, signal, __ATOMIC_SEQ_CST);
        return NODESHM_OK;
    }
    /* the data must be complete at the target before the signal lands there */
    if (!t.local || nbytes) {
        rc = nodeshm_remote_flush(pe);
        if (rc) return rc;
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    rc = nodeshm_remote_amo(call, op, 8, t.seg, t.off, &signal, NULL, NULL, pe);
    nodeshm_domain_issued(d);
    return rc;
}

int nodeshm_quiet(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return nodeshm_remote_flush_all();
}

int nodeshm_fence(void)
{
    /* MPI does not order puts to one target, so fence costs a flush on the MPI path */
    return nodeshm_quiet();
}

int nodeshm_dom_quiet(const char *call, nodeshm_domain_t *d)
{
    if (d == NODESHM_DOMAIN_DEFAULT) return nodeshm_quiet(); /* also the library's own operations */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    /* Every operation counted in `issued` now is complete once a flush that starts after this
     * load has finished; `completed` only grows, so a concurrent quiet on the same context
     * returns early only when such a flush has finished. */
    uint64_t issued = __atomic_load_n(&d->issued, __ATOMIC_ACQUIRE);
    uint64_t done = __atomic_load_n(&d->completed, __ATOMIC_ACQUIRE);
    if (issued == done) return NODESHM_OK;
    int rc = nodeshm_remote_flush_windows(call);
    if (rc) return rc;
    while (done < issued &&
           !__atomic_compare_exchange_n(&d->completed, &done, issued, 1, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
    }
    return NODESHM_OK;
}

int nodeshm_dom_fence(const char *call, nodeshm_domain_t *d)
{
    return nodeshm_dom_quiet(call, d);
}
