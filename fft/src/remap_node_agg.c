/* nodeshm-fft: the node strategy between nodes, aggregated per pair of nodes.
 *
 * Per ordered pair of nodes (A, B) with anything to move, one message carries every block from a
 * rank of A to a rank of B: blocks ordered by sender, then receiver (ranks of the remap's
 * communicator), each dense in its receiver's memory order.  The message lives in the
 * node-shared memory of one rank of A (the pair's sender), and every rank of A packs its own
 * blocks straight from its source into it (the pack each rank makes per rank pair anyway, no
 * copy more); the sender sends it once they have all published.  One rank of B (the pair's
 * receiver) receives it into its own node-shared memory and publishes, and every rank of B
 * copies its blocks out of it into its destination (the unpack).  The pairs' senders and
 * receivers are spread over the ranks of a node by the distance B - A.
 *
 * Epochs of execute e: publish 2e - 1 once my source and my blocks in the outboxes are written;
 * a receiver publishes 2e once its messages are in; release e at the very end (my messages sent
 * and received, everything I read copied).  Before writing into node-shared memory again a rank
 * waits for the release of e by the node peers that read its source, the senders whose outboxes
 * its blocks go to, and the node peers that read its inbox (r->acquire).  A rank waits for a
 * node peer's epoch-e publish only once every rank has published 2e - 1 without waiting on
 * anything of epoch e, and for a receiver's 2e only after all its own MPI requests completed:
 * no rank sits in a node-shared wait (making no MPI progress) while a message needs it. */
#include "remap_internal.h"

#include "core/env.h"
#include "core/tuning.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NODESHM_FFT_NODE_AGGREGATE=SIZE: aggregate when a pair of nodes has on average at least this
 * many blocks between them (else aggregation saves no message) and blocks average at most SIZE
 * bytes.  The default is off: on this project's 2-core machine (4-8 ranks, pseudo-nodes and 2
 * emulated hosts, MPICH and Open MPI, loaded) aggregation took 0.87-2.31x the time of per-pair
 * messages, 16^3 to 128^3, slower at 21 of 25 points and never faster beyond the noise: each
 * rank waits for its node peers twice more (the sender for their blocks, the readers for the
 * receiver), and with more ranks than cores each such wait can cost a time slice, more than the
 * messages saved.  With a core per rank and a real network the size form may pay: measure. */
enum { AGG_MIN_BLOCKS_PER_PAIR = 2 };

struct nsf_node_plan {
    int P, N;              /* ranks, nodes */
    int *node_of;          /* [P]: node number (nodes numbered in the order of their first rank) */
    int *first, *members;  /* node k's ranks: members[first[k] .. first[k + 1]), in rank order */
    nsf_box_t *from, *to;  /* [P]: every rank's bricks */
    size_t *total;         /* [N * N]: elements from node A to node B */
    size_t *out_off, *in_off; /* [N * N]: bytes from the start of the sender's / receiver's part */
};

/* Bytes of a rank's part for `elems` elements: 64-byte multiples keep every part 64-byte
 * aligned; at least 64, so that nodeshm_shared_ptr is NULL exactly for the ranks on other nodes
 * (also for those with an empty brick). */
size_t nsf_part_bytes(size_t elems, size_t es)
{
    size_t b = (elems * es + 63) & ~(size_t)63;
    return b ? b : 64;
}

void nsf_node_acquire_add(struct nodeshm_remap *r, int rank)
{
    for (int k = 0; k < r->nacquire; k++)
        if (r->acquire[k] == rank) return;
    r->acquire[r->nacquire++] = rank;
}

void nsf_node_plan_free(nsf_node_plan_t *pl)
{
    if (!pl) return;
    free(pl->node_of), free(pl->first), free(pl->members), free(pl->from), free(pl->to);
    free(pl->total), free(pl->out_off), free(pl->in_off);
    free(pl);
}

static int node_size(const nsf_node_plan_t *pl, int node)
{
    return pl->first[node + 1] - pl->first[node];
}

/* The rank of A that sends A's message to B, and the rank of B that receives it. */
static int pair_sender(const nsf_node_plan_t *pl, int A, int B)
{
    int dist = (B - A + pl->N) % pl->N;
    return pl->members[pl->first[A] + (dist - 1) % node_size(pl, A)];
}

static int pair_receiver(const nsf_node_plan_t *pl, int A, int B)
{
    int dist = (A - B + pl->N) % pl->N, n = node_size(pl, B);
    return pl->members[pl->first[B] + n - 1 - (dist - 1) % n];
}

