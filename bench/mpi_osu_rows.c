/* The rows of bench/mpi_osu (mpi_osu.c measures them): one function per operation, called in
 * every form of mpi_osu.h (interposer or library, plain or _c), and the table of rows.  A row's
 * _c twin (ROW_C) is its function through the MPI-4 large-count entry MPI_<Op>_c (MPI_Count
 * counts, MPI_Aint displacements), where mpi.h has one: the same call otherwise, so its ratio
 * should be its plain row's (libnodeshm_mpi's _c entries run the plain entry's code, bigcount.c). */
#include "mpi_osu.h"

#include <stdlib.h>

int osu_root; /* -R: the rooted ops' root (0: a node leader; 1 on 2 hosts: not one) */
long osu_overlap_ns = 10000;

static void run_barrier(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    (void)b, (void)bytes;
    f & OSU_LIB ? PMPI_Barrier(comm) : MPI_Barrier(comm);
}

static void run_bcast(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    OSU_CALL(f, Bcast, b->send, bytes, MPI_BYTE, osu_root, comm);
}

static void run_allreduce(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    OSU_CALL(f, Allreduce, b->send, b->recv, bytes / 8, MPI_DOUBLE, MPI_SUM, comm);
}

static void run_gather(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    OSU_CALL(f, Gather, b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, osu_root, comm);
}

/* ---- gather/scatter family (gatherv, scatter, scatterv, allgather, allgatherv): add here */

/* rank r's count and displacement of a v-variant, in both forms' arrays */
static void set_v(bufs_t *b, int r, int count, int displ)
{
    b->counts[r] = count;
    b->ccounts[r] = count;
    b->displs[r] = displ;
    b->cdispls[r] = displ;
}

/* v-variants with uniform counts, like osu_gatherv & co: bytes per rank, rank order */
static void uniform_v(bufs_t *b, int bytes)
{
    for (int r = 0; r < b->size; r++) set_v(b, r, bytes, r * bytes);
}

static void run_gatherv(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    uniform_v(b, bytes);
    OSU_CALL2(f, Gatherv, (b->send, bytes, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, osu_root, comm),
              (b->send, bytes, MPI_BYTE, b->recv, b->ccounts, b->cdispls, MPI_BYTE, osu_root, comm));
}

static void run_scatter(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    OSU_CALL(f, Scatter, b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, osu_root, comm);
}

static void run_scatterv(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    uniform_v(b, bytes);
    OSU_CALL2(f, Scatterv, (b->send, b->counts, b->displs, MPI_BYTE, b->recv, bytes, MPI_BYTE, osu_root, comm),
              (b->send, b->ccounts, b->cdispls, MPI_BYTE, b->recv, bytes, MPI_BYTE, osu_root, comm));
}

static void run_allgather(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    OSU_CALL(f, Allgather, b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, comm);
}

static void run_allgatherv(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    uniform_v(b, bytes);
    OSU_CALL2(f, Allgatherv, (b->send, bytes, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, comm),
              (b->send, bytes, MPI_BYTE, b->recv, b->ccounts, b->cdispls, MPI_BYTE, comm));
}

/* ---- reduce/alltoall family (reduce, reduce_scatter_block, alltoall, alltoallv): add here */

static void run_reduce(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    OSU_CALL(f, Reduce, b->send, b->recv, bytes / 8, MPI_DOUBLE, MPI_SUM, osu_root, comm);
}

/* bytes: the whole vector (as osu_reduce_scatter counts it), bytes / size per rank */
static void run_reduce_scatter_block(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    OSU_CALL(f, Reduce_scatter_block, b->send, b->recv, bytes / 8 / b->size, MPI_DOUBLE, MPI_SUM, comm);
}

/* bytes per rank pair */
static void run_alltoall(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    OSU_CALL(f, Alltoall, b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, comm);
}

#define A2AV_ARGS(b, cnt, dsp) b->send, b->cnt, b->dsp, MPI_BYTE, b->recv, b->cnt, b->dsp, MPI_BYTE, comm

/* uniform counts, like osu_alltoallv: bytes per rank pair */
static void run_alltoallv(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    uniform_v(b, bytes);
    OSU_CALL2(f, Alltoallv, (A2AV_ARGS(b, counts, displs)), (A2AV_ARGS(b, ccounts, cdispls)));
}

