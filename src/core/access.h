/* nodeshm core: one-sided access to a PE's symmetric memory, whatever path it takes.
 *
 * Within a node: loads, stores, memcpy and CPU atomics on the peer's mapped segment.
 * Between nodes: MPI RMA (remote.h).  In a job that spans nodes every atomic takes the MPI path,
 * even to a node peer, because CPU atomics and MPI accumulates are not atomic with each other. */
#ifndef NODESHM_ACCESS_H
#define NODESHM_ACCESS_H

#include "core/remote.h"
#include "core/runtime.h"

#include <string.h>

/* Block-strided put/get: nblocks blocks of bsize elements of `elem` bytes, block starts
 * dst_stride / src_stride elements apart (iput/iget: bsize 1). */
int nodeshm_put(const char *call, void *dest, const void *src, size_t elem, size_t bsize,
                size_t nblocks, size_t dst_stride, size_t src_stride, int pe);
int nodeshm_get(const char *call, void *dest, const void *src, size_t elem, size_t bsize,
                size_t nblocks, size_t dst_stride, size_t src_stride, int pe);

/* Atomic `op` on the `size`-byte (4 or 8) word at symmetric `dest` on `pe`.  `operand` and
 * `compare` point to values of that size; `result` (NULL for non-fetching ops) receives the
 * old value. */
int nodeshm_amo(const char *call, int op, size_t size, void *dest, const void *operand,
                const void *compare, void *result, int pe);

/* put + signal: the signal update is seen only after the data. */
int nodeshm_put_signal(const char *call, void *dest, const void *src, size_t nbytes,
                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

int nodeshm_quiet(void);
int nodeshm_fence(void);

/* Contiguous put: fast path inlined for the node-local case. */
static inline int nodeshm_put_contig(const char *call, void *dest, const void *src, size_t n, int pe)
{
    nodeshm_target_t t;
    if (n == 0) return NODESHM_OK;
    int rc = nodeshm_resolve(call, "dest", dest, n, pe, &t);
    if (rc) return rc;
    if (t.local) {
        memcpy(t.local, src, n);
        return NODESHM_OK;
    }
    return nodeshm_remote_put(call, t.seg, t.off, src, n, 1, 0, 0, pe);
}

static inline int nodeshm_get_contig(const char *call, void *dest, const void *src, size_t n, int pe)
{
    nodeshm_target_t t;
    if (n == 0) return NODESHM_OK;
    int rc = nodeshm_resolve(call, "source", src, n, pe, &t);
    if (rc) return rc;
    if (t.local) {
        memcpy(dest, t.local, n);
        return NODESHM_OK;
    }
    return nodeshm_remote_get(call, dest, t.seg, t.off, n, 1, 0, 0, pe);
}

#endif
