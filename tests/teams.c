/* Teams: split_strided (negative and zero strides, nested), split_2d (xrange not dividing the
 * parent), translate_pe between every pair of teams (INVALID included) against a reference the
 * test computes itself, SHMEM_TEAM_SHARED = the PEs shmem_ptr reaches, team_sync on overlapping
 * teams back to back checked by data the team peers put, teams from MPI communicators
 * (reversed, reordered, subsets) and get_comm round trips, slot reuse over many creations,
 * slot exhaustion, and invalid arguments.
 *
 * With an argument it runs one erroneous call instead, which must end the job with a clear
 * message (tests/teams.cmake): bad-sync-destroyed, bad-sync-invalid, bad-destroy-world. */
#include "common.h"
#include "core/team.h" /* white box: the node structure kept for node-aware collectives */

#include <mpi.h>
#include <shmemx.h>
#include <string.h>

/* the predefined handles are link-time constants: usable in static initializers */
static shmem_team_t world_handle = SHMEM_TEAM_WORLD;
static shmem_team_t invalid_handle = SHMEM_TEAM_INVALID;

static int me, npes;
static long sym_probe; /* shmem_ptr target */

/* ---- references: a team as the test expects it ------------------------------------------------- */
typedef struct {
    const char *name;
    shmem_team_t team;
    int n;     /* members; 0 when I am not a member (team must be SHMEM_TEAM_INVALID) */
    int *pes;  /* world PEs in team order */
    int tid;   /* mailbox pair used by the sync-and-data checks */
    int id;    /* instance number: keys the data of this team */
} ref_t;

static int next_id;

static ref_t ref_new(const char *name, int tid)
{
    ref_t r = {name, SHMEM_TEAM_INVALID, 0, malloc(sizeof(int) * (size_t)(npes > 0 ? npes : 1)),
               tid, next_id++};
    return r;
}

static int ref_index(const ref_t *r, int pe)
{
    for (int i = 0; i < r->n; i++)
        if (r->pes[i] == pe) return i;
    return -1;
}

/* the members of split_strided(parent, start, stride, size), if I am one of them */
static ref_t ref_strided(const char *name, int tid, const ref_t *parent, int start, int stride,
                         int size)
{
    ref_t r = ref_new(name, tid);
    if (parent->n == 0) return r;
    for (int i = 0; i < size; i++) r.pes[i] = parent->pes[start + i * stride];
    r.n = size;
    if (ref_index(&r, me) < 0) r.n = 0;
    return r;
}

static void ref_free(ref_t *r)
{
    free(r->pes);
    r->pes = NULL;
}

/* The team's node structure: my node's members are the members shmem_ptr reaches, nodes are
 * numbered by first appearance in team order and led by their first member. */
