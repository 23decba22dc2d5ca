/* libnodeshm_mpi: MPI_Iallgatherv, MPI_Ialltoall and MPI_Ialltoallv between nodes: the steps
 * nonblocking_v.c's and nonblocking_a2a.c's starts take on a communicator that spans nodes (real
 * ones, pseudo-nodes, emulated hosts), in the blocking ops' shape (allgather.c, alltoall.c) on the
 * engine's steps, as the other ops there (nonblocking_nodes.c: a node fan-in, the leader's
 * non-blocking call on the leaders' communicator as the op's remote part, the node's release):
 *   Iallgatherv  every rank packs its block into the stage, node by node at the blocks' offsets
 *                (allgather.c's layout); the leader, once all are there, PMPI_Iallgatherv's the
 *                node runs in place; everyone unpacks all once released
 *   Ialltoall    every rank packs its row of the matrix into the stage (alltoall.c's layout: what
 *                the node sends to node k is one run); the leader, once all are there, starts
 *                PMPI_Ialltoallv of the runs into the stage's receive half; a rank takes its own
 *                node's blocks as their senders arrive, the other nodes' once released
 *   Ialltoallv   pair by pair as on one node (nonblocking_a2a.c): a block of at most T bytes (the
 *                window capped by the stage's matrix, agreed) through the matrix, a larger one
 *                point to point, posted at the start (both ends know its size).  With its row a
 *                rank publishes its line, as the blocking Alltoallv's members do
 *                (alltoallv_pairs.c): per rank of another node the bytes of its matrix block to
 *                it and from it.  The leader, once all are there, posts the blocking op's
 *                exchange (nsm_a2av_leaders_post): per node pair one receive and one send of
 *                exactly those blocks' bytes, nothing where there are none; it tests them at each
 *                progress pass and then releases the node; then as Ialltoall.  A direct node pair
 *                (nsm_a2av_pair_direct: MPICH, sparse, small blocks) is left out by the leaders:
 *                its blocks go rank to rank, posted once the rank's node has arrived, on
 *                nsm_p2p_late, in call order
 * Why every rank decides alike: Iallgatherv and Ialltoall as on one node (block sizes every rank
 * passes alike; the stage's size); Ialltoallv, once its stride and the members' lines fit (agreed
 * values: nsm_alltoallv_pairs_stride, as the blocking op), never hands a call over, and its
 * leaders need no round among them: the bytes of a block from node i to node k are in its
 * sender's line on node i and in its receiver's on node k (MPI: both ends of a pair know its
 * size), so both leaders build matching types.  (A first form agreed on one size for all by a
 * leaders' PMPI_Iallreduce(MAX) before the exchange, two calls in one remote step: Open MPI 2
 * hosts x 2, loaded, 0.38-0.87x of its own ialltoallv where ialltoall won 1.1-2.2x; moving whole
 * T-byte blocks instead, 0.40-0.74x.  A second one moved, per node pair, every block at the
 * largest block's size, from per-node votes, by one PMPI_Ialltoallw of the leaders: a second
 * form of what the blocking op's leaders do with each block's own bytes, replaced by it.)
 *
 * Measured (bench/mpi_osu.c rows iallgatherv, ialltoall, ialltoallv, 8 B-64 KiB, windows widened
 * to 64 KiB, oshrun --hosts 2, -i 100 -r 7, each row's two columns alternating in the same run;
 * 2 runs per MPI and shape, the MPIs taken in turn and then in reverse order; load 12-19 on
 * 2 cores, other engineers' jobs running: a loaded A/B only, ratio = library / nodeshm per run):
 *   MPICH 5.0, 2 per host: iallgatherv 0.46-0.90x below 8 KiB (8 B-16 B 1.08-1.10x in one run),
 *   1.00-1.26x from 8 KiB; ialltoall 0.48-0.90x to 512 B, mixed to 4 KiB, 1.00-1.48x at 8-16 KiB;
 *   ialltoallv 0.61-0.83x to 128 B in one run (1.03-1.12x in the other), 1.04-2.40x from 256 B.
 *   4 per host: iallgatherv 1.1-3.7x but single points 0.31-0.97x (32 B, 128 B, 512 B, 4 KiB);
 *   ialltoall 1.2-2.4x but 0.42-0.94x at 16-128 B and 0.63x at 2 KiB in one run; ialltoallv
 *   0.62-1.78x, losses at 32-256 B and from 4 KiB.
 *   Open MPI 5.0, 2 per host: iallgatherv 0.98-2.37x to 16 KiB (32 KiB 0.71/1.05x); ialltoall
 *   1.15-2.54x to 8 KiB, 0.71-0.87x at 16-32 KiB; ialltoallv 1.10-1.78x to 1 KiB and at 4-8 KiB,
 *   but 0.29x at 2 KiB in one run (1.30x in the other), 0.52-0.77x at 16-32 KiB.  4 per host:
 *   iallgatherv 1.04-5.4x to 8 KiB, ialltoall 1.66-4.64x to 8 KiB, ialltoallv 1.01-3.34x to 8 KiB;
 *   but Ialltoallv's window is its stride: larger blocks go point to point inside the op, no size
 *   band can be left to the library, and with an 8 KiB stride at 4 per host its 16-64 KiB blocks
 *   took 0.61-1.03x (2 runs, load 15-16).
 * Then quiet (the lead alone, load 3-6; windows widened to 64 KiB; 2 runs at 2 per host, 1 at 4;
 * same-run ratio library / nodeshm per size):
 *   MPICH 2 per host: iallgatherv 1.02-2.01x at every size to 64 KiB; ialltoall 1.37-1.66x but
 *   0.88-0.90x at 64-128 B in both runs (a dip a window cannot skip), 1.02x at 64 KiB; ialltoallv
 *   1.09-2.29x.  4 per host: iallgatherv 1.28-2.34x; ialltoall 1.38-2.63x to 16 KiB, 1.00x at
 *   32 KiB, 0.75x at 64 KiB; ialltoallv 0.85x at 4 KiB, 0.68x at 8 KiB.
 *   Open MPI 2 per host: iallgatherv 1.20-2.20x to 16 KiB (32 KiB 0.65/1.16x); ialltoall
 *   1.19-2.17x to 8 KiB, 0.53-0.91x at 16-32 KiB; ialltoallv 1.45-1.55x to 4 KiB, 0.69x at
 *   16-32 KiB.  4 per host: iallgatherv 2.3-4.4x everywhere; ialltoall 1.1-3.95x to 8 KiB, 0.82-0.91x
 *   above; ialltoallv 1.25-3.19x to 4 KiB, 0.68-0.84x above.
 * So the windows between nodes (NSM_OPS): iallgatherv MPICH 64 KiB, Open MPI 16 KiB at 2 per host
 * and 64 KiB from 3; ialltoall MPICH 64 KiB at 2 per host and 32 KiB from 3, Open MPI 8 KiB.
 * Pinned hosts (issue 16) later showed MPICH's 32 KiB at 4 per host losing: full tables 0.84-0.96x,
 * and 3 launches alternating, -i 200: ialltoall 32 KiB 0.83-0.95x (ialltoall_ovl 0.91-1.06x),
 * 16 KiB 1.28-1.33x; so 16 KiB at 3-4 per host (32 KiB then 0.96-1.01x: the library's).  At 8
 * per host (2 hosts x 8 on 2 CPUs, 3 launches alternating, -i 50) MPICH's 32 KiB window lost at
 * 16 KiB: ialltoall 0.57-0.61x, ialltoall_ovl 0.54-0.57x (8 KiB 1.33-1.49x, 32 KiB 0.97-1.02x);
 * with 8 KiB, 16 KiB 0.96-1.04x and 0.95-1.01x (the library's); so 8 KiB from 5 per host.
 * Ialltoallv's figures above are of the second form (the per-node largest block, PMPI_Ialltoallw).
 * On the blocking op's exchange (bench/mpi_osu.c rows ialltoallv and ialltoallv_sparse, each rank
 * with the ranks of its parity; 2 emulated hosts x 2, 8 B-64 KiB, -i 100 -r 7, the blocking op's
 * strides, MPICH 32 KiB, Open MPI 8 KiB; 4 runs per MPI in the order MPICH, Open MPI, Open MPI,
 * MPICH, twice; load 6-14, other engineers' jobs running; medians of the runs' same-run ratios
 * library / nodeshm): Open MPI uniform 1.45-2.27x to 8 KiB, 1.19x at 16 KiB, 0.95-0.98x at
 * 32-64 KiB (above the stride: point to point), sparse 0.91-1.36x to 8 KiB, 0.89-0.96x above;
 * MPICH uniform 0.97-2.32x (0.83x at 32 KiB), but sparse 0.14-0.62x at every size (two runs
 * with ours at 1-3 ms a call where the library took 60-200 us; three more runs 0.3-1.5x, the
 * blocking alltoallv_sparse, whose window is on, 0.13-1.5x in the same runs; two later runs, load
 * 7-9, NODESHM_MPI_IALLTOALLV_MAX=32k: uniform 1.11-2.61x, sparse 0.77-0.85x at 8-128 B and
 * 1.03-1.47x from 256 B).  4 per host, one run each, load 8-9: Open MPI (8 KiB) uniform
 * 1.37-2.61x but 0.87-0.96x at 4 KiB and 16-32 KiB, sparse 1.35-1.57x to 4 KiB, 0.66-0.95x from
 * 8 KiB; MPICH at 2 KiB 1.05-2.38x but 0.63x at 4 KiB, sparse 0.90-1.44x.  The quiet run (the
 * lead alone, MPICH, the same rows with the blocking op's strides): 2 x 2, 2 runs, uniform
 * 1.35-2.68x to 16 KiB, 0.96-1.19x at 32 KiB, sparse 0.85-0.97x at 8-128 B (the blocking op's
 * 0.70-0.83x in the same runs) and 1.01-1.53x from 256 B; 2 x 4 at 2 KiB, 1 run, uniform
 * 1.02-2.31x, sparse 0.83-0.85x at 32-128 B, 0.92x at 2 KiB, 1.0-1.35x elsewhere (blocking
 * 0.70-0.76x, 0.84x).  So between nodes both MPIs take the blocking op's strides: MPICH 32 KiB
 * at 2 per node and 2 KiB from 3, Open MPI 8 KiB. */
