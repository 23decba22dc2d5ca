/* libnodeshm_mpi: MPI_Ireduce, MPI_Igather, MPI_Iscatter, MPI_Iallgather on one node (and their
 * _c forms where the MPI has them); how the non-blocking collectives work: nonblocking.c.
 * Every start publishes what its peers need, so they complete without another call of ours:
 *   Ireduce     each rank copies its contribution into its slot; the root, once all are there,
 *               reduces them in node rank order into its receive buffer
 *   Igather     core/coll/gather.h's step form (gather.c): each rank but the root packs its block
 *               into its slot; the root copies its own and unpacks the others' as they arrive
 *   Iscatter    scatter.h's (scatter.c): the root packs every other rank's block into its slot
 *               and copies its own; each rank unpacks its own
 *   Iallgather  collect.h's (allgather.c): each rank packs its block into its slot; each
 *               unpacks all of them as they arrive
 * A rank whose part ends with its publication (a sender of Ireduce or Igather, the root of
 * Iscatter) is done at once.  Between nodes all four take the steps of nonblocking_nodes.c.  What goes to the MPI library: as in nonblocking.c; these decide on
 * the bytes of a block (the same on every rank, whatever the datatypes), and a datatype that is
 * not predefined is duplicated for the op's life. */
#include "mpi/nonblocking.h"
#include "nsm_bigcount_config.h"

#include <limits.h>
#include <string.h>

/* An op's block bytes checked against its window and the slots; else the call is handed over
 * (stats: why). */
static nsm_state_t *nb_rooted_state(int op, MPI_Comm comm, long long bytes, int root, int rooted)
{
    nsm_state_t *s = nsm_nb_state(op, comm, bytes);
    if (!s) return NULL;
    if (bytes < 0 || (rooted && (root < 0 || root >= s->size)) || (size_t)bytes > s->max[op] ||
        (bytes > 0 && (size_t)bytes < s->min[op]) || !nsm_nb_fits_blocks(s, (size_t)bytes)) {
        NSM_HAND(op, comm, s, 1, bytes, bytes < 0 ? NSM_WHY_DATATYPE : rooted && (root < 0 || root >= s->size) ? NSM_WHY_ARGS : NSM_WHY_STAGE);
        return NULL;
    }
    return s;
}

/* ---------------------------------------------------------------- MPI_Ireduce */

int nsm_nb_reduce_complete(nodeshm_nb_t *nb)
{
    nsm_nb_op_t *o = (nsm_nb_op_t *)nb;
    if (nsm_nb_me(nb) != o->root_nr) return 1; /* a sender: done once its slot is filled */
    if (!nodeshm_nb_all_arrived(nb)) return 0;
    nsm_nb_reduce_slots(nb, o->recvbuf);
    return 1;
}

NSM_BODY int accelerated_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                 int root, MPI_Comm comm, MPI_Request *request)
{
    int rc = nsm_nb_reduction(NSM_OP_IREDUCE, sendbuf, recvbuf, count, type, op, root, comm, request);
    return rc != NSM_HANDED_OVER ? rc : PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
}

NSM_STATS_TWIN(Ireduce, NSM_OP_IREDUCE,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request *request),
               (sendbuf, recvbuf, count, type, op, root, comm, request), nsm_stat_bytes(count, type))

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *request)
{
    if (NSM_STATS_ON) return stats_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
    return accelerated_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
}

/* ---------------------------------------------------------------- MPI_Igather, MPI_Iallgather */

/* Igather (root >= 0) or Iallgather (root -1) */
static int nb_gather(int op, const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root,
                     MPI_Comm comm, MPI_Request *request)
{
    int in_place = sb == MPI_IN_PLACE; /* Igather: the root's only */
    /* a block's bytes, the same on every rank (MPI: the signatures match) */
    long long bytes = in_place ? nsm_bytes(rc, rt) : nsm_bytes(sc, st);
    nsm_state_t *s = nb_rooted_state(op, comm, bytes, root, op == NSM_OP_IGATHER);
    if (!s) return NSM_HANDED_OVER;
    if (bytes == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return nsm_nb_empty(request);
    }
    const nsm_nb_steps_t *steps = op == NSM_OP_IGATHER ? &nsm_nb_gather_steps : &nsm_nb_allgather_steps;
    nsm_nb_op_t *o = nsm_nb_new(s, steps->publish, steps->complete, request);
    int receives = op == NSM_OP_IALLGATHER || s->rank == root;
    o->sendbuf = sb;
    o->recvbuf = rb;
    o->in_place = in_place && (op == NSM_OP_IALLGATHER || s->rank == root);
    o->scount = sc;
    o->rcount = rc;
    if (!o->in_place) nsm_nb_send_type(o, st);
    if (receives) {
        nsm_nb_recv_type(o, rt);
        MPI_Aint lb;
        nsm_extent(rt, &lb, &o->rext);
        o->rdense = nsm_is_dense(rt);
    }
    o->root_nr = op == NSM_OP_IGATHER ? root : -1;
    o->bytes = (size_t)bytes;
    /* Igather's root takes its own block from its send buffer and only reads the slots (between
     * nodes every rank puts its block into the stage) */
    int writes = s->n_nodes > 1 ? nsm_nb_nodes_steps(o, op) : !(op == NSM_OP_IGATHER && s->rank == root);
    nsm_nb_go(o, op, writes, (size_t)bytes);
    return MPI_SUCCESS;
}

