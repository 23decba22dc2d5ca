/* libnodeshm_mpi: MPI_Barrier: the node-collective area's barrier (core/coll/flags.h), node leaders
 * meeting in PMPI_Barrier between nodes. */
#include "mpi/nsmpi.h"

NSM_BODY int accelerated_Barrier(MPI_Comm comm)
{
    nsm_state_t *s = nsm_cfg.off[NSM_OP_BARRIER] ? NULL : nsm_get_state(comm);
    if (!s) {
        NSM_HAND(NSM_OP_BARRIER, comm, s, 1, -1, NSM_WHY_ALONE);
        return PMPI_Barrier(comm);
    }
    nsm_count_accelerated(NSM_OP_BARRIER);
    nsm_node_barrier_all(s);
    return MPI_SUCCESS;
}

NSM_STATS_TWIN(Barrier, NSM_OP_BARRIER, (MPI_Comm comm), (comm), 0)

int MPI_Barrier(MPI_Comm comm)
{
    if (NSM_STATS_ON) return stats_Barrier(comm);
    return accelerated_Barrier(comm);
}
