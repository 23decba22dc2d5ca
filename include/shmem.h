/* nodeshm: OpenSHMEM over node-shared memory (loads and stores within a node) and MPI-3 RMA
 * between nodes.  Implements the OpenSHMEM 1.5 point-to-point API with the 1.6 additions
 * ibput/ibget and pe_quiet, and teams (team_sync the only collective on them so far); contexts and
 * collectives beyond barrier_all come later. */
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
#define SHMEM_MINOR_VERSION 5
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

/* Contexts come with their own issue; the default context is the only one for now. */
typedef void *shmem_ctx_t;
#define SHMEM_CTX_DEFAULT ((shmem_ctx_t)0)

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
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);
/* deprecated spellings */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);
int shmem_initialized(void);

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
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                        \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                        \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);                    \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);                    \
    void shmem_##N##_p(T *dest, T value, int pe);                                                 \
    T shmem_##N##_g(const T *source, int pe);                                                     \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                          int pe);                                                                \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                          int pe);                                                                \
    void shmem_##N##_ibput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,  \
                           size_t nblocks, int pe);                                               \
    void shmem_##N##_ibget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,  \
                           size_t nblocks, int pe);                                               \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,      \
                                uint64_t signal, int sig_op, int pe);                             \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,  \
                                    uint64_t signal, int sig_op, int pe);
NODESHM_RMA_TYPES(NODESHM_DECLARE_RMA, _)

#define NODESHM_DECLARE_SIZED_RMA(B, _)                                                            \
    void shmem_put##B(void *dest, const void *source, size_t nelems, int pe);                     \
    void shmem_get##B(void *dest, const void *source, size_t nelems, int pe);                     \
    void shmem_put##B##_nbi(void *dest, const void *source, size_t nelems, int pe);               \
    void shmem_get##B##_nbi(void *dest, const void *source, size_t nelems, int pe);               \
    void shmem_iput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,               \
                       size_t nelems, int pe);                                                    \
    void shmem_iget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,               \
                       size_t nelems, int pe);                                                    \
    void shmem_ibput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,              \
                        size_t bsize, size_t nblocks, int pe);                                    \
    void shmem_ibget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,              \
                        size_t bsize, size_t nblocks, int pe);                                    \
    void shmem_put##B##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, \
                               uint64_t signal, int sig_op, int pe);                              \
    void shmem_put##B##_signal_nbi(void *dest, const void *source, size_t nelems,                 \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
NODESHM_RMA_SIZES(NODESHM_DECLARE_SIZED_RMA, _)

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                         uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe);

/* ---- signals -------------------------------------------------------------------------------- */
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- atomics -------------------------------------------------------------------------------- */
#define NODESHM_DECLARE_AMO_EXTENDED(T, N, _)                                                      \
    T shmem_##N##_atomic_fetch(const T *source, int pe);                                          \
    void shmem_##N##_atomic_set(T *dest, T value, int pe);                                        \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe);                                          \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);                         \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);
NODESHM_AMO_EXTENDED_TYPES(NODESHM_DECLARE_AMO_EXTENDED, _)

#define NODESHM_DECLARE_AMO_STANDARD(T, N, _)                                                      \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                          \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                              \
    void shmem_##N##_atomic_inc(T *dest, int pe);                                                 \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                                     \
    void shmem_##N##_atomic_add(T *dest, T value, int pe);                                        \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe);         \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                             \
    void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);
NODESHM_AMO_STANDARD_TYPES(NODESHM_DECLARE_AMO_STANDARD, _)

#define NODESHM_DECLARE_AMO_BITWISE(T, N, _)                                                       \
    T shmem_##N##_atomic_fetch_and(T *dest, T value, int pe);                                     \
    void shmem_##N##_atomic_and(T *dest, T value, int pe);                                        \
    T shmem_##N##_atomic_fetch_or(T *dest, T value, int pe);                                      \
    void shmem_##N##_atomic_or(T *dest, T value, int pe);                                         \
    T shmem_##N##_atomic_fetch_xor(T *dest, T value, int pe);                                     \
    void shmem_##N##_atomic_xor(T *dest, T value, int pe);                                        \
    void shmem_##N##_atomic_fetch_and_nbi(T *fetch, T *dest, T value, int pe);                    \
    void shmem_##N##_atomic_fetch_or_nbi(T *fetch, T *dest, T value, int pe);                     \
    void shmem_##N##_atomic_fetch_xor_nbi(T *fetch, T *dest, T value, int pe);
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

