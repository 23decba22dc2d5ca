/* nodeshm OpenSHMEM face: team-based collectives (OpenSHMEM 1.5; scans from 1.6), thin over
 * core/coll.h.
 * Every typed family is generated from the type tables (nodeshm_typetables.h). */
#include "shmem/internal.h"
#include "core/coll.h"

#include <complex.h>
#include <limits.h>
#include <pthread.h>

#undef shmem_sync /* shmem.h maps it by argument count; the library defines the functions */

static nodeshm_team_t *team_or_abort(const char *call, shmem_team_t team)
{
    nodeshm_team_t *t = nodeshm_team_check(call, team);
    if (!t) nodeshm_abort_job(NODESHM_ERR_ARG);
    return t;
}

/* ---- sync ----------------------------------------------------------------------------------------- */
int shmem_sync_team(shmem_team_t team) /* shmem_sync(team), see shmem.h */
{
    static const char call[] = "shmem_sync";
    NODESHM_CHECK(nodeshm_coll_sync(call, team_or_abort(call, team)));
    return 0;
}
NODESHM_PSHMEM(shmem_sync_team)

/* ---- broadcast, collect, fcollect, alltoall, alltoalls ------------------------------------------- */
static int bcast(const char *call, shmem_team_t team, void *dest, const void *src, size_t nelems,
                 size_t elem, int root)
{
    nodeshm_team_t *t = team_or_abort(call, team);
    if (elem && nelems * elem / elem != nelems)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, call, "nelems %zu is too large", nelems));
    NODESHM_CHECK(nodeshm_coll_broadcast(call, t, dest, src, nelems * elem, root, 1));
    return 0;
}

static int collect(const char *call, shmem_team_t team, void *dest, const void *src, size_t nelems,
                   size_t elem, int fixed)
{
    nodeshm_team_t *t = team_or_abort(call, team);
    if (elem && nelems * elem / elem != nelems)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, call, "nelems %zu is too large", nelems));
    NODESHM_CHECK(nodeshm_coll_collect(call, t, dest, src, nelems * elem, fixed));
    return 0;
}

static int alltoalls(const char *call, shmem_team_t team, void *dest, const void *src,
                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem)
{
    nodeshm_team_t *t = team_or_abort(call, team);
    NODESHM_CHECK(nodeshm_check_stride(call, "dst", dst));
    NODESHM_CHECK(nodeshm_check_stride(call, "sst", sst));
    NODESHM_CHECK(nodeshm_coll_alltoalls(call, t, dest, src, (size_t)dst, (size_t)sst, nelems, elem));
    return 0;
}

#define DEFINE_DATA_COLL(T, N, _)                                                                  \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,         \
                              int PE_root)                                                        \
    {                                                                                              \
        return bcast(__func__, team, dest, source, nelems, sizeof(T), PE_root);                   \
    }                                                                                              \
    NODESHM_PSHMEM(shmem_##N##_broadcast)                                                          \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)           \
    {                                                                                              \
        return collect(__func__, team, dest, source, nelems, sizeof(T), 0);                       \
    }                                                                                              \
    NODESHM_PSHMEM(shmem_##N##_collect)                                                            \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)          \
    {                                                                                              \
        return collect(__func__, team, dest, source, nelems, sizeof(T), 1);                       \
    }                                                                                              \
    NODESHM_PSHMEM(shmem_##N##_fcollect)                                                           \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)          \
    {                                                                                              \
        return alltoalls(__func__, team, dest, source, 1, 1, nelems, sizeof(T));                  \
    }                                                                                              \
    NODESHM_PSHMEM(shmem_##N##_alltoall)                                                           \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,         \
                              ptrdiff_t sst, size_t nelems)                                       \
    {                                                                                              \
        return alltoalls(__func__, team, dest, source, dst, sst, nelems, sizeof(T));              \
    }                                                                                              \
    NODESHM_PSHMEM(shmem_##N##_alltoalls)
NODESHM_RMA_TYPES(DEFINE_DATA_COLL, _)

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root)
{
    return bcast(__func__, team, dest, source, nelems, 1, PE_root);
}
NODESHM_PSHMEM(shmem_broadcastmem)
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return collect(__func__, team, dest, source, nelems, 1, 0);
}
NODESHM_PSHMEM(shmem_collectmem)
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return collect(__func__, team, dest, source, nelems, 1, 1);
}
NODESHM_PSHMEM(shmem_fcollectmem)
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return alltoalls(__func__, team, dest, source, 1, 1, nelems, 1);
}
NODESHM_PSHMEM(shmem_alltoallmem)
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    return alltoalls(__func__, team, dest, source, dst, sst, nelems, 1);
}
NODESHM_PSHMEM(shmem_alltoallsmem)

