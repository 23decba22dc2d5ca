/* libnodeshm_mpi: MPI_Igatherv, MPI_Iscatterv, MPI_Iallgatherv here, MPI_Ialltoall and
 * MPI_Ialltoallv in nonblocking_a2a.c, on one node (and their _c forms where the MPI has them;
 * between nodes Iallgatherv, Ialltoall and Ialltoallv take nonblocking_nodes_v.c's steps, while
 * Igatherv and Iscatterv are the MPI library's there, as the blocking Gatherv and Scatterv: only
 * the root knows the counts): ops of the progress engine like the other non-blocking collectives
 * (nonblocking.c says how they work), on the blocking ops' layouts:
 *   Igatherv     a block of lo..hi bytes goes through its sender's slot, any other point to point
 *                (gatherv.c); the root copies the slot blocks out as their senders arrive
 *   Iscatterv    the root packs the blocks of lo..hi bytes into their receivers' slots and sends
 *                the others point to point (scatter.c); each rank takes its own
 *   Iallgatherv  every rank packs its block into its slot and copies all of them out (allgather.c)
 *   Ialltoall    every rank packs its row of the size x size matrix of T-byte blocks in the slots
 *                (alltoall.c's layout) and pulls its column as the senders arrive
 *   Ialltoallv   pair by pair (alltoallv_pairs.c): a block through the sender's row of the matrix
 *                at stride T when it fits, else point to point
 * Point-to-point halves go on nsm_p2p with the communicator's tag, posted at the start: every rank
 * starts a communicator's collectives in the same order, and MPI matches messages of one source,
 * tag and communicator in posting order, so each op's messages meet that op's receives.  They are
 * tested in the op's complete step, never waited for.
 *
 * Why every rank decides alike (a start cannot ask its peers):
 *   - the call as a whole (run here or handed to the MPI library) depends only on what every rank
 *     holds or passes alike: the communicator's state (one node, its windows and buffers, its
 *     point-to-point tag), the root, MPI_IN_PLACE for Ialltoall(v) and Iallgatherv (all ranks or
 *     none), and for Iallgatherv and Ialltoall the block sizes, which MPI makes the same on every
 *     rank (recvcounts and recvtype everywhere; one block signature);
 *   - Igatherv, Iscatterv and Ialltoallv never hand over a call they could run: only the root
 *     knows the v-counts (Ialltoallv: no rank knows them all), so each block's path is chosen from
 *     its own byte count, which both of its ends know (MPI's matching rule), against bounds every
 *     rank shares (the communicator's window, capped by its slots or matrix).
 * Counts are kept as long long and displacements as MPI_Aint, copied at the start, so a _c call
 * runs the same code unconverted: a block beyond an int is above every window and travels point to
 * point (MPI_Isend_c); a root's own block beyond an int, as a message to itself.
 *
 * Defaults (NSM_OPS), from bench/mpi_osu.c rows i<op> at 2, 4, 8 ranks, 8 B-64 KiB, medians of 5
 * alternating repetitions, 50 calls each, windows raised, at a load of 19-32 on 2 cores (other
 * engineers' test suites: every figure bimodal, single points off by 10-1000x either way):
 *   MPICH (its own take 25 us-30 ms here): iallgatherv 1.3-210x everywhere; ialltoall 1.5-370x,
 *   small ones at 4 and 8 ranks 0.73-1.2x (both columns at a time slice per call); ialltoallv
 *   0.93-190x: 64 KiB.  Igatherv, iscatterv with 1 MiB windows take the 2 banks for every size and
 *   run back-to-back calls in lockstep: 1-3 ms per small call, 0.03-0.3x (from 8 KiB 1.2-175x);
 *   at 4 KiB they take the 256-deep ring: 1.5-386x at 2 ranks, 0.34-2.7x at 4 and 8 ranks (both
 *   columns 20-240 us), and their point-to-point blocks above it 0.77-2.2x: 4 KiB.
 *   Open MPI (its own take 1 us-30 ms here): iallgatherv, ialltoall, ialltoallv 1.0-5.8x at most
 *   points up to 16 KiB (single points 0.1-0.5x), 0.58-0.94x at 32-64 KiB: 16 KiB.  Igatherv and
 *   iscatterv at 4 KiB win small blocks (1.4-2000x) but their point-to-point blocks above the
 *   window lost to Open MPI's own (8 ranks 0.16-0.94x, 4 ranks 0.75-0.91x), and no rank can hand
 *   such a call over alone: off (0), as the blocking gatherv and scatterv are there. */
