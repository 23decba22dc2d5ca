/* libnodeshm_mpi: the MPI-4 persistent collectives (persistent.c) as the MPI_Wait/MPI_Test family
 * sees them (nonblocking_wait.c; their part: persistent_wait.c).
 *
 * A persistent request of ours is the MPI library's own (made by PMPI_<Op>_init), never started
 * in the library: for it, the request stays inactive, and its Wait/Test returns at once with an
 * empty status.  So while one of ours is started and not yet returned complete to the caller, the
 * family must first look for it among its arguments: drive progress until it is complete
 * (Wait), or say whether it is (Test), and give the library only the rest. */
#ifndef NODESHM_MPI_PERSISTENT_H
#define NODESHM_MPI_PERSISTENT_H

#include "mpi/nsmpi.h"

/* A persistent request of ours: the library's handle, the op's arguments and what runs it. */
typedef struct nsm_persist nsm_persist_t;

/* Requests of ours started and not yet returned complete (0: the family has nothing of them to
 * do).  Each also counts in the engine's outstanding ops (nsm_nb_hold), so that a Wait/Test with
 * nothing of ours at all still makes one relaxed load, nodeshm_nb_any(), before the library. */
extern long nsm_persist_active;
static inline int nsm_persist_any(void) { return __atomic_load_n(&nsm_persist_active, __ATOMIC_RELAXED) != 0; }

/* Persistent requests of ours that exist (made by an init here, not yet freed).  MPICH 5.0.2's
 * MPI_Waitall crashes, and its MPI_Testall never says complete, on a persistent collective
 * request that was never started (measured here), as ours are for it: those two keep ours out of
 * the library's arrays whenever any exist (a second relaxed load there). */
extern long nsm_persist_entries;
static inline int nsm_persist_exist(void) { return __atomic_load_n(&nsm_persist_entries, __ATOMIC_RELAXED) != 0; }
/* request, if it is one of ours that the library must not see in Waitall/Testall: started here
 * and not yet returned, or never started by the library; whether it is started here and not yet
 * returned. */
nsm_persist_t *nsm_persist_hidden(MPI_Request request);
int nsm_persist_active_now(const nsm_persist_t *e);
/* request, if it is one of ours started and not yet returned complete; else NULL. */
nsm_persist_t *nsm_persist_started(MPI_Request request);
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

/* The family's part (persistent_wait.c), called while nsm_persist_any() (Waitall, Testall: while
 * nsm_persist_exist()): 1 when the call had a started request of ours (Waitall, Testall: any of
 * ours), *rc its result; 0 when it goes on as before. */
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

#endif
