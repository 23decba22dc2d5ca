/* libnodeshm_mpi: MPI_Init / MPI_Init_thread / MPI_Finalize interception and settings. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi/nsmpi.h"
#include "mpi/nonblocking.h"
#include "core/lock.h"
#include "mpi/nsmpi_config.h"
#include "core/env.h"
#include "core/tuning.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The thresholds' defaults and their measurements: NSM_OPS and NSM_OP_MINS in nsmpi_config.h. */
#define NSM_DEFAULT_STAGE_MAX (4 * 1024 * 1024)
/* A communicator's buffer banks: 2 x (1 + 8) MiB at 8 ranks with 1 MiB thresholds, so the
 * defaults are scaled down only from about 32 ranks per node */
#define NSM_DEFAULT_WINDOW_MAX (64 * 1024 * 1024)

/* Sizes the ops may use: blocks and buffers reach the MPI library as int counts
 * (PMPI_Type_contiguous, PMPI_Pack) and are multiplied by ranks squared in the matrices of
 * alltoall(v).  A threshold or budget above it is clamped, not rejected: "more than can be used"
 * means "all that can be" (NODESHM_DEBUG says so). */
#define NSM_SIZE_LIMIT ((size_t)1 << 30)

/* A bad setting: reported by the core's reader already.  Before PMPI_Init nothing is shared
 * yet and every rank sees the same settings: each ends alone.  Later (the settings are first
 * read by a collective when MPI_Init was not intercepted) the job is ended as a whole. */
static _Noreturn void nsm_bad_setting(void)
{
    int up = 0, down = 0;
    if (PMPI_Initialized(&up) == MPI_SUCCESS && up && PMPI_Finalized(&down) == MPI_SUCCESS && !down)
        nodeshm_abort_job(1);
    exit(1);
}

static size_t nsm_size(const char *name, size_t fallback, size_t limit)
{
    size_t v;
    int clamped;
    if (nodeshm_setting_size(&nodeshm_face_mpi, name, fallback, limit, &v, &clamped)) nsm_bad_setting();
    if (clamped)
        nodeshm_debug_as(&nodeshm_face_mpi, -1, "MPI_Init: %s='%s' clamped to %zu bytes", name,
                         nodeshm_getenv(name), v);
    return v;
}

static long nsm_long(const char *name, long fallback, long lo, long hi)
{
    long v;
    if (nodeshm_setting_long(&nodeshm_face_mpi, name, fallback, lo, hi, &v)) nsm_bad_setting();
    return v;
}

