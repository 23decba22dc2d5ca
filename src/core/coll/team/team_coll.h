/* nodeshm core, OpenSHMEM team collectives: what their files share (internal; the API is
 * core/coll.h).
 *
 * The algorithms live one family per file (sync.c, bcast.c, reduce.c, scan.c, collect.c,
 * alltoall.c); the mechanisms they run on are here and in turns.c (staging by turns), small.c
 * (a ring of small contributions per member), leaders.c (the node leaders' communicator and MPI
 * ops) and fan.c (between nodes: the leaders' fan-in / fan-out).  They sit below core/coll/, not
 * in it, because they need the OpenSHMEM runtime (symmetric segments), which libnodeshm_mpi,
 * built from the .c files of core/coll/ itself, does not have.
 *
 * Within a node every PE maps every node peer's symmetric memory, so node members read each
 * other's buffers directly (coll_at_member).  Synchronization uses core/coll/flags.h's lines
 * (sequence numbers, one writer per cache line, release/acquire, core/wait.h's policy), kept in
 * the team's slot of each member's control block (runtime.h: team[slot].scratch): every node
 * peer maps that already, so a team needs no node-shared file of its own.  The values are epochs
 * from the team's counter (team.h: it only grows, also across slot reuse), so no stale line can
 * release a wait early.  Between nodes the team's node leaders (first member of each node in team
 * order) use MPI collectives on a leaders communicator (leaders.c). */
#ifndef NODESHM_COLL_TEAM_COLL_H
#define NODESHM_COLL_TEAM_COLL_H

#include "core/coll.h"
#include "core/coll/flags.h"
#include "core/coll/library_wins.h"
#include "core/coll/publish.h"
#include "core/runtime.h"
#include "core/status.h"
#include "core/team.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- the team slot's flag lines ------------------------------------------------------------------ */
enum {
    LINE_SYNC = 0,          /* 16 lines: node sync round k, written by the node member 2^k below */
    LINE_TURN = 16,         /* NODESHM_COLL_STAGE_DEPTH lines: staging turn b (turns.c) */
    LINE_FAN = LINE_TURN + NODESHM_COLL_STAGE_DEPTH, /* fan-in between nodes (fan.c) */
    LINE_FAN_RELEASE,       /* the node leader's release after a fan-in (fan.c) */
    LINE_COUNT,             /* counting node sync: arrivals (word 0 of the leader's) */
    LINE_COUNT_RELEASE,     /* counting node sync: the last arrival's release (the leader's) */
    LINE_SMALL,             /* small ring: done, and the lowest peers' done seen (small.c) */
    LINE_PIPE,              /* pipelined broadcast: chunks landed at the node leader (bcast.c) */
    LINES_USED
};
#define NODE_SYNC_LINES 16
_Static_assert(NODE_SYNC_LINES <= LINE_TURN, "node of up to 2^16 PEs");
_Static_assert(LINES_USED <= NODESHM_TEAM_SCRATCH_LINES, "scratch lines");
_Static_assert(sizeof(nodeshm_flag_line_t) == sizeof(((nodeshm_team_slot_t *)0)->scratch[0]), "a line");

/* Line l of the team's slot in node member k's control block. */
static inline nodeshm_flag_line_t *coll_line(const nodeshm_team_t *t, int node_member, int l)
{
    return (nodeshm_flag_line_t *)(void *)&nodeshm_ctrl_of(t->node_local[node_member])
        ->team[t->slot].scratch[l];
}
static inline nodeshm_flag_line_t *coll_my_line(const nodeshm_team_t *t, int l)
{
    return coll_line(t, t->node_my_pe, l);
}
/* Waits until field (NODESHM_FLAG_*) of line l of every node peer but me is >= v; returns the
 * lowest value seen (UINT64_MAX with no peer). */
uint64_t coll_peers_wait(const nodeshm_team_t *t, int l, size_t field, uint64_t v);

/* ---- epochs and node syncs (sync.c) ---------------------------------------------------------------- */
#define EPOCHS_PER_COLL 4 /* node syncs a collective may do */
/* Reserves a collective's epochs: base + 1 .. base + EPOCHS_PER_COLL; returns base. */
static inline uint64_t coll_begin(nodeshm_team_t *t)
{
    uint64_t base = t->epoch;
    t->epoch += EPOCHS_PER_COLL;
    return base;
}
/* Every node member of t has reached epoch (a dissemination barrier over LINE_SYNC, or an
 * arrival count when PEs outnumber cores). */
