/* nodeshm OpenSHMEM face: what every file of it includes. */
#ifndef NODESHM_SHMEM_INTERNAL_H
#define NODESHM_SHMEM_INTERNAL_H

#include <shmem.h>
#include <shmemx.h>

#include "core/access.h"
#include "core/runtime.h"

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

#endif
