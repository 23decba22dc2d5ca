/* libnodeshm_mpi: node-shared data (include/nodeshm.h).
 *
 * One node file of the core (core/shmfile.h, made by node rank 0, mapped by every node rank)
 * holds the producer/consumer signals, then the region: every rank's part one after the other
 * in node rank order (the comm's order within the node), no gaps, as nodeshm_shared_node_base
 * promises.  sync is the interposer's flag barrier on that node (PMPI_Barrier when the comm has
 * no interposer state).  The signals are the core's belled flags (core/coll/bell.h): per node
 * rank a `ready` and a `done` sequence number that waiters may sleep on, so that 8 ranks on 2
 * cores do not take the time slices of the one that has work. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nodeshm.h"
#include "mpi/nsmpi.h"
#include "core/coll/bell.h"
#include "core/shmfile.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { NSS_READY, NSS_DONE, NSS_KINDS };
static const char *const nss_call[NSS_KINDS] = {"nodeshm_shared_publish", "nodeshm_shared_release"};
static const char *const nss_wait_call[NSS_KINDS] = {"nodeshm_shared_wait", "nodeshm_shared_wait_released"};

struct nodeshm_shared {
    MPI_Comm comm;      /* a private duplicate: its state is ours alone */
    MPI_Comm node;      /* used when there is no interposer state (one rank per node) */
    nsm_state_t *state;
    int rank, node_rank, node_size, n_nodes, node_id;
    int *node_index_of; /* [comm size]: node rank, or -1 if on another node */
    char *map;          /* the node file: signals, then the region */
    size_t map_bytes;
    char *base;         /* the region (NULL when it is empty) */
    size_t bytes;
    size_t *part;       /* [node_size + 1]: node rank i's part is base[part[i], part[i + 1]) */
    nodeshm_bells_t sig[NSS_KINDS]; /* node_size flags each */
    uint64_t last[NSS_KINDS]; /* my last epoch of each kind */
};

int nodeshm_comm_split_node(MPI_Comm comm, MPI_Comm *node)
{
    int rank, rc;
    if ((rc = PMPI_Comm_rank(comm, &rank)) != MPI_SUCCESS) return rc;
    if (!__atomic_load_n(&nsm_cfg.loaded, __ATOMIC_ACQUIRE)) nsm_load_config(); /* checked value */
    return nsm_split_node(comm, node, NULL);
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
    nodeshm_comm_split_node(h->comm, &h->node); /* ordered as the state's node ranks */
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

    /* every node rank's part, in node rank order */
    unsigned long long mine = my_bytes, *sizes = malloc(sizeof *sizes * (size_t)h->node_size);
    h->part = malloc(sizeof *h->part * (size_t)(h->node_size + 1));
    if (!sizes || !h->part) return MPI_ERR_NO_MEM;
    PMPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, sizes, 1, MPI_UNSIGNED_LONG_LONG, h->node);
    h->part[0] = 0;
    for (int i = 0; i < h->node_size; i++) h->part[i + 1] = h->part[i] + (size_t)sizes[i];
    free(sizes);
    h->bytes = h->part[h->node_size];
    /* the signals first, then the region on a page boundary */
    size_t sig_bytes = (size_t)NSS_KINDS * (size_t)h->node_size * NODESHM_BELL_BLOCK;
    size_t region_at = (sig_bytes + 4095) & ~(size_t)4095;
    h->map_bytes = region_at + h->bytes;
    char why[160] = "";
    h->map = nodeshm_shm_node_map(h->node, h->map_bytes, "node-shared data", why, sizeof why);
    if (!h->map) {
        if (why[0])
            fprintf(stderr, "nodeshm: nodeshm_shared_alloc: %zu bytes for the node (this rank: %zu): %s\n",
                    h->map_bytes, my_bytes, why);
        return MPI_ERR_NO_MEM;
    }
    h->base = h->bytes ? h->map + region_at : NULL;
    for (int k = 0; k < NSS_KINDS; k++)
        h->sig[k] = (nodeshm_bells_t){h->map + (size_t)k * (size_t)h->node_size * NODESHM_BELL_BLOCK,
                                      h->node_size};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    nsm_wait_policy(cpus > 0 && h->node_size > cpus); /* when MPI_Init and no state did it */
    *out = h;
    return MPI_SUCCESS;
}

int nodeshm_shared_free(nodeshm_shared_t *hp)
{
    nodeshm_shared_t h = *hp;
    if (!h) return MPI_SUCCESS;
    PMPI_Barrier(h->node); /* no rank still reads a peer's part */
    if (h->map) munmap(h->map, h->map_bytes);
    free(h->part);
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
    int i = h->node_index_of[rank];
    size_t sz = h->part[i + 1] - h->part[i];
    if (bytes) *bytes = sz;
    return sz ? h->base + h->part[i] : NULL;
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

/* ---------------------------------------------------------------- producer/consumer signals */

static int nss_signal(nodeshm_shared_t h, int kind, uint64_t epoch)
{
    if (!h) return MPI_ERR_ARG;
    if (epoch <= h->last[kind]) {
        fprintf(stderr, "nodeshm: %s: epoch %" PRIu64 " is not above this rank's previous one (%" PRIu64 ")\n",
                nss_call[kind], epoch, h->last[kind]);
        return MPI_ERR_ARG;
    }
    h->last[kind] = epoch;
    nodeshm_bell_store(nodeshm_bell_at(&h->sig[kind], h->node_rank), epoch);
    return MPI_SUCCESS;
}

/* Node index of rank for a signal call, or -1 after saying why (call names the public call). */
static int nss_node_index(nodeshm_shared_t h, const char *call, int rank)
{
    int size;
    PMPI_Comm_size(h->comm, &size);
    if (rank < 0 || rank >= size || h->node_index_of[rank] < 0) {
        fprintf(stderr, "nodeshm: %s: rank %d is %s\n", call, rank,
                rank < 0 || rank >= size ? "out of range" : "on another node");
        return -1;
    }
    return h->node_index_of[rank];
}

static int nss_wait(nodeshm_shared_t h, int kind, int rank, uint64_t epoch)
{
    if (!h) return MPI_ERR_ARG;
    int first = 0, n = h->node_size;
    if (rank != NODESHM_ALL_RANKS) {
        if ((first = nss_node_index(h, nss_wait_call[kind], rank)) < 0) return MPI_ERR_RANK;
        n = 1;
    }
    nodeshm_bells_wait_ge(&h->sig[kind], first, n, epoch);
    return MPI_SUCCESS;
}

int nodeshm_shared_test(nodeshm_shared_t h, int rank, uint64_t epoch, int *flag)
{
    if (!h || !flag) return MPI_ERR_ARG;
    *flag = 0;
    int i = nss_node_index(h, "nodeshm_shared_test", rank);
    if (i < 0) return MPI_ERR_RANK;
    *flag = nodeshm_bell_reached(nodeshm_bell_at(&h->sig[NSS_READY], i), epoch);
    return MPI_SUCCESS;
}

int nodeshm_shared_publish(nodeshm_shared_t h, uint64_t epoch) { return nss_signal(h, NSS_READY, epoch); }
int nodeshm_shared_release(nodeshm_shared_t h, uint64_t epoch) { return nss_signal(h, NSS_DONE, epoch); }
int nodeshm_shared_wait(nodeshm_shared_t h, int rank, uint64_t epoch) { return nss_wait(h, NSS_READY, rank, epoch); }
int nodeshm_shared_wait_released(nodeshm_shared_t h, int rank, uint64_t epoch)
{
    return nss_wait(h, NSS_DONE, rank, epoch);
}
