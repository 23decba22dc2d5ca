/* OSU-style latencies of the MPI collectives libnodeshm_mpi intercepts, with the interposer
 * (MPI_*: libnodeshm_mpi is linked) and without it (PMPI_*: the MPI library), side by side in
 * the same run: per size, repetitions alternate between the two, each repetition is the mean
 * time per call of a batch (max over ranks), and the table shows the median (and with -f the min
 * and max) over repetitions.  The interposer applies its own thresholds: raise
 * NODESHM_MPI_<OP>_MAX to see nodeshm above them (below a threshold both columns are the MPI
 * library, ratio ~1).
 *
 * -d D (imbalance): before each call every rank computes for a random 0..D us of its own CPU
 * time, as application ranks arrive at a collective at different times.  The delays are a fixed
 * sequence per rank, size, repetition and call (not per column), so both columns see the same
 * ones.  Work, not wall time: a rank that waits by spinning takes the core from a late peer still
 * computing (4-8 ranks on 2 cores), and the late arrival that follows is the op's cost too.  The
 * time per call is then the loop's (slowest rank) minus the busiest rank's own compute (its delays
 * summed, / calls): what the op adds to a program's step, the same subtraction in both columns;
 * without imbalance that is the lockstep latency.  Test names get the suffix _imb<D>.
 *
 * -R r: the root of bcast, gather(v), scatter(v) and reduce (default 0); their rows are then
 * tests <op>_root<r>.
 *
 * -c C: the compute between start and wait of the non-blocking *_ovl rows (us; 10 by default).
 *
 * Usage: mpi_osu [-m [min:]max] [-i iters] [-x warmup] [-r reps] [-d us] [-c us] [-R root] [-f] [--csv] [-o op,op...]
 * NODESHM_BENCH_QUICK=1: tiny sizes and few iterations (the test suite). */
#include "nodeshm.h"
#include "bench_util.h"
#include "core/env.h"
#include "nsm_bigcount_config.h" /* NSM_HAVE_MPI_<OP>_INIT: the persistent rows */

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct bufs {
    void *send, *recv;       /* size * max_bytes each */
    int *counts, *displs;    /* [size]: v-variants, bytes per rank */
    int rank, size;
} bufs_t;

/* One call of an op over `bytes` (per rank or per pair, as OSU counts), by the interposer
 * (pmpi = 0) or the MPI library (pmpi = 1). */
typedef void (*op_fn)(int pmpi, bufs_t *b, int bytes, MPI_Comm comm);

static int root; /* -R: the rooted ops' root (0: a node leader; 1 on 2 hosts: not one) */

static void run_barrier(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    (void)b, (void)bytes;
    pmpi ? PMPI_Barrier(comm) : MPI_Barrier(comm);
}

static void run_bcast(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    pmpi ? PMPI_Bcast(b->send, bytes, MPI_BYTE, root, comm) : MPI_Bcast(b->send, bytes, MPI_BYTE, root, comm);
}

static void run_allreduce(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    int n = bytes / 8;
    pmpi ? PMPI_Allreduce(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, comm)
         : MPI_Allreduce(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, comm);
}

static void run_gather(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    pmpi ? PMPI_Gather(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, root, comm)
         : MPI_Gather(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, root, comm);
}

/* ---- gather/scatter family (gatherv, scatter, scatterv, allgather, allgatherv): add here */

/* v-variants with uniform counts, like osu_gatherv & co: bytes per rank, rank order */
static void uniform_v(bufs_t *b, int bytes)
{
    for (int r = 0; r < b->size; r++) {
        b->counts[r] = bytes;
        b->displs[r] = r * bytes;
    }
}

static void run_gatherv(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    uniform_v(b, bytes);
    pmpi ? PMPI_Gatherv(b->send, bytes, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, root, comm)
         : MPI_Gatherv(b->send, bytes, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, root, comm);
}

static void run_scatter(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    pmpi ? PMPI_Scatter(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, root, comm)
         : MPI_Scatter(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, root, comm);
}

