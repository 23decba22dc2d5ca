/* nodeshm core: error reporting and job abort. */
#include "core/status.h"
#include "core/runtime.h"
#include "core/tuning.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int debug_level = -1;

int nodeshm_debug_enabled(void)
{
    if (debug_level < 0) {
        const char *a = getenv("SHMEM_DEBUG"), *b = nodeshm_getenv("NODESHM_DEBUG");
        debug_level = (a && *a && strcmp(a, "0") != 0) || (b && *b && strcmp(b, "0") != 0);
    }
    return debug_level;
}

static void vprint(const char *prefix, const char *fmt, va_list ap)
{
    char msg[1024];
    /* before shmem_init knows the PE number (e.g. a bad tuning file), the MPI rank if there is
     * one, else no number at all */
    int who = nodeshm_rt.my_pe, mpi_up = 0, mpi_down = 0, n;
    if (who < 0 && MPI_Initialized(&mpi_up) == MPI_SUCCESS && mpi_up &&
        MPI_Finalized(&mpi_down) == MPI_SUCCESS && !mpi_down)
        MPI_Comm_rank(MPI_COMM_WORLD, &who);
    if (who >= 0) n = snprintf(msg, sizeof msg, "nodeshm: PE %d: %s", who, prefix);
    else n = snprintf(msg, sizeof msg, "nodeshm: %s", prefix);
    if (n < 0 || n >= (int)sizeof msg) n = 0;
    vsnprintf(msg + n, sizeof msg - (size_t)n - 1, fmt, ap);
    size_t len = strlen(msg);
    msg[len++] = '\n';
    /* one write() so lines of different PEs do not interleave */
    ssize_t w = write(STDERR_FILENO, msg, len);
    (void)w;
}

int nodeshm_report(int status, const char *call, const char *fmt, ...)
{
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s: ", call);
    va_list ap;
    va_start(ap, fmt);
    vprint(prefix, fmt, ap);
    va_end(ap);
    return status;
}

void nodeshm_debug(const char *fmt, ...)
{
    if (!nodeshm_debug_enabled()) return;
    va_list ap;
    va_start(ap, fmt);
    vprint("debug: ", fmt, ap);
    va_end(ap);
}

_Noreturn void nodeshm_abort_job(int status)
{
    int mpi_up = 0, mpi_down = 0;
    MPI_Initialized(&mpi_up);
    MPI_Finalized(&mpi_down);
    /* MPI_Abort makes the launcher kill every PE, so peers waiting on this one do not hang;
     * segments were unlinked at init, so nothing is left in /dev/shm. */
    if (mpi_up && !mpi_down) {
        /* Hydra may drop stderr written just before MPI_Abort (seen in 1 run of 15): let the
         * launcher forward the message first; this is an error path, 50 ms do not matter */
        struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, NULL);
        MPI_Abort(MPI_COMM_WORLD, status ? status : 1);
    }
    _exit(status ? status : 1);
}