#include "mpi/nonblocking.h"
#include "nsm_bigcount_config.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------- what the ops share */

nsm_nbv_t *nsm_nbv_new(nsm_state_t *s, nodeshm_nb_step_t publish, nodeshm_nb_step_t complete, MPI_Request *request,
                       int vectors, int nreq, size_t tmp)
{
    const size_t n = (size_t)s->size, head = NSM_NBV_ROUND(sizeof(nsm_nbv_t));
    const size_t c = NSM_NBV_ROUND(n * sizeof(long long)), d = NSM_NBV_ROUND(n * sizeof(MPI_Aint));
    const size_t r = NSM_NBV_ROUND((size_t)nreq * sizeof(MPI_Request));
    /* between nodes: the stage offsets, the leaders' counts and requests (nonblocking_nodes_v.c) */
    const size_t so = s->n_nodes > 1 ? NSM_NBV_ROUND((n + 1) * sizeof(size_t)) : 0;
    const size_t lv = s->n_nodes > 1 ? NSM_NBV_ROUND(4 * (size_t)s->n_nodes * sizeof(int)) : 0;
    const size_t lt = s->n_nodes > 1 ? NSM_NBV_ROUND(2 * (size_t)s->n_nodes * sizeof(MPI_Request)) : 0;
    nsm_nbv_t *v = (nsm_nbv_t *)nsm_nb_new_sized(s, publish, complete, request,
                                                 head + (size_t)vectors * (c + d) + r + so + lv + lt + tmp);
    char *p = (char *)v + head;
    if (vectors > 0) v->cnt = (long long *)p, v->dsp = (MPI_Aint *)(p + c), p += c + d;
    if (vectors > 1) v->rcnt = (long long *)p, v->rdsp = (MPI_Aint *)(p + c), p += c + d;
    v->req = (MPI_Request *)p, p += r;
    if (so) v->soff = (size_t *)p, v->lv = (int *)(p + so), v->lreq = (MPI_Request *)(p + so + lv), p += so + lv + lt;
    v->tmp = p;
    return v;
}

void nsm_nbv_take(long long *cnt, MPI_Aint *dsp, nsm_vec_t vec, int n)
{
    for (int r = 0; r < n; r++) {
        cnt[r] = nsm_vec_count(&vec, r);
        dsp[r] = (MPI_Aint)nsm_vec_displ(&vec, r);
    }
}

long long nsm_nbv_tsize(MPI_Datatype type)
{
    int known = nsm_known_size(type);
    MPI_Count size;
    if (known) return known;
    if (type == MPI_DATATYPE_NULL || PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0) return -1;
    return (long long)size;
}
MPI_Aint nsm_nbv_extent(MPI_Datatype type)
{
    MPI_Aint lb, extent = 0;
    nsm_extent(type, &lb, &extent);
    return extent;
}

void nsm_nbv_p2p(nsm_nbv_t *v, int send, const void *buf, long long count, MPI_Datatype type, int peer)
{
    nsm_state_t *s = v->o.s;
    nsm_p2p_start(send, (void *)buf, count, type, s->p2p_rank[peer], s->p2p_tag, &v->req[v->nreq++]);
}
int nsm_nbv_p2p_done(nsm_nbv_t *v)
{
    int flag = 1;
    if (v->nreq) PMPI_Testall(v->nreq, v->req, &flag, MPI_STATUSES_IGNORE);
    if (flag) v->nreq = 0;
    return flag;
}
/* A root's own block: copied at publish (nsm_copy) when its counts and bytes fit an int, else as a
 * message to itself posted at the start (nsm_copy packs with int counts and sizes). */
