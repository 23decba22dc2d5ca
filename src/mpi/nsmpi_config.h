/* libnodeshm_mpi: settings from the environment (or the tuning file), read once at MPI_Init
 * (internal).
 *
 *   NODESHM_MPI_DISABLE=barrier,bcast,... | all     ops left to the MPI library (the persistent
 *                                                  forms: bcast_init ...)
 *   NODESHM_MPI_<OP>_MAX                           largest message accelerated, on every shape
 *                                                  (default: by shape, NSM_OPS) (a size: 4096, 8k,
 *                                                  1.5m, 1g; above 1 GiB clamped, init.c;
 *                                                  what "message" means is said per op below)
 *   NODESHM_MPI_<OP>_MIN                           smallest message accelerated, for the ops of
 *                                                  NSM_OP_MINS (set: on every communicator;
 *                                                  the defaults: see there)
 *   NODESHM_MPI_STAGE_MAX                          between nodes: leaders' staging bytes cap
 *   NODESHM_MPI_WINDOW_MAX (64m)                   a communicator's shared buffers per node: on
 *                                                  a communicator whose buffers would be larger,
 *                                                  the ops with the largest buffers have their
 *                                                  thresholds halved until they fit (nsmpi.c)
 *   NODESHM_MPI_BANKS (2)                          buffer sets: calls a rank may run ahead
 *   NODESHM_MPI_RING (256), NODESHM_MPI_RING_BYTES (4k)  one node, small messages: how many
 *                                                  calls a root may run ahead (at most 4 MiB of
 *                                                  ring per communicator), up to what size
 *   NODESHM_MPI_STATS=1|path|path.csv              a per-op report at MPI_Finalize (stats.c)
 *   NODESHM_PES_PER_NODE, NODESHM_SPIN_COUNT       as for the OpenSHMEM side
 * Every rank must see the same values (mpiexec passes the environment to all). */
#ifndef NODESHM_MPI_CONFIG_H
#define NODESHM_MPI_CONFIG_H

#include "core/mpi_library.h" /* which MPI: the defaults' column */

#include <stddef.h>

/* The defaults differ per MPI library, because the libraries' own collectives differ (where
 * ours wins depends on what it races): the column is core/mpi_library.h's
 * NODESHM_BY_MPI_LIBRARY. */

