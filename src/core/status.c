/* nodeshm core: error reporting and job abort. */
#include "core/status.h"
#include "core/env.h"
#include "core/runtime.h"
#include "core/tuning.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The printing and the NODESHM_DEBUG switch live in core/env.c, shared with libnodeshm_mpi. */
static void vprint(const char *call, const char *fmt, va_list ap)
{
    nodeshm_vmessage(&nodeshm_face_shmem, nodeshm_rt.my_pe, call, fmt, ap);
}

int nodeshm_report(int status, const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint(call, fmt, ap);
    va_end(ap);
    return status;
}

void nodeshm_debug(const char *fmt, ...)
{
    if (!nodeshm_debug_enabled()) return;
    va_list ap;
    va_start(ap, fmt);
    vprint("debug", fmt, ap);
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
