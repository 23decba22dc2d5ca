/* nodeshm extensions to OpenSHMEM. */
#ifndef SHMEMX_H
#define SHMEMX_H
#include <shmem.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of PEs whose memory this PE can load and store (its node, or pseudo-node), and this
 * PE's index among them: the same as shmem_team_n_pes / shmem_team_my_pe(SHMEM_TEAM_SHARED). */
int shmemx_node_n_pes(void);
int shmemx_node_my_pe(void);
/* Number of nodes (or pseudo-nodes) in the job. */
int shmemx_n_nodes(void);

/* A team from an MPI communicator whose processes are PEs (any subset of MPI_COMM_WORLD, in any
 * order): team PE i is comm rank i.  Collective over comm only; the team keeps a duplicate of it.
 * Returns 0, or nonzero with *team = SHMEM_TEAM_INVALID (comm = MPI_COMM_NULL, a process outside
 * MPI_COMM_WORLD, no free team slot). */
int shmemx_team_create_from_comm(MPI_Comm comm, shmem_team_t *team);
/* The team's communicator: rank i is team PE i.  It belongs to the team (do not free it) and is
 * valid until shmem_team_destroy.  Returns 0, or nonzero with *comm = MPI_COMM_NULL for an
 * invalid team. */
int shmemx_team_get_comm(shmem_team_t team, MPI_Comm *comm);

/* This PE's team collective calls of one family ("sync", "broadcast", "collect", "fcollect",
 * "alltoall", "reduce", "scan": the reductions and scans of every op and type) that took one path
 * ("node": its team on one node; "leaders": between nodes, nodeshm's node leaders; "library":
 * between nodes, the MPI library's own collective over the team, where it wins), since
 * shmem_init; -1 for a name it does not know.  For tests and tuning: which path a size takes. */
long shmemx_coll_calls(const char *family, const char *path);

#ifdef __cplusplus
}
#endif
#endif
