/* libnodeshm_mpi: per-communicator state of the PMPI interposer (internal).
 *
 * Every intra-communicator gets, at its first call that could be accelerated, its shape (which
 * ranks share a node, or a pseudo-node with NODESHM_PES_PER_NODE=k) and one node-shared memory
 * file per node holding flags and data buffers (core/shmfile.h); across nodes also a leaders
 * communicator.  Frugal: MPICH has 2048 context ids per process, so a state keeps no
 * communicator of its own on one node (the node split is freed once the shape is known), and
 * across nodes only the leaders hold one (nsmpi.c).  The state hangs on the communicator as an
 * attribute; the keyval's delete callback frees it at MPI_Comm_free and, for communicators
 * still alive, at MPI_Finalize. */
#ifndef NODESHM_MPI_NSMPI_H
#define NODESHM_MPI_NSMPI_H

#include "mpi/nsmpi_config.h"
#include "core/coll/area.h" /* flags, banks, small ring and waits: the node-collective engine */
#include "core/coll/library_wins.h" /* between nodes, where the MPI library's own collective wins */
#include "core/coll/progress.h" /* its non-blocking operations */
#include "core/lock.h" /* one thread at a time in MPI: plain counters */
#include "core/coll/reduce.h" /* the reduction family of both faces */
#include "core/topology.h" /* the node split */
#include "core/status.h" /* nodeshm_abort_job: the one way a rank ends the job after an error */

#include <limits.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct nsm_state {
    MPI_Comm comm;
    int rank, size;
    MPI_Comm leaders;              /* several nodes: node rank 0 of every node; NULL elsewhere */
    int node_rank, node_size, n_nodes, my_node;
    int max_node_size;
    int *node_of;                  /* [size] node number (= leader rank) of each rank */
    int *stage_index;              /* [size] position of a rank when ranks are listed node by node */
    int *node_members;             /* [node_size] comm rank of each node rank */
    int *node_first, *node_count;  /* [n_nodes] first stage_index and size of every node */
    long id;                       /* creation order, agreed by all ranks: finalize frees by it */
    int active;                    /* shared buffers exist (some node has >= 2 ranks) */
    /* One node: blocks that gatherv and scatterv move point to point go on nsm_p2p (a duplicate
     * of MPI_COMM_WORLD that all states share) with this state's own tag, to these ranks;
     * -1: no tag (those ops go to the MPI library here). */
    int p2p_tag;
    int *p2p_rank;                 /* [size] rank on nsm_p2p of each rank */
    /* Ialltoallv between nodes: its direct node pairs' blocks, posted once a rank's node has
     * arrived, on nsm_p2p_late in call order (tickets handed out at the start, the next one to
     * post): nonblocking_nodes_v.c */
    uint64_t a2av_tickets, a2av_posted;
    char *shm;                     /* the node's shared memory ("window"): the area below */
    size_t shm_bytes;
    /* Flags, buffer banks and (one node) the small ring in shm, the sequence number and the
     * current operation's buffers (area.cur: result area = bcast data, reduction result; node
     * members' slots; stage = the leaders' staging between nodes): core/coll/area.h */
    nodeshm_coll_area_t area;
    /* The ops' thresholds on this communicator: NODESHM_MPI_<OP>_MAX, or the default of its
     * shape (nsm_op_max_at), those of the ops with the largest buffers scaled down while the
     * window would exceed NODESHM_MPI_WINDOW_MAX (nsmpi.c); the same on every rank. */
    size_t max[NSM_OP_COUNT];
    /* Their lower bounds here: a set NODESHM_MPI_<OP>_MIN, or the default of its shape
     * (NSM_OP_MINS, nsm_op_min_at); the same on every rank. */
    size_t min[NSM_OP_COUNT];
    /* Non-blocking collectives outstanding here, in posting order (nonblocking.c); a blocking
     * one on this communicator first completes them (nsm_get_state drains the lane). */
    nodeshm_nb_lane_t nb;
    struct nsm_state *next;        /* all live states, for MPI_Finalize */
} nsm_state_t;

/* Whether every node's ranks are consecutive in rank order, nodes in order (stage index = rank):
 * a stage of blocks is then laid out as a rank-ordered buffer of them (gather, scatter). */
static inline int nsm_nodes_in_order(const nsm_state_t *s)
{
    for (int r = 0; r < s->size; r++)
        if (s->stage_index[r] != r) return 0;
    return 1;
}
/* Alltoall, blocking or not, of `block` bytes per pair between nodes where the library's own wins
 * (core/coll/library_wins.h: MPICH's inject band; Open MPI's 8-16 KiB blocks, above this face's
 * default window, so only where NODESHM_MPI_(I)ALLTOALL_MAX widened it); not between
 * pseudo-nodes, which race the library's shared memory. */