static int nbv_self_local(long long scount, long long rcount, size_t bytes)
{
    return scount <= INT_MAX && rcount <= INT_MAX && bytes <= INT_MAX;
}
static void nbv_self_p2p(nsm_nbv_t *v, const void *sb, long long sc, MPI_Datatype st, void *rb, long long rc,
                         MPI_Datatype rt)
{
    nsm_nbv_p2p(v, 0, rb, rc, rt, v->o.s->rank);
    nsm_nbv_p2p(v, 1, sb, sc, st, v->o.s->rank);
}

/* Igatherv's and Iscatterv's bound on a slot block for a window of `max`: the ring's slot when the
 * window fits it (those ops then take the ring), else a bank's slot; larger blocks go point to
 * point.  The need handed to the engine is this bound: the same on every rank. */
static size_t nbv_slot_cap(const nsm_state_t *s, size_t max)
{
    if (nodeshm_ring_fits(&s->area.ring, max)) return max;
    return max < s->area.banks.slot_bytes ? max : s->area.banks.slot_bytes;
}

#define NBV_VIA_SLOT(v, n) ((n) > 0 && (n) >= (v)->lo && (n) <= (v)->hi)

/* Igatherv's and Iscatterv's op: the fields both set (count: my scalar count; mine: its bytes). */
static nsm_nbv_t *nbv_rooted(nsm_state_t *s, nodeshm_nb_step_t publish, nodeshm_nb_step_t complete,
                             MPI_Request *request, int nreq, const nsm_nbv_t *bounds, const void *sb, void *rb,
                             int in_place, int root, long long count, size_t mine)
{
    nsm_nbv_t *v = nsm_nbv_new(s, publish, complete, request, s->rank == root, nreq, 0);
    nsm_nb_op_t *o = &v->o;
    o->sendbuf = sb;
    o->recvbuf = rb;
    o->in_place = in_place;
    o->root_nr = root;
    o->bytes = mine;
    v->mine = count;
    v->lo = bounds->lo;
    v->hi = bounds->hi;
    return v;
}
/* The root's blocks that do not go through a slot, point to point, posted now (send: Iscatterv). */
static void nbv_root_p2p(nsm_nbv_t *v, int send, const void *buf, MPI_Aint extent, MPI_Datatype type, size_t tsize)
{
    for (int r = 0; r < v->o.s->size; r++) {
        size_t n = nsm_nbv_bytes(v->cnt[r], tsize);
        if (r != v->o.root_nr && n && !NBV_VIA_SLOT(v, n))
            nsm_nbv_p2p(v, send, nsm_nbv_at(buf, v->dsp[r], extent), v->cnt[r], type, r);
    }
}

nsm_state_t *nsm_nbv_state(int op, MPI_Comm comm, int root, int rooted)
{
    nsm_state_t *s = nsm_nb_state(op, comm, -1);
    if (!s) return NULL;
    int bad_root = rooted && (root < 0 || root >= s->size);
    if (bad_root || s->p2p_tag < 0 || !s->max[op]) {
        NSM_HAND(op, comm, s, 1, -1, bad_root ? NSM_WHY_ARGS : NSM_WHY_ABOVE_MAX);
        return NULL;
    }
    return s;
}

int nsm_nbv_large(void)
{
    NSM_WHY(NSM_WHY_LARGE);
    return NSM_HANDED_OVER;
}

long long nsm_nbv_stat_wide(const MPI_Count *counts, MPI_Comm comm, int at, int sum, MPI_Datatype type)
{
    int n = counts ? nsm_stat_ranks(comm) : 0;
    long long bytes = 0;
    if (at < 0 && PMPI_Comm_rank(comm, &at) != MPI_SUCCESS) return 0;
    for (int r = 0; r < n; r++)
        if (sum || r == at) bytes += counts[r] > 0 ? (long long)counts[r] : 0;
    return nsm_stat_bytes(bytes, type);
}