#include "mpi/nonblocking.h"

#include <limits.h>

int nsm_nbv_nodes_fit(const nsm_state_t *s, int op, size_t bytes)
{
    if (op == NSM_OP_IALLGATHERV) return bytes <= s->area.banks.stage_bytes && bytes <= INT_MAX; /* every block */
    return nsm_a2a_fits(s, bytes); /* Ialltoall: the matrix */
}

/* ---------------------------------------------------------------- Iallgatherv */

static int allgatherv_start(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    const nsm_state_t *s = v->o.s;
    if (!nodeshm_nb_all_arrived(nb)) return 0;
    int *cnt = nsm_nb_stage_runs(s, v->soff, 0, v->lv);
    PMPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, nb->bufs.stage, cnt, cnt + s->n_nodes, MPI_BYTE, s->leaders,
                     v->o.lreq);
    return 1;
}
/* everyone's blocks out of the stage once the node is released (not mine where it is in place) */
static int allgatherv_complete(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    nsm_nb_op_t *o = &v->o;
    if (!nsm_nb_released(nb)) return 0;
    for (int r = 0; r < o->s->size; r++) {
        size_t n = nsm_nbv_bytes(v->cnt[r], v->rsize);
        if (n && !(r == o->s->rank && o->in_place))
            nsm_unpack_as(nsm_nbv_at(o->recvbuf, v->dsp[r], o->rext), (int)v->cnt[r], o->rtype, v->rdense,
                          nsm_nbv_block(nb, r), n, o->s->comm);
    }
    return 1;
}

