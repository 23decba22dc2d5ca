/* libnodeshm_mpi: a persistent request of ours (internal), between persistent.c (the requests'
 * table, the decision, MPI_Start) and persistent_init.c (the init calls that record them). */
#ifndef NODESHM_MPI_PERSISTENT_ENTRY_H
#define NODESHM_MPI_PERSISTENT_ENTRY_H

#include "mpi/nonblocking.h"
#include "mpi/persistent.h"
#include "nsm_bigcount_config.h"

enum { P_UNDECIDED, P_OURS, P_EMPTY, P_LIBRARY };
enum { K_BARRIER, K_BCAST, K_ALLREDUCE, K_REDUCE, K_GATHER, K_ALLGATHER, K_SCATTER };

struct nsm_persist {
    MPI_Request req;      /* the library's persistent request: the table's key */
    int id, kind;         /* NSM_OP_<OP>_INIT, K_* */
    int how;              /* P_*, decided once (P_UNDECIDED: the communicator has no state yet) */
    int why;              /* stats: the outcome of a start (NSM_WHY_*) */
    int gone;             /* its communicator was freed */
    int active;           /* started (ours), not yet returned complete */
    int lib_last;         /* the library ran its last start: its request, as MPI sees it */
    int done;             /* the current start's op has completed (atomic) */
    int me, root, rooted; /* comm rank; the root, if the op has one */
    int result;           /* the op's data goes through the result area (bcast), else the slots */
    int writes;           /* this rank writes shared buffers */
    MPI_Comm comm;
    nsm_state_t *s;
    long long bytes;      /* the message or one rank's block, as the non-blocking op; -1: unusable */
    long long stat_bytes; /* the report's bytes of a start */
    nsm_nb_steps_t steps;
    nsm_nb_op_t t;        /* what each start's op gets; a derived datatype: our duplicate */
    nsm_persist_t *next;  /* in its bucket */
};

/* A new entry for the library's request (made: rc), or NULL where none is needed: the op is
 * switched off or comm can have no state (an intercommunicator, one rank) and stats are off. */
nsm_persist_t *nsm_persist_new(int rc, int id, int kind, MPI_Comm comm, const MPI_Request *request);
/* e's arguments are recorded: decide if the state is there, keep it (not: the library's alone,
 * stats off); returns MPI_SUCCESS. */
int nsm_persist_add(nsm_persist_t *e);
/* e is the library's from now on (why: the stats' outcome); our duplicates of its types go. */
void nsm_persist_library(nsm_persist_t *e, int why);

#endif