void nsm_load_config(void)
{
    if (nsm_cfg.loaded) return;
    static const size_t defaults[NSM_OP_COUNT][NSM_SHAPES] = {NSM_OPS(NSM_MAX_ROW)};
    int off[NSM_OP_COUNT + 1] = {0};
    if (nodeshm_setting_words(&nodeshm_face_mpi, "NODESHM_MPI_DISABLE", nsm_op_names, NSM_OP_COUNT + 1, off))
        nsm_bad_setting();
    nsm_cfg.all_off = off[NSM_OP_COUNT];
    for (int i = 0; i < NSM_OP_COUNT; i++) nsm_cfg.off[i] = off[i];
    for (int i = 0; i < NSM_OP_COUNT; i++) {
        char var[64];
        nsm_op_var(var, sizeof var, i, "MAX");
        /* unset: the shape decides (nsm_op_max_at); the bound before the state lookup is the
         * largest default of any shape */
        size_t largest = 0;
        for (int k = 0; k < NSM_SHAPES; k++) {
            nsm_cfg.max_shape[i][k] = defaults[i][k];
            if (defaults[i][k] > largest) largest = defaults[i][k];
        }
        nsm_cfg.max_set[i] = nodeshm_getenv(var) != NULL;
        nsm_cfg.max[i] = nsm_size(var, largest, NSM_SIZE_LIMIT);
    }
    /* lower bounds by shape: only the ops of NSM_OP_MINS have one */
    static const size_t min_defaults[NSM_OP_COUNT][NSM_SHAPES + 1] = {NSM_OP_MINS(NSM_MIN_ROW)};
    for (int i = 0; i < NSM_OP_COUNT; i++) {
        size_t largest = 0;
        for (int k = 0; k < NSM_SHAPES; k++) {
            nsm_cfg.min_shape[i][k] = min_defaults[i][k];
            if (min_defaults[i][k] > largest) largest = min_defaults[i][k];
        }
        nsm_cfg.min[i] = largest;
        if (!min_defaults[i][NSM_SHAPES]) continue; /* not a row of NSM_OP_MINS: no bound */
        char var[64];
        nsm_op_var(var, sizeof var, i, "MIN");
        nsm_cfg.min_everywhere[i] = nodeshm_getenv(var) != NULL;
        /* a bound is only compared, never allocated: no limit */
        nsm_cfg.min[i] = nsm_size(var, largest, (size_t)-1);
        /* until nsm_scope_node knows MPI_COMM_WORLD's nodes, a default bound is checked only
         * after the state lookup */
        nsm_cfg.min_pre[i] = nsm_cfg.min_everywhere[i] ? nsm_cfg.min[i] : 0;
    }
    nsm_cfg.stage_max = nsm_size("NODESHM_MPI_STAGE_MAX", NSM_DEFAULT_STAGE_MAX, NSM_SIZE_LIMIT);
    /* a budget, only compared (the window holds what the clamped thresholds need) */
    nsm_cfg.window_max = nsm_size("NODESHM_MPI_WINDOW_MAX", NSM_DEFAULT_WINDOW_MAX, (size_t)-1);
    nsm_cfg.pes_per_node = (int)nsm_long("NODESHM_PES_PER_NODE", 0, 1, 1L << 20);
    /* checked here so that a bad value stops MPI_Init; core/wait.c reads it (nsm_scope_node) */
    (void)nsm_long("NODESHM_SPIN_COUNT", 0, 0, 1L << 30);
    nsm_cfg.banks = (int)nsm_long("NODESHM_MPI_BANKS", 2, 1, 2);
    nsm_cfg.ring_depth = (int)nsm_long("NODESHM_MPI_RING", 256, 0, 65536);
    /* 4 KiB, not 1: between 1 and 4 KiB the banks made a root wait for its readers every other
     * call (MPICH 2 ranks bcast 2-4 KiB 0.92-0.99x of MPICH's own; with the 4 KiB ring 1.40-1.66x;
     * 4-8 ranks, both MPIs, bcast/gather/scatter/reduce at 2-4 KiB 1.0-3.5x -> 3.5-12x); the
     * ring budget then holds 256 calls up to 2 ranks, ~200 at 4, ~115 at 8 */
    nsm_cfg.ring_bytes = nsm_size("NODESHM_MPI_RING_BYTES", 4096, NSM_SIZE_LIMIT);
    if (nsm_stats_load()) nsm_bad_setting();
    nsm_cfg.loaded = 1;
}

/* ---------------------------------------------------------------- NODESHM_DEBUG */

/* "32k", "1536k", "3m", or plain bytes: the shortest exact form, as the variables take it */
static const char *nsm_size_text(size_t v, char *buf, size_t len)
{
    int u = 0;
    while (v && v % 1024 == 0 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, "%zu%s", v, u ? (const char *[]){"k", "m", "g", "t"}[u - 1] : "");
    return buf;
}

/* One line per op: the window [MIN, MAX] in force and where each bound comes from.  Rank 0
 * only: every rank must see the same settings. */