/* NODESHM_FFT_NODE_AGGREGATE: 0 off (unset), 1 on, -1 up to *max bytes per block (a size);
 * -2 for a bad value (problem set). */
static int aggregate_setting(size_t *max, char *problem, size_t len)
{
    const char *v = nodeshm_getenv("NODESHM_FFT_NODE_AGGREGATE");
    if (!v || !*v || !strcmp(v, "off")) return 0;
    if (!strcmp(v, "on")) return 1;
    if (nodeshm_parse_size(v, max) == 0) return -1;
    snprintf(problem, len, "NODESHM_FFT_NODE_AGGREGATE=%s (accepted: off, on, or the largest mean "
             "block between nodes to aggregate, %s; from the environment or the tuning file %s)",
             v, NODESHM_SIZE_SYNTAX, nodeshm_tuning_path() ? nodeshm_tuning_path() : "(none)");
    return -2;
}

typedef struct where {
    nodeshm_fft_brick_t from, to;
    int leader; /* the lowest rank of my node */
} where_t;

/* Every rank's bricks and node, the nodes' members, the traffic between each pair of nodes. */
static nsf_node_plan_t *gather_plan(struct nodeshm_remap *r)
{
    MPI_Comm node;
    if (nodeshm_comm_split_node(r->comm, &node) != MPI_SUCCESS) return NULL;
    where_t me = {r->from, r->to, r->rank};
    MPI_Allreduce(MPI_IN_PLACE, &me.leader, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    int P = r->size;
    where_t *all = malloc(sizeof *all * (size_t)P);
    nsf_node_plan_t *pl = calloc(1, sizeof *pl);
    if (pl) {
        pl->P = P;
        pl->node_of = malloc(sizeof(int) * (size_t)P);
        pl->first = calloc((size_t)P + 2, sizeof(int));
        pl->members = malloc(sizeof(int) * (size_t)P);
        pl->from = malloc(sizeof(nsf_box_t) * (size_t)P);
        pl->to = malloc(sizeof(nsf_box_t) * (size_t)P);
    }
    int ok = all && pl && pl->node_of && pl->first && pl->members && pl->from && pl->to;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, r->comm);
    if (!ok) {
        free(all);
        nsf_node_plan_free(pl);
        return NULL;
    }
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, r->comm);
    for (int p = 0; p < P; p++) { /* a node's leader comes before its other ranks */
        pl->node_of[p] = all[p].leader == p ? pl->N++ : pl->node_of[all[p].leader];
        pl->from[p] = nsf_brick_box(&all[p].from);
        pl->to[p] = nsf_brick_box(&all[p].to);
    }
    free(all);
    int N = pl->N;
    for (int p = 0; p < P; p++) pl->first[pl->node_of[p] + 2]++;
    for (int k = 0; k < N; k++) pl->first[k + 2] += pl->first[k + 1];
    for (int p = 0; p < P; p++) pl->members[pl->first[pl->node_of[p] + 1]++] = p;
    pl->total = calloc((size_t)N * (size_t)N, sizeof(size_t));
    pl->out_off = calloc((size_t)N * (size_t)N, sizeof(size_t));
    pl->in_off = calloc((size_t)N * (size_t)N, sizeof(size_t));
    ok = pl->total && pl->out_off && pl->in_off;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, r->comm);
    if (!ok) {
        nsf_node_plan_free(pl);
        return NULL;
    }
    return pl;
}

