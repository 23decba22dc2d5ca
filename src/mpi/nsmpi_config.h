/* libnodeshm_mpi: settings from the environment (or the tuning file), read once at MPI_Init
 * (internal).
 *
 *   NODESHM_MPI_DISABLE=barrier,bcast,... | all     ops left to the MPI library
 *   NODESHM_MPI_<OP>_MAX                           largest message accelerated (bytes, k/m suffix;
 *                                                  what "message" means is said per op below)
 *   NODESHM_MPI_STAGE_MAX                          between nodes: leaders' staging bytes cap
 *   NODESHM_PES_PER_NODE, NODESHM_SPIN_COUNT       as for the OpenSHMEM side
 * Every rank must see the same values (mpiexec passes the environment to all). */
#ifndef NODESHM_MPI_CONFIG_H
#define NODESHM_MPI_CONFIG_H

#include <stddef.h>

/* X(ID, name, default NODESHM_MPI_<NAME>_MAX in bytes): one row per intercepted collective.
 * Defaults are measured (see each op's file); 0 leaves the op to the MPI library. */
#define NSM_OPS(X)                                                                                 \
    X(BARRIER, barrier, 0)                     /* no size */                                      \
    X(BCAST, bcast, 0)                         /* message bytes; off: see bcast.c */               \
    X(GATHER, gather, 32 * 1024)               /* bytes per rank */                                \
    X(GATHERV, gatherv, 0)                     /* largest bytes from one rank */                   \
    X(SCATTER, scatter, 0)                     /* bytes per rank */                                \
    X(SCATTERV, scatterv, 0)                   /* largest bytes to one rank */                     \
    X(ALLGATHER, allgather, 0)                 /* bytes per rank */                                \
    X(ALLGATHERV, allgatherv, 0)               /* largest bytes from one rank */                   \
    X(REDUCE, reduce, 0)                       /* message bytes */                                 \
    X(ALLREDUCE, allreduce, 128 * 1024)        /* message bytes */                                 \
    X(REDUCE_SCATTER_BLOCK, reduce_scatter_block, 0) /* bytes of the whole vector */              \
    X(ALLTOALL, alltoall, 0)                   /* bytes per rank pair */                           \
    X(ALLTOALLV, alltoallv, 0)                 /* largest bytes of one rank pair */

enum {
#define NSM_OP_ID(id, name, dflt) NSM_OP_##id,
    NSM_OPS(NSM_OP_ID)
#undef NSM_OP_ID
    NSM_OP_COUNT
};

typedef struct nsm_config {
    int off[NSM_OP_COUNT];
    size_t max[NSM_OP_COUNT]; /* NODESHM_MPI_<OP>_MAX */
    int all_off;
    size_t stage_max;
    int pes_per_node;   /* 0: physical nodes */
    int spin_count;     /* -1: automatic */
    int loaded;
} nsm_config_t;

extern nsm_config_t nsm_cfg;
void nsm_load_config(void);
void nsm_setup_keyval(void);
void nsm_finalize_states(void);

/* An op's threshold, or 0 when it is switched off: the one test every op makes first. */
static inline size_t nsm_op_max(int op) { return nsm_cfg.off[op] ? 0 : nsm_cfg.max[op]; }

#endif
