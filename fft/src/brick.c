/* nodeshm-fft: brick geometry, the strided box copy, validation and pencil decompositions. */
#include "brick.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

nsf_box_t nsf_brick_box(const nodeshm_fft_brick_t *b)
{
    nsf_box_t box;
    for (int d = 0; d < 3; d++) {
        box.lo[d] = b->lo[d];
        box.hi[d] = b->hi[d];
    }
    return box;
}

size_t nsf_box_intersect(const nsf_box_t *a, const nsf_box_t *b, nsf_box_t *out)
{
    for (int d = 0; d < 3; d++) {
        out->lo[d] = a->lo[d] > b->lo[d] ? a->lo[d] : b->lo[d];
        out->hi[d] = a->hi[d] < b->hi[d] ? a->hi[d] : b->hi[d];
        if (out->hi[d] <= out->lo[d]) return 0;
    }
    return nsf_box_size(out);
}

nsf_layout_t nsf_layout_of(const nsf_box_t *box, const int order[3])
{
    nsf_layout_t l;
    size_t s = 1;
    for (int k = 0; k < 3; k++) {
        int d = order[k];
        l.order[k] = d;
        l.stride[d] = s;
        int ext = box->hi[d] - box->lo[d];
        s *= (size_t)(ext > 0 ? ext : 0);
    }
    for (int d = 0; d < 3; d++) l.lo[d] = box->lo[d];
    return l;
}

int nsf_same_brick(const nodeshm_fft_brick_t *a, const nodeshm_fft_brick_t *b)
{
    size_t na = nodeshm_fft_brick_size(a), nb = nodeshm_fft_brick_size(b);
    if (na == 0 || nb == 0) return na == nb;
    for (int d = 0; d < 3; d++)
        if (a->lo[d] != b->lo[d] || a->hi[d] != b->hi[d]) return 0;
    /* Dimensions of extent 1 do not change where points are: compare the order of the rest. */
    int ka = 0, kb = 0;
    for (;;) {
        while (ka < 3 && a->hi[a->order[ka]] - a->lo[a->order[ka]] == 1) ka++;
        while (kb < 3 && b->hi[b->order[kb]] - b->lo[b->order[kb]] == 1) kb++;
        if (ka == 3 || kb == 3) return ka == kb;
        if (a->order[ka++] != b->order[kb++]) return 0;
    }
}

static inline size_t offset_of(const nsf_layout_t *l, const int i[3])
{
    return (size_t)(i[0] - l->lo[0]) * l->stride[0] + (size_t)(i[1] - l->lo[1]) * l->stride[1] +
           (size_t)(i[2] - l->lo[2]) * l->stride[2];
}

/* Elementwise strided copy of n elements; the common element sizes get fixed-size moves. */
static inline void strided_copy(char *d, size_t ds, const char *s, size_t ss, size_t n, size_t es)
{
    switch (es) {
    case 16:
        for (size_t k = 0; k < n; k++) memcpy(d + k * ds, s + k * ss, 16);
        break;
    case 8:
        for (size_t k = 0; k < n; k++) memcpy(d + k * ds, s + k * ss, 8);
        break;
    default:
        for (size_t k = 0; k < n; k++) memcpy(d + k * ds, s + k * ss, es);
    }
}

void nsf_box_copy(const void *src, const nsf_layout_t *ls, void *dst, const nsf_layout_t *ld,
                  const nsf_box_t *box, size_t es)
{
    if (nsf_box_size(box) == 0) return;
    const int f = ld->order[0], m = ld->order[1], s = ld->order[2]; /* dst's fast, mid, slow */
    const int nf = box->hi[f] - box->lo[f];
    int i[3];
    if (ls->stride[f] == 1) {
        /* The destination's fastest dimension is contiguous in the source too: runs. */
        for (i[s] = box->lo[s]; i[s] < box->hi[s]; i[s]++)
            for (i[m] = box->lo[m]; i[m] < box->hi[m]; i[m]++) {
                i[f] = box->lo[f];
                memcpy((char *)dst + offset_of(ld, i) * es,
                       (const char *)src + offset_of(ls, i) * es, (size_t)nf * es);
            }
        return;
    }
    /* A transpose: the source's fastest dimension g != f.  Copy tiles of TxT (f, g) points so
     * that both sides stay in cache; the third dimension h is outermost. */
    enum { T = 16 };
    int g = ls->order[0] == f ? ls->order[1] : ls->order[0];
    int h = 3 - f - g;
    for (i[h] = box->lo[h]; i[h] < box->hi[h]; i[h]++)
        for (int g0 = box->lo[g]; g0 < box->hi[g]; g0 += T)
            for (int f0 = box->lo[f]; f0 < box->hi[f]; f0 += T) {
                int g1 = g0 + T < box->hi[g] ? g0 + T : box->hi[g];
                int f1 = f0 + T < box->hi[f] ? f0 + T : box->hi[f];
                for (i[g] = g0; i[g] < g1; i[g]++) {
                    i[f] = f0;
                    strided_copy((char *)dst + offset_of(ld, i) * es, ld->stride[f] * es,
                                 (const char *)src + offset_of(ls, i) * es, ls->stride[f] * es,
                                 (size_t)(f1 - f0), es);
                }
            }
}

