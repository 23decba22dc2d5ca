/* libnodeshm_mpi: MPI_Bcast: the root packs into the node's result area, node peers copy out;
 * between nodes the root sends the packed bytes to the other nodes' leaders, which release their
 * node (up to NSM_ROOT_DIRECT_NODES nodes; beyond, the leaders broadcast them: leaders.h).  Whole, not pipelined: with the root
 * announcing every 32, 64 or 128 KiB chunk so that readers copy while it writes, Open MPI 5 at
 * 2 ranks fell from 1.1-1.9x of its own MPI_Bcast to 0.45-0.91x at 256 KiB-1 MiB (readers then
 * pull lines still modified in the root core's cache), and no size or rank count gained. */
#include "mpi/nsmpi.h"
#include "mpi/leaders.h"

#include <stdlib.h>

NSM_BODY int accelerated_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    /* switched off, or a size outside the window: straight to the MPI library, no lookups */
    long long bytes = nsm_op_max(NSM_OP_BCAST) ? nsm_bytes(count, type) : -1; /* alike on all ranks */
    if (bytes < 0 || (size_t)bytes > nsm_cfg.max[NSM_OP_BCAST] ||
        (bytes > 0 && (size_t)bytes < nsm_op_min(NSM_OP_BCAST))) {
        NSM_HAND(NSM_OP_BCAST, comm, NULL, 0, bytes, NSM_WHY_DATATYPE);
        return PMPI_Bcast(buf, count, type, root, comm);
    }
    nsm_state_t *s = nsm_get_state(comm);
    if (!s || root < 0 || root >= s->size || (size_t)bytes > s->max[NSM_OP_BCAST] ||
        (bytes > 0 && (size_t)bytes < s->min[NSM_OP_BCAST])) {
        NSM_HAND(NSM_OP_BCAST, comm, s, 1, bytes, NSM_WHY_ARGS);
        return PMPI_Bcast(buf, count, type, root, comm);
    }
    if (bytes == 0) {
        NSM_WHY(NSM_WHY_EMPTY);
        return MPI_SUCCESS;
    }
    int root_node = s->node_of[root];
    int root_here = root_node == s->my_node;
    int direct = nsm_root_direct(s); /* the root sends to the other leaders itself */
    /* between nodes only the root and the other nodes' leaders write the result area; the rest
     * only read it, so they need not wait for the previous call's readers */
    int writes = s->n_nodes == 1 || s->rank == root || (s->node_rank == 0 && !root_here);
    uint64_t seq = writes ? nsm_begin_sized(s, NSM_OP_BCAST, (size_t)bytes)
                          : nsm_begin_reader_sized(s, NSM_OP_BCAST, (size_t)bytes);
    int root_nr = root_here ? s->stage_index[root] - s->node_first[root_node] : -1;
    if (s->rank == root) {
        nsm_pack(s->area.cur.result, (size_t)bytes, buf, count, type, comm);
        nodeshm_flags_arrive(&s->area.flags, seq);
        if (direct) {
            MPI_Request *req = nsm_requests(s->n_nodes, "MPI_Bcast");
            int n = 0;
            for (int r = 0; r < s->size; r++)
                if (nsm_is_leader(s, r) && s->node_of[r] != root_node)
                    PMPI_Isend(s->area.cur.result, (int)bytes, MPI_BYTE, s->p2p_rank[r], s->p2p_tag, nsm_p2p,
                               &req[n++]);
            PMPI_Waitall(n, req, MPI_STATUSES_IGNORE);
            free(req);
        }
    }
    if (s->n_nodes == 1) {
        if (s->rank != root) nodeshm_flags_wait_arrive(&s->area.flags, root_nr, seq);
    } else if (s->node_rank == 0 && !(direct && root_here)) {
        if (root_here && s->rank != root) nodeshm_flags_wait_arrive(&s->area.flags, root_nr, seq);
        if (direct)
            PMPI_Recv(s->area.cur.result, (int)bytes, MPI_BYTE, s->p2p_rank[root], s->p2p_tag, nsm_p2p,
                      MPI_STATUS_IGNORE);
        else
            nsm_leaders_bcast(s->area.cur.result, (size_t)bytes, root_node, s->leaders);
        nodeshm_flags_release(&s->area.flags, seq);
    } else if (s->rank != root) {
        /* on the root's node the data is there once the root has arrived: no wait for the
         * leaders' call */
        if (root_here)
            nodeshm_flags_wait_arrive(&s->area.flags, root_nr, seq);
        else
            nodeshm_flags_wait_release(&s->area.flags, seq);
    }
    if (s->rank != root) nsm_unpack(buf, count, type, s->area.cur.result, (size_t)bytes, comm);
    nodeshm_flags_done(&s->area.flags, seq);
    return MPI_SUCCESS;
}

/* The entry, frame-less (only tail calls): for the commonest types the size window is a few
 * compares, so a call left to the MPI library costs little more than a jump (the body's frame
 * and PMPI_Type_size cost 5-9% of a 0.12-0.3 us tiny collective under Open MPI); any other type
 * goes to the body, which checks everything itself. */
NSM_STATS_TWIN(Bcast, NSM_OP_BCAST, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm),
               (buf, count, type, root, comm), nsm_stat_bytes(count, type))

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    if (NSM_STATS_ON) return stats_Bcast(buf, count, type, root, comm);
    if (nsm_known_outside(NSM_OP_BCAST, count, type)) return PMPI_Bcast(buf, count, type, root, comm);
    return accelerated_Bcast(buf, count, type, root, comm);
}
NSM_ENTRY_ALIAS(Bcast)