static inline int nsm_alltoall_by_library(const nsm_state_t *s, size_t block)
{
    return !nsm_cfg.pes_per_node && nodeshm_nodes_alltoall_by_library(s->size, s->n_nodes, block);
}
/* n requests for point-to-point traffic of `call` (ends the job when there is no memory). */
static inline MPI_Request *nsm_requests(int n, const char *call)
{
    MPI_Request *req = malloc(sizeof *req * (size_t)(n > 0 ? n : 1));
    if (!req) {
        fprintf(stderr, "nodeshm_mpi: %s: out of memory for %d requests\n", call, n);
        nodeshm_abort_job(1);
    }
    return req;
}
/* Collective over comm at first call; NULL when comm gets no acceleration (intercomm, size 1,
 * not initialized...). */
nsm_state_t *nsm_get_state(MPI_Comm comm);
/* The same for comm, made from (a dup of: same group, same order) a communicator whose active
 * state is `parent`: on one node it takes parent's shape instead of finding it (state.c). */
nsm_state_t *nsm_get_dup_state(MPI_Comm comm, const nsm_state_t *parent);
/* For a non-blocking start, which must not wait for peers: whether comm's state was made already
 * (by an earlier collective; *s: it, or NULL where comm gets no acceleration); 0: it was not,
 * and making it is collective, so the call goes to the MPI library (the same on every rank). */
int nsm_peek_state(MPI_Comm comm, nsm_state_t **s);
/* comm's ranks on this node, or pseudo-node (nsm_cfg.pes_per_node): core/topology.h. */
static inline int nsm_split_node(MPI_Comm comm, MPI_Comm *node, int *physical_size)
{
    return nodeshm_topology_split_node(comm, nsm_cfg.pes_per_node, node, physical_size);
}
/* Point-to-point traffic of gatherv and scatterv, tagged per state (MPI_COMM_NULL: none). */
extern MPI_Comm nsm_p2p;
/* Point-to-point messages posted later than their op's start (Ialltoallv's direct node pairs),
 * apart from nsm_p2p's, which every op posts in call order at its start: on one communicator a
 * later op's message posted first at one end would match an earlier op's receive. */
extern MPI_Comm nsm_p2p_late;
void nsm_after_init(void); /* after PMPI_Init(_thread), on every rank (init.c) */
void nsm_setup_p2p(void);    /* collective over MPI_COMM_WORLD: at MPI_Init */
/* The state's thresholds and buffer sizes (nsmpi.c); returns the bytes of its node's shared
 * memory.  Then nsm_map_buffers points its flags and buffers into s->shm. */
size_t nsm_plan_buffers(nsm_state_t *s);
void nsm_map_buffers(nsm_state_t *s);
/* Node barrier over the state's node with flags; with _all the leaders' PMPI_Barrier between
 * (a comm barrier).  Full memory fence both sides. */
static inline void nsm_node_barrier(nsm_state_t *s) { nodeshm_area_barrier(&s->area, MPI_COMM_NULL); }
static inline void nsm_node_barrier_all(nsm_state_t *s)
{
    nodeshm_area_barrier(&s->area, s->n_nodes > 1 ? s->leaders : MPI_COMM_NULL);
}
/* ---- per-op statistics: what nodeshm_mpi_accelerated_op (nodeshm.h) reports, and with
 * NODESHM_MPI_STATS the report at MPI_Finalize (stats.c).  One line per op so threads running
 * different ops do not share it.  Counting an accelerated call costs one relaxed atomic
 * increment. */

/* X(ID, column, meaning): why a call was not accelerated (NSM_WHY_NONE: it was); the first that
 * applies, in the order the ops check them (nsm_why_window).  Report columns, README. */
