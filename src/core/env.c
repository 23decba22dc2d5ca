/* nodeshm core: settings and the messages about them (see env.h).  Settings come from the
 * environment or the tuning file (core/tuning.h); a bad tuning file fails the first setting
 * read, at the face's init. */
#include "core/env.h"
#include "core/status.h"
#include "core/tuning.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

const nodeshm_face_t nodeshm_face_shmem = {"nodeshm", "PE", "shmem_init"};
const nodeshm_face_t nodeshm_face_mpi = {"nodeshm_mpi", "rank", "MPI_Init"};

/* ---------------------------------------------------------------- messages */

void nodeshm_vmessage(const nodeshm_face_t *face, int n, const char *call, const char *fmt, va_list ap)
{
    char msg[1024];
    /* before the face knows its number (e.g. a bad tuning file), the MPI rank if there is one,
     * else no number at all; PMPI_: in libnodeshm_mpi the MPI_ names may be intercepted */
    int up = 0, down = 0, len;
    if (n < 0 && PMPI_Initialized(&up) == MPI_SUCCESS && up && PMPI_Finalized(&down) == MPI_SUCCESS &&
        !down)
        PMPI_Comm_rank(MPI_COMM_WORLD, &n);
    if (n >= 0) len = snprintf(msg, sizeof msg, "%s: %s %d: %s: ", face->name, face->who, n, call);
    else len = snprintf(msg, sizeof msg, "%s: %s: ", face->name, call);
    if (len < 0 || len >= (int)sizeof msg) len = 0;
    vsnprintf(msg + len, sizeof msg - (size_t)len - 1, fmt, ap);
    size_t total = strlen(msg);
    msg[total++] = '\n';
    ssize_t w = write(STDERR_FILENO, msg, total);
    (void)w;
}

static void message(const nodeshm_face_t *face, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void message(const nodeshm_face_t *face, const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nodeshm_vmessage(face, -1, call, fmt, ap);
    va_end(ap);
}

static int debug_level = -1;

int nodeshm_debug_enabled(void)
{
    if (debug_level < 0) {
        const char *a = getenv("SHMEM_DEBUG"), *b = nodeshm_getenv("NODESHM_DEBUG");
        debug_level = (a && *a && strcmp(a, "0") != 0) || (b && *b && strcmp(b, "0") != 0);
    }
    return debug_level;
}

void nodeshm_debug_as(const nodeshm_face_t *face, int n, const char *fmt, ...)
{
    if (!nodeshm_debug_enabled()) return;
    va_list ap;
    va_start(ap, fmt);
    nodeshm_vmessage(face, n, "debug", fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- parsing */

int nodeshm_parse_size(const char *text, size_t *bytes)
{
    if (!text || !*text) return NODESHM_ERR_ENV;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno || !(v >= 0) || isinf(v)) return NODESHM_ERR_ENV;
    double scale = 1;
    switch (*end) {
    case 'k': case 'K': scale = 1024.0; end++; break;
    case 'm': case 'M': scale = 1024.0 * 1024; end++; break;
    case 'g': case 'G': scale = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': scale = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end == 'b' || *end == 'B') end++; /* "1GB", "512B": common spellings */
    if (*end != '\0') return NODESHM_ERR_ENV;
    v *= scale;
    if (v > 9.0e18) return NODESHM_ERR_ENV;
    *bytes = (size_t)v;
    return NODESHM_OK;
}

/* The text of setting `name` (NULL: unset).  Reports a bad tuning file (every read fails). */
static int lookup(const nodeshm_face_t *face, const char *name, const char **text)
{
    static int told; /* the report and the debug line, once per process */
    const char *why = nodeshm_tuning_error();
    if (why) {
        *text = NULL;
        if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED)) message(face, face->init, "%s", why);
        return NODESHM_ERR_ENV;
    }
    if (nodeshm_tuning_path() && !__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
        nodeshm_debug_as(face, -1, "tuning file %s: %d settings (the environment wins over it)",
                         nodeshm_tuning_path(), nodeshm_tuning_count());
    *text = nodeshm_getenv(name);
    return NODESHM_OK;
}

int nodeshm_setting_size(const nodeshm_face_t *face, const char *name, size_t fallback, size_t limit,
                         size_t *bytes, int *clamped)
{
    const char *text;
    if (clamped) *clamped = 0;
    if (lookup(face, name, &text)) return NODESHM_ERR_ENV;
    if (!text) {
        *bytes = fallback;
        return NODESHM_OK;
    }
    if (nodeshm_parse_size(text, bytes) != NODESHM_OK) {
        message(face, face->init, "invalid %s='%s' (expected " NODESHM_SIZE_SYNTAX ")", name, text);
        return NODESHM_ERR_ENV;
    }
    if (*bytes > limit) {
        *bytes = limit;
        if (clamped) *clamped = 1;
    }
    return NODESHM_OK;
}

int nodeshm_setting_long(const nodeshm_face_t *face, const char *name, long fallback, long min, long max,
                         long *value)
{
    const char *text;
    if (lookup(face, name, &text)) return NODESHM_ERR_ENV;
    if (!text || !*text) {
        *value = fallback;
        return NODESHM_OK;
    }
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v < min || v > max) {
        message(face, face->init, "invalid %s='%s' (expected an integer from %ld to %ld)", name, text, min,
                max);
        return NODESHM_ERR_ENV;
    }
    *value = v;
    return NODESHM_OK;
}

int nodeshm_setting_words(const nodeshm_face_t *face, const char *name, const char *const *words, int n,
                          int *chosen)
{
    const char *text;
    if (lookup(face, name, &text)) return NODESHM_ERR_ENV;
    if (!text) return NODESHM_OK;
    int bad = 0;
    for (const char *p = text; *p && !bad;) {
        size_t len = strcspn(p, ", ");
        int found = 0;
        for (int i = 0; len && i < n; i++)
            if (strlen(words[i]) == len && !strncasecmp(p, words[i], len)) chosen[i] = found = 1;
        bad = len && !found;
        p += len;
        p += strspn(p, ", ");
    }
    if (bad) {
        char list[1024];
        size_t used = 0;
        list[0] = '\0';
        for (int i = 0; i < n && used < sizeof list; i++) {
            int w = snprintf(list + used, sizeof list - used, "%s%s", i ? " " : "", words[i]);
            if (w < 0) break;
            used += (size_t)w;
        }
        message(face, face->init, "invalid %s='%s' (expected a comma-separated list of: %s)", name, text,
                list);
        return NODESHM_ERR_ENV;
    }
    return NODESHM_OK;
}

int nodeshm_setting_text(const nodeshm_face_t *face, const char *name, const char **text)
{
    return lookup(face, name, text);
}

void nodeshm_setting_invalid(const nodeshm_face_t *face, const char *name, const char *text, const char *expected)
{
    message(face, face->init, "invalid %s='%s' (expected %s)", name, text, expected);
}

/* ---------------------------------------------------------------- the OpenSHMEM face */

int nodeshm_env_size(const char *name, size_t fallback, size_t *bytes)
{
    return nodeshm_setting_size(&nodeshm_face_shmem, name, fallback, (size_t)-1, bytes, NULL);
}

int nodeshm_env_long(const char *name, long fallback, long min, long max, long *value)
{
    return nodeshm_setting_long(&nodeshm_face_shmem, name, fallback, min, max, value);
}

/* Ends the whole job after an error message; in both libraries (the interposer has no runtime). */
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
