/* libnodeshm_mpi: MPI_Init / MPI_Init_thread / MPI_Finalize interception and settings. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi/nsmpi.h"
#include "mpi/nsmpi_config.h"
#include "core/tuning.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The thresholds' defaults and their measurements: NSM_OPS and NSM_OP_MINS in nsmpi_config.h. */
#define NSM_DEFAULT_STAGE_MAX (4 * 1024 * 1024)
/* A communicator's buffer banks: 2 x (1 + 8) MiB at 8 ranks with 1 MiB thresholds, so the
 * defaults are scaled down only from about 32 ranks per node */
#define NSM_DEFAULT_WINDOW_MAX (64 * 1024 * 1024)

static void nsm_bad_env(const char *name, const char *value)
{
    fprintf(stderr, "nodeshm_mpi: bad value %s=\"%s\"\n", name, value);
    exit(1);
}

static size_t nsm_env_size(const char *name, size_t fallback)
{
    const char *v = nodeshm_getenv(name);
    if (!v) return fallback;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (end == v || errno || *v == '-') nsm_bad_env(name, v);
    switch (*end) {
    case 'k': case 'K': x <<= 10; end++; break;
    case 'm': case 'M': x <<= 20; end++; break;
    default: break;
    }
    if (*end == 'b' || *end == 'B') end++;
    if (*end || x > (1ull << 30)) nsm_bad_env(name, v);
    return (size_t)x;
}

static long nsm_env_long(const char *name, long fallback, long lo, long hi)
{
    const char *v = nodeshm_getenv(name);
    if (!v) return fallback;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end || errno || x < lo || x > hi) nsm_bad_env(name, v);
    return x;
}

void nsm_load_config(void)
{
    if (nsm_cfg.loaded) return;
    const char *bad_file = nodeshm_tuning_error(); /* settings may come from a tuning file */
    if (bad_file) {
        fprintf(stderr, "nodeshm_mpi: MPI_Init: %s\n", bad_file);
        exit(1);
    }
    static const char *names[NSM_OP_COUNT] = {
#define NSM_OP_NAME(id, name, mpich, ompi) #name,
        NSM_OPS(NSM_OP_NAME)
#undef NSM_OP_NAME
    };
    static const size_t defaults[NSM_OP_COUNT] = {
#define NSM_OP_DEFAULT(id, name, mpich, ompi) NSM_FLAVOR(mpich, ompi),
        NSM_OPS(NSM_OP_DEFAULT)
#undef NSM_OP_DEFAULT
    };
    const char *dis = nodeshm_getenv("NODESHM_MPI_DISABLE");
    if (dis) {
        char *copy = strdup(dis), *save = NULL;
        for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
            int found = 0;
            if (!strcasecmp(tok, "all")) nsm_cfg.all_off = found = 1;
            for (int i = 0; i < NSM_OP_COUNT; i++)
                if (!strcasecmp(tok, names[i])) nsm_cfg.off[i] = found = 1;
            if (!found) nsm_bad_env("NODESHM_MPI_DISABLE", dis);
        }
        free(copy);
    }
    for (int i = 0; i < NSM_OP_COUNT; i++) {
        char var[64];
        snprintf(var, sizeof var, "NODESHM_MPI_%s_MAX", names[i]);
        for (char *c = var; *c; c++) *c = (char)toupper((unsigned char)*c);
        nsm_cfg.max[i] = nsm_env_size(var, defaults[i]);
    }
    /* lower bounds: only the ops of NSM_OP_MINS have one */
    for (int i = 0; i < NSM_OP_COUNT; i++) nsm_cfg.min[i] = (size_t)-1;
#define NSM_OP_MIN_DEFAULT(id, mpich, ompi) nsm_cfg.min[NSM_OP_##id] = NSM_FLAVOR(mpich, ompi);
    NSM_OP_MINS(NSM_OP_MIN_DEFAULT)
