/* libnodeshm_mpi: progress of the non-blocking collectives (nonblocking.c) at MPI_Test, Testall,
 * Testany, Testsome, Request_get_status, Wait, Waitall, Waitany, Waitsome.
 *
 * With none outstanding in the process (one relaxed load) each goes straight to the MPI library.
 * Otherwise a test makes one progress pass over every communicator's ops (core/coll/progress.h)
 * and then asks the library, which completes our generalized requests as any others; a wait
 * alternates passes with the library's test of the same arguments (core/wait.h's policy between
 * them: spin, then yield) until that test says done, or until nothing of ours is outstanding
 * any more, when the library's own wait takes over.  Testing through the library keeps it
 * progressing point-to-point and its own requests in mixed arrays, and leaves statuses, errors
 * and MPI_UNDEFINED to it; waiting in a loop of ours also drives ops the caller does not wait
 * for, whose peers may need this rank's done flags to reuse their buffers. */
#include "mpi/nsmpi.h"

/* Waits by testing: `test` sets `done`; `wait` is the library's own blocking call. */
#define NSM_WAIT_BY_TESTS(test, done, wait)                                                        \
    do {                                                                                           \
        nodeshm_waiter_t w_ = NODESHM_WAITER_INIT;                                                 \
        for (;;) {                                                                                 \
            if (!nodeshm_nb_progress()) return wait;                                               \
            int rc_ = test;                                                                        \
            if (rc_ != MPI_SUCCESS || (done)) return rc_;                                          \
            nodeshm_wait_step(&w_);                                                                \
        }                                                                                          \
    } while (0)

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!nodeshm_nb_any()) return PMPI_Wait(request, status);
    int flag = 0;
    NSM_WAIT_BY_TESTS(PMPI_Test(request, &flag, status), flag, PMPI_Wait(request, status));
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    if (!nodeshm_nb_any()) return PMPI_Waitall(count, requests, statuses);
    int flag = 0;
    NSM_WAIT_BY_TESTS(PMPI_Testall(count, requests, &flag, statuses), flag,
                      PMPI_Waitall(count, requests, statuses));
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    if (!nodeshm_nb_any()) return PMPI_Waitany(count, requests, index, status);
    int flag = 0;
    NSM_WAIT_BY_TESTS(PMPI_Testany(count, requests, index, &flag, status), flag,
                      PMPI_Waitany(count, requests, index, status));
}

/* Testsome: outcount 0 is "none yet"; MPI_UNDEFINED (no active request) ends the wait too */
int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    if (!nodeshm_nb_any()) return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    NSM_WAIT_BY_TESTS(PMPI_Testsome(incount, requests, outcount, indices, statuses), *outcount != 0,
                      PMPI_Waitsome(incount, requests, outcount, indices, statuses));
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    nodeshm_nb_progress();
    return PMPI_Test(request, flag, status);
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    nodeshm_nb_progress();
    return PMPI_Testall(count, requests, flag, statuses);
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    nodeshm_nb_progress();
    return PMPI_Testany(count, requests, index, flag, status);
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[])
{
    nodeshm_nb_progress();
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    nodeshm_nb_progress();
    return PMPI_Request_get_status(request, flag, status);
}