static void nsm_debug_config(void)
{
    int rank = 0;
    if (!nodeshm_debug_enabled()) return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) return;
    char a[32], b[32], var[64];
    nodeshm_debug_as(&nodeshm_face_mpi, rank,
                     "MPI_Init: %s defaults; NODESHM_MPI_STAGE_MAX=%s, NODESHM_MPI_WINDOW_MAX=%s, "
                     "NODESHM_MPI_BANKS=%d, NODESHM_MPI_RING=%d, NODESHM_MPI_RING_BYTES=%s%s%s",
                     NODESHM_MPI_DEFAULTS_NAME, nsm_size_text(nsm_cfg.stage_max, a, sizeof a),
                     nsm_size_text(nsm_cfg.window_max, b, sizeof b), nsm_cfg.banks, nsm_cfg.ring_depth,
                     nsm_size_text(nsm_cfg.ring_bytes, var, sizeof var),
                     nodeshm_tuning_path() ? "; tuning file " : "",
                     nodeshm_tuning_path() ? nodeshm_tuning_path() : "");
    for (int i = 0; i < NSM_OP_COUNT; i++) {
        if (nsm_cfg.all_off || nsm_cfg.off[i] || !nsm_cfg.max[i]) {
            nodeshm_debug_as(&nodeshm_face_mpi, rank, "MPI_Init: %s: to the MPI library (%s)", nsm_op_names[i],
                             nsm_cfg.all_off || nsm_cfg.off[i] ? "NODESHM_MPI_DISABLE"
                             : (nsm_op_var(var, sizeof var, i, "MAX"), nodeshm_getenv(var)) ? "MAX set to 0"
                                                                                         : "MAX default 0");
            continue;
        }
        char shapes[320] = "";
        if (!nsm_cfg.max_set[i]) {
            char c[NSM_SHAPES][24];
            for (int k = 0; k < NSM_SHAPES; k++) nsm_size_text(nsm_cfg.max_shape[i][k], c[k], sizeof c[k]);
            snprintf(shapes, sizeof shapes, "; one node of 2 ranks: %s, 3-4: %s, 5 and more: %s; several nodes "
                     "of up to 2 ranks: %s, 3-4: %s, 5 and more: %s", c[0], c[1], c[2], c[3], c[4], c[5]);
        }
        const char *max_from = nsm_cfg.max_set[i] ? "set" : "default";
        char min_from[224] = "set, on every communicator";
        if (!nsm_cfg.min_everywhere[i]) {
            char c[NSM_SHAPES][24];
            for (int k = 0; k < NSM_SHAPES; k++) nsm_size_text(nsm_cfg.min_shape[i][k], c[k], sizeof c[k]);
            snprintf(min_from, sizeof min_from, !nsm_cfg.min[i] ? "default" : "default, the largest by shape: "
                     "one node of 2 ranks %s, 3-4 %s, 5+ %s; several nodes of up to 2 %s, 3-4 %s, 5+ %s",
                     c[0], c[1], c[2], c[3], c[4], c[5]);
        }
        nodeshm_debug_as(&nodeshm_face_mpi, rank, "MPI_Init: %s: accelerated from %s (%s) to %s (%s) bytes%s",
                         nsm_op_names[i], nsm_size_text(nsm_cfg.min[i], a, sizeof a), min_from,
                         nsm_size_text(nsm_cfg.max[i], b, sizeof b), max_from, shapes);
    }
}

/* Once per communicator, at its first call that could be accelerated, on its rank 0: its shape
 * and the thresholds in force there, after NODESHM_MPI_WINDOW_MAX scaled them down. */
void nsm_debug_state(const nsm_state_t *s)
{
    if (s->rank != 0 || !nodeshm_debug_enabled()) return;
    char name[MPI_MAX_OBJECT_NAME] = "", line[1024];
    int len = 0, least = s->size, most = 0;
    PMPI_Comm_get_name(s->comm, name, &len);
    for (int k = 0; k < s->n_nodes; k++) {
        if (s->node_count[k] < least) least = s->node_count[k];
        if (s->node_count[k] > most) most = s->node_count[k];
    }
    int n = snprintf(line, sizeof line, "communicator %s%s%d ranks, %d node%s, %d-%d ranks per node", name,
                     *name ? ": " : "", s->size, s->n_nodes, s->n_nodes == 1 ? "" : "s", least, most);
    if (!s->active) {
        nodeshm_debug_as(&nodeshm_face_mpi, -1, "%s: not accelerated (%s)", line,
                         s->max_node_size <= 1 ? "one rank per node" : "no shared memory or leaders communicator");
        return;
    }
    char a[32], b[32];
    n += snprintf(line + n, sizeof line - (size_t)n, "; window %s bytes per node (%d bank%s of %s%s)",
                  nsm_size_text(nodeshm_area_bytes(&s->area, s->node_size), a, sizeof a), s->area.banks.n,
                  s->area.banks.n == 1 ? "" : "s", nsm_size_text(s->area.banks.bank_bytes, b, sizeof b),
                  s->area.ring.depth ? ", a ring of small ones" : "");
    int halved = 0;
    for (int i = 0; i < NSM_OP_COUNT; i++)
        if (s->max[i] < nsm_op_max_at(i, s->max_node_size, s->n_nodes)) halved = 1;
    nodeshm_debug_as(&nodeshm_face_mpi, -1, "%s%s", line,
                     halved ? "; thresholds halved to fit NODESHM_MPI_WINDOW_MAX" : "");
    n = snprintf(line, sizeof line, "communicator %s%sthresholds (min-max bytes):", name, *name ? ": " : "");
    for (int i = 0; i < NSM_OP_COUNT && n < (int)sizeof line; i++) {
        if (!s->max[i]) continue;
        size_t max = i == NSM_OP_ALLTOALLV ? nsm_a2av_stride(s) : s->max[i];
        n += snprintf(line + n, sizeof line - (size_t)n, " %s %s-%s", nsm_op_names[i],
                      nsm_size_text(s->min[i], a, sizeof a), nsm_size_text(max, b, sizeof b));
    }
    nodeshm_debug_as(&nodeshm_face_mpi, -1, "%s", line);
}