/* like a remap between pencils (LAMMPS' PPPM with kspace_modify collective yes): each rank
 * exchanges with the ranks of its own parity only, the other blocks are empty */
static void run_alltoallv_sparse(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    for (int r = 0; r < b->size; r++) set_v(b, r, ((r ^ b->rank) & 1) ? 0 : bytes, r * bytes);
    OSU_CALL2(f, Alltoallv, (A2AV_ARGS(b, counts, displs)), (A2AV_ARGS(b, ccounts, cdispls)));
}

/* ---- scans, reduce_scatter, alltoallw */

/* message bytes (doubles, sum) */
static void run_scan(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    OSU_CALL(f, Scan, b->send, b->recv, bytes / 8, MPI_DOUBLE, MPI_SUM, comm);
}

static void run_exscan(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    OSU_CALL(f, Exscan, b->send, b->recv, bytes / 8, MPI_DOUBLE, MPI_SUM, comm);
}

/* bytes: the whole vector; irregular blocks, rank r's about (r + 1) shares of size (size + 1) / 2 */
static void run_reduce_scatter(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    int n = bytes / 8, left = n, shares = b->size * (b->size + 1) / 2;
    for (int r = 0; r < b->size; r++) {
        set_v(b, r, r == b->size - 1 ? left : (int)((long)n * (r + 1) / shares), 0);
        left -= b->counts[r];
    }
    OSU_CALL2(f, Reduce_scatter, (b->send, b->recv, b->counts, MPI_DOUBLE, MPI_SUM, comm),
              (b->send, b->recv, b->ccounts, MPI_DOUBLE, MPI_SUM, comm));
}

/* bytes per rank pair, like alltoallv's row, with a datatype per pair (all MPI_BYTE) */
static void run_alltoallw(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    static MPI_Datatype *t;
    if (!t && !(t = malloc(sizeof *t * (size_t)b->size))) MPI_Abort(comm, 1);
    for (int r = 0; r < b->size; r++) t[r] = MPI_BYTE;
    uniform_v(b, bytes);
    OSU_CALL2(f, Alltoallw, (b->send, b->counts, b->displs, t, b->recv, b->counts, b->displs, t, comm),
              (b->send, b->ccounts, b->cdispls, t, b->recv, b->ccounts, b->cdispls, t, comm));
}

/* ---- non-blocking forms: start, then wait at once (latency), or with osu_overlap_ns of compute
 * between (the _ovl rows: the time shown is the loop's minus that compute, what the collective
 * adds to it; a collective that progressed meanwhile adds little).  Roots 0. */
static void nb_wait(int f, MPI_Request *r, int ovl)
{
    if (ovl) osu_compute(osu_overlap_ns);
    f & OSU_LIB ? PMPI_Wait(r, MPI_STATUS_IGNORE) : MPI_Wait(r, MPI_STATUS_IGNORE);
}

static void ibarrier(int f, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    f & OSU_LIB ? PMPI_Ibarrier(comm, &r) : MPI_Ibarrier(comm, &r);
    nb_wait(f, &r, ovl);
}

static void ibcast(int f, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    OSU_CALL(f, Ibcast, b->send, bytes, MPI_BYTE, 0, comm, &r);
    nb_wait(f, &r, ovl);
}

static void iallreduce(int f, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    OSU_CALL(f, Iallreduce, b->send, b->recv, bytes / 8, MPI_DOUBLE, MPI_SUM, comm, &r);
    nb_wait(f, &r, ovl);
}

static void ireduce(int f, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    OSU_CALL(f, Ireduce, b->send, b->recv, bytes / 8, MPI_DOUBLE, MPI_SUM, 0, comm, &r);
    nb_wait(f, &r, ovl);
}

static void igather(int f, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    OSU_CALL(f, Igather, b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, 0, comm, &r);
    nb_wait(f, &r, ovl);
}

static void iscatter(int f, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    OSU_CALL(f, Iscatter, b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, 0, comm, &r);
    nb_wait(f, &r, ovl);
}

static void iallgather(int f, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    OSU_CALL(f, Iallgather, b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, comm, &r);
    nb_wait(f, &r, ovl);
}

/* v-forms with uniform counts (uniform_v), alltoall(v): bytes per rank (pair) */
static void igatherv(int f, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    uniform_v(b, bytes);
    OSU_CALL2(f, Igatherv, (b->send, bytes, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, 0, comm, &r),
              (b->send, bytes, MPI_BYTE, b->recv, b->ccounts, b->cdispls, MPI_BYTE, 0, comm, &r));
    nb_wait(f, &r, ovl);
}