/* ---- reductions ------------------------------------------------------------------------------------ */
/* the element-wise kernels below should be vectorized, which GCC does at -O2 only from 12 on */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif

/* MPI datatype of each TYPENAME (between nodes) */
#define MPI_OF_char (CHAR_MIN < 0 ? MPI_SIGNED_CHAR : MPI_UNSIGNED_CHAR)
#define MPI_OF_schar MPI_SIGNED_CHAR
#define MPI_OF_short MPI_SHORT
#define MPI_OF_int MPI_INT
#define MPI_OF_long MPI_LONG
#define MPI_OF_longlong MPI_LONG_LONG
#define MPI_OF_ptrdiff (sizeof(ptrdiff_t) == 8 ? MPI_INT64_T : MPI_INT32_T)
#define MPI_OF_uchar MPI_UNSIGNED_CHAR
#define MPI_OF_ushort MPI_UNSIGNED_SHORT
#define MPI_OF_uint MPI_UNSIGNED
#define MPI_OF_ulong MPI_UNSIGNED_LONG
#define MPI_OF_ulonglong MPI_UNSIGNED_LONG_LONG
#define MPI_OF_int8 MPI_INT8_T
#define MPI_OF_int16 MPI_INT16_T
#define MPI_OF_int32 MPI_INT32_T
#define MPI_OF_int64 MPI_INT64_T
#define MPI_OF_uint8 MPI_UINT8_T
#define MPI_OF_uint16 MPI_UINT16_T
#define MPI_OF_uint32 MPI_UINT32_T
#define MPI_OF_uint64 MPI_UINT64_T
#define MPI_OF_size (sizeof(size_t) == 8 ? MPI_UINT64_T : MPI_UINT32_T)
#define MPI_OF_float MPI_FLOAT
#define MPI_OF_double MPI_DOUBLE
#define MPI_OF_longdouble MPI_LONG_DOUBLE
#define MPI_OF_complexd MPI_C_DOUBLE_COMPLEX
#define MPI_OF_complexf MPI_C_FLOAT_COMPLEX

#define OP_and(a, b) ((a) & (b))
#define OP_or(a, b) ((a) | (b))
#define OP_xor(a, b) ((a) ^ (b))
#define OP_max(a, b) ((a) > (b) ? (a) : (b))
#define OP_min(a, b) ((a) < (b) ? (a) : (b))
#define OP_sum(a, b) ((a) + (b))
#define OP_prod(a, b) ((a) * (b))
#define MPIOP_and MPI_BAND
#define MPIOP_or MPI_BOR
#define MPIOP_xor MPI_BXOR
#define MPIOP_max MPI_MAX
#define MPIOP_min MPI_MIN
#define MPIOP_sum MPI_SUM
#define MPIOP_prod MPI_PROD

/* Our kernel between nodes as well (coll.h), where MPI libraries get it wrong: sums and products
 * of types narrower than int (Open MPI's vector ops saturate), and max/min of unsigned types
 * (Open MPI 4.1.4 compares MPI_UNSIGNED_LONG as signed: max(5, 2^63 + 1) gave 5). */
#define MPIOP_UNSIGNED(T)                                                                          \
    _Generic((T)0, unsigned char: 1, unsigned short: 1, unsigned int: 1, unsigned long: 1,         \
             unsigned long long: 1, default: 0)
