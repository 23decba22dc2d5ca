/* libnodeshm_mpi: settings from the environment (or the tuning file), read once at MPI_Init
 * (internal).
 *
 *   NODESHM_MPI_DISABLE=barrier,bcast,... | all     ops left to the MPI library
 *   NODESHM_MPI_<OP>_MAX                           largest message accelerated (a size: 4096, 8k,
 *                                                  1.5m, 1g; above 1 GiB clamped, init.c;
 *                                                  what "message" means is said per op below)
 *   NODESHM_MPI_<OP>_MIN                           smallest message accelerated, for the ops of
 *                                                  NSM_OP_MINS (set: on every communicator;
 *                                                  the defaults: see there)
 *   NODESHM_MPI_STAGE_MAX                          between nodes: leaders' staging bytes cap
 *   NODESHM_MPI_WINDOW_MAX (64m)                   a communicator's shared buffers per node: the
 *                                                  thresholds of a communicator whose buffers
 *                                                  would be larger are halved until they fit
 *   NODESHM_MPI_BANKS (2)                          buffer sets: calls a rank may run ahead
 *   NODESHM_MPI_RING (256), NODESHM_MPI_RING_BYTES (4k)  one node, small messages: how many
 *                                                  calls a root may run ahead (at most 4 MiB of
 *                                                  ring per communicator), up to what size
 *   NODESHM_PES_PER_NODE, NODESHM_SPIN_COUNT       as for the OpenSHMEM side
 * Every rank must see the same values (mpiexec passes the environment to all). */
#ifndef NODESHM_MPI_CONFIG_H
#define NODESHM_MPI_CONFIG_H

#include <mpi.h> /* which MPI: the defaults' column */
#include <stddef.h>

/* The defaults differ per MPI library, because the libraries' own collectives differ (where
 * ours wins depends on what it races): the column is chosen when libnodeshm_mpi is compiled, by
 * the mpi.h it is built against; another MPI gets the smaller of the two. */
#if defined(OMPI_MAJOR_VERSION)
#define NSM_FLAVOR(mpich, ompi) (ompi)
#elif defined(MPICH_VERSION)
#define NSM_FLAVOR(mpich, ompi) (mpich)
#else
#define NSM_FLAVOR(mpich, ompi) ((mpich) < (ompi) ? (mpich) : (ompi))
#endif

/* X(ID, name, MPICH default, Open MPI default of NODESHM_MPI_<NAME>_MAX in bytes): one row per
 * intercepted collective; 0 leaves the op to the MPI library.  Measured with bench/mpi_osu.c
 * (thresholds raised to 1 MiB, 2 runs, and 4 full runs of the defaults, 2 cores): the largest
 * size up to which nodeshm was >= 0.95x of the library at every size and rank count in every
 * run, a step below where it first lost.  Open MPI 5.0: 2, 4 and 8 ranks.  MPICH 5.0: 2 ranks;
 * at 4 and 8 ranks on 2 cores MPICH's busy polling makes both columns milliseconds of noise.
 * This VM has slow phases (it seems throttled after heavy use) in which 2-rank runs of the
 * node-aware paths, which need both processes running, lose to the libraries' single-copy and
 * eager paths, which let one side go on alone: Open MPI gather 16 KiB-1 MiB 0.56-0.90x (quiet
 * runs 1.6-2.8x), bcast 32-64 KiB 0.54-0.76x, allgather(v) 16-128 KiB 0.46-0.89x, alltoall
 * 16-32 KiB 0.66-0.82x; MPICH gather 32-512 KiB 0.67-0.93x, gatherv 64-128 KiB 0.66-0.73x,
 * scatter 64 KiB-1 MiB 0.41-0.62x (quiet 1.6-2.6x).  The defaults stop below those losses,
 * which under Open MPI leaves its rooted and all-to-all ops where they were; small messages can
 * lose in those phases too (allreduce, reduce_scatter_block, alltoallv at 8-256 B 0.75-0.9x;
 * 1.5-2.5x when quiet).
 * Alltoallv's matrix stride is its threshold capped by what fits the matrix (nsm_a2av_stride),
 * so widening the threshold never turns small calls away. */
#define NSM_OPS(X)                                                                                 \
    X(BARRIER, barrier, 0, 0)                              /* no size */                         \
    X(BCAST, bcast, 128 * 1024, 32 * 1024)                 /* message bytes */                   \
    X(GATHER, gather, 16 * 1024, 16 * 1024)                /* bytes per rank */                  \
    X(GATHERV, gatherv, 32 * 1024, 0)                      /* bytes of one rank's block */       \
    X(SCATTER, scatter, 16 * 1024, 16 * 1024)              /* bytes per rank */                  \
    X(SCATTERV, scatterv, 16 * 1024, 0)                    /* bytes of one rank's block */       \
    X(ALLGATHER, allgather, 1024 * 1024, 8 * 1024)         /* bytes per rank */                  \
    X(ALLGATHERV, allgatherv, 1024 * 1024, 8 * 1024)       /* largest block */                   \
    X(REDUCE, reduce, 4 * 1024, 4 * 1024)                  /* message bytes */                   \
    X(ALLREDUCE, allreduce, 1024 * 1024, 512 * 1024)       /* message bytes */                   \
    X(REDUCE_SCATTER_BLOCK, reduce_scatter_block, 256 * 1024, 1024 * 1024) /* whole vector */    \
    X(ALLTOALL, alltoall, 32 * 1024, 8 * 1024)             /* bytes per rank pair */             \
    X(ALLTOALLV, alltoallv, 32 * 1024, 8 * 1024)           /* largest bytes of one rank pair */