/* What MPI_COMM_WORLD's nodes tell, at MPI_Init (collective):
 * - the wait policy (core/wait.h, shared with the OpenSHMEM face): ranks that outnumber the
 *   CPUs of their machine yield almost at once, since the rank waited for may need the core
 *   (shmem_init, when the program calls it, configures it again for its PEs);
 * - the default lower bounds depend on the shape (NSM_OP_MINS); no communicator has more ranks
 *   per node, or nodes, than MPI_COMM_WORLD, so the smallest default of those shapes can be
 *   checked before any state lookup, and a small call left to the MPI library costs no
 *   attribute lookup. */
static int nsm_wait_set;

void nsm_wait_policy(int oversubscribed)
{
    if (!__atomic_exchange_n(&nsm_wait_set, 1, __ATOMIC_ACQ_REL))
        nodeshm_wait_configure(oversubscribed, 0, nodeshm_wait_needs_progress); /* no leader's release waits here */
}

void nsm_scope_node(void)
{
    if (nsm_cfg.all_off) return;
    MPI_Comm node;
    int node_size, node_rank, largest, nodes, machine, cpus;
    if (nsm_split_node(MPI_COMM_WORLD, &node, NULL) != MPI_SUCCESS) return;
    PMPI_Comm_size(node, &node_size);
    PMPI_Comm_rank(node, &node_rank);
    PMPI_Comm_free(&node);
    /* the machine's ranks, not the node's: on 2 emulated hosts x 2 ranks of a 2-core machine
     * a waiter that spun as if it had a core of its own kept it from the rank it waited for */
    nodeshm_topology_machine(MPI_COMM_WORLD, &machine, &cpus);
    nsm_wait_policy(machine > cpus);
    PMPI_Allreduce(&node_size, &largest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int leader = node_rank == 0;
    PMPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* a communicator has at most as many ranks per node, and nodes, as MPI_COMM_WORLD: the
     * smallest default bound of those shapes holds for all of them */
    for (int i = 0; i < NSM_OP_COUNT; i++) {
        if (nsm_cfg.min_everywhere[i]) continue;
        size_t least = (size_t)-1;
        for (int per = 1; per <= largest && per <= 5; per++)
            for (int n = 1; n <= nodes && n <= 2; n++) {
                size_t m = nsm_op_min_at(i, per, n);
                if (m < least) least = m;
            }
        nsm_cfg.min_pre[i] = least == (size_t)-1 ? 0 : least;
    }
}

/* After the library's init, on every rank (MPI_Init is collective over MPI_COMM_WORLD, so the
 * setup collectives may run here).  MPI_COMM_WORLD gets its state now, not at its first blocking
 * collective: a non-blocking or persistent op cannot make one (setup is collective and a start
 * must not wait for peers), so those started before any blocking collective on it went to the
 * library (reason "setup").  Switched off (NODESHM_MPI_DISABLE=all), nothing is made.  Also
 * the Fortran MPI_INIT's (fortran.c), where the MPI's own Fortran routine bypasses ours. */
void nsm_after_init(void)
{
    /* no two threads in MPI at once below MPI_THREAD_MULTIPLE: the core's locks need no mutex */
    int level = MPI_THREAD_MULTIPLE;
    if (PMPI_Query_thread(&level) == MPI_SUCCESS && level < MPI_THREAD_MULTIPLE) nodeshm_lock_single_thread();
    nsm_setup_keyval();
    nsm_setup_p2p();
    nsm_scope_node();
    nsm_debug_config();
    if (nsm_stats_open()) nsm_bad_setting();
    if (!nsm_cfg.all_off) (void)nsm_get_state(MPI_COMM_WORLD);
}

int MPI_Init(int *argc, char ***argv)
{
    nsm_load_config();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) nsm_after_init();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    nsm_load_config();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) nsm_after_init();
    return rc;
}

int MPI_Finalize(void)
{
    nsm_stats_report(); /* collective, while MPI runs */
    nsm_finalize_states();
    nsm_nb_forget_kept();
    return PMPI_Finalize();
}