/* ---------------------------------------------------------------- MPI_Igatherv */

static int gatherv_publish(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    nsm_nb_op_t *o = &v->o;
    const int root = o->root_nr;
    if (nsm_nb_me(nb) == root) {
        if (!o->in_place && nbv_self_local(v->mine, v->cnt[root], o->bytes))
            nsm_copy(nsm_nbv_at(o->recvbuf, v->dsp[root], o->rext), (int)v->cnt[root], o->rtype, o->sendbuf, (int)v->mine,
                     o->stype, o->bytes, o->s->comm);
    } else if (nb->writes) {
        nsm_pack(nodeshm_nb_slot(nb, nsm_nb_me(nb)), o->bytes, o->sendbuf, (int)v->mine, o->stype, o->s->comm);
    }
    nsm_nbv_arrive(nb);
    return 1;
}
static int gatherv_complete(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    nsm_nb_op_t *o = &v->o;
    if (nsm_nb_me(nb) == o->root_nr)
        for (; nb->next_peer < (unsigned)nsm_nb_members(nb); nb->next_peer++) {
            int r = (int)nb->next_peer; /* one node: node rank = comm rank */
            size_t n = nsm_nbv_bytes(v->cnt[r], v->rsize);
            if (r == o->root_nr || !NBV_VIA_SLOT(v, n)) continue;
            if (!nodeshm_nb_arrived(nb, r)) return 0;
            nsm_unpack_as(nsm_nbv_at(o->recvbuf, v->dsp[r], o->rext), (int)v->cnt[r], o->rtype, v->rdense,
                          nodeshm_nb_slot(nb, r), n, o->s->comm);
        }
    return nsm_nbv_p2p_done(v);
}

