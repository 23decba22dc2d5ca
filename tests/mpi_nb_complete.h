/* MPI tests of the non-blocking collectives (mpi_nonblocking.c, mpi_nonblocking_v.c): compute
 * between starts and waits, and completing an array of requests in one of six ways, chosen per
 * rank and round (Waitall, Wait in reverse, Waitany, Waitsome, Testall with compute between: overlap,
 * Test and Testany in a random order). */
#ifndef NODESHM_TESTS_MPI_NB_COMPLETE_H
#define NODESHM_TESTS_MPI_NB_COMPLETE_H
#include "mpi_check.h"

static void __attribute__((unused)) spin_us(double us)
{
    double t = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < t) {
    }
}

/* Completes every request in `req` (n of them) the way `mode` says. */
static const char *__attribute__((unused)) complete_all(int mode, int n, MPI_Request *req, uint64_t x)
{
    int done = 0, idx[64], out, flag;
    switch (mode) {
    case 0:
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        return "waitall";
    case 1:
        for (int i = n - 1; i >= 0; i--) MPI_Wait(&req[i], MPI_STATUS_IGNORE);
        return "wait in reverse";
    case 2:
        while (done < n) {
            MPI_Waitany(n, req, &out, MPI_STATUS_IGNORE);
            CHECK(out != MPI_UNDEFINED, "waitany: no active request with %d of %d done", done, n);
            if (out == MPI_UNDEFINED) break;
            done++;
        }
        return "waitany";
    case 3:
        while (done < n) {
            MPI_Waitsome(n, req, &out, idx, MPI_STATUSES_IGNORE);
            CHECK(out != MPI_UNDEFINED && out > 0, "waitsome: outcount %d with %d of %d done", out, done, n);
            if (out == MPI_UNDEFINED || out <= 0) break;
            done += out;
        }
        return "waitsome";
    case 4: /* overlap: compute between tests */
        for (flag = 0; !flag;) {
            spin_us(2);
            MPI_Testall(n, req, &flag, MPI_STATUSES_IGNORE);
        }
        return "testall with compute";
    default: /* Test, one request at a time in a rank's own order, and Testany */
        for (int left = n; left > 0;) {
            int i = (int)((x = mix(x)) % (uint64_t)n);
            if (req[i] == MPI_REQUEST_NULL) {
                MPI_Testany(n, req, &out, &flag, MPI_STATUS_IGNORE);
                if (flag && out != MPI_UNDEFINED) left--;
                continue;
            }
            MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
            if (flag) left--;
        }
        return "test in random order";
    }
}

#endif
