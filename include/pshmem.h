/* nodeshm: the OpenSHMEM profiling interface.  Every shmem_NAME routine is also pshmem_NAME, the
 * same code under a second name; the library's shmem_NAME symbols are weak, so a tool may define
 * its own shmem_NAME (preloaded, or linked before libnodeshm.a) and reach the library through
 * pshmem_NAME.  The declarations take their types from shmem.h, so they cannot drift from it;
 * the types and constants the pshmem_ routines need come from shmem.h too.  The C11 type-generic
 * macros (shmem_put(...), ...) have no pshmem_ form: they are macros, as the specification says.
 * shmem_pcontrol stores its level and does nothing else. */
#ifndef PSHMEM_H
#define PSHMEM_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `name` is never followed by '(' here, so shmem.h's function-like macros (shmem_sync, the
 * C11 generics) are not expanded: __typeof__ names the function. */
#define NODESHM_PDECL(name) extern __typeof__(name) p##name;
#define NODESHM_PDECL2(NAME) NODESHM_PDECL(shmem_##NAME) NODESHM_PDECL(shmem_ctx_##NAME)

/* ---- setup, query ----------------------------------------------------------------------- */
NODESHM_PDECL(shmem_init)
NODESHM_PDECL(shmem_init_thread)
NODESHM_PDECL(shmem_query_thread)
NODESHM_PDECL(shmem_query_initialized)
NODESHM_PDECL(shmem_finalize)
NODESHM_PDECL(shmem_global_exit)
NODESHM_PDECL(shmem_my_pe)
NODESHM_PDECL(shmem_n_pes)
NODESHM_PDECL(shmem_pe_accessible)
NODESHM_PDECL(shmem_addr_accessible)
NODESHM_PDECL(shmem_ptr)
NODESHM_PDECL(shmem_info_get_version)
NODESHM_PDECL(shmem_info_get_name)
NODESHM_PDECL(shmem_initialized)
NODESHM_PDECL(shmem_pcontrol)
NODESHM_PDECL(shmem_clear_cache_inv)
NODESHM_PDECL(shmem_set_cache_inv)
NODESHM_PDECL(shmem_clear_cache_line_inv)
NODESHM_PDECL(shmem_set_cache_line_inv)
NODESHM_PDECL(shmem_udcflush)
NODESHM_PDECL(shmem_udcflush_line)

/* ---- teams -------------------------------------------------------------------------------- */
NODESHM_PDECL(shmem_team_my_pe)
NODESHM_PDECL(shmem_team_n_pes)
NODESHM_PDECL(shmem_team_get_config)
NODESHM_PDECL(shmem_team_translate_pe)
NODESHM_PDECL(shmem_team_split_strided)
NODESHM_PDECL(shmem_team_split_2d)
NODESHM_PDECL(shmem_team_destroy)
NODESHM_PDECL(shmem_team_ptr)
NODESHM_PDECL(shmem_team_sync)

/* ---- memory management ------------------------------------------------------------------ */
NODESHM_PDECL(shmem_malloc)
NODESHM_PDECL(shmem_calloc)
NODESHM_PDECL(shmem_align)
NODESHM_PDECL(shmem_realloc)
NODESHM_PDECL(shmem_free)
NODESHM_PDECL(shmem_malloc_with_hints)

