/* libnodeshm_mpi: progress of the non-blocking collectives (nonblocking.c) at MPI_Test, Testall,
 * Testany, Testsome, Request_get_status, Wait, Waitall, Waitany, Waitsome.
 *
 * With none outstanding in the process (one relaxed load; a persistent request of ours started
 * and not yet returned counts: nsm_nb_hold) each goes straight to the MPI library, after a
 * load of whether persistent requests of ours exist at all (persistent.h: inactive ones too).
 * Otherwise a test makes one progress pass over every communicator's ops (core/coll/progress.h)
 * and then asks the library, which completes our generalized requests as any others; a wait
 * alternates passes with the library's test of the same arguments (core/wait.h's policy between
 * them: spin, then yield; the test only when an op of ours completed, or every so often) until
 * that test says done, or until nothing of ours is outstanding any more, when the library's own
 * wait takes over.  Testing through the library keeps it
 * progressing point-to-point and its own requests in mixed arrays, and leaves statuses, errors
 * and MPI_UNDEFINED to it; waiting in a loop of ours also drives ops the caller does not wait
 * for, whose peers may need this rank's done flags to reuse their buffers.
 * Persistent collectives of ours (persistent.h), active or not, are looked for first
 * (persistent_wait.c): NSM_PERSIST(call) returns its result when the call had one of them.
 * Also MPI-4.1's Request_get_status_any/some/all (where the MPI has them) and MPI_Cancel, which
 * refuses our requests (below). */
#include "mpi/nonblocking.h"
#include "mpi/persistent.h"
#include "nsm_bigcount_config.h" /* NSM_IF_GET_STATUS_N */

/* Waits by testing: `test` sets `done`; `wait` is the library's own blocking call.  The library
 * is asked when one of our ops has completed since, and every NSM_TEST_EVERY steps for its own
 * requests: a test costs a hundred times a spin step, and testing at every step stretched the
 * spin before the first yield to milliseconds (iallreduce with compute between start and wait,
 * 2 ranks on a loaded machine: 2-3 ms per call against 0.5-1 ms for MPICH's own). */
#define NSM_TEST_EVERY 64
#define NSM_PERSIST(call)                                                                          \
    do {                                                                                           \
        int rc_;                                                                                   \
        if (__builtin_expect(nsm_persist_exist(), 0) && call) return rc_;                          \
    } while (0)
#define NSM_WAIT_BY_TESTS(test, done, wait)                                                        \
    do {                                                                                           \
        nodeshm_waiter_t w_ = NODESHM_WAITER_INIT;                                                 \
        unsigned long seen_ = ~0ul;                                                                \
        for (unsigned steps_ = 0;; steps_++) {                                                     \
            if (!nodeshm_nb_progress()) return wait;                                               \
            unsigned long now_ = __atomic_load_n(&nodeshm_nb_completions, __ATOMIC_RELAXED);       \
            if (now_ != seen_ || steps_ % NSM_TEST_EVERY == 0) {                                   \
                seen_ = now_;                                                                      \
                int rc_ = test;                                                                    \
                if (rc_ != MPI_SUCCESS || (done)) return rc_;                                      \
            }                                                                                      \
            nodeshm_wait_step(&w_);                                                                \
        }                                                                                          \
    } while (0)

static inline int nsm_testall_rc(int rc, int *flag)
{
    if (rc != MPI_ERR_IN_STATUS) return rc;
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    NSM_PERSIST(nsm_persist_wait(request, status, &rc_));
    if (!nodeshm_nb_any()) return PMPI_Wait(request, status);
    int flag = 0;
    NSM_WAIT_BY_TESTS(PMPI_Test(request, &flag, status), flag, PMPI_Wait(request, status));
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    NSM_PERSIST(nsm_persist_waitall(count, requests, statuses, &rc_));
    if (!nodeshm_nb_any()) return PMPI_Waitall(count, requests, statuses);
    int flag = 0;
    /* MPICH 5.0.2's Testall says MPI_ERR_IN_STATUS whenever the array holds a persistent
     * collective request it runs (also when all have completed): not taken as an answer here;
     * once nothing of ours is outstanding its Waitall (right there) takes over */
    NSM_WAIT_BY_TESTS(nsm_testall_rc(PMPI_Testall(count, requests, &flag, statuses), &flag), flag,
                      PMPI_Waitall(count, requests, statuses));
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    NSM_PERSIST(nsm_persist_waitany(count, requests, index, status, &rc_));
    if (!nodeshm_nb_any()) return PMPI_Waitany(count, requests, index, status);
    int flag = 0;
    NSM_WAIT_BY_TESTS(PMPI_Testany(count, requests, index, &flag, status), flag,
                      PMPI_Waitany(count, requests, index, status));
}

