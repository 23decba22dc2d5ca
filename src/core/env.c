/* nodeshm core: environment parsing.  Settings come from the environment or the tuning file
 * (core/tuning.h); a bad tuning file fails the first setting read, in shmem_init. */
#include "core/env.h"
#include "core/status.h"
#include "core/tuning.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

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
    if ((*end == 'b' || *end == 'B') && scale > 1) end++; /* "1GB" is a common spelling */
    if (*end != '\0') return NODESHM_ERR_ENV;
    v *= scale;
    if (v > 9.0e18) return NODESHM_ERR_ENV;
    *bytes = (size_t)v;
    return NODESHM_OK;
}

/* The text of setting `name` (NULL: unset).  Reports a bad tuning file (every read fails). */
static int env_lookup(const char *name, const char **text)
{
    static int told; /* the report and the debug line, once per process */
    const char *why = nodeshm_tuning_error();
    if (why) {
        *text = NULL;
        if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
            nodeshm_report(NODESHM_ERR_ENV, "shmem_init", "%s", why);
        return NODESHM_ERR_ENV;
    }
    if (nodeshm_tuning_path() && !__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
        nodeshm_debug("tuning file %s: %d settings (the environment wins over it)",
                      nodeshm_tuning_path(), nodeshm_tuning_count());
    *text = nodeshm_getenv(name);
    return NODESHM_OK;
}

int nodeshm_env_size(const char *name, size_t fallback, size_t *bytes)
{
    const char *text;
    if (env_lookup(name, &text)) return NODESHM_ERR_ENV;
    if (!text) {
        *bytes = fallback;
        return NODESHM_OK;
    }
    if (nodeshm_parse_size(text, bytes) != NODESHM_OK)
        return nodeshm_report(NODESHM_ERR_ENV, "shmem_init",
                              "invalid %s='%s' (expected a size such as 512M, 1.5G or 1073741824)",
                              name, text);
    return NODESHM_OK;
}

int nodeshm_env_long(const char *name, long fallback, long min, long max, long *value)
{
    const char *text;
    if (env_lookup(name, &text)) return NODESHM_ERR_ENV;
    if (!text || !*text) {
        *value = fallback;
        return NODESHM_OK;
    }
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v < min || v > max)
        return nodeshm_report(NODESHM_ERR_ENV, "shmem_init",
                              "invalid %s='%s' (expected an integer from %ld to %ld)", name, text,
                              min, max);
    *value = v;
    return NODESHM_OK;
}
