/* nodeshm OpenSHMEM face: ordering, completion and the world barrier. */
#include "shmem/internal.h"
#include "core/node_barrier.h"

void shmem_fence(void) { NODESHM_CHECK(nodeshm_fence()); }

void shmem_quiet(void) { NODESHM_CHECK(nodeshm_quiet()); }

void shmem_pe_quiet(const int *target_pes, size_t npes)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (size_t i = 0; i < npes; i++) {
        int pe = target_pes[i];
        if ((unsigned)pe >= (unsigned)nodeshm_rt.n_pes)
            NODESHM_CHECK(nodeshm_bad_target(__func__, "target_pes", target_pes, 0, pe));
        NODESHM_CHECK(nodeshm_remote_flush(pe));
    }
}

void shmem_barrier_all(void)
{
    NODESHM_CHECK(nodeshm_require_init(__func__));
    NODESHM_CHECK(nodeshm_quiet());
    NODESHM_CHECK(nodeshm_world_barrier(__func__));
}

void shmem_sync_all(void)
{
    NODESHM_CHECK(nodeshm_require_init(__func__));
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    NODESHM_CHECK(nodeshm_world_barrier(__func__));
}
