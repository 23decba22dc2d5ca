/* nodeshm core: environment parsing. */
#include "core/env.h"
#include "core/status.h"

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

int nodeshm_env_size(const char *name, size_t fallback, size_t *bytes)
{
    const char *text = getenv(name);
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
    const char *text = getenv(name);
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
