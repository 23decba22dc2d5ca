/* nodeshm core: wait policy. */
#include "core/wait.h"
#include "core/env.h"
#include "core/remote.h"

unsigned nodeshm_spin_limit = 4096;
unsigned nodeshm_polls_per_yield = 1;
int nodeshm_wait_needs_progress = 0;
int nodeshm_wait_oversubscribed = 0;

/* Between nodes with a core per PE, a waiting PE past its spin keeps polling MPI and yields only
 * every WAIT_POLLS_PER_YIELD polls.  RMA that needs the target to progress (Open MPI's osc over
 * tcp, MPICH's confirmation fetch) is answered only while the target is inside MPI; a target that
 * yielded at every poll gave its core away for a whole time slice whenever the machine had other
 * work, and an MPI_Get+flush that takes 12 us against a target in MPI_Recv (which never yields)
 * took ms against one in shmem_wait_until.  When PEs outnumber cores, the PE we wait for may need
 * this core: yield at every poll, as before. */
#define WAIT_POLLS_PER_YIELD 256

void nodeshm_wait_configure(int oversubscribed, int spans_nodes)
{
    /* Oversubscribed: the PE we wait for probably needs our core, so yield almost at once. */
    nodeshm_wait_oversubscribed = oversubscribed;
    long spins = nodeshm_wait_oversubscribed ? 16 : 4096;
    if (nodeshm_env_long("NODESHM_SPIN_COUNT", spins, 0, 1L << 30, &spins) == 0)
        nodeshm_spin_limit = (unsigned)spins;
    long polls = oversubscribed ? 1 : WAIT_POLLS_PER_YIELD;
    if (nodeshm_env_long("NODESHM_POLLS_PER_YIELD", polls, 1, 1L << 30, &polls) == 0)
        nodeshm_polls_per_yield = (unsigned)polls;
    nodeshm_wait_needs_progress = spans_nodes;
}

void nodeshm_wait_progress(void) { nodeshm_remote_progress(); }
