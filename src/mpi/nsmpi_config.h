/* libnodeshm_mpi: settings from the environment (or the tuning file), read once at MPI_Init
 * (internal).
 *
 *   NODESHM_MPI_DISABLE=barrier,bcast,... | all     ops left to the MPI library
 *   NODESHM_MPI_<OP>_MAX                           largest message accelerated (bytes, k/m suffix;
 *                                                  what "message" means is said per op below)
 *   NODESHM_MPI_<OP>_MIN                           smallest message accelerated, for the ops of
 *                                                  NSM_OP_MINS
 *   NODESHM_MPI_STAGE_MAX                          between nodes: leaders' staging bytes cap
 *   NODESHM_MPI_BANKS (2)                          buffer sets: calls a rank may run ahead
 *   NODESHM_MPI_RING (256), NODESHM_MPI_RING_BYTES (1k)  one node, small messages: how many
 *                                                  calls a root may run ahead (at most 4 MiB of
 *                                                  ring per communicator), up to what size
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
    X(GATHERV, gatherv, 0)                     /* bytes of one rank's block; off: see gatherv.c */ \
    X(SCATTER, scatter, 0)                     /* bytes per rank; off: see scatter.c */            \
    X(SCATTERV, scatterv, 0)                   /* bytes of one rank's block; off: see scatter.c */ \
    X(ALLGATHER, allgather, 8 * 1024)          /* bytes per rank; and _MIN (allgather.c) */        \
    X(ALLGATHERV, allgatherv, 8 * 1024)        /* largest block; and _MIN (allgather.c) */         \
    X(REDUCE, reduce, 4 * 1024)                /* message bytes; and _MIN below (reduce.c) */      \
    X(ALLREDUCE, allreduce, 128 * 1024)        /* message bytes */                                 \
    X(REDUCE_SCATTER_BLOCK, reduce_scatter_block, 64 * 1024) /* whole vector (reduce_scatter_block.c) */ \
    X(ALLTOALL, alltoall, 4 * 1024)            /* bytes per rank pair (alltoall.c) */              \
    X(ALLTOALLV, alltoallv, 4 * 1024)          /* largest bytes of one rank pair (alltoall.c) */

/* X(ID, default NODESHM_MPI_<NAME>_MIN in bytes, same unit as _MAX): the smallest message
 * accelerated, for ops whose MPI library is measured faster at small sizes; ops not listed: 0.
 * Only ops whose message size all ranks know can use one (see each op's file). */
#define NSM_OP_MINS(X)                                                                             \
    X(GATHERV, 0)                      /* per block: smaller ones go point to point */            \
    X(SCATTER, 0)                                                                                  \
    X(SCATTERV, 0)                     /* per block: smaller ones go point to point */            \
    X(ALLGATHER, 4 * 1024)                                                                         \
    X(ALLGATHERV, 4 * 1024)                                                                        \
    X(REDUCE, 512)                     /* Open MPI's small reduce pipelines: see reduce.c */

enum {
#define NSM_OP_ID(id, name, dflt) NSM_OP_##id,
    NSM_OPS(NSM_OP_ID)
#undef NSM_OP_ID
    NSM_OP_COUNT
};

typedef struct nsm_config {
    int off[NSM_OP_COUNT];
    size_t max[NSM_OP_COUNT]; /* NODESHM_MPI_<OP>_MAX */
    size_t min[NSM_OP_COUNT]; /* NODESHM_MPI_<OP>_MIN (NSM_OP_MINS) */
    int all_off;
    size_t stage_max;
    int pes_per_node;   /* 0: physical nodes */
    int spin_count;     /* -1: automatic */
    int banks;          /* NODESHM_MPI_BANKS: buffer sets a rank may run ahead into (1 or 2) */
    int ring_depth;     /* NODESHM_MPI_RING: small banks (0: none), one-node communicators */
    size_t ring_bytes;  /* NODESHM_MPI_RING_BYTES: their result area and slot size */
    int loaded;
} nsm_config_t;

extern nsm_config_t nsm_cfg;
void nsm_load_config(void);
void nsm_setup_keyval(void);
void nsm_finalize_states(void);

/* An op's threshold, or 0 when it is switched off: the one test every op makes first. */
static inline size_t nsm_op_max(int op) { return nsm_cfg.off[op] ? 0 : nsm_cfg.max[op]; }
/* An op's lower bound: smaller messages go to the MPI library. */
static inline size_t nsm_op_min(int op) { return nsm_cfg.min[op]; }

#endif