NSM_BODY int accelerated_Igather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root,
                                 MPI_Comm comm, MPI_Request *request)
{
    int rc_ = nb_gather(NSM_OP_IGATHER, sb, sc, st, rb, rc, rt, root, comm, request);
    return rc_ != NSM_HANDED_OVER ? rc_ : PMPI_Igather(sb, sc, st, rb, rc, rt, root, comm, request);
}

NSM_STATS_TWIN(Igather, NSM_OP_IGATHER,
               (const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root, MPI_Comm comm,
                MPI_Request *request),
               (sb, sc, st, rb, rc, rt, root, comm, request),
               sb == MPI_IN_PLACE ? nsm_stat_bytes(rc, rt) : nsm_stat_bytes(sc, st))

int MPI_Igather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root, MPI_Comm comm,
                MPI_Request *request)
{
    if (NSM_STATS_ON) return stats_Igather(sb, sc, st, rb, rc, rt, root, comm, request);
    return accelerated_Igather(sb, sc, st, rb, rc, rt, root, comm, request);
}

NSM_BODY int accelerated_Iallgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                                    MPI_Comm comm, MPI_Request *request)
{
    int rc_ = nb_gather(NSM_OP_IALLGATHER, sb, sc, st, rb, rc, rt, -1, comm, request);
    return rc_ != NSM_HANDED_OVER ? rc_ : PMPI_Iallgather(sb, sc, st, rb, rc, rt, comm, request);
}

NSM_STATS_TWIN(Iallgather, NSM_OP_IALLGATHER,
               (const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Comm comm,
                MPI_Request *request),
               (sb, sc, st, rb, rc, rt, comm, request),
               sb == MPI_IN_PLACE ? nsm_stat_bytes(rc, rt) : nsm_stat_bytes(sc, st))

int MPI_Iallgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Comm comm,
                   MPI_Request *request)
{
    if (NSM_STATS_ON) return stats_Iallgather(sb, sc, st, rb, rc, rt, comm, request);
    return accelerated_Iallgather(sb, sc, st, rb, rc, rt, comm, request);
}

/* ---------------------------------------------------------------- MPI_Iscatter */

NSM_BODY int accelerated_Iscatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                                  int root, MPI_Comm comm, MPI_Request *request)
{
    int in_place = rb == MPI_IN_PLACE;
    long long bytes = in_place ? nsm_bytes(sc, st) : nsm_bytes(rc, rt);
    nsm_state_t *s = nb_rooted_state(NSM_OP_ISCATTER, comm, bytes, root, 1);
    if (!s) return PMPI_Iscatter(sb, sc, st, rb, rc, rt, root, comm, request);
    if (bytes == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return nsm_nb_empty(request);
    }
    nsm_nb_op_t *o = nsm_nb_new(s, nsm_nb_scatter_steps.publish, nsm_nb_scatter_steps.complete, request);
    int is_root = s->rank == root;
    o->sendbuf = sb;
    o->recvbuf = rb;
    o->in_place = is_root && in_place;
    o->scount = sc;
    o->rcount = rc;
    if (is_root) {
        nsm_nb_send_type(o, st);
        MPI_Aint lb;
        nsm_extent(st, &lb, &o->sext);
    }
    if (!o->in_place) nsm_nb_recv_type(o, rt);
    o->root_nr = root;
    o->bytes = (size_t)bytes;
    nsm_nb_go(o, NSM_OP_ISCATTER, s->n_nodes > 1 ? nsm_nb_nodes_steps(o, NSM_OP_ISCATTER) : is_root, (size_t)bytes);
    return MPI_SUCCESS;
}