static void run_scatterv(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    uniform_v(b, bytes);
    pmpi ? PMPI_Scatterv(b->send, b->counts, b->displs, MPI_BYTE, b->recv, bytes, MPI_BYTE, root, comm)
         : MPI_Scatterv(b->send, b->counts, b->displs, MPI_BYTE, b->recv, bytes, MPI_BYTE, root, comm);
}

static void run_allgather(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    pmpi ? PMPI_Allgather(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, comm)
         : MPI_Allgather(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, comm);
}

static void run_allgatherv(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    uniform_v(b, bytes);
    pmpi ? PMPI_Allgatherv(b->send, bytes, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, comm)
         : MPI_Allgatherv(b->send, bytes, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, comm);
}

/* ---- reduce/alltoall family (reduce, reduce_scatter_block, alltoall, alltoallv): add here */

static void run_reduce(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    int n = bytes / 8;
    pmpi ? PMPI_Reduce(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, root, comm)
         : MPI_Reduce(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, root, comm);
}

/* bytes: the whole vector (as osu_reduce_scatter counts it), bytes / size per rank */
static void run_reduce_scatter_block(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    int n = bytes / 8 / b->size;
    pmpi ? PMPI_Reduce_scatter_block(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, comm)
         : MPI_Reduce_scatter_block(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, comm);
}

/* bytes per rank pair */
static void run_alltoall(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    pmpi ? PMPI_Alltoall(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, comm)
         : MPI_Alltoall(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, comm);
}

/* uniform counts, like osu_alltoallv: bytes per rank pair */
static void run_alltoallv(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    for (int r = 0; r < b->size; r++) {
        b->counts[r] = bytes;
        b->displs[r] = r * bytes;
    }
    pmpi ? PMPI_Alltoallv(b->send, b->counts, b->displs, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, comm)
         : MPI_Alltoallv(b->send, b->counts, b->displs, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, comm);
}

/* like a remap between pencils (LAMMPS' PPPM with kspace_modify collective yes): each rank
 * exchanges with the ranks of its own parity only, the other blocks are empty */
static void run_alltoallv_sparse(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    for (int r = 0; r < b->size; r++) {
        b->counts[r] = ((r ^ b->rank) & 1) ? 0 : bytes;
        b->displs[r] = r * bytes;
    }
    pmpi ? PMPI_Alltoallv(b->send, b->counts, b->displs, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, comm)
         : MPI_Alltoallv(b->send, b->counts, b->displs, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, comm);
}

/* ---- scans, reduce_scatter, alltoallw */

/* message bytes (doubles, sum) */
static void run_scan(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    int n = bytes / 8;
    pmpi ? PMPI_Scan(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, comm)
         : MPI_Scan(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, comm);
}

static void run_exscan(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    int n = bytes / 8;
    pmpi ? PMPI_Exscan(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, comm)
         : MPI_Exscan(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, comm);
}

/* bytes: the whole vector; irregular blocks, rank r's about (r + 1) shares of size (size + 1) / 2 */
static void run_reduce_scatter(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    int n = bytes / 8, left = n, shares = b->size * (b->size + 1) / 2;
    for (int r = 0; r < b->size; r++) {
        b->counts[r] = r == b->size - 1 ? left : (int)((long)n * (r + 1) / shares);
        left -= b->counts[r];
    }
    pmpi ? PMPI_Reduce_scatter(b->send, b->recv, b->counts, MPI_DOUBLE, MPI_SUM, comm)
         : MPI_Reduce_scatter(b->send, b->recv, b->counts, MPI_DOUBLE, MPI_SUM, comm);
}

/* bytes per rank pair, like alltoallv's row, with a datatype per pair (all MPI_BYTE) */
static void run_alltoallw(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)
{
    static MPI_Datatype *types;
    if (!types && !(types = malloc(sizeof *types * (size_t)b->size))) MPI_Abort(comm, 1);
    for (int r = 0; r < b->size; r++) {
        b->counts[r] = bytes;
        b->displs[r] = r * bytes;
        types[r] = MPI_BYTE;
    }
    pmpi ? PMPI_Alltoallw(b->send, b->counts, b->displs, types, b->recv, b->counts, b->displs, types, comm)
         : MPI_Alltoallw(b->send, b->counts, b->displs, types, b->recv, b->counts, b->displs, types, comm);
}

