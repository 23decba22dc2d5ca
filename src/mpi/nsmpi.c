/* libnodeshm_mpi: node-aware MPI collectives by PMPI interposition.
 *
 * Within a node, ranks meet in one node-shared memory file per communicator and node (its
 * "window", the core's node-collective area: core/coll/area.h): copy in, flags, copy out.
 * Between nodes the node leaders (node rank 0) call the MPI library (PMPI_*) on their leaders
 * communicator.
 * Anything we do not accelerate, or that is above a size threshold, goes to PMPI_* unchanged.
 *
 * Every decision (accelerate or not) depends only on values that MPI requires to agree on all
 * ranks (type signature bytes, op, root, comm), so all ranks take the same path.  Data moves in
 * packed form (the type signature's bytes), so ranks may use different datatypes with the same
 * signature in Bcast/Gather, as MPI allows.
 *
 * This file: the per-op counters, the shared buffers' sizes and datatype helpers (the flags,
 * banks and ring themselves: core/coll/); the per-communicator state's life is in state.c; each
 * operation has its own file (barrier.c, bcast.c, allreduce.c, gather.c ...). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi/nsmpi.h"
#include "nodeshm.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

nsm_config_t nsm_cfg;
nsm_op_stats_t nsm_stats[NSM_OP_COUNT];

/* The ops' names (NSM_OPS), as NODESHM_MPI_DISABLE spells them, and its extra word: the one
 * table of them (nsmpi.h), for the settings (init.c), the stats report (stats.c) and
 * nodeshm_mpi_accelerated_op; the settings' names derived from it (nsm_op_var) */
const char *const nsm_op_names[NSM_OP_COUNT + 1] = {
#define NSM_OP_NAME(id, name, mpich, ompi) #name,
    NSM_OPS(NSM_OP_NAME)
#undef NSM_OP_NAME
    "all",
};

void nsm_op_var(char *var, size_t len, int op, const char *bound)
{
    snprintf(var, len, "NODESHM_MPI_%s_%s", nsm_op_id_name(op), bound);
    for (char *c = var; *c; c++) *c = (char)toupper((unsigned char)*c);
}

long nodeshm_mpi_accelerated(void)
{
    long n = 0;
    for (int i = 0; i < NSM_OP_COUNT; i++) n += __atomic_load_n(&nsm_stats[i].accelerated, __ATOMIC_RELAXED);
    return n;
}

const char *nsm_op_id_name(int op) { return op >= 0 && op < NSM_OP_COUNT ? nsm_op_names[op] : "?"; }

long nodeshm_mpi_accelerated_op(const char *op)
{
    for (int i = 0; op && i < NSM_OP_COUNT; i++)
        if (!strcasecmp(op, nsm_op_names[i])) return __atomic_load_n(&nsm_stats[i].accelerated, __ATOMIC_RELAXED);
    fprintf(stderr, "nodeshm_mpi: nodeshm_mpi_accelerated_op: unknown op \"%s\" (barrier bcast gather ...)\n",
            op ? op : "(null)");
    return -1;
}

/* ---------------------------------------------------------------- the shared buffers' sizes
 *
 * The flags, banks and ring themselves are the core's node-collective area (core/coll/area.h);
 * what this face decides is how large its ops need them. */

#define NSM_RING_BUDGET ((size_t)4 << 20) /* ring bytes per communicator */

/* A slot's share of the stage cap (one-node alltoall matrices grow with size^2). */
static size_t nsm_a2a_bytes(const nsm_state_t *s, size_t want)
{
    size_t cap = nsm_cfg.stage_max / (size_t)s->node_size;
    return want < cap ? want : cap;
}

