/* nodeshm core: the between-node path, MPI-3 passive-target RMA.
 *
 * One window per segment over the world communicator, locked once with MPI_Win_lock_all.
 * Only created when the job spans (pseudo-)nodes; within a node nothing here runs. */
#ifndef NODESHM_REMOTE_H
#define NODESHM_REMOTE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

enum nodeshm_amo_op {
    NODESHM_AMO_FETCH, NODESHM_AMO_SET, NODESHM_AMO_SWAP, NODESHM_AMO_CSWAP,
    NODESHM_AMO_ADD, NODESHM_AMO_AND, NODESHM_AMO_OR, NODESHM_AMO_XOR,
};

int nodeshm_remote_init(void);
void nodeshm_remote_fini(void);

/* Contiguous or block-strided: nblocks blocks of `block` bytes, block starts `dst_stride` /
 * `src_stride` bytes apart (contiguous: nblocks = 1). Returns when the source is reusable;
 * nbi: at once (source reusable, put complete, after the next quiet). */
int nodeshm_remote_put(const char *call, int seg, size_t off, const void *src, size_t block,
                       size_t nblocks, size_t dst_stride, size_t src_stride, int pe, int nbi);
/* Returns when the data has arrived in dst; nbi: at once, the data is there after the next
 * quiet. */
int nodeshm_remote_get(const char *call, void *dst, int seg, size_t off, size_t block,
                       size_t nblocks, size_t dst_stride, size_t src_stride, int pe, int nbi);
/* An atomic on a 4- or 8-byte word; `result` (may be NULL for non-fetching ops) is valid on
 * return.  Non-fetching ops complete remotely at the next flush. */
int nodeshm_remote_amo(const char *call, int op, size_t size, int seg, size_t off,
                       const void *operand, const void *compare, void *result, int pe);

/* Put-with-signal: n bytes from src to (seg, off) on pe, complete there before the signal
 * (sig_op 0: set, 1: add) lands at (sig_seg, sig_off).  Returns when src is reusable. */
int nodeshm_remote_put_signal(const char *call, int seg, size_t off, const void *src, size_t n,
                              int sig_seg, size_t sig_off, uint64_t signal, int sig_op, int pe);

/* Completes every MPI operation issued so far (any context, any thread), if there are any. */
int nodeshm_remote_flush_all(void);
/* Flushes every window unconditionally (a context's quiet, which knows it has operations). */
int nodeshm_remote_flush_windows(const char *call);
int nodeshm_remote_flush(int pe);
void nodeshm_remote_progress(void);

/* Segment `seg`'s window (MPI_WIN_NULL within one node), locked with MPI_Win_lock_all; for
 * white-box benchmarks that time MPI_Put/MPI_Get on the very window the library uses. */
MPI_Win nodeshm_remote_window(int seg);
/* Whether a quiet confirms writes with a fetch from each target (remote.c: NODESHM_RMA_CONFIRM),
 * so that such benchmarks can give MPI the same guarantee. */
int nodeshm_remote_confirms_writes(void);

#endif
