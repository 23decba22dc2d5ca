/* nodeshm OpenSHMEM face: initialization and queries. */
#include "shmem/internal.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void shmem_init(void) { NODESHM_CHECK(nodeshm_runtime_init(__func__, SHMEM_THREAD_SINGLE, NULL)); }
NODESHM_PSHMEM(shmem_init)

int shmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, __func__, "invalid thread level %d", requested));
    return nodeshm_runtime_init(__func__, requested, provided) == NODESHM_OK ? 0 : 1;
}
NODESHM_PSHMEM(shmem_init_thread)

void shmem_query_thread(int *provided) { *provided = nodeshm_rt.thread_level; }
NODESHM_PSHMEM(shmem_query_thread)

void shmem_finalize(void) { NODESHM_CHECK(nodeshm_runtime_fini(__func__)); }
NODESHM_PSHMEM(shmem_finalize)

/* OpenSHMEM 1.6: nonzero between an init and its matching (last) finalize; callable any time */
void shmem_query_initialized(int *initialized)
{
    if (!initialized)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, __func__, "initialized is NULL"));
    *initialized = __atomic_load_n(&nodeshm_rt.initialized, __ATOMIC_ACQUIRE) &&
                   !__atomic_load_n(&nodeshm_rt.finalized, __ATOMIC_ACQUIRE);
}
NODESHM_PSHMEM(shmem_query_initialized)

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
NODESHM_PSHMEM(shmem_global_exit)

int shmem_my_pe(void) { return nodeshm_rt.my_pe; }
int shmem_n_pes(void) { return nodeshm_rt.n_pes; }
NODESHM_PSHMEM(shmem_my_pe)
NODESHM_PSHMEM(shmem_n_pes)
int shmemx_node_my_pe(void) { return nodeshm_rt.topo.node_my_pe; }
int shmemx_node_n_pes(void) { return nodeshm_rt.topo.node_n_pes; }
int shmemx_n_nodes(void) { return nodeshm_rt.topo.n_nodes; }

int shmem_pe_accessible(int pe) { return pe >= 0 && pe < nodeshm_rt.n_pes; }
NODESHM_PSHMEM(shmem_pe_accessible)

int shmem_addr_accessible(const void *addr, int pe)
{
    if (!shmem_pe_accessible(pe)) return 0;
    for (int s = 0; s < NODESHM_NSEGS; s++)
        if ((size_t)((const char *)addr - nodeshm_rt.seg[s].base) < nodeshm_rt.seg[s].size) return 1;
    return 0;
}
NODESHM_PSHMEM(shmem_addr_accessible)

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
NODESHM_PSHMEM(shmem_ptr)

void shmem_info_get_version(int *major, int *minor)
{
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}
NODESHM_PSHMEM(shmem_info_get_version)

void shmem_info_get_name(char *name)
{
    strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}
NODESHM_PSHMEM(shmem_info_get_name)

void start_pes(int npes)
{
    (void)npes;
    shmem_init();
}
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }
int shmem_initialized(void) { return nodeshm_rt.initialized && !nodeshm_rt.finalized; }
NODESHM_PSHMEM(shmem_initialized)

/* The profiling interface's control call.  The library itself makes no use of it (the
 * specification says so): it only keeps the level, which starts at 1 (profiling on at the
 * default detail, as recommended), for a debugger or a later tool; extra arguments are the
 * profiling library's business and are ignored here. */
static volatile int pcontrol_level = 1;
void shmem_pcontrol(const int level, ...)
{
    pcontrol_level = level;
    nodeshm_debug("shmem_pcontrol: level %d", level);
}
NODESHM_PSHMEM(shmem_pcontrol)

void nodeshm_generic_type_not_supported(void)
{
    NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, "shmem generic call", "type not supported"));
}

/* Deprecated cache management (OpenSHMEM 1.3, still to be supported): there is nothing to do on
 * cache-coherent hardware, which is all that nodeshm runs on. */
void shmem_clear_cache_inv(void) {}
NODESHM_PSHMEM(shmem_clear_cache_inv)
void shmem_set_cache_inv(void) {}
NODESHM_PSHMEM(shmem_set_cache_inv)
void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
NODESHM_PSHMEM(shmem_clear_cache_line_inv)
void shmem_set_cache_line_inv(void *dest) { (void)dest; }
NODESHM_PSHMEM(shmem_set_cache_line_inv)
void shmem_udcflush(void) {}
NODESHM_PSHMEM(shmem_udcflush)
void shmem_udcflush_line(void *dest) { (void)dest; }
NODESHM_PSHMEM(shmem_udcflush_line)
