/* libnodeshm_mpi: MPI_Reduce_scatter_block for predefined ops and types (others go to the MPI
 * library), on reduce_scatter.c's path (every block of recvcount elements).
 *
 * Default NODESHM_MPI_REDUCE_SCATTER_BLOCK_MAX 64 KiB (whole vector), bench/mpi_osu.c on 2 shared
 * cores (load 15-22): MPICH 2 ranks 15-84x (its own takes 8-550 us there), Open MPI 2 ranks
 * 1.1-2.0x at 64 B..64 KiB, 8 ranks 1.4-3.5x at 64 B..16 KiB; 4 ranks noisy (0.4-2.5x, medians of
 * 50-150 us scheduler slices). */
#include "mpi/nsmpi.h"

NSM_BODY int accelerated_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                              MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    nsm_state_t *s = nsm_op_max(NSM_OP_REDUCE_SCATTER_BLOCK) ? nsm_get_state(comm) : NULL;
    MPI_Aint lb = 0, extent = 0;
    /* recvcount, datatype and op agree on all ranks: all take this path or none */
    int ok = s && recvcount >= 0 && type != MPI_DATATYPE_NULL && nsm_op_ok(op) && nsm_is_named(type);
    if (ok) {
        PMPI_Type_get_extent(type, &lb, &extent);
        ok = lb == 0 && extent > 0 &&
             (size_t)recvcount * (size_t)extent * (size_t)s->size <= s->max[NSM_OP_REDUCE_SCATTER_BLOCK];
    }
    if (!ok) {
        NSM_HAND(NSM_OP_REDUCE_SCATTER_BLOCK, comm, s, 1,
                 s && recvcount >= 0 && extent > 0 ? (long long)recvcount * extent * s->size : -1,
                 !nsm_op_ok(op) ? NSM_WHY_OP : NSM_WHY_DATATYPE);
        return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
    }
    if (recvcount == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return MPI_SUCCESS;
    }
    return nsm_reduce_scatter_run(s, NSM_OP_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, NULL, recvcount,
                                  (size_t)recvcount * (size_t)s->size, extent, type, op);
}

NSM_STATS_TWIN(Reduce_scatter_block, NSM_OP_REDUCE_SCATTER_BLOCK,
               (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
               (sendbuf, recvbuf, recvcount, type, op, comm),
               nsm_stat_bytes((long long)recvcount * nsm_stat_ranks(comm), type))

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm)
{
    if (NSM_STATS_ON) return stats_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
    return accelerated_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
}
NSM_ENTRY_ALIAS(Reduce_scatter_block)
