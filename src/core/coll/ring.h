/* nodeshm core, node collectives: the small-message ring.
 *
 * On one node, small operations use a ring of `depth` small banks (a result area and one slot
 * per member, `slot` bytes each) instead of the banks, so a root (or the senders of a gather)
 * may run up to depth operations ahead of slow readers, as MPI libraries' eager sends let them.
 * The ring's memory is capped (`budget`): a big node gets a shallower ring, but never below 16
 * entries unless fewer were asked for. */
#ifndef NODESHM_COLL_RING_H
#define NODESHM_COLL_RING_H

#include "core/coll/banks.h"

typedef struct nodeshm_ring {
    char *base;
    size_t slot, bank_bytes; /* bytes of a slot (and of the result area); of one entry */
    int depth;               /* entries; 0: no ring */
} nodeshm_ring_t;

/* Sizes the ring for `slots` members: up to `depth` entries of `slot_bytes` (rounded to cache
 * lines) within `budget` bytes; depth 0 or slot_bytes 0: none.  Returns the ring's bytes. */
size_t nodeshm_ring_plan(nodeshm_ring_t *r, int depth, size_t slot_bytes, int slots, size_t budget);
/* Whether an operation needing `need` bytes of result area and of each slot fits an entry. */
static inline int nodeshm_ring_fits(const nodeshm_ring_t *r, size_t need) { return r->depth > 0 && need <= r->slot; }
/* The buffers of operation seq (stage NULL). */
void nodeshm_ring_use(const nodeshm_ring_t *r, uint64_t seq, nodeshm_coll_bufs_t *out);

#endif
