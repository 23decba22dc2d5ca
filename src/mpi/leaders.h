/* libnodeshm_mpi: the leaders' step of bcast, reduce and allreduce between nodes (internal).
 *
 * Large messages go through the MPI library's non-blocking form, waited at once.  The blocking
 * forms let MPICH pick its shared-memory collectives (release-gather bcast, reduce, allreduce)
 * whenever the leaders share a machine, as pseudo-nodes' leaders do (NODESHM_PES_PER_NODE): those
 * move a message through a 32 KiB buffer (MPIR_CVAR_*_INTRANODE_BUFFER_TOTAL_SIZE), one chunk per
 * round of every rank, so with more ranks than cores each chunk waits for the scheduler.  MPICH
 * 5.0, 8 ranks in pseudo-nodes of 2 on 2 cores: 4 MiB bcast 0.16-0.27x of MPICH's own bcast
 * over all ranks (1 s against 0.15 s), allreduce and reduce at 1 MiB 0.33-0.37x; with
 * MPIR_CVAR_BCAST_POSIX_INTRA_ALGORITHM=mpir, or the non-blocking form, bcast 1.4-8x.  The
 * non-blocking forms use point-to-point schedules.  Up to one such buffer the blocking form is
 * kept (one round; the schedule of a non-blocking call costs microseconds).  Open MPI 5 has no
 * such path: there only allreduce changes (same runs, 512 KiB-4 MiB: Iallreduce 1.1-2.2x of Open
 * MPI's own allreduce, the blocking form 0.86-1.26x; Ireduce 0.38-0.73x against Reduce's
 * 0.57-0.83x, Ibcast no better than Bcast). */
#ifndef NODESHM_MPI_LEADERS_H
#define NODESHM_MPI_LEADERS_H

#include "mpi/nsmpi.h" /* the state; NODESHM_BY_MPI_LIBRARY: the MPI library built against */

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* bytes above which each op's leaders use the non-blocking form (SIZE_MAX: never) */
#define NSM_LEADERS_NB_BCAST NODESHM_BY_MPI_LIBRARY((size_t)32768, SIZE_MAX)
#define NSM_LEADERS_NB_REDUCE NODESHM_BY_MPI_LIBRARY((size_t)32768, SIZE_MAX)
#define NSM_LEADERS_NB_ALLREDUCE ((size_t)32768)

static inline void nsm_leaders_bcast(void *buf, size_t bytes, int root, MPI_Comm leaders)
{
    if (bytes <= NSM_LEADERS_NB_BCAST) {
        PMPI_Bcast(buf, (int)bytes, MPI_BYTE, root, leaders);
        return;
    }
    MPI_Request req;
    PMPI_Ibcast(buf, (int)bytes, MPI_BYTE, root, leaders, &req);
    PMPI_Wait(&req, MPI_STATUS_IGNORE);
}

static inline void nsm_leaders_allreduce(void *buf, int count, MPI_Datatype type, MPI_Op op, size_t bytes,
                                         MPI_Comm leaders)
{
    if (bytes <= NSM_LEADERS_NB_ALLREDUCE) {
        PMPI_Allreduce(MPI_IN_PLACE, buf, count, type, op, leaders);
        return;
    }
    MPI_Request req;
    PMPI_Iallreduce(MPI_IN_PLACE, buf, count, type, op, leaders, &req);
    PMPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* The root's leader reduces in place into buf; the others send buf. */
static inline void nsm_leaders_reduce(void *buf, int count, MPI_Datatype type, MPI_Op op, int root, int is_root,
                                      size_t bytes, MPI_Comm leaders)
{
    const void *send = is_root ? MPI_IN_PLACE : buf;
    void *recv = is_root ? buf : NULL;
    if (bytes <= NSM_LEADERS_NB_REDUCE) {
        PMPI_Reduce(send, recv, count, type, op, root, leaders);
        return;
    }
    MPI_Request req;
    PMPI_Ireduce(send, recv, count, type, op, root, leaders, &req);
    PMPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* Up to this many nodes, bcast, gather and scatter move the data between the root and the
 * other nodes' leaders point to point (on nsm_p2p, the state's tag): one message per other node,
 * sent or received by the root itself, even when it does not lead its node (its leader then takes
 * no part in the call).  Measured on 2 emulated hosts x 2 ranks, windows widened, 8 B-1 MiB,
 * same runs (load 9-18 on 2 cores, so scheduling-bound): through the leaders' collectives a root
 * that did not lead its node lost at most sizes (MPICH bcast 0.2-0.8x up to 32 KiB, scatter and
 * reduce 0.2-0.9x; Open MPI gather, scatter, reduce 0.00-0.4x up to 16 KiB): its leader waited for
 * the root's flag before it sent, or released it after it received, one more handoff between
 * processes, each up to a time slice when the machine's ranks outnumber its cores.  Point to
 * point the same root: MPICH bcast 1.1-2.7x at every size, gather 1.1-14x from 128 B, scatter
 * 1.6-2.4x from 256 B.  A root that leads its node: MPICH bcast 1.1-7x from 16 KiB (leaders'
 * collective 0.86-1.3x at 16-32 KiB), gather and scatter alike below 8 KiB (both lose there:
 * the lower bounds in nsmpi_config.h).  Beyond it the library's trees among the leaders. */
#define NSM_ROOT_DIRECT_NODES 4

/* Whether rank r of comm leads its node (node rank 0). */
static inline int nsm_is_leader(const nsm_state_t *s, int r)
{
    return s->stage_index[r] == s->node_first[s->node_of[r]];
}
/* Whether this call's root sends to, or receives from, the other nodes' leaders itself: the
 * same answer on every rank. */
static inline int nsm_root_direct(const nsm_state_t *s)
{
    return s->n_nodes > 1 && s->n_nodes <= NSM_ROOT_DIRECT_NODES && s->p2p_tag >= 0;
}

#endif
