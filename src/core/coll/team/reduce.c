/* nodeshm core, OpenSHMEM team collectives: reductions (coll.h).
 *
 * One node, up to EAGER_MAX (64 KiB): every member stages its source (small ring up to
 * coll_small_max()) and reduces all the staged contributions itself, in member order (so every
 * PE rounds alike): no second phase.  Several nodes, up to NODESHM_COLL_NODES_REDUCE_MAX: fan.c
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

/* Reductions at most this big go through staging on a one-node team; above, the members split
 * the array (both measured with nodeshm-bench-coll). */
#define REDUCE_EAGER_MAX EAGER_MAX

/* Node member k's staged contribution to this reduction (waited for in the small ring; staged
 * ones were awaited before); `mine` is my own. */
static inline const char *contribution(const nodeshm_team_t *t, coll_turn_t x, int k, int small,
                                       const char *mine)
{
    if (k == t->node_my_pe) return mine;
    return small ? coll_small_await(t, x, k) : coll_stage_of(t, k, x.b);
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
    if (last < first) {
        memset(dest, 0, nbytes);
    } else if (last == first) {
        memcpy(dest, contribution(t, x, first, small, mine), nbytes);
    } else {
        fn(dest, contribution(t, x, first, small, mine), contribution(t, x, first + 1, small, mine),
           count);
        for (int k = first + 2; k <= last; k++) fn(dest, dest, contribution(t, x, k, small, mine), count);
    }
    if (total) {
        memcpy(total, contribution(t, x, 0, small, mine), nbytes);
        for (int k = 1; k < n; k++) fn(total, total, contribution(t, x, k, small, mine), count);
    }
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
    if (t->n_nodes == 1 && t->n_pes > 1 && nbytes <= REDUCE_EAGER_MAX) {
        coll_reduce_node(t, x, dest, src, count, elem, fn, 0, t->node_n_pes - 1, NULL);
        return NODESHM_OK;
    }
    if (t->n_nodes > 1 && nbytes <= NODESHM_COLL_NODES_REDUCE_MAX) /* leaders only: fan.c */
        return nodeshm_coll_nodes_reduce(call, t, leaders, e, dest, src, count, elem, fn, dtype, op);
    int n = t->node_n_pes, me = t->node_my_pe;
    int leader = me == 0;
    coll_node_sync(t, e + 1);

    /* my slice [lo, hi): cache-line multiples, so no two members write one line */
    size_t per_line = elem < 64 ? 64 / elem : 1;
    size_t slice = (count + (size_t)n - 1) / (size_t)n;
    slice = (slice + per_line - 1) / per_line * per_line;
    size_t lo = slice * (size_t)me < count ? slice * (size_t)me : count;
    size_t hi = lo + slice < count ? lo + slice : count;
    char *out = coll_at_member(t, dest, 0); /* the leader's dest */
    if (n == 1) {
        if (dest != src) memcpy(dest, src, nbytes);
    } else if (hi > lo) {
        /* blocks of ~8 KiB: the partial result stays in cache while the peers' sources stream */
        size_t blk = 8192 / elem ? 8192 / elem : 1;
        for (size_t b = lo; b < hi; b += blk) {
            size_t len = hi - b < blk ? hi - b : blk;
            char *o = out + b * elem;
            fn(o, coll_at_member(t, src, 0) + b * elem, coll_at_member(t, src, 1) + b * elem, len);
            for (int p = 2; p < n; p++) fn(o, o, coll_at_member(t, src, p) + b * elem, len);
        }
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