void coll_node_sync(const nodeshm_team_t *t, uint64_t epoch);

/* ---- staging by turns (turns.c) ------------------------------------------------------------------- */
/* A collective's turn: its epoch and b, its number on the team modulo the staging depth, which
 * picks its staging buffer and flag line; seq picks small contributions' ring entry. */
typedef struct coll_turn {
    uint64_t e;
    int b;
    uint64_t seq;
} coll_turn_t;
enum { FROM_STAGE = 1, FROM_SOURCE = 2 }; /* where a publication's data is */
/* Words of a turn line published with its arrive flag (the ready epoch). */
enum { TURN_SIZE = 0, TURN_FROM = 1, TURN_TOKEN = 2 };
#define EAGER_MAX NODESHM_COLL_STAGE_BYTES /* largest staged contribution */

coll_turn_t coll_turn_begin(nodeshm_team_t *t, uint64_t base);
static inline char *coll_stage_of(const nodeshm_team_t *t, int node_member, int b)
{
    return (char *)nodeshm_ctrl_of(t->node_local[node_member])->stage[t->slot][b];
}
/* Waits until my node peers read my previous publication of turn b; returns my staging buffer. */
char *coll_stage_claim(nodeshm_team_t *t, coll_turn_t x);
/* The same for data my peers read without a publication of it (publish.h's shared buffer): my
 * next claim of turn b waits until they said done for this turn. */
char *coll_stage_hold(nodeshm_team_t *t, coll_turn_t x);
/* Publishes my contribution of this turn: its size, where it is (FROM_*) and, for readers whose
 * own source is null (collect), where my source is (coll_source_token; 0 where unused). */
void coll_publish(nodeshm_team_t *t, coll_turn_t x, uint64_t size, uint64_t from, uint64_t token);
/* Waits for node member k's publication of this turn; returns its line (words TURN_*).  The
 * value cannot run past x.e: k publishes again in turn b only after I said done.  Inline: out of
 * line (a call through the library's PLT, the turn passed on the stack) a wait cost 6-10 ns, a
 * one-node collect of 8 B at 2 PEs 0.115 us -> 0.134 us (two waits a peer; Open MPI, quiet, 30
 * runs A B / B A). */
static inline const nodeshm_flag_line_t *coll_await_ready(const nodeshm_team_t *t, coll_turn_t x, int k)
{
    const nodeshm_flag_line_t *r = coll_line(t, k, LINE_TURN + x.b);
    (void)nodeshm_flag_wait_ge(&r->arrive, x.e);
    return r;
}
/* My reads of this turn's publications are over. */
static inline void coll_mark_done(const nodeshm_team_t *t, coll_turn_t x)
{
    nodeshm_flag_store(&coll_my_line(t, LINE_TURN + x.b)->done, x.e);
}
/* A rendezvous owner: waits until every node peer has finished reading this turn's data. */
static inline void coll_await_done(const nodeshm_team_t *t, coll_turn_t x)
{
    (void)coll_peers_wait(t, LINE_TURN + x.b, NODESHM_FLAG_DONE, x.e);
}
/* Where node member k's data of this turn is (ready: its turn line, published): coll_data_of,
 * below (addresses). */
/* Eager (staged) switches: collect's; broadcast's and alltoall's, whose data owner waits for its
 * readers above it (turns.c says how they were measured). */
size_t coll_copy_eager_max(void);
size_t coll_owner_waits_eager_max(size_t with_cores);
#define COPY_EAGER_DEFAULT ((size_t)4096)

/* ---- small contributions (small.c) ---------------------------------------------------------------- */
size_t coll_small_max(void);
char *coll_small_claim(const nodeshm_team_t *t, coll_turn_t x);
void coll_small_publish(const nodeshm_team_t *t, coll_turn_t x);
const char *coll_small_await(const nodeshm_team_t *t, coll_turn_t x, int k);
static inline void coll_small_done(const nodeshm_team_t *t, coll_turn_t x)
{
    nodeshm_flag_store(&coll_my_line(t, LINE_SMALL)->done, x.e);
}
void coll_small_retire(nodeshm_team_t *t);

