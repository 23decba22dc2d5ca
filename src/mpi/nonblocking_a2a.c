/* libnodeshm_mpi: MPI_Ialltoall and MPI_Ialltoallv on one node (and their _c forms where the MPI
 * has them); what they share with the v-forms, and why every rank decides alike: nonblocking_v.c.
 * Between nodes the starts here (the same stride, point-to-point blocks and publish steps, the
 * matrix in the leaders' stage) and nonblocking_nodes_v.c's remote and complete steps.
 *   Ialltoall    every rank packs its row of the size x size matrix of T-byte blocks in the slots
 *                (alltoall.c's layout) and pulls its column as the senders arrive; T is the block
 *                size, the same on every rank
 *   Ialltoallv   pair by pair (alltoallv_pairs.c): a block through the sender's row of the matrix
 *                at stride T (the communicator's window capped by what fits its slots: agreed) when
 *                it fits, else point to point; a rank waits only for the senders of the matrix
 *                blocks it takes
 * My own block stays where it is in place, is copied straight across when both datatypes are
 * dense, else travels as any other. */
#include "mpi/nonblocking.h"
#include "nsm_bigcount_config.h"

#include <limits.h>
#include <string.h>

/* ---------------------------------------------------------------- MPI_Ialltoall */

/* every rank's row of the matrix (between nodes in the stage: nonblocking_nodes_v.c moves it) */
static int alltoall_publish(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    nsm_nb_op_t *o = &v->o;
    const int me = o->s->rank;
    const size_t T = v->T, sstride = (size_t)o->scount * (size_t)o->sext, rstride = (size_t)o->rcount * (size_t)o->rext;
    char *matrix = nsm_nbv_matrix(nb);
    for (int r = 0; r < o->s->size; r++)
        if (r != me || !nsm_nbv_self_kept(v))
            nsm_pack_as(matrix + nsm_a2a_send_block(o->s, r) * T, T, (const char *)o->sendbuf + (size_t)r * sstride,
                        o->scount, o->stype, v->sdense, o->s->comm);
    if (!o->in_place && nsm_nbv_self_kept(v))
        memcpy((char *)o->recvbuf + (size_t)me * rstride, (const char *)o->sendbuf + (size_t)me * sstride, T);
    nsm_nbv_arrive(nb);
    return 1;
}
static int alltoall_complete(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    nsm_nb_op_t *o = &v->o;
    const size_t rstride = (size_t)o->rcount * (size_t)o->rext;
    for (const int me = nsm_nb_me(nb); nb->next_peer < (unsigned)nsm_nb_members(nb); nb->next_peer++) {
        int r = (int)nb->next_peer;
        if (r == me && nsm_nbv_self_kept(v)) continue;
        if (!nodeshm_nb_arrived(nb, r)) return 0;
        nsm_unpack_as((char *)o->recvbuf + (size_t)r * rstride, o->rcount, o->rtype, v->rdense,
                      nsm_a2a_recv_ptr(o->s, nb->bufs.slots, v->T, r), v->T, o->s->comm);
    }
    return 1;
}

