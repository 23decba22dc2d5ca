/* nodeshm core, node collectives between nodes: where the MPI library's own collective wins, for
 * the choices both faces make alike (the OpenSHMEM face's others: team/team_coll.h).  Each was
 * measured on 2 emulated hosts on a quiet machine; they depend on the MPI library and the
 * communicator's shape only, so every member agrees. */
#ifndef NODESHM_COLL_LIBRARY_WINS_H
#define NODESHM_COLL_LIBRARY_WINS_H

#include "../mpi_library.h" /* relative: tests include this header by path (tests/mpi_check.h) */

#include <stddef.h>

/* MPICH over OFI tcp sends up to 128 B as one inject (~5 us half round trip; above, 8-11 us and
 * a slower completion). */
#define NODESHM_MPICH_INJECT_MAX ((size_t)128)

/* Alltoall of `block` bytes per pair over n members on n_nodes nodes, under MPICH with at most 2
 * per node and a node of more than one, where the node leaders' messages (a node's blocks for
 * another node's members: 4 blocks at 2 x 2) are above the inject size while each of the
 * library's own (one block) stays within it.  2 x 2, quiet, 2 rounds, ratio to MPI_Alltoall:
 * OpenSHMEM alltoall 64-128 B 0.68-0.79x and alltoalls 0.79-0.85x (nodeshm-bench-coll), MPI
 * Alltoall 0.70-0.80x and Ialltoall 0.80-0.89x (nodeshm-bench-mpi_osu), handed to the library
 * 0.97-1.08x; 8-32 B (1.20-1.55x) and 256 B-16 KiB (1.12-1.54x) stay ours.  Splitting the
 * leaders' message into injects did not do it (2 of 128 B: 0.87-0.92x; 4: 0.5-0.6x).  Counts
 * only, so that nodes of different sizes agree. */
/* Under Open MPI, with the same shape, blocks of 8-16 KiB (the top of the OpenSHMEM fan's range
 * at 2 x 2; larger ones take its large path, unmeasured against the library): 2 x 2, quiet, 3
 * rounds, OpenSHMEM alltoall at 16 KiB blocks (the leaders' 64 KiB messages) 0.88-0.94x and now
 * and then 0.42x (44 or 105 us a call), MPI_Alltoall over the team 0.97-1.00x; at 8 KiB ours
 * 1.16-1.92x.  (The interposer's default window ends at 8 KiB there too.) */
#define NODESHM_OPEN_MPI_A2A_FAN_MAX ((size_t)8 << 10)
#define NODESHM_OPEN_MPI_A2A_LIBRARY_MAX ((size_t)16 << 10)
static inline int nodeshm_nodes_alltoall_by_library(int n, int n_nodes, size_t block)
{
    int few_per_node = n_nodes > 1 && n > n_nodes && n <= 2 * n_nodes;
    return few_per_node &&
           ((NODESHM_UNDER_MPICH && block <= NODESHM_MPICH_INJECT_MAX && (size_t)n * block > NODESHM_MPICH_INJECT_MAX) ||
            (NODESHM_UNDER_OPEN_MPI && block > NODESHM_OPEN_MPI_A2A_FAN_MAX &&
             block <= NODESHM_OPEN_MPI_A2A_LIBRARY_MAX));
}

/* Alltoallv between nodes under MPICH: the blocks of a node pair (`senders` members of one node
 * to `receivers` of the other; those of at most the stride, which the leaders would carry) go
 * rank to rank, as the library sends them, when at most half of the pair's blocks carry bytes,
 * none more than the inject size, and either about one per rank (at most as many as the larger
 * side has ranks) or more than the inject size in all (the leaders' message).  Through the
 * leaders such a call pays the node's hops (member -> leader, the leaders' message, leader ->
 * member) for a message or two per rank.  Each rank with the ranks of its parity, 3 rounds,
 * MPI_Alltoallv's time over ours: 2 hosts x 2 (2 of the pair's 4 blocks) 8-128 B 0.63-0.74x
 * through the leaders, 0.90-0.94x rank to rank (MPI_Ialltoallv 0.83-0.85x, 1.00-1.03x); 2 x 4
 * (8 of 16 blocks) 32-128 B 0.72-0.80x, 0.95-0.98x, but 8-16 B, where the leaders' message is one
 * inject, 1.24-1.40x through the leaders and 0.96-1.03x rank to rank.  Uniform calls (every
 * block) stay with the leaders, who win 1.3-2.8x there.  Every input is known at both ends of
 * the node pair (the bytes of each block: its sender's and its receiver's count), so both agree
 * without a message. */
static inline int nodeshm_nodes_alltoallv_direct_size(size_t block)
{
    return NODESHM_UNDER_MPICH && block <= NODESHM_MPICH_INJECT_MAX;
}
static inline int nodeshm_nodes_alltoallv_pair_direct(int senders, int receivers, int nonzero, size_t largest,
                                                      size_t total)
{
    const int ranks = senders > receivers ? senders : receivers;
    return nonzero > 0 && 2 * nonzero <= senders * receivers && nodeshm_nodes_alltoallv_direct_size(largest) &&
           (nonzero <= ranks || total > NODESHM_MPICH_INJECT_MAX);
}

#endif
