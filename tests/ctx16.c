/* Contexts, OpenSHMEM 1.6: local creation, failed creation, SHMEM_CTX_INVALID, sessions.
 *
 * "local": shmem_team_create_ctx is not collective.  PE 0 creates its context on
 * SHMEM_TEAM_SHARED (and one more with shmem_ctx_create) while the others create theirs on
 * SHMEM_TEAM_WORLD; each then puts fresh random data to a neighbour in its context's team
 * numbering, and every PE checks what landed on it, and that nothing else did.  A library that
 * synchronizes the team in team_create_ctx hangs here (the ctest TIMEOUT turns that into a
 * failure).
 *
 * "all": failed creations set *ctx to SHMEM_CTX_INVALID (SHMEM_TEAM_INVALID, unknown options,
 * a team's num_contexts used up); the calls the specification defines on SHMEM_CTX_INVALID;
 * sessions (SHMEM_CTX_SESSION_BATCH, with and without total_ops, restarted inside a session,
 * stopped twice, no options, destroyed while open) on the default context, created contexts
 * (shared, SHMEM_CTX_PRIVATE) and a team context: scalar puts, small and large puts, non-fetching
 * and fetching AMOs, gets and quiets inside, from source buffers overwritten right after each
 * call, to the heap and to globals; every value checked on the target afterwards.
 *
 * With a bad-* argument it runs one erroneous call, which must end the job with a clear message
 * (tests/ctx16.cmake). */
#include "common.h"

#include <stdint.h>
#include <string.h>

static int me, npes;

#define SLOTS 512         /* 8-byte slots written by scalar puts (heap) */
#define SMALL 24          /* a small putmem (batched) */
#define LARGE 1024        /* a large putmem (not batched) */
#define GBYTES (SLOTS * 8)

static uint64_t g_small[SLOTS / 2][SMALL / 8]; /* globals: small putmem targets */
static unsigned char g_large[LARGE];
static uint64_t g_amo[4];                      /* add, xor, set, fetch-add */
static uint64_t *h_slots;                      /* heap: scalar put targets */

/* ---- local creation ------------------------------------------------------------------------- */
static int target_of = -1;  /* world PE I put to (read by the others) */
static uint64_t land[64];   /* land[s]: what world PE s put here */

static int run_local(void)
{
    if (npes > 64) return 0;
    for (int s = 0; s < npes; s++) land[s] = 0;
    shmem_barrier_all();
    shmem_team_t team = me == 0 ? SHMEM_TEAM_SHARED : SHMEM_TEAM_WORLD;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT, extra = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(team, 0, &ctx) == 0 && ctx != SHMEM_CTX_INVALID, "team_create_ctx");
    if (me == 0) CHECK(shmem_ctx_create(0, &extra) == 0, "ctx_create on PE 0 alone");
    shmem_team_t got;
    CHECK(shmem_ctx_get_team(ctx, &got) == 0 && got == team, "get_team");
    int tn = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);
    int right = (tme + 1) % tn;
    target_of = shmem_team_translate_pe(team, right, SHMEM_TEAM_WORLD);
    uint64_t v = test_value(me, 1, 0);
    shmem_ctx_uint64_p(ctx, &land[me], v, right); /* team-relative PE number */
    shmem_ctx_quiet(ctx);
    if (me == 0) {
        shmem_ctx_destroy(extra);
        shmem_ctx_destroy(ctx); /* before the barrier: nothing collective about it */
    }
    shmem_barrier_all();
    for (int s = 0; s < npes; s++) {
        int t = shmem_int_g(&target_of, s);
        uint64_t want = t == me ? test_value(s, 1, 0) : 0;
        CHECK(land[s] == want, "from PE %d (its target %d): %#llx, expected %#llx", s, t,
              (unsigned long long)land[s], (unsigned long long)want);
    }
    if (me != 0) shmem_ctx_destroy(ctx);
    return 0;
}

