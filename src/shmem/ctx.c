/* nodeshm OpenSHMEM face: communication contexts and their sessions (OpenSHMEM 1.6).
 *
 * A context is a small object (shmem/ctx.h): options, team, session state and a core domain
 * (core/domain.h) with its PE numbering and MPI operation counts.  Within a node every
 * operation completes at once, so a context costs nothing there.  Between nodes all contexts
 * share the segment windows (a window is created collectively, context creation is local);
 * shmem_ctx_quiet flushes them only when the context has operations that no finished flush
 * covers, which completes other contexts' too (the specification allows it).
 *
 * Creation, by shmem_ctx_create and shmem_team_create_ctx alike, is local: the specification
 * says team_create_ctx "is not collective", so PEs may create contexts on different teams, or
 * different numbers of them.  A failed creation returns nonzero and sets *ctx to
 * SHMEM_CTX_INVALID (both routines' text).
 *
 * SHMEM_CTX_INVALID: RMA and AMO calls on it are undefined behaviour in the specification; they
 * end the job with a message naming the call.  Where the specification defines an outcome we
 * give it: shmem_ctx_get_team returns SHMEM_TEAM_INVALID and nonzero, shmem_ctx_session_start
 * "performs no action and returns immediately"; shmem_ctx_session_stop, shmem_ctx_destroy,
 * shmem_ctx_fence, shmem_ctx_quiet and shmem_ctx_pe_quiet (order.c) do nothing, as on a context
 * with nothing to complete.
 *
 * Sessions (1.6): hints that change no semantics, so a correct implementation may ignore them;
 * nodeshm validates the arguments, tracks whether a session is open, and applies nothing.  Within a node every operation completes at once:
 * there is nothing to defer.  Between nodes the one candidate, skipping each blocking put's and
 * non-fetching AMO's wait for local completion (MPI_Win_flush_local) by staging small sources
 * in a per-context arena completed by one MPI_Win_flush_local_all, was built and measured: with
 * MPICH, 20000 8-byte puts between pseudo-nodes took 2.4-4.3x longer that way (MPI queues the
 * unflushed operations), so it was left out. */
#include "shmem/internal.h"
#include "core/team.h"

#include <pthread.h>
#include <stdlib.h>

struct nodeshm_ctx nodeshm_ctx_default_obj = {
    .magic = NODESHM_CTX_LIVE, .team = &nodeshm_team_world_obj, .dom = NODESHM_DOMAIN_DEFAULT,
};

/* live contexts (but the default), for the teams' num_contexts limit; ids */
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static nodeshm_ctx_t *live;
static int next_id = 1;

#define KNOWN_OPTIONS (SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE)
#define KNOWN_SESSION_OPTIONS (SHMEM_CTX_SESSION_BATCH)
#define KNOWN_SESSION_MASK (SHMEM_CTX_SESSION_TOTAL_OPS)

int nodeshm_bad_ctx(const char *call, const nodeshm_ctx_t *ctx)
{
    if (!ctx) return nodeshm_report(NODESHM_ERR_ARG, call, "invalid context SHMEM_CTX_INVALID");
    return nodeshm_report(NODESHM_ERR_ARG, call, "context %p is not a valid context (destroyed?)",
                          (const void *)ctx);
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
    c->dom = &c->own;
    /* PE numbers of a team that is the world in world order need no translation */
    int identity = t->n_pes == nodeshm_rt.n_pes;
    for (int i = 0; identity && i < t->n_pes; i++) identity = t->pes[i] == i;
    pthread_mutex_lock(&ctx_lock);
    if (t->config.num_contexts > 0) { /* SHMEM_TEAM_NUM_CONTEXTS: at most that many at a time */
        int n = 0;
        for (nodeshm_ctx_t *o = live; o; o = o->next) n += o->team == handle;
        if (n >= t->config.num_contexts) {
            pthread_mutex_unlock(&ctx_lock);
            nodeshm_debug("%s: the team's %d contexts are in use", call, t->config.num_contexts);
            free(c);
            return 1;
        }
    }
    int id = next_id++;
    if (nodeshm_domain_init(call, &c->own, id, t->n_pes, identity ? NULL : t->pes)) {
        pthread_mutex_unlock(&ctx_lock);
        free(c);
        return 1; /* reported; still a failed creation, not an error */
    }
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
    nodeshm_domain_fini(&c->own);
    free(c);
}

/* Both creations: local, *ctx = SHMEM_CTX_INVALID on failure. */
static int create(const char *call, shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    NODESHM_CHECK(nodeshm_require_init(call));
    if (!ctx) NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, call, "ctx is NULL"));
    *ctx = SHMEM_CTX_INVALID;
    nodeshm_team_t *t = nodeshm_team_get(team);
    if (!t) return 1; /* SHMEM_TEAM_INVALID (or a destroyed team) */
    nodeshm_ctx_t *c;
    if (ctx_new(call, options, team, t, &c)) return 1;
    *ctx = c;
    return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return create(__func__, SHMEM_TEAM_WORLD, options, ctx);
}
NODESHM_PSHMEM(shmem_ctx_create)

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    return create(__func__, team, options, ctx);
}
NODESHM_PSHMEM(shmem_team_create_ctx)

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID) return;
    if (ctx == SHMEM_CTX_DEFAULT)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, __func__, "cannot destroy SHMEM_CTX_DEFAULT"));
    if (ctx->magic != NODESHM_CTX_LIVE) NODESHM_CHECK(nodeshm_bad_ctx(__func__, ctx));
    NODESHM_CHECK(nodeshm_ctx_quiet(__func__, ctx));
    ctx_free(ctx); /* an open session ends with it */
}
NODESHM_PSHMEM(shmem_ctx_destroy)

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
NODESHM_PSHMEM(shmem_ctx_get_team)

/* ---- sessions ---------------------------------------------------------------------------------- */

void shmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config,
                             long config_mask)
{
    static const char call[] = "shmem_ctx_session_start";
    if (ctx == SHMEM_CTX_INVALID) return; /* the specification: no action */
    NODESHM_CHECK(nodeshm_require_init(call));
    if (ctx->magic != NODESHM_CTX_LIVE) NODESHM_CHECK(nodeshm_bad_ctx(call, ctx));
    if (options & ~KNOWN_SESSION_OPTIONS)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, call,
                                     "unknown options %#lx (known: SHMEM_CTX_SESSION_BATCH = %#lx)",
                                     options, (long)KNOWN_SESSION_OPTIONS));
    if (config_mask & ~KNOWN_SESSION_MASK)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, call,
                                     "unknown config_mask bits %#lx (known: "
                                     "SHMEM_CTX_SESSION_TOTAL_OPS = %#lx)",
                                     config_mask, (long)KNOWN_SESSION_MASK));
    if (config_mask && !config)
        NODESHM_CHECK(nodeshm_report(NODESHM_ERR_ARG, call, "config is NULL but config_mask is %#lx",
                                     config_mask));
    ctx->in_session = 1; /* a start inside a session only adds hints, which are not applied */
}
NODESHM_PSHMEM(shmem_ctx_session_start)

void shmem_ctx_session_stop(shmem_ctx_t ctx)
{
    static const char call[] = "shmem_ctx_session_stop";
    if (ctx == SHMEM_CTX_INVALID) return;
    if (ctx->magic != NODESHM_CTX_LIVE) NODESHM_CHECK(nodeshm_bad_ctx(call, ctx));
    if (!ctx->in_session) return; /* the specification: a second stop has no effect */
    ctx->in_session = 0;
}
NODESHM_PSHMEM(shmem_ctx_session_stop)