/* ---- non-blocking forms: start, then wait at once (latency), or with overlap_ns of compute
 * between (the _ovl rows: the time shown is the loop's minus that compute, what the collective
 * adds to it; a collective that progressed meanwhile adds little) */
static long overlap_ns = 10000;
static void compute(long ns);

static void nb_wait(int pmpi, MPI_Request *r, int ovl)
{
    if (ovl) compute(overlap_ns);
    pmpi ? PMPI_Wait(r, MPI_STATUS_IGNORE) : MPI_Wait(r, MPI_STATUS_IGNORE);
}

static void ibarrier(int pmpi, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    pmpi ? PMPI_Ibarrier(comm, &r) : MPI_Ibarrier(comm, &r);
    nb_wait(pmpi, &r, ovl);
}

static void ibcast(int pmpi, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    pmpi ? PMPI_Ibcast(b->send, bytes, MPI_BYTE, 0, comm, &r) : MPI_Ibcast(b->send, bytes, MPI_BYTE, 0, comm, &r);
    nb_wait(pmpi, &r, ovl);
}

static void iallreduce(int pmpi, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    int n = bytes / 8;
    pmpi ? PMPI_Iallreduce(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, comm, &r)
         : MPI_Iallreduce(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, comm, &r);
    nb_wait(pmpi, &r, ovl);
}

static void ireduce(int pmpi, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    int n = bytes / 8;
    pmpi ? PMPI_Ireduce(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, 0, comm, &r)
         : MPI_Ireduce(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, 0, comm, &r);
    nb_wait(pmpi, &r, ovl);
}

static void igather(int pmpi, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    pmpi ? PMPI_Igather(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, 0, comm, &r)
         : MPI_Igather(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, 0, comm, &r);
    nb_wait(pmpi, &r, ovl);
}

static void iscatter(int pmpi, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    pmpi ? PMPI_Iscatter(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, 0, comm, &r)
         : MPI_Iscatter(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, 0, comm, &r);
    nb_wait(pmpi, &r, ovl);
}

static void iallgather(int pmpi, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    pmpi ? PMPI_Iallgather(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, comm, &r)
         : MPI_Iallgather(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, comm, &r);
    nb_wait(pmpi, &r, ovl);
}

/* v-forms with uniform counts (uniform_v), alltoall(v): bytes per rank (pair) */
static void igatherv(int pmpi, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    uniform_v(b, bytes);
    pmpi ? PMPI_Igatherv(b->send, bytes, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, 0, comm, &r)
         : MPI_Igatherv(b->send, bytes, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, 0, comm, &r);
    nb_wait(pmpi, &r, ovl);
}

static void iscatterv(int pmpi, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    uniform_v(b, bytes);
    pmpi ? PMPI_Iscatterv(b->send, b->counts, b->displs, MPI_BYTE, b->recv, bytes, MPI_BYTE, 0, comm, &r)
         : MPI_Iscatterv(b->send, b->counts, b->displs, MPI_BYTE, b->recv, bytes, MPI_BYTE, 0, comm, &r);
    nb_wait(pmpi, &r, ovl);
}

static void iallgatherv(int pmpi, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    uniform_v(b, bytes);
    pmpi ? PMPI_Iallgatherv(b->send, bytes, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, comm, &r)
         : MPI_Iallgatherv(b->send, bytes, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, comm, &r);
    nb_wait(pmpi, &r, ovl);
}

static void ialltoall(int pmpi, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    pmpi ? PMPI_Ialltoall(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, comm, &r)
         : MPI_Ialltoall(b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, comm, &r);
    nb_wait(pmpi, &r, ovl);
}

static void ialltoallv(int pmpi, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    uniform_v(b, bytes);
    pmpi ? PMPI_Ialltoallv(b->send, b->counts, b->displs, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, comm, &r)
         : MPI_Ialltoallv(b->send, b->counts, b->displs, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, comm, &r);
    nb_wait(pmpi, &r, ovl);
}