static void check_nodes(const ref_t *r)
{
    const nodeshm_team_t *t = r->team;
    int k = 0, prev_leader = -1;
    for (int i = 0; i < r->n; i++) {
        int local = shmem_ptr(&sym_probe, r->pes[i]) != NULL;
        CHECK(t->node_of[i] >= 0 && t->node_of[i] < t->n_nodes, "%s: node_of[%d] = %d", r->name, i,
              t->node_of[i]);
        CHECK((t->node_of[i] == t->my_node) == local, "%s: member %d on my node: %d, shmem_ptr: %d",
              r->name, i, t->node_of[i] == t->my_node, local);
        if (!local) continue;
        if (i == ref_index(r, me)) CHECK(t->node_my_pe == k, "%s: node_my_pe %d, expected %d", r->name, t->node_my_pe, k);
        CHECK(k < t->node_n_pes && t->node_members[k] == i, "%s: node_members[%d]", r->name, k);
        CHECK(k < t->node_n_pes && t->node_local[k] ==
                  shmem_team_translate_pe(SHMEM_TEAM_WORLD, r->pes[i], SHMEM_TEAM_SHARED),
              "%s: node_local[%d]", r->name, k);
        k++;
    }
    CHECK(k == t->node_n_pes, "%s: node_n_pes %d, expected %d", r->name, t->node_n_pes, k);
    for (int j = 0; j < t->n_nodes; j++) {
        int first = -1;
        for (int i = 0; i < r->n && first < 0; i++)
            if (t->node_of[i] == j) first = i;
        CHECK(first >= 0 && t->node_leader[j] == first && first > prev_leader,
              "%s: node %d: leader %d, its first member %d", r->name, j, t->node_leader[j], first);
        prev_leader = first;
    }
    const char *ppn = getenv("NODESHM_PES_PER_NODE");
    if (ppn && atoi(ppn) > 0) { /* one machine: pseudo-node of PE p = p / k, so all is known */
        int per = atoi(ppn), seen[64] = {0}, nodes = 0;
        for (int i = 0; i < r->n; i++)
            if (!seen[r->pes[i] / per]++) nodes++;
        CHECK(t->n_nodes == nodes, "%s: %d nodes, expected %d", r->name, t->n_nodes, nodes);
        for (int i = 0; i < r->n; i++)
            CHECK(t->node_id[t->node_of[i]] == r->pes[i] / per, "%s: member %d: node id %d, expected %d",
                  r->name, i, t->node_id[t->node_of[i]], r->pes[i] / per);
    }
}

/* my_pe, n_pes and translation to and from SHMEM_TEAM_WORLD agree with the reference */
static void check_team(const ref_t *r)
{
    if (r->n == 0) {
        CHECK(r->team == SHMEM_TEAM_INVALID, "%s: I am not a member but got a team", r->name);
        CHECK(shmem_team_my_pe(r->team) == -1 && shmem_team_n_pes(r->team) == -1,
              "%s: queries on SHMEM_TEAM_INVALID", r->name);
        return;
    }
    CHECK(r->team != SHMEM_TEAM_INVALID, "%s: I am a member but got SHMEM_TEAM_INVALID", r->name);
    CHECK(shmem_team_n_pes(r->team) == r->n, "%s: n_pes %d, expected %d", r->name,
          shmem_team_n_pes(r->team), r->n);
    CHECK(shmem_team_my_pe(r->team) == ref_index(r, me), "%s: my_pe %d, expected %d", r->name,
          shmem_team_my_pe(r->team), ref_index(r, me));
    for (int i = -1; i <= r->n; i++) {
        int want = i >= 0 && i < r->n ? r->pes[i] : -1;
        int got = shmem_team_translate_pe(r->team, i, SHMEM_TEAM_WORLD);
        CHECK(got == want, "%s: PE %d -> world %d, expected %d", r->name, i, got, want);
    }
    for (int pe = -1; pe <= npes; pe++) {
        int want = pe >= 0 && pe < npes ? ref_index(r, pe) : -1;
        int got = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, r->team);
        CHECK(got == want, "%s: world %d -> %d, expected %d", r->name, pe, got, want);
    }
    shmem_team_config_t cfg = {-7};
    CHECK(shmem_team_get_config(r->team, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0 && cfg.num_contexts >= 0,
          "%s: get_config", r->name);
    check_nodes(r);
}

/* translate_pe between every pair of teams, every source PE (and out-of-range ones) */
static void check_translate_all(ref_t *refs, int nrefs)
{
    for (int a = 0; a < nrefs; a++)
        for (int b = 0; b < nrefs; b++)
            for (int i = -1; i <= npes; i++) {
                int want = -1;
                if (refs[a].n && refs[b].n && i >= 0 && i < refs[a].n)
                    want = ref_index(&refs[b], refs[a].pes[i]);
                int got = shmem_team_translate_pe(refs[a].team, i, refs[b].team);
                CHECK(got == want, "translate(%s, %d, %s) = %d, expected %d", refs[a].name, i,
                      refs[b].name, got, want);
            }
}