#define NSM_WHYS(X)                                                                                \
    X(NONE, "accelerated", "run by nodeshm")                                                       \
    X(EMPTY, "empty", "nothing to move (count 0): done here")                                      \
    X(DISABLED, "disabled", "NODESHM_MPI_DISABLE")                                                 \
    X(BELOW_MIN, "below_min", "smaller than NODESHM_MPI_<OP>_MIN")                                 \
    X(ABOVE_MAX, "above_max", "larger than NODESHM_MPI_<OP>_MAX (a MAX of 0: the op is off)")      \
    X(STAGE, "stage", "does not fit the shared buffers (NODESHM_MPI_STAGE_MAX, WINDOW_MAX)")       \
    X(DATATYPE, "datatype", "a datatype the op does not take (not predefined, lower bound)")       \
    X(OP, "reduce_op", "a reduction op that is not predefined (user-defined)")                     \
    X(INTER, "inter", "an intercommunicator")                                                      \
    X(ALONE, "alone", "no node peer (size 1, or one rank per node)")                               \
    X(NODES, "nodes", "spans nodes (one-node ops; scans: a node's ranks not consecutive)")         \
    X(SETUP, "setup", "non-blocking op before any blocking one on the communicator (setup blocks)") \
    X(LARGE, "large_count", "MPI-4 _c call whose counts do not fit an int")                        \
    X(FORTRAN, "fortran", "Fortran call before MPI_IN_PLACE is known: the MPI's own routine")      \
    X(ARGS, "args", "invalid arguments (root): the MPI library reports them; alltoallw in place")  \
    X(LIBRARY, "library", "between nodes, where the MPI library's own wins (core/coll/library_wins.h)")
enum {
#define NSM_WHY_ID(id, column, meaning) NSM_WHY_##id,
    NSM_WHYS(NSM_WHY_ID)
#undef NSM_WHY_ID
    NSM_WHY_COUNT
};

typedef struct nsm_op_stats {
    _Alignas(NODESHM_FLAG_LINE) long accelerated; /* calls run here, whatever the entry (plain, _c, Fortran) */
    /* NODESHM_MPI_STATS only (stats.c): calls, bytes (as stats.c defines them), nanoseconds
     * inside (all calls, accelerated ones), and calls by outcome (NSM_WHY_*) */
    long calls, bytes, ns, ns_accel;
    long why[NSM_WHY_COUNT];
} nsm_op_stats_t;
extern nsm_op_stats_t nsm_stats[NSM_OP_COUNT];
/* The ops' names (NSM_OP_* -> "ialltoallv": NSM_OPS' names, as NODESHM_MPI_DISABLE takes them,
 * the stats report prints them and nodeshm_mpi_accelerated_op knows them), then "all"
 * (NODESHM_MPI_DISABLE's extra word): the one table (nsmpi.c). */
extern const char *const nsm_op_names[NSM_OP_COUNT + 1];
/* An op's name ("?" for no op). */
const char *nsm_op_id_name(int op);
/* An op's size setting: var = "NODESHM_MPI_<NAME>_<bound>" (bound "MAX" or "MIN"). */
void nsm_op_var(char *var, size_t len, int op, const char *bound);
/* Counts an accelerated call of op (NSM_OP_*). */
static inline void nsm_count_accelerated(int op)
{
    nodeshm_count_add(&nsm_stats[op].accelerated, 1L);
}

/* Starts an accelerated operation of op: counts it, returns its sequence number, once every node
 * peer is done reading the shared buffers this one reuses (nodeshm_area_begin).  need: bytes of
 * result area and of each slot it uses, the same on every rank (small ones take the ring);
 * NODESHM_NEED_ANY: not small. */
static inline uint64_t nsm_begin_sized(nsm_state_t *s, int op, size_t need)
{
    nsm_count_accelerated(op);
    return nodeshm_area_begin(&s->area, need);
}
static inline uint64_t nsm_begin(nsm_state_t *s, int op) { return nsm_begin_sized(s, op, NODESHM_NEED_ANY); }
/* nsm_begin for a rank that writes no shared buffer in this operation (it only reads, or moves
 * its data point to point): nothing of the previous one can be overwritten, so it need not wait. */
static inline uint64_t nsm_begin_reader_sized(nsm_state_t *s, int op, size_t need)
{
    nsm_count_accelerated(op);
    return nodeshm_area_begin_reader(&s->area, need);
}
static inline uint64_t nsm_begin_reader(nsm_state_t *s, int op) { return nsm_begin_reader_sized(s, op, NODESHM_NEED_ANY); }

/* ---- NODESHM_MPI_STATS (stats.c).  Off (the default), an entry pays one predictable branch on
 * nsm_stats_on before its usual path; a body's hand-over point one more (NSM_HAND, in code that
 * has looked up a type or a communicator already).  On, the entry runs its twin (NSM_STATS_TWIN):
 * the body between two clock reads, the hand-over points telling the twin why. */