/* ---- failed creation, SHMEM_CTX_INVALID ------------------------------------------------------- */
static void run_invalid(void)
{
    shmem_ctx_t c = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c) != 0 && c == SHMEM_CTX_INVALID,
          "team_create_ctx(SHMEM_TEAM_INVALID) must return nonzero and set SHMEM_CTX_INVALID");
    c = SHMEM_CTX_DEFAULT;
    CHECK(shmem_ctx_create(1L << 20, &c) != 0 && c == SHMEM_CTX_INVALID,
          "ctx_create(unknown option) must return nonzero and set SHMEM_CTX_INVALID");
    c = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_WORLD, 1L << 20, &c) != 0 && c == SHMEM_CTX_INVALID,
          "team_create_ctx(unknown option)");

    shmem_team_config_t cfg = {.num_contexts = 1};
    shmem_team_t limited;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &cfg, SHMEM_TEAM_NUM_CONTEXTS,
                                   &limited) == 0, "split");
    shmem_ctx_t c1 = SHMEM_CTX_INVALID, c2 = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(limited, 0, &c1) == 0 && c1 != SHMEM_CTX_INVALID, "1st of 1");
    CHECK(shmem_team_create_ctx(limited, 0, &c2) != 0 && c2 == SHMEM_CTX_INVALID,
          "2nd of num_contexts 1 must fail with SHMEM_CTX_INVALID");
    shmem_ctx_destroy(c1);
    shmem_team_destroy(limited);

    /* what the specification defines on SHMEM_CTX_INVALID */
    shmem_team_t t = SHMEM_TEAM_WORLD;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0 && t == SHMEM_TEAM_INVALID, "get_team");
    shmem_ctx_session_config_t sc = {.total_ops = 5};
    shmem_ctx_session_start(SHMEM_CTX_INVALID, SHMEM_CTX_SESSION_BATCH, &sc,
                            SHMEM_CTX_SESSION_TOTAL_OPS);
    shmem_ctx_session_start(SHMEM_CTX_INVALID, 1L << 30, NULL, 1L << 30); /* no action at all */
    shmem_ctx_session_stop(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    int pe = 0;
    shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, &pe, 1);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    shmem_barrier_all();
}

/* ---- sessions --------------------------------------------------------------------------------- */
typedef struct {
    const char *name;
    shmem_ctx_t ctx;
    shmem_team_t team;
} scope_t;

typedef struct {
    const char *name;
    long options;
    long mask;
    size_t total_ops;
    int restart;     /* start again inside the session (options ORed) */
    int nops;
    int destroy_open; /* destroy the (created) context with the session open */
} variant_t;

static const variant_t variants[] = {
    {"batch", SHMEM_CTX_SESSION_BATCH, 0, 0, 0, 600, 0},
    {"batch-total3", SHMEM_CTX_SESSION_BATCH, SHMEM_CTX_SESSION_TOTAL_OPS, 3, 0, 1500, 0},
    {"batch-total1M", SHMEM_CTX_SESSION_BATCH, SHMEM_CTX_SESSION_TOTAL_OPS, 1000000, 0, 9000, 0},
    {"none-then-batch", 0, 0, 0, 1, 600, 0},
    {"no-options", 0, SHMEM_CTX_SESSION_TOTAL_OPS, 10, 0, 300, 0},
    {"destroy-open", SHMEM_CTX_SESSION_BATCH, 0, 0, 0, 600, 1},
};

static uint64_t val(int pe, int round, int k) { return test_value(pe, round, (uint64_t)k); }