/* ---- team_sync checked by data ------------------------------------------------------------------ */
#define MAX_TID 32
static uint64_t *mailbox; /* [MAX_TID][2]: double-buffered by round parity */

static void maybe_delay(int key, long round)
{
    uint64_t v = test_value(me, 1000 + key, (uint64_t)round);
    if (v % 6 == 0) usleep((useconds_t)(v >> 8) % 300);
}

/* One round: put a value for this round into my right neighbour's mailbox (team order), complete
 * it (team_sync does not), sync, and find my left neighbour's value for this round.  A sync that
 * returns before the whole team has arrived sees an old value; one that confuses rounds or teams
 * (flags of a reused slot, one team's flags for another's) lets a neighbour overwrite the buffer
 * too early, or read it too early. */
static void sync_round(const ref_t *r, long round)
{
    if (r->n == 0) return;
    int i = ref_index(r, me), right = r->pes[(i + 1) % r->n], left = r->pes[(i + r->n - 1) % r->n];
    uint64_t *box = &mailbox[r->tid * 2 + (round & 1)];
    maybe_delay(r->id, round);
    shmem_uint64_p(box, test_value(me, r->id, (uint64_t)round), right);
    shmem_quiet();
    int rc = shmem_team_sync(r->team);
    CHECK(rc == 0, "%s: shmem_team_sync returned %d", r->name, rc);
    uint64_t got = __atomic_load_n(box, __ATOMIC_ACQUIRE), want = test_value(left, r->id, (uint64_t)round);
    CHECK(got == want, "%s: round %ld: value from PE %d is %#llx, expected %#llx", r->name, round,
          left, (unsigned long long)got, (unsigned long long)want);
}

/* rounds of back-to-back syncs over all teams in turn, no barrier in between */
static void sync_rounds(ref_t *refs, int nrefs, long rounds, long *round_base)
{
    for (long k = 0; k < rounds; k++) {
        for (int t = 0; t < nrefs; t++) sync_round(&refs[t], *round_base + k);
    }
    *round_base += rounds;
}

/* ---- the parts ------------------------------------------------------------------------------------ */
static void test_predefined(ref_t *world, ref_t *shared)
{
    *world = ref_new("WORLD", 0);
    world->team = SHMEM_TEAM_WORLD;
    world->n = npes;
    for (int i = 0; i < npes; i++) world->pes[i] = i;
    CHECK(world_handle == SHMEM_TEAM_WORLD && invalid_handle == SHMEM_TEAM_INVALID, "constants");
    CHECK(SHMEM_TEAM_WORLD != SHMEM_TEAM_INVALID && SHMEM_TEAM_SHARED != SHMEM_TEAM_INVALID &&
              SHMEM_TEAM_WORLD != SHMEM_TEAM_SHARED, "predefined handles are distinct and valid");
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me && shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes,
          "WORLD: my_pe %d n_pes %d", shmem_team_my_pe(SHMEM_TEAM_WORLD),
          shmem_team_n_pes(SHMEM_TEAM_WORLD));
    check_team(world);

    /* SHARED: exactly the PEs whose memory I can address (shmem_ptr), in PE order */
    *shared = ref_new("SHARED", 1);
    shared->team = SHMEM_TEAM_SHARED;
    for (int pe = 0; pe < npes; pe++)
        if (shmem_ptr(&sym_probe, pe) != NULL) shared->pes[shared->n++] = pe;
    CHECK(shared->n >= 1 && ref_index(shared, me) >= 0, "shmem_ptr reaches myself");
    check_team(shared);
    CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) == shmemx_node_n_pes() &&
              shmem_team_my_pe(SHMEM_TEAM_SHARED) == shmemx_node_my_pe(),
          "SHARED agrees with shmemx_node_*");
    for (int pe = 0; pe < npes; pe++) {
        int in = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0;
        CHECK(in == (shmem_ptr(&sym_probe, pe) != NULL), "PE %d: in SHARED %d, shmem_ptr %p", pe,
              in, shmem_ptr(&sym_probe, pe));
    }
    const char *ppn = getenv("NODESHM_PES_PER_NODE");
    if (ppn && atoi(ppn) > 0) {
        int k = atoi(ppn), first = me / k * k; /* one machine: pseudo-nodes of k consecutive PEs */
        int want = npes - first < k ? npes - first : k;
        CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) == want, "SHARED has %d PEs, expected %d",
              shmem_team_n_pes(SHMEM_TEAM_SHARED), want);
        CHECK(shared->pes[0] == first, "SHARED starts at PE %d, expected %d", shared->pes[0], first);
    }
}

