/* nodeshm OpenSHMEM face: atomic memory operations for every AMO type, and the deprecated names.
 * Each, on the default context (shmem_*) and on a given one (shmem_ctx_*, both generated from one
 * body), is one call into nodeshm_ctx_amo (core/access.c), which takes CPU atomics within a node and
 * MPI accumulate operations between nodes. */
#include "shmem/internal.h"

#define AMO(op, T, dest, operand, compare, result, pe)                                             \
    NODESHM_CHECK(nodeshm_ctx_amo(call_, ctx_, NODESHM_AMO_##op, sizeof(T), (void *)(dest), operand, \
                                  compare, result, pe));
#define AMO_FETCHING(op, T, dest, operand, compare, pe)                                            \
    T result_;                                                                                     \
    AMO(op, T, dest, operand, compare, &result_, pe)                                               \
    return result_;

#define DEFINE_AMO_EXTENDED(T, N, _)                                                               \
    NODESHM_DEFINE2(T, N##_atomic_fetch, (const T *source, int pe),                                \
                    AMO_FETCHING(FETCH, T, source, NULL, NULL, pe))                                \
    NODESHM_DEFINE2(void, N##_atomic_set, (T *dest, T value, int pe),                              \
                    AMO(SET, T, dest, &value, NULL, NULL, pe))                                     \
    NODESHM_DEFINE2(T, N##_atomic_swap, (T *dest, T value, int pe),                                \
                    AMO_FETCHING(SWAP, T, dest, &value, NULL, pe))                                 \
    NODESHM_DEFINE2(void, N##_atomic_fetch_nbi, (T *fetch, const T *source, int pe),               \
                    AMO(FETCH, T, source, NULL, NULL, fetch, pe))                                  \
    NODESHM_DEFINE2(void, N##_atomic_swap_nbi, (T *fetch, T *dest, T value, int pe),               \
                    AMO(SWAP, T, dest, &value, NULL, fetch, pe))
NODESHM_AMO_EXTENDED_TYPES(DEFINE_AMO_EXTENDED, _)

#define DEFINE_AMO_STANDARD(T, N, _)                                                               \
    NODESHM_DEFINE2(T, N##_atomic_compare_swap, (T *dest, T cond, T value, int pe),                \
                    AMO_FETCHING(CSWAP, T, dest, &value, &cond, pe))                               \
    NODESHM_DEFINE2(T, N##_atomic_fetch_inc, (T *dest, int pe), T one = 1;                         \
                    AMO_FETCHING(ADD, T, dest, &one, NULL, pe))                                    \
    NODESHM_DEFINE2(void, N##_atomic_inc, (T *dest, int pe), T one = 1;                            \
                    AMO(ADD, T, dest, &one, NULL, NULL, pe))                                       \
    NODESHM_DEFINE2(T, N##_atomic_fetch_add, (T *dest, T value, int pe),                           \
                    AMO_FETCHING(ADD, T, dest, &value, NULL, pe))                                  \
    NODESHM_DEFINE2(void, N##_atomic_add, (T *dest, T value, int pe),                              \
                    AMO(ADD, T, dest, &value, NULL, NULL, pe))                                     \
    NODESHM_DEFINE2(void, N##_atomic_compare_swap_nbi, (T *fetch, T *dest, T cond, T value, int pe), \
                    AMO(CSWAP, T, dest, &value, &cond, fetch, pe))                                 \
    NODESHM_DEFINE2(void, N##_atomic_fetch_inc_nbi, (T *fetch, T *dest, int pe), T one = 1;        \
                    AMO(ADD, T, dest, &one, NULL, fetch, pe))                                      \
    NODESHM_DEFINE2(void, N##_atomic_fetch_add_nbi, (T *fetch, T *dest, T value, int pe),          \
                    AMO(ADD, T, dest, &value, NULL, fetch, pe))
NODESHM_AMO_STANDARD_TYPES(DEFINE_AMO_STANDARD, _)

#define DEFINE_AMO_BITWISE_OP(T, N, name, OP)                                                      \
    NODESHM_DEFINE2(T, N##_atomic_fetch_##name, (T *dest, T value, int pe),                        \
                    AMO_FETCHING(OP, T, dest, &value, NULL, pe))                                   \
    NODESHM_DEFINE2(void, N##_atomic_##name, (T *dest, T value, int pe),                           \
                    AMO(OP, T, dest, &value, NULL, NULL, pe))                                      \
    NODESHM_DEFINE2(void, N##_atomic_fetch_##name##_nbi, (T *fetch, T *dest, T value, int pe),     \
                    AMO(OP, T, dest, &value, NULL, fetch, pe))
#define DEFINE_AMO_BITWISE(T, N, _)                                                                \
    DEFINE_AMO_BITWISE_OP(T, N, and, AND)                                                          \
    DEFINE_AMO_BITWISE_OP(T, N, or, OR)                                                            \
    DEFINE_AMO_BITWISE_OP(T, N, xor, XOR)
NODESHM_AMO_BITWISE_TYPES(DEFINE_AMO_BITWISE, _)

/* deprecated names: thin aliases of the current ones */
#define DEFINE_AMO_DEPRECATED(T, N, _)                                                             \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe)                                         \
    { return shmem_##N##_atomic_compare_swap(dest, cond, value, pe); }                            \
    T shmem_##N##_finc(T *dest, int pe) { return shmem_##N##_atomic_fetch_inc(dest, pe); }        \
    void shmem_##N##_inc(T *dest, int pe) { shmem_##N##_atomic_inc(dest, pe); }                   \
    T shmem_##N##_fadd(T *dest, T value, int pe) { return shmem_##N##_atomic_fetch_add(dest, value, pe); } \
    void shmem_##N##_add(T *dest, T value, int pe) { shmem_##N##_atomic_add(dest, value, pe); } \
    NODESHM_PSHMEM(shmem_##N##_cswap)                                                             \
    NODESHM_PSHMEM(shmem_##N##_finc)                                                              \
    NODESHM_PSHMEM(shmem_##N##_inc)                                                               \
    NODESHM_PSHMEM(shmem_##N##_fadd)                                                              \
    NODESHM_PSHMEM(shmem_##N##_add)
NODESHM_DEPRECATED_AMO_TYPES(DEFINE_AMO_DEPRECATED, _)

#define DEFINE_AMO_DEPRECATED_EXTENDED(T, N, _)                                                    \
    T shmem_##N##_fetch(const T *source, int pe) { return shmem_##N##_atomic_fetch(source, pe); } \
    void shmem_##N##_set(T *dest, T value, int pe) { shmem_##N##_atomic_set(dest, value, pe); }   \
    T shmem_##N##_swap(T *dest, T value, int pe) { return shmem_##N##_atomic_swap(dest, value, pe); } \
    NODESHM_PSHMEM(shmem_##N##_fetch)                                                             \
    NODESHM_PSHMEM(shmem_##N##_set)                                                               \
    NODESHM_PSHMEM(shmem_##N##_swap)
NODESHM_DEPRECATED_AMO_EXTENDED_TYPES(DEFINE_AMO_DEPRECATED_EXTENDED, _)

long shmem_swap(long *dest, long value, int pe) { return shmem_long_atomic_swap(dest, value, pe); }
NODESHM_PSHMEM(shmem_swap)
