/* libnodeshm_mpi: MPI-4 persistent collectives, the init calls: MPI_Barrier_init, MPI_Bcast_init,
 * MPI_Allreduce_init, MPI_Reduce_init, MPI_Gather_init, MPI_Scatter_init, MPI_Allgather_init and
 * their _c forms, each where the MPI has it (nsm_bigcount_config.h).  Each makes the MPI library's
 * own persistent request and records the op's arguments in an entry of ours as the non-blocking
 * op would take them (persistent_entry.h; what runs them at MPI_Start, and why: persistent.c). */
#include "mpi/persistent_entry.h"

#include <limits.h>

/* ---------------------------------------------------------------- the init calls */

NSM_IF_INIT_Barrier(
int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = PMPI_Barrier_init(comm, info, request);
    nsm_persist_t *e = nsm_persist_new(rc, NSM_OP_BARRIER_INIT, K_BARRIER, comm, request);
    return e ? nsm_persist_add(e) : rc;
})

NSM_IF_INIT_Bcast(
int MPI_Bcast_init(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info,
                   MPI_Request *request)
{
    int rc = PMPI_Bcast_init(buf, count, type, root, comm, info, request);
    nsm_persist_t *e = nsm_persist_new(rc, NSM_OP_BCAST_INIT, K_BCAST, comm, request);
    if (!e) return rc;
    e->bytes = nsm_bytes(count, type);
    e->stat_bytes = nsm_stat_bytes(count, type);
    e->root = e->t.root_nr = root; /* one node: node rank = comm rank */
    e->rooted = e->result = 1;
    e->writes = e->me == root; /* the root packs its message; the others read it */
    e->t.recvbuf = buf;
    e->t.rcount = count;
    if (e->how != P_LIBRARY) nsm_nb_recv_type(&e->t, type);
    return nsm_persist_add(e);
})

/* Allreduce_init (root -1), Reduce_init */
static __attribute__((unused)) int p_reduction(int rc, int id, int kind, const void *sb, void *rb, int count,
                                               MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                                               const MPI_Request *request)
{
    nsm_persist_t *e = nsm_persist_new(rc, id, kind, comm, request);
    if (!e) return rc;
    e->bytes = nsm_nb_reduction_bytes(count, type, op); /* -1: not a predefined type and op */
    e->stat_bytes = nsm_stat_bytes(count, type);
    e->root = e->t.root_nr = root;
    e->rooted = kind == K_REDUCE;
    e->writes = 1;
    e->t.sendbuf = sb;
    e->t.recvbuf = rb;
    e->t.in_place = sb == MPI_IN_PLACE && (kind == K_ALLREDUCE || e->me == root);
    e->t.rcount = count;
    e->t.rtype = type; /* predefined where it runs here */
    e->t.op = op;
    return nsm_persist_add(e);
}

NSM_IF_INIT_Allreduce(
int MPI_Allreduce_init(const void *sb, void *rb, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                       MPI_Info info, MPI_Request *request)
{
    int rc = PMPI_Allreduce_init(sb, rb, count, type, op, comm, info, request);
    return p_reduction(rc, NSM_OP_ALLREDUCE_INIT, K_ALLREDUCE, sb, rb, count, type, op, -1, comm, request);
})

NSM_IF_INIT_Reduce(
int MPI_Reduce_init(const void *sb, void *rb, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    int rc = PMPI_Reduce_init(sb, rb, count, type, op, root, comm, info, request);
    return p_reduction(rc, NSM_OP_REDUCE_INIT, K_REDUCE, sb, rb, count, type, op, root, comm, request);
})

