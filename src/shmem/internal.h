/* nodeshm OpenSHMEM face: what every file of it includes. */
#ifndef NODESHM_SHMEM_INTERNAL_H
#define NODESHM_SHMEM_INTERNAL_H

#include <shmem.h>
#include <shmemx.h>

#include "core/runtime.h"
#include "shmem/ctx.h" /* contexts over core/access.h's domains */

/* shmem.h maps these names to C11 generic selections; the library defines the functions. */
#undef shmem_wait_until

/* Element strides of iput/iget/ibput/ibget must be >= 1. */
static inline int nodeshm_check_stride(const char *call, const char *name, ptrdiff_t stride)
{
    if (__builtin_expect(stride >= 1, 1)) return NODESHM_OK;
    return nodeshm_report(NODESHM_ERR_ARG, call, "invalid %s stride %td (must be >= 1)", name, stride);
}

static inline int nodeshm_check_cmp(const char *call, int cmp)
{
    if (__builtin_expect(cmp >= SHMEM_CMP_EQ && cmp <= SHMEM_CMP_LE, 1)) return NODESHM_OK;
    return nodeshm_report(NODESHM_ERR_ARG, call, "invalid comparison operator %d", cmp);
}

/* x <cmp> v, for any arithmetic type; cmp already checked */
#define NODESHM_SATISFIED(x, cmp, v)                                                               \
    ((cmp) == SHMEM_CMP_EQ   ? (x) == (v)                                                          \
     : (cmp) == SHMEM_CMP_NE ? (x) != (v)                                                          \
     : (cmp) == SHMEM_CMP_GT ? (x) > (v)                                                           \
     : (cmp) == SHMEM_CMP_GE ? (x) >= (v)                                                          \
     : (cmp) == SHMEM_CMP_LT ? (x) < (v)                                                           \
                             : (x) <= (v))

/* The profiling interface (OpenSHMEM 1.5, "Profiling Interface"): every shmem_NAME is also
 * pshmem_NAME, the same code.  shmem_NAME is made weak, so a tool's own shmem_NAME wins (preloaded,
 * or linked before libnodeshm.a) and reaches the library through pshmem_NAME.  Every public
 * definition is followed by NODESHM_PSHMEM(shmem_NAME); a test checks that no exported shmem_
 * symbol lacks its pshmem_ twin. */
#define NODESHM_PSHMEM(name)                                                                       \
    extern __typeof__(name) p##name __attribute__((alias(#name)));                                 \
    extern __typeof__(name) name __attribute__((weak));

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
    }                                                                                              \
    NODESHM_PSHMEM(shmem_ctx_##NAME)                                                               \
    NODESHM_PSHMEM(shmem_##NAME)

#endif
