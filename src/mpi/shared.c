/* libnodeshm_mpi: node-shared data (include/nodeshm.h).
 *
 * The region is an MPI_Win_allocate_shared window on the node communicator of the comm's
 * interposer state (contiguous: rank order within the node); sync is the interposer's flag
 * barrier on that node (PMPI_Barrier when the comm has no shared buffers). */
#include "nodeshm.h"
#include "mpi/nsmpi.h"

#include <stdlib.h>

struct nodeshm_shared {
    MPI_Comm comm;      /* a private duplicate: its state is ours alone */
    MPI_Comm node;      /* used when there is no interposer state (one rank per node) */
    nsm_state_t *state;
    MPI_Win win;
    int rank, node_rank, node_size, n_nodes, node_id;
    int *node_index_of; /* [comm size]: node rank, or -1 if on another node */
    char *base;
    size_t bytes;
};

int nodeshm_comm_split_node(MPI_Comm comm, MPI_Comm *node)
{
    int rank, local, rc;
    MPI_Comm physical;
    if ((rc = PMPI_Comm_rank(comm, &rank)) != MPI_SUCCESS) return rc;
    PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &physical);
    const char *ppn = getenv("NODESHM_PES_PER_NODE");
    int k = ppn ? atoi(ppn) : 0;
    PMPI_Comm_rank(physical, &local);
    if (k <= 0) {
        *node = physical;
        return MPI_SUCCESS;
    }
    PMPI_Comm_split(physical, local / k, local, node);
    PMPI_Comm_free(&physical);
    return MPI_SUCCESS;
}

int nodeshm_shared_alloc(MPI_Comm comm, size_t my_bytes, nodeshm_shared_t *out)
{
    *out = NULL;
    int inter, rc;
    if (comm == MPI_COMM_NULL) return MPI_ERR_COMM;
    if ((rc = PMPI_Comm_test_inter(comm, &inter)) != MPI_SUCCESS) return rc;
    if (inter) return MPI_ERR_COMM;
    struct nodeshm_shared *h = calloc(1, sizeof *h);
    if (!h) return MPI_ERR_NO_MEM;
    PMPI_Comm_dup(comm, &h->comm);
    int size;
    PMPI_Comm_rank(h->comm, &h->rank);
    PMPI_Comm_size(h->comm, &size);
    h->state = nsm_get_state(h->comm); /* NULL for size 1 / single-rank nodes / disabled */
    if (h->state) {
        PMPI_Comm_dup(h->state->node, &h->node);
    } else {
        nodeshm_comm_split_node(h->comm, &h->node);
    }
    PMPI_Comm_rank(h->node, &h->node_rank);
    PMPI_Comm_size(h->node, &h->node_size);
    int leader = h->node_rank == 0, nodes_before;
    PMPI_Allreduce(&leader, &h->n_nodes, 1, MPI_INT, MPI_SUM, h->comm);
    PMPI_Exscan(&leader, &nodes_before, 1, MPI_INT, MPI_SUM, h->comm);
    if (h->rank == 0) nodes_before = 0;
    h->node_id = nodes_before;
    PMPI_Bcast(&h->node_id, 1, MPI_INT, 0, h->node); /* the leader's count of earlier leaders */
    h->node_index_of = malloc(sizeof(int) * (size_t)size);
    int *members = malloc(sizeof(int) * (size_t)h->node_size);
    if (!h->node_index_of || !members) return MPI_ERR_NO_MEM;
    PMPI_Allgather(&h->rank, 1, MPI_INT, members, 1, MPI_INT, h->node);
    for (int r = 0; r < size; r++) h->node_index_of[r] = -1;
    for (int i = 0; i < h->node_size; i++) h->node_index_of[members[i]] = i;
    free(members);

    void *mine;
    MPI_Info info;
    PMPI_Info_create(&info);
    PMPI_Info_set(info, "alloc_shared_noncontig", "false");
    rc = PMPI_Win_allocate_shared((MPI_Aint)my_bytes, 1, info, h->node, &mine, &h->win);
    PMPI_Info_free(&info);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Aint sz;
    int disp;
    PMPI_Win_shared_query(h->win, 0, &sz, &disp, &h->base);
    unsigned long long total = my_bytes, node_total;
    PMPI_Allreduce(&total, &node_total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, h->node);
    h->bytes = (size_t)node_total;
    if (h->bytes == 0) h->base = NULL;
    else if (!h->base) { /* rank 0 of the node gave 0 bytes: the region starts later */
        for (int i = 1; i < h->node_size && !h->base; i++) {
            PMPI_Win_shared_query(h->win, i, &sz, &disp, &h->base);
            if (sz == 0) h->base = NULL;
        }
    }
    *out = h;
    return MPI_SUCCESS;
}

int nodeshm_shared_free(nodeshm_shared_t *hp)
{
    nodeshm_shared_t h = *hp;
    if (!h) return MPI_SUCCESS;
    PMPI_Win_free(&h->win);
    PMPI_Comm_free(&h->node);
    PMPI_Comm_free(&h->comm); /* frees the interposer state of the duplicate too */
    free(h->node_index_of);
    free(h);
    *hp = NULL;
    return MPI_SUCCESS;
}

void *nodeshm_shared_ptr(nodeshm_shared_t h, int rank, size_t *bytes)
{
    if (bytes) *bytes = 0;
    if (!h || rank < 0) return NULL;
    int size;
    PMPI_Comm_size(h->comm, &size);
    if (rank >= size || h->node_index_of[rank] < 0) return NULL;
    MPI_Aint sz;
    int disp;
    void *p;
    PMPI_Win_shared_query(h->win, h->node_index_of[rank], &sz, &disp, &p);
    if (bytes) *bytes = (size_t)sz;
    return sz ? p : NULL;
}

void *nodeshm_shared_node_base(nodeshm_shared_t h, size_t *bytes)
{
    if (bytes) *bytes = h ? h->bytes : 0;
    return h ? h->base : NULL;
}

int nodeshm_shared_node_info(nodeshm_shared_t h, int *node_rank, int *node_size, int *n_nodes,
                             int *node)
{
    if (!h) return MPI_ERR_ARG;
    if (node_rank) *node_rank = h->node_rank;
    if (node_size) *node_size = h->node_size;
    if (n_nodes) *n_nodes = h->n_nodes;
    if (node) *node = h->node_id;
    return MPI_SUCCESS;
}

int nodeshm_shared_sync(nodeshm_shared_t h)
{
    if (!h) return MPI_ERR_ARG;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (h->state) {
        nsm_node_barrier(h->state); /* release/acquire flags, sequentially consistent fences */
    } else {
        PMPI_Barrier(h->node);
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return MPI_SUCCESS;
}