/* X(ID, name, MPICH defaults, Open MPI defaults of NODESHM_MPI_<NAME>_MAX in bytes): one row per
 * intercepted collective; 0 leaves the op to the MPI library.  Each default is NSM_PPN(one node
 * of at most 2 ranks, one node of 3-4, one node of 5 and more, several nodes): the column of the
 * communicator's shape (nsm_shape: the ranks on its fullest node, and whether it spans nodes)
 * is its threshold, unless NODESHM_MPI_<NAME>_MAX is set (then that, on every shape).
 *
 * One node: measured with bench/mpi_osu.c at 2, 4 and 8 ranks with every threshold raised (1 GiB;
 * alltoall(v) 64 KiB, where their matrices fit; MIN 0), 1 B-1 MiB, 5 alternating repetitions per
 * size, 3 runs per shape and MPI (MPICH 5.0, Open MPI 5.0; 2 cores, other jobs running in the
 * first): the largest size up to which the median over the runs of nodeshm's speedup was >= 0.95
 * at every size (from the lower bound, for Open MPI's rooted ops at 2 ranks), capped at 1 MiB
 * (64 KiB for alltoall), the largest measured.  Where that was a few bytes the op is off there.
 * Then one run of the defaults on a quiet machine (load ~2): at 1 MiB the libraries' single-copy
 * paths won where the loaded runs had not shown it (2 ranks, both MPIs: bcast, gather, gatherv,
 * scatter(v), reduce, allgather(v), reduce_scatter_block 0.40-0.66x; MPICH scatter(v) at 4 and
 * 8 ranks 0.40-0.77x), while 512 KiB won 1.15-4x everywhere: those stop at 512 KiB.
 * Nearly every op won at every size and shape: gather 2.3-15x (8-128 KiB per rank: 3.3-12x),
 * bcast 1.3-30x, scatter 1.6-70x, reduce 1.3-120x, allgather(v) 1.1-15x, reduce_scatter_block
 * 1.2-25x, alltoall 1.1-8x.  The exceptions, handed to the library: MPICH at 8 ranks, gatherv
 * (0.78x at 16 B; one run 0.11-0.13x at 8-128 B), scatterv above 32 KiB at 4 and 8 ranks (0.72-0.82x
 * at 128-512 KiB, 0.24x at 1 MiB; and on a quiet machine later, 2 runs: 4 ranks 0.66-0.99x at
 * 64 KiB, 0.40-0.75x at 128-512 KiB; 8 ranks 0.55-0.64x at 64 KiB, against 1.0-1.3x at 32 KiB), allreduce from 8 KiB (0.74-0.82x in 2 of 3 runs at 8 KiB, then
 * 2.5-11x: a dip that a window cannot skip); Open MPI: scatter at 8 ranks at 1 MiB (0.84x),
 * gatherv and scatterv below 512 B (0.06-0.4x at 4 and 8 ranks; and the blocks below their lower
 * bound go point to point, 0.4-0.9x of Open MPI's own: off as before).  Alltoallv keeps its
 * earlier defaults: it wins 1.3-8x in lockstep, but a real code whose ranks arrive at different
 * times (LAMMPS PPPM, 4 ranks) got slower with it accelerated (issue 15).
 *
 * Several nodes, columns by ranks on the fullest node: bcast, gather, scatter and reduce measured
 * on 2 emulated hosts x 2 and x 4 ranks (oshrun --hosts 2: MPI's TCP between them) with
 * bench/mpi_osu.c, windows widened, 8 B-1 MiB, roots 0 and 1, the base and this code in
 * alternating runs (load 9-29 on 2 cores: scheduling-bound, single runs noisy below 8 KiB):
 * MPICH, 2 per node: bcast 1.2-25x from 16 KiB, gather 1.2-2.3x from 8 KiB, scatter 1.1-3.9x
 * from 8 KiB, reduce 1-35x but at 8 KiB (0.97-0.99x); 4 per node: bcast 1.35-7x from 32 KiB,
 * gather 1.9-3.2x from 4 KiB, scatter 1.6-3.2x from 16 KiB, reduce 1-11x.  Open MPI: bcast
 * 1.2-11x from 2 KiB (1 KiB 0.78-1.5x), gather 1.3-2.5x from 16 KiB, scatter 1.0-3.4x from
 * 2 KiB, reduce 1.2-4.6x at 1-8 KiB and 0.5-0.9x at 16-256 KiB.  Below those sizes the
 * libraries' eager sends pipeline back-to-back calls (MPICH's small scatter took 4 us a call,
 * ours a TCP round trip and a handoff per node): lower bounds (NSM_OP_MINS).  Re-measured quiet
 * (2 x 2, MPICH, 3 runs, -i 50 -r 5): bcast 16 KiB 0.83-0.86x, 32 KiB-1 MiB 1.06-1.69x (one run
 * 0.79-0.92x at 128-512 KiB): MPICH's bound at 2 per node is 32 KiB, as at 4.  The old column
 * (measured on one node at 2 ranks, gather on pseudo-nodes) had bcast, gather, scatter below
 * 4-16 KiB at 0.0-0.9x and cut off wins above (MPICH bcast 8-25x at 256 KiB-1 MiB).  Pseudo-nodes
 * get these upper bounds too (8 ranks in pseudo-nodes of 2 and 4 accelerate the seed scenario's
 * 80,000-byte gather, tests/mpi_op_windows.cmake), but the one-node lower bounds.  5 and more
 * ranks per node could not be measured here: the 3-4 column's values.
 * Quiet rerun of the several-node defaults (2 emulated hosts x 2 and x 4, 8 B-1 MiB, 2-3 runs,
 * MPICH): allgather lost from 32-64 KiB per rank (0.44-0.84x: MPICH's own allgather is faster
 * than its allgatherv there, ours the same for both), alltoall at 16-32 KiB (0.59-0.89x, 2 of 3
 * runs), gather at 256-512 KiB with 2 per node (0.76-0.89x): those windows now stop below.
 * allgatherv kept (0.87-1.28x).  Open MPI's several-node defaults held (0.77-1.19x where handed,
 * the noise of two identical library calls; 1.1-5.5x inside the windows).
 * Earlier notes: this VM has slow phases (it seems throttled after heavy use) in which
 * 2-rank runs of the node-aware paths, which need both processes running, lost to the
 * libraries' single-copy and eager paths (Open MPI gather 16 KiB-1 MiB 0.56-0.90x, bcast
 * 32-64 KiB 0.54-0.76x, allgather(v) 16-128 KiB 0.46-0.89x; MPICH gather 32-512 KiB 0.67-0.93x,
 * scatter 64 KiB-1 MiB 0.41-0.62x); none of the runs above had one.  Pseudo-nodes (earlier runs,
 * 8 ranks in pseudo-nodes of 2 and 4): MPICH allreduce 8 B-8 KiB 0.74-0.89x, not fixed here.
 * Alltoall at 2 ranks, re-measured on a quiet machine (bench/mpi_osu.c, 8-128 KiB, 2-3 runs):
 * MPICH 0.71-0.97x at 64 KiB (1.25-1.38x at 32 KiB), Open MPI 0.67-0.96x at 16-64 KiB (1.12-1.17x
 * at 8 KiB): its window there stops at 32 KiB (MPICH) and 8 KiB (Open MPI).  The same runs found
 * gather at 2 ranks below 0.9x at 64 KiB (MPICH 0.80-0.84x; Open MPI 0.72-0.88x, and 0.87-0.93x
 * at 16-32 KiB), left as it is: the seed scenario's 80,000-byte gather is accelerated by default
 * at every shape by design (tests/mpi_op_windows.cmake; issue 15 has both targets).
 * Alltoallv's matrix stride is its threshold capped by what fits the matrix (nsm_a2av_stride),
 * so widening the threshold never turns small calls away.
 * Alltoallv between nodes without the agreement round (issue 16, src/mpi/alltoallv_pairs.c),
 * bench/mpi_osu.c rows alltoallv (uniform) and alltoallv_sparse (each rank with the ranks of its
 * parity), 8 B-64 KiB, NODESHM_MPI_ALLTOALLV_MAX=32k in both builds, the vote (before) and this
 * code in alternating runs (A B B A), medians of same-run ratios to the library; load 3-6 on 2
 * cores (the lead reruns these on a quiet machine).  2 hosts x 2: MPICH uniform 1.22-2.5x to
 * 32 KiB (before 0.68-1.38x), sparse 0.71x at 8-128 B (before 0.42x), 1.02-1.32x at 256 B-32 KiB
 * (before 0.55-0.74x); Open MPI, 3 runs: in 2 uniform 1.8-2.2x to 8 KiB, 0.91-0.97x at
 * 16-32 KiB, sparse 1.15-1.38x to 16 KiB, 0.63-0.72x at 32 KiB (before 0.75-1.08x, 0.48-0.63x,
 * 0.40-0.61x, 0.24-0.33x; nodeshm's time 0.23-0.60 of before's); in one (a slow phase: both
 * builds ~26 us a call) uniform 1.1-1.7x to 8 KiB, 0.54-0.58x at 16-32 KiB, sparse 0.66-0.72x
 * (before 1.0-1.4x, 0.77-0.82x, 0.70-0.80x).  2 hosts x 4: MPICH uniform 1.16-2.2x to 2 KiB, 0.63-0.92x at
 * 4-8 KiB, 0.90-1.21x at 16-32 KiB, sparse 1.05-1.23x at 8-16 B and 256 B-1 KiB, 0.73-0.75x at
 * 32-128 B, 0.48-0.95x from 2 KiB (before: everywhere 0.34-1.56x, nodeshm's time 0.39-0.95 of
 * before's); Open MPI uniform 3.1-4.6x to 2 KiB, 1.2-1.9x at 4-32 KiB, sparse 1.74-2.06x to
 * 4 KiB, 0.67-0.92x at 8-32 KiB (before 1.7-2.2x, 0.44-0.82x, 1.13-1.29x, 0.44-0.63x).  Blocks
 * above the stride (64 KiB here: point to point) 0.93-1.0x; MPICH at 2 hosts x 4 with these
 * defaults (2 KiB; before 32 KiB): 0.92-1.01x from 4 KiB (before 0.33-1.01x), to 2 KiB uniform
 * 1.30-2.4x (before 0.87-1.58x), sparse 0.74-1.29x (before 0.52-0.85x).  Loaded runs (12-18)
 * ranked the two codes alike.  So the several-node strides: MPICH 32 KiB at 2 per node, 2 KiB from 3 (larger
 * blocks point to point, at the library's pace); Open MPI 8 KiB (above it sparse exchanges
 * lost). */
