/* nodeshm OpenSHMEM face: put, get, p, g, strided and block-strided RMA, for every RMA type and
 * size, each on the default context (shmem_*) and on a given one (shmem_ctx_*).  Every
 * definition is generated from the type tables, both forms from one body (NODESHM_DEFINE2);
 * node-local transfers complete at once; between nodes the nbi forms only issue the MPI operation
 * (no completion per call) and the quiet completes them. */
#include "shmem/internal.h"

/* One family, in bytes: ELEM is the element size. */
#define RMA_PUT(dest, src, nelems, ELEM, pe)                                                       \
    NODESHM_CHECK(nodeshm_ctx_put_contig(call_, ctx_, dest, src, (nelems) * (ELEM), pe));
#define RMA_GET(dest, src, nelems, ELEM, pe)                                                       \
    NODESHM_CHECK(nodeshm_ctx_get_contig(call_, ctx_, dest, src, (nelems) * (ELEM), pe));
/* nbi: between nodes only issued (no MPI completion per call), completed by the quiet */
#define RMA_NBI(fn, dest, src, nelems, ELEM, pe)                                                   \
    nodeshm_domain_t *d_ = nodeshm_ctx_dom(call_, ctx_);                                           \
    if (__builtin_expect(!d_, 0)) NODESHM_CHECK(NODESHM_ERR_ARG);                                  \
    else NODESHM_CHECK(fn(call_, d_, dest, src, (nelems) * (ELEM), pe));
#define RMA_PUT_NBI(dest, src, nelems, ELEM, pe)                                                   \
    RMA_NBI(nodeshm_dom_put_contig_nbi, dest, src, nelems, ELEM, pe)
#define RMA_GET_NBI(dest, src, nelems, ELEM, pe)                                                   \
    RMA_NBI(nodeshm_dom_get_contig_nbi, dest, src, nelems, ELEM, pe)
#define RMA_STRIDED(fn, dest, src, dst, sst, bsize, nblocks, ELEM, pe)                             \
    NODESHM_CHECK(nodeshm_check_stride(call_, "dst", dst));                                        \
    NODESHM_CHECK(nodeshm_check_stride(call_, "sst", sst));                                        \
    NODESHM_CHECK(fn(call_, ctx_, dest, src, ELEM, bsize, nblocks, (size_t)(dst), (size_t)(sst), pe));

#define CONTIG_ARGS(T) (T *dest, const T *source, size_t nelems, int pe)
#define STRIDED_ARGS(T) (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)
#define BLOCK_ARGS(T)                                                                              \
    (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe)

/* the families of one element type or size; names are the public ones without shmem_ */
#define DEFINE_RMA_FAMILY(T, ELEM, PUT, GET, PUT_NBI, GET_NBI, IPUT, IGET, IBPUT, IBGET)       \
    NODESHM_DEFINE2(void, PUT, CONTIG_ARGS(T), RMA_PUT(dest, source, nelems, ELEM, pe))            \
    NODESHM_DEFINE2(void, PUT_NBI, CONTIG_ARGS(T), RMA_PUT_NBI(dest, source, nelems, ELEM, pe))    \
    NODESHM_DEFINE2(void, GET, CONTIG_ARGS(T), RMA_GET(dest, source, nelems, ELEM, pe))            \
    NODESHM_DEFINE2(void, GET_NBI, CONTIG_ARGS(T), RMA_GET_NBI(dest, source, nelems, ELEM, pe))    \
    NODESHM_DEFINE2(void, IPUT, STRIDED_ARGS(T),                                                   \
                    RMA_STRIDED(nodeshm_ctx_put, dest, source, dst, sst, 1, nelems, ELEM, pe))     \
    NODESHM_DEFINE2(void, IGET, STRIDED_ARGS(T),                                                   \
                    RMA_STRIDED(nodeshm_ctx_get, dest, source, dst, sst, 1, nelems, ELEM, pe))     \
    NODESHM_DEFINE2(void, IBPUT, BLOCK_ARGS(T),                                                    \
                    RMA_STRIDED(nodeshm_ctx_put, dest, source, dst, sst, bsize, nblocks, ELEM, pe)) \
    NODESHM_DEFINE2(void, IBGET, BLOCK_ARGS(T),                                                    \
                    RMA_STRIDED(nodeshm_ctx_get, dest, source, dst, sst, bsize, nblocks, ELEM, pe))

#define DEFINE_TYPED_RMA(T, N, _)                                                                  \
    DEFINE_RMA_FAMILY(T, sizeof(T), N##_put, N##_get, N##_put_nbi, N##_get_nbi, N##_iput,       \
                      N##_iget, N##_ibput, N##_ibget)                                              \
    NODESHM_DEFINE2(void, N##_p, (T *dest, T value, int pe), RMA_PUT(dest, &value, 1, sizeof(T), pe)) \
    NODESHM_DEFINE2(T, N##_g, (const T *source, int pe), T value;                                  \
                    RMA_GET(&value, source, 1, sizeof(T), pe) return value;)
NODESHM_RMA_TYPES(DEFINE_TYPED_RMA, _)

#define DEFINE_SIZED_RMA(B, _)                                                                     \
    DEFINE_RMA_FAMILY(void, (B) / 8, put##B, get##B, put##B##_nbi, get##B##_nbi, iput##B,    \
                      iget##B, ibput##B, ibget##B)
NODESHM_RMA_SIZES(DEFINE_SIZED_RMA, _)

NODESHM_DEFINE2(void, putmem, CONTIG_ARGS(void), RMA_PUT(dest, source, nelems, 1, pe))
NODESHM_DEFINE2(void, putmem_nbi, CONTIG_ARGS(void), RMA_PUT_NBI(dest, source, nelems, 1, pe))
NODESHM_DEFINE2(void, getmem, CONTIG_ARGS(void), RMA_GET(dest, source, nelems, 1, pe))
NODESHM_DEFINE2(void, getmem_nbi, CONTIG_ARGS(void), RMA_GET_NBI(dest, source, nelems, 1, pe))
