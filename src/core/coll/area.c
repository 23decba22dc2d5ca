/* nodeshm core, node collectives: a node collective area (area.h). */
#include "core/coll/area.h"

void nodeshm_area_map(nodeshm_coll_area_t *a, char *mem, int me, int members)
{
    a->flags.lines = (nodeshm_flag_line_t *)mem;
    a->flags.me = me;
    a->flags.n = members;
    a->banks.base = mem + nodeshm_flags_bytes(members);
    a->ring.base = a->banks.base + (size_t)a->banks.n * a->banks.bank_bytes;
    (void)nodeshm_area_use(a, 0, NODESHM_NEED_ANY);
}

uint64_t nodeshm_area_use(nodeshm_coll_area_t *a, uint64_t seq, size_t need)
{
    if (nodeshm_ring_fits(&a->ring, need)) {
        nodeshm_ring_use(&a->ring, seq, &a->cur);
        return (uint64_t)a->ring.depth;
    }
    nodeshm_banks_use(&a->banks, seq, &a->cur);
    return (uint64_t)a->banks.n;
}

/* The buffers of op seq were last used by op seq - reused or earlier; done flags only grow, so
 * done >= seq - reused on every member means all of those readers finished, and the lowest one
 * seen covers every later need up to it: a member running ahead in the ring reads its peers'
 * lines about once per ring, not per call. */
uint64_t nodeshm_area_begin(nodeshm_coll_area_t *a, size_t need)
{
    uint64_t seq = ++a->seq, reused = nodeshm_area_use(a, seq, need);
    if (seq > reused && seq - reused > a->done_seen)
        a->done_seen = nodeshm_flags_wait_all(&a->flags, NODESHM_FLAG_DONE, seq - reused);
    return seq;
}
