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
#include "core/coll/team/team_coll.h"

_Static_assert(NODESHM_REDUCE_EAGER_MAX == EAGER_MAX, "eager reductions: a staging buffer");

/* The node's contributions to a reduction (core/coll/reduce.h): in the eager path the staged
 * copies (waited for in the small ring; staged ones were awaited before) and `mine`, my own;
 * in the sliced path every member's symmetric source. */
typedef struct team_reduction {
    nodeshm_reduction_t r;
    const nodeshm_team_t *t;
    coll_turn_t x;
    int small;
    const char *mine; /* eager: my staged copy; sliced: the symmetric source */
} team_reduction_t;

static const char *staged_at(const nodeshm_reduction_t *r, int k)
{
    const team_reduction_t *c = (const team_reduction_t *)r;
    if (k == c->t->node_my_pe) return c->mine;
    return c->small ? coll_small_await(c->t, c->x, k) : coll_stage_of(c->t, k, c->x.b);
}

static const char *source_at(const nodeshm_reduction_t *r, int k)
{
    const team_reduction_t *c = (const team_reduction_t *)r;
    return coll_at_member(c->t, c->mine, k);
}

void coll_reduce_sources(const nodeshm_team_t *t, void *dest, const void *src, size_t count, size_t elem,
                         nodeshm_reduce_fn fn)
{
    team_reduction_t c = {{fn, NULL, source_at, elem}, t, {0, 0, 0}, 0, src};
    nodeshm_reduce_ordered(&c.r, dest, 0, count, 0, t->node_n_pes - 1);
}

/* One node, eager: every member stages its source, then reduces node members first..last's
 * contributions itself, always in member order (the same rounding on every PE); last < first:
 * dest = zeros (exclusive scan on the first PE).  total, if not NULL, gets all the node's
 * contributions reduced (a leader's share of a scan between nodes).  No second phase: dest is
 * written only by its owner and sources are free once staged. */
void coll_reduce_node(nodeshm_team_t *t, coll_turn_t x, void *dest, const void *src, size_t count,
                      size_t elem, nodeshm_reduce_fn fn, int first, int last, void *total)
{
    size_t nbytes = count * elem;
    int n = t->node_n_pes, small = nbytes <= coll_small_max();
    char *mine = small ? coll_small_claim(t, x) : coll_stage_claim(t, x);
    memcpy(mine, src, nbytes);
    if (small) coll_small_publish(t, x);
    else coll_publish(t, x, nbytes, FROM_STAGE, 0);
    /* every contribution from its staged copy, mine too (dest may be src); the total needs all */
    int lo = total ? 0 : first, hi = total ? n - 1 : last;
    if (!small)
        for (int k = lo; k <= hi; k++)
            if (k != t->node_my_pe) (void)coll_await_ready(t, x, k);
    team_reduction_t c = {{fn, NULL, staged_at, elem}, t, x, small, mine};
    if (last < first) memset(dest, 0, nbytes);
    else nodeshm_reduce_ordered(&c.r, dest, 0, count, first, last);
    if (total) nodeshm_reduce_ordered(&c.r, total, 0, count, 0, n - 1);
    if (small) coll_small_done(t, x);
    else coll_mark_done(t, x);
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
    if (t->n_nodes == 1 && t->n_pes > 1 && nbytes <= NODESHM_REDUCE_EAGER_MAX) {
        coll_reduce_node(t, x, dest, src, count, elem, fn, 0, t->node_n_pes - 1, NULL);
        return NODESHM_OK;
    }
    if (t->n_nodes > 1 && nbytes <= NODESHM_REDUCE_NODES_FAN_MAX && coll_nodes_library_wins(t)) {
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
        team_reduction_t c = {{fn, NULL, source_at, elem}, t, {0, 0, 0}, 0, src};
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
