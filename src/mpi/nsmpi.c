/* libnodeshm_mpi: node-aware MPI collectives by PMPI interposition.
 *
 * Within a node, ranks meet in one node-shared memory file per communicator and node (its
 * "window"): copy in, flags, copy out.  Every flag is a 64-bit sequence number in a cache line
 * that only its owner writes (release store / acquire load), so nothing is ever reset.  Between nodes the
 * node leaders (node rank 0) call the MPI library (PMPI_*) on their leaders communicator.
 * Anything we do not accelerate, or that is above a size threshold, goes to PMPI_* unchanged.
 *
 * Every decision (accelerate or not) depends only on values that MPI requires to agree on all
 * ranks (type signature bytes, op, root, comm), so all ranks take the same path.  Data moves in
 * packed form (the type signature's bytes), so ranks may use different datatypes with the same
 * signature in Bcast/Gather, as MPI allows.
 *
 * This file: the per-op counters, flags, the shared buffers' sizes and datatype helpers; the
 * per-communicator state's life is in state.c; each operation has its own file (barrier.c,
 * bcast.c, allreduce.c, gather.c ...). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi/nsmpi.h"
#include "nodeshm.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

nsm_config_t nsm_cfg;
nsm_op_stats_t nsm_stats[NSM_OP_COUNT];

/* The ops' names, as NODESHM_MPI_DISABLE spells them. */
static const char *const nsm_op_names[NSM_OP_COUNT] = {
#define NSM_OP_NAME(id, name, mpich, ompi) #name,
    NSM_OPS(NSM_OP_NAME)
#undef NSM_OP_NAME
};

long nodeshm_mpi_accelerated(void)
{
    long n = 0;
    /* as before per-op counts existed: alltoallv calls whose vote ran here count too (tests tell
     * by them whether a call went through the interposer's vote) */
    for (int i = 0; i < NSM_OP_COUNT; i++)
        n += __atomic_load_n(&nsm_stats[i].accelerated, __ATOMIC_RELAXED) +
             __atomic_load_n(&nsm_stats[i].voted_out, __ATOMIC_RELAXED);
    return n;
}

long nodeshm_mpi_accelerated_op(const char *op)
{
    for (int i = 0; op && i < NSM_OP_COUNT; i++)
        if (!strcasecmp(op, nsm_op_names[i])) return __atomic_load_n(&nsm_stats[i].accelerated, __ATOMIC_RELAXED);
    fprintf(stderr, "nodeshm_mpi: nodeshm_mpi_accelerated_op: unknown op \"%s\" (barrier bcast gather ...)\n",
            op ? op : "(null)");
    return -1;
}

/* ---------------------------------------------------------------- waiting and flags */

uint64_t nsm_wait_all(const nsm_state_t *s, size_t field, uint64_t v)
{
    uint64_t low = UINT64_MAX;
    for (int i = 0; i < s->node_size; i++) {
        uint64_t seen = nsm_wait_ge(s, (const uint64_t *)((const char *)&s->lines[i] + field), v);
        if (seen < low) low = seen;
    }
    return low;
}

uint64_t nsm_use_buffers(nsm_state_t *s, uint64_t seq, size_t need)
{
    if (s->ring_depth > 0 && s->n_nodes == 1 && need <= s->ring_slot) {
        s->result = s->ring0 + (size_t)(seq % (uint64_t)s->ring_depth) * s->ring_bank_bytes;
        s->slots = s->result + s->ring_slot;
        s->stage = NULL;
        s->slot_stride = s->ring_slot;
        return (uint64_t)s->ring_depth;
    }
    s->result = s->bank0 + (size_t)(seq % (uint64_t)s->n_banks) * s->bank_bytes;
    s->slots = s->result + s->result_bytes;
    s->stage = s->slots + s->slot_bytes * (size_t)s->node_size;
    s->slot_stride = s->slot_bytes;
    return (uint64_t)s->n_banks;
}

/* The buffers of op seq were last used by op seq - reused or earlier; done flags only grow, so
 * done >= seq - reused on every peer means all of those readers finished. */
uint64_t nsm_begin_uncounted(nsm_state_t *s, size_t need)
{
    uint64_t seq = ++s->seq, reused = nsm_use_buffers(s, seq, need);
    /* done flags only grow: the lowest one seen covers every later need up to it, so a rank
     * running ahead in the small ring reads its peers' lines about once per ring, not per call */
    if (seq > reused && seq - reused > s->done_seen) s->done_seen = nsm_wait_all(s, NSM_F_DONE, seq - reused);
    return seq;
}

#define NSM_RING_BUDGET ((size_t)4 << 20)

static size_t nsm_round(size_t x) { return (x + NSM_LINE - 1) / NSM_LINE * NSM_LINE; }

/* A slot's share of the stage cap (one-node alltoall matrices grow with size^2). */
static size_t nsm_a2a_bytes(const nsm_state_t *s, size_t want)
{
    size_t cap = nsm_cfg.stage_max / (size_t)s->node_size;
    return want < cap ? want : cap;
}