static void test_invalid_arguments(void)
{
    if (me == 0) {
        printf("invalid arguments: the \"nodeshm: PE n: shmem_team_...\" lines on stderr that follow "
               "are expected\n");
        fflush(stdout);
    }
    shmem_team_t t = world_handle, x = world_handle, y = world_handle;
    shmem_team_config_t cfg = {0};
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1 && shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1,
          "queries on SHMEM_TEAM_INVALID");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1 &&
              shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID) == -1 &&
              shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_INVALID) == -1,
          "translate with SHMEM_TEAM_INVALID");
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0,
          "get_config(SHMEM_TEAM_INVALID)");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0 &&
              t == SHMEM_TEAM_INVALID, "split_strided of SHMEM_TEAM_INVALID");
    CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &x, NULL, 0, &y) != 0 &&
              x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID, "split_2d of SHMEM_TEAM_INVALID");
    shmem_team_destroy(SHMEM_TEAM_INVALID); /* no-op */
    MPI_Comm c = MPI_COMM_WORLD;
    CHECK(shmemx_team_get_comm(SHMEM_TEAM_INVALID, &c) != 0 && c == MPI_COMM_NULL,
          "get_comm(SHMEM_TEAM_INVALID)");

    /* bad triplets: nonzero and SHMEM_TEAM_INVALID on every PE, and no hang */
    const int bad[][3] = {{0, 1, 0},          {0, 1, -1},       {-1, 1, 1},
                          {npes, 1, 1},       {0, 0, 2},        {npes - 1, 1, 2},
                          {0, -1, 2},         {0, 1, npes + 1}, {npes - 1, -1, npes + 1},
                          {0, 0x40000000, 3}, {1, -2, 2}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        t = world_handle;
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, bad[k][0], bad[k][1], bad[k][2], NULL, 0, &t);
        CHECK(rc != 0 && t == SHMEM_TEAM_INVALID, "split_strided(%d, %d, %d) gave %d", bad[k][0],
              bad[k][1], bad[k][2], rc);
    }
    t = world_handle;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &x, NULL, 0, &y) != 0 &&
              x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID, "split_2d with xrange 0");
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, -3, NULL, 0, &x, NULL, 0, &y) != 0 &&
              x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID, "split_2d with xrange -3");

    /* bad configurations, also on one PE only (here: the last, not a member): every PE fails */
    cfg.num_contexts = -1;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &t) != 0 &&
              t == SHMEM_TEAM_INVALID, "num_contexts -1");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, SHMEM_TEAM_NUM_CONTEXTS, &t) != 0 &&
              t == SHMEM_TEAM_INVALID, "NULL config with a mask");
    long mask = me == npes - 1 ? 0x100 : 0;
    int size = npes > 1 ? npes - 1 : 1;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, size, NULL, mask, &t) != 0 &&
              t == SHMEM_TEAM_INVALID, "unknown mask bit on PE %d", npes - 1);
    /* a bad y configuration fails the y-axis teams it belongs to, and only those */
    cfg.num_contexts = 0;
    int rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &x, NULL, me == 0 ? 0x10 : 0, &y);
    /* xrange 1: each x-team is one PE, the only y-team is everybody */
    CHECK(rc != 0 && x != SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID,
          "split_2d with a bad yaxis mask on PE 0: rc %d x %p y %p", rc, (void *)x, (void *)y);
    shmem_team_destroy(x);

    /* configuration round trip */
    cfg.num_contexts = 3;
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &t);
    shmem_team_config_t got = {-1};
    CHECK(rc == 0 && shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
              got.num_contexts == 3, "num_contexts 3 came back as %d", got.num_contexts);
    CHECK(shmem_team_get_config(t, 0x40, &got) != 0, "get_config with an unknown mask bit");
    shmem_team_destroy(t);
    CHECK(shmem_team_my_pe(t) == -1 && shmem_team_n_pes(t) == -1 &&
              shmem_team_translate_pe(t, 0, SHMEM_TEAM_WORLD) == -1 &&
              shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, t) == -1,
          "queries on a destroyed team");
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &cfg, 0, &t);
    got.num_contexts = -1;
    CHECK(rc == 0 && shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
              got.num_contexts == 0, "mask 0 means the default num_contexts, got %d", got.num_contexts);
    shmem_team_destroy(t);
}

