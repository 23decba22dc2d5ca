/* nodeshm core, node collectives: a node collective area.
 *
 * The node-shared memory through which one team's node members run collectives: the flag lines
 * (flags.h), the staging banks (banks.h) and, on one node, the small ring (ring.h), laid out one
 * after the other in memory every member maps (a core/shmfile.h file, zeroed when made).  Each
 * member keeps its own view: the sequence number of its operations on the team (the same count
 * on every member) and the buffers of the current one.
 *
 * An operation starts with nodeshm_area_begin: it takes the next sequence number, picks the ring
 * entry (small operations) or the bank, and waits until every member has said done for the
 * operation that used those buffers last (depth or n_banks operations ago: normally long over,
 * so back-to-back calls pipeline). */
#ifndef NODESHM_COLL_AREA_H
#define NODESHM_COLL_AREA_H

#include "core/coll/banks.h"
#include "core/coll/flags.h"
#include "core/coll/ring.h"

typedef struct nodeshm_coll_area {
    nodeshm_flags_t flags;
    nodeshm_banks_t banks;
    nodeshm_ring_t ring;
    uint64_t seq;          /* operations so far */
    uint64_t done_seen;    /* every member's done flag was at least this */
    nodeshm_coll_bufs_t cur; /* the current operation's buffers */
} nodeshm_coll_area_t;

#define NODESHM_NEED_ANY ((size_t)-1) /* an operation that is not small */

/* Bytes of the area for `members` members, banks and ring planned (banks.h, ring.h). */
static inline size_t nodeshm_area_bytes(const nodeshm_coll_area_t *a, int members)
{
    return nodeshm_flags_bytes(members) + (size_t)a->banks.n * a->banks.bank_bytes +
           (size_t)a->ring.depth * a->ring.bank_bytes;
}
/* Points flags, banks and ring into `mem` (nodeshm_area_bytes of it, zeroed); I am member me. */
void nodeshm_area_map(nodeshm_coll_area_t *a, char *mem, int me, int members);
/* Points cur at the buffers of operation seq: its ring entry when it needs at most a ring slot
 * (`need`, the same on every member), else its bank; returns how many operations back the last
 * one that used them is. */
uint64_t nodeshm_area_use(nodeshm_coll_area_t *a, uint64_t seq, size_t need);
/* Starts an operation (see above); returns its sequence number. */
uint64_t nodeshm_area_begin(nodeshm_coll_area_t *a, size_t need);
/* The same for a member that writes no shared buffer in this operation (it only reads): nothing
 * of an earlier one can be overwritten, so it does not wait. */
static inline uint64_t nodeshm_area_begin_reader(nodeshm_coll_area_t *a, size_t need)
{
    uint64_t seq = ++a->seq;
    (void)nodeshm_area_use(a, seq, need);
    return seq;
}
/* Member i's slot of the current operation. */
static inline char *nodeshm_area_slot(const nodeshm_coll_area_t *a, int i)
{
    return a->cur.slots + (size_t)i * a->cur.slot_stride;
}
/* A barrier of the node's members as an operation of its own (flags.h: leaders between). */
static inline void nodeshm_area_barrier(nodeshm_coll_area_t *a, MPI_Comm leaders)
{
    nodeshm_flags_barrier(&a->flags, ++a->seq, leaders);
}

#endif
