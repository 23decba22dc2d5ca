/* nodeshm core: one-sided access to a PE's symmetric memory, whatever path it takes.
 *
 * Within a node: loads, stores, memcpy and CPU atomics on the peer's mapped segment.
 * Between nodes: MPI RMA (remote.h).  In a job that spans nodes every atomic takes the MPI path,
 * even to a node peer, because CPU atomics and MPI accumulates are not atomic with each other. */
#ifndef NODESHM_ACCESS_H
#define NODESHM_ACCESS_H

#include "core/remote.h"
#include "core/runtime.h"

#include <stdint.h>
#include <string.h>

/* A communication context (shmem_ctx_t).  Its PE numbers are those of its team: `pes` maps them
 * to world PEs (NULL for the world team: the identity).  Between nodes every context shares the
 * segment windows; a context counts the MPI operations it issued, and a quiet on it flushes the
 * windows when that count has moved past the operations covered by the last finished flush. */
struct nodeshm_team;
typedef struct nodeshm_ctx {
    uint32_t magic;             /* NODESHM_CTX_LIVE while valid */
    int id;                     /* 0: the default context; others numbered at creation */
    long options;               /* SHMEM_CTX_* */
    struct nodeshm_team *team;  /* the public handle of its team */
    int n_pes;                  /* team size */
    int *pes;                   /* [n_pes] world PE of each team PE; NULL for the world team */
    uint64_t issued;            /* MPI operations issued on it (not counted for the default) */
    uint64_t completed;         /* of those, how many a finished flush covers */
    struct nodeshm_ctx *prev, *next; /* live contexts (ctx.c) */
} nodeshm_ctx_t;
#define NODESHM_CTX_LIVE 0xc0c7e570u

extern struct nodeshm_ctx nodeshm_ctx_default_obj;
#define NODESHM_CTX_DEFAULT (&nodeshm_ctx_default_obj)

/* Reports a context handle that is SHMEM_CTX_INVALID or not (any more) a context. */
int nodeshm_bad_ctx(const char *call, const nodeshm_ctx_t *ctx);
int nodeshm_ctx_bad_pe(const char *call, const nodeshm_ctx_t *ctx, int pe);

/* Context PE -> world PE.  On the default context (a constant in every non-ctx call) this is
 * nothing at all. */
static inline int nodeshm_ctx_pe(const char *call, const nodeshm_ctx_t *ctx, int *pe)
{
    if (__builtin_expect(ctx == NODESHM_CTX_DEFAULT, 1)) return NODESHM_OK;
    if (__builtin_expect(!ctx || ctx->magic != NODESHM_CTX_LIVE, 0)) return nodeshm_bad_ctx(call, ctx);
    if (!ctx->pes) return NODESHM_OK;
    if (__builtin_expect((unsigned)*pe >= (unsigned)ctx->n_pes, 0)) return nodeshm_ctx_bad_pe(call, ctx, *pe);
    *pe = ctx->pes[*pe];
    return NODESHM_OK;
}

/* After an MPI operation on `ctx` that a quiet must complete. */
static inline void nodeshm_ctx_issued(nodeshm_ctx_t *ctx)
{
    if (ctx != NODESHM_CTX_DEFAULT) __atomic_fetch_add(&ctx->issued, 1, __ATOMIC_RELEASE);
}

/* The two public forms of one call from one body: shmem_ctx_NAME(ctx, PARAMS) and
 * shmem_NAME(PARAMS), the default context's.  The body sees `ctx_` and `call_` (the public
 * name); in the second form ctx_ is a constant, so its context code compiles to nothing. */
#define NODESHM_UNPAREN(...) __VA_ARGS__
#define NODESHM_DEFINE2(RET, NAME, PARAMS, ...)                                                    \
    RET shmem_ctx_##NAME(struct nodeshm_ctx *ctx_, NODESHM_UNPAREN PARAMS)                         \
    {                                                                                              \
        const char *const call_ = __func__;                                                        \
        __VA_ARGS__                                                                                \
    }                                                                                              \
    RET shmem_##NAME(NODESHM_UNPAREN PARAMS)                                                       \
    {                                                                                              \
        struct nodeshm_ctx *const ctx_ = NODESHM_CTX_DEFAULT;                                      \
        const char *const call_ = __func__;                                                        \
        __VA_ARGS__                                                                                \
    }

/* The core calls below take world PEs; the ctx_ forms take the context's PE numbers.  The forms
 * without a context are the default context's. */

/* Block-strided put/get: nblocks blocks of bsize elements of `elem` bytes, block starts
 * dst_stride / src_stride elements apart (iput/iget: bsize 1). */