/* split_2d of `parent` with xrange: the x-axis team is my row, the y-axis team my column */
static void split_2d_refs(const ref_t *parent, int xrange, int xtid, int ytid, ref_t *xr, ref_t *yr)
{
    *xr = ref_new("xaxis", xtid);
    *yr = ref_new("yaxis", ytid);
    int rc = shmem_team_split_2d(parent->team, xrange, NULL, 0, &xr->team, NULL, 0, &yr->team);
    CHECK(rc == 0, "split_2d(%s, %d) returned %d", parent->name, xrange, rc);
    int i = ref_index(parent, me), x = i % xrange, y = i / xrange;
    for (int j = y * xrange; j < parent->n && j < (y + 1) * xrange; j++) xr->pes[xr->n++] = parent->pes[j];
    for (int j = x; j < parent->n; j += xrange) yr->pes[yr->n++] = parent->pes[j];
    CHECK(shmem_team_my_pe(xr->team) == x && shmem_team_my_pe(yr->team) == y,
          "split_2d(%s, %d): coordinates (%d, %d), expected (%d, %d)", parent->name, xrange,
          shmem_team_my_pe(xr->team), shmem_team_my_pe(yr->team), x, y);
    check_team(xr);
    check_team(yr);
}

static void destroy_ref(ref_t *r)
{
    if (r->n) shmem_team_destroy(r->team);
    ref_free(r);
}

