/* nodeshm core: settings (environment or tuning file), parsed strictly (a bad value is an error,
 * not a default), and the messages about them.
 *
 * One reader for both faces: libnodeshm (OpenSHMEM) and libnodeshm_mpi (the PMPI interposer)
 * compile this file; it needs only libc, core/tuning.c and the MPI library (for a rank number in
 * messages), not the OpenSHMEM runtime.  A face says how its messages look. */
#ifndef NODESHM_ENV_H
#define NODESHM_ENV_H
#include <stdarg.h>
#include <stddef.h>

typedef struct nodeshm_face {
    const char *name; /* first word of every message: "nodeshm", "nodeshm_mpi" */
    const char *who;  /* what a process is called there: "PE", "rank" */
    const char *init; /* the call that reads the settings, named by a bad value's message */
} nodeshm_face_t;
extern const nodeshm_face_t nodeshm_face_shmem; /* nodeshm: PE n: shmem_init: ... */
extern const nodeshm_face_t nodeshm_face_mpi;   /* nodeshm_mpi: rank n: MPI_Init: ... */

/* Parses a size in the OpenSHMEM syntax: an integer or floating point value with an optional
 * k/K, m/M, g/G, t/T suffix (powers of 1024) and an optional b/B after it ("1.5GB", "512B").
 * Returns NODESHM_OK or NODESHM_ERR_ENV. */
int nodeshm_parse_size(const char *text, size_t *bytes);
/* What nodeshm_parse_size accepts, for messages. */
#define NODESHM_SIZE_SYNTAX "a size such as 512k, 1.5m, 1g or 1048576"

/* Face-aware readers: a bad value (or a bad tuning file) is reported once, as
 * "<face>: <init>: invalid NAME='VALUE' (expected ...)", and NODESHM_ERR_ENV returned.
 * Size: `fallback` when unset; a value above `limit` is clamped to it (*clamped = 1; may be
 * NULL), since for a threshold or a budget "more than can be used" means "all that can be". */
int nodeshm_setting_size(const nodeshm_face_t *face, const char *name, size_t fallback, size_t limit,
                         size_t *bytes, int *clamped);
/* An integer in [min, max]; `fallback` when unset or empty. */
int nodeshm_setting_long(const nodeshm_face_t *face, const char *name, long fallback, long min, long max,
                         long *value);
/* A list of words from `words[0..n-1]` separated by commas or spaces (case-insensitive):
 * chosen[i] = 1 for each word given (left alone otherwise); unset: nothing chosen. */
int nodeshm_setting_words(const nodeshm_face_t *face, const char *name, const char *const *words, int n,
                          int *chosen);

/* A text setting (a path, a word): *text is its value, NULL when unset.  NODESHM_ERR_ENV only
 * for a bad tuning file (reported).  A value the caller cannot use it reports with
 * nodeshm_setting_invalid: "invalid NAME='VALUE' (expected <expected>)". */
int nodeshm_setting_text(const nodeshm_face_t *face, const char *name, const char **text);
void nodeshm_setting_invalid(const nodeshm_face_t *face, const char *name, const char *text, const char *expected);

/* The OpenSHMEM face's readers (shmem_init): nodeshm_setting_* with nodeshm_face_shmem. */
int nodeshm_env_size(const char *name, size_t fallback, size_t *bytes);
int nodeshm_env_long(const char *name, long fallback, long min, long max, long *value);

/* Messages on stderr, one write() per line (lines of different processes do not interleave):
 * "<face>: <who> <n>: <call>: <text>", without "<who> <n>: " when n < 0 and MPI is not running
 * (with MPI running, n < 0 means the rank in MPI_COMM_WORLD). */
void nodeshm_vmessage(const nodeshm_face_t *face, int n, const char *call, const char *fmt, va_list ap);
/* Whether SHMEM_DEBUG or NODESHM_DEBUG (environment or tuning file) is set and not "0": the one
 * switch for both faces' debugging messages. */
int nodeshm_debug_enabled(void);
/* A debugging message ("<face>: <who> <n>: debug: ...") when nodeshm_debug_enabled(). */
void nodeshm_debug_as(const nodeshm_face_t *face, int n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
