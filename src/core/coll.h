/* nodeshm core: collective algorithms over a team, node-aware (one family per file in
 * core/coll/team/, each describing its algorithms; their mechanisms: core/coll/team/team_coll.h).
 * Byte- and callback-oriented, so that the OpenSHMEM face and a later MPI face can share them.
 *
 * Every function is collective over the members of `t`, with the same arguments on all of them
 * (but `nbytes` of collect, which may differ).  dest and src are symmetric addresses.  On
 * return my dest is complete and my src may be reused; my dest is written by nobody but me
 * once I have returned, and nobody writes it before I have entered (a collective that pushes
 * into peers' dests syncs the node first), so collectives may follow each other on the same or
 * overlapping teams with nothing between them.  No collective implies a barrier: a member may
 * return before others have entered (use nodeshm_coll_sync for that).  Errors are reported
 * once, naming `call`, and returned. */
#ifndef NODESHM_COLL_H
#define NODESHM_COLL_H

#include "core/coll/reduce.h" /* nodeshm_reduce_fn: the reduction family of both faces */
#include "core/team.h"

#include <mpi.h>
#include <stddef.h>

/* Reads NODESHM_COLL_EAGER_MAX (shmem_init, before any collective). */
int nodeshm_coll_configure(void);

/* team_sync (see nodeshm_team_sync, team.h): on one node a node sync over the team slot's flags
 * (a dissemination barrier, or an arrival count when PEs outnumber cores); across nodes a node
 * sync, the node leaders' MPI_Barrier and a node sync. */
int nodeshm_coll_sync(const char *call, nodeshm_team_t *t);

/* dest (nbytes) on every member = src (nbytes) of team member `root`; the root's own dest too
 * when `root_dest` (team-based), not otherwise (the deprecated active-set forms). */
int nodeshm_coll_broadcast(const char *call, nodeshm_team_t *t, void *dest, const void *src,
                           size_t nbytes, int root, int root_dest);

/* dest = the members' src blocks concatenated in team order.  fixed != 0 (fcollect): every
 * member passes the same nbytes; else each passes its own. */
int nodeshm_coll_collect(const char *call, nodeshm_team_t *t, void *dest, const void *src,
                         size_t nbytes, int fixed);

/* Element k of the block for member j is src[(j * nelems + k) * sst]; it lands on member j at
 * dest[(i * nelems + k) * dst] (i = sender), elements of `elem` bytes, strides in elements >= 1. */
int nodeshm_coll_alltoalls(const char *call, nodeshm_team_t *t, void *dest, const void *src,
                           size_t dst, size_t sst, size_t nelems, size_t elem);

/* dest[i] = OP over the members of src[i], i < count; dest == src allowed (in place).  `fn` is
 * the operation on `elem`-byte elements; `dtype`/`op` the same for MPI (between nodes), or
 * op = MPI_OP_NULL: `fn` as an MPI user op (commutative) there too. */
int nodeshm_coll_reduce(const char *call, nodeshm_team_t *t, void *dest, const void *src,
                        size_t count, size_t elem, nodeshm_reduce_fn fn, MPI_Datatype dtype,
                        MPI_Op op);

/* dest[i] = OP over members 0..me (inclusive) or 0..me-1 (exclusive; zeros on member 0) of
 * src[i], i < count; dest == src allowed.  fn/dtype/op as for reduce. */
int nodeshm_coll_scan(const char *call, nodeshm_team_t *t, void *dest, const void *src,
                      size_t count, size_t elem, nodeshm_reduce_fn fn, MPI_Datatype dtype,
                      MPI_Op op, int exclusive);

/* Local, before a team's slot is freed: waits until my node peers have read everything I staged
 * for this team (they need nothing from me for that), so a later team may reuse the staging. */
void nodeshm_coll_team_retire(nodeshm_team_t *t);

/* This PE's calls of a family ("sync", "broadcast", "collect", "fcollect", "alltoall", "reduce",
 * "scan") by the path they took ("node": one node; "leaders": nodeshm's node leaders between
 * nodes; "library": the MPI library's collective over the team), counted since start-up; -1 for
 * a name it does not know (core/coll/team/paths.c). */
long nodeshm_coll_calls(const char *family, const char *path);

#endif