static void iscatterv(int f, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    uniform_v(b, bytes);
    OSU_CALL2(f, Iscatterv, (b->send, b->counts, b->displs, MPI_BYTE, b->recv, bytes, MPI_BYTE, 0, comm, &r),
              (b->send, b->ccounts, b->cdispls, MPI_BYTE, b->recv, bytes, MPI_BYTE, 0, comm, &r));
    nb_wait(f, &r, ovl);
}

static void iallgatherv(int f, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    uniform_v(b, bytes);
    OSU_CALL2(f, Iallgatherv, (b->send, bytes, MPI_BYTE, b->recv, b->counts, b->displs, MPI_BYTE, comm, &r),
              (b->send, bytes, MPI_BYTE, b->recv, b->ccounts, b->cdispls, MPI_BYTE, comm, &r));
    nb_wait(f, &r, ovl);
}

static void ialltoall(int f, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    OSU_CALL(f, Ialltoall, b->send, bytes, MPI_BYTE, b->recv, bytes, MPI_BYTE, comm, &r);
    nb_wait(f, &r, ovl);
}

static void ialltoallv(int f, bufs_t *b, int bytes, MPI_Comm comm, int ovl)
{
    MPI_Request r;
    uniform_v(b, bytes);
    OSU_CALL2(f, Ialltoallv, (A2AV_ARGS(b, counts, displs), &r), (A2AV_ARGS(b, ccounts, cdispls), &r));
    nb_wait(f, &r, ovl);
}

/* as alltoallv_sparse: each rank with the ranks of its own parity only */
static void run_ialltoallv_sparse(int f, bufs_t *b, int bytes, MPI_Comm comm)
{
    MPI_Request r;
    for (int q = 0; q < b->size; q++) set_v(b, q, ((q ^ b->rank) & 1) ? 0 : bytes, q * bytes);
    OSU_CALL2(f, Ialltoallv, (A2AV_ARGS(b, counts, displs), &r), (A2AV_ARGS(b, ccounts, cdispls), &r));
    nb_wait(f, &r, 0);
}

static void run_igatherv(int f, bufs_t *b, int bytes, MPI_Comm comm) { igatherv(f, b, bytes, comm, 0); }
static void run_iscatterv(int f, bufs_t *b, int bytes, MPI_Comm comm) { iscatterv(f, b, bytes, comm, 0); }
static void run_iallgatherv(int f, bufs_t *b, int bytes, MPI_Comm comm) { iallgatherv(f, b, bytes, comm, 0); }
static void run_ialltoall(int f, bufs_t *b, int bytes, MPI_Comm comm) { ialltoall(f, b, bytes, comm, 0); }
static void run_ialltoallv(int f, bufs_t *b, int bytes, MPI_Comm comm) { ialltoallv(f, b, bytes, comm, 0); }
static void run_ialltoall_ovl(int f, bufs_t *b, int bytes, MPI_Comm comm) { ialltoall(f, b, bytes, comm, 1); }
static void run_ialltoallv_ovl(int f, bufs_t *b, int bytes, MPI_Comm comm) { ialltoallv(f, b, bytes, comm, 1); }

static void run_ireduce(int f, bufs_t *b, int bytes, MPI_Comm comm) { ireduce(f, b, bytes, comm, 0); }
static void run_igather(int f, bufs_t *b, int bytes, MPI_Comm comm) { igather(f, b, bytes, comm, 0); }
static void run_iscatter(int f, bufs_t *b, int bytes, MPI_Comm comm) { iscatter(f, b, bytes, comm, 0); }
static void run_iallgather(int f, bufs_t *b, int bytes, MPI_Comm comm) { iallgather(f, b, bytes, comm, 0); }
static void run_iallgather_ovl(int f, bufs_t *b, int bytes, MPI_Comm comm) { iallgather(f, b, bytes, comm, 1); }