#define NSM_K(n) ((size_t)(n) * 1024)
#define NSM_M(n) ((size_t)(n) * 1024 * 1024)
#define NSM_OPS(X)                                                                                 \
    X(BARRIER, barrier, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(0, 0, 0, 0, 0, 0)) /* no size */        \
    X(BCAST, bcast, /* message bytes */                                                            \
      NSM_PPN(NSM_K(512), NSM_M(1), NSM_M(1), NSM_M(1), NSM_M(1), NSM_M(1)),                        \
      NSM_PPN(NSM_K(512), NSM_M(1), NSM_M(1), NSM_M(1), NSM_M(1), NSM_M(1)))                        \
    X(GATHER, gather, /* bytes per rank */                                                         \
      NSM_PPN(NSM_K(512), NSM_M(1), NSM_M(1), NSM_K(128), NSM_K(512), NSM_K(512)),                  \
      NSM_PPN(NSM_K(512), NSM_M(1), NSM_M(1), NSM_M(1), NSM_M(1), NSM_M(1)))                        \
    X(GATHERV, gatherv, /* bytes of one rank's block; between nodes: the MPI library */            \
      NSM_PPN(NSM_K(512), NSM_M(1), 0, NSM_K(32), NSM_K(32), NSM_K(32)), NSM_PPN(0, 0, 0, 0, 0, 0)) \
    X(SCATTER, scatter, /* bytes per rank */                                                       \
      NSM_PPN(NSM_K(512), NSM_K(512), NSM_K(512), NSM_M(1), NSM_K(512), NSM_K(512)),                \
      NSM_PPN(NSM_K(512), NSM_M(1), NSM_K(512), NSM_M(1), NSM_M(1), NSM_M(1)))                      \
    X(SCATTERV, scatterv, /* bytes of one rank's block; between nodes: the MPI library */          \
      NSM_PPN(NSM_K(512), NSM_K(32), NSM_K(32), NSM_K(16), NSM_K(16), NSM_K(16)), NSM_PPN(0, 0, 0, 0, 0, 0)) \
    X(ALLGATHER, allgather, /* bytes per rank */                                                   \
      NSM_PPN(NSM_M(1), NSM_M(1), NSM_M(1), NSM_K(16), NSM_K(8), NSM_K(8)),                          \
      NSM_PPN(NSM_K(512), NSM_M(1), NSM_M(1), NSM_K(8), NSM_K(8), NSM_K(8)))                        \
    X(ALLGATHERV, allgatherv, /* largest block */                                                  \
      NSM_PPN(NSM_M(1), NSM_M(1), NSM_M(1), NSM_M(1), NSM_M(1), NSM_M(1)),                          \
      NSM_PPN(NSM_K(512), NSM_M(1), NSM_M(1), NSM_K(8), NSM_K(8), NSM_K(8)))                        \
    X(REDUCE, reduce, /* message bytes */                                                          \
      NSM_PPN(NSM_M(1), NSM_M(1), NSM_M(1), NSM_M(1), NSM_M(1), NSM_M(1)),                          \
      NSM_PPN(NSM_K(512), NSM_M(1), NSM_M(1), NSM_K(8), NSM_K(8), NSM_K(8)))                        \
    X(ALLREDUCE, allreduce, /* message bytes */                                                    \
      NSM_PPN(NSM_M(1), NSM_M(1), NSM_K(4), NSM_M(1), NSM_M(1), NSM_M(1)),                          \
      NSM_PPN(NSM_M(1), NSM_M(1), NSM_M(1), NSM_K(512), NSM_K(512), NSM_K(512)))                    \
    X(REDUCE_SCATTER_BLOCK, reduce_scatter_block, /* whole vector */                               \
      NSM_PPN(NSM_K(512), NSM_M(1), NSM_M(1), NSM_K(256), NSM_K(256), NSM_K(256)),                  \
      NSM_PPN(NSM_M(1), NSM_M(1), NSM_M(1), NSM_M(1), NSM_M(1), NSM_M(1)))                         \
    X(ALLTOALL, alltoall, /* bytes per rank pair */                                                \
      NSM_PPN(NSM_K(32), NSM_K(64), NSM_K(64), NSM_K(16), NSM_K(8), NSM_K(8)),                   \
      NSM_PPN(NSM_K(8), NSM_K(64), NSM_K(64), NSM_K(8), NSM_K(8), NSM_K(8)))                       \
    X(ALLTOALLV, alltoallv, /* bytes of one rank pair: the matrix stride; larger go point to point */ \
      NSM_PPN(NSM_K(32), NSM_K(32), NSM_K(32), NSM_K(32), NSM_K(2), NSM_K(1)), /* MPICH 5+ per host: alltoallv_pairs.c */ \
      NSM_PPN(NSM_K(8), NSM_K(8), NSM_K(8), NSM_K(8), NSM_K(8), NSM_K(8)))                         \
    /* scans, reduce_scatter, alltoallw (src/mpi/scan.c, reduce_scatter.c, alltoallw.c): one node  \
     * as measured (the note below NSM_OP_MINS); between nodes off until measured (the paths      \
     * exist and are tested: tests/mpi_scan.cmake) */                                              \
    X(SCAN, scan, /* message bytes */                                                              \
      NSM_PPN(NSM_M(1), NSM_M(1), NSM_M(1), 0, 0, 0), NSM_PPN(NSM_K(128), NSM_K(16), NSM_K(16), 0, 0, 0)) \
    X(EXSCAN, exscan, /* message bytes */                                                          \
      NSM_PPN(NSM_M(1), NSM_M(1), NSM_M(1), 0, 0, 0), NSM_PPN(NSM_K(8), NSM_K(32), NSM_K(32), 0, 0, 0)) \
    X(REDUCE_SCATTER, reduce_scatter, /* whole vector */                                           \
      NSM_PPN(NSM_K(256), NSM_M(1), NSM_M(1), 0, 0, 0), NSM_PPN(NSM_M(1), NSM_M(1), NSM_M(1), 0, 0, 0)) \
    X(ALLTOALLW, alltoallw, /* largest bytes of one rank pair; between nodes: the MPI library */    \
      NSM_PPN(NSM_K(64), NSM_K(64), NSM_K(64), 0, 0, 0), NSM_PPN(NSM_K(8), NSM_K(32), NSM_K(32), 0, 0, 0)) \
    /* non-blocking forms: one node, and ibarrier, ibcast, iallreduce, ireduce, igather, iscatter, \
     * iallgather between nodes; their measurements: src/mpi/nonblocking.c, nonblocking_nodes.c.  \
     * Ibarrier has no size: on one node always on, between nodes where its column is not 0 */    \
    X(IBARRIER, ibarrier, NSM_PPN(0, 0, 0, 1, 1, 1), NSM_PPN(0, 0, 0, 1, 1, 1)) /* no size */      \
    X(IBCAST, ibcast, /* message bytes */                                                          \
      NSM_PPN(NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64)),                    \
      NSM_PPN(NSM_K(16), NSM_K(16), NSM_K(16), NSM_K(64), NSM_K(64), NSM_K(64)))                    \
    X(IALLREDUCE, iallreduce, /* message bytes */                                                  \
      NSM_PPN(NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64)),                    \
      NSM_PPN(NSM_K(16), NSM_K(16), NSM_K(16), NSM_K(32), NSM_K(64), NSM_K(64)))                    \
    X(IREDUCE, ireduce, /* message bytes */                                                        \
      NSM_PPN(NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64)),                    \
      NSM_PPN(NSM_K(16), NSM_K(16), NSM_K(16), NSM_K(64), NSM_K(64), NSM_K(64)))                    \
    X(IGATHER, igather, /* bytes per rank */                                                       \
      NSM_PPN(NSM_K(64), NSM_K(64), NSM_K(64), 512, NSM_K(64), NSM_K(64)),                          \
      NSM_PPN(NSM_K(16), NSM_K(16), NSM_K(16), NSM_K(16), NSM_K(8), NSM_K(8)))                      \
    X(ISCATTER, iscatter, /* bytes per rank */                                                     \
      NSM_PPN(NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64)),                    \
      NSM_PPN(NSM_K(16), NSM_K(16), NSM_K(16), NSM_K(1), NSM_K(8), NSM_K(8)))                       \
    X(IALLGATHER, iallgather, /* bytes per rank */                                                 \
      NSM_PPN(NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(16), NSM_K(64), NSM_K(64)),                    \
      NSM_PPN(NSM_K(16), NSM_K(16), NSM_K(16), NSM_K(16), NSM_K(64), NSM_K(64)))                    \
    /* v-forms and alltoall: one node; their measurements: src/mpi/nonblocking_v.c.  Between      \
     * nodes igatherv and iscatterv are the library's; iallgatherv, ialltoall, ialltoallv run      \
     * there where their several-nodes columns are not 0 (src/mpi/nonblocking_nodes_v.c);         \
     * ialltoallv, on the blocking alltoallv's exchange, at the blocking op's strides (quiet      \
     * runs: nonblocking_nodes_v.c) */                                                             \
    X(IGATHERV, igatherv, /* bytes of one rank's block: larger ones go point to point */           \
      NSM_PPN(NSM_K(4), NSM_K(4), NSM_K(4), 0, 0, 0), NSM_PPN(0, 0, 0, 0, 0, 0)) \
    X(ISCATTERV, iscatterv, /* bytes of one rank's block: larger ones go point to point */         \
      NSM_PPN(NSM_K(4), NSM_K(4), NSM_K(4), 0, 0, 0), NSM_PPN(0, 0, 0, 0, 0, 0)) \
    X(IALLGATHERV, iallgatherv, /* largest block */                                                \
      NSM_PPN(NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64)),                    \
      NSM_PPN(NSM_K(16), NSM_K(16), NSM_K(16), NSM_K(16), NSM_K(64), NSM_K(64)))                    \
    X(IALLTOALL, ialltoall, /* bytes per rank pair; MPICH 3-4 per host 16 KiB, 5+ 8 KiB: nonblocking_nodes_v.c */ \
      NSM_PPN(NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(16), NSM_K(8)),                     \
      NSM_PPN(NSM_K(16), NSM_K(16), NSM_K(16), NSM_K(8), NSM_K(8), NSM_K(8)))                       \
    X(IALLTOALLV, ialltoallv, /* bytes of one rank pair: the matrix stride; larger go point to point */ \
      NSM_PPN(NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(32), NSM_K(2), NSM_K(1)),                      \
      NSM_PPN(NSM_K(16), NSM_K(16), NSM_K(16), NSM_K(8), NSM_K(8), NSM_K(8)))                       \
    /* persistent forms (MPI_<Op>_init; a call is an MPI_Start): the non-blocking ops' steps, so  \
     * between nodes too (barrier_init has no size: there where its column is not 0; gather,       \
     * scatter, allgather as measured below); units as their rows; measurements:              \
     * src/mpi/persistent.c */                                                                     \
    X(BARRIER_INIT, barrier_init, NSM_PPN(1, 1, 1, 1, 1, 1), NSM_PPN(0, 1, 1, 1, 1, 1)) /* no size */ \
    X(BCAST_INIT, bcast_init, NSM_PERSIST_NODES_MPICH, NSM_PERSIST_NODES_OMPI)                      \
    X(ALLREDUCE_INIT, allreduce_init, NSM_PERSIST_NODES_MPICH,                                      \
      NSM_PPN(NSM_K(16), NSM_K(16), NSM_K(16), 0, NSM_K(64), NSM_K(64)))                            \
    X(REDUCE_INIT, reduce_init, NSM_PERSIST_NODES_MPICH, NSM_PERSIST_NODES_OMPI)                    \
    X(GATHER_INIT, gather_init, NSM_PERSIST_NODES_MPICH, NSM_PERSIST_ROOTED_OMPI)                   \
    X(SCATTER_INIT, scatter_init, NSM_PERSIST_NODES_MPICH, NSM_PERSIST_ROOTED_OMPI)                 \
    X(ALLGATHER_INIT, allgather_init, NSM_PERSIST_NODES_MPICH, NSM_PERSIST_NODES_OMPI)