static int nbv_gatherv(const void *sb, long long sc, MPI_Datatype st, void *rb, nsm_vec_t rv, MPI_Datatype rt,
                       int root, MPI_Comm comm, MPI_Request *request)
{
    const int op = NSM_OP_IGATHERV;
    nsm_state_t *s = nsm_nbv_state(op, comm, root, 1);
    if (!s) return NSM_HANDED_OVER;
    const int at_root = s->rank == root, in_place = at_root && sb == MPI_IN_PLACE;
    const long long ssize = in_place ? 0 : nsm_nbv_tsize(st), rsize = at_root ? nsm_nbv_tsize(rt) : 0;
    /* bad arguments end the job here: the other ranks may be on this path already (gatherv.c) */
    if (!in_place && (ssize < 0 || sc < 0)) return nsm_bad_arg(comm, "MPI_Igatherv", "sendcount (or sendtype)", sc);
    if (at_root && (rsize < 0 || !rv.counts || !rv.displs))
        return nsm_bad_arg(comm, "MPI_Igatherv", "recvtype (or recvcounts, displs: NULL)", 0);
    nsm_nbv_t bounds = {.lo = s->min[op], .hi = nbv_slot_cap(s, s->max[op])};
    const size_t mine = nsm_nbv_bytes(sc, (size_t)ssize);
    int nreq = !at_root && mine && !NBV_VIA_SLOT(&bounds, mine);
    for (int r = 0; at_root && r < s->size; r++) {
        long long c = nsm_vec_count(&rv, r);
        if (c < 0) return nsm_bad_arg(comm, "MPI_Igatherv", "recvcounts[i]", c);
        size_t n = nsm_nbv_bytes(c, (size_t)rsize);
        nreq += r != root && n && !NBV_VIA_SLOT(&bounds, n);
    }
    const int self_p2p = at_root && !in_place && !nbv_self_local(sc, nsm_vec_count(&rv, root), mine);
    nsm_nbv_t *v = nbv_rooted(s, gatherv_publish, gatherv_complete, request, nreq + 2 * self_p2p, &bounds, sb, rb,
                              in_place, root, sc, mine);
    nsm_nb_op_t *o = &v->o;
    v->rsize = (size_t)rsize;
    if (!in_place) nsm_nb_send_type(o, st);
    if (at_root) {
        nsm_nb_recv_type(o, rt);
        o->rext = nsm_nbv_extent(o->rtype);
        v->rdense = nsm_is_dense(o->rtype);
        nsm_nbv_take(v->cnt, v->dsp, rv, s->size);
        nbv_root_p2p(v, 0, rb, o->rext, o->rtype, v->rsize);
        if (self_p2p) nbv_self_p2p(v, sb, sc, o->stype, nsm_nbv_at(rb, v->dsp[root], o->rext), v->cnt[root], o->rtype);
    } else if (nreq) {
        nsm_nbv_p2p(v, 1, sb, sc, o->stype, root);
    }
    /* a sender whose block goes through its slot writes it; the root only reads */
    nsm_nb_go(o, op, !at_root && NBV_VIA_SLOT(v, mine), v->hi);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- MPI_Iscatterv */

static int scatterv_publish(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    nsm_nb_op_t *o = &v->o;
    const int root = o->root_nr;
    if (nsm_nb_me(nb) == root) {
        for (int r = 0; r < nsm_nb_members(nb); r++) {
            size_t n = nsm_nbv_bytes(v->cnt[r], v->ssize);
            if (r != root && NBV_VIA_SLOT(v, n))
                nsm_pack_as(nodeshm_nb_slot(nb, r), n, nsm_nbv_at(o->sendbuf, v->dsp[r], o->sext), (int)v->cnt[r], o->stype,
                            v->sdense, o->s->comm);
        }
        if (!o->in_place && nbv_self_local(v->cnt[root], v->mine, o->bytes))
            nsm_copy(o->recvbuf, (int)v->mine, o->rtype, nsm_nbv_at(o->sendbuf, v->dsp[root], o->sext), (int)v->cnt[root],
                     o->stype, o->bytes, o->s->comm);
    }
    nsm_nbv_arrive(nb);
    return 1;
}
static int scatterv_complete(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    nsm_nb_op_t *o = &v->o;
    const int me = nsm_nb_me(nb);
    if (me != o->root_nr && NBV_VIA_SLOT(v, o->bytes)) {
        if (!nodeshm_nb_arrived(nb, o->root_nr)) return 0;
        nsm_unpack(o->recvbuf, (int)v->mine, o->rtype, nodeshm_nb_slot(nb, me), o->bytes, o->s->comm);
        return 1;
    }
    return nsm_nbv_p2p_done(v);
}

static int nbv_scatterv(const void *sb, nsm_vec_t sv, MPI_Datatype st, void *rb, long long rc, MPI_Datatype rt,
                        int root, MPI_Comm comm, MPI_Request *request)
{
    const int op = NSM_OP_ISCATTERV;
    nsm_state_t *s = nsm_nbv_state(op, comm, root, 1);
    if (!s) return NSM_HANDED_OVER;
    const int at_root = s->rank == root, in_place = at_root && rb == MPI_IN_PLACE;
    const long long ssize = at_root ? nsm_nbv_tsize(st) : 0, rsize = in_place ? 0 : nsm_nbv_tsize(rt);
    /* bad arguments end the job here: the other ranks may be on this path already (scatter.c) */
    if (!in_place && (rsize < 0 || rc < 0)) return nsm_bad_arg(comm, "MPI_Iscatterv", "recvcount (or recvtype)", rc);
    if (at_root && (ssize < 0 || !sv.counts || !sv.displs))
        return nsm_bad_arg(comm, "MPI_Iscatterv", "sendtype (or sendcounts, displs: NULL)", 0);
    nsm_nbv_t bounds = {.lo = s->min[op], .hi = nbv_slot_cap(s, s->max[op])};
    const size_t mine = nsm_nbv_bytes(rc, (size_t)rsize);
    int nreq = !at_root && mine && !NBV_VIA_SLOT(&bounds, mine), writes = 0;
    for (int r = 0; at_root && r < s->size; r++) {
        long long c = nsm_vec_count(&sv, r);
        if (c < 0) return nsm_bad_arg(comm, "MPI_Iscatterv", "sendcounts[i]", c);
        size_t n = nsm_nbv_bytes(c, (size_t)ssize);
        if (r == root || !n) continue;
        if (NBV_VIA_SLOT(&bounds, n)) writes = 1;
        else nreq++;
    }
    const int self_p2p = at_root && !in_place && !nbv_self_local(nsm_vec_count(&sv, root), rc, mine);
    nsm_nbv_t *v = nbv_rooted(s, scatterv_publish, scatterv_complete, request, nreq + 2 * self_p2p, &bounds, sb, rb,
                              in_place, root, rc, mine);
    nsm_nb_op_t *o = &v->o;
    v->ssize = (size_t)ssize;
    if (!in_place) nsm_nb_recv_type(o, rt);
    if (at_root) {
        nsm_nb_send_type(o, st);
        o->sext = nsm_nbv_extent(o->stype);
        v->sdense = nsm_is_dense(o->stype);
        nsm_nbv_take(v->cnt, v->dsp, sv, s->size);
        nbv_root_p2p(v, 1, sb, o->sext, o->stype, v->ssize);
        if (self_p2p) nbv_self_p2p(v, nsm_nbv_at(sb, v->dsp[root], o->sext), v->cnt[root], o->stype, rb, rc, o->rtype);
    } else if (nreq) {
        nsm_nbv_p2p(v, 0, rb, rc, o->rtype, root);
    }
    nsm_nb_go(o, op, writes, v->hi); /* the root writes its peers' slots; they only read */
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- MPI_Iallgatherv */

/* my block into my slot, between nodes into the stage (in place: from my place in recvbuf) */
static int allgatherv_publish(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    nsm_nb_op_t *o = &v->o;
    const int me = o->s->rank;
    if (o->bytes && o->in_place)
        nsm_pack_as(nsm_nbv_block(nb, me), o->bytes, nsm_nbv_at(o->recvbuf, v->dsp[me], o->rext), (int)v->cnt[me], o->rtype,
                    v->rdense, o->s->comm);
    else if (o->bytes)
        nsm_pack(nsm_nbv_block(nb, me), o->bytes, o->sendbuf, (int)v->mine, o->stype, o->s->comm);
    nsm_nbv_arrive(nb);
    return 1;
}
static int allgatherv_complete(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    nsm_nb_op_t *o = &v->o;
    for (const int me = nsm_nb_me(nb); nb->next_peer < (unsigned)nsm_nb_members(nb); nb->next_peer++) {
        int r = (int)nb->next_peer;
        size_t n = nsm_nbv_bytes(v->cnt[r], v->rsize);
        if (!n || (r == me && o->in_place)) continue;
        if (!nodeshm_nb_arrived(nb, r)) return 0;
        nsm_unpack_as(nsm_nbv_at(o->recvbuf, v->dsp[r], o->rext), (int)v->cnt[r], o->rtype, v->rdense, nodeshm_nb_slot(nb, r),
                      n, o->s->comm);
    }
    return 1;
}

static int nbv_allgatherv(const void *sb, long long sc, MPI_Datatype st, void *rb, nsm_vec_t rv, MPI_Datatype rt,
                          MPI_Comm comm, MPI_Request *request)
{
    const int op = NSM_OP_IALLGATHERV;
    nsm_state_t *s = nsm_nb_state(op, comm, -1);
    if (!s) return NSM_HANDED_OVER;
    /* recvcounts and recvtype's size are the same on every rank, so are largest and total */
    long long rsize = rv.counts && rv.displs ? nsm_nbv_tsize(rt) : -1;
    size_t largest = 0, total = 0;
    for (int r = 0; rsize >= 0 && r < s->size; r++) {
        long long c = nsm_vec_count(&rv, r);
        size_t n = nsm_nbv_bytes(c, (size_t)rsize);
        if (c < 0) rsize = -1; /* the MPI library reports it */
        if (n > largest) largest = n;
        total = total + n < total ? SIZE_MAX : total + n;
    }
    /* one node: my block in my slot; between nodes: all of them in the stage */
    if (rsize < 0 || !s->max[op] || largest > s->max[op] || largest < s->min[op] ||
        !(s->n_nodes > 1 ? nsm_nbv_nodes_fit(s, op, total) : nsm_nb_fits(s, largest, 0))) {
        NSM_HAND(op, comm, s, 1, rsize < 0 ? -1 : (long long)largest, rsize < 0 ? NSM_WHY_DATATYPE : NSM_WHY_STAGE);
        return NSM_HANDED_OVER;
    }
    if (!total) {
        NSM_WHY(NSM_WHY_EMPTY);
        return nsm_nb_empty(request);
    }
    nsm_nbv_t *v = nsm_nbv_new(s, allgatherv_publish, allgatherv_complete, request, 1, 0, 0);
    nsm_nb_op_t *o = &v->o;
    o->sendbuf = sb;
    o->recvbuf = rb;
    o->in_place = sb == MPI_IN_PLACE;
    v->mine = sc;
    v->rsize = (size_t)rsize;
    if (!o->in_place) nsm_nb_send_type(o, st);
    nsm_nb_recv_type(o, rt);
    o->rext = nsm_nbv_extent(o->rtype);
    v->rdense = nsm_is_dense(o->rtype);
    nsm_nbv_take(v->cnt, v->dsp, rv, s->size);
    o->bytes = nsm_nbv_bytes(v->cnt[s->rank], v->rsize); /* my block, <= largest: it fits my slot */
    nsm_nb_go(o, op, s->n_nodes > 1 ? nsm_nb_nodes_steps(o, op) : o->bytes != 0, largest);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- the entries */

NSM_BODY int accelerated_Igatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[], const int ds[],
                                  MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *request)
{
    int rc = nbv_gatherv(sb, sc, st, rb, (nsm_vec_t){rcs, ds, 0, NULL}, rt, root, comm, request);
    return rc != NSM_HANDED_OVER ? rc : PMPI_Igatherv(sb, sc, st, rb, rcs, ds, rt, root, comm, request);
}
NSM_STATS_TWIN(Igatherv, NSM_OP_IGATHERV,
               (const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[], const int ds[], MPI_Datatype rt,
                int root, MPI_Comm comm, MPI_Request *request),
               (sb, sc, st, rb, rcs, ds, rt, root, comm, request),
               sb == MPI_IN_PLACE ? nsm_stat_index(rcs, comm, root, rt) : nsm_stat_bytes(sc, st))
int MPI_Igatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[], const int ds[], MPI_Datatype rt,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    if (NSM_STATS_ON) return stats_Igatherv(sb, sc, st, rb, rcs, ds, rt, root, comm, request);
    return accelerated_Igatherv(sb, sc, st, rb, rcs, ds, rt, root, comm, request);
}

NSM_BODY int accelerated_Iscatterv(const void *sb, const int scs[], const int ds[], MPI_Datatype st, void *rb, int rc,
                                   MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *request)
{
    int rc_ = nbv_scatterv(sb, (nsm_vec_t){scs, ds, 0, NULL}, st, rb, rc, rt, root, comm, request);
    return rc_ != NSM_HANDED_OVER ? rc_ : PMPI_Iscatterv(sb, scs, ds, st, rb, rc, rt, root, comm, request);
}
NSM_STATS_TWIN(Iscatterv, NSM_OP_ISCATTERV,
               (const void *sb, const int scs[], const int ds[], MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                int root, MPI_Comm comm, MPI_Request *request),
               (sb, scs, ds, st, rb, rc, rt, root, comm, request),
               rb == MPI_IN_PLACE ? nsm_stat_index(scs, comm, root, st) : nsm_stat_bytes(rc, rt))
int MPI_Iscatterv(const void *sb, const int scs[], const int ds[], MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                  int root, MPI_Comm comm, MPI_Request *request)
{
    if (NSM_STATS_ON) return stats_Iscatterv(sb, scs, ds, st, rb, rc, rt, root, comm, request);
    return accelerated_Iscatterv(sb, scs, ds, st, rb, rc, rt, root, comm, request);
}

NSM_BODY int accelerated_Iallgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[], const int ds[],
                                     MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
    int rc = nbv_allgatherv(sb, sc, st, rb, (nsm_vec_t){rcs, ds, 0, NULL}, rt, comm, request);
    return rc != NSM_HANDED_OVER ? rc : PMPI_Iallgatherv(sb, sc, st, rb, rcs, ds, rt, comm, request);
}
NSM_STATS_TWIN(Iallgatherv, NSM_OP_IALLGATHERV,
               (const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[], const int ds[], MPI_Datatype rt,
                MPI_Comm comm, MPI_Request *request),
               (sb, sc, st, rb, rcs, ds, rt, comm, request),
               sb == MPI_IN_PLACE ? nsm_stat_index(rcs, comm, -1, rt) : nsm_stat_bytes(sc, st))