/* ---- node leaders and MPI (leaders.c) ------------------------------------------------------------- */
/* The team's node leaders (rank = node number), made on first need (collective over the team
 * then); MPI_COMM_NULL on members that are not leaders. */
int nodeshm_coll_leaders(const char *call, const nodeshm_team_t *t, MPI_Comm *out);
int nodeshm_coll_mpi_failed(const char *call, const char *what);
/* Completes reqs, waiting by core/wait.h's policy (what: named in the error). */
int coll_leaders_waitall(const char *call, int n, MPI_Request *reqs, const char *what);
/* The team's members, rank = team index, in a communicator of nodeshm's own (point-to-point
 * that no program's receive can match); made on first need (collective over the team). */
int nodeshm_coll_own_comm(const char *call, const nodeshm_team_t *t, MPI_Comm *out);

int nodeshm_coll_too_big(const char *call, size_t bytes);
/* op, or for MPI_OP_NULL an MPI user op applying fn (the caller's kernel: MPI libraries may
 * saturate 8- and 16-bit sums); fn is this thread's until the next call. */
int coll_mpi_op(const char *call, MPI_Op *op, nodeshm_reduce_fn fn);
/* MPI_Allreduce(MPI_IN_PLACE) of buf on comm, in pieces an int count holds. */
int nodeshm_coll_allreduce_inplace(const char *call, void *buf, size_t count, size_t elem,
                                   MPI_Datatype dtype, MPI_Op op, nodeshm_reduce_fn fn, MPI_Comm comm);

/* ---- which path a call took (paths.c) ------------------------------------------------------------ */
/* X(ID, name): the families counted, and their paths: one node; between nodes nodeshm's node
 * leaders (any of the algorithms below); the MPI library's collective over the team (a choice
 * of the next section). */
#define COLL_FAMILIES(X)                                                                           \
    X(SYNC, "sync") X(BCAST, "broadcast") X(COLLECT, "collect") X(FCOLLECT, "fcollect")             \
    X(ALLTOALL, "alltoall") X(REDUCE, "reduce") X(SCAN, "scan")
#define COLL_PATHS(X) X(NODE, "node") X(LEADERS, "leaders") X(LIBRARY, "library")
enum {
#define COLL_FAMILY_ID(id, name) COLL_##id,
    COLL_FAMILIES(COLL_FAMILY_ID)
#undef COLL_FAMILY_ID
    COLL_FAMILY_COUNT
};
enum {
#define COLL_PATH_ID(id, name) COLL_PATH_##id,
    COLL_PATHS(COLL_PATH_ID)
#undef COLL_PATH_ID
    COLL_PATH_COUNT
};
extern long coll_path_calls[COLL_FAMILY_COUNT][COLL_PATH_COUNT];
/* A relaxed load and store, no locked add (~1 ns, not ~10: one-node small collectives take
 * 0.2-1 us): threads calling collectives on different teams at once may lose a count. */