extern int nsm_stats_on __attribute__((visibility("hidden")));
#define NSM_STATS_ON __builtin_expect(nsm_stats_on, 0)
typedef struct nsm_call {
    long long t0;
    int why; /* NSM_WHY_*, set by the hand-over point the call took */
} nsm_call_t;
void nsm_stats_enter(nsm_call_t *c);
/* Counts the call (calls, bytes, time, outcome); returns rc. */
int nsm_stats_leave(nsm_call_t *c, int op, long long bytes, int rc);
void nsm_stats_why(int why); /* the current call's outcome */
/* Why op's call was handed over: disabled; MAX 0; not `looked` up yet: outside the window of
 * every communicator, else `hint`; looked up and no state: inter, alone; outside the state's
 * window; else `hint`.  bytes < 0: not known (the size checks do not apply). */
int nsm_why_window(int op, MPI_Comm comm, const struct nsm_state *s, int looked, long long bytes, int hint);
/* A hand-over point: records why (stats on only). */
#define NSM_WHY(expr)                                                                              \
    do {                                                                                           \
        if (NSM_STATS_ON) nsm_stats_why(expr);                                                     \
    } while (0)
#define NSM_HAND(op, comm, s, looked, bytes, hint)                                                 \
    NSM_WHY(nsm_why_window((op), (comm), (s), (looked), (bytes), (hint)))
/* At MPI_Init and MPI_Finalize (init.c, fortran.c): read the setting (nonzero: bad tuning file,
 * reported), open rank 0's file (nonzero: it cannot, reported), the report (collective). */
int nsm_stats_load(void);
int nsm_stats_open(void);
void nsm_stats_report(void);
/* The report's bytes of a call (stats.c says what they are per op). */
long long nsm_stat_bytes(long long count, MPI_Datatype type);
long long nsm_stat_index(const int *counts, MPI_Comm comm, int rank, MPI_Datatype type); /* counts[rank or mine] */
long long nsm_stat_sum(const int *counts, MPI_Comm comm, MPI_Datatype type);
int nsm_stat_ranks(MPI_Comm comm); /* ranks a call's arrays cover (remote group of an intercomm) */
/* A call handed to the MPI library before any entry saw it (bigcount.c): counted here, why. */
#define NSM_RETURN_COUNTED(op, reason, bytes, call)                                                \
    do {                                                                                           \
        if (NSM_STATS_ON) {                                                                        \
            nsm_call_t nsm_c_;                                                                     \
            nsm_stats_enter(&nsm_c_);                                                              \
            nsm_c_.why = (reason);                                                                 \
            int nsm_rc_ = call;                                                                    \
            return nsm_stats_leave(&nsm_c_, (op), (bytes), nsm_rc_);                               \
        }                                                                                          \
        return call;                                                                               \
    } while (0)
/* stats_<Name>: the entry's twin with stats on; the body accelerated_<Name> checks everything
 * the entry's shortcut does, so the twin skips the shortcut. */
#define NSM_STATS_TWIN(Name, op, params, args, bytes)                                              \
    __attribute__((noinline, cold)) static int stats_##Name params                                 \
    {                                                                                              \
        nsm_call_t nsm_c_;                                                                         \
        nsm_stats_enter(&nsm_c_);                                                                  \
        int nsm_rc_ = accelerated_##Name args;                                                     \
        return nsm_stats_leave(&nsm_c_, op, bytes, nsm_rc_);                                       \
    }

/* An op's accelerated body, kept out of line so that its entry (MPI_<Op>) has no frame and a
 * call left to the MPI library is a few compares and a jump. */
#define NSM_BODY __attribute__((noinline)) static

/* A body's answer "this call is the MPI library's" (no MPI error code is negative): its entry
 * then calls PMPI_<Op> or PMPI_<Op>_c with its own arguments. */
#define NSM_HANDED_OVER (-1)
/* The alltoall matrix (alltoall.c): block offset of my block to comm rank r, and where comm rank
 * r's block to me is once it has arrived. */
size_t nsm_a2a_send_block(const nsm_state_t *s, int r);
const char *nsm_a2a_recv_ptr(const nsm_state_t *s, const char *area, size_t stride, int r);
/* The largest block stride up to `max` whose matrix fits this communicator's buffers (one node:
 * its banks' slots; several: the leaders' stage), whole cache lines where it can: agreed values only. */
size_t nsm_a2a_stride(const nsm_state_t *s, size_t max);
/* b bytes rounded up to whole flag lines: a member's lines of its own in the result area. */
static inline size_t nsm_whole_lines(size_t b) { return (b + NODESHM_FLAG_LINE - 1) / NODESHM_FLAG_LINE * NODESHM_FLAG_LINE; }
/* Whether the matrix for blocks of `stride` bytes fits this communicator's buffers. */
int nsm_a2a_fits(const nsm_state_t *s, size_t stride);
/* Between nodes, the leaders' exchange of the matrix (an MPI_Alltoallv among them): the datatype
 * of a block, `moved` bytes of every `stride` (committed: the caller frees it once the call is
 * over); and in v (4 * n_nodes ints) the blocks' send counts, send displacements (in blocks from
 * the stage), receive counts and receive displacements (in blocks from its receive half,
 * nsm_a2a_recv_half: a buffer of its own, as libnbc, Open MPI's non-blocking collectives, takes
 * recvbuf == sendbuf for MPI_IN_PLACE) per node. */
