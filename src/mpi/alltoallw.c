/* libnodeshm_mpi: MPI_Alltoallw on one node, pair by pair (alltoallv_pairs.c with a datatype per
 * pair).
 *
 * A pair's byte count is known to both its ends (the signatures of sendtypes[j] at i and
 * recvtypes[i] at j agree), so, as for alltoallv, each end decides alone how the block travels:
 * packed with the sender's datatype into its row of the matrix when it fits the stride (this
 * op's threshold, capped by what fits the matrix), unpacked by the receiver with its own; above
 * the stride as a point-to-point pair on nsm_p2p.  No vote: a rank waits only for the senders of
 * the blocks it takes from the matrix.  Handed to the MPI library: communicators spanning nodes
 * (the leaders' aggregation of alltoall(v) needs one datatype per side), MPI_IN_PLACE (a rank's
 * blocks above the stride would be received over the data it still has to send).
 *
 * Defaults, and what they were measured against: src/mpi/nsmpi_config.h. */
#include "mpi/nsmpi.h"

NSM_BODY int accelerated_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    nsm_state_t *s = nsm_op_max(NSM_OP_ALLTOALLW) ? nsm_get_state(comm) : NULL;
    const int in_place = sendbuf == MPI_IN_PLACE;
    /* agreed on every rank: the configuration, the communicator, MPI_IN_PLACE */
    const size_t T = nsm_alltoallw_pairs_stride(s, in_place);
    if (!T) {
        NSM_HAND(NSM_OP_ALLTOALLW, comm, s, nsm_op_max(NSM_OP_ALLTOALLW) != 0, -1,
                 s && s->n_nodes > 1 ? NSM_WHY_NODES : in_place ? NSM_WHY_ARGS : NSM_WHY_STAGE);
        return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
    }
    if (!sendcounts || !sdispls || !sendtypes || !recvcounts || !rdispls || !recvtypes)
        return nsm_bad_arg(comm, "MPI_Alltoallw", "counts, displacements or datatypes (NULL)", 0);
    return nsm_alltoallv_pairs(s, T, sendbuf, (nsm_vec_t){sendcounts, sdispls, 0, sendtypes}, MPI_DATATYPE_NULL,
                               recvbuf, (nsm_vec_t){recvcounts, rdispls, 0, recvtypes}, MPI_DATATYPE_NULL, comm,
                               "MPI_Alltoallw");
}

/* Bytes: the whole send buffer, as for alltoallv (stats.c). */
static long long alltoallw_bytes(const int counts[], const MPI_Datatype types[], MPI_Comm comm)
{
    long long n = 0;
    int size = nsm_stat_ranks(comm);
    for (int r = 0; counts && types && r < size; r++) n += nsm_stat_bytes(counts[r], types[r]);
    return n;
}

NSM_STATS_TWIN(Alltoallw, NSM_OP_ALLTOALLW,
               (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                MPI_Comm comm),
               (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm),
               sendbuf == MPI_IN_PLACE ? alltoallw_bytes(recvcounts, recvtypes, comm)
                                       : alltoallw_bytes(sendcounts, sendtypes, comm))

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm)
{
    if (NSM_STATS_ON)
        return stats_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
    return accelerated_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                 comm);
}
