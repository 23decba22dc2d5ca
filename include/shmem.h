/* nodeshm: OpenSHMEM over node-shared memory (loads and stores within a node) and MPI-3 RMA
 * between nodes.  OpenSHMEM 1.6: setup (nested init/finalize), memory, RMA, atomics, signals,
 * point-to-point synchronization, teams, contexts and sessions, collectives and scans, the
 * deprecated forms, and the profiling interface (pshmem.h). */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>
#include <nodeshm_typetables.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- library constants ---------------------------------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 6
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "nodeshm 0.1"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

enum { SHMEM_THREAD_SINGLE = 0, SHMEM_THREAD_FUNNELED, SHMEM_THREAD_SERIALIZED,
       SHMEM_THREAD_MULTIPLE };

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* Contexts.  A handle is the address of the library's context object: SHMEM_CTX_DEFAULT is a
 * link-time constant, usable in initializers; SHMEM_CTX_INVALID is a null pointer. */
struct nodeshm_ctx;
typedef struct nodeshm_ctx *shmem_ctx_t;
extern struct nodeshm_ctx nodeshm_ctx_default_obj;
#define SHMEM_CTX_DEFAULT ((shmem_ctx_t)&nodeshm_ctx_default_obj)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)
/* Sessions (1.6): hints on a context; shmem_ctx_session_config_t fields used per config_mask */
#define SHMEM_CTX_SESSION_BATCH (1L << 0)
#define SHMEM_CTX_SESSION_TOTAL_OPS (1L << 0)
typedef struct {
    size_t total_ops;
} shmem_ctx_session_config_t;

/* Every RMA, AMO and signal call comes in two forms, shmem_NAME(args) on the default context and
 * shmem_ctx_NAME(ctx, args); NODESHM_DECLARE2 declares both. */
#define NODESHM_DECLARE2(RET, NAME, ...)                                                           \
    RET shmem_##NAME(__VA_ARGS__);                                                                 \
    RET shmem_ctx_##NAME(shmem_ctx_t ctx, __VA_ARGS__);

/* Teams.  A handle is the address of the library's team object: the predefined handles are
 * link-time constants, usable in initializers; SHMEM_TEAM_INVALID is a null pointer. */
struct nodeshm_team;
typedef struct nodeshm_team *shmem_team_t;
typedef struct {
    int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)
extern struct nodeshm_team nodeshm_team_world_obj, nodeshm_team_shared_obj;
#define SHMEM_TEAM_WORLD ((shmem_team_t)&nodeshm_team_world_obj)
#define SHMEM_TEAM_SHARED ((shmem_team_t)&nodeshm_team_shared_obj)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

/* ---- setup, query ----------------------------------------------------------------------- */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
/* OpenSHMEM 1.6: nonzero between shmem_init[_thread] and its last matching shmem_finalize */
void shmem_query_initialized(int *initialized);
/* profiling interface: the library only records the level (see pshmem.h) */
void shmem_pcontrol(const int level, ...);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);
/* deprecated spellings */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);
int shmem_initialized(void);
/* deprecated (1.3) cache management: the specification keeps them; caches are coherent here */
void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void *dest);
void shmem_set_cache_line_inv(void *dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void *dest);

/* ---- teams -------------------------------------------------------------------------------- */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);
/* OpenSHMEM 1.6: shmem_ptr with a team PE number; NULL for SHMEM_TEAM_INVALID */
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
/* Returns when every PE of the team has called it; unlike a barrier, it does not complete
 * outstanding puts (call shmem_quiet first for that). */
int shmem_team_sync(shmem_team_t team);

/* ---- memory management ------------------------------------------------------------------ */
void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);
void *shmem_malloc_with_hints(size_t size, long hints);
void *shmalloc(size_t size);
void shfree(void *ptr);
void *shrealloc(void *ptr, size_t size);
void *shmemalign(size_t alignment, size_t size);