/* ---- RMA and put-with-signal --------------------------------------------------------------- */
#define NODESHM_PDECL_RMA(T, N, _)                                                                 \
    NODESHM_PDECL2(N##_put) NODESHM_PDECL2(N##_get) NODESHM_PDECL2(N##_put_nbi)                   \
    NODESHM_PDECL2(N##_get_nbi) NODESHM_PDECL2(N##_p) NODESHM_PDECL2(N##_g)                       \
    NODESHM_PDECL2(N##_iput) NODESHM_PDECL2(N##_iget) NODESHM_PDECL2(N##_ibput)                   \
    NODESHM_PDECL2(N##_ibget) NODESHM_PDECL2(N##_put_signal) NODESHM_PDECL2(N##_put_signal_nbi)
NODESHM_RMA_TYPES(NODESHM_PDECL_RMA, _)
#define NODESHM_PDECL_SIZED_RMA(B, _)                                                              \
    NODESHM_PDECL2(put##B) NODESHM_PDECL2(get##B) NODESHM_PDECL2(put##B##_nbi)                    \
    NODESHM_PDECL2(get##B##_nbi) NODESHM_PDECL2(iput##B) NODESHM_PDECL2(iget##B)                  \
    NODESHM_PDECL2(ibput##B) NODESHM_PDECL2(ibget##B) NODESHM_PDECL2(put##B##_signal)             \
    NODESHM_PDECL2(put##B##_signal_nbi)
NODESHM_RMA_SIZES(NODESHM_PDECL_SIZED_RMA, _)
NODESHM_PDECL2(putmem)
NODESHM_PDECL2(getmem)
NODESHM_PDECL2(putmem_nbi)
NODESHM_PDECL2(getmem_nbi)
NODESHM_PDECL2(putmem_signal)
NODESHM_PDECL2(putmem_signal_nbi)

/* ---- signals -------------------------------------------------------------------------------- */
NODESHM_PDECL(shmem_signal_fetch)
NODESHM_PDECL(shmem_signal_wait_until)
NODESHM_PDECL2(signal_add)
NODESHM_PDECL2(signal_set)

/* ---- atomics -------------------------------------------------------------------------------- */
#define NODESHM_PDECL_AMO_EXTENDED(T, N, _)                                                        \
    NODESHM_PDECL2(N##_atomic_fetch) NODESHM_PDECL2(N##_atomic_set)                               \
    NODESHM_PDECL2(N##_atomic_swap) NODESHM_PDECL2(N##_atomic_fetch_nbi)                          \
    NODESHM_PDECL2(N##_atomic_swap_nbi)
NODESHM_AMO_EXTENDED_TYPES(NODESHM_PDECL_AMO_EXTENDED, _)
#define NODESHM_PDECL_AMO_STANDARD(T, N, _)                                                        \
    NODESHM_PDECL2(N##_atomic_compare_swap) NODESHM_PDECL2(N##_atomic_fetch_inc)                  \
    NODESHM_PDECL2(N##_atomic_inc) NODESHM_PDECL2(N##_atomic_fetch_add)                           \
    NODESHM_PDECL2(N##_atomic_add) NODESHM_PDECL2(N##_atomic_compare_swap_nbi)                    \
    NODESHM_PDECL2(N##_atomic_fetch_inc_nbi) NODESHM_PDECL2(N##_atomic_fetch_add_nbi)
NODESHM_AMO_STANDARD_TYPES(NODESHM_PDECL_AMO_STANDARD, _)
#define NODESHM_PDECL_AMO_BITWISE(T, N, _)                                                         \
    NODESHM_PDECL2(N##_atomic_fetch_and) NODESHM_PDECL2(N##_atomic_and)                           \
    NODESHM_PDECL2(N##_atomic_fetch_or) NODESHM_PDECL2(N##_atomic_or)                             \
    NODESHM_PDECL2(N##_atomic_fetch_xor) NODESHM_PDECL2(N##_atomic_xor)                           \
    NODESHM_PDECL2(N##_atomic_fetch_and_nbi) NODESHM_PDECL2(N##_atomic_fetch_or_nbi)              \
    NODESHM_PDECL2(N##_atomic_fetch_xor_nbi)
NODESHM_AMO_BITWISE_TYPES(NODESHM_PDECL_AMO_BITWISE, _)
#define NODESHM_PDECL_AMO_DEPRECATED(T, N, _)                                                      \
    NODESHM_PDECL(shmem_##N##_cswap) NODESHM_PDECL(shmem_##N##_finc)                              \
    NODESHM_PDECL(shmem_##N##_inc) NODESHM_PDECL(shmem_##N##_fadd) NODESHM_PDECL(shmem_##N##_add)
NODESHM_DEPRECATED_AMO_TYPES(NODESHM_PDECL_AMO_DEPRECATED, _)
#define NODESHM_PDECL_AMO_DEPRECATED_EXTENDED(T, N, _)                                             \
    NODESHM_PDECL(shmem_##N##_fetch) NODESHM_PDECL(shmem_##N##_set) NODESHM_PDECL(shmem_##N##_swap)
NODESHM_DEPRECATED_AMO_EXTENDED_TYPES(NODESHM_PDECL_AMO_DEPRECATED_EXTENDED, _)
NODESHM_PDECL(shmem_swap)

/* ---- point-to-point synchronization ----------------------------------------------------------- */
#define NODESHM_PDECL_P2P(T, N, _)                                                                 \
    NODESHM_PDECL(shmem_##N##_wait_until) NODESHM_PDECL(shmem_##N##_wait_until_all)               \
    NODESHM_PDECL(shmem_##N##_wait_until_any) NODESHM_PDECL(shmem_##N##_wait_until_some)          \
    NODESHM_PDECL(shmem_##N##_wait_until_all_vector)                                              \
    NODESHM_PDECL(shmem_##N##_wait_until_any_vector)                                              \
    NODESHM_PDECL(shmem_##N##_wait_until_some_vector) NODESHM_PDECL(shmem_##N##_test)             \
    NODESHM_PDECL(shmem_##N##_test_all) NODESHM_PDECL(shmem_##N##_test_any)                       \
    NODESHM_PDECL(shmem_##N##_test_some) NODESHM_PDECL(shmem_##N##_test_all_vector)               \
    NODESHM_PDECL(shmem_##N##_test_any_vector) NODESHM_PDECL(shmem_##N##_test_some_vector)
NODESHM_P2P_TYPES(NODESHM_PDECL_P2P, _)
#define NODESHM_PDECL_WAIT_DEPRECATED(T, N, _) NODESHM_PDECL(shmem_##N##_wait)
NODESHM_DEPRECATED_WAIT_TYPES(NODESHM_PDECL_WAIT_DEPRECATED, _)
NODESHM_PDECL(shmem_wait)
NODESHM_PDECL(shmem_wait_until)

/* ---- contexts, ordering, locks, barrier ----------------------------------------------------- */
NODESHM_PDECL(shmem_ctx_create)
NODESHM_PDECL(shmem_team_create_ctx)
NODESHM_PDECL(shmem_ctx_destroy)
NODESHM_PDECL(shmem_ctx_get_team)
NODESHM_PDECL(shmem_ctx_fence)
NODESHM_PDECL(shmem_ctx_quiet)
NODESHM_PDECL(shmem_ctx_pe_quiet)
NODESHM_PDECL(shmem_ctx_session_start)
NODESHM_PDECL(shmem_ctx_session_stop)
NODESHM_PDECL(shmem_fence)
NODESHM_PDECL(shmem_quiet)
NODESHM_PDECL(shmem_pe_quiet)
NODESHM_PDECL(shmem_set_lock)
NODESHM_PDECL(shmem_clear_lock)
NODESHM_PDECL(shmem_test_lock)
NODESHM_PDECL(shmem_barrier_all)
NODESHM_PDECL(shmem_sync_all)

/* ---- collectives ------------------------------------------------------------------------------ */
NODESHM_PDECL(shmem_sync_team)
NODESHM_PDECL(shmem_sync) /* the active-set function; the macro's team form is shmem_sync_team */
#define NODESHM_PDECL_COLL(T, N, _)                                                                \
    NODESHM_PDECL(shmem_##N##_broadcast) NODESHM_PDECL(shmem_##N##_collect)                       \
    NODESHM_PDECL(shmem_##N##_fcollect) NODESHM_PDECL(shmem_##N##_alltoall)                       \
    NODESHM_PDECL(shmem_##N##_alltoalls)
NODESHM_RMA_TYPES(NODESHM_PDECL_COLL, _)
NODESHM_PDECL(shmem_broadcastmem)
NODESHM_PDECL(shmem_collectmem)
NODESHM_PDECL(shmem_fcollectmem)
NODESHM_PDECL(shmem_alltoallmem)
NODESHM_PDECL(shmem_alltoallsmem)
#define NODESHM_PDECL_REDUCE(T, N, OP) NODESHM_PDECL(shmem_##N##_##OP##_reduce)
NODESHM_REDUCE_BITWISE_TYPES(NODESHM_PDECL_REDUCE, and)
NODESHM_REDUCE_BITWISE_TYPES(NODESHM_PDECL_REDUCE, or)
NODESHM_REDUCE_BITWISE_TYPES(NODESHM_PDECL_REDUCE, xor)
NODESHM_REDUCE_MINMAX_TYPES(NODESHM_PDECL_REDUCE, max)
NODESHM_REDUCE_MINMAX_TYPES(NODESHM_PDECL_REDUCE, min)
NODESHM_REDUCE_MINMAX_TYPES(NODESHM_PDECL_REDUCE, sum)
NODESHM_REDUCE_MINMAX_TYPES(NODESHM_PDECL_REDUCE, prod)
#define NODESHM_PDECL_SCAN(T, N, _)                                                                \
    NODESHM_PDECL(shmem_##N##_sum_inscan) NODESHM_PDECL(shmem_##N##_sum_exscan)
NODESHM_REDUCE_MINMAX_TYPES(NODESHM_PDECL_SCAN, _)
NODESHM_PDECL(shmem_barrier)
#define NODESHM_PDECL_ASET_SIZED(B)                                                                \
    NODESHM_PDECL(shmem_broadcast##B) NODESHM_PDECL(shmem_collect##B)                             \
    NODESHM_PDECL(shmem_fcollect##B) NODESHM_PDECL(shmem_alltoall##B)                             \
    NODESHM_PDECL(shmem_alltoalls##B)
NODESHM_PDECL_ASET_SIZED(32)
NODESHM_PDECL_ASET_SIZED(64)
#define NODESHM_PDECL_TO_ALL(T, N, OP) NODESHM_PDECL(shmem_##N##_##OP##_to_all)
NODESHM_TOALL_BITWISE_TYPES(NODESHM_PDECL_TO_ALL, and)
NODESHM_TOALL_BITWISE_TYPES(NODESHM_PDECL_TO_ALL, or)
NODESHM_TOALL_BITWISE_TYPES(NODESHM_PDECL_TO_ALL, xor)
NODESHM_TOALL_MINMAX_TYPES(NODESHM_PDECL_TO_ALL, max)
NODESHM_TOALL_MINMAX_TYPES(NODESHM_PDECL_TO_ALL, min)
NODESHM_TOALL_MINMAX_TYPES(NODESHM_PDECL_TO_ALL, sum)
NODESHM_TOALL_MINMAX_TYPES(NODESHM_PDECL_TO_ALL, prod)
#ifndef __cplusplus /* complex types: C only, as in shmem.h */
NODESHM_REDUCE_COMPLEX_TYPES(NODESHM_PDECL_REDUCE, sum)
NODESHM_REDUCE_COMPLEX_TYPES(NODESHM_PDECL_REDUCE, prod)
NODESHM_REDUCE_COMPLEX_TYPES(NODESHM_PDECL_SCAN, _)
NODESHM_REDUCE_COMPLEX_TYPES(NODESHM_PDECL_TO_ALL, sum)
NODESHM_REDUCE_COMPLEX_TYPES(NODESHM_PDECL_TO_ALL, prod)
#endif

#ifdef __cplusplus
}
#endif
#endif /* PSHMEM_H */
