/* nodeshm-fft: brick geometry: boxes, memory layouts and the one strided copy every remap
 * strategy uses (pack, unpack, and the node strategy's direct copy are all box copies). */
#ifndef NODESHM_FFT_BRICK_H
#define NODESHM_FFT_BRICK_H

#include "nodeshm_fft.h"
#include <stddef.h>

/* A box of the global grid: [lo, hi) per dimension. */
typedef struct nsf_box {
    int lo[3], hi[3];
} nsf_box_t;

/* Where a brick's points are in memory: element offset of global (i0,i1,i2) is
 * sum_d (i_d - lo[d]) * stride[d]. */
typedef struct nsf_layout {
    int lo[3];
    size_t stride[3];
    int order[3];
} nsf_layout_t;

static inline size_t nsf_box_size(const nsf_box_t *b)
{
    size_t s = 1;
    for (int d = 0; d < 3; d++) s *= (size_t)(b->hi[d] > b->lo[d] ? b->hi[d] - b->lo[d] : 0);
    return s;
}

nsf_box_t nsf_brick_box(const nodeshm_fft_brick_t *b);
/* The intersection of a and b; returns its number of points (0: empty). */
size_t nsf_box_intersect(const nsf_box_t *a, const nsf_box_t *b, nsf_box_t *out);
/* The dense layout of `box` in memory order `order`. */
nsf_layout_t nsf_layout_of(const nsf_box_t *box, const int order[3]);
static inline nsf_layout_t nsf_brick_layout(const nodeshm_fft_brick_t *b)
{
    nsf_box_t box = nsf_brick_box(b);
    return nsf_layout_of(&box, b->order);
}
int nsf_same_brick(const nodeshm_fft_brick_t *a, const nodeshm_fft_brick_t *b);

/* Copies the points of `box` from src (layout ls) to dst (layout ld); elements of es bytes.
 * Walks dst in its memory order: runs contiguous in both are memcpy'd, the rest is a
 * cache-blocked transpose. */
void nsf_box_copy(const void *src, const nsf_layout_t *ls, void *dst, const nsf_layout_t *ld,
                  const nsf_box_t *box, size_t es);

/* Checks one brick: order a permutation of 0..2, 0 <= lo <= hi <= n.  Returns NULL or what is
 * wrong (a static string). */
const char *nsf_brick_problem(const int n[3], const nodeshm_fft_brick_t *b);
/* Checks that the P bricks tile the n grid: disjoint, volumes summing to the grid's.  Returns
 * 0, or 1 with *a, *b the first two overlapping ranks (*b = -1: the bricks leave points out). */
int nsf_bricks_tile(const int n[3], const nodeshm_fft_brick_t *bricks, int P, int *a, int *b);

#endif