static int nbv_alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Comm comm,
                        MPI_Request *request)
{
    const int op = NSM_OP_IALLTOALL, in_place = sb == MPI_IN_PLACE;
    /* the block's bytes: the signatures agree, so every rank computes the same value */
    long long b = (in_place ? rc : sc) == 0 ? 0 : in_place ? nsm_bytes(rc, rt) : nsm_bytes(sc, st);
    nsm_state_t *s = nsm_nb_state(op, comm, b);
    if (!s) return NSM_HANDED_OVER;
    if (b < 0 || !s->max[op] || (size_t)b > s->max[op] || (b > 0 && (size_t)b < s->min[op]) ||
        !(s->n_nodes > 1 ? nsm_nbv_nodes_fit(s, op, (size_t)b) : nsm_nb_fits(s, (size_t)b * (size_t)s->size, 0))) {
        NSM_HAND(op, comm, s, 1, b, b < 0 ? NSM_WHY_DATATYPE : NSM_WHY_STAGE);
        return NSM_HANDED_OVER;
    }
    if (nsm_alltoall_by_library(s, (size_t)b)) {
        NSM_HAND(op, comm, s, 1, b, NSM_WHY_LIBRARY);
        return NSM_HANDED_OVER;
    }
    if (!b) {
        NSM_WHY(NSM_WHY_EMPTY);
        return nsm_nb_empty(request);
    }
    nsm_nbv_t *v = nsm_nbv_new(s, alltoall_publish, alltoall_complete, request, 0, 0, 0);
    nsm_nb_op_t *o = &v->o;
    o->recvbuf = rb;
    o->rcount = rc;
    nsm_nb_recv_type(o, rt);
    o->in_place = in_place;
    if (in_place) { /* what I send is in recvbuf: packed into the matrix before anything lands there */
        o->sendbuf = rb;
        o->scount = rc;
        o->stype = o->rtype;
    } else {
        o->sendbuf = sb;
        o->scount = sc;
        nsm_nb_send_type(o, st);
    }
    o->sext = nsm_nbv_extent(o->stype);
    o->rext = nsm_nbv_extent(o->rtype);
    v->sdense = nsm_is_dense(o->stype);
    v->rdense = nsm_is_dense(o->rtype);
    v->T = o->bytes = (size_t)b;
    nsm_nb_go(o, op, s->n_nodes > 1 ? nsm_nb_nodes_steps(o, op) : 1, (size_t)b * (size_t)s->size);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- MPI_Ialltoallv */

/* my blocks that fit the stride into my row of the matrix; between nodes also my line for my
 * leader (nsm_a2av_note: the blocking Alltoallv's) */
static int alltoallv_publish(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    nsm_nb_op_t *o = &v->o;
    const nsm_state_t *s = o->s;
    const int me = s->rank;
    char *matrix = nsm_nbv_matrix(nb);
    int *line = s->n_nodes > 1 ? nsm_a2av_line(s, nb->bufs.result, s->node_rank) : NULL;
    for (int r = 0; r < s->size; r++) {
        size_t n = nsm_nbv_bytes(v->cnt[r], v->ssize);
        if (line) nsm_a2av_note(s, line, v->T, r, n, nsm_nbv_bytes(v->rcnt[r], v->rsize));
        if (!n) continue;
        if (r == me && nsm_nbv_self_kept(v)) {
            if (!o->in_place) /* dense both sides: the same bytes, whatever the size */
                memcpy(nsm_nbv_at(o->recvbuf, v->rdsp[me], o->rext), nsm_nbv_at(o->sendbuf, v->dsp[me], o->sext), n);
            continue;
        }
        if (n > v->T) continue;
        nsm_pack_as(matrix + nsm_a2a_send_block(s, r) * v->T, n, nsm_nbv_at(o->sendbuf, v->dsp[r], o->sext),
                    (int)v->cnt[r], o->stype, v->sdense, s->comm);
    }
    nsm_nbv_arrive(nb);
    return 1;
}
static int alltoallv_complete(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    nsm_nb_op_t *o = &v->o;
    for (const int me = nsm_nb_me(nb); nb->next_peer < (unsigned)nsm_nb_members(nb); nb->next_peer++) {
        int r = (int)nb->next_peer;
        size_t n = nsm_nbv_bytes(v->rcnt[r], v->rsize);
        if (!n || n > v->T || (r == me && nsm_nbv_self_kept(v))) continue;
        if (!nodeshm_nb_arrived(nb, r)) return 0;
        nsm_unpack_as(nsm_nbv_at(o->recvbuf, v->rdsp[r], o->rext), (int)v->rcnt[r], o->rtype, v->rdense,
                      nsm_a2a_recv_ptr(o->s, nb->bufs.slots, v->T, r), n, o->s->comm);
    }
    return nsm_nbv_p2p_done(v);
}

static int nbv_alltoallv(const void *sb, nsm_vec_t sv, MPI_Datatype st, void *rb, nsm_vec_t rv, MPI_Datatype rt,
                         MPI_Comm comm, MPI_Request *request)
{
    const int op = NSM_OP_IALLTOALLV, in_place = sb == MPI_IN_PLACE;
    /* agreed: the communicator's state, tag and window, so its stride; MPI_IN_PLACE (all or none) */
    nsm_state_t *s = nsm_nbv_state(op, comm, 0, 0);
    const size_t T = nsm_alltoallv_pairs_stride(s, op); /* between nodes: and the members' lines fit */
    if (!T) {
        if (s) NSM_HAND(op, comm, s, 1, -1, NSM_WHY_STAGE);
        return NSM_HANDED_OVER;
    }
    if (in_place) sb = rb, sv = rv, st = rt;
    const long long ssize = nsm_nbv_tsize(st), rsize = nsm_nbv_tsize(rt);
    if (ssize < 0 || rsize < 0 || !sv.counts || !sv.displs || !rv.counts || !rv.displs)
        return nsm_bad_arg(comm, "MPI_Ialltoallv", "sendtype or recvtype (or a NULL array)", 0);
    const int me = s->rank, kept = in_place || (nsm_is_dense(st) && nsm_is_dense(rt));
    MPI_Aint tlb = 0, text = 0, ext = in_place ? nsm_nbv_extent(rt) : 0;
    if (in_place) PMPI_Type_get_true_extent(rt, &tlb, &text);
    int nreq = 0;
    size_t tmp = 0;
    for (int r = 0; r < s->size; r++) {
        long long c = nsm_vec_count(&sv, r), d = nsm_vec_count(&rv, r);
        if (c < 0) return nsm_bad_arg(comm, "MPI_Ialltoallv", "sendcounts[i]", c);
        if (d < 0) return nsm_bad_arg(comm, "MPI_Ialltoallv", "recvcounts[i]", d);
        if (r == me && kept) continue;
        int out = nsm_nbv_bytes(c, (size_t)ssize) > T;
        nreq += out + (nsm_nbv_bytes(d, (size_t)rsize) > T);
        if (s->n_nodes > 1 && s->node_of[r] != s->my_node) /* room for a direct node pair's blocks */
            nreq += nsm_a2av_may_direct(nsm_nbv_bytes(c, (size_t)ssize), T) +
                    nsm_a2av_may_direct(nsm_nbv_bytes(d, (size_t)rsize), T);
        if (in_place && out) tmp += nsm_aside(NULL, NULL, c, ext, tlb, text);
    }
    nsm_nbv_t *v = nsm_nbv_new(s, alltoallv_publish, alltoallv_complete, request, 2, nreq, tmp);
    nsm_nb_op_t *o = &v->o;
    o->recvbuf = rb;
    o->in_place = in_place;
    nsm_nb_recv_type(o, rt);
    if (in_place) {
        o->stype = o->rtype;
    } else {
        nsm_nb_send_type(o, st);
    }
    o->sendbuf = sb;
    o->sext = nsm_nbv_extent(o->stype);
    o->rext = nsm_nbv_extent(o->rtype);
    v->sdense = nsm_is_dense(o->stype);
    v->rdense = nsm_is_dense(o->rtype);
    v->ssize = (size_t)ssize;
    v->rsize = (size_t)rsize;
    v->T = T;
    if (s->n_nodes > 1) v->ticket = s->a2av_tickets++;
    nsm_nbv_take(v->cnt, v->dsp, sv, s->size);
    nsm_nbv_take(v->rcnt, v->rdsp, rv, s->size);
    /* point to point: the copies aside first (in place), then the receives, then the sends */
    char *aside = v->tmp;
    int writes = 0;
    for (int r = 0; r < s->size; r++) {
        size_t n = nsm_nbv_bytes(v->cnt[r], v->ssize);
        if (!n || (r == me && kept)) continue;
        if (n <= T) writes = 1;
        else if (in_place) aside += nsm_aside(aside, nsm_nbv_at(rb, v->dsp[r], o->sext), v->cnt[r], o->sext, tlb, text);
    }
    for (int r = 0; r < s->size; r++)
        if (!(r == me && kept) && nsm_nbv_bytes(v->rcnt[r], v->rsize) > T)
            nsm_nbv_p2p(v, 0, nsm_nbv_at(rb, v->rdsp[r], o->rext), v->rcnt[r], o->rtype, r);
    aside = v->tmp;
    for (int r = 0; r < s->size; r++) {
        if ((r == me && kept) || nsm_nbv_bytes(v->cnt[r], v->ssize) <= T) continue;
        if (in_place) {
            nsm_nbv_p2p(v, 1, aside - tlb, v->cnt[r], o->stype, r);
            aside += nsm_aside(NULL, NULL, v->cnt[r], o->sext, tlb, text);
        } else {
            nsm_nbv_p2p(v, 1, nsm_nbv_at(sb, v->dsp[r], o->sext), v->cnt[r], o->stype, r);
        }
    }
    /* between nodes every rank writes its line */
    nsm_nb_go(o, op, s->n_nodes > 1 ? nsm_nb_nodes_steps(o, op) : writes, (size_t)s->size * T);
    return MPI_SUCCESS;
}

NSM_BODY int accelerated_Ialltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                                   MPI_Comm comm, MPI_Request *request)
{
    int rc_ = nbv_alltoall(sb, sc, st, rb, rc, rt, comm, request);
    return rc_ != NSM_HANDED_OVER ? rc_ : PMPI_Ialltoall(sb, sc, st, rb, rc, rt, comm, request);
}
NSM_STATS_TWIN(Ialltoall, NSM_OP_IALLTOALL,
               (const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Comm comm,
                MPI_Request *request),
               (sb, sc, st, rb, rc, rt, comm, request),
               sb == MPI_IN_PLACE ? nsm_stat_bytes((long long)rc * nsm_stat_ranks(comm), rt)
                                  : nsm_stat_bytes((long long)sc * nsm_stat_ranks(comm), st))