/* ---------------------------------------------------------------- Ialltoall, Ialltoallv */

/* the leader: whether its node's rows are all in (nodeshm_nb_all_arrived moves next_peer, which is
 * also a2a_complete's cursor: back to the first member for it once they are) */
static int node_in(nsm_nbv_t *v)
{
    nodeshm_nb_t *nb = &v->o.nb;
    if (!nodeshm_nb_all_arrived(nb)) return 0;
    nb->next_peer = 0;
    return 1;
}

/* Ialltoall: whole blocks, one type, one PMPI_Ialltoallv of the leaders (nsm_a2a_leaders_counts) */
static int alltoall_start(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    if (!node_in(v)) return 0;
    const nsm_state_t *s = v->o.s;
    const int n = s->n_nodes;
    int *lv = v->lv;
    nsm_a2a_leaders_counts(s, lv);
    v->ltype = nsm_a2a_block_type(v->T, v->T);
    PMPI_Ialltoallv(nb->bufs.stage, lv, lv + n, v->ltype, nsm_a2a_recv_half(s, nb->bufs.stage, v->T), lv + 2 * n,
                    lv + 3 * n, v->ltype, s->leaders, v->o.lreq);
    return 1;
}
static int alltoall_leaders_test(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    if (!nsm_nb_leaders_test(nb)) return 0;
    PMPI_Type_free(&v->ltype);
    return 1;
}
/* Ialltoallv: the blocking Alltoallv's exchange (alltoall.c): each matrix block's own bytes, from
 * the members' lines, one receive and one send per node pair; posted here, tested at each pass */
