/* nodeshm OpenSHMEM face: teams (OpenSHMEM 1.5), over core/team.h. */
#include "shmem/internal.h"
#include "core/team.h"

#include <stdlib.h>

extern __typeof__(shmem_ptr) pshmem_ptr; /* setup.c */

/* Queries on an invalid handle return -1, as the specification asks. */
int shmem_team_my_pe(shmem_team_t team)
{
    nodeshm_team_t *t = nodeshm_team_get(team);
    return t ? t->my_pe : -1;
}
NODESHM_PSHMEM(shmem_team_my_pe)

int shmem_team_n_pes(shmem_team_t team)
{
    nodeshm_team_t *t = nodeshm_team_get(team);
    return t ? t->n_pes : -1;
}
NODESHM_PSHMEM(shmem_team_n_pes)

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    nodeshm_team_t *t = nodeshm_team_get(team);
    if (!t) return -1;
    if (config_mask & ~SHMEM_TEAM_NUM_CONTEXTS) {
        nodeshm_report(NODESHM_ERR_ARG, __func__, "invalid config_mask %#lx (known bits: %#lx)",
                       config_mask, SHMEM_TEAM_NUM_CONTEXTS);
        return -1;
    }
    if (config_mask && !config) {
        nodeshm_report(NODESHM_ERR_ARG, __func__, "config is NULL");
        return -1;
    }
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = t->config.num_contexts;
    return 0;
}
NODESHM_PSHMEM(shmem_team_get_config)

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    nodeshm_team_t *s = nodeshm_team_get(src_team), *d = nodeshm_team_get(dest_team);
    if (!s || !d || src_pe < 0 || src_pe >= s->n_pes) return -1;
    return nodeshm_team_index_of(d, s->pes[src_pe]);
}
NODESHM_PSHMEM(shmem_team_translate_pe)

/* The configuration a team is created with: defaults, overridden by the fields config_mask
 * selects.  Returns 0 and reports when this PE's arguments are bad. */
static int parse_config(const char *call, const char *name, const shmem_team_config_t *config,
                        long mask, nodeshm_team_config_t *out)
{
    out->num_contexts = 0;
    if (mask & ~SHMEM_TEAM_NUM_CONTEXTS) {
        nodeshm_report(NODESHM_ERR_ARG, call, "invalid %s mask %#lx (known bits: %#lx)", name, mask,
                       SHMEM_TEAM_NUM_CONTEXTS);
        return 0;
    }
    if (!(mask & SHMEM_TEAM_NUM_CONTEXTS)) return 1;
    if (!config) {
        nodeshm_report(NODESHM_ERR_ARG, call, "%s is NULL but its mask is %#lx", name, mask);
        return 0;
    }
    if (config->num_contexts < 0) {
        nodeshm_report(NODESHM_ERR_ARG, call, "invalid %s->num_contexts %d (must be >= 0)", name,
                       config->num_contexts);
        return 0;
    }
    out->num_contexts = config->num_contexts;
    return 1;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    static const char call[] = "shmem_team_split_strided";
    NODESHM_CHECK(nodeshm_require_init(call));
    if (!new_team) NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, call, "new_team is NULL"));
    *new_team = SHMEM_TEAM_INVALID;
    nodeshm_team_t *p = nodeshm_team_get(parent_team);
    if (!p) return -1; /* SHMEM_TEAM_INVALID parent: no team, nonzero (and nothing to agree over) */

    /* Every PE of the parent passes the same triplet, so all reject a bad one alike, without
     * communicating; the parent's PE 0 says why. */
    long n = p->n_pes, last = (long)start + (long)(size - 1) * stride;
    const char *why = size < 1                                 ? "size must be >= 1"
                      : start < 0 || start >= n                ? "start is not a PE of the parent team"
                      : stride == 0 && size != 1               ? "stride 0 needs size 1"
                      : last < 0 || last >= n                  ? "the PEs run past the parent team"
                                                               : NULL;
    if (why) {
        if (p->my_pe == 0)
            nodeshm_report(NODESHM_ERR_ARG, call,
                           "invalid triplet start %d, stride %d, size %d for a parent team of %ld "
                           "PEs: %s", start, stride, size, n, why);
        return -1;
    }
    nodeshm_team_config_t cfg;
    int config_ok = parse_config(call, "config", config, config_mask, &cfg);

    long d = (long)p->my_pe - start;
    int member = stride == 0 ? d == 0 : d % stride == 0 && d / stride >= 0 && d / stride < size;
    int me = member ? (stride == 0 ? 0 : (int)(d / stride)) : -1;
    int *pes = NULL;
    if (member) {
        pes = malloc(sizeof(int) * (size_t)size);
        if (!pes) NODESHM_CHECK(nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory"));
        for (int i = 0; i < size; i++) pes[i] = p->pes[start + (long)i * stride];
    }
    nodeshm_team_t *t = NULL;
    int rc = nodeshm_team_split(call, p, member, 0, pes, size, me, &cfg, config_ok, &t);
    free(pes);
    /* The PEs outside the new team learn its fate too: nonzero on all PEs of the parent. */
    int failed = rc != NODESHM_OK || !config_ok, any_failed = failed;
    if (MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, p->comm) != MPI_SUCCESS)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_MPI, call, "MPI_Allreduce over the parent failed"));
    if (any_failed) {
        if (t) NODESHM_CHECK(nodeshm_team_destroy(call, t));
        return -1;
    }
    *new_team = t;
    return 0;
}
NODESHM_PSHMEM(shmem_team_split_strided)

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    static const char call[] = "shmem_team_split_2d";
    NODESHM_CHECK(nodeshm_require_init(call));
    if (!xaxis_team || !yaxis_team)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, call, "%s is NULL",
                                     xaxis_team ? "yaxis_team" : "xaxis_team"));
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    nodeshm_team_t *p = nodeshm_team_get(parent_team);
    if (!p) return -1;
    if (xrange <= 0) {
        if (p->my_pe == 0)
            nodeshm_report(NODESHM_ERR_ARG, call, "invalid xrange %d (must be >= 1)", xrange);
        return -1;
    }
    /* parent PE p sits at (x, y) = (p mod xrange, p div xrange); the x-axis team is my row (all
     * PEs with my y, numbered by x), the y-axis team my column (all PEs with my x, numbered by y) */
    int n = p->n_pes, x = p->my_pe % xrange, y = p->my_pe / xrange;
    int row_first = y * xrange, row_n = n - row_first < xrange ? n - row_first : xrange;
    int col_n = (n - 1 - x) / xrange + 1;
    int *pes = malloc(sizeof(int) * (size_t)(row_n > col_n ? row_n : col_n));
    if (!pes) NODESHM_CHECK(nodeshm_report(NODESHM_ERR_NOMEM, call, "out of memory"));
    nodeshm_team_config_t xcfg, ycfg;
    int xok = parse_config(call, "xaxis_config", xaxis_config, xaxis_mask, &xcfg);
    int yok = parse_config(call, "yaxis_config", yaxis_config, yaxis_mask, &ycfg);

    nodeshm_team_t *xt = NULL, *yt = NULL;
    for (int i = 0; i < row_n; i++) pes[i] = p->pes[row_first + i];
    int xrc = nodeshm_team_split(call, p, 1, y, pes, row_n, x, &xcfg, xok, &xt);
    for (int i = 0; i < col_n; i++) pes[i] = p->pes[x + (long)i * xrange];
    int yrc = nodeshm_team_split(call, p, 1, x, pes, col_n, y, &ycfg, yok, &yt);
    free(pes);
    /* each new team's members have agreed on its outcome */
    *xaxis_team = xt;
    *yaxis_team = yt;
    return xrc == NODESHM_OK && yrc == NODESHM_OK ? 0 : -1;
}
NODESHM_PSHMEM(shmem_team_split_2d)

