/* nodeshm core, OpenSHMEM team collectives: staging by turns.
 *
 * Every collective is a turn with an epoch (coll_begin) and a number b, the team's collective
 * count modulo NODESHM_COLL_STAGE_DEPTH (4).  Each member has, in the team slot of its control
 * block, line LINE_TURN + b (arrive: the epoch of its latest publication in turn b, with the
 * contribution's size, where readers find it and, for collect, its source token; done: the epoch
 * of the latest turn-b collective whose peers' contributions it has finished reading), and a
 * staging buffer per b (runtime.h: stage[slot][b]).
 *   eager: the member copies its contribution into staging b and publishes; readers copy out of
 *     peers' staging and say done.  A member rewrites staging b only after every peer's done
 *     reached its previous turn-b publication, four collectives ago, normally long finished (a
 *     broadcast root may run three collectives ahead of slow readers, which matters when PEs
 *     outnumber cores): latency is one cache-line handoff, and the source is free once staged.
 *   rendezvous (larger): the publication says "read my source"; readers copy straight out of it
 *     and say done; the owner waits for every peer's done before it returns.
 * Dests are written only by their owner, so a member that returns early cannot disturb anyone,
 * and back-to-back collectives on the same or overlapping teams need nothing between them. */
#include "core/coll/team/team_coll.h"
#include "core/env.h"
#include "core/tuning.h"

/* Largest contribution that goes through staging (eager); above, peers read the owner's
 * source, and the owner waits for them before it returns (rendezvous).  Reductions stage up to
 * the whole buffer (EAGER_MAX: no second phase); broadcast, collect and alltoall only move data,
 * so their switch (NODESHM_COLL_EAGER_MAX, same on every PE) is where the extra copy starts to
 * cost more than the owner's wait: nodeshm-bench-coll, Open MPI 5, 2 PEs on 2 cores, ratio to
 * MPI at 8 KiB: eager 1.11-1.77x, rendezvous 4.1-5.9x; at 16 KiB 1.0-1.15x vs 2.8-6.1x. */
static size_t copy_eager_max = COPY_EAGER_DEFAULT;
static int copy_eager_set; /* NODESHM_COLL_EAGER_MAX given (environment or tuning file): it
                           * holds for every collective */
/* Broadcast and alltoall when PEs outnumber cores (below) */
#define EAGER_OVERSUBSCRIBED ((size_t)16384)

size_t coll_copy_eager_max(void) { return copy_eager_max; }

/* The switch of a collective whose data owner waits for its readers above it (broadcast,
 * alltoall): NODESHM_COLL_EAGER_MAX when given; else 16 KiB when PEs outnumber cores (that wait
 * then costs context switches), `with_cores` otherwise. */
size_t coll_owner_waits_eager_max(size_t with_cores)
{
    if (copy_eager_set) return copy_eager_max;
    return nodeshm_wait_oversubscribed ? EAGER_OVERSUBSCRIBED : with_cores;
}

int nodeshm_coll_configure(void)
{
    size_t v;
    int rc = nodeshm_env_size("NODESHM_COLL_EAGER_MAX", COPY_EAGER_DEFAULT, &v);
    if (rc) return rc;
    if (v > NODESHM_COLL_STAGE_BYTES)
        return nodeshm_report(NODESHM_ERR_ENV, "shmem_init",
                              "invalid NODESHM_COLL_EAGER_MAX=%zu (at most %zu)", v,
                              (size_t)NODESHM_COLL_STAGE_BYTES);
    copy_eager_max = v;
    copy_eager_set = nodeshm_getenv("NODESHM_COLL_EAGER_MAX") != NULL; /* or the tuning file */
    return NODESHM_OK;
}

coll_turn_t coll_turn_begin(nodeshm_team_t *t, uint64_t base)
{
    uint64_t seq = t->coll_seq++;
    return (coll_turn_t){base + 1, (int)(seq % NODESHM_COLL_STAGE_DEPTH), seq};
}

/* Waits until every node peer has read my previous publication of turn b (normally long done):
 * its staging and the words of my turn line may then be rewritten.  Once seen, 0 (nothing left to
 * wait for), so that a claim and the publication after it wait once. */
static void turn_reclaim(nodeshm_team_t *t, int b)
{
    uint64_t last = t->staged[b];
    if (!last) return;
    (void)coll_peers_wait(t, LINE_TURN + b, NODESHM_FLAG_DONE, last);
    t->staged[b] = 0;
}

char *coll_stage_claim(nodeshm_team_t *t, coll_turn_t x)
{
    turn_reclaim(t, x.b);
    return coll_stage_of(t, t->node_my_pe, x.b);
}

char *coll_stage_hold(nodeshm_team_t *t, coll_turn_t x)
{
    char *stage = coll_stage_claim(t, x);
    t->staged[x.b] = x.e;
    return stage;
}

/* A rendezvous owner that publishes without claiming staging waits here too: a peer may still be
 * reading my line of four collectives ago when I ran ahead as a broadcast root. */
void coll_publish(nodeshm_team_t *t, coll_turn_t x, uint64_t size, uint64_t from, uint64_t token)
{
    turn_reclaim(t, x.b);
    nodeshm_flag_line_t *r = coll_my_line(t, LINE_TURN + x.b);
    r->word[TURN_SIZE] = size;
    r->word[TURN_FROM] = from;
    r->word[TURN_TOKEN] = token;
    nodeshm_flag_store(&r->arrive, x.e);
    t->staged[x.b] = x.e;
}

/* Before a team's slot is freed: waits until node peers are done with my staging and small-ring
 * entries, on every team with node peers (scans between nodes use them too), so that the slot's
 * next team starts from a clean ring. */
void nodeshm_coll_team_retire(nodeshm_team_t *t)
{
    if (t->node_n_pes < 2) return;
    for (int b = 0; b < NODESHM_COLL_STAGE_DEPTH; b++) (void)coll_stage_claim(t, (coll_turn_t){0, b, 0});
    coll_small_retire(t);
}