const char *nsf_brick_problem(const int n[3], const nodeshm_fft_brick_t *b)
{
    int seen = 0;
    for (int k = 0; k < 3; k++) {
        if (b->order[k] < 0 || b->order[k] > 2 || (seen & (1 << b->order[k])))
            return "order is not a permutation of {0,1,2}";
        seen |= 1 << b->order[k];
    }
    for (int d = 0; d < 3; d++)
        if (b->lo[d] < 0 || b->hi[d] < b->lo[d] || b->hi[d] > n[d])
            return "lo/hi outside 0 <= lo <= hi <= n";
    return NULL;
}

int nsf_bricks_tile(const int n[3], const nodeshm_fft_brick_t *bricks, int P, int *a, int *b)
{
    /* Disjoint bricks inside the grid whose sizes add up to the grid's cover it. */
    size_t total = 0;
    for (int p = 0; p < P; p++) {
        nsf_box_t bp = nsf_brick_box(&bricks[p]);
        if (nsf_box_size(&bp) == 0) continue;
        total += nsf_box_size(&bp);
        for (int q = 0; q < p; q++) {
            nsf_box_t bq = nsf_brick_box(&bricks[q]), x;
            if (nsf_box_intersect(&bp, &bq, &x)) {
                *a = q;
                *b = p;
                return 1;
            }
        }
    }
    if (total != (size_t)n[0] * (size_t)n[1] * (size_t)n[2]) {
        *a = -1;
        *b = -1;
        return 1;
    }
    return 0;
}

size_t nodeshm_fft_brick_size(const nodeshm_fft_brick_t *brick)
{
    nsf_box_t box = nsf_brick_box(brick);
    return nsf_box_size(&box);
}

/* ---- pencil decompositions */

int nodeshm_fft_pencil_grid(int nprocs, const int n[3], int grid[2])
{
    if (nprocs < 1 || !n || !grid) return MPI_ERR_ARG;
    /* Axis-0 pencils split dimension 1 in grid[0] parts and dimension 2 in grid[1]; the other
     * pencils split (0, 2) and (0, 1) the same way.  Slabs (1 x nprocs) when every part gets a
     * plane: the x to y remap is then a local transpose and a transform moves its data across
     * ranks once each way instead of twice (64^3 at 4 ranks: 2x2 pencils took 1.6x FFTW-MPI's
     * slab time).  Else prefer grids whose parts are not empty in any split, then the squarest
     * pencils. */
    if (nprocs <= n[1] && nprocs <= n[2]) {
        grid[0] = 1;
        grid[1] = nprocs;
        return 0;
    }
    double best = -1;
    for (int g0 = 1; g0 <= nprocs; g0++) {
        if (nprocs % g0) continue;
        int g1 = nprocs / g0;
        int empty = (g0 > n[1]) + (g1 > n[2]) + (g0 > n[0]) + (g1 > n[1]);
        double a = (double)n[1] / g0, b = (double)n[2] / g1;
        double shape = a > b ? b / a : a / b; /* 1: square cross-section */
        double score = shape - 10.0 * empty;
        if (best < -0.5 || score > best + 1e-12) {
            best = score;
            grid[0] = g0;
            grid[1] = g1;
        }
    }
    return 0;
}

static void block_range(int i, int N, int parts, int *lo, int *hi)
{
    *lo = (int)((long long)i * N / parts);
    *hi = (int)((long long)(i + 1) * N / parts);
}

int nodeshm_fft_pencil_brick(const int n[3], const int grid[2], int rank, int axis,
                             nodeshm_fft_brick_t *brick)
{
    if (!n || !grid || !brick || axis < 0 || axis > 2 || grid[0] < 1 || grid[1] < 1 ||
        rank < 0 || rank >= grid[0] * grid[1])
        return MPI_ERR_ARG;
    /* Split dimensions: axis 0 -> (1, 2), axis 1 -> (0, 2), axis 2 -> (0, 1).  x stays the
     * fastest in memory in every pencil: remaps between pencils then move runs along x (no
     * transposes), and FFTW does the y and z transforms at a stride, vectorized across x.  The
     * pencil's own axis comes next, so that stride is one x row: z pencils are {0,2,1} (FFTW-MPI's
     * transposed output; z at a stride of a whole x-y plane cost 15% at 128^3). */
    int a = axis == 0 ? 1 : 0, b = axis == 2 ? 1 : 2;
    brick->lo[axis] = 0;
    brick->hi[axis] = n[axis];
    block_range(rank % grid[0], n[a], grid[0], &brick->lo[a], &brick->hi[a]);
    block_range(rank / grid[0], n[b], grid[1], &brick->lo[b], &brick->hi[b]);
    brick->order[0] = 0;
    brick->order[1] = axis == 2 ? 2 : 1;
    brick->order[2] = axis == 2 ? 1 : 2;
    return 0;
}
