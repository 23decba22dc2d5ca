/* nodeshm-fft: the remap object: validation (the same verdict on every rank), who sends which
 * block to whom, and the strategy dispatch. */
#include "remap_internal.h"

#include "core/tuning.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const strategy_names[NODESHM_REMAP_N_STRATEGIES] = {
    [NODESHM_REMAP_AUTO] = "auto",
    [NODESHM_REMAP_MPI_P2P] = "mpi-p2p",
    [NODESHM_REMAP_MPI_ALLTOALLV] = "mpi-alltoallv",
    [NODESHM_REMAP_NODE] = "node",
    [NODESHM_REMAP_SHMEM_BARRIER] = "shmem-barrier",
    [NODESHM_REMAP_SHMEM_NOPACK] = "shmem-nopack",
    [NODESHM_REMAP_SHMEM_CHKBUFF] = "shmem-chkbuff",
    [NODESHM_REMAP_SHMEM_ADVCHKBUFF] = "shmem-advchkbuff",
};

const char *nodeshm_remap_strategy_name(nodeshm_remap_strategy_t s)
{
    return (unsigned)s < NODESHM_REMAP_N_STRATEGIES ? strategy_names[s] : NULL;
}

static void accepted_names(char *buf, size_t len)
{
    buf[0] = 0;
    for (int s = 0; s < NODESHM_REMAP_N_STRATEGIES; s++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", s ? ", " : "", strategy_names[s]);
}

int nodeshm_remap_strategy_from_name(const char *name, nodeshm_remap_strategy_t *s)
{
    for (int k = 0; name && k < NODESHM_REMAP_N_STRATEGIES; k++)
        if (!strcmp(name, strategy_names[k])) {
            if (s) *s = (nodeshm_remap_strategy_t)k;
            return 0;
        }
    char acc[256];
    accepted_names(acc, sizeof acc);
    nsf_error("nodeshm_remap_strategy_from_name", "unknown strategy '%s' (accepted: %s)",
              name ? name : "(null)", acc);
    return MPI_ERR_ARG;
}

static void say(const char *call, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "nodeshm-fft: %s: %s\n", call, msg);
    fflush(stderr);
}

void nsf_error(const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(call, fmt, ap);
    va_end(ap);
}

void nsf_fatal(MPI_Comm comm, const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(call, fmt, ap);
    va_end(ap);
    MPI_Abort(comm, 1);
    _exit(1);
}

int nsf_agree(MPI_Comm comm, const char *call, const char *problem)
{
    int rank, size, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = problem ? rank : size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == rank) nsf_error(call, "rank %d: %s", rank, problem);
    return first < size;
}

/* What every rank contributes to the collective check. */
typedef struct record {
    int n[3];
    long long es;
    int strategy;
    int local_error; /* this rank found (and reported) a problem in its own arguments */
    nodeshm_fft_brick_t from, to;
} record_t;

/* A problem with this rank's own arguments: 1 and the message in msg (said later, by the lowest
 * rank that has one, so that a mistake every rank makes is reported once). */
