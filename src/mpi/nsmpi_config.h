/* libnodeshm_mpi: settings from the environment, read once at MPI_Init (internal).
 *
 *   NODESHM_MPI_DISABLE=barrier,bcast,allreduce,gather | all   ops left to the MPI library
 *   NODESHM_MPI_BCAST_MAX, NODESHM_MPI_ALLREDUCE_MAX     largest message accelerated (bytes, k/m)
 *   NODESHM_MPI_GATHER_MAX                               largest per-rank block accelerated
 *   NODESHM_MPI_STAGE_MAX                                gather between nodes: staging bytes cap
 *   NODESHM_PES_PER_NODE, NODESHM_SPIN_COUNT             as for the OpenSHMEM side
 * Every rank must see the same values (mpiexec passes the environment to all). */
#ifndef NODESHM_MPI_CONFIG_H
#define NODESHM_MPI_CONFIG_H

#include <stddef.h>

enum { NSM_OP_BARRIER, NSM_OP_BCAST, NSM_OP_ALLREDUCE, NSM_OP_GATHER, NSM_OP_COUNT };

typedef struct nsm_config {
    int off[NSM_OP_COUNT];
    int all_off;
    size_t bcast_max, allreduce_max, gather_max, stage_max;
    int pes_per_node;   /* 0: physical nodes */
    int spin_count;     /* -1: automatic */
    int loaded;
} nsm_config_t;

extern nsm_config_t nsm_cfg;
void nsm_load_config(void);
void nsm_setup_keyval(void);
void nsm_finalize_states(void);

#endif
