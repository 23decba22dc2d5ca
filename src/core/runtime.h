/* nodeshm core: the process-wide state, and symmetric address resolution.
 *
 * A symmetric address is an address in the caller's symmetric heap or data segment.  The same
 * object on PE `pe` is at the same offset in pe's segment; for a PE of my node that segment is
 * mapped here too (peer_base), so the object is a plain pointer away. */
#ifndef NODESHM_RUNTIME_H
#define NODESHM_RUNTIME_H

#include "core/segment.h"
#include "core/status.h"
#include "core/symheap.h"
#include "core/topology.h"

#include <stdalign.h>
#include <stdint.h>

enum { NODESHM_SEG_HEAP = 0, NODESHM_SEG_DATA = 1, NODESHM_NSEGS = 2 };

/* Per-PE control block at the start of each heap segment: node-wide synchronization state
 * lives in the node leader's block.  One writer per cache line. */
#define NODESHM_MAX_ROUNDS 32 /* log2 of the largest node */

/* Team synchronization slots (core/team.h).  Every team holds one slot index, the same on all of
 * its members and unused by any other team of theirs; its state lives in slot `index` of each
 * member's control block, loaded and stored by the team's members on the same node (between
 * nodes the team's MPI communicators carry it).  Slot 0 is SHMEM_TEAM_WORLD, slot 1
 * SHMEM_TEAM_SHARED. */
#define NODESHM_TEAM_SLOTS 64
#define NODESHM_TEAM_SCRATCH_LINES 32  /* cache lines reserved for the team's collectives */
#define NODESHM_COLL_STAGE_BYTES ((size_t)64 * 1024) /* largest eager contribution (core/coll/team/turns.c) */
#define NODESHM_COLL_STAGE_DEPTH 4 /* staging buffers per team slot: collectives use them by turns */
/* small contributions' ring per team slot (core/coll/team/small.c): entries of a header line (epoch) whose
 * payload starts in that line; deep, so that a root may run far ahead of descheduled readers */
#define NODESHM_COLL_SMALL_DEPTH 64
#define NODESHM_COLL_SMALL_ENTRY 576
typedef struct nodeshm_team_slot {
    /* for team_sync and the collectives over the team: one writer per line */
    struct { alignas(64) uint64_t word[8]; } scratch[NODESHM_TEAM_SCRATCH_LINES];
} nodeshm_team_slot_t; /* 2 KiB */

typedef struct nodeshm_ctrl {
    alignas(64) uint64_t barrier_arrived;
    alignas(64) uint64_t barrier_generation;
    /* dissemination barrier: slot k is written only by the PE 2^k below me */
    struct { alignas(64) uint64_t epoch; } dissemination[NODESHM_MAX_ROUNDS];
    alignas(4096) nodeshm_team_slot_t team[NODESHM_TEAM_SLOTS];
    /* collectives' eager staging (core/coll/team/turns.c): per team slot, buffers used by turns (the
     * collective's number modulo the depth), written only by this PE, read by the team's node
     * peers */
    alignas(4096) unsigned char stage[NODESHM_TEAM_SLOTS][NODESHM_COLL_STAGE_DEPTH][NODESHM_COLL_STAGE_BYTES];
    /* small contributions (core/coll/team/small.c): per team slot, a ring of entries written only by this
     * PE, read by the team's node peers */
    alignas(4096) unsigned char small[NODESHM_TEAM_SLOTS][NODESHM_COLL_SMALL_DEPTH][NODESHM_COLL_SMALL_ENTRY];
} nodeshm_ctrl_t;
/* reserved ahead of the user heap; the segment is sparse, so untouched pages cost nothing (a
 * team's staging pages are touched only up to the largest eager message it sent) */
#define NODESHM_CTRL_BYTES ((size_t)32 * 1024 * 1024)
_Static_assert(sizeof(nodeshm_ctrl_t) <= NODESHM_CTRL_BYTES, "control block overflows its reservation");

/* The user heap starts on this boundary on every PE, so shmem_align works up to it. */
#define NODESHM_HEAP_ALIGN ((size_t)1 << 30)

typedef struct nodeshm_runtime {
    int initialized, finalized;
    int init_count;        /* init calls not yet matched by a finalize (OpenSHMEM 1.5+ nesting) */
    unsigned generation;   /* counts completed initializations: state built for an earlier one is stale */
    int owns_mpi;          /* we called MPI_Init, so we call MPI_Finalize (at exit: see runtime.c) */
    int thread_level;
    int my_pe, n_pes;      /* copies of topo's, for the hot paths */
    int spans_nodes;       /* more than one (pseudo-)node: the MPI path is live */
    int atomics_via_mpi;   /* AMOs must all take one path to stay atomic with each other */
    nodeshm_topology_t topo;
    nodeshm_segment_t seg[NODESHM_NSEGS];
    size_t heap_size;      /* usable symmetric heap bytes (SHMEM_SYMMETRIC_SIZE) */
    symheap_t *heap;
} nodeshm_runtime_t;

extern nodeshm_runtime_t nodeshm_rt;

static inline char *nodeshm_user_heap_base(void)
{
    return nodeshm_rt.seg[NODESHM_SEG_HEAP].base + NODESHM_CTRL_BYTES;
}

static inline nodeshm_ctrl_t *nodeshm_ctrl_of(int node_index)
{
    return (nodeshm_ctrl_t *)nodeshm_rt.seg[NODESHM_SEG_HEAP].peer_base[node_index];
}

/* Where a symmetric object lives on a target PE. */
typedef struct nodeshm_target {
    char *local;  /* directly addressable here (the PE is on my node), else NULL */
    int seg;      /* NODESHM_SEG_* */
    size_t off;   /* offset in the segment */
} nodeshm_target_t;

int nodeshm_bad_target(const char *call, const char *what, const void *addr, size_t len, int pe);

/* Resolves `addr` (len bytes, symmetric on the caller) on PE `pe`.  On a bad PE or address it
 * reports, naming `call` and the value, and returns NODESHM_ERR_ARG. */
static inline int nodeshm_resolve(const char *call, const char *what, const void *addr, size_t len,
                                  int pe, nodeshm_target_t *t)
{
    t->local = NULL; /* defined on every path: the compiler cannot see that errors return early */
    t->seg = 0;
    t->off = 0;
    if (__builtin_expect((unsigned)pe >= (unsigned)nodeshm_rt.n_pes, 0))
        return nodeshm_bad_target(call, what, addr, len, pe);
    for (int s = 0; s < NODESHM_NSEGS; s++) {
        size_t off = (size_t)((uintptr_t)addr - (uintptr_t)nodeshm_rt.seg[s].base);
        if (off < nodeshm_rt.seg[s].size && len <= nodeshm_rt.seg[s].size - off) {
            int idx = nodeshm_rt.topo.node_index_of[pe];
            t->seg = s;
            t->off = off;
            t->local = idx >= 0 ? nodeshm_rt.seg[s].peer_base[idx] + off : NULL;
            return NODESHM_OK;
        }
    }
    return nodeshm_bad_target(call, what, addr, len, pe);
}

/* Fails with a clear message when called before shmem_init or after shmem_finalize. */
int nodeshm_require_init(const char *call);



/* Collective over MPI_COMM_WORLD; starts MPI first unless the program already has. */
int nodeshm_runtime_init(const char *call, int requested_thread_level, int *provided);
int nodeshm_runtime_fini(const char *call);
#endif
