/* libnodeshm_mpi: node-shared data (include/nodeshm.h).
 *
 * The region is an MPI_Win_allocate_shared window on the comm's node communicator (contiguous:
 * rank order within the node, as in the comm's interposer state); sync is the interposer's flag
 * barrier on that node (PMPI_Barrier when the comm has no shared buffers).
 *
 * The producer/consumer signals live in a second, small shared window: per node rank a `ready`
 * and a `done` counter, each in its own 128-byte block (adjacent-line prefetch would otherwise
 * make neighbours' counters share traffic) with a "bell" beside it.  A waiter that has spun and
 * yielded in vain registers on the bell of the first counter it still waits for and sleeps on
 * it (futex: the window is a shared mapping, so the kernel keys the word by its file page); a
 * signaller stores its counter, then rings its own bell only if someone is registered there.
 * So a rank waiting for all is woken by the ranks it is still waiting for, not by every
 * signal of every rank.  Dekker's pattern
 * (store; full fence; load on both sides) makes sure that either the signaller sees the waiter
 * or the waiter sees the counter, so no wake-up is lost; the sleep also has a timeout.  Why
 * sleep at all: with 8 ranks on 2 cores, 7 ranks yielding in a loop take most of the time
 * slices from the one rank that has work (measured: bench/mpi_seed_gather.c). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nodeshm.h"
#include "mpi/nsmpi.h"

#include <inttypes.h>
#include <linux/futex.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NSS_BLOCK 128 /* bytes per counter */
#define NSS_YIELDS 4  /* sched_yield calls between spinning and sleeping */

typedef struct nss_counter {
    uint64_t value;   /* the owner's last epoch */
    uint32_t rings;   /* the futex word: bumped by a signal while someone sleeps */
    uint32_t waiters; /* ranks registered to sleep on `rings` */
} nss_counter_t;

enum { NSS_READY, NSS_DONE, NSS_KINDS };
static const char *const nss_call[NSS_KINDS] = {"nodeshm_shared_publish", "nodeshm_shared_release"};
static const char *const nss_wait_call[NSS_KINDS] = {"nodeshm_shared_wait", "nodeshm_shared_wait_released"};

struct nodeshm_shared {
    MPI_Comm comm;      /* a private duplicate: its state is ours alone */
    MPI_Comm node;      /* used when there is no interposer state (one rank per node) */
    nsm_state_t *state;
    MPI_Win win;
    int rank, node_rank, node_size, n_nodes, node_id;
    int *node_index_of; /* [comm size]: node rank, or -1 if on another node */
    char *base;
    size_t bytes;
    MPI_Win sig_win;    /* the signals: NSS_KINDS x node_size counters */
    char *sig;
    uint64_t last[NSS_KINDS]; /* my last epoch of each kind */
};

static nss_counter_t *nss_counter(nodeshm_shared_t h, int kind, int node_rank)
{
    return (nss_counter_t *)(h->sig + ((size_t)kind * (size_t)h->node_size + (size_t)node_rank) * NSS_BLOCK);
}

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

    /* the signals: node rank 0 holds them all; zeroed before anyone looks */
    size_t sig_bytes = (size_t)NSS_KINDS * (size_t)h->node_size * NSS_BLOCK;
    rc = PMPI_Win_allocate_shared(h->node_rank == 0 ? (MPI_Aint)sig_bytes : 0, NSS_BLOCK, MPI_INFO_NULL,
                                  h->node, &mine, &h->sig_win);
    if (rc != MPI_SUCCESS) return rc;
    PMPI_Win_shared_query(h->sig_win, 0, &sz, &disp, &h->sig);
    if (h->node_rank == 0) memset(h->sig, 0, sig_bytes);
    PMPI_Barrier(h->node);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    nsm_wait_policy(cpus > 0 && h->node_size > cpus); /* when MPI_Init and no state did it */
    *out = h;
    return MPI_SUCCESS;
}

int nodeshm_shared_free(nodeshm_shared_t *hp)
{
    nodeshm_shared_t h = *hp;
    if (!h) return MPI_SUCCESS;
    PMPI_Win_free(&h->sig_win);
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
    nss_counter_t *c = nss_counter(h, kind, h->node_rank);
    nodeshm_flag_store(&c->value, epoch);    /* release: my stores before it */
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* store, fence, load: Dekker */
    if (__atomic_load_n(&c->waiters, __ATOMIC_RELAXED)) {
        __atomic_fetch_add(&c->rings, 1, __ATOMIC_RELEASE);
        syscall(SYS_futex, &c->rings, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    }
    return MPI_SUCCESS;
}

/* The first of node ranks [first, first + n) whose counter of `kind` is below epoch, or -1 when
 * all have reached it (acquire). */
static int nss_lagging(nodeshm_shared_t h, int kind, int first, int n, uint64_t epoch)
{
    for (int i = first; i < first + n; i++)
        if (nodeshm_flag_load(&nss_counter(h, kind, i)->value) < epoch) return i;
    return -1;
}

static int nss_wait(nodeshm_shared_t h, int kind, int rank, uint64_t epoch)
{
    if (!h) return MPI_ERR_ARG;
    int first = 0, n = h->node_size, size;
    if (rank != NODESHM_ALL_RANKS) {
        PMPI_Comm_size(h->comm, &size);
        if (rank < 0 || rank >= size || h->node_index_of[rank] < 0) {
            fprintf(stderr, "nodeshm: %s: rank %d is %s\n", nss_wait_call[kind], rank,
                    rank < 0 || rank >= size ? "out of range" : "on another node");
            return MPI_ERR_RANK;
        }
        first = h->node_index_of[rank];
        n = 1;
    }
    /* core/wait.h's spinning and yielding first; then sleep, as a producer may be slow */
    nodeshm_waiter_t w = NODESHM_WAITER_INIT;
    unsigned yields = 0;
    for (int lag; (lag = nss_lagging(h, kind, first, n, epoch)) >= 0; n -= lag - first, first = lag) {
        if (w.spins < nodeshm_spin_limit || yields++ < NSS_YIELDS) {
            nodeshm_wait_step(&w);
            continue;
        }
        nss_counter_t *c = nss_counter(h, kind, lag); /* sleep until this one signals */
        uint32_t rings = __atomic_load_n(&c->rings, __ATOMIC_ACQUIRE);
        __atomic_fetch_add(&c->waiters, 1, __ATOMIC_SEQ_CST);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (nodeshm_flag_load(&c->value) < epoch) {
            struct timespec limit = {0, 50 * 1000 * 1000}; /* a safety net, not the mechanism */
            syscall(SYS_futex, &c->rings, FUTEX_WAIT, rings, &limit, NULL, 0);
        }
        __atomic_fetch_sub(&c->waiters, 1, __ATOMIC_SEQ_CST);
    }
    return MPI_SUCCESS;
}

int nodeshm_shared_publish(nodeshm_shared_t h, uint64_t epoch) { return nss_signal(h, NSS_READY, epoch); }
int nodeshm_shared_release(nodeshm_shared_t h, uint64_t epoch) { return nss_signal(h, NSS_DONE, epoch); }
int nodeshm_shared_wait(nodeshm_shared_t h, int rank, uint64_t epoch) { return nss_wait(h, NSS_READY, rank, epoch); }
int nodeshm_shared_wait_released(nodeshm_shared_t h, int rank, uint64_t epoch)
{
    return nss_wait(h, NSS_DONE, rank, epoch);
}