int MPI_Ialltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Comm comm,
                  MPI_Request *request)
{
    if (NSM_STATS_ON) return stats_Ialltoall(sb, sc, st, rb, rc, rt, comm, request);
    return accelerated_Ialltoall(sb, sc, st, rb, rc, rt, comm, request);
}

NSM_BODY int accelerated_Ialltoallv(const void *sb, const int scs[], const int sds[], MPI_Datatype st, void *rb,
                                    const int rcs[], const int rds[], MPI_Datatype rt, MPI_Comm comm,
                                    MPI_Request *request)
{
    int rc = nbv_alltoallv(sb, (nsm_vec_t){scs, sds, 0, NULL}, st, rb, (nsm_vec_t){rcs, rds, 0, NULL}, rt, comm, request);
    return rc != NSM_HANDED_OVER ? rc : PMPI_Ialltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm, request);
}
NSM_STATS_TWIN(Ialltoallv, NSM_OP_IALLTOALLV,
               (const void *sb, const int scs[], const int sds[], MPI_Datatype st, void *rb, const int rcs[],
                const int rds[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *request),
               (sb, scs, sds, st, rb, rcs, rds, rt, comm, request),
               sb == MPI_IN_PLACE ? nsm_stat_sum(rcs, comm, rt) : nsm_stat_sum(scs, comm, st))
int MPI_Ialltoallv(const void *sb, const int scs[], const int sds[], MPI_Datatype st, void *rb, const int rcs[],
                   const int rds[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
    if (NSM_STATS_ON) return stats_Ialltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm, request);
    return accelerated_Ialltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm, request);
}