/* the persistent rows' windows.  Gather, scatter, allgather between nodes: 2 emulated hosts x 2
 * and x 4, quiet, windows widened to 64 KiB, nodeshm-bench-mpi_osu -i 100 -r 7, 2 runs each,
 * ratio library / nodeshm: MPICH 2 x 2 gather 1.08-1.72x but 0.92-0.98x at 1-4 KiB, scatter
 * 1.02-1.31x, allgather 1.08-1.41x; 2 x 4 all 1.01-2.54x.  Open MPI 2 x 2 gather and scatter
 * 1.18-2.26x to 16 KiB, 0.62-0.64x at 32 KiB, allgather 1.04-2.40x; 2 x 4 gather 1.19-3.25x to
 * 8 KiB and 0.90-1.02x at 16 KiB, scatter 1.40-3.19x to 8 KiB and 0.61-0.90x at 16-32 KiB,
 * allgather 1.00-2.79x. */
#define NSM_PERSIST_ROOTED_OMPI NSM_PPN(NSM_K(16), NSM_K(16), NSM_K(16), NSM_K(16), NSM_K(8), NSM_K(8))
#define NSM_PERSIST_NODES_MPICH NSM_PPN(NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64), NSM_K(64))
#define NSM_PERSIST_NODES_OMPI NSM_PPN(NSM_K(16), NSM_K(16), NSM_K(16), NSM_K(64), NSM_K(64), NSM_K(64))