#define LOCAL_PROBLEM(...) (snprintf(msg, MSG_LEN, __VA_ARGS__), 1)
enum { MSG_LEN = 400 };
static int local_problems(char *msg, const int n[3], const nodeshm_fft_brick_t *from,
                          const nodeshm_fft_brick_t *to, size_t es, nodeshm_remap_strategy_t *s,
                          const void *out)
{
    if (!n || !from || !to || !out) {
        return LOCAL_PROBLEM("a NULL %s", !n ? "n" : !from ? "input brick" : !to ? "output brick"
                                                                                : "result pointer");
    }
    for (int d = 0; d < 3; d++)
        if (n[d] < 1) return LOCAL_PROBLEM("n[%d] = %d (accepted: grid extents >= 1)", d, n[d]);
    if (es == 0) return LOCAL_PROBLEM("element size 0 (accepted: >= 1 byte)");
    if ((unsigned)*s >= NODESHM_REMAP_N_STRATEGIES) {
        char acc[256];
        accepted_names(acc, sizeof acc);
        return LOCAL_PROBLEM("strategy %d (accepted: %s)", (int)*s, acc);
    }
    const nodeshm_fft_brick_t *b[2] = {from, to};
    for (int k = 0; k < 2; k++) {
        const char *why = nsf_brick_problem(n, b[k]);
        if (why)
            return LOCAL_PROBLEM("%s brick [%d,%d)x[%d,%d)x[%d,%d) order {%d,%d,%d} of grid %dx%dx%d: %s",
                      k ? "output" : "input", b[k]->lo[0], b[k]->hi[0], b[k]->lo[1], b[k]->hi[1],
                      b[k]->lo[2], b[k]->hi[2], b[k]->order[0], b[k]->order[1], b[k]->order[2],
                      n[0], n[1], n[2], why);
    }
    if (*s == NODESHM_REMAP_AUTO) { /* the environment may choose for auto */
        const char *env = nodeshm_getenv("NODESHM_FFT_STRATEGY"); /* or the tuning file */
        if (env && *env) {
            for (int k = 0; k < NODESHM_REMAP_N_STRATEGIES; k++)
                if (!strcmp(env, strategy_names[k])) {
                    *s = (nodeshm_remap_strategy_t)k;
                    return 0;
                }
            char acc[256];
            accepted_names(acc, sizeof acc);
            return LOCAL_PROBLEM("NODESHM_FFT_STRATEGY=%s (accepted: %s; from the environment or "
                                 "the tuning file %s)", env, acc,
                                 nodeshm_tuning_path() ? nodeshm_tuning_path() : "(none)");
        }
    }
    return 0;
}

/* The verdict on everybody's records; rank 0 says what is wrong. */
static int global_problems(const char *call, const record_t *all, int P, int me)
{
    for (int p = 0; p < P; p++)
        if (all[p].local_error) return 1; /* the lowest such rank has said why */
    for (int p = 1; p < P; p++) {
        const record_t *a = &all[0], *b = &all[p];
        if (memcmp(a->n, b->n, sizeof a->n) || a->es != b->es || a->strategy != b->strategy) {
            if (me == 0)
                nsf_error(call, "the ranks' plans do not match: rank 0 has grid %dx%dx%d, %lld-byte "
                          "elements, strategy %s; rank %d has %dx%dx%d, %lld, %s", a->n[0], a->n[1],
                          a->n[2], a->es, strategy_names[a->strategy], p, b->n[0], b->n[1],
                          b->n[2], b->es, strategy_names[b->strategy]);
            return 1;
        }
    }
    nodeshm_fft_brick_t *bricks = malloc(sizeof *bricks * (size_t)P);
    int bad = 0;
    for (int k = 0; k < 2 && !bad; k++) {
        for (int p = 0; p < P; p++) bricks[p] = k ? all[p].to : all[p].from;
        int a, b;
        if (nsf_bricks_tile(all[0].n, bricks, P, &a, &b)) {
            bad = 1;
            if (me != 0) break;
            const char *which = k ? "output" : "input";
            if (a < 0)
                nsf_error(call, "the %s bricks do not cover the %dx%dx%d grid (points left out)",
                          which, all[0].n[0], all[0].n[1], all[0].n[2]);
            else
                nsf_error(call, "the %s bricks of ranks %d [%d,%d)x[%d,%d)x[%d,%d) and %d "
                          "[%d,%d)x[%d,%d)x[%d,%d) overlap", which, a, bricks[a].lo[0],
                          bricks[a].hi[0], bricks[a].lo[1], bricks[a].hi[1], bricks[a].lo[2],
                          bricks[a].hi[2], b, bricks[b].lo[0], bricks[b].hi[0], bricks[b].lo[1],
                          bricks[b].hi[1], bricks[b].lo[2], bricks[b].hi[2]);
        }
    }
    free(bricks);
    return bad;
}

/* auto: node when some node holds two ranks of comm (pseudo-nodes included), else mpi-p2p. */
static int resolve_auto(MPI_Comm comm, nodeshm_remap_strategy_t *s)
{
    if (*s != NODESHM_REMAP_AUTO) return 0;
    MPI_Comm node;
    int rc = nodeshm_comm_split_node(comm, &node);
    if (rc != MPI_SUCCESS) return rc;
    int nsize, most;
    MPI_Comm_size(node, &nsize);
    MPI_Comm_free(&node);
    MPI_Allreduce(&nsize, &most, 1, MPI_INT, MPI_MAX, comm);
    *s = most > 1 ? NODESHM_REMAP_NODE : NODESHM_REMAP_MPI_P2P;
    return 0;
}