int nsf_node_plan(struct nodeshm_remap *r, nsf_node_plan_t **out, size_t *my_bytes)
{
    *out = NULL;
    *my_bytes = nsf_part_bytes(nodeshm_fft_brick_size(&r->from), r->es);
    char problem[300];
    size_t max = 0;
    int setting = aggregate_setting(&max, problem, sizeof problem);
    if (nsf_agree(r->comm, r->call, setting == -2 ? problem : NULL))
        return MPI_ERR_ARG;
    nsf_node_plan_t *pl = gather_plan(r);
    if (!pl) {
        nsf_error(r->call, "rank %d: node strategy: out of memory for the plan "
                  "between nodes (%d ranks)", r->rank, r->size);
        return MPI_ERR_NO_MEM;
    }
    /* The same sums on every rank: they see the same bricks. */
    int N = pl->N, P = pl->P;
    size_t blocks = 0, elems = 0, pairs = 0, biggest = 0;
    nsf_box_t x;
    for (int s = 0; s < P; s++)
        for (int d = 0; d < P; d++) {
            int A = pl->node_of[s], B = pl->node_of[d];
            size_t c = A == B ? 0 : nsf_box_intersect(&pl->from[s], &pl->to[d], &x);
            if (!c) continue;
            blocks++;
            elems += c;
            pairs += pl->total[A * N + B] == 0;
            pl->total[A * N + B] += c;
            if (pl->total[A * N + B] > biggest) biggest = pl->total[A * N + B];
        }
    r->between_nodes = blocks > 0;
    int agg = setting >= 0 ? setting
              : blocks >= AGG_MIN_BLOCKS_PER_PAIR * pairs && blocks && elems * r->es / blocks <= max;
    agg = agg && blocks > 0 && biggest <= INT_MAX; /* a message's count is an int */
    /* one verdict even where the ranks' environments differ */
    MPI_Allreduce(MPI_IN_PLACE, &agg, 1, MPI_INT, MPI_MIN, r->comm);
    r->aggregated = agg;
    if (r->rank == 0 && nodeshm_debug_enabled() && blocks)
        fprintf(stderr, "nodeshm-fft: debug: node remap %dx%dx%d: %zu blocks between %d nodes "
                "(%zu pairs of nodes, mean %zu bytes): %s\n", r->n[0], r->n[1], r->n[2], blocks, N,
                pairs, elems * r->es / blocks, agg ? "one message per pair of nodes" :
                "one message per pair of ranks");
    if (!agg) {
        nsf_node_plan_free(pl);
        return MPI_SUCCESS;
    }
    /* Each message's place: after its sender's source, after its receiver's outboxes. */
    size_t *cursor = malloc(sizeof *cursor * (size_t)P);
    if (!cursor) {
        nsf_node_plan_free(pl);
        return MPI_ERR_NO_MEM;
    }
    for (int p = 0; p < P; p++) cursor[p] = nsf_part_bytes(nsf_box_size(&pl->from[p]), r->es);
    for (int k = 0; k < N * N; k++)
        if (pl->total[k]) {
            int S = pair_sender(pl, k / N, k % N);
            pl->out_off[k] = cursor[S];
            cursor[S] += nsf_part_bytes(pl->total[k], r->es);
        }
    for (int k = 0; k < N * N; k++)
        if (pl->total[k]) {
            int R = pair_receiver(pl, k / N, k % N);
            pl->in_off[k] = cursor[R];
            cursor[R] += nsf_part_bytes(pl->total[k], r->es);
        }
    *my_bytes = cursor[r->rank];
    free(cursor);
    *out = pl;
    return MPI_SUCCESS;
}

/* My blocks, my node's messages I send or receive, and whom I wait for, in the node-shared
 * memory now allocated. */
