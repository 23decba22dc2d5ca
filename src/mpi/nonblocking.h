/* libnodeshm_mpi: what the non-blocking collectives share (nonblocking.c says how they work;
 * nonblocking.c: Ibarrier, Ibcast, Iallreduce; nonblocking_rooted.c: Ireduce, Igather, Iscatter,
 * Iallgather). */
#ifndef NODESHM_MPI_NONBLOCKING_H
#define NODESHM_MPI_NONBLOCKING_H

#include "mpi/nsmpi.h"

/* One accelerated call: the engine's op, the caller's generalized request, its arguments.  The
 * datatypes are kept alive while the op runs (a derived one is duplicated: the caller may free
 * its handle after the start). */
typedef struct nsm_nb_op {
    nodeshm_nb_t nb; /* first: the engine's op */
    MPI_Request req;
    int refs;        /* the lane's and the request's: freed when both let go */
    nsm_state_t *s;
    const void *sendbuf;
    void *recvbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    int sdup, rdup;   /* stype, rtype are our duplicates */
    int root_nr;      /* rooted ops: the root's node rank (= comm rank: one node) */
    int in_place;
    MPI_Aint sext, rext; /* extents of stype, rtype where blocks are placed by rank */
    MPI_Op op;
    size_t bytes;     /* the message (bcast, reductions) or one rank's block */
} nsm_nb_op_t;

/* A new op on s with its steps, its request in *request (a rank that cannot make one ends the
 * job: its peers may be on the shared-memory path already). */
nsm_nb_op_t *nsm_nb_new(nsm_state_t *s, nodeshm_nb_step_t publish, nodeshm_nb_step_t complete,
                        MPI_Request *request);
/* The datatype the op may use until it ends: type itself if predefined, else a duplicate. */
void nsm_nb_send_type(nsm_nb_op_t *o, MPI_Datatype type);
void nsm_nb_recv_type(nsm_nb_op_t *o, MPI_Datatype type);
/* Counts the call as accelerated (op) and starts it, `writes` saying whether this rank writes
 * shared buffers, need: the bytes of result area or slot it uses (the same on every rank). */
void nsm_nb_go(nsm_nb_op_t *o, int op, int writes, size_t need);
/* The op's state where it can run here: one already made, on one node; else NULL, the outcome
 * recorded (stats). */
nsm_state_t *nsm_nb_state(int op, MPI_Comm comm, long long bytes);
/* Whether `bytes` fit the buffers an op uses (the result area: result 1, or a slot): those of
 * the ring entry or of the bank it gets, the same on every rank. */
static inline int nsm_nb_fits(const nsm_state_t *s, size_t bytes, int result)
{
    if (nodeshm_ring_fits(&s->area.ring, bytes)) return 1;
    return bytes <= (result ? s->area.banks.result_bytes : s->area.banks.slot_bytes);
}
/* The message bytes of a reduction the shared path takes (predefined op and datatype: MPI wants
 * the same on every rank), else -1. */
long long nsm_nb_reduction_bytes(int count, MPI_Datatype type, MPI_Op op);
/* dst = slot 0 op slot 1 op ... in node rank order (the same bits on every rank that calls it). */
void nsm_nb_reduce_slots(const nodeshm_nb_t *nb, void *dst);
/* Iallreduce (root -1) or Ireduce (id NSM_OP_I...): started, or NSM_HANDED_OVER (the caller
 * hands it to the MPI library). */
int nsm_nb_reduction(int id, const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                     int root, MPI_Comm comm, MPI_Request *request);
/* Ireduce's complete step (nonblocking_rooted.c): the root reduces once all slots are there. */
int nsm_nb_reduce_complete(nodeshm_nb_t *nb);
/* A request complete at once (nothing to move, on every rank). */
int nsm_nb_empty(MPI_Request *request);

/* This rank's node rank in the op, and the node's members. */
static inline int nsm_nb_me(const nodeshm_nb_t *nb) { return nb->lane->area->flags.me; }
static inline int nsm_nb_members(const nodeshm_nb_t *nb) { return nb->lane->area->flags.n; }

#endif