/* X(ID, MPICH defaults, Open MPI defaults of NODESHM_MPI_<NAME>_MIN in bytes, same unit as _MAX):
 * the smallest message accelerated, for ops whose MPI library is faster at small sizes; ops not
 * listed: 0.  Open MPI 5 at 2 ranks (one core each) pipelines back-to-back small rooted calls by
 * eager sends: quiet runs 0.87-1.15x (scatter 1-64 B), 1.03-2.2x (reduce), 1.3-2.5x (bcast,
 * gather); slow phases (see NSM_OPS) 0.68-0.94x (reduce 8-256 B), 0.69-0.92x (bcast 1-8 B,
 * gather 2-8 B), 0.86x (scatter 128 B).  With 4 and 8 ranks on a node they win 1.5-10x from
 * 1 B, so on one node a default MIN applies only to communicators with at most 2 ranks on every
 * node; between nodes by shape, as measured (NSM_OPS' notes); pseudo-nodes take the one-node
 * bounds (nsm_op_min_at).  One set by NODESHM_MPI_<OP>_MIN applies to all.  Rows: NSM_PPN, as
 * in NSM_OPS.  Only ops whose message
 * size all ranks know can use one (see each op's file); gatherv and scatterv send the blocks
 * below it point to point, which under Open MPI is slower than its own small gatherv
 * (0.4-0.9x), so there they are off (MAX 0) although they win 2-4x at 0.5-16 KiB. */
