/* nodeshm OpenSHMEM face: initialization and queries. */
#include "shmem/internal.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void shmem_init(void) { NODESHM_CHECK(nodeshm_runtime_init(__func__, SHMEM_THREAD_SINGLE, NULL)); }

int shmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, __func__, "invalid thread level %d", requested));
    return nodeshm_runtime_init(__func__, requested, provided) == NODESHM_OK ? 0 : 1;
}

void shmem_query_thread(int *provided) { *provided = nodeshm_rt.thread_level; }

void shmem_finalize(void) { NODESHM_CHECK(nodeshm_runtime_fini(__func__)); }

void shmem_global_exit(int status)
{
    fflush(stdout);
    fflush(stderr);
    int mpi_up = 0, mpi_down = 0;
    MPI_Initialized(&mpi_up);
    MPI_Finalized(&mpi_down);
    /* MPI_Abort ends every PE; the launcher reports `status` (0 included) */
    if (mpi_up && !mpi_down) MPI_Abort(MPI_COMM_WORLD, status);
    _exit(status);
}

int shmem_my_pe(void) { return nodeshm_rt.my_pe; }
int shmem_n_pes(void) { return nodeshm_rt.n_pes; }
int shmemx_node_my_pe(void) { return nodeshm_rt.topo.node_my_pe; }
int shmemx_node_n_pes(void) { return nodeshm_rt.topo.node_n_pes; }
int shmemx_n_nodes(void) { return nodeshm_rt.topo.n_nodes; }

int shmem_pe_accessible(int pe) { return pe >= 0 && pe < nodeshm_rt.n_pes; }

int shmem_addr_accessible(const void *addr, int pe)
{
    if (!shmem_pe_accessible(pe)) return 0;
    for (int s = 0; s < NODESHM_NSEGS; s++)
        if ((size_t)((const char *)addr - nodeshm_rt.seg[s].base) < nodeshm_rt.seg[s].size) return 1;
    return 0;
}

void *shmem_ptr(const void *dest, int pe)
{
    if (!shmem_addr_accessible(dest, pe)) return NULL;
    int idx = nodeshm_rt.topo.node_index_of[pe];
    if (idx < 0) return NULL;
    for (int s = 0; s < NODESHM_NSEGS; s++) {
        size_t off = (size_t)((const char *)dest - nodeshm_rt.seg[s].base);
        if (off < nodeshm_rt.seg[s].size) return nodeshm_rt.seg[s].peer_base[idx] + off;
    }
    return NULL;
}

void shmem_info_get_version(int *major, int *minor)
{
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}

void start_pes(int npes)
{
    (void)npes;
    shmem_init();
}
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }
int shmem_initialized(void) { return nodeshm_rt.initialized && !nodeshm_rt.finalized; }

void nodeshm_generic_type_not_supported(void)
{
    NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, "shmem generic call", "type not supported"));
}