/* create_from_comm over `comm`: the reference is the communicator's ranks in order */
static ref_t ref_from_comm(const char *name, int tid, MPI_Comm comm)
{
    ref_t r = ref_new(name, tid);
    int rc = shmemx_team_create_from_comm(comm, &r.team);
    if (comm == MPI_COMM_NULL) {
        CHECK(rc != 0 && r.team == SHMEM_TEAM_INVALID, "%s: MPI_COMM_NULL gave %d", name, rc);
        return r;
    }
    CHECK(rc == 0, "%s: create_from_comm returned %d", name, rc);
    MPI_Comm_size(comm, &r.n);
    MPI_Allgather(&me, 1, MPI_INT, r.pes, 1, MPI_INT, comm);
    MPI_Comm tc;
    CHECK(shmemx_team_get_comm(r.team, &tc) == 0, "%s: get_comm", name);
    int cmp = MPI_UNEQUAL, rank = -1, size = -1;
    MPI_Comm_compare(tc, comm, &cmp);
    MPI_Comm_rank(tc, &rank);
    MPI_Comm_size(tc, &size);
    CHECK(cmp == MPI_CONGRUENT || cmp == MPI_IDENT, "%s: the team's communicator is not congruent", name);
    CHECK(rank == shmem_team_my_pe(r.team) && size == r.n, "%s: comm rank %d size %d", name, rank, size);
    return r;
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();

    if (argc > 1) { /* erroneous calls: each must end the job with a message naming the call */
        shmem_team_t t = SHMEM_TEAM_INVALID;
        if (strcmp(argv[1], "bad-sync-destroyed") == 0) {
            if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t) != 0) return 3;
            shmem_team_sync(t);
            shmem_team_destroy(t);
            shmem_team_sync(t);
        } else if (strcmp(argv[1], "bad-sync-invalid") == 0) {
            shmem_team_sync(t);
        } else if (strcmp(argv[1], "bad-destroy-world") == 0) {
            shmem_team_destroy(SHMEM_TEAM_WORLD);
        } else {
            return 2;
        }
        printf("UNEXPECTED: %s returned\n", argv[1]);
        shmem_finalize();
        return 0;
    }

    test_seed();
    mailbox = shmem_calloc(MAX_TID * 2, sizeof *mailbox);
    shmem_barrier_all();

    ref_t world, shared;
    test_predefined(&world, &shared);
    test_invalid_arguments();

    /* ---- split_strided: positive, negative and zero strides, nested ---- */
    ref_t refs[24];
    int nrefs = 0;
    refs[nrefs++] = world;
    refs[nrefs++] = shared;
    int ne = (npes + 1) / 2;
    struct { const char *name; int parent, start, stride, size; } splits[] = {
        {"evens", 0, 0, 2, ne},
        {"reversed", 0, npes - 1, -1, npes},
        {"odds-down", 0, npes - 1 - (npes % 2 == 1), -2, npes / 2},
        {"last", 0, npes - 1, 0, 1},
        {"every-third", 0, npes > 2 ? 1 : 0, 3, npes > 2 ? (npes - 2) / 3 + 1 : 1},
        {"evens-reversed", 2, ne - 1, -1, ne},            /* nested: of evens */
        {"evens-rev-odd", 7, ne > 1 ? 1 : 0, 2, ne / 2 > 0 ? ne / 2 : 1}, /* nested twice */
        {"shared-reversed", 1, -1, -1, -1},              /* of SHARED: filled in below */
        {"reversed-tail", 3, npes > 1 ? npes - 2 : 0, -1, npes > 1 ? npes - 1 : 1}, /* of reversed */
    };
    for (size_t k = 0; k < sizeof splits / sizeof splits[0]; k++) {
        if (splits[k].size == 0) { /* odds at 1 PE: keep the indices, as an INVALID team */
            refs[nrefs] = ref_new(splits[k].name, nrefs);
            nrefs++;
            continue;
        }
        const ref_t *parent = &refs[splits[k].parent];
        if (splits[k].start < 0) { /* SHARED's size depends on the node */
            splits[k].start = shmem_team_n_pes(SHMEM_TEAM_SHARED) - 1;
            splits[k].size = shmem_team_n_pes(SHMEM_TEAM_SHARED);
        }
        /* parents are all created before their children, and all PEs fill refs[] alike */
        ref_t r = ref_strided(splits[k].name, nrefs, parent, splits[k].start, splits[k].stride,
                              splits[k].size);
        shmem_team_t t = world_handle;
        int rc = shmem_team_split_strided(parent->team, splits[k].start, splits[k].stride,
                                          splits[k].size, NULL, 0, &t);
        if (parent->n == 0) {
            CHECK(rc != 0 && t == SHMEM_TEAM_INVALID, "%s: split of SHMEM_TEAM_INVALID", r.name);
        } else {
            CHECK(rc == 0, "%s: split_strided(%d, %d, %d) returned %d", r.name, splits[k].start,
                  splits[k].stride, splits[k].size, rc);
        }
        r.team = t;
        check_team(&r);
        refs[nrefs++] = r;
    }

    /* ---- split_2d, xrange dividing the parent or not, of WORLD and of a reversed team ---- */
    int xranges[] = {1, 2, 3, npes > 1 ? npes - 1 : 1, npes, npes + 2};
    for (size_t k = 0; k < sizeof xranges / sizeof xranges[0]; k++) {
        ref_t xr, yr;
        split_2d_refs(&world, xranges[k], 30, 31, &xr, &yr);
        check_translate_all((ref_t[]){world, shared, xr, yr}, 4);
        long base = 0;
        sync_rounds((ref_t[]){xr, yr}, 2, 5, &base);
        destroy_ref(&xr);
        destroy_ref(&yr);
    }
    ref_t x3, y3;
    split_2d_refs(&refs[3], 3, nrefs, nrefs + 1, &x3, &y3); /* of "reversed" */
    x3.name = "reversed-x3";
    y3.name = "reversed-y3";
    refs[nrefs++] = x3;
    refs[nrefs++] = y3;

    /* ---- teams from communicators: reversed, random order, subsets, a round trip ---- */
    MPI_Comm rev, perm, parity, part;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -me, &rev);
    MPI_Comm_split(MPI_COMM_WORLD, 0, (int)(test_value(me, 7, 0) % 1000), &perm);
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &parity);
    MPI_Comm_split(MPI_COMM_WORLD, me % 3 == 2 ? MPI_UNDEFINED : me % 3, (int)(test_value(me, 8, 0) % 5), &part);
    refs[nrefs] = ref_from_comm("comm-reversed", nrefs, rev);
    nrefs++;
    refs[nrefs] = ref_from_comm("comm-permuted", nrefs, perm);
    nrefs++;
    refs[nrefs] = ref_from_comm("comm-parity-reversed", nrefs, parity);
    nrefs++;
    refs[nrefs] = ref_from_comm("comm-part", nrefs, part);
    nrefs++;
    for (int k = nrefs - 4; k < nrefs; k++) check_team(&refs[k]);
    for (int pe = 0; pe < npes; pe++) /* reversed: by construction, not only by its communicator */
        CHECK(shmem_team_translate_pe(refs[nrefs - 4].team, pe, SHMEM_TEAM_WORLD) == npes - 1 - pe,
              "comm-reversed: PE %d", pe);
    {
        /* get_comm -> create_from_comm gives the same team; the communicator works for MPI */
        MPI_Comm c;
        ref_t *src = &refs[nrefs - 3];
        CHECK(shmemx_team_get_comm(src->team, &c) == 0, "get_comm");
        ref_t again = ref_from_comm("comm-round-trip", 29, c);
        for (int i = 0; i < src->n; i++)
            CHECK(shmem_team_translate_pe(src->team, i, again.team) == i, "round trip: PE %d", i);
        long sum = 0, want = 0;
        MPI_Allreduce(&(long){me}, &sum, 1, MPI_LONG, MPI_SUM, c);
        for (int i = 0; i < src->n; i++) want += src->pes[i];
        CHECK(sum == want, "MPI_Allreduce over the team's communicator: %ld, expected %ld", sum, want);
        long base = 0;
        sync_rounds((ref_t[]){*src, again}, 2, 10, &base);
        destroy_ref(&again);
        /* and the predefined teams' communicators */
        int cmp = MPI_UNEQUAL, size = -1, rank = -1;
        CHECK(shmemx_team_get_comm(SHMEM_TEAM_WORLD, &c) == 0, "get_comm(WORLD)");
        MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp);
        CHECK(cmp == MPI_CONGRUENT || cmp == MPI_IDENT, "WORLD's communicator");
        CHECK(shmemx_team_get_comm(SHMEM_TEAM_SHARED, &c) == 0, "get_comm(SHARED)");
        MPI_Comm_size(c, &size);
        MPI_Comm_rank(c, &rank);
        CHECK(size == shared.n && rank == shmem_team_my_pe(SHMEM_TEAM_SHARED), "SHARED's communicator");
    }
    /* a split of a team made from a communicator */
    refs[nrefs] = ref_strided("comm-reversed-split", nrefs, &refs[nrefs - 4], npes - 1, -2, ne);
    CHECK(shmem_team_split_strided(refs[nrefs - 4].team, npes - 1, -2, ne, NULL, 0, &refs[nrefs].team) == 0,
          "split of comm-reversed");
    check_team(&refs[nrefs]);
    nrefs++;
    refs[nrefs++] = ref_new("INVALID", 28); /* n = 0, team = SHMEM_TEAM_INVALID */

    check_translate_all(refs, nrefs);

    /* ---- team_sync on all these overlapping teams, back to back ---- */
    long base = 0;
    sync_rounds(refs, nrefs, 60, &base);

    /* ---- slot reuse: more creations than slots, while the teams above stay alive ---- */
    for (int iter = 0; iter < 150; iter++) {
        int stride = (int)(test_value(0, 9, (uint64_t)iter) % 3) - 1; /* -1, 0, 1 */
        int size = stride == 0 ? 1 : 1 + (int)(test_value(0, 10, (uint64_t)iter) % (uint64_t)npes);
        int start = stride < 0 ? npes - 1 - (int)(test_value(0, 11, (uint64_t)iter) % (uint64_t)(npes - size + 1))
                               : (int)(test_value(0, 11, (uint64_t)iter) % (uint64_t)(npes - size + 1));
        ref_t r = ref_strided("cycled", MAX_TID - 1, &world, start, stride, size);
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &r.team);
        CHECK(rc == 0, "cycled %d: split_strided(%d, %d, %d) returned %d", iter, start, stride, size, rc);
        check_team(&r);
        /* a varying number of syncs, so the slot's next team finds flags above and below it */
        long b = 0;
        sync_rounds(&r, 1, 1 + iter % 9, &b);
        destroy_ref(&r);
        if (iter % 10 == 0) sync_rounds(refs, nrefs, 1, &base);
    }
    sync_rounds(refs, nrefs, 5, &base);

    for (int k = 2; k < nrefs; k++) destroy_ref(&refs[k]);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&perm);
    MPI_Comm_free(&parity);
    if (part != MPI_COMM_NULL) MPI_Comm_free(&part);

    /* ---- slot exhaustion: 62 teams (64 slots, 2 predefined), then a clear failure ---- */
    for (int single = 0; single < 2; single++) {
        /* single: teams of PE 0 alone, so the PEs outside must learn of the failure too */
        shmem_team_t held[64];
        int made = 0, rc = 0;
        while (made < 64) {
            held[made] = world_handle;
            rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, single ? 1 : npes, NULL, 0, &held[made]);
            if (rc != 0) break;
            made++;
        }
        CHECK(made == 62 && rc != 0 && held[made] == SHMEM_TEAM_INVALID,
              "slot exhaustion (%s): made %d teams, last rc %d", single ? "PE 0 alone" : "all", made, rc);
        for (int k = 0; k < made; k++) {
            if (held[k] != SHMEM_TEAM_INVALID) {
                CHECK(shmem_team_sync(held[k]) == 0, "sync of held team %d", k);
                shmem_team_destroy(held[k]);
            } else {
                CHECK(single && me != 0, "PE %d got no team %d", me, k);
            }
        }
        ref_t r = ref_strided("after-exhaustion", MAX_TID - 1, &world, 0, 1, npes);
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &r.team) == 0,
              "a team after the slots were freed");
        long b = 0;
        sync_rounds(&r, 1, 3, &b);
        destroy_ref(&r);
    }

    sync_rounds(refs, 2, 5, &base); /* WORLD and SHARED still work */
    ref_free(&world);
    ref_free(&shared);
    shmem_free(mailbox);
    int status = test_finish("teams");
    shmem_finalize();
    return status;
}