#undef NSM_OP_MIN_DEFAULT
    for (int i = 0; i < NSM_OP_COUNT; i++) {
        if (nsm_cfg.min[i] == (size_t)-1) {
            nsm_cfg.min[i] = 0;
            continue;
        }
        char var[64];
        snprintf(var, sizeof var, "NODESHM_MPI_%s_MIN", names[i]);
        for (char *c = var; *c; c++) *c = (char)toupper((unsigned char)*c);
        nsm_cfg.min_everywhere[i] = nodeshm_getenv(var) != NULL;
        nsm_cfg.min[i] = nsm_env_size(var, nsm_cfg.min[i]);
        /* until nsm_scope_mins knows MPI_COMM_WORLD's nodes, a default bound is checked only
         * after the state lookup */
        nsm_cfg.min_pre[i] = nsm_cfg.min_everywhere[i] ? nsm_cfg.min[i] : 0;
    }
    nsm_cfg.stage_max = nsm_env_size("NODESHM_MPI_STAGE_MAX", NSM_DEFAULT_STAGE_MAX);
    nsm_cfg.window_max = nsm_env_size("NODESHM_MPI_WINDOW_MAX", NSM_DEFAULT_WINDOW_MAX);
    nsm_cfg.pes_per_node = (int)nsm_env_long("NODESHM_PES_PER_NODE", 0, 1, 1L << 20);
    nsm_cfg.spin_count = (int)nsm_env_long("NODESHM_SPIN_COUNT", -1, 0, 1L << 30);
    nsm_cfg.banks = (int)nsm_env_long("NODESHM_MPI_BANKS", 2, 1, 2);
    nsm_cfg.ring_depth = (int)nsm_env_long("NODESHM_MPI_RING", 256, 0, 65536);
    /* 4 KiB, not 1: between 1 and 4 KiB the banks made a root wait for its readers every other
     * call (MPICH 2 ranks bcast 2-4 KiB 0.92-0.99x of MPICH's own; with the 4 KiB ring 1.40-1.66x;
     * 4-8 ranks, both MPIs, bcast/gather/scatter/reduce at 2-4 KiB 1.0-3.5x -> 3.5-12x); the
     * ring budget then holds 256 calls up to 2 ranks, ~200 at 4, ~115 at 8 */
    nsm_cfg.ring_bytes = nsm_env_size("NODESHM_MPI_RING_BYTES", 4096);
    nsm_cfg.loaded = 1;
}

/* The default lower bounds hold only for communicators with at most 2 ranks on every node
 * (NSM_OP_MINS).  When MPI_COMM_WORLD has no more, no communicator has: the bounds can then be
 * checked before any state lookup, so that a small call left to the MPI library costs no
 * attribute lookup.  Collective: at MPI_Init. */
void nsm_scope_mins(void)
{
    int needed = 0;
    for (int i = 0; i < NSM_OP_COUNT; i++) needed |= !nsm_cfg.min_everywhere[i] && nsm_cfg.min[i] > 0;
    if (!needed || nsm_cfg.all_off) return;
    MPI_Comm node;
    int node_size, largest;
    nsm_split_node(MPI_COMM_WORLD, &node, NULL);
    PMPI_Comm_size(node, &node_size);
    PMPI_Comm_free(&node);
    PMPI_Allreduce(&node_size, &largest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < NSM_OP_COUNT; i++)
        if (nsm_cfg.min_everywhere[i] || largest <= 2) nsm_cfg.min_pre[i] = nsm_cfg.min[i];
}

int MPI_Init(int *argc, char ***argv)
{
    nsm_load_config();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        nsm_setup_keyval();
        nsm_scope_mins();
    }
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    nsm_load_config();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        nsm_setup_keyval();
        nsm_scope_mins();
    }
    return rc;
}

int MPI_Finalize(void)
{
    nsm_finalize_states();
    return PMPI_Finalize();
}