static inline void coll_path(int family, int path)
{
    long *c = &coll_path_calls[family][path];
    __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

/* ---- between nodes: where the MPI library's own collective wins ------------------------------------ */
/* Every such choice is here, each measured on 2 emulated hosts on a quiet machine (ours / the
 * library's collective over the team's communicator / ours in turn; the figures sit where each
 * path runs).  They depend on the MPI library and the team's shape only, so every PE agrees. */
/* Under MPICH with at most 2 PEs per node, MPICH's node-aware collectives beat the fan below:
 * 2 x 2, 2 rounds, medians of the ratio to the library: fcollect 8 B-4 KiB 0.86-0.94x (the
 * library's 0.97-1.00x), reduce_int 512 B-8 KiB 0.81-0.89x (0.98-1.02x).  At 2 x 4 the fan wins
 * (fcollect 1.17-2.35x, reduce_int 1.31-2.48x from 16 B), and under Open MPI everywhere.  Then
 * fcollect up to NODESHM_COLL_NODES_LIBRARY_MAX and the fan's reductions go to MPI_Allgather /
 * MPI_Allreduce over the team (collect.c, reduce.c). */
#define NODESHM_COLL_NODES_LIBRARY_MAX ((size_t)64 << 10)
static inline int coll_nodes_library_wins(const nodeshm_team_t *t)
{
    return NODESHM_UNDER_MPICH && t->n_pes <= 2 * t->n_nodes;
}
/* team_sync: MPICH's MPI_Barrier over the team, in every shape (sync.c). */
static inline int coll_nodes_sync_by_library(void) { return NODESHM_UNDER_MPICH; }
/* Broadcast: MPICH's MPI_Bcast over the team up to 16 KiB, with more than 2 PEs per node only
 * above 128 B, where ours wins (bcast.c). */
static inline int coll_nodes_bcast_by_library(const nodeshm_team_t *t, size_t nbytes)
{
    return NODESHM_UNDER_MPICH && nbytes <= ((size_t)16 << 10) && (nbytes > 128 || coll_nodes_library_wins(t));
}
/* Alltoall(s): MPI_Alltoall over the team (MPICH in its inject band, Open MPI at 8-16 KiB blocks:
 * core/coll/library_wins.h; alltoall.c). */
static inline int coll_nodes_alltoall_by_library(const nodeshm_team_t *t, size_t block)
{
    return nodeshm_nodes_alltoall_by_library(t->n_pes, t->n_nodes, block);
}
/* Scans above the chain: Open MPI's MPI_Scan over the team; MPICH keeps the rounds (scan.c). */
static inline int coll_nodes_scan_by_library(void) { return !NODESHM_UNDER_MPICH; }

/* ---- between nodes through the leaders' fan-in / fan-out (fan.c) ---------------------------------- */
/* Several nodes, each a contiguous run of the team (coll_nodes_in_blocks): collect / fcollect,
 * with the epochs of a collective (coll_begin's base e) and the team's leaders communicator. */
int nodeshm_coll_nodes_collect(const char *call, nodeshm_team_t *t, MPI_Comm leaders, uint64_t e,
                               void *dest, const void *src, size_t nbytes, int fixed);
/* alltoall(s) of at most NODESHM_COLL_NODES_A2A_MAX bytes of blocks per PE. */
#define NODESHM_COLL_NODES_A2A_MAX ((size_t)64 << 10)
int nodeshm_coll_nodes_alltoall(const char *call, nodeshm_team_t *t, MPI_Comm leaders, uint64_t e,
                                void *dest, const void *src, size_t dst, size_t sst,
                                size_t nelems, size_t elem);
/* team_sync: the members arrive, the leaders' MPI_Barrier, the leader releases them. */
int nodeshm_coll_nodes_sync(const char *call, nodeshm_team_t *t, MPI_Comm leaders, uint64_t e);
/* Broadcasts of at most NODESHM_COLL_NODES_BCAST_MAX bytes go through a publisher per node
 * (bcast.c), staged: at most a staging buffer. */
#define NODESHM_COLL_NODES_BCAST_MAX ((size_t)64 << 10)
_Static_assert(NODESHM_COLL_NODES_BCAST_MAX <= NODESHM_COLL_STAGE_BYTES, "staged broadcast");
/* Reductions of at most NODESHM_REDUCE_NODES_FAN_MAX bytes (core/coll/reduce.h). */
int nodeshm_coll_nodes_reduce(const char *call, nodeshm_team_t *t, MPI_Comm leaders, uint64_t e,
                              void *dest, const void *src, size_t count, size_t elem,
                              nodeshm_reduce_fn fn, MPI_Datatype dtype, MPI_Op op);

/* Scans between nodes, each a contiguous run of the team, of at most coll_small_max() bytes: a
 * chain through the team in order on comm, the team's own point-to-point (scan_chain.c). */
int coll_scan_chain(const char *call, nodeshm_team_t *t, MPI_Comm comm, void *dest, const void *src,
                    size_t count, size_t elem, nodeshm_reduce_fn fn, int exclusive);

/* ---- reductions' helpers (reduce.c), for fan.c and scan.c ----------------------------------------- */
/* dest = the node members' symmetric sources `src` reduced in member order (dest may be src;
 * the leader between nodes, fan.c; reduce.c). */
void coll_reduce_sources(const nodeshm_team_t *t, void *dest, const void *src, size_t count, size_t elem,
                         nodeshm_reduce_fn fn);
/* count * elem fits, both arrays symmetric, the same array or disjoint (reduce.c). */
int coll_check_reduce_args(const char *call, const char *count_name, void *dest, const void *src,
                           size_t count, size_t elem);

/* ---- addresses --------------------------------------------------------------------------------------- */
/* Local pointer to symmetric `addr` on node member `node_member`.  The caller checked `addr` on
 * itself already, so this cannot fail. */
static inline char *coll_at_member(const nodeshm_team_t *t, const void *addr, int node_member)
{
    uintptr_t a = (uintptr_t)addr;
    for (int s = 0; s < NODESHM_NSEGS; s++) {
        uintptr_t off = a - (uintptr_t)nodeshm_rt.seg[s].base;
        if (off < nodeshm_rt.seg[s].size)
            return nodeshm_rt.seg[s].peer_base[t->node_local[node_member]] + off;
    }
    return NULL;
}

/* Where node member k's data of this turn is, once published (ready: its turn line): its
 * staging, or its copy of the symmetric src. */
static inline const char *coll_data_of(const nodeshm_team_t *t, coll_turn_t x, const nodeshm_flag_line_t *ready,
                                       int k, const void *src)
{
    return ready->word[TURN_FROM] == FROM_STAGE ? coll_stage_of(t, k, x.b) : coll_at_member(t, src, k);
}

/* Checks that [addr, addr+len) is symmetric (reports otherwise).  A null pointer with nothing
 * to move is fine (OpenSHMEM 1.6: "len is 0, pointer is null: supported"); such a call is still
 * a collective, counted and matched like any other, and nothing dereferences the pointer. */
static inline int coll_check_sym(const char *call, const char *what, const void *addr, size_t len)
{
    if (len == 0 && addr == NULL) return NODESHM_OK;
    nodeshm_target_t tg;
    return nodeshm_resolve(call, what, addr, len ? len : 1, nodeshm_rt.my_pe, &tg);
}

/* collect's members with nothing to send may pass a null source, so a reader cannot take a
 * peer's source from its own: each member passes on its source as a token (segment, offset),
 * the same symmetric address on every PE; NO_SOURCE for none. */
#define NO_SOURCE UINT64_MAX
static inline uint64_t coll_source_token(const void *addr)
{
    for (int s = 0; addr && s < NODESHM_NSEGS; s++) {
        uintptr_t off = (uintptr_t)addr - (uintptr_t)nodeshm_rt.seg[s].base;
        if (off < nodeshm_rt.seg[s].size) return (uint64_t)s << 56 | off;
    }
    return NO_SOURCE;
}

/* Local pointer to node member k's copy of the source behind `token` (not NO_SOURCE). */
static inline const char *coll_token_at_member(const nodeshm_team_t *t, uint64_t token, int node_member)
{
    int s = (int)(token >> 56);
    return nodeshm_rt.seg[s].peer_base[t->node_local[node_member]] + (token & ((1ull << 56) - 1));
}

/* Whether each node's members are contiguous in team order (node numbers never decrease, as
 * they are given in order of first appearance): then a node's members form one run of the team. */
static inline int coll_nodes_in_blocks(const nodeshm_team_t *t)
{
    for (int i = 1; i < t->n_pes; i++)
        if (t->node_of[i] < t->node_of[i - 1]) return 0;
    return 1;
}

/* d[k * dst] = s[k * sst] for nelems elements of elem bytes (strides in elements). */
static inline void coll_copy_block(char *d, size_t dst, const char *s, size_t sst, size_t nelems,
                                   size_t elem)
{
    if (dst == 1 && sst == 1) {
        memcpy(d, s, nelems * elem);
        return;
    }
    switch (elem) {
#define STRIDED(T)                                                                                 \
    for (size_t k = 0; k < nelems; k++) ((T *)d)[k * dst] = ((const T *)s)[k * sst];               \
    return;
    case 1: STRIDED(uint8_t)
    case 2: STRIDED(uint16_t)
    case 4: STRIDED(uint32_t)
    case 8: STRIDED(uint64_t)
#undef STRIDED
    default:
        for (size_t k = 0; k < nelems; k++) memcpy(d + k * dst * elem, s + k * sst * elem, elem);
    }
}

#endif
