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

#include <stddef.h>

/* out = the contributions of the team's members up to mine (exclusive: before mine; out is not
 * written on the first node's member 0) of count elements, through p (this call's
 * publications: the face has put my contribution where p->at(me) says, and it stays there until
 * the call ends) and op's kernel (its at is not used).  at(me) may be out itself (in place)
 * only on member 0, whose node prefix is its contribution; elsewhere it must be a copy.
 * Returns the exchange's status (0: it went well, or there was none). */
int nodeshm_scan(nodeshm_pub_t *p, const nodeshm_reduction_t *op, void *out, size_t count, int exclusive);

#endif
