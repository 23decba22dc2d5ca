/* nodeshm core: settings from the environment or from a tuning file (see tuning.h). */
#include "core/tuning.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file is small (a few thresholds): a fixed table keeps this free of allocation bugs;
 * more entries than this is reported as an error, not truncated silently. */
#define TUNING_MAX 128
#define TUNING_NAME_MAX 64
#define TUNING_VALUE_MAX 256

typedef struct tuning_entry {
    char name[TUNING_NAME_MAX];
    char value[TUNING_VALUE_MAX];
} tuning_entry_t;

static struct {
    pthread_once_t once;
    int count;
    tuning_entry_t entry[TUNING_MAX];
    char path[4096]; /* empty: no file */
    char error[4608]; /* empty: fine (room for the path, the line and why) */
} tuning = {.once = PTHREAD_ONCE_INIT};

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

/* Checks one non-comment line and stores it; on error fills tuning.error. */
static int parse_line(char *line, int lineno, const char *text)
{
    const char *why = NULL;
    char *eq = strchr(line, '=');
    char *name = line, *value = NULL;
    if (!eq) why = "expected NAME=value";
    else {
        *eq = '\0';
        name = trim(line);
        value = trim(eq + 1);
        if (strncmp(name, "NODESHM_", 8) != 0 || !name[8]) why = "NAME must start with NODESHM_";
        for (const char *c = name; !why && *c; c++)
            if (!(isupper((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_'))
                why = "NAME may hold only A-Z, 0-9 and _";
        if (!why && strlen(name) >= TUNING_NAME_MAX) why = "NAME too long";
        if (!why && !*value) why = "empty value";
        if (!why && strlen(value) >= TUNING_VALUE_MAX) why = "value too long";
        for (int i = 0; !why && i < tuning.count; i++)
            if (!strcmp(tuning.entry[i].name, name)) why = "NAME given twice";
        if (!why && tuning.count == TUNING_MAX) why = "too many settings";
    }
    if (why) {
        snprintf(tuning.error, sizeof tuning.error, "tuning file %s line %d: '%s': %s",
                 tuning.path, lineno, text, why);
        return -1;
    }
    tuning_entry_t *e = &tuning.entry[tuning.count++];
    snprintf(e->name, sizeof e->name, "%s", name);
    snprintf(e->value, sizeof e->value, "%s", value);
    return 0;
}

static void load(void)
{
    const char *explicit = getenv("NODESHM_TUNING");
    if (explicit && *explicit) {
        snprintf(tuning.path, sizeof tuning.path, "%s", explicit);
    } else {
        const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
        if (xdg && *xdg) snprintf(tuning.path, sizeof tuning.path, "%s/nodeshm/tuning.conf", xdg);
        else if (home && *home)
            snprintf(tuning.path, sizeof tuning.path, "%s/.config/nodeshm/tuning.conf", home);
    }
    if (!tuning.path[0]) return;
    FILE *f = fopen(tuning.path, "r");
    if (!f) {
        /* the default location is optional; a file the user named must be there */
        if (explicit && *explicit)
            snprintf(tuning.error, sizeof tuning.error, "cannot read tuning file %s "
                     "(NODESHM_TUNING): %s", tuning.path, strerror(errno));
        tuning.path[0] = '\0';
        return;
    }
    char *line = NULL, text[160];
    size_t cap = 0;
    ssize_t len;
    for (int lineno = 1; (len = getline(&line, &cap, f)) >= 0; lineno++) {
        if (len && line[len - 1] == '\n') line[--len] = '\0';
        snprintf(text, sizeof text, "%s", line); /* the line as written, for the message */
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *body = trim(line);
        if (!*body) continue;
        if (parse_line(body, lineno, text)) break;
    }
    if (!tuning.error[0] && ferror(f))
        snprintf(tuning.error, sizeof tuning.error, "cannot read tuning file %s: %s", tuning.path,
                 strerror(errno));
    free(line);
    fclose(f);
    if (tuning.error[0]) { /* a bad file is applied not at all, not in part */
        tuning.count = 0;
        tuning.path[0] = '\0';
    }
}

static void ensure_loaded(void) { pthread_once(&tuning.once, load); }

const char *nodeshm_getenv(const char *name)
{
    const char *v = getenv(name);
    if (v) return v;
    ensure_loaded();
    for (int i = 0; i < tuning.count; i++)
        if (!strcmp(tuning.entry[i].name, name)) return tuning.entry[i].value;
    return NULL;
}

const char *nodeshm_tuning_error(void)
{
    ensure_loaded();
    return tuning.error[0] ? tuning.error : NULL;
}

const char *nodeshm_tuning_path(void)
{
    ensure_loaded();
    return tuning.path[0] ? tuning.path : NULL;
}

int nodeshm_tuning_count(void)
{
    ensure_loaded();
    return tuning.count;
}
