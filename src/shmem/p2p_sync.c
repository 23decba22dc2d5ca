/* nodeshm OpenSHMEM face: wait_until and test, single, all/any/some, and vector forms.
 *
 * One generic scanner (scan_wait_set) does the set logic and the waiting; the typed functions
 * only supply "does element i satisfy the condition", generated from the type table. */
#include "shmem/internal.h"
#include "core/wait.h"

#include <stdint.h>

enum { WAIT_ALL, WAIT_ANY, WAIT_SOME };
typedef int (*elem_test_fn)(const void *ivars, size_t i, int cmp, const void *values, int vector);

static size_t scan_wait_set(const char *call, int mode, int block, const void *ivars, size_t nelems,
                            const int *status, size_t *indices, int cmp, const void *values,
                            int vector, elem_test_fn satisfied)
{
    NODESHM_CHECK(nodeshm_check_cmp(call, cmp));
    size_t active = 0;
    for (size_t i = 0; i < nelems; i++) active += !(status && status[i]);
    if (active == 0) return mode == WAIT_ALL ? 1 : mode == WAIT_ANY ? SIZE_MAX : 0;
    /* ANY starts after the index it returned last, so a series of calls returns every
     * satisfied index eventually (the spec's fairness requirement), not always the first */
    static _Thread_local size_t any_cursor;
    size_t first = mode == WAIT_ANY ? any_cursor % nelems : 0;
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    for (;;) {
        size_t hits = 0;
        for (size_t j = 0; j < nelems; j++) {
            size_t i = first + j < nelems ? first + j : first + j - nelems;
            if (status && status[i]) continue;
            if (!satisfied(ivars, i, cmp, values, vector)) {
                if (mode == WAIT_ALL) goto not_yet;
                continue;
            }
            if (mode == WAIT_ANY) {
                any_cursor = i + 1;
                return i;
            }
            if (mode == WAIT_SOME) indices[hits] = i;
            hits++;
        }
        if (mode == WAIT_ALL) return 1;
        if (hits) return hits;
    not_yet:
        if (!block) {
            nodeshm_poll_progress();
            return mode == WAIT_ALL ? 0 : mode == WAIT_ANY ? SIZE_MAX : 0;
        }
        nodeshm_wait_step(&w);
    }
}

#define SCAN(N, mode, block, ivars, nelems, status, indices, values, vector)                       \
    scan_wait_set(__func__, mode, block, ivars, nelems, status, indices, cmp, values, vector, elem_##N)

#define DEFINE_P2P(T, N, _)                                                                        \
    static int elem_##N(const void *ivars, size_t i, int cmp, const void *values, int vector)      \
    {                                                                                              \
        T x = __atomic_load_n((const T *)ivars + i, __ATOMIC_ACQUIRE);                             \
        T v = ((const T *)values)[vector ? i : 0];                                                 \
        return NODESHM_SATISFIED(x, cmp, v);                                                       \
    }                                                                                              \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                                    \
    {                                                                                              \
        NODESHM_CHECK(nodeshm_check_cmp(__func__, cmp));                                           \
        nodeshm_waiter_t w = NODESHM_WAITER_INIT;                                                  \
        while (!NODESHM_SATISFIED(__atomic_load_n(ivar, __ATOMIC_ACQUIRE), cmp, cmp_value))        \
            nodeshm_wait_step(&w);                                                                 \
    }                                                                                              \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                           \
    {                                                                                              \
        NODESHM_CHECK(nodeshm_check_cmp(__func__, cmp));                                           \
        if (NODESHM_SATISFIED(__atomic_load_n(ivar, __ATOMIC_ACQUIRE), cmp, cmp_value)) return 1;  \
        nodeshm_poll_progress();                                                                   \
        return 0;                                                                                  \
    }                                                                                              \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
    { SCAN(N, WAIT_ALL, 1, ivars, nelems, status, NULL, &cmp_value, 0); }                             \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
    { return SCAN(N, WAIT_ANY, 1, ivars, nelems, status, NULL, &cmp_value, 0); }                      \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                       int cmp, T cmp_value)                                       \
    { return SCAN(N, WAIT_SOME, 1, ivars, nelems, status, indices, &cmp_value, 0); }                  \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,    \
                                           T *cmp_values)                                          \
    { SCAN(N, WAIT_ALL, 1, ivars, nelems, status, NULL, cmp_values, 1); }                             \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,  \
                                             T *cmp_values)                                        \
    { return SCAN(N, WAIT_ANY, 1, ivars, nelems, status, NULL, cmp_values, 1); }                      \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,            \
                                              const int *status, int cmp, T *cmp_values)           \
    { return SCAN(N, WAIT_SOME, 1, ivars, nelems, status, indices, cmp_values, 1); }                  \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)     \
    { return (int)SCAN(N, WAIT_ALL, 0, ivars, nelems, status, NULL, &cmp_value, 0); }                 \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)  \
    { return SCAN(N, WAIT_ANY, 0, ivars, nelems, status, NULL, &cmp_value, 0); }                      \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,      \
                                 int cmp, T cmp_value)                                             \
    { return SCAN(N, WAIT_SOME, 0, ivars, nelems, status, indices, &cmp_value, 0); }                  \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T *cmp_values)                                                 \
    { return (int)SCAN(N, WAIT_ALL, 0, ivars, nelems, status, NULL, cmp_values, 1); }                 \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,        \
                                       T *cmp_values)                                              \
    { return SCAN(N, WAIT_ANY, 0, ivars, nelems, status, NULL, cmp_values, 1); }                      \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                  \
                                        const int *status, int cmp, T *cmp_values)                 \
    { return SCAN(N, WAIT_SOME, 0, ivars, nelems, status, indices, cmp_values, 1); }                  \
    NODESHM_PSHMEM(shmem_##N##_wait_until) \
    NODESHM_PSHMEM(shmem_##N##_test) \
    NODESHM_PSHMEM(shmem_##N##_wait_until_all) \
    NODESHM_PSHMEM(shmem_##N##_wait_until_any) \
    NODESHM_PSHMEM(shmem_##N##_wait_until_some) \
    NODESHM_PSHMEM(shmem_##N##_wait_until_all_vector) \
    NODESHM_PSHMEM(shmem_##N##_wait_until_any_vector) \
    NODESHM_PSHMEM(shmem_##N##_wait_until_some_vector) \
    NODESHM_PSHMEM(shmem_##N##_test_all) \
    NODESHM_PSHMEM(shmem_##N##_test_any) \
    NODESHM_PSHMEM(shmem_##N##_test_some) \
    NODESHM_PSHMEM(shmem_##N##_test_all_vector) \
    NODESHM_PSHMEM(shmem_##N##_test_any_vector) \
    NODESHM_PSHMEM(shmem_##N##_test_some_vector)
NODESHM_P2P_TYPES(DEFINE_P2P, _)

/* deprecated: wait while *ivar == cmp_value */
#define DEFINE_WAIT_DEPRECATED(T, N, _)                                                            \
    void shmem_##N##_wait(T *ivar, T cmp_value) { shmem_##N##_wait_until(ivar, SHMEM_CMP_NE, cmp_value); } \
    NODESHM_PSHMEM(shmem_##N##_wait)
NODESHM_DEPRECATED_WAIT_TYPES(DEFINE_WAIT_DEPRECATED, _)
void shmem_wait(long *ivar, long cmp_value) { shmem_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value); }
void shmem_wait_until(long *ivar, int cmp, long cmp_value) { shmem_long_wait_until(ivar, cmp, cmp_value); }
NODESHM_PSHMEM(shmem_wait)
NODESHM_PSHMEM(shmem_wait_until)