MPI_Datatype nsm_a2a_block_type(size_t stride, size_t moved);
void nsm_a2a_leaders_counts(const nsm_state_t *s, int *v);
static inline char *nsm_a2a_recv_half(const nsm_state_t *s, char *stage, size_t stride)
{
    return stage + (size_t)s->node_size * (size_t)s->size * stride;
}
/* Alltoallv on one node pair by pair (alltoallv_pairs.c).  nsm_alltoallv_pairs_stride: the matrix
 * stride when a call on state s (NULL: none) takes that path, decided from values every rank
 * agrees on, else 0.  Counts and displacements as int (wide 0) or MPI_Count / MPI_Aint (wide 1). */
typedef struct nsm_vec {
    const void *counts, *displs;
    int wide;
    const MPI_Datatype *types; /* alltoallw: a datatype per rank, displacements in bytes; NULL: the
                                * call's one datatype, displacements in its extents */
} nsm_vec_t;
static inline long long nsm_vec_count(const nsm_vec_t *v, int r)
{
    return v->wide ? (long long)((const MPI_Count *)v->counts)[r] : (long long)((const int *)v->counts)[r];
}
static inline long long nsm_vec_displ(const nsm_vec_t *v, int r)
{
    return v->wide ? (long long)((const MPI_Aint *)v->displs)[r] : (long long)((const int *)v->displs)[r];
}
/* One point-to-point half of a block on nsm_p2p (to or from its rank `peer` there) under a
 * state's tag, without waiting; a count beyond an int through the MPI-4 _c call. */
static inline int nsm_p2p_start(int send, void *buf, long long count, MPI_Datatype type, int peer, int tag,
                                MPI_Request *req)
{
    if (count <= INT_MAX)
        return send ? PMPI_Isend(buf, (int)count, type, peer, tag, nsm_p2p, req)
                    : PMPI_Irecv(buf, (int)count, type, peer, tag, nsm_p2p, req);
#if MPI_VERSION >= 4
    return send ? PMPI_Isend_c(buf, (MPI_Count)count, type, peer, tag, nsm_p2p, req)
                : PMPI_Irecv_c(buf, (MPI_Count)count, type, peer, tag, nsm_p2p, req);
#else
    (void)buf, (void)type, (void)peer, (void)tag, (void)req;
    return MPI_ERR_COUNT; /* no large-count entry in this MPI: a wide count cannot reach here */
#endif
}
/* Waits for n requests of the library.  Under MPICH by testing them under the core's wait policy
 * (spin, then yield: core/wait.h), not in its blocking wait, which (throttled where ranks
 * outnumber cores: tools/oshrun) sleeps between polls.  2 emulated hosts, the same binary either
 * way, ratio to the library's own op: Alltoallv 2 x 2 time 0.85-0.91x of PMPI_Waitall's at 8 B-2
 * KiB (5 rounds; 2 x 4 0.85-0.95x); the root's and leaders' waits of Bcast and Scatter (3 rounds
 * 2 x 2, 2 rounds 2 x 4): bcast 32-64 KiB 1.09-1.26 -> 1.36x (2 x 4 1.13-1.24 -> 1.31-1.44),
 * scatter 8-64 KiB 1.00-1.13 -> 1.16-1.39x (1.11-1.34 -> 1.19-1.46), Gather within noise.  Open
 * MPI's wait polls without sleeping: there the tests gained nothing for Alltoallv (0.98-1.07x)
 * and lost a little for Bcast, Gather and Scatter at 32-64 KiB, so it keeps PMPI_Waitall. */
static inline int nsm_wait_requests(int n, MPI_Request *req)
{
    if (!NODESHM_UNDER_MPICH) return PMPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    for (int flag = 0;;) {
        int rc = PMPI_Testall(n, req, &flag, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS || flag) return rc;
        nodeshm_wait_step(&w);
    }
}
size_t nsm_alltoallv_pairs_stride(const nsm_state_t *s, int op); /* op: NSM_OP_ALLTOALLV, NSM_OP_IALLTOALLV */
size_t nsm_alltoallw_pairs_stride(const nsm_state_t *s, int in_place); /* the same for alltoallw (one node) */
/* sendbuf MPI_IN_PLACE (alltoallv only): sv is ignored, rv both ways. */
int nsm_alltoallv_pairs(nsm_state_t *s, size_t stride, const void *sendbuf, nsm_vec_t sv, MPI_Datatype sendtype,
                        void *recvbuf, nsm_vec_t rv, MPI_Datatype recvtype, MPI_Comm comm, const char *call);
