/* nodeshm OpenSHMEM face: ordering, completion and the world barrier. */
#include "shmem/internal.h"
#include "core/node_barrier.h"

/* shmem_fence, shmem_quiet: the default context's, which also complete the library's own
 * operations.  On SHMEM_CTX_INVALID the ctx forms do nothing. */
void shmem_fence(void) { NODESHM_CHECK(nodeshm_fence()); }
NODESHM_PSHMEM(shmem_fence)
void shmem_quiet(void) { NODESHM_CHECK(nodeshm_quiet()); }
NODESHM_PSHMEM(shmem_quiet)

void shmem_ctx_fence(shmem_ctx_t ctx)
{
    if (ctx != SHMEM_CTX_INVALID) NODESHM_CHECK(nodeshm_ctx_fence(__func__, ctx));
}
NODESHM_PSHMEM(shmem_ctx_fence)

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    if (ctx != SHMEM_CTX_INVALID) NODESHM_CHECK(nodeshm_ctx_quiet(__func__, ctx));
}
NODESHM_PSHMEM(shmem_ctx_quiet)

/* Completes the operations to the given PEs (numbered in the context's team). */
static void pe_quiet(const char *call, nodeshm_ctx_t *ctx, const int *target_pes, size_t npes)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (size_t i = 0; i < npes; i++) {
        int pe = target_pes[i];
        NODESHM_CHECK(nodeshm_ctx_pe(call, ctx, &pe));
        if ((unsigned)pe >= (unsigned)nodeshm_rt.n_pes)
            NODESHM_CHECK(nodeshm_bad_target(call, "target_pes", target_pes, 0, pe));
        NODESHM_CHECK(nodeshm_remote_flush(pe));
    }
}

void shmem_pe_quiet(const int *target_pes, size_t npes)
{
    pe_quiet(__func__, NODESHM_CTX_DEFAULT, target_pes, npes);
}
NODESHM_PSHMEM(shmem_pe_quiet)

void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    if (ctx != SHMEM_CTX_INVALID) pe_quiet(__func__, ctx, target_pes, npes);
}
NODESHM_PSHMEM(shmem_ctx_pe_quiet)

void shmem_barrier_all(void)
{
    NODESHM_CHECK(nodeshm_require_init(__func__));
    NODESHM_CHECK(nodeshm_quiet());
    NODESHM_CHECK(nodeshm_world_barrier(__func__));
}
NODESHM_PSHMEM(shmem_barrier_all)

void shmem_sync_all(void)
{
    NODESHM_CHECK(nodeshm_require_init(__func__));
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    NODESHM_CHECK(nodeshm_world_barrier(__func__));
}
NODESHM_PSHMEM(shmem_sync_all)
