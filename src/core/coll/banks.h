/* nodeshm core, node collectives: staging banks.
 *
 * A bank is the node-shared buffers of one operation: a result area (one message for all the
 * node's members: a broadcast's data, a reduction's result), one slot per member (its
 * contribution) and a stage (the leaders' staging between nodes).  Operation seq uses bank
 * seq % n: with two banks a member may write the next operation's buffers while its peers still
 * read this one's (area.h waits for them before a bank is reused).  Each area is rounded up to
 * whole cache lines. */
#ifndef NODESHM_COLL_BANKS_H
#define NODESHM_COLL_BANKS_H

#include <stddef.h>
#include <stdint.h>

/* The buffers of the current operation (a bank, or an entry of the small ring: ring.h). */
typedef struct nodeshm_coll_bufs {
    char *result;       /* result area */
    char *slots;        /* the members' slots, slot_stride bytes apart */
    char *stage;        /* leaders' staging between nodes; NULL in the ring */
    size_t slot_stride;
} nodeshm_coll_bufs_t;

typedef struct nodeshm_banks {
    char *base;         /* bank 0; bank k is k * bank_bytes further */
    int n;              /* banks */
    int slots;          /* slots per bank: the node's members */
    size_t result_bytes, slot_bytes, stage_bytes, bank_bytes;
} nodeshm_banks_t;

/* Lays out one bank of `slots` slots from the areas' needs (rounded to cache lines); returns
 * bank_bytes. */
size_t nodeshm_banks_layout(nodeshm_banks_t *b, size_t result, size_t slot, int slots, size_t stage);
/* The buffers of operation seq. */
void nodeshm_banks_use(const nodeshm_banks_t *b, uint64_t seq, nodeshm_coll_bufs_t *out);

#endif