/* Alltoallv and Ialltoallv between nodes: what each member publishes in the result area for its
 * leader, its line: the bytes of its matrix blocks to each rank of another node, then from each
 * (int each, by stage index; 0 elsewhere), whole cache lines; member i's line. */
static inline size_t nsm_a2av_meta_bytes(int size) { return nsm_whole_lines(2 * (size_t)size * sizeof(int)); }
static inline int *nsm_a2av_line(const nsm_state_t *s, const char *result, int i)
{
    return (int *)(result + (size_t)i * nsm_a2av_meta_bytes(s->size));
}
/* A member's note of the pair with comm rank r in its line: to, from: the bytes of its block to r
 * and from r; a block travels through the leaders' stage when r is on another node and it fits
 * the stride T (larger ones go point to point: 0 here). */
static inline void nsm_a2av_note(const nsm_state_t *s, int *line, size_t T, int r, unsigned long long to,
                                 unsigned long long from)
{
    const int x = s->stage_index[r], remote = s->node_of[r] != s->my_node;
    line[x] = remote && to <= T ? (int)to : 0;
    line[s->size + x] = remote && from <= T ? (int)from : 0;
}
/* The leaders' exchange of (I)alltoallv between nodes (alltoall.c), once every member of the node
 * has its line in `result`: block b of the stage's send half carries the bytes its sender noted,
 * block b of its receive half those its receiver noted, the same at both ends of a node pair.
 * Posts one receive and one send per node pair with blocks either way (receives first; none
 * where there are none, or where the pair is direct: nsm_a2av_pair_direct) on the leaders
 * communicator under this tag, and returns how many
 * requests it put in req (room for 2 * n_nodes): Alltoallv waits for them, Ialltoallv's leader
 * tests them at each progress pass. */
#define NSM_A2AV_LEADERS_TAG 16
/* Two nodes: the non-blocking ops' leaders' messages (nonblocking_nodes.c) */
#define NSM_LEADERS_PAIR_TAG 17
int nsm_a2av_leaders_post(const nsm_state_t *s, const char *result, char *stage, size_t stride, MPI_Request *req);
/* Whether the blocks of the node pair (my node, node k) travel rank to rank, not through the
 * leaders (core/coll/library_wins.h), read from the members' lines in `result` once all are in:
 * out 1 my node's blocks to k's ranks, 0 k's to mine.  The same at both ends of the pair, so
 * the leaders leave such a pair out and its members send and receive those blocks themselves:
 * from the stage's send half into its receive half, where the leaders would have put them. */
int nsm_a2av_pair_direct(const nsm_state_t *s, const char *result, int k, int out);
/* All of them: dir[2 k + out] = nsm_a2av_pair_direct(s, result, k, out) for every node k. */
void nsm_a2av_direct_pairs(const nsm_state_t *s, const char *result, int *dir);
/* Whether a block of `bytes` (to or from another node, stride T) may be one of them: if none of
 * a rank's is, it need not wait for its node's lines. */
static inline int nsm_a2av_may_direct(size_t bytes, size_t T)
{
    return !nsm_cfg.pes_per_node && bytes && bytes <= T && nodeshm_nodes_alltoallv_direct_size(bytes);
}
/* In place, a block sent point to point is copied aside before the receives posted with it may
 * overwrite it (alltoallv_pairs.c, nonblocking_a2a.c): `count` elements of a datatype of this
 * extent span (count - 1) * extent + true_extent bytes from its true lower bound.  Copies the
 * block at `block` (its displacement in the buffer) to `aside`, unless aside is NULL; returns the
 * room it takes there, rounded up to 16 bytes (the next copy stays aligned).  The copy's datatype
 * starts at aside - true_lb. */
static inline size_t nsm_aside(char *aside, const char *block, long long count, MPI_Aint extent, MPI_Aint true_lb,
                               MPI_Aint true_extent)
{
    const size_t span = count > 0 ? (size_t)((count - 1) * extent + true_extent) : 0;
    if (aside && span) memcpy(aside, block + true_lb, span);
    return (span + 15) & ~(size_t)15;
}
/* n ints (ends the job when there is no memory). */
static inline int *nsm_ints(size_t n, const char *call)
{
    int *v = malloc(sizeof(int) * (n ? n : 1));
    if (!v) {
        fprintf(stderr, "nodeshm_mpi: %s: out of memory for %zu ints\n", call, n);
        nodeshm_abort_job(1);
    }
    return v;
}