int nsf_node_bind(struct nodeshm_remap *r, nsf_node_plan_t *pl)
{
    int P = pl->P, N = pl->N, me = r->rank, A = pl->node_of[me], nA = node_size(pl, A);
    int *send_of = malloc(sizeof(int) * (size_t)P), *recv_of = malloc(sizeof(int) * (size_t)P);
    r->out = calloc((size_t)N, sizeof *r->out);
    r->in = calloc((size_t)N, sizeof *r->in);
    free(r->reqs);
    r->reqs = malloc(sizeof *r->reqs * (size_t)(2 * N));
    if (!send_of || !recv_of || !r->out || !r->in || !r->reqs) {
        free(send_of), free(recv_of);
        return MPI_ERR_NO_MEM;
    }
    for (int p = 0; p < P; p++) send_of[p] = recv_of[p] = -1;
    for (int k = 0; k < r->nsend; k++) send_of[r->send[k].rank] = k;
    for (int k = 0; k < r->nrecv; k++) recv_of[r->recv[k].rank] = k;
    char *mine = nodeshm_shared_ptr(r->shared, me, NULL);
    nsf_box_t x;
    for (int B = 0; B < N; B++) { /* out of my node */
        size_t total = pl->total[A * N + B], off = 0;
        if (B == A || !total) continue;
        int S = pair_sender(pl, A, B);
        char *outbox = (char *)nodeshm_shared_ptr(r->shared, S, NULL) + pl->out_off[A * N + B];
        nsf_msg_t *m = S == me ? &r->out[r->nout++] : NULL;
        if (m) {
            *m = (nsf_msg_t){.rank = pair_receiver(pl, A, B), .count = total, .buf = outbox,
                             .wait = malloc(sizeof(int) * (size_t)nA)};
            if (!m->wait) {
                free(send_of), free(recv_of);
                return MPI_ERR_NO_MEM;
            }
        }
        for (int i = pl->first[A]; i < pl->first[A + 1]; i++) {
            int s = pl->members[i];
            size_t share = 0;
            for (int j = pl->first[B]; j < pl->first[B + 1]; j++) {
                int d = pl->members[j];
                size_t c = nsf_box_intersect(&pl->from[s], &pl->to[d], &x);
                if (c && s == me) {
                    nsf_peer_t *p = &r->send[send_of[d]];
                    p->path = NSF_PATH_AGG;
                    p->via = S;
                    p->agg = outbox + (off + share) * r->es;
                }
                share += c;
            }
            off += share;
            if (share && m && s != me) m->wait[m->nwait++] = s;
            if (share && s == me && S != me) nsf_node_acquire_add(r, S);
        }
    }
    for (int B = 0; B < N; B++) { /* into my node (from node B) */
        size_t total = pl->total[B * N + A], off = 0;
        if (B == A || !total) continue;
        int R = pair_receiver(pl, B, A);
        const char *inbox = (const char *)nodeshm_shared_ptr(r->shared, R, NULL) + pl->in_off[B * N + A];
        nsf_msg_t *m = R == me ? &r->in[r->nin++] : NULL;
        if (m) *m = (nsf_msg_t){.rank = pair_sender(pl, B, A), .count = total, .buf = mine +
                                pl->in_off[B * N + A]};
        for (int i = pl->first[B]; i < pl->first[B + 1]; i++)
            for (int j = pl->first[A]; j < pl->first[A + 1]; j++) {
                int s = pl->members[i], d = pl->members[j];
                size_t c = nsf_box_intersect(&pl->from[s], &pl->to[d], &x);
                if (!c) continue;
                if (d == me) {
                    nsf_peer_t *p = &r->recv[recv_of[s]];
                    p->path = NSF_PATH_AGG;
                    p->via = R;
                    p->shared = inbox + off * r->es;
                    p->peer = p->packed;
                } else if (m) nsf_node_acquire_add(r, d);
                off += c;
            }
    }
    free(send_of), free(recv_of);
    return MPI_SUCCESS;
}

int nsf_node_agg_execute(struct nodeshm_remap *r, const void *src, void *dst)
{
    unsigned long long e = ++r->epoch;
    uint64_t written = 2 * e - 1, arrived = 2 * e;
    int nreq = 0, rc = MPI_SUCCESS;
    for (int k = 0; k < r->nin && rc == MPI_SUCCESS; k++)
        rc = MPI_Irecv(r->in[k].buf, (int)r->in[k].count, r->elem, r->in[k].rank, 1, r->comm,
                       &r->reqs[nreq++]);
    for (int k = 0; k < r->nsend; k++) {
        const nsf_peer_t *p = &r->send[k];
        if (p->path == NSF_PATH_AGG) nsf_box_copy(src, &r->lfrom, p->agg, &p->packed, &p->box, r->es);
    }
    nodeshm_shared_publish(r->shared, written);
    for (int k = 0; k < r->nout && rc == MPI_SUCCESS; k++) {
        const nsf_msg_t *m = &r->out[k];
        for (int w = 0; w < m->nwait; w++) nodeshm_shared_wait(r->shared, m->wait[w], written);
        rc = MPI_Isend(m->buf, (int)m->count, r->elem, m->rank, 1, r->comm, &r->reqs[nreq++]);
    }
    nsf_copy_self(r, src, dst);
    nsf_node_copy_blocks(r, dst, written);
    /* sends too: a rank waiting below for a receiver makes no MPI progress */
    if (rc == MPI_SUCCESS && nreq) rc = MPI_Waitall(nreq, r->reqs, MPI_STATUSES_IGNORE);
    if (r->nin) nodeshm_shared_publish(r->shared, arrived);
    for (int k = 0; k < r->nrecv; k++) {
        const nsf_peer_t *p = &r->recv[k];
        if (p->path != NSF_PATH_AGG) continue;
        if (p->via != r->rank) nodeshm_shared_wait(r->shared, p->via, arrived);
        nsf_box_copy(p->shared, &p->peer, dst, &r->lto, &p->box, r->es);
    }
    nodeshm_shared_release(r->shared, e);
    r->source_acquired = 0;
    return rc;
}