static int alltoallv_start(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    if (!node_in(v)) return 0;
    v->nlreq = nsm_a2av_leaders_post(v->o.s, nb->bufs.result, nb->bufs.stage, v->T, v->lreq);
    return 1;
}
static int alltoallv_leaders_test(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    int flag = 1;
    if (v->nlreq) PMPI_Testall(v->nlreq, v->lreq, &flag, MPI_STATUSES_IGNORE);
    if (!flag) return 0;
    v->nlreq = 0;
    nodeshm_flags_release(&nb->lane->area->flags, nb->seq);
    return 1;
}

/* Ialltoallv: whether the block from (out 0) or to (out 1) comm rank r on another node is one of
 * a direct node pair's (nsm_a2av_pair_direct, noted in lv by a2a_post_direct);
 * its bytes in *bytes (Ialltoall: T) */
static int a2a_direct(const nsm_nbv_t *v, int r, int out, size_t *bytes)
{
    const nsm_state_t *s = v->o.s;
    *bytes = !v->rcnt ? v->T : out ? nsm_nbv_bytes(v->cnt[r], v->ssize) : nsm_nbv_bytes(v->rcnt[r], v->rsize);
    return v->rcnt && s->node_of[r] != s->my_node && *bytes && *bytes <= v->T && v->lv[2 * s->node_of[r] + out];
}
/* the block from comm rank r out of the matrix, where it came through it */
static void a2a_take(nsm_nbv_t *v, const nodeshm_nb_t *nb, int r)
{
    nsm_nb_op_t *o = &v->o;
    const nsm_state_t *s = o->s;
    if (r == s->rank && nsm_nbv_self_kept(v)) return;
    const char *from = nsm_a2a_recv_ptr(s, nb->bufs.stage, v->T, r);
    if (!v->rcnt) { /* Ialltoall: every block T bytes */
        nsm_unpack_as((char *)o->recvbuf + (size_t)r * (size_t)o->rcount * (size_t)o->rext, o->rcount, o->rtype, v->rdense,
                      from, v->T, s->comm);
        return;
    }
    size_t n;
    if (a2a_direct(v, r, 0, &n)) return; /* rank to rank: taken once received */
    if (n && n <= v->T)
        nsm_unpack_as(nsm_nbv_at(o->recvbuf, v->rdsp[r], o->rext), (int)v->rcnt[r], o->rtype, v->rdense, from, n, s->comm);
}
/* Ialltoallv, once my node's lines are all in: which node pairs are direct (lv[2 k + out]), their
 * blocks posted rank to rank; returns whether a block of mine from another node still comes
 * through the leaders (Ialltoall: all do) */
