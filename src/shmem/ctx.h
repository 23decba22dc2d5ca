/* nodeshm OpenSHMEM face: communication contexts over the core's domains.
 *
 * A context (shmem_ctx_t) is the face's object: options, team, session flag, and a pointer to
 * the core domain (core/domain.h) that holds its PE numbering and MPI operation counts.  The
 * default context points to the core's default domain; a created context to its own.  The
 * nodeshm_ctx_ calls below check the handle and call the core's nodeshm_dom_ forms; on the
 * default context (a constant in every non-ctx call, see NODESHM_DEFINE2) the check and the
 * domain fold away, so those calls compile to the core's default path and nothing more. */
#ifndef NODESHM_SHMEM_CTX_H
#define NODESHM_SHMEM_CTX_H

#include "core/access.h"

#include <stdint.h>

struct nodeshm_team;
typedef struct nodeshm_ctx {
    uint32_t magic;             /* NODESHM_CTX_LIVE while valid */
    long options;               /* SHMEM_CTX_* */
    struct nodeshm_team *team;  /* the public handle of its team */
    nodeshm_domain_t *dom;      /* the core's default domain, or &own */
    int in_session;             /* between shmem_ctx_session_start and _stop */
    nodeshm_domain_t own;
    struct nodeshm_ctx *prev, *next; /* live contexts (ctx.c) */
} nodeshm_ctx_t;
#define NODESHM_CTX_LIVE 0xc0c7e570u

extern struct nodeshm_ctx nodeshm_ctx_default_obj;
#define NODESHM_CTX_DEFAULT (&nodeshm_ctx_default_obj)

/* Reports a context handle that is SHMEM_CTX_INVALID or not (any more) a context.  RMA and AMO
 * calls on either are undefined behaviour in the specification ("its use in RMA and AMO routines
 * results in undefined behavior"): nodeshm ends the job with this message. */
int nodeshm_bad_ctx(const char *call, const nodeshm_ctx_t *ctx);

/* The wrappers must vanish into their callers, or the default forms would pay a call and the
 * context check at run time (GCC otherwise outlines them in files with hundreds of callers). */
#define NODESHM_CTX_INLINE static inline __attribute__((always_inline))

/* The domain behind `ctx`, or NULL (reported) for an invalid handle. */
NODESHM_CTX_INLINE nodeshm_domain_t *nodeshm_ctx_dom(const char *call, const nodeshm_ctx_t *ctx)
{
    if (__builtin_expect(ctx == NODESHM_CTX_DEFAULT, 1)) return NODESHM_DOMAIN_DEFAULT;
    if (__builtin_expect(!ctx || ctx->magic != NODESHM_CTX_LIVE, 0)) {
        (void)nodeshm_bad_ctx(call, ctx);
        return NULL;
    }
    return ctx->dom;
}

/* One wrapper per core call: the domain, or the reported error. */
#define NODESHM_CTX_CALL(core, ...)                                                                \
    nodeshm_domain_t *d_ = nodeshm_ctx_dom(call, ctx);                                             \
    if (__builtin_expect(!d_, 0)) return NODESHM_ERR_ARG;                                          \
    return core(call, d_, __VA_ARGS__)

NODESHM_CTX_INLINE int nodeshm_ctx_pe(const char *call, nodeshm_ctx_t *ctx, int *pe)
{
    nodeshm_domain_t *d_ = nodeshm_ctx_dom(call, ctx);
    if (__builtin_expect(!d_, 0)) return NODESHM_ERR_ARG;
    return nodeshm_domain_pe(call, d_, pe);
}

NODESHM_CTX_INLINE int nodeshm_ctx_put(const char *call, nodeshm_ctx_t *ctx, void *dest, const void *src,
                                  size_t elem, size_t bsize, size_t nblocks, size_t dst_stride,
                                  size_t src_stride, int pe)
{
    NODESHM_CTX_CALL(nodeshm_dom_put, dest, src, elem, bsize, nblocks, dst_stride, src_stride, pe);
}

NODESHM_CTX_INLINE int nodeshm_ctx_get(const char *call, nodeshm_ctx_t *ctx, void *dest, const void *src,
                                  size_t elem, size_t bsize, size_t nblocks, size_t dst_stride,
                                  size_t src_stride, int pe)
{
    NODESHM_CTX_CALL(nodeshm_dom_get, dest, src, elem, bsize, nblocks, dst_stride, src_stride, pe);
}

NODESHM_CTX_INLINE int nodeshm_ctx_amo(const char *call, nodeshm_ctx_t *ctx, int op, size_t size,
                                  void *dest, const void *operand, const void *compare, void *result,
                                  int pe)
{
    NODESHM_CTX_CALL(nodeshm_dom_amo, op, size, dest, operand, compare, result, pe);
}

NODESHM_CTX_INLINE int nodeshm_ctx_put_signal(const char *call, nodeshm_ctx_t *ctx, void *dest,
                                         const void *src, size_t nbytes, uint64_t *sig_addr,
                                         uint64_t signal, int sig_op, int pe)
{
    NODESHM_CTX_CALL(nodeshm_dom_put_signal, dest, src, nbytes, sig_addr, signal, sig_op, pe);
}

NODESHM_CTX_INLINE int nodeshm_ctx_put_contig(const char *call, nodeshm_ctx_t *ctx, void *dest,
                                         const void *src, size_t n, int pe)
{
    NODESHM_CTX_CALL(nodeshm_dom_put_contig, dest, src, n, pe);
}

NODESHM_CTX_INLINE int nodeshm_ctx_get_contig(const char *call, nodeshm_ctx_t *ctx, void *dest,
                                         const void *src, size_t n, int pe)
{
    NODESHM_CTX_CALL(nodeshm_dom_get_contig, dest, src, n, pe);
}

NODESHM_CTX_INLINE int nodeshm_ctx_quiet(const char *call, nodeshm_ctx_t *ctx)
{
    nodeshm_domain_t *d_ = nodeshm_ctx_dom(call, ctx);
    if (__builtin_expect(!d_, 0)) return NODESHM_ERR_ARG;
    return nodeshm_dom_quiet(call, d_);
}

NODESHM_CTX_INLINE int nodeshm_ctx_fence(const char *call, nodeshm_ctx_t *ctx)
{
    nodeshm_domain_t *d_ = nodeshm_ctx_dom(call, ctx);
    if (__builtin_expect(!d_, 0)) return NODESHM_ERR_ARG;
    return nodeshm_dom_fence(call, d_);
}

#endif
