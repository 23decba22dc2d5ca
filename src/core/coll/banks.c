/* nodeshm core, node collectives: staging banks (banks.h). */
#include "core/coll/banks.h"
#include "core/coll/flags.h"

static size_t round_line(size_t x) { return (x + NODESHM_FLAG_LINE - 1) / NODESHM_FLAG_LINE * NODESHM_FLAG_LINE; }

size_t nodeshm_banks_layout(nodeshm_banks_t *b, size_t result, size_t slot, int slots, size_t stage)
{
    b->result_bytes = round_line(result);
    b->slot_bytes = round_line(slot);
    b->stage_bytes = round_line(stage);
    b->slots = slots;
    b->bank_bytes = b->result_bytes + b->slot_bytes * (size_t)slots + b->stage_bytes;
    return b->bank_bytes;
}

void nodeshm_banks_use(const nodeshm_banks_t *b, uint64_t seq, nodeshm_coll_bufs_t *out)
{
    out->result = b->base + (size_t)(seq % (uint64_t)b->n) * b->bank_bytes;
    out->slots = out->result + b->result_bytes;
    out->stage = out->slots + b->slot_bytes * (size_t)b->slots;
    out->slot_stride = b->slot_bytes;
}
