/* nodeshm core: one-sided access to a PE's symmetric memory, whatever path it takes.
 *
 * Within a node: loads, stores, memcpy and CPU atomics on the peer's mapped segment.
 * Between nodes: MPI RMA (remote.h).  In a job that spans nodes every atomic takes the MPI path,
 * even to a node peer, because CPU atomics and MPI accumulates are not atomic with each other. */
#ifndef NODESHM_ACCESS_H
#define NODESHM_ACCESS_H

#include "core/domain.h"
#include "core/remote.h"
#include "core/runtime.h"

#include <stdint.h>
#include <string.h>

/* The dom_ forms take the domain's PE numbers (core/domain.h); the forms without a domain are the
 * default domain's, in world PEs. */

/* Block-strided put/get: nblocks blocks of bsize elements of `elem` bytes, block starts
 * dst_stride / src_stride elements apart (iput/iget: bsize 1). */
int nodeshm_dom_put(const char *call, nodeshm_domain_t *d, void *dest, const void *src, size_t elem,
                    size_t bsize, size_t nblocks, size_t dst_stride, size_t src_stride, int pe);
int nodeshm_dom_get(const char *call, nodeshm_domain_t *d, void *dest, const void *src, size_t elem,
                    size_t bsize, size_t nblocks, size_t dst_stride, size_t src_stride, int pe);
static inline int nodeshm_put(const char *call, void *dest, const void *src, size_t elem, size_t bsize,
                              size_t nblocks, size_t dst_stride, size_t src_stride, int pe)
{
    return nodeshm_dom_put(call, NODESHM_DOMAIN_DEFAULT, dest, src, elem, bsize, nblocks, dst_stride,
                           src_stride, pe);
}
static inline int nodeshm_get(const char *call, void *dest, const void *src, size_t elem, size_t bsize,
                              size_t nblocks, size_t dst_stride, size_t src_stride, int pe)
{
    return nodeshm_dom_get(call, NODESHM_DOMAIN_DEFAULT, dest, src, elem, bsize, nblocks, dst_stride,
                           src_stride, pe);
}

/* Atomic `op` on the `size`-byte (4 or 8) word at symmetric `dest` on `pe`.  `operand` and
 * `compare` point to values of that size; `result` (NULL for non-fetching ops) receives the
 * old value. */
int nodeshm_dom_amo(const char *call, nodeshm_domain_t *d, int op, size_t size, void *dest,
                    const void *operand, const void *compare, void *result, int pe);
static inline int nodeshm_amo(const char *call, int op, size_t size, void *dest, const void *operand,
                              const void *compare, void *result, int pe)
{
    return nodeshm_dom_amo(call, NODESHM_DOMAIN_DEFAULT, op, size, dest, operand, compare, result, pe);
}

/* put + signal: the signal update is seen only after the data. */
int nodeshm_dom_put_signal(const char *call, nodeshm_domain_t *d, void *dest, const void *src,
                           size_t nbytes, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
static inline int nodeshm_put_signal(const char *call, void *dest, const void *src, size_t nbytes,
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    return nodeshm_dom_put_signal(call, NODESHM_DOMAIN_DEFAULT, dest, src, nbytes, sig_addr, signal,
                                  sig_op, pe);
}

/* Completes every operation (all contexts, and the library's own). */
int nodeshm_quiet(void);
int nodeshm_fence(void);
/* Completes (at least) the domain's operations. */
int nodeshm_dom_quiet(const char *call, nodeshm_domain_t *d);
int nodeshm_dom_fence(const char *call, nodeshm_domain_t *d);

/* Contiguous put and get: fast path inlined for the node-local case (forced: in files with
 * hundreds of callers GCC would otherwise outline it, and the default forms would pay a call).
 * nbi (a constant at every call): between nodes the MPI operation is only issued, and completed
 * by the next quiet. */
#define NODESHM_ACCESS_INLINE static inline __attribute__((always_inline))
NODESHM_ACCESS_INLINE int nodeshm_dom_put_contig_x(const char *call, nodeshm_domain_t *d, void *dest,
                                           const void *src, size_t n, int pe, int nbi)
{
    nodeshm_target_t t;
    int rc = nodeshm_domain_pe(call, d, &pe);
    if (rc) return rc;
    if (n == 0) return NODESHM_OK;
    rc = nodeshm_resolve(call, "dest", dest, n, pe, &t);
    if (rc) return rc;
    if (t.local) {
        memcpy(t.local, src, n);
        return NODESHM_OK;
    }
    rc = nodeshm_remote_put(call, t.seg, t.off, src, n, 1, 0, 0, pe, nbi);
    nodeshm_domain_issued(d);
    return rc;
}

NODESHM_ACCESS_INLINE int nodeshm_dom_get_contig_x(const char *call, nodeshm_domain_t *d, void *dest,
                                           const void *src, size_t n, int pe, int nbi)
{
    nodeshm_target_t t;
    int rc = nodeshm_domain_pe(call, d, &pe);
    if (rc) return rc;
    if (n == 0) return NODESHM_OK;
    rc = nodeshm_resolve(call, "source", src, n, pe, &t);
    if (rc) return rc;
    if (t.local) {
        memcpy(dest, t.local, n);
        return NODESHM_OK;
    }
    rc = nodeshm_remote_get(call, dest, t.seg, t.off, n, 1, 0, 0, pe, nbi);
    if (nbi) nodeshm_domain_issued(d);
    return rc;
}

NODESHM_ACCESS_INLINE int nodeshm_dom_put_contig(const char *call, nodeshm_domain_t *d, void *dest,
                                         const void *src, size_t n, int pe)
{
    return nodeshm_dom_put_contig_x(call, d, dest, src, n, pe, 0);
}
NODESHM_ACCESS_INLINE int nodeshm_dom_get_contig(const char *call, nodeshm_domain_t *d, void *dest,
                                         const void *src, size_t n, int pe)
{
    return nodeshm_dom_get_contig_x(call, d, dest, src, n, pe, 0);
}
NODESHM_ACCESS_INLINE int nodeshm_dom_put_contig_nbi(const char *call, nodeshm_domain_t *d, void *dest,
                                             const void *src, size_t n, int pe)
{
    return nodeshm_dom_put_contig_x(call, d, dest, src, n, pe, 1);
}
NODESHM_ACCESS_INLINE int nodeshm_dom_get_contig_nbi(const char *call, nodeshm_domain_t *d, void *dest,
                                             const void *src, size_t n, int pe)
{
    return nodeshm_dom_get_contig_x(call, d, dest, src, n, pe, 1);
}

static inline int nodeshm_put_contig(const char *call, void *dest, const void *src, size_t n, int pe)
{
    return nodeshm_dom_put_contig(call, NODESHM_DOMAIN_DEFAULT, dest, src, n, pe);
}
static inline int nodeshm_get_contig(const char *call, void *dest, const void *src, size_t n, int pe)
{
    return nodeshm_dom_get_contig(call, NODESHM_DOMAIN_DEFAULT, dest, src, n, pe);
}

#endif