int nodeshm_ctx_put(const char *call, nodeshm_ctx_t *ctx, void *dest, const void *src, size_t elem,
                    size_t bsize, size_t nblocks, size_t dst_stride, size_t src_stride, int pe);
int nodeshm_ctx_get(const char *call, nodeshm_ctx_t *ctx, void *dest, const void *src, size_t elem,
                    size_t bsize, size_t nblocks, size_t dst_stride, size_t src_stride, int pe);
static inline int nodeshm_put(const char *call, void *dest, const void *src, size_t elem, size_t bsize,
                              size_t nblocks, size_t dst_stride, size_t src_stride, int pe)
{
    return nodeshm_ctx_put(call, NODESHM_CTX_DEFAULT, dest, src, elem, bsize, nblocks, dst_stride,
                           src_stride, pe);
}
static inline int nodeshm_get(const char *call, void *dest, const void *src, size_t elem, size_t bsize,
                              size_t nblocks, size_t dst_stride, size_t src_stride, int pe)
{
    return nodeshm_ctx_get(call, NODESHM_CTX_DEFAULT, dest, src, elem, bsize, nblocks, dst_stride,
                           src_stride, pe);
}

/* Atomic `op` on the `size`-byte (4 or 8) word at symmetric `dest` on `pe`.  `operand` and
 * `compare` point to values of that size; `result` (NULL for non-fetching ops) receives the
 * old value. */
int nodeshm_ctx_amo(const char *call, nodeshm_ctx_t *ctx, int op, size_t size, void *dest,
                    const void *operand, const void *compare, void *result, int pe);
static inline int nodeshm_amo(const char *call, int op, size_t size, void *dest, const void *operand,
                              const void *compare, void *result, int pe)
{
    return nodeshm_ctx_amo(call, NODESHM_CTX_DEFAULT, op, size, dest, operand, compare, result, pe);
}

/* put + signal: the signal update is seen only after the data. */
int nodeshm_ctx_put_signal(const char *call, nodeshm_ctx_t *ctx, void *dest, const void *src,
                           size_t nbytes, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
static inline int nodeshm_put_signal(const char *call, void *dest, const void *src, size_t nbytes,
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    return nodeshm_ctx_put_signal(call, NODESHM_CTX_DEFAULT, dest, src, nbytes, sig_addr, signal,
                                  sig_op, pe);
}

/* Completes every operation (all contexts, and the library's own). */
int nodeshm_quiet(void);
int nodeshm_fence(void);
/* Completes (at least) the context's operations. */
int nodeshm_ctx_quiet(const char *call, nodeshm_ctx_t *ctx);
int nodeshm_ctx_fence(const char *call, nodeshm_ctx_t *ctx);

/* Contiguous put: fast path inlined for the node-local case. */
static inline int nodeshm_ctx_put_contig(const char *call, nodeshm_ctx_t *ctx, void *dest,
                                         const void *src, size_t n, int pe)
{
    nodeshm_target_t t;
    int rc = nodeshm_ctx_pe(call, ctx, &pe);
    if (rc) return rc;
    if (n == 0) return NODESHM_OK;
    rc = nodeshm_resolve(call, "dest", dest, n, pe, &t);
    if (rc) return rc;
    if (t.local) {
        memcpy(t.local, src, n);
        return NODESHM_OK;
    }
    rc = nodeshm_remote_put(call, t.seg, t.off, src, n, 1, 0, 0, pe);
    nodeshm_ctx_issued(ctx);
    return rc;
}

static inline int nodeshm_ctx_get_contig(const char *call, nodeshm_ctx_t *ctx, void *dest,
                                         const void *src, size_t n, int pe)
{
    nodeshm_target_t t;
    int rc = nodeshm_ctx_pe(call, ctx, &pe);
    if (rc) return rc;
    if (n == 0) return NODESHM_OK;
    rc = nodeshm_resolve(call, "source", src, n, pe, &t);
    if (rc) return rc;
    if (t.local) {
        memcpy(dest, t.local, n);
        return NODESHM_OK;
    }
    return nodeshm_remote_get(call, dest, t.seg, t.off, n, 1, 0, 0, pe);
}

static inline int nodeshm_put_contig(const char *call, void *dest, const void *src, size_t n, int pe)
{
    return nodeshm_ctx_put_contig(call, NODESHM_CTX_DEFAULT, dest, src, n, pe);
}
static inline int nodeshm_get_contig(const char *call, void *dest, const void *src, size_t n, int pe)
{
    return nodeshm_ctx_get_contig(call, NODESHM_CTX_DEFAULT, dest, src, n, pe);
}

#endif