/* Blocks to and from every rank; the receive side packs in the receiver's memory order. */
static void find_peers(struct nodeshm_remap *r, const record_t *all)
{
    nsf_box_t mine_from = nsf_brick_box(&r->from), mine_to = nsf_brick_box(&r->to), x;
    r->send = calloc((size_t)r->size, sizeof *r->send);
    r->recv = calloc((size_t)r->size, sizeof *r->recv);
    for (int k = 1; k <= r->size; k++) { /* start after me: spreads the traffic */
        int p = (r->rank + k) % r->size;
        nsf_box_t theirs_to = nsf_brick_box(&all[p].to), theirs_from = nsf_brick_box(&all[p].from);
        if (p == r->rank) {
            r->has_self = nsf_box_intersect(&mine_from, &mine_to, &r->self_box) > 0;
            continue;
        }
        size_t c = nsf_box_intersect(&mine_from, &theirs_to, &x);
        if (c) {
            nsf_peer_t *e = &r->send[r->nsend++];
            *e = (nsf_peer_t){.rank = p, .box = x, .count = c, .offset = r->send_elems};
            e->packed = nsf_layout_of(&x, all[p].to.order);
            r->send_elems += c;
        }
        c = nsf_box_intersect(&theirs_from, &mine_to, &x);
        if (c) {
            nsf_peer_t *e = &r->recv[r->nrecv++];
            *e = (nsf_peer_t){.rank = p, .box = x, .count = c, .offset = r->recv_elems};
            e->packed = nsf_layout_of(&x, r->to.order);
            e->peer = nsf_brick_layout(&all[p].from);
            r->recv_elems += c;
        }
    }
}

/* The checks of every rank's arguments, with the same verdict everywhere, and auto resolved.
 * On success *all_out (when given) holds every rank's record. */
static int check_all(const char *call, MPI_Comm comm, const int n[3],
                     const nodeshm_fft_brick_t *from, const nodeshm_fft_brick_t *to, size_t es,
                     nodeshm_remap_strategy_t *strategy, const void *out, record_t **all_out)
{
    if (comm == MPI_COMM_NULL) {
        nsf_error(call, "MPI_COMM_NULL (accepted: an intra-communicator)");
        return MPI_ERR_COMM;
    }
    record_t me = {0};
    char msg[MSG_LEN];
    me.local_error = local_problems(msg, n, from, to, es, strategy, out);
    if (!me.local_error) {
        memcpy(me.n, n, sizeof me.n);
        me.es = (long long)es;
        me.strategy = (int)*strategy;
        me.from = *from;
        me.to = *to;
    }
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    record_t *all = malloc(sizeof *all * (size_t)size);
    if (!all) return MPI_ERR_NO_MEM;
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, comm);
    for (int p = 0; p < size; p++)
        if (all[p].local_error) {
            if (p == rank) nsf_error(call, "rank %d: %s", rank, msg);
            break;
        }
    int rc = global_problems(call, all, size, rank) ? MPI_ERR_ARG : MPI_SUCCESS;
    if (rc == MPI_SUCCESS) rc = resolve_auto(comm, strategy);
    if (rc == MPI_SUCCESS && nsf_is_shmem(*strategy)) rc = nsf_shmem_check(comm, call, *strategy);
    if (rc == MPI_SUCCESS && all_out) *all_out = all;
    else free(all);
    return rc;
}

int nsf_remap_check(const char *call, MPI_Comm comm, const int n[3],
                    const nodeshm_fft_brick_t *from, const nodeshm_fft_brick_t *to, size_t es,
                    nodeshm_remap_strategy_t *strategy)
{
    return check_all(call, comm, n, from, to, es, strategy, strategy, NULL);
}