/* ---- RMA ----------------------------------------------------------------------------------- */
#define NODESHM_DECLARE_RMA(T, N, _)                                                               \
    NODESHM_DECLARE2(void, N##_put, T *dest, const T *source, size_t nelems, int pe) \
    NODESHM_DECLARE2(void, N##_get, T *dest, const T *source, size_t nelems, int pe) \
    NODESHM_DECLARE2(void, N##_put_nbi, T *dest, const T *source, size_t nelems, int pe) \
    NODESHM_DECLARE2(void, N##_get_nbi, T *dest, const T *source, size_t nelems, int pe) \
    NODESHM_DECLARE2(void, N##_p, T *dest, T value, int pe) \
    NODESHM_DECLARE2(T, N##_g, const T *source, int pe) \
    NODESHM_DECLARE2(void, N##_iput, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    NODESHM_DECLARE2(void, N##_iget, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    NODESHM_DECLARE2(void, N##_ibput, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) \
    NODESHM_DECLARE2(void, N##_ibget, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) \
    NODESHM_DECLARE2(void, N##_put_signal, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
    NODESHM_DECLARE2(void, N##_put_signal_nbi, T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
NODESHM_RMA_TYPES(NODESHM_DECLARE_RMA, _)

#define NODESHM_DECLARE_SIZED_RMA(B, _)                                                            \
    NODESHM_DECLARE2(void, put##B, void *dest, const void *source, size_t nelems, int pe) \
    NODESHM_DECLARE2(void, get##B, void *dest, const void *source, size_t nelems, int pe) \
    NODESHM_DECLARE2(void, put##B##_nbi, void *dest, const void *source, size_t nelems, int pe) \
    NODESHM_DECLARE2(void, get##B##_nbi, void *dest, const void *source, size_t nelems, int pe) \
    NODESHM_DECLARE2(void, iput##B, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    NODESHM_DECLARE2(void, iget##B, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    NODESHM_DECLARE2(void, ibput##B, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) \
    NODESHM_DECLARE2(void, ibget##B, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe) \
    NODESHM_DECLARE2(void, put##B##_signal, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) \
    NODESHM_DECLARE2(void, put##B##_signal_nbi, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
NODESHM_RMA_SIZES(NODESHM_DECLARE_SIZED_RMA, _)

NODESHM_DECLARE2(void, putmem, void *dest, const void *source, size_t nelems, int pe)
NODESHM_DECLARE2(void, getmem, void *dest, const void *source, size_t nelems, int pe)
NODESHM_DECLARE2(void, putmem_nbi, void *dest, const void *source, size_t nelems, int pe)
NODESHM_DECLARE2(void, getmem_nbi, void *dest, const void *source, size_t nelems, int pe)
NODESHM_DECLARE2(void, putmem_signal, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
NODESHM_DECLARE2(void, putmem_signal_nbi, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)

/* ---- signals -------------------------------------------------------------------------------- */
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);
/* OpenSHMEM 1.6: atomic with put-with-signal updates of the same signal */
NODESHM_DECLARE2(void, signal_add, uint64_t *sig_addr, uint64_t signal, int pe)
NODESHM_DECLARE2(void, signal_set, uint64_t *sig_addr, uint64_t signal, int pe)

/* ---- atomics -------------------------------------------------------------------------------- */
#define NODESHM_DECLARE_AMO_EXTENDED(T, N, _)                                                      \
    NODESHM_DECLARE2(T, N##_atomic_fetch, const T *source, int pe) \
    NODESHM_DECLARE2(void, N##_atomic_set, T *dest, T value, int pe) \
    NODESHM_DECLARE2(T, N##_atomic_swap, T *dest, T value, int pe) \
    NODESHM_DECLARE2(void, N##_atomic_fetch_nbi, T *fetch, const T *source, int pe) \
    NODESHM_DECLARE2(void, N##_atomic_swap_nbi, T *fetch, T *dest, T value, int pe)
NODESHM_AMO_EXTENDED_TYPES(NODESHM_DECLARE_AMO_EXTENDED, _)

#define NODESHM_DECLARE_AMO_STANDARD(T, N, _)                                                      \
    NODESHM_DECLARE2(T, N##_atomic_compare_swap, T *dest, T cond, T value, int pe) \
    NODESHM_DECLARE2(T, N##_atomic_fetch_inc, T *dest, int pe) \
    NODESHM_DECLARE2(void, N##_atomic_inc, T *dest, int pe) \
    NODESHM_DECLARE2(T, N##_atomic_fetch_add, T *dest, T value, int pe) \
    NODESHM_DECLARE2(void, N##_atomic_add, T *dest, T value, int pe) \
    NODESHM_DECLARE2(void, N##_atomic_compare_swap_nbi, T *fetch, T *dest, T cond, T value, int pe) \
    NODESHM_DECLARE2(void, N##_atomic_fetch_inc_nbi, T *fetch, T *dest, int pe) \
    NODESHM_DECLARE2(void, N##_atomic_fetch_add_nbi, T *fetch, T *dest, T value, int pe)
NODESHM_AMO_STANDARD_TYPES(NODESHM_DECLARE_AMO_STANDARD, _)

#define NODESHM_DECLARE_AMO_BITWISE(T, N, _)                                                       \
    NODESHM_DECLARE2(T, N##_atomic_fetch_and, T *dest, T value, int pe) \
    NODESHM_DECLARE2(void, N##_atomic_and, T *dest, T value, int pe) \
    NODESHM_DECLARE2(T, N##_atomic_fetch_or, T *dest, T value, int pe) \
    NODESHM_DECLARE2(void, N##_atomic_or, T *dest, T value, int pe) \
    NODESHM_DECLARE2(T, N##_atomic_fetch_xor, T *dest, T value, int pe) \
    NODESHM_DECLARE2(void, N##_atomic_xor, T *dest, T value, int pe) \
    NODESHM_DECLARE2(void, N##_atomic_fetch_and_nbi, T *fetch, T *dest, T value, int pe) \
    NODESHM_DECLARE2(void, N##_atomic_fetch_or_nbi, T *fetch, T *dest, T value, int pe) \
    NODESHM_DECLARE2(void, N##_atomic_fetch_xor_nbi, T *fetch, T *dest, T value, int pe)
NODESHM_AMO_BITWISE_TYPES(NODESHM_DECLARE_AMO_BITWISE, _)

/* deprecated atomic names (OpenSHMEM <= 1.3), still called by existing codes and benchmarks */
#define NODESHM_DECLARE_AMO_DEPRECATED(T, N, _)                                                    \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe);                                        \
    T shmem_##N##_finc(T *dest, int pe);                                                          \
    void shmem_##N##_inc(T *dest, int pe);                                                        \
    T shmem_##N##_fadd(T *dest, T value, int pe);                                                 \
    void shmem_##N##_add(T *dest, T value, int pe);
NODESHM_DEPRECATED_AMO_TYPES(NODESHM_DECLARE_AMO_DEPRECATED, _)
#define NODESHM_DECLARE_AMO_DEPRECATED_EXTENDED(T, N, _)                                           \
    T shmem_##N##_fetch(const T *source, int pe);                                                 \
    void shmem_##N##_set(T *dest, T value, int pe);                                               \
    T shmem_##N##_swap(T *dest, T value, int pe);
NODESHM_DEPRECATED_AMO_EXTENDED_TYPES(NODESHM_DECLARE_AMO_DEPRECATED_EXTENDED, _)
long shmem_swap(long *dest, long value, int pe);

/* ---- point-to-point synchronization ----------------------------------------------------------- */
#define NODESHM_DECLARE_P2P(T, N, _)                                                               \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                                   \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,          \
                                    T cmp_value);                                                 \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,        \
                                      T cmp_value);                                               \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,                  \
                                       const int *status, int cmp, T cmp_value);                  \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,   \
                                           T *cmp_values);                                        \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                             T *cmp_values);                                      \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,           \
                                              const int *status, int cmp, T *cmp_values);         \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                          \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);   \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,              \
                                T cmp_value);                                                     \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,     \
                                 int cmp, T cmp_value);                                           \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,          \
                                    T *cmp_values);                                               \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,       \
                                       T *cmp_values);                                            \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                 \
                                        const int *status, int cmp, T *cmp_values);
NODESHM_P2P_TYPES(NODESHM_DECLARE_P2P, _)
/* deprecated: wait while *ivar == cmp_value */
#define NODESHM_DECLARE_WAIT_DEPRECATED(T, N, _) void shmem_##N##_wait(T *ivar, T cmp_value);
NODESHM_DEPRECATED_WAIT_TYPES(NODESHM_DECLARE_WAIT_DEPRECATED, _)
void shmem_wait(long *ivar, long cmp_value);
void shmem_wait_until(long *ivar, int cmp, long cmp_value);

/* ---- contexts -------------------------------------------------------------------------------- */
/* A context is an independent ordering and completion environment: shmem_ctx_quiet completes the
 * context's operations (between nodes it may complete others too, which the specification
 * allows).  Operations on a team context number PEs within that team. */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_ctx_quiet(shmem_ctx_t ctx);
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes);
void shmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config,
                             long config_mask);
void shmem_ctx_session_stop(shmem_ctx_t ctx);

/* ---- ordering, locks, barrier -------------------------------------------------------------- */
void shmem_fence(void);
void shmem_quiet(void);
void shmem_pe_quiet(const int *target_pes, size_t npes);
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);
void shmem_barrier_all(void);
void shmem_sync_all(void);

/* ---- C11 type-generic interfaces ------------------------------------------------------------ */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
void nodeshm_generic_type_not_supported(void);
#define NODESHM_GENERIC_CASE(T, N, OP) T : shmem_##N##_##OP,
#define NODESHM_GENERIC(TABLE, OP, X)                                                              \
    _Generic((X), TABLE(NODESHM_GENERIC_CASE, OP) default: nodeshm_generic_type_not_supported)
/* RMA, AMO and signal calls take an optional leading context: shmem_put(ctx, dest, src, n, pe)
 * or shmem_put(dest, src, n, pe).  The object pointer that decides the type is the second
 * argument after a context, else the first (NODESHM_GENERIC_OBJ, never evaluated). */
#define NODESHM_GENERIC_CTX_CASE(T, N, OP) T : shmem_ctx_##N##_##OP,
#define NODESHM_GENERIC_ARG1(a, ...) a
#define NODESHM_GENERIC_ARG2(a, b, ...) b
#define NODESHM_GENERIC_OBJ(a, b) (*_Generic((a), shmem_ctx_t: (b), default: (a)))
#define NODESHM_GENERIC_SELECT(TABLE, OP, a, b)                                                    \
    _Generic((a),                                                                                  \
        shmem_ctx_t: _Generic(NODESHM_GENERIC_OBJ(a, b), TABLE(NODESHM_GENERIC_CTX_CASE, OP)       \
                              default: nodeshm_generic_type_not_supported),                        \
        default: _Generic(NODESHM_GENERIC_OBJ(a, b), TABLE(NODESHM_GENERIC_CASE, OP)               \
                          default: nodeshm_generic_type_not_supported))
#define NODESHM_GENERIC_CALL(TABLE, OP, ...)                                                       \
    NODESHM_GENERIC_SELECT(TABLE, OP, NODESHM_GENERIC_ARG1(__VA_ARGS__, 0),                         \
                           NODESHM_GENERIC_ARG2(__VA_ARGS__, 0))(__VA_ARGS__)

#define shmem_put(...) NODESHM_GENERIC_CALL(NODESHM_RMA_GENERIC_TYPES, put, __VA_ARGS__)
#define shmem_get(...) NODESHM_GENERIC_CALL(NODESHM_RMA_GENERIC_TYPES, get, __VA_ARGS__)
#define shmem_put_nbi(...) NODESHM_GENERIC_CALL(NODESHM_RMA_GENERIC_TYPES, put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) NODESHM_GENERIC_CALL(NODESHM_RMA_GENERIC_TYPES, get_nbi, __VA_ARGS__)
#define shmem_p(...) NODESHM_GENERIC_CALL(NODESHM_RMA_GENERIC_TYPES, p, __VA_ARGS__)
#define shmem_g(...) NODESHM_GENERIC_CALL(NODESHM_RMA_GENERIC_TYPES, g, __VA_ARGS__)
#define shmem_iput(...) NODESHM_GENERIC_CALL(NODESHM_RMA_GENERIC_TYPES, iput, __VA_ARGS__)
#define shmem_iget(...) NODESHM_GENERIC_CALL(NODESHM_RMA_GENERIC_TYPES, iget, __VA_ARGS__)
#define shmem_ibput(...) NODESHM_GENERIC_CALL(NODESHM_RMA_GENERIC_TYPES, ibput, __VA_ARGS__)
#define shmem_ibget(...) NODESHM_GENERIC_CALL(NODESHM_RMA_GENERIC_TYPES, ibget, __VA_ARGS__)
#define shmem_put_signal(...) NODESHM_GENERIC_CALL(NODESHM_RMA_GENERIC_TYPES, put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) NODESHM_GENERIC_CALL(NODESHM_RMA_GENERIC_TYPES, put_signal_nbi, __VA_ARGS__)
/* shmem_signal_add/set(ctx, sig_addr, signal, pe): the C11 form with a context (by argument count) */
#define NODESHM_SIGNAL_PICK(_1, _2, _3, _4, NAME, ...) NAME
#define shmem_signal_add(...) NODESHM_SIGNAL_PICK(__VA_ARGS__, shmem_ctx_signal_add, shmem_signal_add, _, _)(__VA_ARGS__)
#define shmem_signal_set(...) NODESHM_SIGNAL_PICK(__VA_ARGS__, shmem_ctx_signal_set, shmem_signal_set, _, _)(__VA_ARGS__)

#define shmem_atomic_fetch(...) NODESHM_GENERIC_CALL(NODESHM_AMO_EXTENDED_GENERIC_TYPES, atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) NODESHM_GENERIC_CALL(NODESHM_AMO_EXTENDED_GENERIC_TYPES, atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) NODESHM_GENERIC_CALL(NODESHM_AMO_EXTENDED_GENERIC_TYPES, atomic_swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) NODESHM_GENERIC_CALL(NODESHM_AMO_EXTENDED_GENERIC_TYPES, atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) NODESHM_GENERIC_CALL(NODESHM_AMO_EXTENDED_GENERIC_TYPES, atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) NODESHM_GENERIC_CALL(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) NODESHM_GENERIC_CALL(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) NODESHM_GENERIC_CALL(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) NODESHM_GENERIC_CALL(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) NODESHM_GENERIC_CALL(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_add, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) NODESHM_GENERIC_CALL(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) NODESHM_GENERIC_CALL(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) NODESHM_GENERIC_CALL(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) NODESHM_GENERIC_CALL(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...) NODESHM_GENERIC_CALL(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) NODESHM_GENERIC_CALL(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...) NODESHM_GENERIC_CALL(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) NODESHM_GENERIC_CALL(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...) NODESHM_GENERIC_CALL(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) NODESHM_GENERIC_CALL(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) NODESHM_GENERIC_CALL(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) NODESHM_GENERIC_CALL(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_xor_nbi, __VA_ARGS__)

#undef shmem_wait_until
#define shmem_wait_until(ivar, ...) NODESHM_GENERIC(NODESHM_P2P_GENERIC_TYPES, wait_until, *(ivar))(ivar, __VA_ARGS__)
#define shmem_wait_until_all(ivars, ...) NODESHM_GENERIC(NODESHM_P2P_GENERIC_TYPES, wait_until_all, *(ivars))(ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...) NODESHM_GENERIC(NODESHM_P2P_GENERIC_TYPES, wait_until_any, *(ivars))(ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...) NODESHM_GENERIC(NODESHM_P2P_GENERIC_TYPES, wait_until_some, *(ivars))(ivars, __VA_ARGS__)
#define shmem_wait_until_all_vector(ivars, ...) NODESHM_GENERIC(NODESHM_P2P_GENERIC_TYPES, wait_until_all_vector, *(ivars))(ivars, __VA_ARGS__)
#define shmem_wait_until_any_vector(ivars, ...) NODESHM_GENERIC(NODESHM_P2P_GENERIC_TYPES, wait_until_any_vector, *(ivars))(ivars, __VA_ARGS__)
#define shmem_wait_until_some_vector(ivars, ...) NODESHM_GENERIC(NODESHM_P2P_GENERIC_TYPES, wait_until_some_vector, *(ivars))(ivars, __VA_ARGS__)
#define shmem_test(ivar, ...) NODESHM_GENERIC(NODESHM_P2P_GENERIC_TYPES, test, *(ivar))(ivar, __VA_ARGS__)
#define shmem_test_all(ivars, ...) NODESHM_GENERIC(NODESHM_P2P_GENERIC_TYPES, test_all, *(ivars))(ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...) NODESHM_GENERIC(NODESHM_P2P_GENERIC_TYPES, test_any, *(ivars))(ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...) NODESHM_GENERIC(NODESHM_P2P_GENERIC_TYPES, test_some, *(ivars))(ivars, __VA_ARGS__)
#define shmem_test_all_vector(ivars, ...) NODESHM_GENERIC(NODESHM_P2P_GENERIC_TYPES, test_all_vector, *(ivars))(ivars, __VA_ARGS__)
#define shmem_test_any_vector(ivars, ...) NODESHM_GENERIC(NODESHM_P2P_GENERIC_TYPES, test_any_vector, *(ivars))(ivars, __VA_ARGS__)
#define shmem_test_some_vector(ivars, ...) NODESHM_GENERIC(NODESHM_P2P_GENERIC_TYPES, test_some_vector, *(ivars))(ivars, __VA_ARGS__)
#endif /* C11 */

/* ==== collectives (OpenSHMEM 1.5 team-based) =================================================== */
/* Collectives over a team synchronize its members' use of dest and source themselves: they may
 * follow each other, on the same or overlapping teams, with no barrier between them. */
int shmem_sync_team(shmem_team_t team);
/* shmem_sync(team) is the 1.5 name of shmem_team_sync; shmem_sync(PE_start, logPE_stride,
 * PE_size, pSync) the deprecated active-set form: the macro picks by the number of arguments */
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define NODESHM_SYNC_PICK(_1, _2, _3, _4, NAME, ...) NAME
#define shmem_sync(...) NODESHM_SYNC_PICK(__VA_ARGS__, shmem_sync, _, _, shmem_sync_team, _)(__VA_ARGS__)

#define NODESHM_DECLARE_COLL(T, N, _)                                                              \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,         \
                              int PE_root);                                                       \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);          \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);         \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);         \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,         \
                              ptrdiff_t sst, size_t nelems);
NODESHM_RMA_TYPES(NODESHM_DECLARE_COLL, _)
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);

#define NODESHM_DECLARE_REDUCE(T, N, OP)                                                           \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
NODESHM_REDUCE_BITWISE_TYPES(NODESHM_DECLARE_REDUCE, and)
NODESHM_REDUCE_BITWISE_TYPES(NODESHM_DECLARE_REDUCE, or)
NODESHM_REDUCE_BITWISE_TYPES(NODESHM_DECLARE_REDUCE, xor)
NODESHM_REDUCE_MINMAX_TYPES(NODESHM_DECLARE_REDUCE, max)
NODESHM_REDUCE_MINMAX_TYPES(NODESHM_DECLARE_REDUCE, min)
NODESHM_REDUCE_MINMAX_TYPES(NODESHM_DECLARE_REDUCE, sum)
NODESHM_REDUCE_MINMAX_TYPES(NODESHM_DECLARE_REDUCE, prod)
#ifndef __cplusplus
NODESHM_REDUCE_COMPLEX_TYPES(NODESHM_DECLARE_REDUCE, sum)
NODESHM_REDUCE_COMPLEX_TYPES(NODESHM_DECLARE_REDUCE, prod)
#endif

/* OpenSHMEM 1.6 scans (prefix sums) over a team: every type of the SUM reduction.  Exclusive:
 * team PE 0 gets zeros.  dest and source are the same array or disjoint. */
#define NODESHM_DECLARE_SCAN(T, N, _)                                                              \
    int shmem_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source, size_t nelems);       \
    int shmem_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source, size_t nelems);
NODESHM_REDUCE_MINMAX_TYPES(NODESHM_DECLARE_SCAN, _)
#ifndef __cplusplus
NODESHM_REDUCE_COMPLEX_TYPES(NODESHM_DECLARE_SCAN, _)
#endif

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* shmem_broadcast(team, dest, ...) and friends: selected by the type of *dest */
#define NODESHM_COLL_GENERIC(TABLE, OP, X)                                                         \
    _Generic((X), TABLE(NODESHM_GENERIC_CASE, OP) default: nodeshm_generic_type_not_supported)
#define NODESHM_REDUCE_GENERIC_CASE(T, N, OP) T : shmem_##N##_##OP##_reduce,
#define NODESHM_REDUCE_GENERIC(TABLE, OP, X)                                                       \
    _Generic((X), TABLE(NODESHM_REDUCE_GENERIC_CASE, OP) default: nodeshm_generic_type_not_supported)
/* complex types only where the compiler has them (the specification makes them optional) */
#ifdef __STDC_NO_COMPLEX__
#define NODESHM_REDUCE_ARITH_GENERIC_TYPES(X, A) NODESHM_REDUCE_MINMAX_GENERIC_TYPES(X, A)
#else
#define NODESHM_REDUCE_ARITH_GENERIC_TYPES(X, A)                                                   \
    NODESHM_REDUCE_MINMAX_GENERIC_TYPES(X, A) NODESHM_REDUCE_COMPLEX_GENERIC_TYPES(X, A)
#endif
#define shmem_broadcast(team, dest, ...) NODESHM_COLL_GENERIC(NODESHM_RMA_GENERIC_TYPES, broadcast, *(dest))(team, dest, __VA_ARGS__)
#define shmem_collect(team, dest, ...) NODESHM_COLL_GENERIC(NODESHM_RMA_GENERIC_TYPES, collect, *(dest))(team, dest, __VA_ARGS__)
#define shmem_fcollect(team, dest, ...) NODESHM_COLL_GENERIC(NODESHM_RMA_GENERIC_TYPES, fcollect, *(dest))(team, dest, __VA_ARGS__)
#define shmem_alltoall(team, dest, ...) NODESHM_COLL_GENERIC(NODESHM_RMA_GENERIC_TYPES, alltoall, *(dest))(team, dest, __VA_ARGS__)
#define shmem_alltoalls(team, dest, ...) NODESHM_COLL_GENERIC(NODESHM_RMA_GENERIC_TYPES, alltoalls, *(dest))(team, dest, __VA_ARGS__)
#define shmem_and_reduce(team, dest, ...) NODESHM_REDUCE_GENERIC(NODESHM_REDUCE_BITWISE_GENERIC_TYPES, and, *(dest))(team, dest, __VA_ARGS__)
#define shmem_or_reduce(team, dest, ...) NODESHM_REDUCE_GENERIC(NODESHM_REDUCE_BITWISE_GENERIC_TYPES, or, *(dest))(team, dest, __VA_ARGS__)
#define shmem_xor_reduce(team, dest, ...) NODESHM_REDUCE_GENERIC(NODESHM_REDUCE_BITWISE_GENERIC_TYPES, xor, *(dest))(team, dest, __VA_ARGS__)
#define shmem_max_reduce(team, dest, ...) NODESHM_REDUCE_GENERIC(NODESHM_REDUCE_MINMAX_GENERIC_TYPES, max, *(dest))(team, dest, __VA_ARGS__)
#define shmem_min_reduce(team, dest, ...) NODESHM_REDUCE_GENERIC(NODESHM_REDUCE_MINMAX_GENERIC_TYPES, min, *(dest))(team, dest, __VA_ARGS__)
#define shmem_sum_reduce(team, dest, ...) NODESHM_REDUCE_GENERIC(NODESHM_REDUCE_ARITH_GENERIC_TYPES, sum, *(dest))(team, dest, __VA_ARGS__)
#define shmem_prod_reduce(team, dest, ...) NODESHM_REDUCE_GENERIC(NODESHM_REDUCE_ARITH_GENERIC_TYPES, prod, *(dest))(team, dest, __VA_ARGS__)
#define NODESHM_INSCAN_GENERIC_CASE(T, N, _) T : shmem_##N##_sum_inscan,
#define NODESHM_EXSCAN_GENERIC_CASE(T, N, _) T : shmem_##N##_sum_exscan,
#define shmem_sum_inscan(team, dest, ...) _Generic(*(dest), NODESHM_REDUCE_ARITH_GENERIC_TYPES(NODESHM_INSCAN_GENERIC_CASE, _) default: nodeshm_generic_type_not_supported)(team, dest, __VA_ARGS__)
#define shmem_sum_exscan(team, dest, ...) _Generic(*(dest), NODESHM_REDUCE_ARITH_GENERIC_TYPES(NODESHM_EXSCAN_GENERIC_CASE, _) default: nodeshm_generic_type_not_supported)(team, dest, __VA_ARGS__)
#endif /* C11 */
/* Deprecated active-set collectives: the set is PE_start, PE_start + 2^logPE_stride, ... (PE_size
 * PEs).  They share the team implementation: the first call on an active set makes (collectively
 * over its PEs only) a team for it, which is kept for later calls; at most
 * NODESHM_ACTIVE_SETS_MAX distinct active sets per PE.  pSync and pWrk are not used (any array of
 * the documented size is accepted), so they need no initialization. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_BCAST_SYNC_SIZE 1
#define SHMEM_BARRIER_SYNC_SIZE 1
#define SHMEM_COLLECT_SYNC_SIZE 1
#define SHMEM_REDUCE_SYNC_SIZE 1
#define SHMEM_ALLTOALL_SYNC_SIZE 1
#define SHMEM_ALLTOALLS_SYNC_SIZE 1
#define SHMEM_SYNC_SIZE 1
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_SYNC_SIZE SHMEM_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define NODESHM_ACTIVE_SETS_MAX 32
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define NODESHM_DECLARE_ASET_SIZED(B, _)                                                           \
    void shmem_broadcast##B(void *dest, const void *source, size_t nelems, int PE_root,           \
                            int PE_start, int logPE_stride, int PE_size, long *pSync);           \
    void shmem_collect##B(void *dest, const void *source, size_t nelems, int PE_start,           \
                          int logPE_stride, int PE_size, long *pSync);                           \
    void shmem_fcollect##B(void *dest, const void *source, size_t nelems, int PE_start,          \
                           int logPE_stride, int PE_size, long *pSync);                          \
    void shmem_alltoall##B(void *dest, const void *source, size_t nelems, int PE_start,          \
                           int logPE_stride, int PE_size, long *pSync);                          \
    void shmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,        \
                            size_t nelems, int PE_start, int logPE_stride, int PE_size,          \
                            long *pSync);
NODESHM_DECLARE_ASET_SIZED(32, _)
NODESHM_DECLARE_ASET_SIZED(64, _)
#define NODESHM_DECLARE_TO_ALL(T, N, OP)                                                           \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,           \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync);
NODESHM_TOALL_BITWISE_TYPES(NODESHM_DECLARE_TO_ALL, and)
NODESHM_TOALL_BITWISE_TYPES(NODESHM_DECLARE_TO_ALL, or)
NODESHM_TOALL_BITWISE_TYPES(NODESHM_DECLARE_TO_ALL, xor)
NODESHM_TOALL_MINMAX_TYPES(NODESHM_DECLARE_TO_ALL, max)
NODESHM_TOALL_MINMAX_TYPES(NODESHM_DECLARE_TO_ALL, min)
NODESHM_TOALL_MINMAX_TYPES(NODESHM_DECLARE_TO_ALL, sum)
NODESHM_TOALL_MINMAX_TYPES(NODESHM_DECLARE_TO_ALL, prod)
#ifndef __cplusplus
NODESHM_REDUCE_COMPLEX_TYPES(NODESHM_DECLARE_TO_ALL, sum)
NODESHM_REDUCE_COMPLEX_TYPES(NODESHM_DECLARE_TO_ALL, prod)
#endif
/* ==== end of collectives ========================================================================= */

#ifdef __cplusplus
}
#endif
#endif /* SHMEM_H */