/* ---------------------------------------------------------------- MPI-4 large counts
 * Ialltoallv_c runs the plain entry's body on its arrays as they are (nonblocking_v.c); in
 * Ialltoall_c a count beyond an int is a block of >= 2^31 bytes, above every window, so every
 * rank hands the call over (bigcount.c). */

NSM_IF_C_Ialltoall(
int MPI_Ialltoall_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb, MPI_Count rc, MPI_Datatype rt,
                    MPI_Comm comm, MPI_Request *request)
{
    MPI_Count s0 = sb == MPI_IN_PLACE ? 0 : sc; /* ignored beside MPI_IN_PLACE */
    int fits = s0 >= 0 && s0 <= INT_MAX && rc >= 0 && rc <= INT_MAX;
    NSM_NBV_C_CALL(NSM_OP_IALLTOALL,
                   nsm_stat_bytes((sb == MPI_IN_PLACE ? rc : sc) * nsm_stat_ranks(comm), sb == MPI_IN_PLACE ? rt : st),
                   fits ? nbv_alltoall(sb, (int)s0, st, rb, (int)rc, rt, comm, request) : nsm_nbv_large(),
                   PMPI_Ialltoall_c(sb, sc, st, rb, rc, rt, comm, request));
})

NSM_IF_C_Ialltoallv(
int MPI_Ialltoallv_c(const void *sb, const MPI_Count scs[], const MPI_Aint sds[], MPI_Datatype st, void *rb,
                     const MPI_Count rcs[], const MPI_Aint rds[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
    NSM_NBV_C_CALL(NSM_OP_IALLTOALLV,
                   sb == MPI_IN_PLACE ? nsm_nbv_stat_wide(rcs, comm, 0, 1, rt) : nsm_nbv_stat_wide(scs, comm, 0, 1, st),
                   nbv_alltoallv(sb, (nsm_vec_t){scs, sds, 1, NULL}, st, rb, (nsm_vec_t){rcs, rds, 1, NULL}, rt, comm, request),
                   PMPI_Ialltoallv_c(sb, scs, sds, st, rb, rcs, rds, rt, comm, request));
})