/* One session on `s`: every op to the right neighbour in the context's team. */
static void session_round(const scope_t *s, const variant_t *v, int round)
{
    int tn = shmem_team_n_pes(s->team), tme = shmem_team_my_pe(s->team);
    int right = (tme + 1) % tn;
    int left_world = shmem_team_translate_pe(s->team, (tme - 1 + tn) % tn, SHMEM_TEAM_WORLD);
    memset(h_slots, 0, GBYTES);
    memset(g_small, 0, sizeof g_small);
    memset(g_large, 0, sizeof g_large);
    memset(g_amo, 0, sizeof g_amo);
    shmem_barrier_all();

    shmem_ctx_session_config_t cfg = {.total_ops = v->total_ops};
    shmem_ctx_session_start(s->ctx, v->options, &cfg, v->mask);
    if (v->restart) shmem_ctx_session_start(s->ctx, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    uint64_t fetched_sum = 0;
    for (int k = 0; k < v->nops; k++) {
        uint64_t x = val(me, round, k);
        switch (k % 6) {
        case 0: case 1: case 2: { /* scalar put from a variable overwritten right after */
            uint64_t src = x;
            shmem_ctx_uint64_put(s->ctx, &h_slots[k % SLOTS], &src, 1, right);
            src = ~x;
            break;
        }
        case 3: { /* small putmem from a stack buffer overwritten right after */
            uint64_t buf[SMALL / 8] = {x, x ^ 1, x ^ 2};
            shmem_ctx_putmem(s->ctx, g_small[(k / 6) % (SLOTS / 2)], buf, SMALL, right);
            memset(buf, 0xa5, sizeof buf);
            break;
        }
        case 4: /* non-fetching AMOs (operands on the stack) */
            shmem_ctx_uint64_atomic_add(s->ctx, &g_amo[0], x, right);
            shmem_ctx_uint64_atomic_xor(s->ctx, &g_amo[1], x, right);
            shmem_ctx_uint64_atomic_set(s->ctx, &g_amo[2], x, right);
            break;
        default: /* a fetching AMO, and now and then a large put, a get and a quiet */
            fetched_sum += shmem_ctx_uint64_atomic_fetch_add(s->ctx, &g_amo[3], 1, right);
            if (k % 60 == 5) {
                unsigned char big[LARGE];
                for (int i = 0; i < LARGE; i++) big[i] = (unsigned char)(val(me, round, 100000 + i) >> (k % 57));
                shmem_ctx_putmem(s->ctx, g_large, big, LARGE, right);
                memset(big, 0, sizeof big);
            }
            if (k % 120 == 11) shmem_ctx_quiet(s->ctx);
            if (k % 90 == 17) { /* a get from a location nobody writes in this round */
                int got = -1;
                shmem_ctx_getmem(s->ctx, &got, &target_of, sizeof got, right);
                (void)got;
            }
        }
    }
    if (v->destroy_open) {
        shmem_ctx_destroy(s->ctx); /* implicit quiet; closes the session */
    } else {
        shmem_ctx_session_stop(s->ctx);
        shmem_ctx_session_stop(s->ctx); /* a second stop: no effect */
        shmem_ctx_quiet(s->ctx);
    }
    shmem_barrier_all();

    /* everything my left neighbour (in the team) sent */
    int bad = 0;
    uint64_t want_slots[SLOTS] = {0}, add = 0, xr = 0, set = 0, fadd = 0;
    uint64_t want_small[SLOTS / 2][SMALL / 8];
    memset(want_small, 0, sizeof want_small);
    int last_large = -1;
    for (int k = 0; k < v->nops; k++) {
        uint64_t x = val(left_world, round, k);
        switch (k % 6) {
        case 0: case 1: case 2: want_slots[k % SLOTS] = x; break;
        case 3: {
            uint64_t *w = want_small[(k / 6) % (SLOTS / 2)];
            w[0] = x, w[1] = x ^ 1, w[2] = x ^ 2;
            break;
        }
        case 4: add += x, xr ^= x, set = x; break;
        default:
            fadd++;
            if (k % 60 == 5) last_large = k;
        }
    }
    for (int i = 0; i < SLOTS; i++) bad += h_slots[i] != want_slots[i];
    CHECK(bad == 0, "%s/%s: %d of %d scalar puts wrong", s->name, v->name, bad, SLOTS);
    CHECK(memcmp(g_small, want_small, sizeof g_small) == 0, "%s/%s: small puts wrong", s->name, v->name);
    CHECK(g_amo[0] == add && g_amo[1] == xr && g_amo[2] == set && g_amo[3] == fadd,
          "%s/%s: AMOs add %#llx/%#llx xor %#llx/%#llx set %#llx/%#llx fadd %llu/%llu", s->name,
          v->name, (unsigned long long)g_amo[0], (unsigned long long)add,
          (unsigned long long)g_amo[1], (unsigned long long)xr, (unsigned long long)g_amo[2],
          (unsigned long long)set, (unsigned long long)g_amo[3], (unsigned long long)fadd);
    CHECK(fetched_sum == fadd * (fadd - 1) / 2, "%s/%s: fetch_add results", s->name, v->name);
    if (last_large >= 0) {
        int wrong = 0;
        for (int i = 0; i < LARGE; i++)
            wrong += g_large[i] != (unsigned char)(val(left_world, round, 100000 + i) >> (last_large % 57));
        CHECK(wrong == 0, "%s/%s: %d bytes of the large put wrong", s->name, v->name, wrong);
    }
    shmem_barrier_all();
}

static void run_sessions(void)
{
    int round = 10;
    for (size_t vi = 0; vi < sizeof variants / sizeof variants[0]; vi++) {
        const variant_t *v = &variants[vi];
        for (int sc = 0; sc < 4; sc++) {
            scope_t s = {"default", SHMEM_CTX_DEFAULT, SHMEM_TEAM_WORLD};
            if (sc == 1) s = (scope_t){"created", SHMEM_CTX_INVALID, SHMEM_TEAM_WORLD};
            if (sc == 2) s = (scope_t){"private", SHMEM_CTX_INVALID, SHMEM_TEAM_WORLD};
            if (sc == 3) s = (scope_t){"shared-team", SHMEM_CTX_INVALID, SHMEM_TEAM_SHARED};
            if (sc == 0 && v->destroy_open) continue;
            if (sc > 0)
                CHECK(shmem_team_create_ctx(s.team, sc == 2 ? SHMEM_CTX_PRIVATE : 0, &s.ctx) == 0,
                      "create %s", s.name);
            if (s.ctx == SHMEM_CTX_INVALID) continue;
            session_round(&s, v, round++);
            if (sc > 0 && !v->destroy_open) shmem_ctx_destroy(s.ctx);
        }
    }
}

static void erroneous(const char *what)
{
    shmem_ctx_session_config_t cfg = {.total_ops = 1};
    if (!strcmp(what, "bad-session-options"))
        shmem_ctx_session_start(SHMEM_CTX_DEFAULT, 1L << 5, NULL, 0);
    else if (!strcmp(what, "bad-session-mask"))
        shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, &cfg, 1L << 3);
    else if (!strcmp(what, "bad-session-config"))
        shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, NULL,
                                SHMEM_CTX_SESSION_TOTAL_OPS);
    else if (!strcmp(what, "bad-session-destroyed")) {
        shmem_ctx_t c;
        if (shmem_ctx_create(0, &c)) return;
        shmem_ctx_destroy(c);
        shmem_ctx_session_start(c, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    } else if (!strcmp(what, "bad-invalid-amo"))
        shmem_ctx_uint64_atomic_add(SHMEM_CTX_INVALID, &g_amo[0], 1, 0);
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    test_seed();
    const char *mode = argc > 1 ? argv[1] : "all";
    if (!strncmp(mode, "bad-", 4)) {
        erroneous(mode);
        printf("UNEXPECTED: %s returned\n", mode);
        shmem_finalize();
        return 0;
    }
    h_slots = shmem_malloc(GBYTES);
    if (!strcmp(mode, "local")) {
        run_local();
    } else {
        run_local();
        run_invalid();
        run_sessions();
    }
    shmem_free(h_slots);
    int rc = test_finish(mode);
    shmem_finalize();
    return rc;
}