void shmem_team_destroy(shmem_team_t team)
{
    static const char call[] = "shmem_team_destroy";
    if (team == SHMEM_TEAM_INVALID) return;
    nodeshm_team_t *t = nodeshm_team_check(call, team);
    if (!t) nodeshm_abort_job(NODESHM_ERR_ARG);
    NODESHM_CHECK(nodeshm_team_destroy(call, t));
}
NODESHM_PSHMEM(shmem_team_destroy)

int shmem_team_sync(shmem_team_t team)
{
    static const char call[] = "shmem_team_sync";
    nodeshm_team_t *t = nodeshm_team_check(call, team);
    if (!t) nodeshm_abort_job(NODESHM_ERR_ARG);
    NODESHM_CHECK(nodeshm_team_sync(call, t));
    return 0;
}
NODESHM_PSHMEM(shmem_team_sync)

int shmemx_team_create_from_comm(MPI_Comm comm, shmem_team_t *team)
{
    static const char call[] = "shmemx_team_create_from_comm";
    NODESHM_CHECK(nodeshm_require_init(call));
    if (!team) NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, call, "team is NULL"));
    *team = SHMEM_TEAM_INVALID;
    if (comm == MPI_COMM_NULL) return -1; /* not a member of anything */
    nodeshm_team_config_t cfg = {0};
    nodeshm_team_t *t = NULL;
    if (nodeshm_team_from_comm(call, comm, &cfg, &t) != NODESHM_OK) return -1;
    *team = t;
    return 0;
}

int shmemx_team_get_comm(shmem_team_t team, MPI_Comm *comm)
{
    nodeshm_team_t *t = nodeshm_team_get(team);
    if (!comm) {
        nodeshm_report(NODESHM_ERR_ARG, __func__, "comm is NULL");
        return -1;
    }
    *comm = t ? t->comm : MPI_COMM_NULL;
    return t ? 0 : -1;
}

/* OpenSHMEM 1.6: shmem_ptr with a team PE number.  Through pshmem_ptr, so that a tool wrapping
 * shmem_ptr does not count this call twice. */
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    nodeshm_team_t *t = nodeshm_team_get(team); /* NULL: SHMEM_TEAM_INVALID, destroyed, no init */
    if (!t || pe < 0 || pe >= t->n_pes) return NULL;
    return pshmem_ptr(dest, t->pes[pe]);
}
NODESHM_PSHMEM(shmem_team_ptr)
