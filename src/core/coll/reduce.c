/* nodeshm core: the node reduction family's sliced algorithm (reduce.h says which face uses
 * what). */
#include "core/coll/reduce.h"

void nodeshm_reduce_slice(size_t count, size_t elem, int members, int me, size_t *lo, size_t *hi)
{
    size_t per_line = elem < 64 ? 64 / elem : 1;
    size_t slice = (count + (size_t)members - 1) / (size_t)members;
    slice = (slice + per_line - 1) / per_line * per_line;
    *lo = slice * (size_t)me < count ? slice * (size_t)me : count;
    *hi = *lo + slice < count ? *lo + slice : count;
}

void nodeshm_reduce_sliced(const nodeshm_reduction_t *r, char *out, size_t lo, size_t hi, int members)
{
    size_t blk = 8192 / r->elem ? 8192 / r->elem : 1;
    for (size_t b = lo; b < hi; b += blk) {
        size_t len = hi - b < blk ? hi - b : blk;
        nodeshm_reduce_ordered(r, out + b * r->elem, b, len, 0, members - 1);
    }
}