static void run_ibarrier(int f, bufs_t *b, int bytes, MPI_Comm comm) { (void)b, (void)bytes, ibarrier(f, comm, 0); }
static void run_ibarrier_ovl(int f, bufs_t *b, int bytes, MPI_Comm comm) { (void)b, (void)bytes, ibarrier(f, comm, 1); }
static void run_ibcast(int f, bufs_t *b, int bytes, MPI_Comm comm) { ibcast(f, b, bytes, comm, 0); }
static void run_ibcast_ovl(int f, bufs_t *b, int bytes, MPI_Comm comm) { ibcast(f, b, bytes, comm, 1); }
static void run_iallreduce(int f, bufs_t *b, int bytes, MPI_Comm comm) { iallreduce(f, b, bytes, comm, 0); }
static void run_iallreduce_ovl(int f, bufs_t *b, int bytes, MPI_Comm comm) { iallreduce(f, b, bytes, comm, 1); }

/* ---- persistent forms (MPI-4 MPI_<Op>_init, where the MPI has them): one request per size,
 * form and column, made at its first call (the warm-up) and freed at the next; a call is
 * MPI_Start then MPI_Wait.  Roots 0, as the non-blocking rows. */
#ifdef NSM_HAVE_MPI_BCAST_INIT
typedef struct pslot {
    op_fn fn;
    int bytes, form;
    MPI_Request r;
} pslot_t;
static pslot_t pslot[2] = {{NULL, -1, 0, MPI_REQUEST_NULL}, {NULL, -1, 0, MPI_REQUEST_NULL}};

void osu_persist_free(int lib)
{
    if (pslot[lib].r != MPI_REQUEST_NULL) lib ? PMPI_Request_free(&pslot[lib].r) : MPI_Request_free(&pslot[lib].r);
    pslot[lib].fn = NULL;
}

