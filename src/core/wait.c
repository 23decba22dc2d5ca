/* nodeshm core: wait policy. */
#include "core/wait.h"
#include "core/env.h"
#include "core/remote.h"

unsigned nodeshm_spin_limit = 4096;
int nodeshm_wait_needs_progress = 0;
int nodeshm_wait_oversubscribed = 0;

void nodeshm_wait_configure(int oversubscribed, int spans_nodes)
{
    /* Oversubscribed: the PE we wait for probably needs our core, so yield almost at once. */
    nodeshm_wait_oversubscribed = oversubscribed;
    long spins = nodeshm_wait_oversubscribed ? 16 : 4096;
    if (nodeshm_env_long("NODESHM_SPIN_COUNT", spins, 0, 1L << 30, &spins) == 0)
        nodeshm_spin_limit = (unsigned)spins;
    nodeshm_wait_needs_progress = spans_nodes;
}

void nodeshm_wait_progress(void) { nodeshm_remote_progress(); }