/* Testsome: outcount 0 is "none yet"; MPI_UNDEFINED (no active request) ends the wait too */
int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    NSM_PERSIST(nsm_persist_waitsome(incount, requests, outcount, indices, statuses, &rc_));
    if (!nodeshm_nb_any()) return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    NSM_WAIT_BY_TESTS(PMPI_Testsome(incount, requests, outcount, indices, statuses), *outcount != 0,
                      PMPI_Waitsome(incount, requests, outcount, indices, statuses));
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    NSM_PERSIST(nsm_persist_test(request, flag, status, &rc_));
    if (!nodeshm_nb_any()) return PMPI_Test(request, flag, status);
    nodeshm_nb_progress();
    return PMPI_Test(request, flag, status);
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    NSM_PERSIST(nsm_persist_testall(count, requests, flag, statuses, &rc_));
    if (!nodeshm_nb_any()) return PMPI_Testall(count, requests, flag, statuses);
    nodeshm_nb_progress();
    return PMPI_Testall(count, requests, flag, statuses);
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    NSM_PERSIST(nsm_persist_testany(count, requests, index, flag, status, &rc_));
    if (!nodeshm_nb_any()) return PMPI_Testany(count, requests, index, flag, status);
    nodeshm_nb_progress();
    return PMPI_Testany(count, requests, index, flag, status);
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    NSM_PERSIST(nsm_persist_testsome(incount, requests, outcount, indices, statuses, &rc_));
    if (!nodeshm_nb_any()) return PMPI_Testsome(incount, requests, outcount, indices, statuses);
    nodeshm_nb_progress();
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    NSM_PERSIST(nsm_persist_get_status(request, flag, status, &rc_));
    if (!nodeshm_nb_any()) return PMPI_Request_get_status(request, flag, status);
    nodeshm_nb_progress();
    return PMPI_Request_get_status(request, flag, status);
}

/* ---------------------------------------------------------------- MPI-4.1 Request_get_status_*
 * As Request_get_status for an array (nothing freed or made inactive): one progress pass, then
 * the library's; persistent ones of ours first (persistent_wait.c).  Where the MPI has them. */

NSM_IF_GET_STATUS_N(
int MPI_Request_get_status_any(int count, const MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    NSM_PERSIST(nsm_persist_get_status_any(count, requests, index, flag, status, &rc_));
    nodeshm_nb_progress();
    return PMPI_Request_get_status_any(count, requests, index, flag, status);
}

int MPI_Request_get_status_some(int incount, const MPI_Request requests[], int *outcount, int indices[],
                                MPI_Status statuses[])
{
    NSM_PERSIST(nsm_persist_get_status_some(incount, requests, outcount, indices, statuses, &rc_));
    nodeshm_nb_progress();
    return PMPI_Request_get_status_some(incount, requests, outcount, indices, statuses);
}

int MPI_Request_get_status_all(int count, const MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    NSM_PERSIST(nsm_persist_get_status_all(count, requests, flag, statuses, &rc_));
    nodeshm_nb_progress();
    return PMPI_Request_get_status_all(count, requests, flag, statuses);
})

/* ---------------------------------------------------------------- MPI_Cancel
 * MPI does not allow cancelling a collective's request, non-blocking or persistent (MPI-4.1,
 * 6.12 and 6.13: erroneous).  A persistent one of ours never goes to the library, which never
 * started it; a non-blocking one of ours is the library's generalized request, whose cancel
 * callback (nonblocking.c) says so.  Either way the caller hears it the standard's way:
 * MPI_ERR_REQUEST through its communicator's error handler (fatal by default), and a message
 * naming the call; the request itself stays as it was, to be completed as usual.  MPI_Request_free
 * on a non-blocking one of ours, or an active persistent one, is refused the same way
 * (persistent.c, nonblocking.c). */
int nsm_nb_refused(const char *call, MPI_Comm comm, const char *what, const char *refused, const char *accepted)
{
    fprintf(stderr, "nodeshm_mpi: %s: the request is %s (libnodeshm_mpi runs it); MPI does not allow %s "
                    "(MPI_ERR_REQUEST): %s\n", call, what, refused, accepted);
    PMPI_Comm_call_errhandler(comm != MPI_COMM_NULL ? comm : MPI_COMM_SELF, MPI_ERR_REQUEST);
    return MPI_ERR_REQUEST;
}

int MPI_Cancel(MPI_Request *request)
{
    MPI_Comm comm = MPI_COMM_NULL;
    if (request && nsm_persist_exist() && nsm_persist_cancel(*request, &comm))
        return nsm_nb_refused("MPI_Cancel", comm, "a persistent collective's", "cancelling a collective's request",
                              NSM_NB_COMPLETE_IT);
    nsm_nb_cancel_comm = MPI_COMM_NULL;
    nsm_nb_cancel_hit = 0;
    int rc = PMPI_Cancel(request);
    if (!nsm_nb_cancel_hit) return rc;
    return nsm_nb_refused("MPI_Cancel", nsm_nb_cancel_comm, "a non-blocking collective's",
                          "cancelling a collective's request", NSM_NB_COMPLETE_IT);
}
