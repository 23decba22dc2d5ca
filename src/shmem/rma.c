/* nodeshm OpenSHMEM face: put, get, p, g, strided and block-strided RMA, for every RMA type and
 * size.  Every definition is generated from the type tables; node-local transfers complete at
 * once, so the nbi forms share the blocking bodies (the MPI path completes them at quiet). */
#include "shmem/internal.h"

/* One family, in bytes: ELEM is the element size. */
#define RMA_PUT(call, dest, src, nelems, ELEM, pe)                                                 \
    NODESHM_CHECK(nodeshm_put_contig(call, dest, src, (nelems) * (ELEM), pe))
#define RMA_GET(call, dest, src, nelems, ELEM, pe)                                                 \
    NODESHM_CHECK(nodeshm_get_contig(call, dest, src, (nelems) * (ELEM), pe))
#define RMA_STRIDED(fn, call, dest, src, dst, sst, bsize, nblocks, ELEM, pe)                       \
    do {                                                                                           \
        NODESHM_CHECK(nodeshm_check_stride(call, "dst", dst));                                     \
        NODESHM_CHECK(nodeshm_check_stride(call, "sst", sst));                                     \
        NODESHM_CHECK(fn(call, dest, src, ELEM, bsize, nblocks, (size_t)(dst), (size_t)(sst), pe)); \
    } while (0)

#define DEFINE_TYPED_RMA(T, N, _)                                                                  \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)                         \
    { RMA_PUT(__func__, dest, source, nelems, sizeof(T), pe); }                                   \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)                     \
    { RMA_PUT(__func__, dest, source, nelems, sizeof(T), pe); }                                   \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)                         \
    { RMA_GET(__func__, dest, source, nelems, sizeof(T), pe); }                                   \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)                     \
    { RMA_GET(__func__, dest, source, nelems, sizeof(T), pe); }                                   \
    void shmem_##N##_p(T *dest, T value, int pe) { RMA_PUT(__func__, dest, &value, 1, sizeof(T), pe); } \
    T shmem_##N##_g(const T *source, int pe)                                                      \
    {                                                                                              \
        T value;                                                                                   \
        RMA_GET(__func__, &value, source, 1, sizeof(T), pe);                                       \
        return value;                                                                              \
    }                                                                                              \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                          int pe)                                                                  \
    { RMA_STRIDED(nodeshm_put, __func__, dest, source, dst, sst, 1, nelems, sizeof(T), pe); }     \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                          int pe)                                                                  \
    { RMA_STRIDED(nodeshm_get, __func__, dest, source, dst, sst, 1, nelems, sizeof(T), pe); }     \
    void shmem_##N##_ibput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,   \
                           size_t nblocks, int pe)                                                 \
    { RMA_STRIDED(nodeshm_put, __func__, dest, source, dst, sst, bsize, nblocks, sizeof(T), pe); } \
    void shmem_##N##_ibget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,   \
                           size_t nblocks, int pe)                                                 \
    { RMA_STRIDED(nodeshm_get, __func__, dest, source, dst, sst, bsize, nblocks, sizeof(T), pe); }
NODESHM_RMA_TYPES(DEFINE_TYPED_RMA, _)

#define DEFINE_SIZED_RMA(B, _)                                                                     \
    void shmem_put##B(void *dest, const void *source, size_t nelems, int pe)                      \
    { RMA_PUT(__func__, dest, source, nelems, (B) / 8, pe); }                                     \
    void shmem_put##B##_nbi(void *dest, const void *source, size_t nelems, int pe)                \
    { RMA_PUT(__func__, dest, source, nelems, (B) / 8, pe); }                                     \
    void shmem_get##B(void *dest, const void *source, size_t nelems, int pe)                      \
    { RMA_GET(__func__, dest, source, nelems, (B) / 8, pe); }                                     \
    void shmem_get##B##_nbi(void *dest, const void *source, size_t nelems, int pe)                \
    { RMA_GET(__func__, dest, source, nelems, (B) / 8, pe); }                                     \
    void shmem_iput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,               \
                       size_t nelems, int pe)                                                      \
    { RMA_STRIDED(nodeshm_put, __func__, dest, source, dst, sst, 1, nelems, (B) / 8, pe); }       \
    void shmem_iget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,               \
                       size_t nelems, int pe)                                                      \
    { RMA_STRIDED(nodeshm_get, __func__, dest, source, dst, sst, 1, nelems, (B) / 8, pe); }       \
    void shmem_ibput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,              \
                        size_t bsize, size_t nblocks, int pe)                                      \
    { RMA_STRIDED(nodeshm_put, __func__, dest, source, dst, sst, bsize, nblocks, (B) / 8, pe); }  \
    void shmem_ibget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,              \
                        size_t bsize, size_t nblocks, int pe)                                      \
    { RMA_STRIDED(nodeshm_get, __func__, dest, source, dst, sst, bsize, nblocks, (B) / 8, pe); }
NODESHM_RMA_SIZES(DEFINE_SIZED_RMA, _)

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{ RMA_PUT(__func__, dest, source, nelems, 1, pe); }
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{ RMA_PUT(__func__, dest, source, nelems, 1, pe); }
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{ RMA_GET(__func__, dest, source, nelems, 1, pe); }
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{ RMA_GET(__func__, dest, source, nelems, 1, pe); }
