/* nodeshm core: the node reduction family of both faces, written once (issue 17).
 *
 * A node's members each contribute a vector of `elem`-byte elements; every element is reduced
 * over the contributions in member order, first to last: ((c0 op c1) op c2) ..., so whoever
 * reduces an element gets the same bits (the faces' ops commute bit for bit, so which operand
 * of a pair comes first does not matter; the grouping does).  Two algorithms:
 *   ordered  one member reduces contributions first..last of a run of elements: the faces'
 *            one-phase / eager paths (each member, the root or the leader reduces all it needs
 *            after one arrival round), scans (0..me), reduce_scatter's blocks;
 *   sliced   each of the node's members reduces its own cache-line-aligned slice of the array
 *            over all contributions (every core works, no member writes another's line): the
 *            large paths, whose result the members then copy out.
 * The face says what its operation is and where each contribution lives, through a
 * nodeshm_reduction_t in a context struct of its own (at its head, or at a fixed offset):
 *   OpenSHMEM (core/coll/team/reduce.c, publish.h): a nodeshm_reduce_fn on symmetric memory, the
 *            contributions its node peers' sources, staging or small-ring entries;
 *   MPI (src/mpi/nsmpi.h: nsm_reduction): PMPI_Reduce_local(type, op) on a communicator's
 *            node slots.
 * Nothing here waits on flags but through the face's accessor, and nothing knows a face. */
#ifndef NODESHM_COLL_REDUCE_H
#define NODESHM_COLL_REDUCE_H

#include <stddef.h>
#include <string.h>

/* out[i] = a[i] OP b[i] for i < n; out may be a (never b). */
typedef void (*nodeshm_reduce_fn)(void *out, const void *a, const void *b, size_t n);

typedef struct nodeshm_reduction nodeshm_reduction_t;
struct nodeshm_reduction {
    /* The operation: fn (out = a op b), or where fn is NULL local (inout = in op inout, the form
     * of PMPI_Reduce_local; the face's context follows this struct in its own). */
    nodeshm_reduce_fn fn;
    void (*local)(const nodeshm_reduction_t *r, const void *in, void *inout, size_t n);
    /* Node member k's contribution (its element 0); may wait until k has published it. */
    const char *(*at)(const nodeshm_reduction_t *r, int k);
    size_t elem;
};

/* ---- protocol switches of the family, each face's, side by side ------------------------------- */
/* MPI face (allreduce.c, reduce.c): up to this many bytes one rank reduces every slot after a
 * single arrive round (every rank itself for allreduce on one node, the root for reduce, each
 * leader between nodes); above, the sliced reduction and a second flag round.  With two rounds
 * (arrive, then reduced) the sliced protocol measured 0.85-0.93x of MPICH at 16 B-1 KiB on 2
 * ranks, where MPICH needs a single exchange; a few node_size-fold reductions cost less than a
 * flag round on any node size run here. */
#define NODESHM_REDUCE_ONE_PHASE_MAX ((size_t)4096)
/* OpenSHMEM face (core/coll/team/reduce.c): on a one-node team up to a staging buffer (64 KiB,
 * runtime.h's NODESHM_COLL_STAGE_BYTES) every member stages its source and reduces all staged
 * contributions itself (no second phase); above, the members split the array (both measured
 * with nodeshm-bench-coll).  Between nodes: below. */
#define NODESHM_REDUCE_EAGER_MAX ((size_t)64 * 1024)
/* OpenSHMEM face between nodes: up to this many bytes one fan-in and one fan-out per node
 * (core/coll/team/fan.c: the leader reduces its node's sources in member order and
 * MPI_Allreduces in place with the other leaders, no node syncs); above, the node members
 * reduce slices and the leaders' MPI_Allreduce sits between two node syncs (team/reduce.c). */
#define NODESHM_REDUCE_NODES_FAN_MAX ((size_t)16 * 1024)

/* out = a op b over n elements (out may be a).  The kernels are passed as values: loaded once
 * by the caller, they stay known to the compiler across the calls that receive r. */
static inline void nodeshm_reduce_combine_by(const nodeshm_reduction_t *r, nodeshm_reduce_fn fn,
                                             void (*local)(const nodeshm_reduction_t *, const void *,
                                                           void *, size_t),
                                             void *out, const void *a, const void *b, size_t n)
{
    if (fn) {
        fn(out, a, b, n);
        return;
    }
    if (out != a) memcpy(out, a, n * r->elem);
    local(r, b, out, n);
}
static inline void nodeshm_reduce_combine(const nodeshm_reduction_t *r, void *out, const void *a,
                                          const void *b, size_t n)
{
    nodeshm_reduce_combine_by(r, r->fn, r->local, out, a, b, n);
}

/* out[0, n) = contributions first..last (last >= first) reduced in member order, over elements
 * [off, off + n) of each.  Inline, so a face's accessor and kernel calls can be resolved where
 * the face builds its nodeshm_reduction_t (the one-phase paths are latency-bound). */
static inline void nodeshm_reduce_ordered(const nodeshm_reduction_t *r, void *out, size_t off,
                                          size_t n, int first, int last)
{
    const nodeshm_reduce_fn fn = r->fn;
    void (*const local)(const nodeshm_reduction_t *, const void *, void *, size_t) = r->local;
    const char *(*const at)(const nodeshm_reduction_t *, int) = r->at;
    size_t o = off * r->elem;
    const char *c = at(r, first) + o;
    if (last == first) {
        if (out != c) memcpy(out, c, n * r->elem);
        return;
    }
    nodeshm_reduce_combine_by(r, fn, local, out, c, at(r, first + 1) + o, n);
    for (int k = first + 2; k <= last; k++) nodeshm_reduce_combine_by(r, fn, local, out, out, at(r, k) + o, n);
}

/* Member me's slice [*lo, *hi) of a count-element array split among `members`: whole cache lines
 * (64 B), so no two members write one line; trailing members may get an empty slice. */
void nodeshm_reduce_slice(size_t count, size_t elem, int members, int me, size_t *lo, size_t *hi);

/* out[lo, hi) (out: the whole array) = all `members` contributions reduced in member order,
 * elements [lo, hi) of each, in blocks of about 8 KiB: the partial result stays in cache while
 * the contributions stream through. */
void nodeshm_reduce_sliced(const nodeshm_reduction_t *r, char *out, size_t lo, size_t hi, int members);

#endif