#define NSM_OP_MINS(X)                                                                             \
    X(BCAST, NSM_PPN(0, 0, 0, NSM_K(32), NSM_K(32), NSM_K(32)), NSM_PPN(512, 0, 0, NSM_K(2), NSM_K(2), NSM_K(2))) \
    X(GATHER, NSM_PPN(0, 0, 0, NSM_K(8), NSM_K(4), NSM_K(4)), NSM_PPN(512, 0, 0, NSM_K(16), NSM_K(16), NSM_K(16))) \
    X(GATHERV, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(512, 0, 0, 512, 0, 0)) /* per block: smaller ones go point to point */ \
    X(SCATTER, NSM_PPN(0, 0, 0, NSM_K(8), NSM_K(16), NSM_K(16)), NSM_PPN(512, 0, 0, NSM_K(2), NSM_K(2), NSM_K(2))) \
    X(SCATTERV, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(512, 0, 0, 512, 0, 0)) /* per block: smaller ones go point to point */ \
    X(ALLGATHER, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(0, 0, 0, 0, 0, 0))                             \
    X(ALLGATHERV, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(0, 0, 0, 0, 0, 0))                            \
    X(REDUCE, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(512, 0, 0, NSM_K(1), NSM_K(1), NSM_K(1)))        \
    X(SCAN, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(NSM_K(1), 0, 64, 0, 0, 0))                          \
    X(EXSCAN, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(256, 0, 64, 0, 0, 0))                             \
    /* non-blocking between nodes, Open MPI (its own eager small ibcast at 2 ranks per node, its  \
     * small ireduce at 4), and below: src/mpi/nonblocking_nodes.c */                             \
    X(IBCAST, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(0, 0, 0, 256, 0, 0))                              \
    X(IREDUCE, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(0, 0, 0, 32, 64, 64))                            \
    /* igather, iscatter between nodes, Open MPI (its small ones pipeline back to back by eager  \
     * sends; quiet, ours 0.85-0.88x to 256 B at 2 per host, and in one of 2 runs at 4 per host    \
     * igather 0.59-0.76x to 256 B, iscatter 0.77-0.96x to 32 B): nonblocking_nodes.c */           \
    X(IGATHER, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(0, 0, 0, NSM_K(1), 512, 512))                    \
    X(ISCATTER, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(0, 0, 0, 0, 64, 64))                            \
    /* persistent forms, Open MPI (its own take 0.4-0.9 us per start and wait here): persistent.c */ \
    X(BCAST_INIT, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(512, 64, 0, 0, 0, 0))                         \
    X(REDUCE_INIT, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(512, 0, 0, 32, 64, 64))                      \
    X(GATHER_INIT, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(512, 64, 0, 0, 0, 0))                        \
    X(SCATTER_INIT, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(512, 64, 0, 0, 0, 0))                       \
    X(ALLGATHER_INIT, NSM_PPN(0, 0, 0, 0, 0, 0), NSM_PPN(512, 0, 0, 0, 0, 0))

/* Scan, exscan, reduce_scatter, alltoallw: bench/mpi_osu.c with their windows raised (1g), 8 B-1 MiB,
 * medians of 5 alternating repetitions, on a machine at load 17-29 (2 cores, two other engineers'
 * builds and benchmarks): every figure is scheduling-bound and bimodal, and 8 ranks could not be
 * run to the end (its columns take the 4-rank values).  MPICH, 4 ranks: scan and exscan 22-360x
 * up to 4 KiB and 2.2-3.8x above, reduce_scatter 1.5-6.7x (256 KiB 0.86x), alltoallw 1.4-8x;
 * 8 ranks (partial): scans 2.2-340x; 2 ranks: scans 3.4-130x (one point 0.76x, 4 KiB), while
 * reduce_scatter lost up to 4 KiB in both runs (0.48-0.86x; 1.1-250x above) and alltoallw won
 * 62-430x in one run and 0.53-1.4x in the other, both columns at 0.2-2 ms per call (time
 * slices): left on pending a quiet rerun.  Open MPI, 2 ranks: its scan and exscan
 * take 0.12-0.5 us below a few hundred bytes (0.09-0.79x): lower bounds 1 KiB and 256 B there;
 * scan 1.7-3.3x at 1-128 KiB, exscan 1.2-3x at 256 B-8 KiB and 0.70-0.97x above; 4 ranks: scan
 * 1.1-8x at 32 B-16 KiB, exscan 1.5-31x at 64 B-32 KiB, mixed above (0.38-1.27x), reduce_scatter
 * 1.9-37x at every size but one (256 B 0.13x, 9 vs 70 us), alltoallw 1.4-26x up to 32 KiB and
 * 0.65-0.88x from 64 KiB; alltoallw at 2 ranks takes alltoallv's 8 KiB (unmeasured).
 * Quiet rerun (issue 15, next session; 8 B-1 MiB, medians of 5, every rank count, both MPIs; the
 * small-size and large-size losers rerun twice more at 7 repetitions): MPICH 2 ranks
 * reduce_scatter 1.3-3.0x up to 256 KiB (the loaded run's small-size loss was the load) but
 * 0.71-0.86x at 512 KiB-1 MiB in all three runs: its 2-rank window stops at 256 KiB; Open MPI 8
 * ranks scan 0.63-0.95x and exscan 0.82-0.97x at 8-32 B in all three (64 B 0.93-1.43x): lower
 * bound 64 B there.  Everything else accelerated won or was within 0.9x: MPICH scan 1.7-31x,
 * exscan 1.8-22x, reduce_scatter 1.1-4.9x at 4-8 ranks, alltoallw 0.95-6.9x; Open MPI scan and
 * exscan 1.0-8.7x inside their windows, reduce_scatter 1.3-4.7x, alltoallw 0.92-3.1x. */

/* A row's defaults by communicator shape (NSM_SHAPES columns, nsm_shape): on one node with at
 * most 2, 3-4, and 5 or more ranks; and over several nodes with at most 2, 3-4, and 5 or more
 * ranks on the fullest node.  NSM_AT(k, t) picks column k. */
#define NSM_SHAPES 6
#define NSM_PPN(two, four, eight, nodes_two, nodes_four, nodes_eight)                              \
    (two, four, eight, nodes_two, nodes_four, nodes_eight)
#define NSM_AT(k, t) NSM_AT_##k t
#define NSM_AT_0(a, b, c, d, e, f) (a)
#define NSM_AT_1(a, b, c, d, e, f) (b)
#define NSM_AT_2(a, b, c, d, e, f) (c)
#define NSM_AT_3(a, b, c, d, e, f) (d)
#define NSM_AT_4(a, b, c, d, e, f) (e)
#define NSM_AT_5(a, b, c, d, e, f) (f)
/* A row's six defaults for the MPI library built against (NODESHM_BY_MPI_LIBRARY), as an initializer's
 * elements; and a table's row of each kind: NSM_OPS(NSM_MAX_ROW) the upper bounds by op and
 * shape, NSM_OP_MINS(NSM_MIN_ROW) the lower bounds (a 7th element 1: the op has a row).
 * init.c's tables, and tests that expect the defaults (tests/mpi_persist_defaults.c). */
#define NSM_DEFAULTS_ROW(mpich, ompi)                                                                \
    NODESHM_BY_MPI_LIBRARY(NSM_AT(0, mpich), NSM_AT(0, ompi)), NODESHM_BY_MPI_LIBRARY(NSM_AT(1, mpich), NSM_AT(1, ompi)),   \
        NODESHM_BY_MPI_LIBRARY(NSM_AT(2, mpich), NSM_AT(2, ompi)), NODESHM_BY_MPI_LIBRARY(NSM_AT(3, mpich), NSM_AT(3, ompi)), \
        NODESHM_BY_MPI_LIBRARY(NSM_AT(4, mpich), NSM_AT(4, ompi)), NODESHM_BY_MPI_LIBRARY(NSM_AT(5, mpich), NSM_AT(5, ompi))
#define NSM_MAX_ROW(id, name, mpich, ompi) [NSM_OP_##id] = {NSM_DEFAULTS_ROW(mpich, ompi)},
#define NSM_MIN_ROW(id, mpich, ompi) [NSM_OP_##id] = {NSM_DEFAULTS_ROW(mpich, ompi), 1},

enum {
#define NSM_OP_ID(id, name, mpich, ompi) NSM_OP_##id,
    NSM_OPS(NSM_OP_ID)
#undef NSM_OP_ID
    NSM_OP_COUNT
};

typedef struct nsm_config {
    int off[NSM_OP_COUNT];
    size_t max[NSM_OP_COUNT]; /* NODESHM_MPI_<OP>_MAX when set; else the largest default of
                               * any shape: the bound checked before the state lookup */
    int max_set[NSM_OP_COUNT];                 /* NODESHM_MPI_<OP>_MAX given: on every shape */
    size_t max_shape[NSM_OP_COUNT][NSM_SHAPES]; /* the defaults by ranks per node (NSM_OPS) */
    size_t min[NSM_OP_COUNT]; /* NODESHM_MPI_<OP>_MIN when set; else the largest default */
    int min_everywhere[NSM_OP_COUNT]; /* 1: set, so for every communicator; 0: by shape */
    size_t min_shape[NSM_OP_COUNT][NSM_SHAPES]; /* the defaults by shape (NSM_OP_MINS) */
    size_t min_pre[NSM_OP_COUNT];     /* the bound checked before a communicator's state is
                                       * looked up: the one set, else the smallest default of
                                       * the shapes MPI_COMM_WORLD's communicators can have
                                       * (nsm_scope_node; 0 until it ran) */
    int all_off;
    size_t stage_max;
    size_t window_max;  /* NODESHM_MPI_WINDOW_MAX: a communicator's buffer banks, per node */
    int pes_per_node;   /* 0: physical nodes */
    int banks;          /* NODESHM_MPI_BANKS: buffer sets a rank may run ahead into (1 or 2) */
    int ring_depth;     /* NODESHM_MPI_RING: small banks (0: none), one-node communicators */
    size_t ring_bytes;  /* NODESHM_MPI_RING_BYTES: their result area and slot size */
    int loaded;
} nsm_config_t;

extern nsm_config_t nsm_cfg;
void nsm_load_config(void);
void nsm_scope_node(void);
/* Configures core/wait.h's policy for this process once: at MPI_Init from MPI_COMM_WORLD's
 * machine (nsm_scope_node), else (MPI_Init not intercepted) at the first state. */
void nsm_wait_policy(int oversubscribed);
void nsm_setup_keyval(void);
void nsm_finalize_states(void);
struct nsm_state;
/* NODESHM_DEBUG: a communicator's shape and thresholds, at its state's creation (init.c). */
void nsm_debug_state(const struct nsm_state *s);
/* Alltoallv's block stride on this communicator (alltoall.c): its threshold, capped by what
 * fits the matrix; blocks above it go to the MPI library. */
size_t nsm_a2av_stride(const struct nsm_state *s);

/* The column of NSM_OPS for a communicator of n_nodes nodes whose fullest node holds `per_node`
 * of its ranks: 0 for up to 2 ranks, 1 for 3-4, 2 for 5 and more; 3 more on several nodes. */
static inline int nsm_shape(int per_node, int n_nodes)
{
    return (n_nodes > 1 ? 3 : 0) + (per_node <= 2 ? 0 : per_node <= 4 ? 1 : 2);
}
/* An op's threshold on such a communicator, before NODESHM_MPI_WINDOW_MAX: the one set, else the
 * shape's default; 0 when the op is off. */
static inline size_t nsm_op_max_at(int op, int per_node, int n_nodes)
{
    return nsm_cfg.off[op]       ? 0
           : nsm_cfg.max_set[op] ? nsm_cfg.max[op]
                                 : nsm_cfg.max_shape[op][nsm_shape(per_node, n_nodes)];
}
/* An op's lower bound on such a communicator: the one set, else the shape's default; between
 * pseudo-nodes (NODESHM_PES_PER_NODE) the one-node bounds, since the several-node ones race the
 * library's network path, which pseudo-nodes do not have. */
static inline size_t nsm_op_min_at(int op, int per_node, int n_nodes)
{
    return nsm_cfg.min_everywhere[op] ? nsm_cfg.min[op]
                                      : nsm_cfg.min_shape[op][nsm_shape(per_node, nsm_cfg.pes_per_node ? 1 : n_nodes)];
}
/* An op's threshold before the state lookup (the largest of any shape), or 0 when it is switched
 * off: the one test every op makes first.  After it, the communicator's own (nsm_state_t.max)
 * decides. */
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
