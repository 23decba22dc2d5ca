/* libnodeshm_mpi: the MPI-4 persistent collectives (persistent.c) as the MPI_Wait/MPI_Test family
 * sees them (nonblocking_wait.c; their part: persistent_wait.c).
 *
 * A persistent request of ours is the MPI library's own (made by PMPI_<Op>_init), never started
 * in the library: for it, the request stays inactive.  So whenever requests of ours exist, the
 * family first looks for them among its arguments: drives progress until an active one is
 * complete (Wait), or says whether it is (Test), treats an inactive one as MPI_REQUEST_NULL, and
 * gives the library only the rest. */
#ifndef NODESHM_MPI_PERSISTENT_H
#define NODESHM_MPI_PERSISTENT_H

#include "mpi/nsmpi.h"

/* A persistent request of ours: the library's handle, the op's arguments and what runs it. */
typedef struct nsm_persist nsm_persist_t;

/* Persistent requests of ours that exist (made by an init here, not yet freed): 0, one relaxed
 * load, and the family has nothing of ours to look for.  A started one also counts in the
 * engine's outstanding ops (nsm_nb_hold). */
extern long nsm_persist_entries;
static inline int nsm_persist_exist(void) { return __atomic_load_n(&nsm_persist_entries, __ATOMIC_RELAXED) != 0; }
/* The family's one rule: request's entry if the family answers for it itself, else NULL (not
 * ours, or the library ran its last start: then the library's, active or not).  Ours is active
 * (started here, not yet returned complete: nsm_persist_active_now) or inactive: MPI says an
 * inactive persistent request is a null request to every completion call (Wait and Test return
 * at once, empty; Waitany/Testany and Waitsome/Testsome skip it, MPI_UNDEFINED when nothing is
 * active).  The library cannot know that of ours, which it never started: MPICH 5.0.2's Waitall
 * crashes and its Testall never completes on one, MPICH 4.0.2's Waitsome never returns. */
nsm_persist_t *nsm_persist_ours(MPI_Request request);
int nsm_persist_active_now(const nsm_persist_t *e);
/* Its communicator (MPI_COMM_NULL once freed). */
MPI_Comm nsm_persist_comm(const nsm_persist_t *e);
/* Whether its op has completed (then the caller may return it: nsm_persist_return). */
int nsm_persist_done(const nsm_persist_t *e);
/* It goes back to the caller complete (inactive again); status (may be MPI_STATUS_IGNORE): empty. */
void nsm_persist_return(nsm_persist_t *e, MPI_Status *status);
/* Progress until e's op has completed (core/wait.h's policy; the MPI library is polled now and
 * then, for point-to-point traffic peers may wait for meanwhile). */
void nsm_persist_finish(nsm_persist_t *e);

/* An empty status (MPI: what a completed collective returns), unless MPI_STATUS_IGNORE. */
void nsm_persist_empty_status(MPI_Status *status);
/* Polls the MPI library (progress for its own requests) without completing any of them.  Every
 * NSM_PERSIST_POLL_EVERY steps of a wait: a poll costs about a hundred spin steps (the
 * non-blocking ops' wait tests as seldom: nonblocking_wait.c). */
void nsm_persist_poke(void);
#define NSM_PERSIST_POLL_EVERY 64

/* The family's part (persistent_wait.c), called while nsm_persist_exist(): 1 when the call had a
 * request of ours (nsm_persist_ours), *rc its result; 0 when it goes on as before. */
int nsm_persist_wait(MPI_Request *request, MPI_Status *status, int *rc);
int nsm_persist_test(MPI_Request *request, int *flag, MPI_Status *status, int *rc);
int nsm_persist_get_status(MPI_Request request, int *flag, MPI_Status *status, int *rc);
int nsm_persist_waitall(int count, MPI_Request requests[], MPI_Status statuses[], int *rc);
int nsm_persist_testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[], int *rc);
int nsm_persist_waitany(int count, MPI_Request requests[], int *index, MPI_Status *status, int *rc);
int nsm_persist_testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status, int *rc);
int nsm_persist_waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[],
                         int *rc);
int nsm_persist_testsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[],
                         int *rc);
/* MPI-4.1's Request_get_status_any/some/all where the MPI has them (nsm_bigcount_config.h) */
int nsm_persist_get_status_any(int count, const MPI_Request requests[], int *index, int *flag, MPI_Status *status,
                               int *rc);
int nsm_persist_get_status_some(int incount, const MPI_Request requests[], int *outcount, int indices[],
                                MPI_Status statuses[], int *rc);
int nsm_persist_get_status_all(int count, const MPI_Request requests[], int *flag, MPI_Status statuses[], int *rc);
/* MPI_Cancel on request: 1 when it is a persistent collective request of ours (*comm: its
 * communicator, MPI_COMM_NULL when that was freed), which MPI does not allow to cancel. */
int nsm_persist_cancel(MPI_Request request, MPI_Comm *comm);

#endif
