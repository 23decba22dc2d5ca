/* nodeshm core: wait policy. */
#include "core/wait.h"
#include "core/env.h"
#include "core/remote.h"

unsigned nodeshm_spin_limit = 4096;
unsigned nodeshm_polls_per_yield = 1;
int nodeshm_wait_needs_progress = 0;
int nodeshm_wait_oversubscribed = 0;
int nodeshm_lock_threads = 1; /* core/lock.h */
long nodeshm_release_yield_ns = 0;

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

/* Between nodes, a node peer waiting for its leader's release (core/coll/team/fan.c: the leader
 * is in the leaders' MPI exchange, usually a network round trip) yields for up to
 * RELEASE_YIELD_NS past its spin before it sleeps on the bell (core/coll/bell.c): a sleeper's
 * wake-up cost more than that exchange where at most two PEs share a CPU.  nodeshm-bench-coll on
 * 2 emulated hosts, quiet machine, main and this alternating in both orders, 2 rounds each,
 * nodeshm's time: 2 x 2 PEs on 2 cores, Open MPI team_sync 28.1 -> 17.5 us, fcollect 28-34 ->
 * 16-20 us, collect 30 -> 14-21 us, reduce_int 30-43 -> 19-34 us (to 4 KiB: ratio to the library
 * 0.62-1.39x -> 1.04-2.43x); MPICH team_sync 36.3 -> 24.8 us, fcollect 8-64 B 38-39 -> 23 us,
 * collect 8-32 B 37-38 -> 23 us, reduce_int 8 B 35 -> 24 us, but where MPICH's exchange is slower
 * (reduce_int from 16 B, fcollect and collect from 128 B: 38-68 us asleep) no gain to 256 B and a
 * loss above (reduce_int 512 B-4 KiB 56-68 -> 78-96 us, 1.25x -> 0.84-0.92x of MPI_Allreduce):
 * kept, as its worst case (0.84x) beats sleeping's (0.59-0.65x at 8-64 B); 15 and 25 us windows
 * measured worse than either.  Its yields make no MPI progress calls: with them the peer took its
 * leader's CPU (MPICH 2 x 2 reduce_int 16-256 B 43 -> 50 us).  With four PEs per CPU (2 x 4) it
 * depends on the MPI: Open MPI (whose waits yield: OMPI_MCA_mpi_yield_when_idle) gained again,
 * team_sync 95.8 -> 34.3 us, collect 46-68 -> 36-54 us; MPICH (its throttled progress, oshrun)
 * lost everywhere, team_sync 62.7 -> 77.5 us, reduce_int 63-65 -> 109-119 us: its yielding peers
 * took the leaders' turns, as fan.c's note says, so there they sleep at once. */
#define RELEASE_YIELD_NS 50000L
#if defined(MPICH_VERSION)
#define RELEASE_YIELD_WHEN_CROWDED 0
#else
#define RELEASE_YIELD_WHEN_CROWDED 1
#endif

void nodeshm_wait_configure(int oversubscribed, int crowded, int spans_nodes)
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
    nodeshm_release_yield_ns = spans_nodes && (!crowded || RELEASE_YIELD_WHEN_CROWDED) ? RELEASE_YIELD_NS : 0;
}

void nodeshm_wait_progress(void) { nodeshm_remote_progress(); }
