/* nodeshm core: bringing the runtime up and down. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "core/runtime.h"
#include "core/access.h"
#include "core/coll.h"
#include "core/copy_engine.h"
#include "core/dataseg.h"
#include "core/env.h"
#include "core/node_barrier.h"
#include "core/remote.h"
#include "core/wait.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

nodeshm_runtime_t nodeshm_rt = {.my_pe = -1};

/* 1 GiB by default: the segment is a sparse file mapped with MAP_NORESERVE, so only the pages a
 * program touches cost memory. */
#define NODESHM_VERSION_STRING "0.1.0"

#define DEFAULT_HEAP_BYTES ((size_t)1 << 30)

int nodeshm_bad_target(const char *call, const char *what, const void *addr, size_t len, int pe)
{
    if (!nodeshm_rt.initialized || nodeshm_rt.finalized) return nodeshm_require_init(call);
    if ((unsigned)pe >= (unsigned)nodeshm_rt.n_pes)
        return nodeshm_report(NODESHM_ERR_ARG, call, "invalid PE %d (valid PEs are 0 to %d)", pe,
                              nodeshm_rt.n_pes - 1);
    return nodeshm_report(NODESHM_ERR_ARG, call,
                          "%s %p (%zu bytes) is not symmetric: not within the symmetric heap "
                          "[%p, +%zu) or the data segment [%p, +%zu)",
                          what, addr, len, (void *)nodeshm_user_heap_base(), nodeshm_rt.heap_size,
                          (void *)nodeshm_rt.seg[NODESHM_SEG_DATA].base,
                          nodeshm_rt.seg[NODESHM_SEG_DATA].size);
}

int nodeshm_require_init(const char *call)
{
    if (nodeshm_rt.initialized && !nodeshm_rt.finalized) return NODESHM_OK;
    return nodeshm_report(NODESHM_ERR_ARG, call, "called %s shmem_init",
                          nodeshm_rt.finalized ? "after shmem_finalize, without a new" : "before");
}

/* All PEs must agree before going on: a failure on one PE fails init everywhere. */
static int agree(int rc)
{
    int ok = rc == NODESHM_OK, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, nodeshm_rt.topo.world);
    return all ? NODESHM_OK : (rc ? rc : NODESHM_ERR_SYSTEM);
}

static int setup_data_segment(int method)
{
    void *start;
    size_t size;
    nodeshm_dataseg_range(&start, &size);
    /* SPMD: every PE runs the same executable, so sizes agree; check, since MPMD launches exist */
    unsigned long mine = size, lo = 0, hi = 0;
    MPI_Allreduce(&mine, &lo, 1, MPI_UNSIGNED_LONG, MPI_MIN, nodeshm_rt.topo.world);
    MPI_Allreduce(&mine, &hi, 1, MPI_UNSIGNED_LONG, MPI_MAX, nodeshm_rt.topo.world);
    if (lo != hi) {
        nodeshm_debug("data segments differ between PEs (%lu..%lu bytes): globals are not symmetric",
                      lo, hi);
        start = NULL;
        size = 0;
    }
    int rc = nodeshm_segment_create(&nodeshm_rt.topo, method, size, start, 0, 0, "nodeshm-data",
                                    &nodeshm_rt.seg[NODESHM_SEG_DATA]);
    nodeshm_debug("data segment %p, %zu bytes", start, size);
    return rc;
}