/* X(ID, MPICH default, Open MPI default of NODESHM_MPI_<NAME>_MIN in bytes, same unit as _MAX):
 * the smallest message accelerated, for ops whose MPI library is faster at small sizes; ops not
 * listed: 0.  Open MPI 5 at 2 ranks (one core each) pipelines back-to-back small rooted calls by
 * eager sends: quiet runs 0.87-1.15x (scatter 1-64 B), 1.03-2.2x (reduce), 1.3-2.5x (bcast,
 * gather); slow phases (see NSM_OPS) 0.68-0.94x (reduce 8-256 B), 0.69-0.92x (bcast 1-8 B,
 * gather 2-8 B), 0.86x (scatter 128 B).  With 4 and 8 ranks on a node they win 1.5-10x from
 * 1 B, so a default MIN applies only to communicators with at most 2 ranks on every node
 * (nsm_state_t.min); one set by NODESHM_MPI_<OP>_MIN applies to all.  Only ops whose message
 * size all ranks know can use one (see each op's file); gatherv and scatterv send the blocks
 * below it point to point, which under Open MPI is slower than its own small gatherv
 * (0.4-0.9x), so there they are off (MAX 0) although they win 2-4x at 0.5-16 KiB. */
#define NSM_OP_MINS(X)                                                                             \
    X(BCAST, 0, 512)                                                                               \
    X(GATHER, 0, 512)                                                                              \
    X(GATHERV, 0, 512)                 /* per block: smaller ones go point to point */            \
    X(SCATTER, 0, 512)                                                                             \
    X(SCATTERV, 0, 512)                /* per block: smaller ones go point to point */            \
    X(ALLGATHER, 0, 0)                                                                             \
    X(ALLGATHERV, 0, 0)                                                                            \
    X(REDUCE, 0, 512)

enum {
#define NSM_OP_ID(id, name, mpich, ompi) NSM_OP_##id,
    NSM_OPS(NSM_OP_ID)
#undef NSM_OP_ID
    NSM_OP_COUNT
};

typedef struct nsm_config {
    int off[NSM_OP_COUNT];
    size_t max[NSM_OP_COUNT]; /* NODESHM_MPI_<OP>_MAX */
    size_t min[NSM_OP_COUNT]; /* NODESHM_MPI_<OP>_MIN (NSM_OP_MINS) */
    int min_everywhere[NSM_OP_COUNT]; /* 1: set, so for every communicator; 0: the default, for
                                       * communicators with at most 2 ranks on every node */
    size_t min_pre[NSM_OP_COUNT];     /* the bound checked before a communicator's state is
                                       * looked up: min where it holds for every communicator of
                                       * the job (set, or MPI_COMM_WORLD has at most 2 ranks on
                                       * every node, nsm_scope_mins), else 0 */
    int all_off;
    size_t stage_max;
    size_t window_max;  /* NODESHM_MPI_WINDOW_MAX: a communicator's buffer banks, per node */
    int pes_per_node;   /* 0: physical nodes */
    int spin_count;     /* -1: automatic */
    int banks;          /* NODESHM_MPI_BANKS: buffer sets a rank may run ahead into (1 or 2) */
    int ring_depth;     /* NODESHM_MPI_RING: small banks (0: none), one-node communicators */
    size_t ring_bytes;  /* NODESHM_MPI_RING_BYTES: their result area and slot size */
    int loaded;
} nsm_config_t;

extern nsm_config_t nsm_cfg;
void nsm_load_config(void);
void nsm_scope_mins(void);
void nsm_setup_keyval(void);
void nsm_finalize_states(void);
struct nsm_state;
/* NODESHM_DEBUG: a communicator's shape and thresholds, at its state's creation (init.c). */
void nsm_debug_state(const struct nsm_state *s);
/* Alltoallv's block stride on this communicator (alltoall.c): its threshold, capped by what
 * fits the matrix; blocks above it go to the MPI library. */
size_t nsm_a2av_stride(const struct nsm_state *s);

/* An op's threshold, or 0 when it is switched off: the one test every op makes first. */
static inline size_t nsm_op_max(int op) { return nsm_cfg.off[op] ? 0 : nsm_cfg.max[op]; }
/* An op's lower bound before the state lookup: smaller messages go to the MPI library without
 * one.  After it, the communicator's own bound (nsm_state_t.min) decides. */
static inline size_t nsm_op_min(int op) { return nsm_cfg.min_pre[op]; }
/* Whether `bytes` (-1: unusable, or the op is off) is outside the op's window [MIN, MAX]; zero
 * bytes is inside (the op then does nothing, on every rank).  nsm_known_outside (nsmpi.h): the
 * same for count elements of one of the commonest types, without a call. */
static inline int nsm_outside(int op, long long bytes)
{
    size_t max = nsm_op_max(op);
    return !max || bytes < 0 || (size_t)bytes > max || (bytes > 0 && (size_t)bytes < nsm_op_min(op));
}

#endif