int MPI_Iallgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[], const int ds[], MPI_Datatype rt,
                    MPI_Comm comm, MPI_Request *request)
{
    if (NSM_STATS_ON) return stats_Iallgatherv(sb, sc, st, rb, rcs, ds, rt, comm, request);
    return accelerated_Iallgatherv(sb, sc, st, rb, rcs, ds, rt, comm, request);
}

/* ---------------------------------------------------------------- MPI-4 large counts
 * The plain entries' bodies on the MPI_Count/MPI_Aint arrays as they are (see the top). */

NSM_IF_C_Igatherv(
int MPI_Igatherv_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb, const MPI_Count rcs[], const MPI_Aint ds[],
                   MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *request)
{
    NSM_NBV_C_CALL(NSM_OP_IGATHERV,
                   sb == MPI_IN_PLACE ? nsm_nbv_stat_wide(rcs, comm, root, 0, rt) : nsm_stat_bytes(sc, st),
                   nbv_gatherv(sb, sc, st, rb, (nsm_vec_t){rcs, ds, 1, NULL}, rt, root, comm, request),
                   PMPI_Igatherv_c(sb, sc, st, rb, rcs, ds, rt, root, comm, request));
})

NSM_IF_C_Iscatterv(
int MPI_Iscatterv_c(const void *sb, const MPI_Count scs[], const MPI_Aint ds[], MPI_Datatype st, void *rb, MPI_Count rc,
                    MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *request)
{
    NSM_NBV_C_CALL(NSM_OP_ISCATTERV,
                   rb == MPI_IN_PLACE ? nsm_nbv_stat_wide(scs, comm, root, 0, st) : nsm_stat_bytes(rc, rt),
                   nbv_scatterv(sb, (nsm_vec_t){scs, ds, 1, NULL}, st, rb, rc, rt, root, comm, request),
                   PMPI_Iscatterv_c(sb, scs, ds, st, rb, rc, rt, root, comm, request));
})

NSM_IF_C_Iallgatherv(
int MPI_Iallgatherv_c(const void *sb, MPI_Count sc, MPI_Datatype st, void *rb, const MPI_Count rcs[],
                      const MPI_Aint ds[], MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
    NSM_NBV_C_CALL(NSM_OP_IALLGATHERV,
                   sb == MPI_IN_PLACE ? nsm_nbv_stat_wide(rcs, comm, -1, 0, rt) : nsm_stat_bytes(sc, st),
                   nbv_allgatherv(sb, sc, st, rb, (nsm_vec_t){rcs, ds, 1, NULL}, rt, comm, request),
                   PMPI_Iallgatherv_c(sb, sc, st, rb, rcs, ds, rt, comm, request));
})