#define shmem_put(dest, ...) NODESHM_GENERIC(NODESHM_RMA_GENERIC_TYPES, put, *(dest))(dest, __VA_ARGS__)
#define shmem_get(dest, ...) NODESHM_GENERIC(NODESHM_RMA_GENERIC_TYPES, get, *(dest))(dest, __VA_ARGS__)
#define shmem_put_nbi(dest, ...) NODESHM_GENERIC(NODESHM_RMA_GENERIC_TYPES, put_nbi, *(dest))(dest, __VA_ARGS__)
#define shmem_get_nbi(dest, ...) NODESHM_GENERIC(NODESHM_RMA_GENERIC_TYPES, get_nbi, *(dest))(dest, __VA_ARGS__)
#define shmem_p(dest, ...) NODESHM_GENERIC(NODESHM_RMA_GENERIC_TYPES, p, *(dest))(dest, __VA_ARGS__)
#define shmem_g(src, ...) NODESHM_GENERIC(NODESHM_RMA_GENERIC_TYPES, g, *(src))(src, __VA_ARGS__)
#define shmem_iput(dest, ...) NODESHM_GENERIC(NODESHM_RMA_GENERIC_TYPES, iput, *(dest))(dest, __VA_ARGS__)
#define shmem_iget(dest, ...) NODESHM_GENERIC(NODESHM_RMA_GENERIC_TYPES, iget, *(dest))(dest, __VA_ARGS__)
#define shmem_ibput(dest, ...) NODESHM_GENERIC(NODESHM_RMA_GENERIC_TYPES, ibput, *(dest))(dest, __VA_ARGS__)
#define shmem_ibget(dest, ...) NODESHM_GENERIC(NODESHM_RMA_GENERIC_TYPES, ibget, *(dest))(dest, __VA_ARGS__)
#define shmem_put_signal(dest, ...) NODESHM_GENERIC(NODESHM_RMA_GENERIC_TYPES, put_signal, *(dest))(dest, __VA_ARGS__)
#define shmem_put_signal_nbi(dest, ...) NODESHM_GENERIC(NODESHM_RMA_GENERIC_TYPES, put_signal_nbi, *(dest))(dest, __VA_ARGS__)

#define shmem_atomic_fetch(src, ...) NODESHM_GENERIC(NODESHM_AMO_EXTENDED_GENERIC_TYPES, atomic_fetch, *(src))(src, __VA_ARGS__)
#define shmem_atomic_set(dest, ...) NODESHM_GENERIC(NODESHM_AMO_EXTENDED_GENERIC_TYPES, atomic_set, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_swap(dest, ...) NODESHM_GENERIC(NODESHM_AMO_EXTENDED_GENERIC_TYPES, atomic_swap, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(fetch, ...) NODESHM_GENERIC(NODESHM_AMO_EXTENDED_GENERIC_TYPES, atomic_fetch_nbi, *(fetch))(fetch, __VA_ARGS__)
#define shmem_atomic_swap_nbi(fetch, ...) NODESHM_GENERIC(NODESHM_AMO_EXTENDED_GENERIC_TYPES, atomic_swap_nbi, *(fetch))(fetch, __VA_ARGS__)
#define shmem_atomic_compare_swap(dest, ...) NODESHM_GENERIC(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_compare_swap, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_fetch_inc(dest, ...) NODESHM_GENERIC(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_fetch_inc, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_inc(dest, ...) NODESHM_GENERIC(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_inc, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_fetch_add(dest, ...) NODESHM_GENERIC(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_fetch_add, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_add(dest, ...) NODESHM_GENERIC(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_add, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(fetch, ...) NODESHM_GENERIC(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_compare_swap_nbi, *(fetch))(fetch, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(fetch, ...) NODESHM_GENERIC(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_fetch_inc_nbi, *(fetch))(fetch, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(fetch, ...) NODESHM_GENERIC(NODESHM_AMO_STANDARD_GENERIC_TYPES, atomic_fetch_add_nbi, *(fetch))(fetch, __VA_ARGS__)
#define shmem_atomic_fetch_and(dest, ...) NODESHM_GENERIC(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_and, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_and(dest, ...) NODESHM_GENERIC(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_and, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_fetch_or(dest, ...) NODESHM_GENERIC(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_or, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_or(dest, ...) NODESHM_GENERIC(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_or, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_fetch_xor(dest, ...) NODESHM_GENERIC(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_xor, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_xor(dest, ...) NODESHM_GENERIC(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_xor, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(fetch, ...) NODESHM_GENERIC(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_and_nbi, *(fetch))(fetch, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(fetch, ...) NODESHM_GENERIC(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_or_nbi, *(fetch))(fetch, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(fetch, ...) NODESHM_GENERIC(NODESHM_AMO_BITWISE_GENERIC_TYPES, atomic_fetch_xor_nbi, *(fetch))(fetch, __VA_ARGS__)

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

#ifdef __cplusplus
}
#endif
#endif /* SHMEM_H */
