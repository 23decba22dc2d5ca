/* libnodeshm_mpi: MPI_Barrier, and the node barrier other parts use (nsm_node_barrier). */
#include "mpi/nsmpi.h"

/* Node barrier; with `between`, node leaders also meet between nodes (a full comm barrier). */
static void nsm_barrier(nsm_state_t *s, int between)
{
    uint64_t seq = ++s->seq;
    nsm_store(&NSM_MY(s)->arrive, seq);
    if (s->node_rank == 0) {
        nsm_wait_all(s, NSM_F_ARRIVE, seq);
        if (between && s->n_nodes > 1) PMPI_Barrier(s->leaders);
        nsm_store(NSM_RELEASE(s), seq);
    } else {
        nsm_wait_ge(s, NSM_RELEASE(s), seq);
    }
    nsm_store(&NSM_MY(s)->done, seq);
}

void nsm_node_barrier(nsm_state_t *s) { nsm_barrier(s, 0); }
void nsm_node_barrier_all(nsm_state_t *s) { nsm_barrier(s, 1); }

NSM_BODY int accelerated_Barrier(MPI_Comm comm)
{
    nsm_state_t *s = nsm_cfg.off[NSM_OP_BARRIER] ? NULL : nsm_get_state(comm);
    if (!s) {
        NSM_HAND(NSM_OP_BARRIER, comm, s, 1, -1, NSM_WHY_ALONE);
        return PMPI_Barrier(comm);
    }
    nsm_count_accelerated(NSM_OP_BARRIER);
    nsm_barrier(s, 1);
    return MPI_SUCCESS;
}

NSM_STATS_TWIN(Barrier, NSM_OP_BARRIER, (MPI_Comm comm), (comm), 0)

int MPI_Barrier(MPI_Comm comm)
{
    if (NSM_STATS_ON) return stats_Barrier(comm);
    return accelerated_Barrier(comm);
}