/* Shared buffer sizes for the thresholds in max: the largest need of any accelerated op.
 * result: one message for all ranks of the node; slots: one per node rank (node_size); stage:
 * the leaders' staging between nodes.  Each op adds its own lines here (switched-off ops need
 * nothing).  Lays out the state's banks; returns the bytes of one bank. */
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
     * or the leaders' stage holding what the node sends and receives; between nodes what
     * alltoallv's members publish for their leader */
    if (s->n_nodes == 1) NSM_NEED(slot, nsm_a2a_bytes(s, (size_t)s->size * max[NSM_OP_ALLTOALL]));
    else NSM_NEED(stage, 2 * (size_t)s->max_node_size * (size_t)s->size * max[NSM_OP_ALLTOALL]);
    if (s->n_nodes == 1) NSM_NEED(slot, nsm_a2a_bytes(s, (size_t)s->size * max[NSM_OP_ALLTOALLV]));
    else NSM_NEED(stage, 2 * (size_t)s->max_node_size * (size_t)s->size * max[NSM_OP_ALLTOALLV]);
    if (s->n_nodes == 1) NSM_NEED(slot, nsm_a2a_bytes(s, (size_t)s->size * max[NSM_OP_ALLTOALLW])); /* one node only */
    /* scans: a slot each, between nodes the node total in the result area; reduce_scatter: as
     * reduce_scatter_block */
    NSM_NEED(slot, max[NSM_OP_SCAN]);
    NSM_NEED(slot, max[NSM_OP_EXSCAN]);
    if (s->n_nodes > 1) NSM_NEED(result, max[NSM_OP_SCAN]);
    if (s->n_nodes > 1) NSM_NEED(result, max[NSM_OP_EXSCAN]);
    NSM_NEED(result, max[NSM_OP_REDUCE_SCATTER]);
    NSM_NEED(slot, max[NSM_OP_REDUCE_SCATTER]);
    if (max[NSM_OP_ALLTOALLV] && s->n_nodes > 1)
        NSM_NEED(result, (size_t)s->max_node_size * nsm_a2av_meta_bytes(s->size));
    /* non-blocking between nodes, in the stage (nonblocking_nodes_v.c): iallgatherv every block,
     * ialltoall(v) the matrix as alltoall's, ialltoallv's members' lines as alltoallv's; the
     * other non-blocking ops there use what their blocking forms size */
    if (s->n_nodes > 1) {
        NSM_NEED(stage, (size_t)s->size * max[NSM_OP_IALLGATHERV]);
        NSM_NEED(stage, 2 * (size_t)s->max_node_size * (size_t)s->size * max[NSM_OP_IALLTOALL]);
        NSM_NEED(stage, 2 * (size_t)s->max_node_size * (size_t)s->size * max[NSM_OP_IALLTOALLV]);
        if (max[NSM_OP_IALLTOALLV]) NSM_NEED(result, (size_t)s->max_node_size * nsm_a2av_meta_bytes(s->size));
    }
#undef NSM_NEED
    return nodeshm_banks_layout(&s->area.banks, result, slot, node_size,
                                stage < nsm_cfg.stage_max ? stage : nsm_cfg.stage_max);
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
 * lines, banks and (one node only: between nodes the leaders' MPI calls pace the root) the ring. */
size_t nsm_plan_buffers(nsm_state_t *s)
{
    nsm_fit_window(s);
    s->area.banks.n = nsm_cfg.banks;
    (void)nodeshm_ring_plan(&s->area.ring, s->n_nodes > 1 ? 0 : nsm_cfg.ring_depth, nsm_cfg.ring_bytes,
                            s->node_size, NSM_RING_BUDGET);
    return nodeshm_area_bytes(&s->area, s->node_size);
}

/* Points the flags and buffers into the node's shared memory (s->shm, zeroed when made). */
void nsm_map_buffers(nsm_state_t *s) { nodeshm_area_map(&s->area, s->shm, s->node_rank, s->node_size); }

/* ---------------------------------------------------------------- data movement helpers */

long long nsm_type_bytes(int count, MPI_Datatype type)
{
    int tsize;
    if (count < 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &tsize) != MPI_SUCCESS) return -1;
    return (long long)count * tsize;
}

int nsm_envelope_named(MPI_Datatype type)
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