/* Shared buffer sizes for the thresholds in s->max: the largest need of any accelerated op.
 * result: one message for all ranks of the node; slots: one per node rank (node_size); stage:
 * the leaders' staging between nodes.  Each op adds its own lines here (switched-off ops need
 * nothing).  Returns the bytes of one bank. */
static size_t nsm_size_buffers(nsm_state_t *s, const size_t *max, int node_size)
{
    size_t result = 0, slot = 0, stage = 0;
#define NSM_NEED(area, bytes)                                                                      \
    do {                                                                                           \
        size_t need_ = (bytes);                                                                    \
        if (need_ > (area)) (area) = need_;                                                        \
    } while (0)
    NSM_NEED(result, max[NSM_OP_BCAST]);
    NSM_NEED(result, max[NSM_OP_ALLREDUCE]);
    NSM_NEED(slot, max[NSM_OP_ALLREDUCE]);
    NSM_NEED(slot, max[NSM_OP_GATHER]);
    if (s->n_nodes > 1) NSM_NEED(stage, (size_t)s->size * max[NSM_OP_GATHER]);
    /* gatherv, scatterv: one node only (between nodes: the MPI library), blocks above the
     * threshold go point to point; scatter, allgather(v): between nodes in the stage */
    if (s->n_nodes == 1) NSM_NEED(slot, max[NSM_OP_GATHERV]);
    if (s->n_nodes == 1) NSM_NEED(slot, max[NSM_OP_SCATTERV]);
    if (s->n_nodes == 1) NSM_NEED(slot, max[NSM_OP_SCATTER]);
    else NSM_NEED(stage, (size_t)s->size * max[NSM_OP_SCATTER]);
    if (s->n_nodes == 1) NSM_NEED(slot, max[NSM_OP_ALLGATHER]);
    else NSM_NEED(stage, (size_t)s->size * max[NSM_OP_ALLGATHER]);
    if (s->n_nodes == 1) NSM_NEED(slot, max[NSM_OP_ALLGATHERV]);
    else NSM_NEED(stage, (size_t)s->size * max[NSM_OP_ALLGATHERV]);
    NSM_NEED(result, max[NSM_OP_REDUCE]);
    NSM_NEED(slot, max[NSM_OP_REDUCE]);
    NSM_NEED(result, max[NSM_OP_REDUCE_SCATTER_BLOCK]);
    NSM_NEED(slot, max[NSM_OP_REDUCE_SCATTER_BLOCK]);
    /* alltoall(v): a size x size matrix of blocks (slots on one node, capped like the stage),
     * or the leaders' stage holding what the node sends and receives; alltoallv's votes */
    if (s->n_nodes == 1) NSM_NEED(slot, nsm_a2a_bytes(s, (size_t)s->size * max[NSM_OP_ALLTOALL]));
    else NSM_NEED(stage, 2 * (size_t)s->max_node_size * (size_t)s->size * max[NSM_OP_ALLTOALL]);
    if (s->n_nodes == 1) NSM_NEED(slot, nsm_a2a_bytes(s, (size_t)s->size * max[NSM_OP_ALLTOALLV]));
    else NSM_NEED(stage, 2 * (size_t)s->max_node_size * (size_t)s->size * max[NSM_OP_ALLTOALLV]);
    if (max[NSM_OP_ALLTOALLV]) NSM_NEED(result, ((size_t)s->max_node_size + 1) * NSM_LINE);
#undef NSM_NEED
    s->result_bytes = nsm_round(result);
    s->slot_bytes = nsm_round(slot);
    s->stage_bytes = nsm_round(stage < nsm_cfg.stage_max ? stage : nsm_cfg.stage_max);
    return s->result_bytes + s->slot_bytes * (size_t)node_size + s->stage_bytes;
}

/* The communicator's thresholds: the configured ones, where the buffer banks of the largest node
 * fit NODESHM_MPI_WINDOW_MAX (the window is sparse, but what large messages touch stays mapped
 * until MPI_Comm_free, and a container's /dev/shm may be small).  Only the ops over the budget
 * shrink: while the banks do not fit, the op whose buffers alone would be the largest (ties: all
 * of them) has its threshold halved, so one widened window (NODESHM_MPI_GATHER_MAX=1g) costs the
 * other ops nothing (they were all halved with it before: 4 ranks, gather at 1g, took a 16 KiB
 * bcast off the shared path).  Every rank computes the same from agreed values (configuration,
 * size, max_node_size). */
