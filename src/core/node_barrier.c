/* nodeshm core: node-aware barrier. */
#include "core/node_barrier.h"
#include "core/coll/flags.h"
#include "core/runtime.h"

#include <mpi.h>

static uint64_t dissemination_epoch; /* barriers done so far: the same on every node PE */

static void dissemination_barrier(void)
{
    int n = nodeshm_rt.topo.node_n_pes, me = nodeshm_rt.topo.node_my_pe;
    uint64_t epoch = ++dissemination_epoch;
    nodeshm_ctrl_t *mine = nodeshm_ctrl_of(me);
    for (int k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        nodeshm_ctrl_t *partner = nodeshm_ctrl_of((me + dist) % n);
        nodeshm_flag_store(&partner->dissemination[k].epoch, epoch);
        /* >=: a fast partner may already be one barrier ahead */
        (void)nodeshm_flag_wait_ge(&mine->dissemination[k].epoch, epoch);
    }
}

static int barrier(const char *call, int with_leaders)
{
    nodeshm_ctrl_t *c = nodeshm_ctrl_of(0);
    int n = nodeshm_rt.topo.node_n_pes;
    int leader = nodeshm_rt.topo.node_my_pe == 0;
    int cross = with_leaders && nodeshm_rt.spans_nodes;
    if (!cross && !nodeshm_wait_oversubscribed) {
        dissemination_barrier();
        return NODESHM_OK;
    }
    /* read the generation before arriving, or the release could be missed */
    uint64_t gen = __atomic_load_n(&c->barrier_generation, __ATOMIC_ACQUIRE);
    uint64_t arrived = __atomic_add_fetch(&c->barrier_arrived, 1, __ATOMIC_ACQ_REL);
    if (!cross) {
        /* the last to arrive releases: nobody waits for one particular PE to be scheduled */
        if (arrived == (uint64_t)n) {
            __atomic_store_n(&c->barrier_arrived, 0, __ATOMIC_RELAXED);
            nodeshm_flag_store(&c->barrier_generation, gen + 1);
            return NODESHM_OK;
        }
    } else if (leader) {
        (void)nodeshm_flag_wait_ge(&c->barrier_arrived, (uint64_t)n); /* counts up to n, then 0 */
        __atomic_store_n(&c->barrier_arrived, 0, __ATOMIC_RELAXED);
        int err = MPI_Barrier(nodeshm_rt.topo.leaders);
        nodeshm_flag_store(&c->barrier_generation, gen + 1);
        if (err != MPI_SUCCESS) return nodeshm_report(NODESHM_ERR_MPI, call, "MPI_Barrier failed");
        return NODESHM_OK;
    }
    (void)nodeshm_flag_wait_ge(&c->barrier_generation, gen + 1); /* generations only grow */
    return NODESHM_OK;
}

int nodeshm_world_barrier(const char *call) { return barrier(call, 1); }

void nodeshm_node_barrier(void) { (void)barrier("node_barrier", 0); }
