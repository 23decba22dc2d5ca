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

