/* nodeshm OpenSHMEM face: symmetric heap management.
 *
 * Every PE runs the same deterministic allocator (core/symheap.c) on the same sequence of
 * collective calls, so a block has the same offset on every PE: symmetric by construction. */
#include "shmem/internal.h"
#include "core/node_barrier.h"

#include <string.h>

static void collective_sync(const char *call)
{
    NODESHM_CHECK(nodeshm_quiet());
    NODESHM_CHECK(nodeshm_world_barrier(call));
}

static void *heap_alloc(const char *call, size_t size, size_t align)
{
    NODESHM_CHECK(nodeshm_require_init(call));
    if (size == 0) return NULL;
    size_t off;
    void *p = NULL;
    int rc = symheap_alloc(nodeshm_rt.heap, size, align, &off);
    if (rc == SYMHEAP_OK)
        p = nodeshm_user_heap_base() + off;
    else if (nodeshm_rt.my_pe == 0) /* the same on every PE: one says it */
        nodeshm_report(NODESHM_ERR_NOMEM, call,
                       "cannot allocate %zu bytes: symmetric heap exhausted (%zu of %zu bytes in "
                       "use, largest free block %zu); set SHMEM_SYMMETRIC_SIZE larger",
                       size, symheap_bytes_in_use(nodeshm_rt.heap), nodeshm_rt.heap_size,
                       symheap_largest_free(nodeshm_rt.heap));
    collective_sync(call);
    return p;
}

static size_t heap_offset(const char *call, void *ptr)
{
    size_t off = (size_t)((char *)ptr - nodeshm_user_heap_base()), size;
    if ((char *)ptr < nodeshm_user_heap_base() || off >= nodeshm_rt.heap_size ||
        symheap_block_size(nodeshm_rt.heap, off, &size) != SYMHEAP_OK)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, call,
                                     "%p was not returned by shmem_malloc (or was freed already)", ptr));
    return off;
}

void *shmem_malloc(size_t size) { return heap_alloc(__func__, size, 0); }
NODESHM_PSHMEM(shmem_malloc)

void *shmem_malloc_with_hints(size_t size, long hints)
{
    /* hints only allow optimizations, so bits this library does not know (another
     * implementation's, or a later specification's) are ignored, not errors */
    long unknown = hints & ~(SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE);
    if (unknown) nodeshm_debug("%s: ignoring unknown hint bits %#lx (of %#lx)", __func__, unknown, hints);
    return heap_alloc(__func__, size, 0); /* every block is fit for atomics and signals */
}
NODESHM_PSHMEM(shmem_malloc_with_hints)

void *shmem_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) {
        NODESHM_CHECK(nodeshm_require_init(__func__));
        if (nodeshm_rt.my_pe == 0)
            nodeshm_report(NODESHM_ERR_NOMEM, __func__, "%zu x %zu bytes overflows", count, size);
        collective_sync(__func__);
        return NULL;
    }
    void *p = heap_alloc(__func__, count * size, 0);
    if (p) {
        memset(p, 0, count * size);
        collective_sync(__func__); /* zeroed everywhere before anyone writes into it */
    }
    return p;
}
NODESHM_PSHMEM(shmem_calloc)

void *shmem_align(size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1)) || alignment > NODESHM_HEAP_ALIGN) {
        NODESHM_CHECK(nodeshm_require_init(__func__));
        nodeshm_report(NODESHM_ERR_ARG, __func__,
                       "alignment %zu is not a power of two from 1 to %zu", alignment,
                       NODESHM_HEAP_ALIGN);
        collective_sync(__func__);
        return NULL;
    }
    return heap_alloc(__func__, size, alignment < 64 ? 0 : alignment);
}
NODESHM_PSHMEM(shmem_align)

void shmem_free(void *ptr)
{
    NODESHM_CHECK(nodeshm_require_init(__func__));
    if (!ptr) return;
    size_t off = heap_offset(__func__, ptr);
    collective_sync(__func__); /* nobody may still be using the block */
    symheap_free(nodeshm_rt.heap, off);
}
NODESHM_PSHMEM(shmem_free)

void *shmem_realloc(void *ptr, size_t size)
{
    NODESHM_CHECK(nodeshm_require_init(__func__));
    if (!ptr) return heap_alloc(__func__, size, 0);
    if (size == 0) {
        shmem_free(ptr);
        return NULL;
    }
    size_t off = heap_offset(__func__, ptr), old_size;
    symheap_block_size(nodeshm_rt.heap, off, &old_size);
    collective_sync(__func__);
    if (symheap_resize_in_place(nodeshm_rt.heap, off, size) == SYMHEAP_OK) {
        collective_sync(__func__);
        return ptr;
    }
    size_t new_off;
    void *p = NULL;
    if (symheap_alloc(nodeshm_rt.heap, size, 0, &new_off) == SYMHEAP_OK) {
        p = nodeshm_user_heap_base() + new_off;
        memcpy(p, ptr, old_size < size ? old_size : size);
        symheap_free(nodeshm_rt.heap, off);
    } else if (nodeshm_rt.my_pe == 0) {
        nodeshm_report(NODESHM_ERR_NOMEM, __func__,
                       "cannot grow %p to %zu bytes: symmetric heap exhausted (heap %zu bytes)", ptr,
                       size, nodeshm_rt.heap_size);
    }
    collective_sync(__func__);
    return p;
}
NODESHM_PSHMEM(shmem_realloc)

void *shmalloc(size_t size) { return shmem_malloc(size); }
void shfree(void *ptr) { shmem_free(ptr); }
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }
