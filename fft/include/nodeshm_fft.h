/* nodeshm-fft: distributed 3D complex FFTs and brick remaps whose data movement runs on nodeshm.
 *
 * The global grid has n[0] x n[1] x n[2] points (dimensions 0, 1, 2: "x", "y", "z").  Every rank
 * of a communicator owns one brick of it (possibly empty) before and after a transform; the
 * bricks of all ranks tile the grid.  A brick's points are stored densely in the rank's array,
 * in the memory order the brick names (any of the six).  Elements are interleaved complex:
 * double[2] (fftw_complex) or float[2] (fftwf_complex).
 *
 *   nodeshm_fft_brick_t in, out;               // from nodeshm_fft_pencil_brick or your own
 *   nodeshm_fft_plan_t p;
 *   nodeshm_fft_plan_create(comm, n, &in, &out, NODESHM_FFT_DOUBLE, NODESHM_REMAP_AUTO, &p);
 *   nodeshm_fft_forward(p, a, b);              // a: in-brick layout, b: out-brick layout
 *   nodeshm_fft_backward(p, b, a);             // back, unnormalized (times n0*n1*n2)
 *   nodeshm_fft_destroy(&p);
 *
 * The transforms run as three sets of 1D FFTs (FFTW) along pencils, with remaps (brick to brick
 * redistributions with a change of memory order) between them.  The remap is an object of its
 * own (nodeshm_remap_*), usable for any redistribution of a 3D array of fixed-size elements.
 *
 * Strategies move a remap's data (all give bitwise identical results):
 *   mpi-p2p          pack, MPI_Irecv / MPI_Send / MPI_Waitany, unpack (LAMMPS' remap_3d)
 *   mpi-alltoallv    pack, MPI_Alltoallv, unpack (libnodeshm_mpi accelerates it when preloaded)
 *   node             within a node each rank copies its blocks straight out of the senders'
 *                    node-shared arrays (one copy, no pack), signalled per rank pair; between
 *                    nodes one message per pair of nodes (each rank packs its blocks into it in
 *                    node-shared memory, one rank per node sends it, one receives it and its
 *                    node peers copy their blocks out) or one per pair of ranks as mpi-p2p, as
 *                    the plan decides (NODESHM_FFT_NODE_AGGREGATE=off|on|SIZE).  Needs nothing
 *                    but MPI (nodeshm's node-shared data).
 *   shmem-barrier    the paper's four OpenSHMEM strategies (LAMMPS' remap ported to puts, seed
 *   shmem-nopack     001): put into the receiver's symmetric scratch and flag it; barrier: pack,
 *   shmem-chkbuff    fence, flag, scratch reuse after a team sync; nopack: a non-blocking put per
 *   shmem-advchkbuff contiguous run, no pack, quiet; chkbuff: per-peer READY flags instead of the
 *                    sync; advchkbuff: unpacks whichever block arrives first.  They need
 *                    shmem_init (after MPI_Init) and a communicator of all PEs.
 *   auto             node when the communicator has ranks sharing a node, else mpi-p2p;
 *                    NODESHM_FFT_STRATEGY=name overrides it (an explicit strategy is kept)
 *
 * Every call is collective over the plan's communicator except the *_brick / *_grid helpers
 * and nodeshm_fft_plan_info.  Functions return 0 or an MPI error class: creating a plan or a
 * remap with bad input gives MPI_ERR_ARG on every rank (the same verdict everywhere, no hang)
 * and one message on stderr naming the call and the value.  A transform or remap execute that
 * one rank cannot make (a NULL array for a non-empty brick) ends the job with a message: the
 * other ranks would wait for it forever. */
#ifndef NODESHM_FFT_H
#define NODESHM_FFT_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nodeshm_fft_brick {
    int lo[3];    /* first index in dimension d = 0, 1, 2 */
    int hi[3];    /* one past the last: lo[d] == hi[d] makes the brick empty */
    int order[3]; /* memory order: order[0] varies fastest, order[2] slowest; {0,1,2} is the C
                   * array a[z][y][x] */
} nodeshm_fft_brick_t;

typedef enum nodeshm_remap_strategy {
    NODESHM_REMAP_AUTO = 0,
    NODESHM_REMAP_MPI_P2P,
    NODESHM_REMAP_MPI_ALLTOALLV,
    NODESHM_REMAP_NODE,
    NODESHM_REMAP_SHMEM_BARRIER,
    NODESHM_REMAP_SHMEM_NOPACK,
    NODESHM_REMAP_SHMEM_CHKBUFF,
    NODESHM_REMAP_SHMEM_ADVCHKBUFF,
    NODESHM_REMAP_N_STRATEGIES
} nodeshm_remap_strategy_t;

/* "auto", "mpi-p2p", "mpi-alltoallv", "node", "shmem-barrier", "shmem-nopack",
 * "shmem-chkbuff", "shmem-advchkbuff"; NULL for a bad value. */
const char *nodeshm_remap_strategy_name(nodeshm_remap_strategy_t strategy);
/* 0, or MPI_ERR_ARG (with a message listing the accepted names) for an unknown name. */
int nodeshm_remap_strategy_from_name(const char *name, nodeshm_remap_strategy_t *strategy);

/* ---- remap: redistribution of a 3D array between two brick decompositions */
typedef struct nodeshm_remap *nodeshm_remap_t;

/* Collective.  `from` and `to` are this rank's bricks; elements are `elem_bytes` each. */
int nodeshm_remap_create(MPI_Comm comm, const int n[3], const nodeshm_fft_brick_t *from,
                         const nodeshm_fft_brick_t *to, size_t elem_bytes,
                         nodeshm_remap_strategy_t strategy, nodeshm_remap_t *remap);
/* Collective: dst (the `to` brick) receives the data of src (the `from` brick) of all ranks.
 * src and dst must not overlap.  src may be the remap's own source buffer (below): then the
 * node strategy sends without any copy of its own. */
int nodeshm_remap_execute(nodeshm_remap_t remap, const void *src, void *dst);
/* A buffer of the `from` brick's size that the remap sends from without copying it first
 * (node-shared memory for the node strategy).  Not collective: it returns when the ranks that
 * read the previous execute's data from it are done, so write into it only after this call. */
void *nodeshm_remap_source(nodeshm_remap_t remap);
/* The strategy in use (auto resolved). */
nodeshm_remap_strategy_t nodeshm_remap_strategy(nodeshm_remap_t remap);
int nodeshm_remap_destroy(nodeshm_remap_t *remap);

/* ---- 3D FFT */
typedef enum nodeshm_fft_precision { NODESHM_FFT_DOUBLE = 0, NODESHM_FFT_SINGLE = 1 } nodeshm_fft_precision_t;
typedef struct nodeshm_fft_plan *nodeshm_fft_plan_t;

/* Collective.  n[d] >= 1; `in` and `out` are this rank's bricks (see the top). */
int nodeshm_fft_plan_create(MPI_Comm comm, const int n[3], const nodeshm_fft_brick_t *in,
                            const nodeshm_fft_brick_t *out, nodeshm_fft_precision_t precision,
                            nodeshm_remap_strategy_t strategy, nodeshm_fft_plan_t *plan);
/* The same on a given pencil grid (grid[0] * grid[1] == ranks) instead of
 * nodeshm_fft_pencil_grid's choice. */
int nodeshm_fft_plan_create_on_grid(MPI_Comm comm, const int n[3], const int grid[2],
                                    const nodeshm_fft_brick_t *in, const nodeshm_fft_brick_t *out,
                                    nodeshm_fft_precision_t precision,
                                    nodeshm_remap_strategy_t strategy, nodeshm_fft_plan_t *plan);
/* Forward transform (exponent sign -1): `in` holds the in-brick's data, `out` receives the
 * out-brick's.  in == out is allowed (the array must hold the larger brick). */
int nodeshm_fft_forward(nodeshm_fft_plan_t plan, const void *in, void *out);
/* Backward (sign +1, unnormalized): `in` holds out-brick data, `out` receives in-brick data. */
int nodeshm_fft_backward(nodeshm_fft_plan_t plan, const void *in, void *out);
int nodeshm_fft_destroy(nodeshm_fft_plan_t *plan);

typedef struct nodeshm_fft_info {
    nodeshm_remap_strategy_t strategy;
    int grid[2];         /* the pencil grid (grid[0] * grid[1] ranks) */
    int remaps;          /* remaps per transform (identity ones skipped) */
    long transforms;     /* forward + backward calls so far */
    double seconds;      /* in those calls */
    double remap_seconds;/* in their remaps */
    int remaps_between_nodes; /* node strategy: remaps (of `remaps`) that move blocks between nodes */
    int remaps_aggregated;    /* of those, the ones that send one message per pair of nodes */
} nodeshm_fft_info_t;
/* Not collective. */
int nodeshm_fft_plan_info(nodeshm_fft_plan_t plan, nodeshm_fft_info_t *info);

/* ---- helpers (not collective) */
/* A pencil grid for nprocs ranks: grid[0] * grid[1] == nprocs, pencils as square as the grid
 * allows. */
int nodeshm_fft_pencil_grid(int nprocs, const int n[3], int grid[2]);
/* Rank `rank`'s pencil along `axis` on that grid: full extent in `axis`; x varies fastest in
 * memory, then `axis` (orders {0,1,2}, {0,1,2}, {0,2,1}).  Axis 0 pencils are the plan's natural input, axis 2 its natural
 * output: bricks equal to those skip the first and last remaps. */
int nodeshm_fft_pencil_brick(const int n[3], const int grid[2], int rank, int axis,
                             nodeshm_fft_brick_t *brick);
/* The FFTW planner flag the library plans with (NODESHM_FFT_FFTW=estimate|measure|patient,
 * default measure), for a program's own FFTW plans to compare like with like. */
unsigned nodeshm_fft_fftw_flags(void);
/* Points in a brick. */
size_t nodeshm_fft_brick_size(const nodeshm_fft_brick_t *brick);

#ifdef __cplusplus
}
#endif

#endif
