/* nodeshm core: status codes and error reporting.
 *
 * Core functions return a status; the first function that detects an error reports it once,
 * naming the public call and the bad value, and returns NODESHM_ERR_*; callers only propagate. */
#ifndef NODESHM_STATUS_H
#define NODESHM_STATUS_H

#include <stdarg.h>

enum nodeshm_status {
    NODESHM_OK = 0,
    NODESHM_ERR_ARG,      /* a bad argument: PE, address, size, comparison ... */
    NODESHM_ERR_NOMEM,    /* symmetric heap or host memory exhausted */
    NODESHM_ERR_SYSTEM,   /* a system call failed */
    NODESHM_ERR_MPI,      /* the MPI library returned an error */
    NODESHM_ERR_ENV,      /* a bad environment variable */
};

/* Prints "nodeshm: PE <n>: <call>: <message>" on stderr and returns `status`. */
int nodeshm_report(int status, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prints the message only when SHMEM_DEBUG or NODESHM_DEBUG is set. */
void nodeshm_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int nodeshm_debug_enabled(void);
/* Ends the whole job (every PE) after an error has been reported: nonzero exit, no hang. */
_Noreturn void nodeshm_abort_job(int status);
/* Convenience for API entry points: abort when a core call failed. */
#define NODESHM_CHECK(expr)                                                                        \
    do {                                                                                           \
        int nodeshm_rc_ = (expr);                                                                  \
        if (__builtin_expect(nodeshm_rc_ != NODESHM_OK, 0)) nodeshm_abort_job(nodeshm_rc_);        \
    } while (0)

#endif
