/* nodeshm core, node collectives: the scan family of both faces, written once (issue 17).
 *
 * Inclusive and exclusive prefix reductions over a team in member order, on a node's
 * publications (publish.h) and a face's reduction kernel (reduce.h):
 *   on a node, member i waits only for members 0..i-1 (which publish without waiting for
 *   anyone) and reduces their contributions, then its own, in member order straight into its
 *   output: every element is ((c0 op c1) op c2) ..., on one node the same bits as a serial
 *   left-to-right reduction (the faces' ops commute bit for bit, so which operand of a pair
 *   comes first does not change a bit);
 *   between nodes, when every node's members are one run of the team in order (the face checks),
 *   the node total (the last member's inclusive prefix) goes into the shared buffer, the leader
 *   runs the leaders' exclusive scan on it in place, and the members of every node but the first
 *   combine it with their node prefix: (earlier nodes) op (my node's prefix), not the serial
 *   order, so floats may differ from it in the last bits, as MPI libraries' tree scans do.
 * One flag round at every size: a chunked variant (each member scanning a slice of the vector
 * across all contributions, then a second round) took 1.4-9 ms per call from 8 KiB at 2-8 ranks
 * in mpi_osu (MPICH, load 23-25 on 2 cores) where this took 3-150 us up to 4 KiB: every member
 * had to run twice after all arrived.
 *
 * What stays in the faces: their arguments and hand-overs, how much one call may move (the MPI
 * face: one call up to its window; the OpenSHMEM face: rounds of at most a staging buffer, each
 * a call here), what an exclusive scan's first member gets (MPI: its buffer untouched;
 * OpenSHMEM: zeros), and the OpenSHMEM face's chain for small vectors between nodes. */
#ifndef NODESHM_COLL_SCAN_H
#define NODESHM_COLL_SCAN_H

#include "core/coll/publish.h"
#include "core/coll/reduce.h"

#include <stddef.h>
#include <string.h>

/* out = the contributions of the team's members up to mine (exclusive: before mine; out is not
 * written on the first node's member 0) of count elements, through p (this call's
 * publications; ops: the face's ops on them) and r (the kernel, and at(k): member k's
 * contribution as p publishes it; mine, at(me), stays there until the call ends).  at(me) may
 * be out itself (in place) only on member 0, whose node prefix is its contribution; elsewhere
 * it must be a copy.  Returns the exchange's status (0: it went well, or there was none).
 * Inlined always, as reduce.h's ordered reduction is: where a face passes its static const ops
 * table the compiler sees which functions they are, and the MPI face's publications become the
 * flag stores and loads that the scan had inline before it was shared (small scans are
 * latency-bound: 0.2-0.5 us at 4 ranks). */
static inline __attribute__((always_inline)) int nodeshm_scan(const nodeshm_pub_ops_t *ops, nodeshm_pub_t *p,
                                                              const nodeshm_reduction_t *r, void *out,
                                                              size_t count, int exclusive)
{
    const size_t bytes = count * r->elem;
    const int me = p->me, last = p->n - 1;
    int rc = 0;
    ops->post(p, NODESHM_PUB_DATA);
    /* member me waits only for members 0..me-1, which publish without waiting for anyone */
    for (int j = 0; j < me; j++) ops->await(p, j, NODESHM_PUB_DATA);
    /* out = my node prefix: members 0..upto in member order (reduce.h) */
    const int upto = exclusive ? me - 1 : me, have = upto >= 0;
    if (have) nodeshm_reduce_ordered(r, out, 0, count, 0, upto);

    if (p->n_nodes > 1) {
        /* the node total into the shared buffer, the leaders' exclusive scan of the totals there */
        char *total = ops->shared(p);
        if (me == last) {
            const char *mine = r->at(r, me);
            if (!exclusive) memcpy(total, out, bytes);
            else if (!have) {
                if (total != mine) memcpy(total, mine, bytes);
            } else if (total == mine) /* the face kept my contribution there: mine op prefix */
                nodeshm_reduce_combine(r, total, total, out, count);
            else nodeshm_reduce_combine(r, total, out, mine, count);
            ops->post(p, NODESHM_PUB_SHARED);
        }
        if (me == 0) {
            if (last > 0) ops->await(p, last, NODESHM_PUB_SHARED);
            rc = ops->exscan(p, total, count);
            ops->post(p, NODESHM_PUB_SHARED); /* after an error too: nobody waits forever */
        }
        if (p->my_node > 0) { /* the first node's members have no earlier node */
            if (me > 0) ops->await(p, 0, NODESHM_PUB_SHARED);
            if (have) nodeshm_reduce_combine(r, out, out, total, count);
            else memcpy(out, total, bytes);
        }
    }
    ops->done(p);
    return rc;
}

#endif
