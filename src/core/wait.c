/* nodeshm core: wait policy. */
#include "core/wait.h"
#include "core/env.h"
#include "core/remote.h"

unsigned nodeshm_spin_limit = 4096;
unsigned nodeshm_polls_per_yield = 1;
int nodeshm_wait_needs_progress = 0;
int nodeshm_wait_oversubscribed = 0;

/* Between nodes with a core per PE, a waiting PE past its spin may keep polling MPI and yield
 * only every NODESHM_POLLS_PER_YIELD polls: RMA that needs the target to progress (Open MPI's osc
 * over tcp, MPICH's confirmation fetch) is answered only while the target is inside MPI.  Not by
 * default: on 2 emulated hosts x 1 PE (MPICH, nodeshm-bench p2p, 2 cores at a load of 30-35, 2
 * alternating rounds) 256 polls per yield made shmem_getmem 0.77-1.25x of MPI_Get+flush against
 * 0.67-2.98x with a yield per poll, but every operation of the job, MPI's own columns included,
 * took 10-50x longer (MPI_Get+flush 7-15 ms against 0.04-0.46 ms): the PE on the other "host"
 * shares this machine's cores, and a poller that keeps its core takes them from it.  Where PEs
 * outnumber cores it is 1 whatever the setting says. */
#define WAIT_POLLS_PER_YIELD 1

void nodeshm_wait_configure(int oversubscribed, int spans_nodes)
{
    /* Oversubscribed: the PE we wait for probably needs our core, so yield almost at once. */
    nodeshm_wait_oversubscribed = oversubscribed;
    long spins = nodeshm_wait_oversubscribed ? 16 : 4096;
    if (nodeshm_env_long("NODESHM_SPIN_COUNT", spins, 0, 1L << 30, &spins) == 0)
        nodeshm_spin_limit = (unsigned)spins;
    long polls = WAIT_POLLS_PER_YIELD;
    if (oversubscribed ||
        nodeshm_env_long("NODESHM_POLLS_PER_YIELD", polls, 1, 1L << 30, &polls) != 0)
        polls = 1;
    nodeshm_polls_per_yield = (unsigned)polls;
    nodeshm_wait_needs_progress = spans_nodes;
}

void nodeshm_wait_progress(void) { nodeshm_remote_progress(); }
