/* nodeshm core, node collectives: non-blocking operations and their progress.
 *
 * A non-blocking node collective is a request (nodeshm_nb_t) in its team's lane: it takes its
 * sequence number and buffers at start, in posting order (every member posts a team's
 * collectives in the same order, so the numbers agree), and then moves through two steps that
 * never wait:
 *   publish   put my contribution in place and raise my arrive flag (a step of the op's own);
 *             an op that writes shared buffers first needs them free: every member done with
 *             the operation that used them last (area.h), tested, not waited for;
 *   complete  once the peers' flags say their part is there, read it (the op's own step).
 * The start publishes at once when it can, so that peers complete without any further call of
 * ours: a barrier arrives, an allreduce copies its contribution (every member then reduces all
 * slots itself), a broadcast's root copies its message.  When the buffers are still busy (more
 * operations outstanding than the ring's depth, or than the banks for larger ones) publishing
 * waits for a later progress call (MPI_Test/Wait); the peers then need this process to make
 * such a call.
 *
 * Flags only grow and mean "everything up to seq" (flags.h), so a lane writes them in sequence
 * order: an op publishes only after every earlier op of its lane has, and the done flag moves
 * over the prefix of completed ops (an op completed out of order is finished for its caller at
 * once; its done waits for the earlier ones).  A blocking collective on the same team must come
 * after all of them: the binding drains the lane first (nodeshm_nb_drain).
 *
 * Between nodes an op has a third step between publish and complete, the part that crosses
 * nodes (the MPI face: the leader's non-blocking call on its leaders' communicator, which a step
 * of the face starts and tests; the core knows nothing of it):
 *   remote_start   begin it once what it needs is in (the node's part: tested, not waited for);
 *   remote_test    1 once it is over and its outcome is published to the node (a flag).
 * Both go in sequence order: remote parts are collectives among the nodes, which every process
 * must start in the same order, and what remote_test publishes is a flag, which only grows.  So
 * an op's remote part starts only after every earlier op's of its lane has started, and is tested
 * only after every earlier one's was over (a later one that finished first is found at a later
 * pass).  An op without one (remote_start NULL: one node, or a member that does not lead its
 * node) goes from publish to complete; complete comes after the remote part.
 *
 * Progress is one call over every lane with outstanding ops, under one process-wide lock
 * (threads may test different requests at once; a thread that finds it held skips). */
#ifndef NODESHM_COLL_PROGRESS_H
#define NODESHM_COLL_PROGRESS_H

#include "core/coll/area.h"

#include <stdint.h>

typedef struct nodeshm_nb nodeshm_nb_t;
typedef struct nodeshm_nb_lane nodeshm_nb_lane_t;

/* An op's steps: 1 when done (publish: flag raised; complete: its result is the caller's). */
typedef int (*nodeshm_nb_step_t)(nodeshm_nb_t *op);

struct nodeshm_nb {
    nodeshm_nb_t *next;           /* in the lane, sequence order */
    nodeshm_nb_lane_t *lane;
    uint64_t seq, reused;         /* reused: how many operations back these buffers were used */
    nodeshm_coll_bufs_t bufs;     /* the op's buffers, fixed at start */
    int writes;                   /* writes shared buffers: publishes once they are free */
    int published, completed;
    int remote_started, remote_done;
    unsigned next_peer;           /* complete steps: the first member not yet seen arrived */
    nodeshm_nb_step_t publish, complete;
    nodeshm_nb_step_t remote_start, remote_test; /* between nodes (above); NULL: none */
    void (*finished)(nodeshm_nb_t *op); /* after complete: tell the caller (binding) */
    void (*release)(nodeshm_nb_t *op);  /* the lane is done with it: the binding may free it */
};

/* One team's outstanding ops, in posting order. */
struct nodeshm_nb_lane {
    nodeshm_coll_area_t *area;
    nodeshm_nb_t *head, *tail;
    nodeshm_nb_lane_t *next_active; /* the lanes with outstanding ops */
    long pending;                   /* ops in the lane */
};

/* Ops outstanding in the process (a relaxed read: 0 means a wait has nothing of ours to drive),
 * and ops completed so far (a waiter asks its MPI library again when this moves). */
extern long nodeshm_nb_outstanding;
extern unsigned long nodeshm_nb_completions;
static inline int nodeshm_nb_any(void) { return __atomic_load_n(&nodeshm_nb_outstanding, __ATOMIC_RELAXED) != 0; }

/* Starts op (its steps and `writes` set by the caller) on lane: takes the next sequence number
 * and the buffers for `need` bytes (area.h), queues it and makes one progress pass. */
void nodeshm_nb_start(nodeshm_nb_lane_t *lane, nodeshm_nb_t *op, size_t need);
/* One pass over every lane; returns the ops still outstanding. */
long nodeshm_nb_progress(void);
/* Progress until lane has nothing outstanding (core/wait.h's policy between passes). */
void nodeshm_nb_drain(nodeshm_nb_lane_t *lane);

/* For steps: whether field (NODESHM_FLAG_*) of every member is >= op->seq, without waiting
 * (op->next_peer remembers how far it got); whether member i's arrive is. */
int nodeshm_nb_all_arrived(nodeshm_nb_t *op);
static inline int nodeshm_nb_arrived(const nodeshm_nb_t *op, int i)
{
    return nodeshm_flags_arrived(&op->lane->area->flags, i, op->seq);
}
/* Member i's slot of op. */
static inline char *nodeshm_nb_slot(const nodeshm_nb_t *op, int i)
{
    return op->bufs.slots + (size_t)i * op->bufs.slot_stride;
}

#endif
