/* nodeshm OpenSHMEM face: communication contexts.
 *
 * A context is a small object: options, team (its PE numbering), an id, and the count of MPI
 * operations it issued (core/access.h).  Within a node every operation completes at once, so a
 * context costs nothing there.  Between nodes all contexts share the segment windows (a window
 * is created collectively, shmem_ctx_create is local); shmem_ctx_quiet flushes them only when the
 * context has operations that no finished flush covers, which completes other contexts' too (the
 * specification allows it).
 *
 * SHMEM_CTX_INVALID: RMA and AMO calls on it are errors (undefined behaviour in the
 * specification: the job ends with a message naming the call); shmem_ctx_fence, shmem_ctx_quiet,
 * shmem_ctx_pe_quiet (order.c) and shmem_ctx_destroy do nothing; shmem_ctx_get_team returns
 * SHMEM_TEAM_INVALID and nonzero. */
#include "shmem/internal.h"
#include "core/team.h"

#include <pthread.h>
#include <stdlib.h>

struct nodeshm_ctx nodeshm_ctx_default_obj = {
    .magic = NODESHM_CTX_LIVE, .id = 0, .team = &nodeshm_team_world_obj,
};

/* live contexts (but the default), for the teams' num_contexts limit; ids */
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static nodeshm_ctx_t *live;
static int next_id = 1;

#define KNOWN_OPTIONS (SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE)

int nodeshm_bad_ctx(const char *call, const nodeshm_ctx_t *ctx)
{
    if (!ctx) return nodeshm_report(NODESHM_ERR_ARG, call, "invalid context SHMEM_CTX_INVALID");
    return nodeshm_report(NODESHM_ERR_ARG, call, "context %p is not a valid context (destroyed?)",
                          (const void *)ctx);
}

int nodeshm_ctx_bad_pe(const char *call, const nodeshm_ctx_t *ctx, int pe)
{
    return nodeshm_report(NODESHM_ERR_ARG, call,
                          "invalid PE %d for context %d (its team's PEs are 0 to %d)", pe, ctx->id,
                          ctx->n_pes - 1);
}

/* Local part of both creations: nonzero (no report: a failed creation is not an error) when the
 * options are unknown or the team's num_contexts are all in use. */
static int ctx_new(const char *call, long options, shmem_team_t handle, nodeshm_team_t *t,
                   nodeshm_ctx_t **out)
{
    if (options & ~KNOWN_OPTIONS) {
        nodeshm_debug("%s: unknown options %#lx", call, options);
        return 1;
    }
    nodeshm_ctx_t *c = calloc(1, sizeof *c);
    if (!c) return 1;
    c->options = options;
    c->team = handle;
    c->n_pes = t->n_pes;
    /* PE numbers of a team that is the world in world order need no translation */
    int identity = t->n_pes == nodeshm_rt.n_pes;
    for (int i = 0; identity && i < t->n_pes; i++) identity = t->pes[i] == i;
    if (!identity) {
        c->pes = malloc(sizeof *c->pes * (size_t)t->n_pes);
        if (!c->pes) {
            free(c);
            return 1;
        }
        for (int i = 0; i < t->n_pes; i++) c->pes[i] = t->pes[i];
    }
    pthread_mutex_lock(&ctx_lock);
    if (t->config.num_contexts > 0) { /* SHMEM_TEAM_NUM_CONTEXTS: at most that many at a time */
        int n = 0;
        for (nodeshm_ctx_t *o = live; o; o = o->next) n += o->team == handle;
        if (n >= t->config.num_contexts) {
            pthread_mutex_unlock(&ctx_lock);
            nodeshm_debug("%s: the team's %d contexts are in use", call, t->config.num_contexts);
            free(c->pes);
            free(c);
            return 1;
        }
    }
    c->id = next_id++;
    c->next = live;
    if (live) live->prev = c;
    live = c;
    c->magic = NODESHM_CTX_LIVE;
    pthread_mutex_unlock(&ctx_lock);
    *out = c;
    return 0;
}

static void ctx_free(nodeshm_ctx_t *c)
{
    pthread_mutex_lock(&ctx_lock);
    if (c->prev) c->prev->next = c->next;
    else live = c->next;
    if (c->next) c->next->prev = c->prev;
    c->magic = 0;
    pthread_mutex_unlock(&ctx_lock);
    free(c->pes);
    free(c);
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    NODESHM_CHECK(nodeshm_require_init(__func__));
    if (!ctx) NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, __func__, "ctx is NULL"));
    nodeshm_team_t *world = nodeshm_team_get(NODESHM_TEAM_WORLD);
    if (!world) return 1;
    nodeshm_ctx_t *c;
    if (ctx_new(__func__, options, SHMEM_TEAM_WORLD, world, &c)) return 1;
    *ctx = c;
    return 0;
}

/* Collective over the team: succeeds or fails on all of its members. */
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    NODESHM_CHECK(nodeshm_require_init(__func__));
    if (!ctx) NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, __func__, "ctx is NULL"));
    nodeshm_team_t *t = nodeshm_team_get(team);
    if (!t) return 1; /* SHMEM_TEAM_INVALID or destroyed: nonzero on every caller */
    NODESHM_CHECK(nodeshm_team_sync(__func__, t));
    nodeshm_ctx_t *c = NULL;
    int ok = ctx_new(__func__, options, team, t, &c) == 0, all = 0;
    int err = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, t->comm);
    if (err != MPI_SUCCESS)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_MPI, __func__, "MPI_Allreduce failed"));
    if (!all && ok) ctx_free(c);
    NODESHM_CHECK(nodeshm_team_sync(__func__, t));
    if (!all) return 1;
    *ctx = c;
    return 0;
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID) return;
    if (ctx == SHMEM_CTX_DEFAULT)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, __func__, "cannot destroy SHMEM_CTX_DEFAULT"));
    if (ctx->magic != NODESHM_CTX_LIVE) NODESHM_CHECK(nodeshm_bad_ctx(__func__, ctx));
    NODESHM_CHECK(nodeshm_ctx_quiet(__func__, ctx));
    ctx_free(ctx);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (!team) NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, __func__, "team is NULL"));
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return 1;
    }
    if (ctx->magic != NODESHM_CTX_LIVE) NODESHM_CHECK(nodeshm_bad_ctx(__func__, ctx));
    *team = ctx->team;
    return 0;
}