NSM_STATS_TWIN(Iscatter, NSM_OP_ISCATTER,
               (const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root, MPI_Comm comm,
                MPI_Request *request),
               (sb, sc, st, rb, rc, rt, root, comm, request),
               rb == MPI_IN_PLACE ? nsm_stat_bytes(sc, st) : nsm_stat_bytes(rc, rt))

int MPI_Iscatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    if (NSM_STATS_ON) return stats_Iscatter(sb, sc, st, rb, rc, rt, root, comm, request);
    return accelerated_Iscatter(sb, sc, st, rb, rc, rt, root, comm, request);
}

/* ---------------------------------------------------------------- MPI-4 large counts
 * Counts the call ignores here go in as 0 (a non-root's of Igather, Iscatter's root's receive
 * count beside MPI_IN_PLACE...); a significant one above INT_MAX is a block of >= 2^31 bytes,
 * above every window, so every rank hands the call over (bigcount.c). */
static __attribute__((unused)) int nb_fits_int(MPI_Count c) { return c >= INT_MIN && c <= INT_MAX; }
static __attribute__((unused)) int nb_is_root(MPI_Comm comm, int root)
{
    int rank = -1;
    return PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == root;
}

NSM_IF_C_Ireduce(
int MPI_Ireduce_c(const void *sb, void *rb, MPI_Count count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    if (nb_fits_int(count)) {
        if (NSM_STATS_ON) return stats_Ireduce(sb, rb, (int)count, type, op, root, comm, request);
        return accelerated_Ireduce(sb, rb, (int)count, type, op, root, comm, request);
    }
    NSM_RETURN_COUNTED(NSM_OP_IREDUCE, NSM_WHY_LARGE, nsm_stat_bytes(count, type),
                       PMPI_Ireduce_c(sb, rb, count, type, op, root, comm, request));
})

NSM_IF_C_Igather(
int MPI_Igather_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb, MPI_Count rc, MPI_Datatype rt, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    MPI_Count s0 = sb == MPI_IN_PLACE ? 0 : sc, r0 = nb_is_root(comm, root) ? rc : 0;
    if (nb_fits_int(s0) && nb_fits_int(r0)) {
        if (NSM_STATS_ON) return stats_Igather(sb, (int)s0, st, rb, (int)r0, rt, root, comm, request);
        return accelerated_Igather(sb, (int)s0, st, rb, (int)r0, rt, root, comm, request);
    }
    NSM_RETURN_COUNTED(NSM_OP_IGATHER, NSM_WHY_LARGE, nsm_stat_bytes(sb == MPI_IN_PLACE ? rc : sc, sb == MPI_IN_PLACE ? rt : st),
                       PMPI_Igather_c(sb, sc, st, rb, rc, rt, root, comm, request));
})

NSM_IF_C_Iscatter(
int MPI_Iscatter_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb, MPI_Count rc, MPI_Datatype rt, int root,
                   MPI_Comm comm, MPI_Request *request)
{
    MPI_Count s0 = nb_is_root(comm, root) ? sc : 0, r0 = rb == MPI_IN_PLACE ? 0 : rc;
    if (nb_fits_int(s0) && nb_fits_int(r0)) {
        if (NSM_STATS_ON) return stats_Iscatter(sb, (int)s0, st, rb, (int)r0, rt, root, comm, request);
        return accelerated_Iscatter(sb, (int)s0, st, rb, (int)r0, rt, root, comm, request);
    }
    NSM_RETURN_COUNTED(NSM_OP_ISCATTER, NSM_WHY_LARGE, nsm_stat_bytes(rb == MPI_IN_PLACE ? sc : rc, rb == MPI_IN_PLACE ? st : rt),
                       PMPI_Iscatter_c(sb, sc, st, rb, rc, rt, root, comm, request));
})

NSM_IF_C_Iallgather(
int MPI_Iallgather_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb, MPI_Count rc, MPI_Datatype rt,
                     MPI_Comm comm, MPI_Request *request)
{
    MPI_Count s0 = sb == MPI_IN_PLACE ? 0 : sc;
    if (nb_fits_int(s0) && nb_fits_int(rc)) {
        if (NSM_STATS_ON) return stats_Iallgather(sb, (int)s0, st, rb, (int)rc, rt, comm, request);
        return accelerated_Iallgather(sb, (int)s0, st, rb, (int)rc, rt, comm, request);
    }
    NSM_RETURN_COUNTED(NSM_OP_IALLGATHER, NSM_WHY_LARGE, nsm_stat_bytes(sb == MPI_IN_PLACE ? rc : sc, sb == MPI_IN_PLACE ? rt : st),
                       PMPI_Iallgather_c(sb, sc, st, rb, rc, rt, comm, request));
})