/* Gather_init (root >= 0), Allgather_init (root -1): as nonblocking_rooted.c's nb_gather */
static __attribute__((unused)) int p_gather(int rc, int id, int kind, const void *sb, int sc, MPI_Datatype st, void *rb,
                                            int rcount, MPI_Datatype rt, int root, MPI_Comm comm,
                                            const MPI_Request *request)
{
    nsm_persist_t *e = nsm_persist_new(rc, id, kind, comm, request);
    if (!e) return rc;
    int in_place = sb == MPI_IN_PLACE;
    e->bytes = in_place ? nsm_bytes(rcount, rt) : nsm_bytes(sc, st);
    e->stat_bytes = in_place ? nsm_stat_bytes(rcount, rt) : nsm_stat_bytes(sc, st);
    e->root = root;
    e->rooted = kind == K_GATHER;
    int receives = kind == K_ALLGATHER || e->me == root;
    e->t.sendbuf = sb;
    e->t.recvbuf = rb;
    e->t.in_place = in_place && receives;
    e->t.scount = sc;
    e->t.rcount = rcount;
    e->t.root_nr = kind == K_GATHER ? root : -1;
    /* Gather's root takes its own block from its send buffer: it only reads the slots */
    e->writes = !(kind == K_GATHER && e->me == root);
    if (e->how != P_LIBRARY) {
        if (!e->t.in_place) nsm_nb_send_type(&e->t, st);
        if (receives) {
            nsm_nb_recv_type(&e->t, rt);
            MPI_Aint lb;
            nsm_extent(rt, &lb, &e->t.rext);
            e->t.rdense = nsm_is_dense(rt);
        }
    }
    return nsm_persist_add(e);
}

NSM_IF_INIT_Gather(
int MPI_Gather_init(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int r = PMPI_Gather_init(sb, sc, st, rb, rc, rt, root, comm, info, request);
    return p_gather(r, NSM_OP_GATHER_INIT, K_GATHER, sb, sc, st, rb, rc, rt, root, comm, request);
})

NSM_IF_INIT_Allgather(
int MPI_Allgather_init(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Comm comm,
                       MPI_Info info, MPI_Request *request)
{
    int r = PMPI_Allgather_init(sb, sc, st, rb, rc, rt, comm, info, request);
    return p_gather(r, NSM_OP_ALLGATHER_INIT, K_ALLGATHER, sb, sc, st, rb, rc, rt, -1, comm, request);
})

NSM_IF_INIT_Scatter(
int MPI_Scatter_init(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int r = PMPI_Scatter_init(sb, sc, st, rb, rc, rt, root, comm, info, request);
    nsm_persist_t *e = nsm_persist_new(r, NSM_OP_SCATTER_INIT, K_SCATTER, comm, request);
    if (!e) return r;
    int in_place = rb == MPI_IN_PLACE, is_root = e->me == root;
    e->bytes = in_place ? nsm_bytes(sc, st) : nsm_bytes(rc, rt);
    e->stat_bytes = in_place ? nsm_stat_bytes(sc, st) : nsm_stat_bytes(rc, rt);
    e->root = e->t.root_nr = root;
    e->rooted = 1;
    e->writes = is_root; /* the root packs every block */
    e->t.sendbuf = sb;
    e->t.recvbuf = rb;
    e->t.in_place = is_root && in_place;
    e->t.scount = sc;
    e->t.rcount = rc;
    if (e->how != P_LIBRARY) {
        if (is_root) {
            nsm_nb_send_type(&e->t, st);
            MPI_Aint lb;
            nsm_extent(st, &lb, &e->t.sext);
        }
        if (!e->t.in_place) nsm_nb_recv_type(&e->t, rt);
    }
    return nsm_persist_add(e);
})

/* ---------------------------------------------------------------- MPI-4 large counts
 * As bigcount.c: counts that fit an int (those the call ignores here as 0) run the plain entry;
 * a larger one is a message of >= 2^31 bytes, above every window: the library's on every rank. */

static __attribute__((unused)) int p_fits(MPI_Count c) { return c >= INT_MIN && c <= INT_MAX; }
static __attribute__((unused)) int p_is_root(MPI_Comm comm, int root)
{
    int rank = -1;
    return PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == root;
}
/* a start of a large one, counted (stats on) as the library's */
static __attribute__((unused)) int p_large(int rc, int id, int kind, MPI_Comm comm, const MPI_Request *request,
                                           long long bytes)
{
    if (!NSM_STATS_ON || rc != MPI_SUCCESS) return rc;
    nsm_persist_t *e = nsm_persist_new(rc, id, kind, comm, request);
    if (!e) return rc;
    e->stat_bytes = bytes;
    if (e->how != P_LIBRARY) nsm_persist_library(e, NSM_WHY_LARGE);
    return nsm_persist_add(e);
}