static int a2a_post_direct(nsm_nbv_t *v, const nodeshm_nb_t *nb)
{
    const nsm_state_t *s = v->o.s;
    if (!v->rcnt) return 1;
    int some = 0, via_leaders = 0;
    size_t n;
    for (int r = 0; r < s->size && !some; r++)
        some = s->node_of[r] != s->my_node && (nsm_a2av_may_direct(nsm_nbv_bytes(v->cnt[r], v->ssize), v->T) ||
                                               nsm_a2av_may_direct(nsm_nbv_bytes(v->rcnt[r], v->rsize), v->T));
    if (some) nsm_a2av_direct_pairs(s, nb->bufs.result, v->lv);
    else memset(v->lv, 0, 2 * (size_t)s->n_nodes * sizeof(int));
    for (int r = 0; r < s->size; r++) { /* at most the inject size each: int counts */
        if (a2a_direct(v, r, 0, &n))
            PMPI_Irecv((void *)nsm_a2a_recv_ptr(s, nb->bufs.stage, v->T, r), (int)n, MPI_BYTE, s->p2p_rank[r],
                       s->p2p_tag, nsm_p2p_late, &v->req[v->nreq++]);
        else via_leaders |= s->node_of[r] != s->my_node && n && n <= v->T;
        if (a2a_direct(v, r, 1, &n))
            PMPI_Isend(nb->bufs.stage + nsm_a2a_send_block(s, r) * v->T, (int)n, MPI_BYTE, s->p2p_rank[r], s->p2p_tag,
                       nsm_p2p_late, &v->req[v->nreq++]);
    }
    return via_leaders;
}
/* my node's blocks as their senders arrive (next_peer: node ranks); then Ialltoallv's direct node
 * pairs posted (next_peer members + 1, or + 2 where none of my blocks comes through the leaders);
 * the others once released (then next_peer passes members + 2); Ialltoallv's point-to-point
 * halves, and then the direct pairs' blocks out of the stage */
static int a2a_complete(nodeshm_nb_t *nb)
{
    nsm_nbv_t *v = (nsm_nbv_t *)nb;
    const nsm_state_t *s = v->o.s;
    const unsigned members = (unsigned)s->node_size;
    for (; nb->next_peer < members; nb->next_peer++) {
        if (!nodeshm_nb_arrived(nb, (int)nb->next_peer)) return 0;
        a2a_take(v, nb, s->node_members[nb->next_peer]);
    }
    if (nb->next_peer == members) {
        if (v->rcnt && v->o.s->a2av_posted != v->ticket) return 0; /* an earlier Ialltoallv's first */
        nb->next_peer += a2a_post_direct(v, nb) ? 1 : 2;
        if (v->rcnt) v->o.s->a2av_posted++;
    }
    if (nb->next_peer == members + 1) {
        if (!nsm_nb_released(nb)) return 0;
        for (int r = 0; r < s->size; r++)
            if (s->node_of[r] != s->my_node) a2a_take(v, nb, r);
        nb->next_peer++;
    }
    if (!nsm_nbv_p2p_done(v)) return 0;
    size_t n;
    for (int r = 0; r < s->size; r++)
        if (a2a_direct(v, r, 0, &n))
            nsm_unpack_as(nsm_nbv_at(v->o.recvbuf, v->rdsp[r], v->o.rext), (int)v->rcnt[r], v->o.rtype, v->rdense,
                          nsm_a2a_recv_ptr(s, nb->bufs.stage, v->T, r), n, s->comm);
    return 1;
}

/* ---------------------------------------------------------------- the steps */

int nsm_nbv_nodes_steps(nsm_nbv_t *v, int id)
{
    nodeshm_nb_t *nb = &v->o.nb;
    const nsm_state_t *s = v->o.s;
    if (id == NSM_OP_IALLGATHERV) { /* the stage offsets: blocks in stage index order */
        size_t *soff = v->soff;
        soff[0] = 0;
        for (int r = 0; r < s->size; r++) soff[s->stage_index[r] + 1] = nsm_nbv_bytes(v->cnt[r], v->rsize);
        for (int i = 0; i < s->size; i++) soff[i + 1] += soff[i];
        nb->complete = allgatherv_complete; /* nonblocking_v.c's publish: my block into the stage */
        nb->remote_start = allgatherv_start;
        return s->node_rank == 0 || v->o.bytes != 0; /* the leader's call writes the other nodes' blocks */
    }
    /* Ialltoall(v): nonblocking_a2a.c's publish (the row, into the stage; Ialltoallv's line) */
    nb->complete = a2a_complete;
    nb->remote_start = id == NSM_OP_IALLTOALL ? alltoall_start : alltoallv_start;
    nb->remote_test = id == NSM_OP_IALLTOALL ? alltoall_leaders_test : alltoallv_leaders_test;
    return 1;
}