#define MPIOP(T, OP)                                                                               \
    ((sizeof(T) < sizeof(int) && (MPIOP_##OP == MPI_SUM || MPIOP_##OP == MPI_PROD)) ||             \
             (MPIOP_UNSIGNED(T) && (MPIOP_##OP == MPI_MAX || MPIOP_##OP == MPI_MIN))               \
         ? MPI_OP_NULL                                                                             \
         : MPIOP_##OP)

#define DEFINE_REDUCE(T, N, OP)                                                                    \
    static void reduce_##N##_##OP(void *out, const void *a, const void *b, size_t n)              \
    {                                                                                              \
        T *o = out;                                                                                \
        const T *x = a, *y = b;                                                                    \
        for (size_t i = 0; i < n; i++) o[i] = (T)OP_##OP(x[i], y[i]);                              \
    }                                                                                              \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce)    \
    {                                                                                              \
        nodeshm_team_t *t = team_or_abort(__func__, team);                                        \
        NODESHM_CHECK(nodeshm_coll_reduce(__func__, t, dest, source, nreduce, sizeof(T),          \
                                          reduce_##N##_##OP, MPI_OF_##N, MPIOP(T, OP)));          \
        return 0;                                                                                  \
    }                                                                                              \
    NODESHM_PSHMEM(shmem_##N##_##OP##_reduce)
NODESHM_REDUCE_BITWISE_TYPES(DEFINE_REDUCE, and)
NODESHM_REDUCE_BITWISE_TYPES(DEFINE_REDUCE, or)
NODESHM_REDUCE_BITWISE_TYPES(DEFINE_REDUCE, xor)
NODESHM_REDUCE_MINMAX_TYPES(DEFINE_REDUCE, max)
NODESHM_REDUCE_MINMAX_TYPES(DEFINE_REDUCE, min)
NODESHM_REDUCE_MINMAX_TYPES(DEFINE_REDUCE, sum)
NODESHM_REDUCE_MINMAX_TYPES(DEFINE_REDUCE, prod)
NODESHM_REDUCE_COMPLEX_TYPES(DEFINE_REDUCE, sum)
NODESHM_REDUCE_COMPLEX_TYPES(DEFINE_REDUCE, prod)

/* ---- scans (OpenSHMEM 1.6): every type of the SUM reduction, with its kernel -------------------- */
#define DEFINE_SCAN(T, N, _)                                                                       \
    int shmem_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source, size_t nelems)        \
    {                                                                                              \
        nodeshm_team_t *t = team_or_abort(__func__, team);                                        \
        NODESHM_CHECK(nodeshm_coll_scan(__func__, t, dest, source, nelems, sizeof(T),             \
                                        reduce_##N##_sum, MPI_OF_##N, MPIOP(T, sum), 0));         \
        return 0;                                                                                  \
    }                                                                                              \
    NODESHM_PSHMEM(shmem_##N##_sum_inscan)                                                         \
    int shmem_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source, size_t nelems)        \
    {                                                                                              \
        nodeshm_team_t *t = team_or_abort(__func__, team);                                        \
        NODESHM_CHECK(nodeshm_coll_scan(__func__, t, dest, source, nelems, sizeof(T),             \
                                        reduce_##N##_sum, MPI_OF_##N, MPIOP(T, sum), 1));         \
        return 0;                                                                                  \
    }                                                                                              \
    NODESHM_PSHMEM(shmem_##N##_sum_exscan)
NODESHM_REDUCE_MINMAX_TYPES(DEFINE_SCAN, _)
NODESHM_REDUCE_COMPLEX_TYPES(DEFINE_SCAN, _)

/* ---- deprecated active-set collectives ------------------------------------------------------------ */
/* One team per distinct active set, made on its first use, collectively over the set's PEs only
 * (MPI_Comm_create_group needs nobody else), and kept: every member of a set sees the same calls
 * on it, so all of them find it, or all make it, alike.  Never evicted (an eviction would have
 * to happen on all members at once), hence the limit. */
static struct aset {
    int start, log_stride, size;
    nodeshm_team_t *team;
    char *heap; /* the runtime it belongs to */
} asets[NODESHM_ACTIVE_SETS_MAX];
static int n_asets;
static pthread_mutex_t aset_lock = PTHREAD_MUTEX_INITIALIZER;

static nodeshm_team_t *active_set(const char *call, int start, int log_stride, int size)
{
    NODESHM_CHECK(nodeshm_require_init(call));
    int n = nodeshm_rt.n_pes, stride = log_stride >= 0 && log_stride < 31 ? 1 << log_stride : 0;
    long last = (long)start + (long)(size - 1) * stride;
    if (start < 0 || size < 1 || stride == 0 || last >= n)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, call,
                                     "invalid active set PE_start %d, logPE_stride %d, PE_size %d "
                                     "(PEs are 0 to %d)", start, log_stride, size, n - 1));
    if ((nodeshm_rt.my_pe - start) % stride != 0 || nodeshm_rt.my_pe < start || nodeshm_rt.my_pe > last)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, call,
                                     "PE %d is not in the active set PE_start %d, logPE_stride %d, "
                                     "PE_size %d", nodeshm_rt.my_pe, start, log_stride, size));
    char *heap = nodeshm_rt.seg[NODESHM_SEG_HEAP].base;
    pthread_mutex_lock(&aset_lock);
    nodeshm_team_t *t = NULL;
    int k = 0;
    for (; k < n_asets; k++) {
        struct aset *a = &asets[k];
        if (a->heap != heap) { /* made in an earlier runtime: forget them all */
            n_asets = 0;
            break;
        }
        if (a->start == start && a->log_stride == log_stride && a->size == size) {
            t = a->team;
            break;
        }
    }
    if (!t) {
        if (size == n && stride == 1) {
            t = nodeshm_team_get(NODESHM_TEAM_WORLD);
        } else if (n_asets == NODESHM_ACTIVE_SETS_MAX) {
            nodeshm_report(NODESHM_ERR_NOMEM, call, "more than %d distinct active sets: use teams",
                           NODESHM_ACTIVE_SETS_MAX);
        } else {
            MPI_Group world, group;
            MPI_Comm comm = MPI_COMM_NULL;
            int range[1][3] = {{start, (int)last, stride}};
            MPI_Comm_group(nodeshm_rt.topo.world, &world);
            MPI_Group_range_incl(world, 1, range, &group);
            if (MPI_Comm_create_group(nodeshm_rt.topo.world, group, 0x5e7, &comm) != MPI_SUCCESS)
                nodeshm_report(NODESHM_ERR_MPI, call, "MPI_Comm_create_group for the active set failed");
            MPI_Group_free(&group);
            MPI_Group_free(&world);
            nodeshm_team_config_t cfg = {0};
            if (comm != MPI_COMM_NULL) {
                if (nodeshm_team_from_comm(call, comm, &cfg, &t) != NODESHM_OK) t = NULL;
                MPI_Comm_free(&comm);
            }
        }
        if (t) asets[n_asets++] = (struct aset){start, log_stride, size, t, heap};
    }
    pthread_mutex_unlock(&aset_lock);
    if (!t) nodeshm_abort_job(NODESHM_ERR_ARG);
    return t;
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    (void)pSync;
    nodeshm_team_t *t = active_set(__func__, PE_start, logPE_stride, PE_size);
    NODESHM_CHECK(nodeshm_coll_sync(__func__, t));
}
NODESHM_PSHMEM(shmem_sync)

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    (void)pSync;
    nodeshm_team_t *t = active_set(__func__, PE_start, logPE_stride, PE_size);
    NODESHM_CHECK(nodeshm_quiet());
    NODESHM_CHECK(nodeshm_coll_sync(__func__, t));
}
NODESHM_PSHMEM(shmem_barrier)

#define DEFINE_ASET_SIZED(B, _)                                                                    \
    void shmem_broadcast##B(void *dest, const void *source, size_t nelems, int PE_root,           \
                            int PE_start, int logPE_stride, int PE_size, long *pSync)             \
    {                                                                                              \
        (void)pSync;                                                                               \
        nodeshm_team_t *t = active_set(__func__, PE_start, logPE_stride, PE_size);                \
        NODESHM_CHECK(nodeshm_coll_broadcast(__func__, t, dest, source, nelems * (B / 8), PE_root, \
                                             0));                                                  \
    }                                                                                              \
    NODESHM_PSHMEM(shmem_broadcast##B)                                                             \
    void shmem_collect##B(void *dest, const void *source, size_t nelems, int PE_start,           \
                          int logPE_stride, int PE_size, long *pSync)                             \
    {                                                                                              \
        (void)pSync;                                                                               \
        nodeshm_team_t *t = active_set(__func__, PE_start, logPE_stride, PE_size);                \
        NODESHM_CHECK(nodeshm_coll_collect(__func__, t, dest, source, nelems * (B / 8), 0));      \
    }                                                                                              \
    NODESHM_PSHMEM(shmem_collect##B)                                                               \
    void shmem_fcollect##B(void *dest, const void *source, size_t nelems, int PE_start,          \
                           int logPE_stride, int PE_size, long *pSync)                            \
    {                                                                                              \
        (void)pSync;                                                                               \
        nodeshm_team_t *t = active_set(__func__, PE_start, logPE_stride, PE_size);                \
        NODESHM_CHECK(nodeshm_coll_collect(__func__, t, dest, source, nelems * (B / 8), 1));      \
    }                                                                                              \
    NODESHM_PSHMEM(shmem_fcollect##B)                                                              \
    void shmem_alltoall##B(void *dest, const void *source, size_t nelems, int PE_start,          \
                           int logPE_stride, int PE_size, long *pSync)                            \
    {                                                                                              \
        (void)pSync;                                                                               \
        nodeshm_team_t *t = active_set(__func__, PE_start, logPE_stride, PE_size);                \
        NODESHM_CHECK(nodeshm_coll_alltoalls(__func__, t, dest, source, 1, 1, nelems, B / 8));    \
    }                                                                                              \
    NODESHM_PSHMEM(shmem_alltoall##B)                                                              \
    void shmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,        \
                            size_t nelems, int PE_start, int logPE_stride, int PE_size,          \
                            long *pSync)                                                          \
    {                                                                                              \
        (void)pSync;                                                                               \
        nodeshm_team_t *t = active_set(__func__, PE_start, logPE_stride, PE_size);                \
        NODESHM_CHECK(nodeshm_check_stride(__func__, "dst", dst));                                \
        NODESHM_CHECK(nodeshm_check_stride(__func__, "sst", sst));                                \
        NODESHM_CHECK(nodeshm_coll_alltoalls(__func__, t, dest, source, (size_t)dst, (size_t)sst, \
                                             nelems, B / 8));                                      \
    }                                                                                              \
    NODESHM_PSHMEM(shmem_alltoalls##B)
DEFINE_ASET_SIZED(32, _)
DEFINE_ASET_SIZED(64, _)

/* kernels the team-based table lacks: bitwise on signed types */
#define DEFINE_KERNEL(T, N, OP)                                                                    \
    static void reduce_##N##_##OP(void *out, const void *a, const void *b, size_t n)              \
    {                                                                                              \
        T *o = out;                                                                                \
        const T *x = a, *y = b;                                                                    \
        for (size_t i = 0; i < n; i++) o[i] = (T)OP_##OP(x[i], y[i]);                              \
    }
#define SIGNED_ONLY(T, N, OP) DEFINE_KERNEL(T, N, OP)
SIGNED_ONLY(short, short, and) SIGNED_ONLY(short, short, or) SIGNED_ONLY(short, short, xor)
SIGNED_ONLY(int, int, and) SIGNED_ONLY(int, int, or) SIGNED_ONLY(int, int, xor)
SIGNED_ONLY(long, long, and) SIGNED_ONLY(long, long, or) SIGNED_ONLY(long, long, xor)
SIGNED_ONLY(long long, longlong, and) SIGNED_ONLY(long long, longlong, or)
SIGNED_ONLY(long long, longlong, xor)

#define DEFINE_TO_ALL(T, N, OP)                                                                    \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,           \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync)           \
    {                                                                                              \
        (void)pWrk;                                                                                \
        (void)pSync;                                                                               \
        nodeshm_team_t *t = active_set(__func__, PE_start, logPE_stride, PE_size);                \
        if (nreduce < 0)                                                                           \
            NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, __func__, "invalid nreduce %d", nreduce)); \
        NODESHM_CHECK(nodeshm_coll_reduce(__func__, t, dest, source, (size_t)nreduce, sizeof(T),  \
                                          reduce_##N##_##OP, MPI_OF_##N, MPIOP(T, OP)));          \
    }                                                                                              \
    NODESHM_PSHMEM(shmem_##N##_##OP##_to_all)
NODESHM_TOALL_BITWISE_TYPES(DEFINE_TO_ALL, and)
NODESHM_TOALL_BITWISE_TYPES(DEFINE_TO_ALL, or)
NODESHM_TOALL_BITWISE_TYPES(DEFINE_TO_ALL, xor)
NODESHM_TOALL_MINMAX_TYPES(DEFINE_TO_ALL, max)
NODESHM_TOALL_MINMAX_TYPES(DEFINE_TO_ALL, min)
NODESHM_TOALL_MINMAX_TYPES(DEFINE_TO_ALL, sum)
NODESHM_TOALL_MINMAX_TYPES(DEFINE_TO_ALL, prod)
NODESHM_REDUCE_COMPLEX_TYPES(DEFINE_TO_ALL, sum)
NODESHM_REDUCE_COMPLEX_TYPES(DEFINE_TO_ALL, prod)

long shmemx_coll_calls(const char *family, const char *path) { return nodeshm_coll_calls(family, path); }