NSM_IF_C_Bcast_init(
int MPI_Bcast_init_c(void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    if (count >= 0 && count <= INT_MAX) return MPI_Bcast_init(buf, (int)count, type, root, comm, info, request);
    int rc = PMPI_Bcast_init_c(buf, count, type, root, comm, info, request);
    return p_large(rc, NSM_OP_BCAST_INIT, K_BCAST, comm, request, nsm_stat_bytes(count, type));
})

NSM_IF_C_Allreduce_init(
int MPI_Allreduce_init_c(const void *sb, void *rb, MPI_Count count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    if (count >= 0 && count <= INT_MAX)
        return MPI_Allreduce_init(sb, rb, (int)count, type, op, comm, info, request);
    int rc = PMPI_Allreduce_init_c(sb, rb, count, type, op, comm, info, request);
    return p_large(rc, NSM_OP_ALLREDUCE_INIT, K_ALLREDUCE, comm, request, nsm_stat_bytes(count, type));
})

NSM_IF_C_Reduce_init(
int MPI_Reduce_init_c(const void *sb, void *rb, MPI_Count count, MPI_Datatype type, MPI_Op op, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    if (count >= 0 && count <= INT_MAX)
        return MPI_Reduce_init(sb, rb, (int)count, type, op, root, comm, info, request);
    int rc = PMPI_Reduce_init_c(sb, rb, count, type, op, root, comm, info, request);
    return p_large(rc, NSM_OP_REDUCE_INIT, K_REDUCE, comm, request, nsm_stat_bytes(count, type));
})

NSM_IF_C_Gather_init(
int MPI_Gather_init_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb, MPI_Count rc, MPI_Datatype rt,
                      int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_Count s0 = sb == MPI_IN_PLACE ? 0 : sc, r0 = p_is_root(comm, root) ? rc : 0;
    if (p_fits(s0) && p_fits(r0))
        return MPI_Gather_init(sb, (int)s0, st, rb, (int)r0, rt, root, comm, info, request);
    int r = PMPI_Gather_init_c(sb, sc, st, rb, rc, rt, root, comm, info, request);
    return p_large(r, NSM_OP_GATHER_INIT, K_GATHER, comm, request,
                   sb == MPI_IN_PLACE ? nsm_stat_bytes(rc, rt) : nsm_stat_bytes(sc, st));
})

NSM_IF_C_Allgather_init(
int MPI_Allgather_init_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb, MPI_Count rc, MPI_Datatype rt,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_Count s0 = sb == MPI_IN_PLACE ? 0 : sc;
    if (p_fits(s0) && p_fits(rc))
        return MPI_Allgather_init(sb, (int)s0, st, rb, (int)rc, rt, comm, info, request);
    int r = PMPI_Allgather_init_c(sb, sc, st, rb, rc, rt, comm, info, request);
    return p_large(r, NSM_OP_ALLGATHER_INIT, K_ALLGATHER, comm, request,
                   sb == MPI_IN_PLACE ? nsm_stat_bytes(rc, rt) : nsm_stat_bytes(sc, st));
})

NSM_IF_C_Scatter_init(
int MPI_Scatter_init_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb, MPI_Count rc, MPI_Datatype rt,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_Count s0 = p_is_root(comm, root) ? sc : 0, r0 = rb == MPI_IN_PLACE ? 0 : rc;
    if (p_fits(s0) && p_fits(r0))
        return MPI_Scatter_init(sb, (int)s0, st, rb, (int)r0, rt, root, comm, info, request);
    int r = PMPI_Scatter_init_c(sb, sc, st, rb, rc, rt, root, comm, info, request);
    return p_large(r, NSM_OP_SCATTER_INIT, K_SCATTER, comm, request,
                   rb == MPI_IN_PLACE ? nsm_stat_bytes(sc, st) : nsm_stat_bytes(rc, rt));
})
