/* nodeshm core, OpenSHMEM team collectives: reductions (coll.h).
 *
 * The node reductions themselves (ordered, sliced) and their switches are core/coll/reduce.h's,
 * shared with the MPI face; this file says where a team's contributions are.
 *
 * One node, up to NODESHM_REDUCE_EAGER_MAX (64 KiB): every member stages its source (small ring
 * up to coll_small_max()) and reduces all the staged contributions itself, in member order (so
 * every PE rounds alike): no second phase.  Several nodes, up to NODESHM_REDUCE_NODES_FAN_MAX: fan.c
 * (the leader reduces its node's sources in member order, MPI_Allreduce in place with the other
 * leaders, fills its peers' dests).  Larger: each node member reduces a contiguous, cache-line
 * aligned slice of the array across all node peers' sources into the leader's dest (every core
 * works, no root loop); single node: it also copies its slice into every peer's dest, and that is
 * all; else node sync, leaders MPI_Allreduce(MPI_IN_PLACE) on dest, node sync, peers copy from
 * the leader's dest.  In place is safe: slice i of every buffer is touched by member i only until
 * the second sync.  Between nodes MPI's own op is used, except where the caller asks for its
 * kernel as an MPI user op (8/16-bit sums and products: Open MPI's vector ops saturate instead
 * of wrapping). */
#include "core/coll/team/publish.h"

_Static_assert(NODESHM_REDUCE_EAGER_MAX == EAGER_MAX, "eager reductions: a staging buffer");

/* The sliced path's contributions (core/coll/reduce.h): every member's symmetric source. */
typedef struct team_reduction {
    nodeshm_reduction_t r;
    const nodeshm_team_t *t;
    const char *src;
} team_reduction_t;

static const char *source_at(const nodeshm_reduction_t *r, int k)
{
    const team_reduction_t *c = (const team_reduction_t *)r;
    return coll_at_member(c->t, c->src, k);
}

void coll_reduce_sources(const nodeshm_team_t *t, void *dest, const void *src, size_t count, size_t elem,
                         nodeshm_reduce_fn fn)
{
    team_reduction_t c = {{fn, NULL, source_at, elem}, t, src};
    nodeshm_reduce_ordered(&c.r, dest, 0, count, 0, t->node_n_pes - 1);
}

/* One node, eager: every member stages its source (publish.h), then reduces all the node's
 * contributions itself, from their staged copies (mine too: dest may be src), always in member
 * order (the same rounding on every PE).  No second phase: dest is written only by its owner and
 * sources are free once staged. */
static void reduce_node(nodeshm_team_t *t, coll_turn_t x, void *dest, const void *src, size_t count,
                        size_t elem, nodeshm_reduce_fn fn)
{
    coll_pub_t c;
    coll_pub_begin(&c, t, x, src, count, elem, fn);
    coll_pub_ops.post(&c.p, NODESHM_PUB_DATA);
    /* staged copies first; small ones the reduction awaits as it reaches them (pub_at) */
    for (int k = 0; !c.small && k < c.p.n; k++)
        if (k != c.p.me) coll_pub_ops.await(&c.p, k, NODESHM_PUB_DATA);
    nodeshm_reduce_ordered(&c.r, dest, 0, count, 0, c.p.n - 1);
    coll_pub_ops.done(&c.p);
}

/* Reduction and scan arguments: count * elem fits, both arrays symmetric, and either the same
 * array (in place) or disjoint. */
int coll_check_reduce_args(const char *call, const char *count_name, void *dest, const void *src,
                           size_t count, size_t elem)
{
    size_t nbytes = count * elem;
    if (elem && nbytes / elem != count)
        return nodeshm_report(NODESHM_ERR_ARG, call, "%s %zu is too large", count_name, count);
    int rc = coll_check_sym(call, "dest", dest, nbytes);
    if (!rc) rc = coll_check_sym(call, "source", src, nbytes);
    if (rc) return rc;
    if (nbytes && dest != src && (char *)dest < (const char *)src + nbytes &&
        (const char *)src < (char *)dest + nbytes)
        return nodeshm_report(NODESHM_ERR_ARG, call, "dest %p and source %p overlap without being "
                                                     "the same array", dest, src);
    return NODESHM_OK;
}

int nodeshm_coll_reduce(const char *call, nodeshm_team_t *t, void *dest, const void *src,
                        size_t count, size_t elem, nodeshm_reduce_fn fn, MPI_Datatype dtype,
                        MPI_Op op)
{
    size_t nbytes = count * elem;
    int rc = coll_check_reduce_args(call, "nreduce", dest, src, count, elem);
    if (rc) return rc;
    MPI_Comm leaders = MPI_COMM_NULL;
    if (t->n_nodes > 1 && (rc = nodeshm_coll_leaders(call, t, &leaders))) return rc;
    uint64_t e = coll_begin(t);
    coll_turn_t x = coll_turn_begin(t, e);
    if (count == 0) return NODESHM_OK;
    int by_library = t->n_nodes > 1 && nbytes <= NODESHM_REDUCE_NODES_FAN_MAX && coll_nodes_library_wins(t);
    coll_path(COLL_REDUCE, t->n_nodes == 1 ? COLL_PATH_NODE : by_library ? COLL_PATH_LIBRARY : COLL_PATH_LEADERS);
    if (t->n_nodes == 1 && t->n_pes > 1 && nbytes <= NODESHM_REDUCE_EAGER_MAX) {
        reduce_node(t, x, dest, src, count, elem, fn);
        return NODESHM_OK;
    }
    if (by_library) {
        if (dest != src) memcpy(dest, src, nbytes);
        return nodeshm_coll_allreduce_inplace(call, dest, count, elem, dtype, op, fn, t->comm);
    }
    if (t->n_nodes > 1 && nbytes <= NODESHM_REDUCE_NODES_FAN_MAX) /* leaders only: fan.c */
        return nodeshm_coll_nodes_reduce(call, t, leaders, e, dest, src, count, elem, fn, dtype, op);
    int n = t->node_n_pes, me = t->node_my_pe;
    int leader = me == 0;
    coll_node_sync(t, e + 1);

    /* my slice [lo, hi) of the leader's dest (core/coll/reduce.c) */
    size_t lo, hi;
    nodeshm_reduce_slice(count, elem, n, me, &lo, &hi);
    char *out = coll_at_member(t, dest, 0);
    if (n == 1) {
        if (dest != src) memcpy(dest, src, nbytes);
    } else if (hi > lo) {
        team_reduction_t c = {{fn, NULL, source_at, elem}, t, src};
        nodeshm_reduce_sliced(&c.r, out, lo, hi, n);
        if (t->n_nodes == 1)
            for (int p = 1; p < n; p++)
                memcpy(coll_at_member(t, dest, p) + lo * elem, out + lo * elem, (hi - lo) * elem);
    }
    if (t->n_nodes > 1) {
        coll_node_sync(t, e + 2);
        if (leader) rc = nodeshm_coll_allreduce_inplace(call, dest, count, elem, dtype, op, fn, leaders);
        coll_node_sync(t, e + 3);
        if (!leader) memcpy(dest, out, nbytes);
    }
    coll_node_sync(t, e + 4);
    return rc;
}
