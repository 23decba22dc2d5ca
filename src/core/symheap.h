/*
 * symheap.h - deterministic offset allocator for the symmetric heap.
 *
 * The allocator hands out OFFSETS inside a region [0, capacity).  It never
 * reads or writes the region itself; all bookkeeping lives in private
 * malloc'd memory whose size is O(number of blocks), independent of the
 * capacity.  Given the same sequence of calls (with the same arguments) on
 * heaps created with the same parameters, every PE obtains exactly the same
 * offsets and return codes, which is what makes the heap "symmetric".
 *
 * Alignment is alignment of the offset.  It equals alignment of the address
 * only up to the alignment of the region base, which the owner of the
 * mapping must guarantee (a page-aligned base covers any align <= page size).
 *
 * All functions return status codes; nothing prints or exits.  The module
 * is not thread-safe: callers serialise access to one heap.
 */
#ifndef NODESHM_SYMHEAP_H
#define NODESHM_SYMHEAP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct symheap symheap_t;

enum { SYMHEAP_OK = 0, SYMHEAP_ENOMEM = 1, SYMHEAP_EINVAL = 2 };

/* Create a heap managing [0, capacity).  min_align must be a nonzero power of
 * two (e.g. 64); every block size and offset is a multiple of it.  capacity is
 * rounded down to a multiple of min_align; EINVAL if that leaves 0 bytes.
 * ENOMEM if the (small, constant-size) initial metadata cannot be allocated. */
int symheap_create(symheap_t **heap, size_t capacity, size_t min_align);

/* Release all metadata.  NULL is accepted. */
void symheap_destroy(symheap_t *heap);

/* Allocate size bytes (rounded up to min_align) at an offset that is a
 * multiple of align (0 = min_align; must be a power of two; values below
 * min_align are raised to min_align).  size 0, a non-power-of-two align or a
 * NULL pointer -> EINVAL.  No fitting free block (or metadata malloc failure)
 * -> ENOMEM, with the heap unchanged. */
int symheap_alloc(symheap_t *heap, size_t size, size_t align, size_t *offset);

/* Free the live block starting at offset.  EINVAL if offset is not the start
 * of a live block (never allocated, interior offset, double free). */
int symheap_free(symheap_t *heap, size_t offset);

/* Change the size of the live block at offset without moving it.  Shrinking
 * splits off the tail and returns it to the free space; growing takes bytes
 * from the immediately following free block.  new_size is rounded up to
 * min_align.  EINVAL: not a live block or new_size == 0.  ENOMEM: the block
 * cannot grow in place (or metadata malloc failure); the heap is unchanged. */
int symheap_resize_in_place(symheap_t *heap, size_t offset, size_t new_size);

/* Usable size of the live block at offset (request rounded up to min_align). */
int symheap_block_size(const symheap_t *heap, size_t offset, size_t *size);

/* Sum of the usable sizes of all live blocks. */
size_t symheap_bytes_in_use(const symheap_t *heap);

/* Size of the largest free block (an align <= min_align request of this size
 * is guaranteed to succeed, modulo metadata malloc failure). */
size_t symheap_largest_free(const symheap_t *heap);

/* Maximum over everything ever handed out of (offset + usable size): the
 * prefix of the region that has ever been touched by users.  Never shrinks. */
size_t symheap_high_water(const symheap_t *heap);

/* Debug aid (not required by callers): walk all metadata and verify every
 * internal invariant.  O(number of blocks + hash slots).  Returns SYMHEAP_OK
 * if consistent, SYMHEAP_EINVAL otherwise. */
int symheap_check(const symheap_t *heap);

#ifdef __cplusplus
}
#endif

#endif /* NODESHM_SYMHEAP_H */
