/* nodeshm core, OpenSHMEM team collectives: which path each call took, counted per family
 * (team_coll.h: COLL_FAMILIES, COLL_PATHS), so that a test can check that a size took the path it
 * should (shmemx_coll_calls), as the interposer's tests count its calls per op.  A relaxed
 * load and store per call (team_coll.h). */
#include "core/coll/team/team_coll.h"

#include <string.h>

long coll_path_calls[COLL_FAMILY_COUNT][COLL_PATH_COUNT];

static const char *const family_names[COLL_FAMILY_COUNT] = {
#define COLL_FAMILY_NAME(id, name) name,
    COLL_FAMILIES(COLL_FAMILY_NAME)
#undef COLL_FAMILY_NAME
};
static const char *const path_names[COLL_PATH_COUNT] = {
#define COLL_PATH_NAME(id, name) name,
    COLL_PATHS(COLL_PATH_NAME)
#undef COLL_PATH_NAME
};

long nodeshm_coll_calls(const char *family, const char *path)
{
    int f = -1, p = -1;
    for (int i = 0; family && i < COLL_FAMILY_COUNT; i++)
        if (!strcmp(family, family_names[i])) f = i;
    for (int i = 0; path && i < COLL_PATH_COUNT; i++)
        if (!strcmp(path, path_names[i])) p = i;
    return f < 0 || p < 0 ? -1 : __atomic_load_n(&coll_path_calls[f][p], __ATOMIC_RELAXED);
}
