/* nodeshm core, node collectives: flag lines.
 *
 * A flag is a 64-bit sequence number in a cache line that only one process writes (release
 * store, acquire load).  Values only grow, so nothing is ever reset and a reader that is late
 * by several operations still sees ">= what I wait for".  Every node member owns one line
 * (arrive: my data of operation <seq> is in place; reduced: my part of the node reduction is
 * done; done: I have finished reading the shared buffers of <seq>), and one more line, written by
 * the node leader (member 0) only, releases the others after a fan-in.  Waits use the one wait
 * policy of core/wait.h.
 *
 * Two layouts use these lines: the interposer's area keeps a node's lines side by side
 * (nodeshm_flags_t, below); the OpenSHMEM face keeps each member's lines in its own control
 * block, which every node peer maps already (core/coll/team/team_coll.h reaches them), so a
 * team needs no file of its own.  A line may carry words published with its arrive flag
 * (written before it; read after waiting for it). */
#ifndef NODESHM_COLL_FLAGS_H
#define NODESHM_COLL_FLAGS_H

#include "core/wait.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define NODESHM_FLAG_LINE 64 /* bytes of a cache line: one writer each */

typedef struct nodeshm_flag_line {
    uint64_t arrive, reduced, done;
    uint64_t word[(NODESHM_FLAG_LINE - 3 * sizeof(uint64_t)) / sizeof(uint64_t)]; /* published with arrive */
} nodeshm_flag_line_t;
_Static_assert(sizeof(nodeshm_flag_line_t) == NODESHM_FLAG_LINE, "one line");

/* The flags of one node's members: lines[0..n-1] one per member, lines[n] the leader's release. */
typedef struct nodeshm_flags {
    nodeshm_flag_line_t *lines;
    int me, n; /* my index among the node members, their count */
} nodeshm_flags_t;

#define NODESHM_FLAG_ARRIVE offsetof(nodeshm_flag_line_t, arrive)
#define NODESHM_FLAG_REDUCED offsetof(nodeshm_flag_line_t, reduced)
#define NODESHM_FLAG_DONE offsetof(nodeshm_flag_line_t, done)

static inline uint64_t nodeshm_flag_load(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void nodeshm_flag_store(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

/* Waits (core/wait.h's policy) until *p >= v; returns the value that ended the wait. */
static inline uint64_t nodeshm_flag_wait_ge(const uint64_t *p, uint64_t v)
{
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    uint64_t seen;
    while ((seen = nodeshm_flag_load(p)) < v) nodeshm_wait_step(&w);
    return seen;
}

static inline nodeshm_flag_line_t *nodeshm_flags_mine(const nodeshm_flags_t *f) { return &f->lines[f->me]; }
/* My line's flags: my data of seq is in place; my part of the reduction is done; I am done. */
static inline void nodeshm_flags_arrive(const nodeshm_flags_t *f, uint64_t seq)
{
    nodeshm_flag_store(&nodeshm_flags_mine(f)->arrive, seq);
}
static inline void nodeshm_flags_reduced(const nodeshm_flags_t *f, uint64_t seq)
{
    nodeshm_flag_store(&nodeshm_flags_mine(f)->reduced, seq);
}
static inline void nodeshm_flags_done(const nodeshm_flags_t *f, uint64_t seq)
{
    nodeshm_flag_store(&nodeshm_flags_mine(f)->done, seq);
}
/* Waits until member i's data of seq is in place; whether it is, without waiting. */
static inline void nodeshm_flags_wait_arrive(const nodeshm_flags_t *f, int i, uint64_t seq)
{
    (void)nodeshm_flag_wait_ge(&f->lines[i].arrive, seq);
}
static inline int nodeshm_flags_arrived(const nodeshm_flags_t *f, int i, uint64_t seq)
{
    return nodeshm_flag_load(&f->lines[i].arrive) >= seq;
}
/* The leader's release line: the leader raises it, the other members wait for it. */
static inline void nodeshm_flags_release(const nodeshm_flags_t *f, uint64_t seq)
{
    nodeshm_flag_store(&f->lines[f->n].arrive, seq);
}
static inline void nodeshm_flags_wait_release(const nodeshm_flags_t *f, uint64_t seq)
{
    (void)nodeshm_flag_wait_ge(&f->lines[f->n].arrive, seq);
}
/* Bytes of the lines of n members (and the release line). */
static inline size_t nodeshm_flags_bytes(int n) { return sizeof(nodeshm_flag_line_t) * ((size_t)n + 1); }

/* Waits until field `field` (NODESHM_FLAG_*) of every member's line is >= v; returns the lowest
 * value it then saw (flags only grow: all stay >= it). */
uint64_t nodeshm_flags_wait_all(const nodeshm_flags_t *f, size_t field, uint64_t v);

/* Barrier of operation seq over the node's members: each arrives, the leader waits for all of
 * them, meets the other nodes' leaders in MPI_Barrier on `leaders` (MPI_COMM_NULL: node only)
 * and releases its members; each then says done. */
void nodeshm_flags_barrier(const nodeshm_flags_t *f, uint64_t seq, MPI_Comm leaders);

#endif