int nsf_remap_create(const char *call, MPI_Comm comm, const int n[3],
                     const nodeshm_fft_brick_t *from, const nodeshm_fft_brick_t *to, size_t es,
                     nodeshm_remap_strategy_t strategy, nodeshm_remap_t *out)
{
    if (out) *out = NULL;
    record_t *all = NULL;
    int rc = check_all(call, comm, n, from, to, es, &strategy, out, &all);
    struct nodeshm_remap *r = rc == MPI_SUCCESS ? calloc(1, sizeof *r) : NULL;
    if (rc == MPI_SUCCESS && !r) rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    r->call = call;
    MPI_Comm_rank(comm, &r->rank);
    MPI_Comm_size(comm, &r->size);
    MPI_Comm_dup(comm, &r->comm);
    memcpy(r->n, n, sizeof r->n);
    r->es = es;
    r->strategy = strategy;
    r->from = *from;
    r->to = *to;
    r->lfrom = nsf_brick_layout(from);
    r->lto = nsf_brick_layout(to);
    find_peers(r, all);
    free(all);
    MPI_Type_contiguous((int)es, MPI_BYTE, &r->elem);
    MPI_Type_commit(&r->elem);
    rc = strategy == NODESHM_REMAP_NODE ? nsf_node_setup(r)
         : nsf_is_shmem(strategy)       ? nsf_shmem_setup(r)
                                        : nsf_mpi_setup(r);
    if (rc != MPI_SUCCESS) {
        nodeshm_remap_destroy(&r);
        return rc;
    }
    *out = r;
    return MPI_SUCCESS;
}

int nodeshm_remap_create(MPI_Comm comm, const int n[3], const nodeshm_fft_brick_t *from,
                         const nodeshm_fft_brick_t *to, size_t elem_bytes,
                         nodeshm_remap_strategy_t strategy, nodeshm_remap_t *remap)
{
    return nsf_remap_create("nodeshm_remap_create", comm, n, from, to, elem_bytes, strategy, remap);
}

int nodeshm_remap_execute(nodeshm_remap_t r, const void *src, void *dst)
{
    /* A collective call that one rank cannot make would hang the others: end the job. */
    if (!r) nsf_fatal(MPI_COMM_WORLD, "nodeshm_remap_execute", "a NULL remap");
    if ((!src && nodeshm_fft_brick_size(&r->from)) || (!dst && nodeshm_fft_brick_size(&r->to)))
        nsf_fatal(r->comm, "nodeshm_remap_execute", "rank %d: a NULL %s for a brick of %zu points",
                  r->rank, !src ? "src" : "dst", nodeshm_fft_brick_size(!src ? &r->from : &r->to));
    switch (r->strategy) {
    case NODESHM_REMAP_MPI_ALLTOALLV: return nsf_alltoallv_execute(r, src, dst);
    case NODESHM_REMAP_NODE: return nsf_node_execute(r, src, dst);
    case NODESHM_REMAP_MPI_P2P: return nsf_p2p_execute(r, src, dst);
    default: return nsf_shmem_execute(r, src, dst);
    }
}

void *nodeshm_remap_source(nodeshm_remap_t r)
{
    if (!r) return NULL;
    return r->strategy == NODESHM_REMAP_NODE ? nsf_node_source(r) : r->source;
}

nodeshm_remap_strategy_t nodeshm_remap_strategy(nodeshm_remap_t r)
{
    return r ? r->strategy : NODESHM_REMAP_AUTO;
}

int nodeshm_remap_destroy(nodeshm_remap_t *remap)
{
    if (!remap || !*remap) return MPI_SUCCESS;
    struct nodeshm_remap *r = *remap;
    if (r->strategy == NODESHM_REMAP_NODE) nsf_node_teardown(r);
    else free(r->source);
    if (nsf_is_shmem(r->strategy)) nsf_shmem_teardown(r);
    free(r->packbuf);
    free(r->recvbuf);
    free(r->reqs);
    free(r->req_recv);
    free(r->counts);
    free(r->send);
    free(r->recv);
    if (r->elem != MPI_DATATYPE_NULL && r->elem) MPI_Type_free(&r->elem);
    if (r->comm != MPI_COMM_NULL && r->comm) MPI_Comm_free(&r->comm);
    free(r);
    *remap = NULL;
    return MPI_SUCCESS;
}