enum { P_BARRIER, P_BCAST, P_ALLREDUCE, P_REDUCE, P_GATHER, P_SCATTER, P_ALLGATHER };
static void persist_run(int f, op_fn fn, int which, bufs_t *b, int bytes, MPI_Comm comm)
{
    int lib = f & OSU_LIB;
    pslot_t *s = &pslot[lib];
    if (s->fn != fn || s->bytes != bytes || s->form != f) {
        osu_persist_free(lib);
        int n = bytes / 8;
        void *sb = b->send, *rb = b->recv;
        MPI_Request *r = &s->r;
        MPI_Info in = MPI_INFO_NULL;
        switch (which) {
        case P_BARRIER: lib ? PMPI_Barrier_init(comm, in, r) : MPI_Barrier_init(comm, in, r); break;
        case P_BCAST: OSU_CALL(f, Bcast_init, sb, bytes, MPI_BYTE, 0, comm, in, r); break;
        case P_ALLREDUCE: OSU_CALL(f, Allreduce_init, sb, rb, n, MPI_DOUBLE, MPI_SUM, comm, in, r); break;
        case P_REDUCE: OSU_CALL(f, Reduce_init, sb, rb, n, MPI_DOUBLE, MPI_SUM, 0, comm, in, r); break;
        case P_GATHER: OSU_CALL(f, Gather_init, sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, 0, comm, in, r); break;
        case P_SCATTER: OSU_CALL(f, Scatter_init, sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, 0, comm, in, r); break;
        default: OSU_CALL(f, Allgather_init, sb, bytes, MPI_BYTE, rb, bytes, MPI_BYTE, comm, in, r);
        }
        s->fn = fn;
        s->bytes = bytes;
        s->form = f;
    }
    lib ? PMPI_Start(&s->r) : MPI_Start(&s->r);
    lib ? PMPI_Wait(&s->r, MPI_STATUS_IGNORE) : MPI_Wait(&s->r, MPI_STATUS_IGNORE);
}
#define PERSIST_ROW(name, which)                                                                   \
    static void run_##name(int f, bufs_t *b, int bytes, MPI_Comm comm)                             \
    {                                                                                              \
        persist_run(f, run_##name, which, b, bytes, comm);                                         \
    }
PERSIST_ROW(barrier_init, P_BARRIER)
PERSIST_ROW(bcast_init, P_BCAST)
PERSIST_ROW(allreduce_init, P_ALLREDUCE)
PERSIST_ROW(reduce_init, P_REDUCE)
PERSIST_ROW(gather_init, P_GATHER)
PERSIST_ROW(scatter_init, P_SCATTER)
PERSIST_ROW(allgather_init, P_ALLGATHER)
#else
void osu_persist_free(int lib) { (void)lib; }
#endif

/* A row {name, fn, sized, min_bytes, overlap, rooted, form} and, where mpi.h has MPI_<Name>_c,
 * its twin <name>_c right after it. */
#define ROW_C(Name, name, sized, min, ovl, rooted)                                                 \
    {#name, run_##name, sized, min, ovl, rooted, 0},                                               \
    NSM_IF_C_##Name({#name "_c", run_##name, sized, min, ovl, rooted, OSU_C},)

const op_desc_t osu_ops[] = {
    {"barrier", run_barrier, 0, 0, 0, 0, 0},
    ROW_C(Bcast, bcast, 1, 1, 0, 1)
    ROW_C(Gather, gather, 1, 1, 0, 1)
    /* gather/scatter family rows */
    ROW_C(Gatherv, gatherv, 1, 1, 0, 1)
    ROW_C(Scatter, scatter, 1, 1, 0, 1)
    ROW_C(Scatterv, scatterv, 1, 1, 0, 1)
    ROW_C(Allgather, allgather, 1, 1, 0, 0)
    ROW_C(Allgatherv, allgatherv, 1, 1, 0, 0)
    ROW_C(Allreduce, allreduce, 1, 8, 0, 0)
    /* reduce/alltoall family rows */
    ROW_C(Reduce, reduce, 1, 8, 0, 1)
    ROW_C(Reduce_scatter_block, reduce_scatter_block, 1, 64, 0, 0) /* 8 ranks x 1 double */
    ROW_C(Alltoall, alltoall, 1, 1, 0, 0)
    ROW_C(Alltoallv, alltoallv, 1, 1, 0, 0)
    {"alltoallv_sparse", run_alltoallv_sparse, 1, 1, 0, 0, 0},
    ROW_C(Scan, scan, 1, 8, 0, 0)
    ROW_C(Exscan, exscan, 1, 8, 0, 0)
    ROW_C(Reduce_scatter, reduce_scatter, 1, 64, 0, 0) /* 8 ranks x 1 double */
    ROW_C(Alltoallw, alltoallw, 1, 1, 0, 0)
    {"ibarrier", run_ibarrier, 0, 0, 0, 0, 0},
    ROW_C(Ibcast, ibcast, 1, 1, 0, 0)
    ROW_C(Iallreduce, iallreduce, 1, 8, 0, 0)
    ROW_C(Ireduce, ireduce, 1, 8, 0, 0)
    ROW_C(Igather, igather, 1, 1, 0, 0)
    ROW_C(Iscatter, iscatter, 1, 1, 0, 0)
    ROW_C(Iallgather, iallgather, 1, 1, 0, 0)
    ROW_C(Igatherv, igatherv, 1, 1, 0, 0)
    ROW_C(Iscatterv, iscatterv, 1, 1, 0, 0)
    ROW_C(Iallgatherv, iallgatherv, 1, 1, 0, 0)
    ROW_C(Ialltoall, ialltoall, 1, 1, 0, 0)
    ROW_C(Ialltoallv, ialltoallv, 1, 1, 0, 0)
    {"ialltoallv_sparse", run_ialltoallv_sparse, 1, 1, 0, 0, 0},
    {"ibarrier_ovl", run_ibarrier_ovl, 0, 0, 1, 0, 0},
    {"ibcast_ovl", run_ibcast_ovl, 1, 1, 1, 0, 0},
    {"iallreduce_ovl", run_iallreduce_ovl, 1, 8, 1, 0, 0},
    {"iallgather_ovl", run_iallgather_ovl, 1, 1, 1, 0, 0},
    {"ialltoall_ovl", run_ialltoall_ovl, 1, 1, 1, 0, 0},
    {"ialltoallv_ovl", run_ialltoallv_ovl, 1, 1, 1, 0, 0},
#ifdef NSM_HAVE_MPI_BCAST_INIT
    {"barrier_init", run_barrier_init, 0, 0, 0, 0, 0},
    ROW_C(Bcast_init, bcast_init, 1, 1, 0, 0)
    ROW_C(Allreduce_init, allreduce_init, 1, 8, 0, 0)
    ROW_C(Reduce_init, reduce_init, 1, 8, 0, 0)
    ROW_C(Gather_init, gather_init, 1, 1, 0, 0)
    ROW_C(Scatter_init, scatter_init, 1, 1, 0, 0)
    ROW_C(Allgather_init, allgather_init, 1, 1, 0, 0)
#endif
};
const int osu_nops = (int)(sizeof osu_ops / sizeof *osu_ops);
