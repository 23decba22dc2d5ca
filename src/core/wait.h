/* nodeshm core: how a PE waits.
 *
 * Spin briefly (a peer on another core answers in well under a microsecond), then yield the
 * core, so that when PEs outnumber cores (8 PEs on 2 cores in CI) the PE we wait for gets to
 * run.  While waiting, a job that spans nodes also drives MPI progress, because passive-target
 * RMA aimed at this PE may need this PE to enter the MPI library; there, unless PEs outnumber
 * the machine's cores, NODESHM_POLLS_PER_YIELD may make it poll several times per yield after
 * the spin (wait.c says why not by default). */
#ifndef NODESHM_WAIT_H
#define NODESHM_WAIT_H

#include <sched.h>

typedef struct nodeshm_waiter { unsigned spins; } nodeshm_waiter_t;
#define NODESHM_WAITER_INIT {0}

extern unsigned nodeshm_spin_limit;    /* pause-spins before the first yield */
extern unsigned nodeshm_polls_per_yield; /* past the spin, spanning nodes: polls per yield */
extern int nodeshm_wait_needs_progress; /* set when the job spans nodes */
extern int nodeshm_wait_oversubscribed;  /* more PEs on this machine than CPUs */
extern long nodeshm_release_yield_ns;    /* a node peer's wait for its leader's release: wait.c */
void nodeshm_wait_progress(void);

static inline void nodeshm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

/* One step of a wait loop: call it each time the awaited condition is still false.  A job that
 * spans nodes polls MPI every 8 spins (it used to be every 64, 3.6 us of pause on this
 * machine's EPYC, on top of the ~3 us poll: an answer or signal from another node waited that
 * long in the socket), and a poll counts as 64 spins, so that the spinning before the first
 * yield lasts no longer than before (4096 spins, each a poll, kept a loaded machine's cores for
 * 12 ms).  Past the spin it polls at every step and yields after every nodeshm_polls_per_yield
 * of them (1 by default, and always where PEs outnumber cores). */
static inline void nodeshm_wait_step(nodeshm_waiter_t *w)
{
    if (w->spins < nodeshm_spin_limit) {
        w->spins++;
        nodeshm_cpu_relax();
        if (nodeshm_wait_needs_progress && (w->spins & 7) == 0) {
            w->spins += 56;
            nodeshm_wait_progress();
        }
        return;
    }
    if (nodeshm_wait_needs_progress) {
        nodeshm_wait_progress();
        /* spins past the limit count the polls since the last yield */
        if (++w->spins - nodeshm_spin_limit < nodeshm_polls_per_yield) return;
        w->spins = nodeshm_spin_limit;
    }
    sched_yield();
}

/* `oversubscribed` must be the same on every PE: barrier algorithms are chosen by it. */
/* For calls that look without waiting (test, signal_fetch): programs poll with them, so they
 * must drive MPI progress too, or RMA aimed at this PE from another node never lands. */
static inline void nodeshm_poll_progress(void)
{
    if (nodeshm_wait_needs_progress) nodeshm_wait_progress();
}

/* crowded: more than two PEs per CPU on this machine. */
void nodeshm_wait_configure(int oversubscribed, int crowded, int spans_nodes);

#endif
