/* nodeshm core, node collectives: flag lines (flags.h). */
#include "core/coll/flags.h"

uint64_t nodeshm_flags_wait_all(const nodeshm_flags_t *f, size_t field, uint64_t v)
{
    uint64_t low = UINT64_MAX;
    for (int i = 0; i < f->n; i++) {
        uint64_t seen = nodeshm_flag_wait_ge((const uint64_t *)((const char *)&f->lines[i] + field), v);
        if (seen < low) low = seen;
    }
    return low;
}

void nodeshm_flags_barrier(const nodeshm_flags_t *f, uint64_t seq, MPI_Comm leaders)
{
    nodeshm_flags_arrive(f, seq);
    if (f->me == 0) {
        nodeshm_flags_wait_all(f, NODESHM_FLAG_ARRIVE, seq);
        if (leaders != MPI_COMM_NULL) PMPI_Barrier(leaders);
        nodeshm_flags_release(f, seq);
    } else {
        nodeshm_flags_wait_release(f, seq);
    }
    nodeshm_flags_done(f, seq);
}