/* The plain entries under internal names (hidden aliases, each next to its entry): the large-count
 * entries (bigcount.c) call the same code without going through the dynamic linker again, so
 * a tool interposed above us sees one call, not two. */
#define NSM_ENTRY_ALIAS(Name)                                                                      \
    extern __typeof__(MPI_##Name) nsm_entry_##Name __attribute__((alias("MPI_" #Name), visibility("hidden")));
#define NSM_ENTRY_DECL(Name) extern __typeof__(MPI_##Name) nsm_entry_##Name __attribute__((visibility("hidden")));
NSM_ENTRY_DECL(Bcast)
NSM_ENTRY_DECL(Gather)
NSM_ENTRY_DECL(Gatherv)
NSM_ENTRY_DECL(Scatter)
NSM_ENTRY_DECL(Scatterv)
NSM_ENTRY_DECL(Allgather)
NSM_ENTRY_DECL(Allgatherv)
NSM_ENTRY_DECL(Reduce)
NSM_ENTRY_DECL(Allreduce)
NSM_ENTRY_DECL(Reduce_scatter_block)
NSM_ENTRY_DECL(Alltoall)
NSM_ENTRY_DECL(Scan)
NSM_ENTRY_DECL(Exscan)
NSM_ENTRY_DECL(Reduce_scatter)

/* ---- datatypes */
/* Bytes of `count` elements of `type` in packed form; -1 if unusable (negative, overflow).
 * Every op computes it before deciding to fall back, so the commonest predefined types are
 * known by handle: PMPI_Type_size costs 5-7 ns, a third of what an interposed call that falls
 * back adds to a 0.15-0.3 us tiny collective. */
static inline int nsm_known_size(MPI_Datatype type) /* 0: ask the library */
{
    if (type == MPI_DOUBLE) return (int)sizeof(double);
    if (type == MPI_INT) return (int)sizeof(int);
    if (type == MPI_BYTE || type == MPI_CHAR) return 1;
    if (type == MPI_FLOAT) return (int)sizeof(float);
    if (type == MPI_LONG) return (int)sizeof(long);
    return 0;
}
long long nsm_type_bytes(int count, MPI_Datatype type);
/* An op's entry leaves a call to the MPI library when this says so, with nothing but tail calls
 * in it (no frame): count elements of a type known by handle outside the op's size window. */
static inline int nsm_known_outside(int op, int count, MPI_Datatype type)
{
    int known = nsm_known_size(type);
    return known && count >= 0 && nsm_outside(op, (long long)count * known);
}
static inline long long nsm_bytes(int count, MPI_Datatype type)
{
    int known = nsm_known_size(type);
    return count >= 0 && known ? (long long)count * known : nsm_type_bytes(count, type);
}
/* PMPI_Type_get_extent, without the call for those types (lower bound 0, extent = size) */
static inline int nsm_extent(MPI_Datatype type, MPI_Aint *lb, MPI_Aint *extent)
{
    int known = nsm_known_size(type);
    if (!known) return PMPI_Type_get_extent(type, lb, extent);
    *lb = 0;
    *extent = known;
    return MPI_SUCCESS;
}
int nsm_envelope_named(MPI_Datatype type); /* PMPI_Type_get_envelope says MPI_COMBINER_NAMED */
/* predefined: the commonest by handle, the others by their envelope (5-10 ns a call, on every
 * reduction's path to its window test) */
static inline int nsm_is_named(MPI_Datatype type) { return nsm_known_size(type) || nsm_envelope_named(type); }
int nsm_is_dense(MPI_Datatype type);  /* predefined and contiguous: memcpy gives the packed form */
/* Packed form of (src, count, type) into dst (bytes), and back. */
void nsm_pack(void *dst, size_t bytes, const void *src, int count, MPI_Datatype type, MPI_Comm comm);
void nsm_unpack(void *dst, int count, MPI_Datatype type, const void *src, size_t bytes, MPI_Comm comm);
/* The same with nsm_is_dense(type) given: callers moving many blocks of one type ask once. */
void nsm_pack_as(void *dst, size_t bytes, const void *src, int count, MPI_Datatype type, int dense,
                 MPI_Comm comm);
void nsm_unpack_as(void *dst, int count, MPI_Datatype type, int dense, const void *src, size_t bytes,
                   MPI_Comm comm);
/* A rank's own block from (src, scount, stype) to (dst, rcount, rtype), same signature (`bytes`):
 * one pack or unpack when either side is dense, else the MPI library copies it. */
static inline void nsm_copy(void *dst, int rcount, MPI_Datatype rtype, const void *src, int scount,
                            MPI_Datatype stype, size_t bytes, MPI_Comm comm)
{
    if (!bytes) return;
    if (nsm_is_dense(rtype))
        nsm_pack(dst, bytes, src, scount, stype, comm);
    else if (nsm_is_dense(stype))
        nsm_unpack(dst, rcount, rtype, src, bytes, comm);
    else
        PMPI_Sendrecv(src, scount, stype, 0, 0, dst, rcount, rtype, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
}
/* Bad arguments seen by one rank only, once its peers may be on the shared-memory path already
 * (they would wait forever if it went to the MPI library alone): report, abort the job. */
static inline int nsm_bad_arg(MPI_Comm comm, const char *call, const char *what, long long value)
{
    fprintf(stderr, "nodeshm_mpi: %s: bad %s %lld\n", call, what, value);
    PMPI_Abort(comm, 1);
    return MPI_ERR_ARG;
}
/* A predefined reduction op (MPI_SUM ... MPI_MINLOC): PMPI_Reduce_local can apply it. */
int nsm_op_ok(MPI_Op op);
/* Reduce_scatter(_block) on state s (reduce_scatter.c): block r holds counts[r] elements, or
 * `count` for every r when counts is NULL; total: the elements of the whole vector (> 0). */
int nsm_reduce_scatter_run(nsm_state_t *s, int id, const void *sendbuf, void *recvbuf, const int *counts, int count,
                           size_t total, MPI_Aint extent, MPI_Datatype type, MPI_Op op);
/* The interposer's side of core/coll/reduce.h: node rank k's contribution is its
 * slot (slots + k * stride), or `mine` for k == me where mine is not NULL; the operation is
 * PMPI_Reduce_local(type, op) on elements of `extent` bytes. */
typedef struct nsm_reduction {
    nodeshm_reduction_t r;
    const char *slots;
    size_t stride;
    const void *mine;
    int me;
    MPI_Datatype type;
    MPI_Op op;
} nsm_reduction_t;
/* Static, in this header: where the reduction is built the compiler sees which functions these
 * are, and inlines them into the core's ordered loop (no call per contribution). */
static inline const char *nsm_reduction_at(const nodeshm_reduction_t *r, int k)
{
    const nsm_reduction_t *m = (const nsm_reduction_t *)r;
    return k == m->me && m->mine ? (const char *)m->mine : m->slots + (size_t)k * m->stride;
}
static inline void nsm_reduction_local(const nodeshm_reduction_t *r, const void *in, void *inout, size_t n)
{
    const nsm_reduction_t *m = (const nsm_reduction_t *)r;
    PMPI_Reduce_local(in, inout, (int)n, m->type, m->op);
}
static inline nsm_reduction_t nsm_reduction(const char *slots, size_t stride, MPI_Aint extent, MPI_Datatype type,
                                            MPI_Op op)
{
    nsm_reduction_t m = {{NULL, nsm_reduction_local, nsm_reduction_at, (size_t)extent}, slots, stride, NULL, -1,
                         type, op};
    return m;
}
/* The reduction over the current operation's slots of state s. */
static inline nsm_reduction_t nsm_slots_reduction(const nsm_state_t *s, MPI_Aint extent, MPI_Datatype type,
                                                  MPI_Op op)
{
    return nsm_reduction(s->area.cur.slots, s->area.cur.slot_stride, extent, type, op);
}
/* Node rank me's slice (core/coll/reduce.h) reduced over all slots of operation seq, once they
 * have arrived, into the result area (allreduce.c). */
void nsm_reduce_my_slice(const nsm_state_t *s, uint64_t seq, int count, MPI_Aint extent, MPI_Datatype type,
                         MPI_Op op);
/* dst = slot 0 op slot 1 op ... in node rank order, over elements [first, first + n) of every
 * slot: the same bits on every rank that calls it. */
static inline void nsm_reduce_slots(const nsm_state_t *s, void *dst, size_t first, int n, MPI_Aint extent,
                                    MPI_Datatype type, MPI_Op op)
{
    nsm_reduction_t m = nsm_slots_reduction(s, extent, type, op);
    nodeshm_reduce_ordered(&m.r, dst, first, (size_t)n, 0, s->node_size - 1);
}

#endif