static int env_set(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* SHMEM_VERSION and SHMEM_INFO (OpenSHMEM environment variables), printed by PE 0 */
static void print_banner(void)
{
    if (env_set("SHMEM_VERSION") || env_set("SHMEM_INFO"))
        printf("nodeshm %s: OpenSHMEM %d.%d over node-shared memory and MPI\n", NODESHM_VERSION_STRING,
               1, 6); /* shmem.h's SHMEM_MAJOR/MINOR_VERSION: the core does not include a face */
    if (env_set("SHMEM_INFO")) {
        printf("  PEs %d, nodes %d, PEs per node %d%s\n", nodeshm_rt.n_pes, nodeshm_rt.topo.n_nodes,
               nodeshm_rt.topo.node_n_pes, getenv("NODESHM_PES_PER_NODE") ? " (pseudo-nodes)" : "");
        printf("  SHMEM_SYMMETRIC_SIZE   symmetric heap per PE, bytes (k/m/g/t suffixes): %zu\n",
               nodeshm_rt.heap_size);
        printf("  SHMEM_DEBUG            debugging messages on stderr: %s\n",
               nodeshm_debug_enabled() ? "on" : "off");
        printf("  SHMEM_VERSION          print the library version at start-up\n");
        printf("  SHMEM_INFO             print this help at start-up\n");
        printf("  NODESHM_PES_PER_NODE   cut nodes into pseudo-nodes of k PEs (tests the MPI path)\n");
        printf("  NODESHM_SPIN_COUNT     spins before a waiting PE yields its core: %u\n",
               nodeshm_spin_limit);
        printf("  NODESHM_POLLS_PER_YIELD  job across nodes: MPI polls between yields after the "
               "spin: %u\n", nodeshm_polls_per_yield);
        printf("  NODESHM_COLL_EAGER_MAX broadcast/collect/alltoall: staged copy up to this many bytes, "
               "readers pull from the source above (default 4k, at most 64k)\n");
        printf("  NODESHM_CMA, NODESHM_XPMEM  0 switches a single-copy engine off (probed at start-up)\n");
        printf("  NODESHM_TUNING         tuning file (NAME=value lines; default "
               "~/.config/nodeshm/tuning.conf): `nodeshm-bench report` writes one\n");
        printf("  NODESHM_DEBUG          same as SHMEM_DEBUG\n");
    }
    fflush(stdout);
}

/* Open MPI 4.x gives windows between nodes to osc/pt2pt, which refuses MPI_THREAD_MULTIPLE
 * (MPI_Win_create then aborts the job); the alternatives are worse here: osc/rdma segfaults in
 * vader's emulated compare-and-swap and osc/ucx hangs without target progress, so oshrun leaves
 * both out. A job that will span nodes (or pseudo-nodes) therefore asks MPI for SERIALIZED at
 * most. Open MPI's launcher tells every process the job's shape before MPI_Init. */
#if defined(OPEN_MPI) && OPEN_MPI && defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
#define NODESHM_RMA_NO_THREAD_MULTIPLE 1
#else
#define NODESHM_RMA_NO_THREAD_MULTIPLE 0
#endif

static int will_span_nodes(void)
{
    const char *world = getenv("OMPI_COMM_WORLD_SIZE"), *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    const char *per_node = getenv("NODESHM_PES_PER_NODE");
    long n_world = world ? atol(world) : 0, n_local = local ? atol(local) : 0;
    long k = per_node ? atol(per_node) : 0;
    if (n_world <= 0 || n_local <= 0) return 0; /* unknown: checked again once MPI is up */
    return n_local < n_world || (k > 0 && k < n_local);
}

/* Between nodes Open MPI's osc/rdma (over btl sm or tcp, which have no atomics of their own) does
 * a PE's atomics in the target PE's MPI progress.  Where Open MPI yields the CPU while waiting
 * (oversubscribed), it calls sched_yield, and Linux's EEVDF scheduler (6.6+) pushes the caller's
 * deadline one time slice further at every call: a PE polling in MPI_Barrier fell to 1-2% of a
 * core while its peers' atomics waited for its progress (ctx16 and spec16 at 1-2 PEs per
 * pseudo-node, 2 cores, two jobs side by side: 20-240 s instead of 1 s, one run in three).
 * Open MPI can yield by a 1 ns nanosleep instead, which carries no such penalty.  Not for
 * single-node jobs: there it costs MPI's own waits (oversubscribed Open MPI tests took twice as
 * long), and nothing needs a target's progress.  A user's setting wins. */
static void ompi_yield_by_sleep(void)
{
#if defined(OPEN_MPI) && OPEN_MPI
    setenv("OMPI_MCA_threads_pthreads_yield_strategy", "nanosleep", 0);
#endif
}

/* MPI cannot start again once finalized, but OpenSHMEM (1.5+) may be initialized again after its
 * last shmem_finalize.  So the MPI that shmem_init started is finalized at exit, not by
 * shmem_finalize: a later shmem_init finds it up and reuses it.  Only after a completed
 * shmem_finalize: a program that never finalizes leaves MPI as it always did. */
static void finalize_mpi_at_exit(void)
{
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (nodeshm_rt.owns_mpi && nodeshm_rt.finalized && up && !down) MPI_Finalize();
}

int nodeshm_runtime_init(const char *call, int requested_thread_level, int *provided)
{
    nodeshm_runtime_t *rt = &nodeshm_rt;
    if (rt->initialized && !rt->finalized) {
        /* a nested init: counted, so that only the matching last finalize releases resources */
        rt->init_count++;
        if (provided) *provided = rt->thread_level;
        return NODESHM_OK;
    }
    int mpi_up = 0, mpi_down = 0;
    MPI_Initialized(&mpi_up);
    MPI_Finalized(&mpi_down);
    if (mpi_down)
        return nodeshm_report(NODESHM_ERR_ARG, call, "MPI is already finalized: cannot start again");
    static const int mpi_levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED,
                                     MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE};
    int mpi_provided, capped = 0; /* MULTIPLE asked for, SERIALIZED asked of MPI */
    if (!mpi_up) {
        void *data;
        size_t data_size;
        nodeshm_dataseg_range(&data, &data_size);
        int prc = nodeshm_segment_prepare_fixed(data, data_size, "nodeshm-data");
        if (prc) return prc;
        int spans = will_span_nodes();
        capped = NODESHM_RMA_NO_THREAD_MULTIPLE &&
                 mpi_levels[requested_thread_level] == MPI_THREAD_MULTIPLE && spans;
        if (spans) ompi_yield_by_sleep();
        MPI_Init_thread(NULL, NULL, capped ? MPI_THREAD_SERIALIZED : mpi_levels[requested_thread_level],
                        &mpi_provided);
        rt->owns_mpi = 1;
        atexit(finalize_mpi_at_exit);
    } else {
        MPI_Query_thread(&mpi_provided);
    }
    int level = 0;
    for (int i = 0; i < 4; i++)
        if (mpi_levels[i] == mpi_provided) level = i;
    rt->thread_level = level < requested_thread_level ? level : requested_thread_level;
    if (provided) *provided = rt->thread_level;

    int rc = nodeshm_topology_create(MPI_COMM_WORLD, &rt->topo);
    rt->my_pe = rt->topo.my_pe;
    rt->n_pes = rt->topo.n_pes;
    rt->spans_nodes = rt->topo.n_nodes > 1;
    rt->atomics_via_mpi = rt->spans_nodes;
    if (rc == NODESHM_OK && NODESHM_RMA_NO_THREAD_MULTIPLE && rt->spans_nodes &&
        mpi_provided == MPI_THREAD_MULTIPLE)
        rc = nodeshm_report(NODESHM_ERR_MPI, call,
                            "MPI runs at MPI_THREAD_MULTIPLE and the job spans %d nodes: Open MPI "
                            "4.x cannot create RMA windows between nodes at that level (osc/pt2pt "
                            "refuses it); initialize MPI with MPI_THREAD_SERIALIZED, or use Open "
                            "MPI >= 5 or MPICH", rt->topo.n_nodes);
    rc = agree(rc);
    if (rc) return rc;

    size_t heap = 0;
    rc = nodeshm_env_size("SHMEM_SYMMETRIC_SIZE", DEFAULT_HEAP_BYTES, &heap);
    if (rc == NODESHM_OK && heap == 0)
        rc = nodeshm_report(NODESHM_ERR_ENV, call, "invalid SHMEM_SYMMETRIC_SIZE='%s': must be > 0",
                            getenv("SHMEM_SYMMETRIC_SIZE"));
    if (rc == NODESHM_OK) {
        long spins;
        rc = nodeshm_env_long("NODESHM_SPIN_COUNT", 0, 0, 1L << 30, &spins);
        if (rc == NODESHM_OK) rc = nodeshm_env_long("NODESHM_POLLS_PER_YIELD", 1, 1, 1L << 30, &spins);
    }
    if (rc == NODESHM_OK) rc = nodeshm_coll_configure();
    rc = agree(rc);
    if (rc) return rc;
    /* copy engines (CMA, XPMEM): probed once over the node; debug lines say what works */
    rc = agree(nodeshm_copy_probe(call, rt->topo.node, NULL, NULL));
    if (rc) return rc;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    rt->heap_size = (heap + page - 1) & ~(page - 1);
    int oversubscribed = rt->topo.machine_n_pes > rt->topo.cpus_online, any_oversubscribed = 0;
    MPI_Allreduce(&oversubscribed, &any_oversubscribed, 1, MPI_INT, MPI_LOR, rt->topo.world);
    /* crowded: the same value on a machine's PEs, and only a wait's style depends on it */
    nodeshm_wait_configure(any_oversubscribed, rt->topo.machine_n_pes > 2 * rt->topo.cpus_online, rt->spans_nodes);

    int method;
    nodeshm_segment_probe(&rt->topo, &method);
    rc = nodeshm_segment_create(&rt->topo, method, NODESHM_CTRL_BYTES + rt->heap_size, NULL,
                                NODESHM_HEAP_ALIGN, NODESHM_CTRL_BYTES, "nodeshm-heap", &rt->seg[NODESHM_SEG_HEAP]);
    if (rc == NODESHM_OK) rc = setup_data_segment(method);
    if (rc == NODESHM_OK && symheap_create(&rt->heap, rt->heap_size, 64) != SYMHEAP_OK)
        rc = nodeshm_report(NODESHM_ERR_NOMEM, call, "cannot create the heap allocator");
    rc = agree(rc);
    if (rc) return rc;
    rc = agree(nodeshm_remote_init());
    if (rc) return rc;

    rt->initialized = 1;
    rt->finalized = 0;
    rt->init_count = 1;
    rt->generation++;
    if (rt->my_pe == 0) print_banner();
    nodeshm_debug("%d PEs, %d node(s), %d PEs on my node, heap %zu bytes, %d PEs on %d CPUs of "
                  "this machine%s, spin %u, polls per yield %u%s",
                  rt->n_pes, rt->topo.n_nodes, rt->topo.node_n_pes, rt->heap_size,
                  rt->topo.machine_n_pes, rt->topo.cpus_online,
                  nodeshm_wait_oversubscribed ? " (oversubscribed)" : "", nodeshm_spin_limit,
                  nodeshm_polls_per_yield,
                  rt->atomics_via_mpi ? ", atomics through MPI (job spans nodes)" : "");
    if (capped)
        nodeshm_debug("thread level SERIALIZED, not MULTIPLE: Open MPI 4.x cannot create RMA windows "
                      "between nodes under MPI_THREAD_MULTIPLE");
    return nodeshm_world_barrier(call);
}

