/* nodeshm core: environment variables, parsed strictly (a bad value is an error, not a default). */
#ifndef NODESHM_ENV_H
#define NODESHM_ENV_H
#include <stddef.h>

/* Parses a size in the OpenSHMEM syntax: an integer or floating point value with an optional
 * k/K, m/M, g/G, t/T suffix (powers of 1024). Returns NODESHM_OK or NODESHM_ERR_ENV. */
int nodeshm_parse_size(const char *text, size_t *bytes);
/* Reads variable `name` as a size; `fallback` when unset. Reports bad values (naming the
 * variable and the value). */
int nodeshm_env_size(const char *name, size_t fallback, size_t *bytes);
/* Reads an integer in [min, max]; `fallback` when unset or empty. */
int nodeshm_env_long(const char *name, long fallback, long min, long max, long *value);

#endif