static void nsm_fit_window(nsm_state_t *s)
{
    for (int i = 0; i < NSM_OP_COUNT; i++) s->max[i] = nsm_op_max_at(i, s->max_node_size, s->n_nodes);
    for (int round = 0; round < 64 * NSM_OP_COUNT; round++) {
        if ((size_t)nsm_cfg.banks * nsm_size_buffers(s, s->max, s->max_node_size) <= nsm_cfg.window_max) break;
        size_t alone[NSM_OP_COUNT], largest = 0;
        for (int i = 0; i < NSM_OP_COUNT; i++) {
            size_t one[NSM_OP_COUNT] = {0};
            one[i] = s->max[i];
            alone[i] = s->max[i] ? nsm_size_buffers(s, one, s->max_node_size) : 0;
            if (alone[i] > largest) largest = alone[i];
        }
        if (!largest) break;
        for (int i = 0; i < NSM_OP_COUNT; i++)
            if (alone[i] == largest) s->max[i] /= 2;
    }
    (void)nsm_size_buffers(s, s->max, s->node_size);
}

/* The thresholds and buffer sizes here; returns the bytes of the node's shared memory: flag
 * lines, banks, ring. */
size_t nsm_plan_buffers(nsm_state_t *s)
{
    nsm_fit_window(s);
    s->n_banks = nsm_cfg.banks;
    s->bank_bytes = s->result_bytes + s->slot_bytes * (size_t)s->node_size + s->stage_bytes;
    s->ring_slot = nsm_round(nsm_cfg.ring_bytes);
    s->ring_bank_bytes = s->ring_slot * ((size_t)s->node_size + 1);
    /* at most NSM_RING_BUDGET per communicator (big nodes get a shallower ring), but a
     * configured depth below 16 is kept (tests) */
    size_t fit = NSM_RING_BUDGET / s->ring_bank_bytes;
    s->ring_depth = s->n_nodes > 1 || !s->ring_slot ? 0
                    : nsm_cfg.ring_depth <= 16 || (size_t)nsm_cfg.ring_depth <= fit ? nsm_cfg.ring_depth
                    : fit < 16 ? 16 : (int)fit;
    return sizeof(nsm_line_t) * ((size_t)s->node_size + 1) + (size_t)s->n_banks * s->bank_bytes +
           (size_t)s->ring_depth * s->ring_bank_bytes;
}

/* Points the flags and buffers into the node's shared memory (s->shm, zeroed when made). */
void nsm_map_buffers(nsm_state_t *s)
{
    s->lines = (nsm_line_t *)s->shm;
    s->bank0 = s->shm + sizeof(nsm_line_t) * ((size_t)s->node_size + 1);
    s->ring0 = s->bank0 + (size_t)s->n_banks * s->bank_bytes;
    (void)nsm_use_buffers(s, 0, NSM_NEED_ANY);
}

/* ---------------------------------------------------------------- data movement helpers */

long long nsm_type_bytes(int count, MPI_Datatype type)
{
    int tsize;
    if (count < 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &tsize) != MPI_SUCCESS) return -1;
    return (long long)count * tsize;
}

int nsm_is_named(MPI_Datatype type)
{
    int ni, na, nd, comb;
    if (PMPI_Type_get_envelope(type, &ni, &na, &nd, &comb) != MPI_SUCCESS) return 0;
    return comb == MPI_COMBINER_NAMED;
}

int nsm_is_dense(MPI_Datatype type)
{
    if (nsm_known_size(type)) return 1; /* those are dense: no 3 calls into the library */
    if (!nsm_is_named(type)) return 0;
    int tsize;
    MPI_Aint lb, extent;
    PMPI_Type_size(type, &tsize);
    PMPI_Type_get_extent(type, &lb, &extent);
    return lb == 0 && extent == tsize;
}

void nsm_pack_as(void *dst, size_t bytes, const void *src, int count, MPI_Datatype type, int dense,
                 MPI_Comm comm)
{
    if (!bytes) return;
    if (dense) {
        memcpy(dst, src, bytes);
    } else {
        int pos = 0;
        PMPI_Pack(src, count, type, dst, (int)bytes, &pos, comm);
    }
}

void nsm_unpack_as(void *dst, int count, MPI_Datatype type, int dense, const void *src, size_t bytes,
                   MPI_Comm comm)
{
    if (!bytes) return;
    if (dense) {
        memcpy(dst, src, bytes);
    } else {
        int pos = 0;
        PMPI_Unpack(src, (int)bytes, &pos, dst, count, type, comm);
    }
}

void nsm_pack(void *dst, size_t bytes, const void *src, int count, MPI_Datatype type, MPI_Comm comm)
{
    if (bytes) nsm_pack_as(dst, bytes, src, count, type, nsm_is_dense(type), comm);
}

void nsm_unpack(void *dst, int count, MPI_Datatype type, const void *src, size_t bytes, MPI_Comm comm)
{
    if (bytes) nsm_unpack_as(dst, count, type, nsm_is_dense(type), src, bytes, comm);
}

int nsm_op_ok(MPI_Op op)
{
    return op == MPI_SUM || op == MPI_PROD || op == MPI_MAX || op == MPI_MIN || op == MPI_LAND ||
           op == MPI_LOR || op == MPI_LXOR || op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR ||
           op == MPI_MAXLOC || op == MPI_MINLOC;
}
