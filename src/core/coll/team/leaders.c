/* nodeshm core, OpenSHMEM team collectives: what the node leaders use between nodes.
 *
 * A team's leaders communicator is made lazily by MPI_Comm_split of the team's communicator
 * (rank in it = team node number) and cached per team slot.  Reductions between nodes use MPI's
 * own op, or the caller's kernel as an MPI user op (op MPI_OP_NULL). */
#include "core/coll/team/team_coll.h"

#include <limits.h>

static struct leaders_cache {
    const nodeshm_team_t *team;
    MPI_Comm team_comm;
    char *heap; /* the runtime it was made in */
    MPI_Comm leaders;
} leaders_cache[NODESHM_TEAM_SLOTS], own_cache[NODESHM_TEAM_SLOTS];

/* A split of the team's communicator (color MPI_UNDEFINED: none), cached per team slot. */
static int split_cached(const char *call, const nodeshm_team_t *t, struct leaders_cache *c,
                        int color, int key, const char *what, MPI_Comm *out)
{
    char *heap = nodeshm_rt.seg[NODESHM_SEG_HEAP].base;
    if (c->team == t && c->team_comm == t->comm && c->heap == heap) {
        *out = c->leaders;
        return NODESHM_OK;
    }
    if (c->heap == heap && c->leaders != MPI_COMM_NULL) MPI_Comm_free(&c->leaders);
    c->team = NULL;
    MPI_Comm comm = MPI_COMM_NULL;
    if (MPI_Comm_split(t->comm, color, key, &comm) != MPI_SUCCESS)
        return nodeshm_report(NODESHM_ERR_MPI, call, "MPI_Comm_split for %s failed", what);
    c->team = t;
    c->team_comm = t->comm;
    c->heap = heap;
    c->leaders = comm;
    *out = comm;
    return NODESHM_OK;
}

int nodeshm_coll_leaders(const char *call, const nodeshm_team_t *t, MPI_Comm *out)
{
    int leader = t->node_leader[t->my_node] == t->my_pe;
    return split_cached(call, t, &leaders_cache[t->slot], leader ? 0 : MPI_UNDEFINED, t->my_pe,
                        "the team's node leaders", out);
}

int nodeshm_coll_own_comm(const char *call, const nodeshm_team_t *t, MPI_Comm *out)
{
    return split_cached(call, t, &own_cache[t->slot], 0, t->my_pe, "the team's point-to-point",
                        out);
}

/* A leader waits for its MPI requests with the wait policy (core/wait.h: spin briefly, then
 * yield), not inside a blocking MPI call: emulated hosts share the machine's cores, and a leader
 * spinning in MPI can hold the core that the other node's leader needs to answer it. */
int coll_leaders_waitall(const char *call, int n, MPI_Request *reqs, const char *what)
{
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    for (;;) {
        int done = 0;
        if (MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            return nodeshm_coll_mpi_failed(call, what);
        if (done) return NODESHM_OK;
        nodeshm_wait_step(&w);
    }
}

int nodeshm_coll_mpi_failed(const char *call, const char *what)
{
    return nodeshm_report(NODESHM_ERR_MPI, call, "%s failed", what);
}

int nodeshm_coll_too_big(const char *call, size_t bytes)
{
    return nodeshm_report(NODESHM_ERR_ARG, call, "%zu bytes between nodes: more than the %d an MPI "
                                                 "count can hold", bytes, INT_MAX);
}

/* MPI_OP_NULL asks for the library's own kernel between nodes too (an MPI user op): MPI
 * libraries may saturate instead of wrapping on 8- and 16-bit sums (Open MPI's AVX ops do), and
 * the result must not depend on where the PEs are. */
static _Thread_local nodeshm_reduce_fn user_fn;
static MPI_Op user_op = MPI_OP_NULL;
static char *user_op_heap;

static void user_op_apply(void *in, void *inout, int *len, MPI_Datatype *dtype)
{
    (void)dtype;
    user_fn(inout, inout, in, (size_t)*len);
}

int coll_mpi_op(const char *call, MPI_Op *op, nodeshm_reduce_fn fn)
{
    user_fn = fn;
    if (*op != MPI_OP_NULL) return NODESHM_OK;
    char *heap = nodeshm_rt.seg[NODESHM_SEG_HEAP].base;
    if (user_op == MPI_OP_NULL || user_op_heap != heap) { /* made once per runtime */
        if (MPI_Op_create(user_op_apply, 1, &user_op) != MPI_SUCCESS)
            return nodeshm_coll_mpi_failed(call, "MPI_Op_create");
        user_op_heap = heap;
    }
    *op = user_op;
    return NODESHM_OK;
}

int nodeshm_coll_allreduce_inplace(const char *call, void *buf, size_t count, size_t elem,
                                   MPI_Datatype dtype, MPI_Op op, nodeshm_reduce_fn fn, MPI_Comm comm)
{
    int rc = coll_mpi_op(call, &op, fn);
    if (rc) return rc;
    const size_t chunk = (size_t)1 << 28;
    for (size_t off = 0; off < count; off += chunk) {
        size_t len = count - off < chunk ? count - off : chunk;
        if (MPI_Allreduce(MPI_IN_PLACE, (char *)buf + off * elem, (int)len, dtype, op, comm) !=
            MPI_SUCCESS)
            return nodeshm_coll_mpi_failed(call, "MPI_Allreduce between node leaders");
    }
    return NODESHM_OK;
}
