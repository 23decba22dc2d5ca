/* nodeshm core: flags a waiter may sleep on ("belled" flags).
 *
 * A belled flag is a flags.h-style sequence number (one writer, values only grow) with a futex
 * word beside it.  A waiter spins by core/wait.h's policy (briefly where ranks outnumber cores);
 * if the flag is still behind it registers on the bell of the first flag it still waits for and
 * sleeps in the kernel; the writer stores its value, then rings its own bell only if someone is
 * registered.  A rank waiting for all is thus woken by the ranks it still waits for, not by every
 * signal of every rank.  Dekker's pattern (store; full fence; load, on both sides) makes sure
 * that either the writer sees the waiter or the waiter sees the value, so no wake-up is lost;
 * the sleep also has a timeout, as a safety net (where the job spans nodes, a short one, after
 * which the sleeper drives MPI progress: bell.c).  Why sleep at all: with 8 ranks on 2 cores,
 * 7 ranks yielding in a loop take most of the time slices from the one rank that has work
 * (measured with bench/mpi_seed_gather.c).  Why no yields before the sleep: these waits are for
 * a peer's phase of work (the FFT node remap waits for peers' FFT stages), long against a yield,
 * and a yielding waiter stays runnable, taking turns it cannot use (nodeshm-fft's node remap,
 * Open MPI, 8 ranks on 2 cores, 6-8 alternating rounds: 64^3 2.0 -> 2.3x mpi-p2p's remap after 4
 * yields -> none; seed gather within noise).  The OpenSHMEM collectives' node peers sleep so for
 * their leader's release between nodes (core/coll/team/fan.c).
 *
 * Each flag sits in a block of its own (NODESHM_BELL_BLOCK bytes: the adjacent-line prefetcher
 * would otherwise make neighbours' flags share traffic), in node-shared memory every waiter
 * maps (the kernel keys the futex word by its file page). */
#ifndef NODESHM_COLL_BELL_H
#define NODESHM_COLL_BELL_H

#include <stddef.h>
#include <stdint.h>

#define NODESHM_BELL_BLOCK 128

typedef struct nodeshm_bell {
    uint64_t value;   /* the owner's last sequence number */
    uint32_t rings;   /* the futex word: bumped by a store while someone sleeps */
    uint32_t waiters; /* waiters registered to sleep on `rings` */
} nodeshm_bell_t;

/* n flags, NODESHM_BELL_BLOCK bytes apart, from `base` (zeroed memory). */
typedef struct nodeshm_bells {
    char *base;
    int n;
} nodeshm_bells_t;

static inline nodeshm_bell_t *nodeshm_bell_at(const nodeshm_bells_t *b, int i)
{
    return (nodeshm_bell_t *)(b->base + (size_t)i * NODESHM_BELL_BLOCK);
}

/* The owner's store of `value` (release: its stores before it), waking registered sleepers. */
void nodeshm_bell_store(nodeshm_bell_t *bell, uint64_t value);

/* Whether bell's value is >= value, without waiting (acquire when it is). */
static inline int nodeshm_bell_reached(const nodeshm_bell_t *bell, uint64_t value)
{
    return __atomic_load_n(&bell->value, __ATOMIC_ACQUIRE) >= value;
}

/* Waits until flags [first, first + n) of `b` are all >= value (acquire). */
void nodeshm_bells_wait_ge(const nodeshm_bells_t *b, int first, int n, uint64_t value);
/* The same, polling with yields (core/wait.h's steps) for up to yield_ns past the spin before it
 * sleeps: for a wait that is usually over within a network round trip (core/wait.c). */
void nodeshm_bells_wait_ge_yielding(const nodeshm_bells_t *b, int first, int n, uint64_t value, long yield_ns);

#endif