int nodeshm_runtime_fini(const char *call)
{
    nodeshm_runtime_t *rt = &nodeshm_rt;
    if (!rt->initialized || rt->finalized) return NODESHM_OK;
    int mpi_down = 0;
    MPI_Finalized(&mpi_down);
    if (mpi_down) /* the program finalized MPI first: no collective is possible any more */
        return nodeshm_report(NODESHM_ERR_ARG, call, "called after MPI_Finalize; call shmem_finalize first");
    if (rt->init_count > 1) { /* not the last: a barrier_all, resources stay (OpenSHMEM 1.5+) */
        rt->init_count--;
        int rc = nodeshm_quiet();
        return rc ? rc : nodeshm_world_barrier(call);
    }
    int rc = nodeshm_remote_flush_all();
    if (rc == NODESHM_OK) rc = nodeshm_world_barrier(call);
    nodeshm_remote_fini();
    MPI_Barrier(rt->topo.world); /* nobody unmaps while a peer may still touch its segments */
    for (int s = 0; s < NODESHM_NSEGS; s++) nodeshm_segment_destroy(&rt->seg[s]);
    symheap_destroy(rt->heap);
    rt->heap = NULL;
    nodeshm_copy_fini();
    nodeshm_topology_destroy(&rt->topo);
    rt->finalized = 1;
    rt->initialized = 0;
    rt->init_count = 0;
    /* an MPI we started stays up for a later shmem_init; finalize_mpi_at_exit ends it */
    return rc;
}