static void run_igatherv(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { igatherv(pmpi, b, bytes, comm, 0); }
static void run_iscatterv(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { iscatterv(pmpi, b, bytes, comm, 0); }
static void run_iallgatherv(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { iallgatherv(pmpi, b, bytes, comm, 0); }
static void run_ialltoall(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { ialltoall(pmpi, b, bytes, comm, 0); }
static void run_ialltoallv(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { ialltoallv(pmpi, b, bytes, comm, 0); }
static void run_ialltoall_ovl(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { ialltoall(pmpi, b, bytes, comm, 1); }
static void run_ialltoallv_ovl(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { ialltoallv(pmpi, b, bytes, comm, 1); }

static void run_ireduce(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { ireduce(pmpi, b, bytes, comm, 0); }
static void run_igather(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { igather(pmpi, b, bytes, comm, 0); }
static void run_iscatter(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { iscatter(pmpi, b, bytes, comm, 0); }
static void run_iallgather(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { iallgather(pmpi, b, bytes, comm, 0); }
static void run_iallgather_ovl(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { iallgather(pmpi, b, bytes, comm, 1); }

static void run_ibarrier(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { (void)b, (void)bytes, ibarrier(pmpi, comm, 0); }
static void run_ibarrier_ovl(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { (void)b, (void)bytes, ibarrier(pmpi, comm, 1); }
static void run_ibcast(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { ibcast(pmpi, b, bytes, comm, 0); }
static void run_ibcast_ovl(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { ibcast(pmpi, b, bytes, comm, 1); }
static void run_iallreduce(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { iallreduce(pmpi, b, bytes, comm, 0); }
static void run_iallreduce_ovl(int pmpi, bufs_t *b, int bytes, MPI_Comm comm) { iallreduce(pmpi, b, bytes, comm, 1); }

/* ---- persistent forms (MPI-4 MPI_<Op>_init, where the MPI has them): one request per size and
 * column, made at its first call (the warm-up) and freed at the next size; a call is MPI_Start
 * then MPI_Wait.  Roots 0, as the non-blocking rows. */
#ifdef NSM_HAVE_MPI_BCAST_INIT
typedef struct pslot {
    op_fn fn;
    int bytes;
    MPI_Request r;
} pslot_t;
static pslot_t pslot[2] = {{NULL, -1, MPI_REQUEST_NULL}, {NULL, -1, MPI_REQUEST_NULL}};

static void persist_free(int pmpi)
{
    if (pslot[pmpi].r != MPI_REQUEST_NULL) pmpi ? PMPI_Request_free(&pslot[pmpi].r) : MPI_Request_free(&pslot[pmpi].r);
    pslot[pmpi].fn = NULL;
}

enum { P_BARRIER, P_BCAST, P_ALLREDUCE, P_REDUCE, P_GATHER, P_SCATTER, P_ALLGATHER };
static void persist_run(int pmpi, op_fn fn, int which, bufs_t *b, int bytes, MPI_Comm comm)
{
    pslot_t *s = &pslot[pmpi];
    if (s->fn != fn || s->bytes != bytes) {
        persist_free(pmpi);
        int n = bytes / 8;
        void *sb = b->send, *rb = b->recv;
        MPI_Request *r = &s->r;
        MPI_Info in = MPI_INFO_NULL;
        switch (which) {
        case P_BARRIER: pmpi ? PMPI_Barrier_init(comm, in, r) : MPI_Barrier_init(comm, in, r); break;
        case P_BCAST:
            pmpi ? PMPI_Bcast_init(sb, bytes, MPI_BYTE, 0, comm, in, r) : MPI_Bcast_init(sb, bytes, MPI_BYTE, 0, comm, in, r);
            break;
        case P_ALLREDUCE:
            pmpi ? PMPI_Allreduce_init(sb, rb, n, MPI_DOUBLE, MPI_SUM, comm, in, r)
                 : MPI_Allreduce_init(sb, rb, n, MPI_DOUBLE, MPI_SUM, comm, in, r);
            break;
        case P_REDUCE:
            pmpi ? PMPI_Reduce_init(sb, rb, n, MPI_DOUBLE, MPI_SUM, 0, comm, in, r)
                 : MPI_Reduce_init(sb, rb, n, MPI_DOUBLE, MPI_SUM, 0, comm, in, r);
            break;
        case P_GATHER:
            pmpi ? PMPI_Gather_init(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, 0, comm, in, r)
                 : MPI_Gather_init(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, 0, comm, in, r);
            break;
        case P_SCATTER:
            pmpi ? PMPI_Scatter_init(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, 0, comm, in, r)
                 : MPI_Scatter_init(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, 0, comm, in, r);
            break;
        default:
            pmpi ? PMPI_Allgather_init(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, comm, in, r)
                 : MPI_Allgather_init(sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, comm, in, r);
        }
        s->fn = fn;
        s->bytes = bytes;
    }
    pmpi ? PMPI_Start(&s->r) : MPI_Start(&s->r);
    pmpi ? PMPI_Wait(&s->r, MPI_STATUS_IGNORE) : MPI_Wait(&s->r, MPI_STATUS_IGNORE);
}
#define PERSIST_ROW(name, which)                                                                   \
    static void run_##name(int pmpi, bufs_t *b, int bytes, MPI_Comm comm)                          \
    {                                                                                              \
        persist_run(pmpi, run_##name, which, b, bytes, comm);                                      \
    }
PERSIST_ROW(barrier_init, P_BARRIER)
PERSIST_ROW(bcast_init, P_BCAST)
PERSIST_ROW(allreduce_init, P_ALLREDUCE)
PERSIST_ROW(reduce_init, P_REDUCE)
PERSIST_ROW(gather_init, P_GATHER)
PERSIST_ROW(scatter_init, P_SCATTER)
PERSIST_ROW(allgather_init, P_ALLGATHER)
#else
static void persist_free(int pmpi) { (void)pmpi; }
#endif

typedef struct op_desc {
    const char *name;
    op_fn fn;
    int sized;      /* 0: barrier */
    int min_bytes;  /* e.g. 8 for double reductions */
    int overlap;    /* computes overlap_ns per call between start and wait */
} op_desc_t;

static const op_desc_t ops[] = {
    {"barrier", run_barrier, 0, 0, 0},
    {"bcast", run_bcast, 1, 1, 0},
    {"gather", run_gather, 1, 1, 0},
    /* gather/scatter family rows */
    {"gatherv", run_gatherv, 1, 1, 0},
    {"scatter", run_scatter, 1, 1, 0},
    {"scatterv", run_scatterv, 1, 1, 0},
    {"allgather", run_allgather, 1, 1, 0},
    {"allgatherv", run_allgatherv, 1, 1, 0},
    {"allreduce", run_allreduce, 1, 8, 0},
    /* reduce/alltoall family rows */
    {"reduce", run_reduce, 1, 8, 0},
    {"reduce_scatter_block", run_reduce_scatter_block, 1, 64, 0}, /* 8 ranks x 1 double */
    {"alltoall", run_alltoall, 1, 1, 0},
    {"alltoallv", run_alltoallv, 1, 1, 0},
    {"alltoallv_sparse", run_alltoallv_sparse, 1, 1, 0},
    {"scan", run_scan, 1, 8, 0},
    {"exscan", run_exscan, 1, 8, 0},
    {"reduce_scatter", run_reduce_scatter, 1, 64, 0}, /* 8 ranks x 1 double */
    {"alltoallw", run_alltoallw, 1, 1, 0},
    {"ibarrier", run_ibarrier, 0, 0, 0},
    {"ibcast", run_ibcast, 1, 1, 0},
    {"iallreduce", run_iallreduce, 1, 8, 0},
    {"ireduce", run_ireduce, 1, 8, 0},
    {"igather", run_igather, 1, 1, 0},
    {"iscatter", run_iscatter, 1, 1, 0},
    {"iallgather", run_iallgather, 1, 1, 0},
    {"igatherv", run_igatherv, 1, 1, 0},
    {"iscatterv", run_iscatterv, 1, 1, 0},
    {"iallgatherv", run_iallgatherv, 1, 1, 0},
    {"ialltoall", run_ialltoall, 1, 1, 0},
    {"ialltoallv", run_ialltoallv, 1, 1, 0},
    {"ibarrier_ovl", run_ibarrier_ovl, 0, 0, 1},
    {"ibcast_ovl", run_ibcast_ovl, 1, 1, 1},
    {"iallreduce_ovl", run_iallreduce_ovl, 1, 8, 1},
    {"iallgather_ovl", run_iallgather_ovl, 1, 1, 1},
    {"ialltoall_ovl", run_ialltoall_ovl, 1, 1, 1},
    {"ialltoallv_ovl", run_ialltoallv_ovl, 1, 1, 1},
#ifdef NSM_HAVE_MPI_BCAST_INIT
    {"barrier_init", run_barrier_init, 0, 0, 0},
    {"bcast_init", run_bcast_init, 1, 1, 0},
    {"allreduce_init", run_allreduce_init, 1, 8, 0},
    {"reduce_init", run_reduce_init, 1, 8, 0},
    {"gather_init", run_gather_init, 1, 1, 0},
    {"scatter_init", run_scatter_init, 1, 1, 0},
    {"allgather_init", run_allgather_init, 1, 1, 0},
#endif
};
#define NOPS (int)(sizeof ops / sizeof *ops)

static int is_rooted(op_fn fn)
{
    return fn == run_bcast || fn == run_gather || fn == run_gatherv || fn == run_scatter || fn == run_scatterv ||
           fn == run_reduce;
}

static int cmp(const void *x, const void *y)
{
    double u = *(const double *)x, v = *(const double *)y;
    return u < v ? -1 : u > v;
}

/* ---- imbalance (-d) */
static long delay_max_ns; /* 0: lockstep */
static long *delays;      /* [iters] this rank's delays of the current batch, ns */

static uint64_t mix64(uint64_t x) /* splitmix64's finalizer */
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* This rank's delays for a batch: the same for both columns (key: op, size, repetition). */
static void make_delays(int rank, int op, long bytes, int rep, int iters)
{
    uint64_t key = mix64(((uint64_t)op << 48) ^ ((uint64_t)bytes << 8) ^ (uint64_t)rep);
    for (int i = 0; i < iters; i++)
        delays[i] = (long)(mix64(key ^ mix64(((uint64_t)rank << 32) | (uint64_t)i)) % (uint64_t)(delay_max_ns + 1));
}

static long cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* ns of this thread's CPU time: work, stretched in wall time when the core is taken */
static void compute(long ns)
{
    long end = cpu_ns() + ns;
    while (cpu_ns() < end) {
    }
}

/* Mean time per call of `iters` calls, max over ranks; with imbalance, minus the busiest rank's
 * compute per call. */
static double batch(const op_desc_t *op, int pmpi, bufs_t *b, int bytes, int iters)
{
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (delay_max_ns)
        for (int i = 0; i < iters; i++) {
            compute(delays[i]);
            op->fn(pmpi, b, bytes, MPI_COMM_WORLD);
        }
    else
        for (int i = 0; i < iters; i++) op->fn(pmpi, b, bytes, MPI_COMM_WORLD);
    double in[2] = {MPI_Wtime() - t0, 0}, mx[2];
    for (int i = 0; delay_max_ns && i < iters; i++) in[1] += delays[i] * 1e-9;
    if (op->overlap) in[1] += overlap_ns * 1e-9 * iters;
    PMPI_Allreduce(in, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return (mx[0] - mx[1]) / iters;
}

/* A bad command line: every rank sees the same arguments, so all end here together; rank 0 has
 * said what is wrong.  Not MPI_Abort: another rank's abort could kill rank 0 before its message
 * was out (bench_cli_errors lost it once under MPICH). */
static void bad_args(void)
{
    MPI_Finalize();
    exit(2);
}

/* A time in us on the command line (0 to 1 s), in ns. */
static long ns_arg(const char *opt, const char *arg, const char *what, int rank)
{
    char *end;
    double us = strtod(arg, &end);
    if (*end || !(us >= 0 && us <= 1e6)) {
        if (rank == 0) fprintf(stderr, "mpi_osu: %s %s: expected %s in us, 0 to 1000000\n", opt, arg, what);
        bad_args();
    }
    return (long)(us * 1000);
}

static void usage(int rank)
{
    if (rank == 0)
        fprintf(stderr, "usage: mpi_osu [-m [min:]max] [-i iters] [-x warmup] [-r reps] [-f] [--csv] "
                        "[-d max_delay_us] [-c overlap_us] [-R root] [-o op,op...]   (--cold: not here; NODESHM_BENCH_REPS: default reps)\n");
    bad_args();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int quick = getenv("NODESHM_BENCH_QUICK") && atoi(getenv("NODESHM_BENCH_QUICK")) > 0;
    long min_bytes = 1, max_bytes = quick ? 4096 : 1 << 20;
    int iters = -1, warmup = 3, reps = quick ? 3 : 9, full = 0, csv = 0;
    const char *reps_env = getenv("NODESHM_BENCH_REPS"); /* the suite's setting; -r wins */
    if (reps_env && atoi(reps_env) > 0) reps = atoi(reps_env);
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-m") && i + 1 < argc) {
            char lo[64], *colon = strchr(argv[++i], ':');
            size_t a = min_bytes, b;
            snprintf(lo, sizeof lo, "%.*s", colon ? (int)(colon - argv[i]) : 0, argv[i]);
            if ((colon && bench_parse_bytes(lo, &a)) || bench_parse_bytes(colon ? colon + 1 : argv[i], &b) || a > b) {
                if (rank == 0)
                    fprintf(stderr, "mpi_osu: -m %s: expected [min:]max with min <= max, each %s\n",
                            argv[i], NODESHM_SIZE_SYNTAX);
                bad_args();
            }
            min_bytes = a, max_bytes = b;
        } else if (!strcmp(a, "-i") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(a, "-x") && i + 1 < argc) warmup = atoi(argv[++i]);
        else if (!strcmp(a, "-r") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(a, "-d") && i + 1 < argc) delay_max_ns = ns_arg("-d", argv[++i], "a delay", rank);
        else if (!strcmp(a, "-o") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(a, "-R") && i + 1 < argc) {
            char *end;
            long r = strtol(argv[++i], &end, 10);
            if (*end || r < 0 || r >= size) {
                if (rank == 0) fprintf(stderr, "mpi_osu: -R %s: expected a root rank, 0 to %d\n", argv[i], size - 1);
                bad_args();
            }
            root = (int)r;
        }
        else if (!strcmp(a, "-c") && i + 1 < argc) overlap_ns = ns_arg("-c", argv[++i], "a compute time", rank);
        else if (!strcmp(a, "-f")) full = 1;
        else if (!strcmp(a, "--csv")) csv = 1;
        else if (!strcmp(a, "--cold")) {
            if (rank == 0)
                fprintf(stderr, "mpi_osu: --cold: not supported here (the interposer's "
                                "collectives reuse their buffers); the buffer rotation is in "
                                "nodeshm-bench-p2p, -pairs and -dt\n");
            bad_args();
        } else usage(rank);
    }
    if (min_bytes < 1 || max_bytes < min_bytes || max_bytes > (1L << 30) || reps < 1 || warmup < 0)
        usage(rank);

    bufs_t b = {0};
    b.rank = rank;
    b.size = size;
    b.send = calloc((size_t)max_bytes * (size_t)size, 1);
    b.recv = calloc((size_t)max_bytes * (size_t)size, 1);
    b.counts = calloc((size_t)size, sizeof(int));
    b.displs = calloc((size_t)size, sizeof(int));
    double *tl = malloc(sizeof(double) * (size_t)reps), *tn = malloc(sizeof(double) * (size_t)reps);
    int max_iters = iters > 0 ? iters : 400;
    delays = calloc((size_t)max_iters, sizeof(long));
    if (!b.send || !b.recv || !b.counts || !b.displs || !tl || !tn || !delays) {
        fprintf(stderr, "mpi_osu: out of memory for %ld-byte buffers\n", max_bytes * size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* the interposer's state for MPI_COMM_WORLD: its non-blocking calls run there only after a
     * blocking one (the state is made collectively) */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        if (csv)
            printf("test,mechanism,bytes,param,pes,median_us,min_us,max_us,mbps\n");
        else {
            printf("# %d ranks: latency in us (median of %d), MPI library (PMPI_*) vs with "
                   "libnodeshm_mpi (MPI_*); ratio = MPI lib / nodeshm\n", size, reps);
            printf("# *_ovl rows: start, %g us of compute, wait; time = loop per call minus the compute\n",
                   overlap_ns / 1000.0);
            if (delay_max_ns)
                printf("# imbalance: each call after 0-%g us of compute per rank (same delays in both "
                       "columns); time = loop per call minus the busiest rank's compute\n",
                       delay_max_ns / 1000.0);
            printf("%-22s %9s %12s %12s %8s%s\n", "# op", "bytes", "MPI lib", "nodeshm", "ratio",
                   full ? "   lib min/max    nodeshm min/max" : "");
        }
    }
    for (int o = 0; o < NOPS; o++) {
        const op_desc_t *op = &ops[o];
        if (only) {
            char pat[64];
            snprintf(pat, sizeof pat, ",%s,", op->name);
            char list[512];
            snprintf(list, sizeof list, ",%s,", only);
            if (!strstr(list, pat)) continue;
        }
        long lo = op->sized ? (min_bytes < op->min_bytes ? op->min_bytes : min_bytes) : 0;
        for (long bytes = lo; bytes <= (op->sized ? max_bytes : 0); bytes = bytes ? bytes * 2 : 1) {
            if (op->sized && bytes % op->min_bytes) continue;
            int n = iters > 0 ? iters : quick ? 5 : bytes >= 262144 ? 20 : bytes >= 16384 ? 100 : 400;
            for (int w = 0; w < warmup; w++) {
                op->fn(1, &b, (int)bytes, MPI_COMM_WORLD);
                op->fn(0, &b, (int)bytes, MPI_COMM_WORLD);
            }
            for (int r = 0; r < reps; r++) { /* alternate: both see the same machine noise */
                if (delay_max_ns) make_delays(rank, o, bytes, r, n);
                tl[r] = batch(op, 1, &b, (int)bytes, n) * 1e6;
                tn[r] = batch(op, 0, &b, (int)bytes, n) * 1e6;
            }
            qsort(tl, (size_t)reps, sizeof(double), cmp);
            qsort(tn, (size_t)reps, sizeof(double), cmp);
            double ml = tl[reps / 2], mn = tn[reps / 2];
            if (rank == 0) {
                char name[64], rooted[16] = "";
                if (root && is_rooted(op->fn)) snprintf(rooted, sizeof rooted, "_root%d", root);
                if (delay_max_ns) snprintf(name, sizeof name, "%s%s_imb%g", op->name, rooted, delay_max_ns / 1000.0);
                else snprintf(name, sizeof name, "%s%s", op->name, rooted);
                if (csv) {
                    printf("%s,mpi_lib,%ld,0,%d,%.4f,%.4f,%.4f,0\n", name, bytes, size, ml, tl[0],
                           tl[reps - 1]);
                    printf("%s,nodeshm,%ld,0,%d,%.4f,%.4f,%.4f,0\n", name, bytes, size, mn, tn[0],
                           tn[reps - 1]);
                } else {
                    printf("%-22s %9ld %12.2f %12.2f %7.2fx", name, bytes, ml, mn, ml / mn);
                    if (full) printf("   %6.2f/%-8.2f %6.2f/%-8.2f", tl[0], tl[reps - 1], tn[0], tn[reps - 1]);
                    printf("\n");
                }
                fflush(stdout);
            }
            if (!op->sized) break;
        }
    }
    persist_free(0);
    persist_free(1);
    free(tl);
    free(tn);
    free(delays);
    free(b.send);
    free(b.recv);
    free(b.counts);
    free(b.displs);
    MPI_Finalize();
    return 0;
}
