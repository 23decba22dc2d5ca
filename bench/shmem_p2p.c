/* nodeshm-bench-p2p: OpenSHMEM point-to-point performance beside the MPI library, same run.
 *
 * PE 0 and PE 1 are the pair (other PEs only join the barrier test).  Every table compares
 * mechanisms measured in interleaved repetitions, so machine noise hits them alike, and
 * reports medians (-f: and min/max) over repetitions of the slowest PE's time.  memcpy inside
 * one process and a bare cache-line handoff between the two PEs are the physical limits the
 * library is held against.  Flags and --csv rows: bench/bench_util.h (the benchmark contract);
 * CSV tests: pingpong, latency, bandwidth, bibw, amo, barrier.  --cold: latency_cold,
 * bandwidth_cold, bibw_cold only: every operation (each of a window's, each side's of a send/recv)
 * on the next buffer of rings >= 2 x LLC (bench_util.h), so no cache holds its data.
 *
 * cma: PE 0 reads PE 1's PRIVATE buffer with process_vm_readv (nodeshm_cma_read, the single-copy
 * engine of src/core/copy_engine.h, probed by shmem_init); left out, with a note saying why,
 * where CMA does not work (ptrace policy, containers).  nodeshm-bench-pairs compares the shared
 * mapping with CMA under concurrent pairs.
 *
 * Between (pseudo-)nodes (NODESHM_PES_PER_NODE=1: PE 1 on another node) the library's MPI path
 * runs: no cache-line or CMA rows, and two more tests, rma_put and rma_get: blocking
 * shmem_putmem + shmem_quiet and shmem_getmem beside MPI_Put / MPI_Get + MPI_Win_flush on the
 * library's own window (white box: core/remote.h) and memcpy, sizes doubling from 1 MiB (x4
 * below).  The other tables stop at 1 MiB there; rma_* go up to -m max (e.g. -m 1M:64M).
 * Also there: rma_signal (blocking put-with-signal: shmem_putmem_signal + quiet beside MPI_Put +
 * MPI_Accumulate(MPI_REPLACE) of the signal word + flush, same window) and rma_amo, 8 bytes
 * (fetch_add beside MPI_Fetch_and_op + flush, add + quiet beside MPI_Accumulate + flush, each
 * per operation, on the same window). */
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "core/copy_engine.h"
#include "core/remote.h"
#include "core/runtime.h"

#define MAX_SIZE ((size_t)4 << 20)
#define MAX_MECH 8

static int me, npes, reps;
static char *sym_src, *sym_dst;     /* symmetric: shmem transfers */
static char *priv_src, *priv_dst;   /* private: memcpy and MPI origin buffers */
static char *win_buf;
static MPI_Win win;
static uint64_t sig;                /* symmetric (data segment) */
static uint64_t line_a[8], line_b[8]; /* symmetric, one cache line each */
static int remote_pair;             /* PE 1 is on another (pseudo-)node: the MPI path */
static MPI_Win ns_win;              /* the library's window over the heap (remote_pair) */
static MPI_Aint ns_src, ns_dst;     /* sym_src, sym_dst: displacements in ns_win */
static MPI_Aint ns_amo, ns_sig;     /* amo_target[0], [1] (the signal word): the same */

typedef double (*measure_fn)(size_t size, long iters); /* seconds per operation (PE 0) */

static void sync_shmem(void) { shmem_barrier_all(); }
static void sync_mpi(void) { MPI_Barrier(MPI_COMM_WORLD); }

/* --- mechanisms; each returns seconds per operation on PE 0 -------------------------------- */

static double cacheline_oneway(size_t size, long iters)
{
    (void)size;
    volatile uint64_t *mine = me == 0 ? line_b : line_a;
    volatile uint64_t *peer = shmem_ptr(me == 0 ? line_a : line_b, 1 - me);
    sync_shmem();
    double t0 = bench_now();
    for (long i = 1; i <= iters; i++) {
        if (me == 0) {
            __atomic_store_n(peer, (uint64_t)i, __ATOMIC_RELEASE);
            bench_wait_ge((const uint64_t *)mine, (uint64_t)i);
        } else if (me == 1) {
            bench_wait_ge((const uint64_t *)mine, (uint64_t)i);
            __atomic_store_n(peer, (uint64_t)i, __ATOMIC_RELEASE);
        }
    }
    double t = (bench_now() - t0) / (2.0 * (double)iters);
    line_a[0] = line_b[0] = 0;
    sync_shmem();
    return t;
}

static double shmem_pingpong(size_t size, long iters)
{
    sig = 0;
    sync_shmem();
    double t0 = bench_now();
    for (long i = 1; i <= iters; i++) {
        if (me == 0) {
            shmem_putmem_signal(sym_dst, sym_src, size, &sig, (uint64_t)i, SHMEM_SIGNAL_SET, 1);
            shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, (uint64_t)i);
        } else if (me == 1) {
            shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, (uint64_t)i);
            shmem_putmem_signal(sym_dst, sym_src, size, &sig, (uint64_t)i, SHMEM_SIGNAL_SET, 0);
        }
    }
    double t = (bench_now() - t0) / (2.0 * (double)iters);
    sync_shmem();
    return t;
}

/* --cold: operation number n of a measurement uses slot n of each ring (bench_util.h); hot, the
 * rings are the one buffer each.  Every PE takes the same turns (even one that does not copy),
 * so the two sides of a send/recv agree on the slot. */
static bench_ring_t r_psrc, r_pdst, r_ssrc, r_sdst, r_win; /* priv_*, sym_*, win_buf */
static unsigned long turns;
static unsigned long take_turns(long n)
{
    unsigned long t = turns;
    turns += (unsigned long)n;
    return t;
}
#define PSRC(n) bench_slot(&r_psrc, (n))
#define PDST(n) bench_slot(&r_pdst, (n))
#define SSRC(n) bench_slot(&r_ssrc, (n))
#define SDST(n) bench_slot(&r_sdst, (n))
#define WDISP(n) ((MPI_Aint)bench_slot_off(&r_win, (n)))

static double mpi_pingpong(size_t size, long iters)
{
    unsigned long t = take_turns(iters);
    sync_mpi();
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) {
        if (me == 0) {
            MPI_Send(PSRC(t + i), (int)size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(PDST(t + i), (int)size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (me == 1) {
            MPI_Recv(PDST(t + i), (int)size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(PSRC(t + i), (int)size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    double dt = (bench_now() - t0) / (2.0 * (double)iters);
    sync_mpi();
    return dt;
}

static double shmem_put_lat(size_t size, long iters)
{
    unsigned long t = take_turns(iters);
    sync_shmem();
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++) shmem_putmem(SDST(t + i), SSRC(t + i), size, 1);
    double dt = (bench_now() - t0) / (double)iters;
    sync_shmem();
    return dt;
}

static double shmem_get_lat(size_t size, long iters)
{
    unsigned long t = take_turns(iters);
    sync_shmem();
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++) shmem_getmem(SDST(t + i), SSRC(t + i), size, 1);
    double dt = (bench_now() - t0) / (double)iters;
    sync_shmem();
    return dt;
}

static double mpi_put_lat(size_t size, long iters)
{
    unsigned long t = take_turns(iters);
    sync_mpi();
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++) {
            MPI_Put(PSRC(t + i), (int)size, MPI_BYTE, 1, WDISP(t + i), (int)size, MPI_BYTE, win);
            MPI_Win_flush(1, win);
        }
    double dt = (bench_now() - t0) / (double)iters;
    sync_mpi();
    return dt;
}

static double mpi_get_lat(size_t size, long iters)
{
    unsigned long t = take_turns(iters);
    sync_mpi();
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++) {
            MPI_Get(PDST(t + i), (int)size, MPI_BYTE, 1, WDISP(t + i), (int)size, MPI_BYTE, win);
            MPI_Win_flush(1, win);
        }
    double dt = (bench_now() - t0) / (double)iters;
    sync_mpi();
    return dt;
}

static double memcpy_lat(size_t size, long iters)
{
    unsigned long t = take_turns(iters);
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) {
        memcpy(PDST(t + i), PSRC(t + i), size);
        __asm__ __volatile__("" ::: "memory");
    }
    return (bench_now() - t0) / (double)iters;
}

/* Between nodes, blocking: put returns with the source reusable and quiet completes it at the
 * target; get returns with the data.  Private buffers on PE 0, PE 1's symmetric ones through
 * the library's window.  Meanwhile PE 1 waits in its library's own wait, as a program of that
 * library would (nodeshm: shmem_uint64_wait_until; MPI: MPI_Recv), until PE 0 says it is done:
 * where MPI needs the target to progress RMA (active messages) that wait is part of the cost. */
static uint64_t rma_done; /* symmetric: PE 0's "done" number for PE 1 */
static uint64_t rma_seq;  /* the same on every PE: one per measurement */

static void rma_nodeshm_end(uint64_t seq)
{
    if (me == 0) {
        shmem_uint64_atomic_set(&rma_done, seq, 1);
        shmem_quiet();
    } else if (me == 1) {
        shmem_uint64_wait_until(&rma_done, SHMEM_CMP_GE, seq);
    }
}

static void rma_mpi_end(uint64_t seq)
{
    if (me == 0) MPI_Send(&seq, 1, MPI_UINT64_T, 1, 3, MPI_COMM_WORLD);
    else if (me == 1) MPI_Recv(&seq, 1, MPI_UINT64_T, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* One between-node measurement: PE 0 runs `op` iters times (operation n on slot n of the rings)
 * while PE 1 waits as above; `nodeshm`: the OpenSHMEM side, else MPI's. */
typedef void (*rma_op_fn)(size_t size, unsigned long n);
static double rma_time(int nodeshm, rma_op_fn op, size_t size, long iters)
{
    unsigned long t = take_turns(iters);
    uint64_t seq = ++rma_seq;
    nodeshm ? sync_shmem() : sync_mpi();
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++) op(size, t + (unsigned long)i);
    double dt = (bench_now() - t0) / (double)iters;
    nodeshm ? rma_nodeshm_end(seq) : rma_mpi_end(seq);
    nodeshm ? sync_shmem() : sync_mpi();
    return dt;
}

/* Blocking, per operation, on the library's own window: put (+ quiet / flush), get,
 * put-with-signal (the data, then the signal word, complete at the target), 8-byte atomics. */
static uint64_t *amo_target; /* symmetric: [0] the atomics' word, [1] rma_signal's signal */
static void sh_put(size_t s, unsigned long n)
{
    shmem_putmem(SDST(n), PSRC(n), s, 1);
    shmem_quiet();
}
static void mpi_put(size_t s, unsigned long n)
{
    MPI_Put(PSRC(n), (int)s, MPI_BYTE, 1, ns_dst + (MPI_Aint)bench_slot_off(&r_sdst, n), (int)s,
            MPI_BYTE, ns_win);
    MPI_Win_flush(1, ns_win);
}
static void sh_get(size_t s, unsigned long n) { shmem_getmem(PDST(n), SSRC(n), s, 1); }
static void mpi_get(size_t s, unsigned long n)
{
    MPI_Get(PDST(n), (int)s, MPI_BYTE, 1, ns_src + (MPI_Aint)bench_slot_off(&r_ssrc, n), (int)s,
            MPI_BYTE, ns_win);
    MPI_Win_flush(1, ns_win);
}
static void sh_signal(size_t s, unsigned long n)
{
    shmem_putmem_signal(SDST(n), PSRC(n), s, &amo_target[1], n, SHMEM_SIGNAL_SET, 1);
    shmem_quiet();
}
static void mpi_signal(size_t s, unsigned long n)
{
    uint64_t v = n;
    MPI_Put(PSRC(n), (int)s, MPI_BYTE, 1, ns_dst + (MPI_Aint)bench_slot_off(&r_sdst, n), (int)s,
            MPI_BYTE, ns_win);
    MPI_Accumulate(&v, 1, MPI_UINT64_T, 1, ns_sig, 1, MPI_UINT64_T, MPI_REPLACE, ns_win);
    MPI_Win_flush(1, ns_win);
}
static void sh_fadd(size_t s, unsigned long n)
{
    (void)s, (void)n;
    (void)shmem_uint64_atomic_fetch_add(amo_target, 1, 1);
}
static void mpi_fop(size_t s, unsigned long n)
{
    (void)s, (void)n;
    uint64_t one = 1, old;
    MPI_Fetch_and_op(&one, &old, MPI_UINT64_T, 1, ns_amo, MPI_SUM, ns_win);
    MPI_Win_flush(1, ns_win);
}
static void sh_add(size_t s, unsigned long n)
{
    (void)s, (void)n;
    shmem_uint64_atomic_add(amo_target, 1, 1);
    shmem_quiet();
}
static void mpi_acc(size_t s, unsigned long n)
{
    (void)s, (void)n;
    uint64_t one = 1;
    MPI_Accumulate(&one, 1, MPI_UINT64_T, 1, ns_amo, 1, MPI_UINT64_T, MPI_SUM, ns_win);
    MPI_Win_flush(1, ns_win);
}
#define RMA_MECH(name, side, op)                                                                   \
    static double name(size_t size, long iters) { return rma_time(side, op, size, iters); }
RMA_MECH(rma_nodeshm_put, 1, sh_put)
RMA_MECH(rma_mpi_put, 0, mpi_put)
RMA_MECH(rma_nodeshm_get, 1, sh_get)
RMA_MECH(rma_mpi_get, 0, mpi_get)
RMA_MECH(rma_nodeshm_signal, 1, sh_signal)
RMA_MECH(rma_mpi_signal, 0, mpi_signal)
RMA_MECH(rma_nodeshm_fadd, 1, sh_fadd)
RMA_MECH(rma_mpi_fop, 0, mpi_fop)
RMA_MECH(rma_nodeshm_add, 1, sh_add)
RMA_MECH(rma_mpi_acc, 0, mpi_acc)

/* CMA: PE 0 copies PE 1's private buffer (its address exchanged at start) into its own */
static const nodeshm_copy_peer_t *cma_peer;
static uint64_t cma_remote; /* symmetric: PE 1's priv_src */
static double cma_get_lat(size_t size, long iters)
{
    unsigned long t = take_turns(iters);
    sync_shmem();
    double t0 = bench_now();
    int failed = 0;
    if (me == 0)
        for (long i = 0; i < iters && !failed; i++)
            failed = nodeshm_cma_read("nodeshm-bench-p2p", cma_peer, PDST(t + i),
                                      (const void *)(uintptr_t)(cma_remote +
                                                                bench_slot_off(&r_psrc, t + i)),
                                      size);
    double dt = (bench_now() - t0) / (double)iters;
    if (failed) shmem_global_exit(1); /* reported by nodeshm_cma_read */
    sync_shmem();
    return dt;
}

/* bandwidth: a window of puts, then completion */
#define WINDOW 16
static double shmem_put_bw(size_t size, long iters)
{
    unsigned long t = take_turns(iters * WINDOW);
    sync_shmem();
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++) {
            for (int w = 0; w < WINDOW; w++)
                shmem_putmem_nbi(SDST(t + i * WINDOW + w), SSRC(t + i * WINDOW + w), size, 1);
            shmem_quiet();
        }
    double dt = (bench_now() - t0) / (double)(iters * WINDOW);
    sync_shmem();
    return dt;
}

static double mpi_put_bw(size_t size, long iters)
{
    unsigned long t = take_turns(iters * WINDOW);
    sync_mpi();
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Put(PSRC(t + i * WINDOW + w), (int)size, MPI_BYTE, 1,
                        WDISP(t + i * WINDOW + w), (int)size, MPI_BYTE, win);
            MPI_Win_flush(1, win);
        }
    double dt = (bench_now() - t0) / (double)(iters * WINDOW);
    sync_mpi();
    return dt;
}

static double mpi_sendrecv_bw(size_t size, long iters)
{
    MPI_Request req[WINDOW];
    unsigned long t = take_turns(iters * WINDOW);
    sync_mpi();
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) {
        if (me == 0) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(PSRC(t + i * WINDOW + w), (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD,
                          &req[w]);
            MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (me == 1) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(PDST(t + i * WINDOW + w), (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                          &req[w]);
            MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        }
    }
    double dt = (bench_now() - t0) / (double)(iters * WINDOW);
    sync_mpi();
    return dt;
}

/* bidirectional bandwidth: both PEs send a window to each other at once; the time is per
 * message (2 * WINDOW messages per iteration), so bytes / time is the sum of both directions */
static double shmem_put_bibw(size_t size, long iters)
{
    unsigned long t = take_turns(iters * WINDOW);
    sync_shmem();
    double t0 = bench_now();
    if (me < 2)
        for (long i = 0; i < iters; i++) {
            for (int w = 0; w < WINDOW; w++)
                shmem_putmem_nbi(SDST(t + i * WINDOW + w), SSRC(t + i * WINDOW + w), size, 1 - me);
            shmem_quiet();
        }
    sync_shmem();
    return (bench_now() - t0) / (double)(iters * 2 * WINDOW);
}

static double mpi_put_bibw(size_t size, long iters)
{
    unsigned long t = take_turns(iters * WINDOW);
    sync_mpi();
    double t0 = bench_now();
    if (me < 2)
        for (long i = 0; i < iters; i++) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Put(PSRC(t + i * WINDOW + w), (int)size, MPI_BYTE, 1 - me,
                        WDISP(t + i * WINDOW + w), (int)size, MPI_BYTE, win);
            MPI_Win_flush(1 - me, win);
        }
    sync_mpi();
    return (bench_now() - t0) / (double)(iters * 2 * WINDOW);
}

static double mpi_sendrecv_bibw(size_t size, long iters)
{
    MPI_Request req[2 * WINDOW];
    unsigned long t = take_turns(iters * WINDOW);
    sync_mpi();
    double t0 = bench_now();
    if (me < 2)
        for (long i = 0; i < iters; i++) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(PDST(t + i * WINDOW + w), (int)size, MPI_BYTE, 1 - me, 1,
                          MPI_COMM_WORLD, &req[w]);
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(PSRC(t + i * WINDOW + w), (int)size, MPI_BYTE, 1 - me, 1,
                          MPI_COMM_WORLD, &req[WINDOW + w]);
            MPI_Waitall(2 * WINDOW, req, MPI_STATUSES_IGNORE);
        }
    sync_mpi();
    return (bench_now() - t0) / (double)(iters * 2 * WINDOW);
}

static double shmem_fadd_rate(size_t size, long iters)
{
    (void)size;
    sync_shmem();
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++) (void)shmem_uint64_atomic_fetch_add(amo_target, 1, 1);
    double t = (bench_now() - t0) / (double)iters;
    sync_shmem();
    return t;
}

static double shmem_add_rate(size_t size, long iters)
{
    (void)size;
    sync_shmem();
    double t0 = bench_now();
    if (me == 0) {
        for (long i = 0; i < iters; i++) shmem_uint64_atomic_add(amo_target, 1, 1);
        shmem_quiet();
    }
    double t = (bench_now() - t0) / (double)iters;
    sync_shmem();
    return t;
}

static double mpi_fop_rate(size_t size, long iters)
{
    (void)size;
    uint64_t one = 1, old;
    sync_mpi();
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++) {
            MPI_Fetch_and_op(&one, &old, MPI_UINT64_T, 1, 0, MPI_SUM, win);
            MPI_Win_flush(1, win);
        }
    double t = (bench_now() - t0) / (double)iters;
    sync_mpi();
    return t;
}

static double mpi_acc_rate(size_t size, long iters)
{
    (void)size;
    uint64_t one = 1;
    sync_mpi();
    double t0 = bench_now();
    if (me == 0) {
        for (long i = 0; i < iters; i++)
            MPI_Accumulate(&one, 1, MPI_UINT64_T, 1, 0, 1, MPI_UINT64_T, MPI_SUM, win);
        MPI_Win_flush(1, win);
    }
    double t = (bench_now() - t0) / (double)iters;
    sync_mpi();
    return t;
}

static double shmem_barrier_lat(size_t size, long iters)
{
    (void)size;
    sync_shmem();
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) shmem_barrier_all();
    return (bench_now() - t0) / (double)iters;
}

static double mpi_barrier_lat(size_t size, long iters)
{
    (void)size;
    sync_mpi();
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) MPI_Barrier(MPI_COMM_WORLD);
    return (bench_now() - t0) / (double)iters;
}

/* --- driver ------------------------------------------------------------------------------ */

typedef struct { const char *name, *csv; measure_fn fn; } mech_t;

static bench_opts_t opt;
static bench_stats_t at_1m[MAX_MECH]; /* the last sweep's stats at 1 MiB, for the summary */
static int have_1m;
static long iters_for(size_t size, long small);

/* Statistics of each mechanism at `size`: repetitions interleaved, a warm-up first; each
 * repetition's sample is the slowest PE's time.  Odd repetitions run the mechanisms in reverse
 * order: the first one after a switch pays for caches and TLBs the previous one left cold
 * (measured up to 25% between pseudo-nodes), which must not count against one mechanism. */
static void measure(const mech_t *m, int nm, size_t size, long iters, bench_stats_t *st)
{
    static double samples[MAX_MECH][64], worst[MAX_MECH][64];
    long warm = bench_warmup(&opt, iters / 10);
    for (int k = 0; k < nm && warm > 0; k++) (void)m[k].fn(size, warm);
    for (int r = 0; r < reps; r++)
        for (int j = 0; j < nm; j++) {
            int k = r % 2 ? nm - 1 - j : j;
            samples[k][r] = m[k].fn(size, iters);
        }
    MPI_Allreduce(samples, worst, MAX_MECH * 64, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int k = 0; k < nm; k++) st[k] = bench_stats(worst[k], reps);
}

/* One line of a human table: size, then per mechanism the median (us, or MB/s when `bw`),
 * with [min..max] under -f, then each mechanism's ratio against the first (> 1: first wins). */
static void human_line(const char *label, size_t size, const bench_stats_t *st, int nm, int bw)
{
    printf("  %-8s", label);
    for (int k = 0; k < nm; k++) {
        if (bw) printf(" %12.1f", (double)size / st[k].median / 1e6);
        else printf(" %12.3f", st[k].median * 1e6);
        if (opt.full) {
            if (bw) printf(" [%.0f..%.0f]", (double)size / st[k].max / 1e6,
                           (double)size / st[k].min / 1e6);
            else printf(" [%.3f..%.3f]", st[k].min * 1e6, st[k].max * 1e6);
        }
    }
    for (int k = 1; k < nm; k++) printf(" %9.2fx", st[k].median / st[0].median);
    printf("\n");
}

static void human_head(const char *title, const mech_t *m, int nm)
{
    printf("\n# %s\n# %-8s", title, "Size");
    for (int k = 0; k < nm; k++) printf(" %12.12s%s", m[k].csv, opt.full ? " [min..max]" : "");
    for (int k = 1; k < nm; k++) printf(" %6.6s/%.3s", m[k].csv, m[0].csv);
    printf("\n");
}

/* A table over sizes min..max (x4; x2 from `x2_from` up): human lines or CSV rows; --cold: test
 * "<test>_cold", each operation on the next slot of the rings. */
static void sweep(const char *test_hot, const char *title, const mech_t *m, int nm, size_t min,
                  size_t max, long small_iters, int bw, size_t x2_from)
{
    bench_stats_t st[MAX_MECH];
    char sz[16], test[64];
    bench_cold_test(&opt, test_hot, test);
    if (me == 0 && !opt.csv) human_head(title, m, nm);
    have_1m = 0;
    for (size_t s = min; s <= max; s = !s ? 1 : s >= x2_from ? s * 2 : s * 4) {
        bench_ring_t *rings[] = {&r_psrc, &r_pdst, &r_ssrc, &r_sdst, &r_win};
        for (int k = 0; k < 5; k++) bench_ring_size(rings[k], s, opt.cold);
        if (me == 0 && opt.cold)
            bench_note("nodeshm-bench-p2p", "%s %zu bytes: rotation of %lu buffers", test, s,
                       r_psrc.k);
        else if (me == 0) bench_note("nodeshm-bench-p2p", "%s %zu bytes", test, s);
        measure(m, nm, s, iters_for(s, small_iters), st);
        bench_fmt_size(s, sz);
        if (s == ((size_t)1 << 20)) {
            memcpy(at_1m, st, sizeof st);
            have_1m = 1;
        }
        if (me != 0) continue;
        if (opt.csv)
            for (int k = 0; k < nm; k++) bench_row(test, m[k].csv, s, NULL, npes, st[k]);
        else human_line(sz, s, st, nm, bw);
    }
}

static long iters_for(size_t size, long small)
{
    if (opt.iters > 0) return opt.iters;
    long n = (long)((16u << 20) / (size ? size : 1)); /* about 16 MiB moved per sample */
    if (n > small) n = small;
    if (n < 10) n = 10;
    return bench_iters(n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int bad = bench_parse(argc, argv, "nodeshm-bench-p2p", rank, &opt, NULL, NULL, NULL);
    if (bad) {
        MPI_Finalize();
        return bad;
    }
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    reps = bench_reps();
    size_t min, max;
    bench_range(&opt, 1, MAX_SIZE, 64 << 10, 1, (size_t)1 << 30, &min, &max);
    if (npes < 2) {
        if (me == 0) bench_note("nodeshm-bench-p2p", "needs 2 PEs (have %d): skipped", npes);
        if (me == 0 && opt.csv) bench_csv_header();
        shmem_finalize();
        MPI_Finalize();
        return 0;
    }
    /* --cold: five rings (private source and destination, symmetric source and destination, the
     * MPI window), two of them symmetric; hot: one buffer of the largest size each */
    size_t total = max;
    if (opt.cold) {
        total = bench_cold_bytes("nodeshm-bench-p2p", me, shmemx_node_n_pes(), 5, 2,
                                 nodeshm_rt.heap_size, max);
        if (!total) {
            shmem_finalize();
            MPI_Finalize();
            return 1;
        }
    }
    sym_src = shmem_malloc(total);
    sym_dst = shmem_malloc(total);
    amo_target = shmem_calloc(2, sizeof *amo_target);
    priv_src = malloc(total);
    priv_dst = malloc(total);
    if (!sym_src || !sym_dst || !amo_target || !priv_src || !priv_dst) {
        if (me == 0)
            bench_note("nodeshm-bench-p2p", "cannot allocate 2 x %zu bytes%s (-m too large for "
                       "SHMEM_SYMMETRIC_SIZE?)", total, opt.cold ? " (--cold)" : "");
        shmem_global_exit(1);
    }
    memset(sym_src, 1, total); memset(sym_dst, 2, total);
    memset(priv_src, 3, total); memset(priv_dst, 4, total);
    MPI_Win_allocate((MPI_Aint)total, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win_buf, &win);
    memset(win_buf, 0, total);
    r_psrc = (bench_ring_t){priv_src, total, 0, 1};
    r_pdst = (bench_ring_t){priv_dst, total, 0, 1};
    r_ssrc = (bench_ring_t){sym_src, total, 0, 1};
    r_sdst = (bench_ring_t){sym_dst, total, 0, 1};
    r_win = (bench_ring_t){win_buf, total, 0, 1};
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    /* PE 1 on another (pseudo-)node: every PE agrees (PE 0's view) */
    int far = me == 0 && shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, SHMEM_TEAM_SHARED) < 0;
    MPI_Allreduce(&far, &remote_pair, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (remote_pair) {
        nodeshm_target_t ts, td, ta;
        if (nodeshm_resolve("nodeshm-bench-p2p", "sym_src", sym_src, total, 1, &ts) ||
            nodeshm_resolve("nodeshm-bench-p2p", "sym_dst", sym_dst, total, 1, &td) ||
            nodeshm_resolve("nodeshm-bench-p2p", "amo_target", amo_target, 16, 1, &ta) ||
            ts.seg != td.seg || ts.seg != ta.seg ||
            (ns_win = nodeshm_remote_window(ts.seg)) == MPI_WIN_NULL) {
            if (me == 0) bench_note("nodeshm-bench-p2p", "PE 1 is remote but the library has no window");
            shmem_global_exit(1);
        }
        ns_src = (MPI_Aint)ts.off;
        ns_dst = (MPI_Aint)td.off;
        ns_amo = (MPI_Aint)ta.off;
        ns_sig = ns_amo + (MPI_Aint)sizeof(uint64_t);
    }
    /* the MPI path: the other tables stop at 1 MiB (their windows of 16 would move GiBs);
     * rma_put / rma_get go on to max */
    size_t small_max = remote_pair && max > ((size_t)1 << 20) ? (size_t)1 << 20 : max;
    char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(mpi_version, &len);
    char *nl = strchr(mpi_version, '\n');
    if (nl) *nl = 0;
    bench_stats_t st[MAX_MECH];
    /* CMA where it works between PE 0 and PE 1 (same answer on every PE: the probe agrees) */
    const nodeshm_copy_caps_t *caps = nodeshm_copy_caps();
    int have_cma = caps && caps->cma;
    if (have_cma) {
        int peer_node_rank = shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, SHMEM_TEAM_SHARED);
        cma_peer = peer_node_rank >= 0 ? nodeshm_copy_peer(peer_node_rank) : NULL;
        if (me == 1) cma_remote = (uint64_t)(uintptr_t)priv_src;
        shmem_barrier_all();
        if (me == 0) shmem_getmem(&cma_remote, &cma_remote, sizeof cma_remote, 1);
        int ok = cma_peer != NULL, all_ok = 0;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        have_cma = all_ok;
    }
    if (me == 0 && !have_cma)
        bench_note("nodeshm-bench-p2p", "no cma rows: %s", !caps ? "copy engines not probed"
                   : caps->cma ? "PE 1 is not a node peer" : caps->cma_why);

    if (me == 0 && opt.csv) bench_csv_header();
    if (me == 0 && !opt.csv) {
        printf("# nodeshm-bench-p2p: %d PEs, PE 0 <-> PE 1, median of %d repetitions (slowest PE)\n",
               npes, reps);
        printf("# MPI library: %s\n", mpi_version);
        if (remote_pair)
            printf("# PE 1 is on another (pseudo-)node: nodeshm takes its MPI path (rma_put, "
                   "rma_get: on its own window)\n");
        printf("# ratio columns: time of the mechanism / time of the first one (> 1: first wins)\n");
        if (opt.cold)
            printf("# --cold: each operation on the next buffer of a rotation of %zu bytes per "
                   "buffer (tests *_cold)\n", total);
    }
    if (me == 0 && opt.cold)
        bench_note("nodeshm-bench-p2p", "--cold: pingpong, amo and barrier are not size sweeps: "
                   "only latency, bandwidth and bibw run (as *_cold)");

    /* 1. one-way latency of an 8-byte message, against the bare cache-line handoff */
    const mech_t lat8[] = {{"cache line handoff (load/store)", "cacheline", cacheline_oneway},
                           {"shmem_putmem_signal + signal_wait_until", "nodeshm_put_signal",
                            shmem_pingpong},
                           {"MPI_Send/MPI_Recv", "mpi_send", mpi_pingpong}};
    double pingpong_ratio = 0, amo_rate = 0, barrier_speedup = 0;
    if (!opt.cold) {
        /* between nodes there is no shared cache line: the signal is the first row */
        const mech_t *l8 = remote_pair ? lat8 + 1 : lat8;
        int n8 = remote_pair ? 2 : 3;
        if (me == 0) bench_note("nodeshm-bench-p2p", "pingpong 8 bytes");
        measure(l8, n8, 8, opt.iters > 0 ? opt.iters : bench_iters(5000), st);
        if (me == 0 && opt.csv)
            for (int k = 0; k < n8; k++) bench_row("pingpong", l8[k].csv, 8, NULL, npes, st[k]);
        else if (me == 0) {
            printf("\n# One-way latency, 8 bytes (ping-pong / 2)\n# %-40s %12s %12s\n", "Mechanism",
                   "Latency (us)", remote_pair ? "vs signal" : "vs line");
            for (int k = 0; k < n8; k++)
                printf("  %-40s %12.3f %11.2fx\n", l8[k].name, st[k].median * 1e6,
                       st[k].median / st[0].median);
        }
        if (!remote_pair) pingpong_ratio = st[1].median / st[0].median;
    }

    /* 2. latency by size: blocking put/get vs MPI RMA (MPI_Win_allocate, lock_all) and
     * send/recv one-way */
    const mech_t lat[] = {{"shmem_put", "nodeshm_put", shmem_put_lat},
                          {"shmem_get", "nodeshm_get", shmem_get_lat},
                          {"MPI_Put+flush", "mpi_put", mpi_put_lat},
                          {"MPI_Get+flush", "mpi_get", mpi_get_lat},
                          {"Send/Recv", "mpi_send", mpi_pingpong},
                          {"memcpy", "memcpy", memcpy_lat},
                          {"CMA read", "cma", cma_get_lat}};
    sweep("latency", "Latency (us): shmem put/get, MPI_Put/Get+flush, Send/Recv one-way, memcpy, "
          "CMA", lat, have_cma ? 7 : 6, min, small_max, 1000, 0, SIZE_MAX);

    /* 3. bandwidth by size */
    const mech_t bw[] = {{"shmem_put_nbi", "nodeshm_put", shmem_put_bw},
                         {"MPI_Put", "mpi_put", mpi_put_bw},
                         {"Isend/Irecv", "mpi_send", mpi_sendrecv_bw},
                         {"memcpy", "memcpy", memcpy_lat},
                         {"CMA read", "cma", cma_get_lat}};
    sweep("bandwidth", "Bandwidth (MB/s), window of 16 (memcpy, CMA: one at a time)", bw,
          have_cma ? 5 : 4, min, small_max, 101, 1, SIZE_MAX);
    double put_vs_memcpy_1m = have_1m ? at_1m[3].median / at_1m[0].median : 0;

    /* 4. bidirectional bandwidth by size */
    const mech_t bibw[] = {{"shmem_put_nbi", "nodeshm_put", shmem_put_bibw},
                           {"MPI_Put", "mpi_put", mpi_put_bibw},
                           {"Isend/Irecv", "mpi_send", mpi_sendrecv_bibw}};
    sweep("bibw", "Bidirectional bandwidth (MB/s, both directions summed), window of 16", bibw, 3,
          min, small_max, 101, 1, SIZE_MAX);

    /* 4b. between nodes: blocking put/get against MPI on the library's own window */
    if (remote_pair) {
        const mech_t rput[] = {{"shmem_putmem+quiet", "nodeshm_put", rma_nodeshm_put},
                               {"MPI_Put+flush, same window", "mpi_put", rma_mpi_put},
                               {"memcpy", "memcpy", memcpy_lat}};
        const mech_t rget[] = {{"shmem_getmem", "nodeshm_get", rma_nodeshm_get},
                               {"MPI_Get+flush, same window", "mpi_get", rma_mpi_get},
                               {"memcpy", "memcpy", memcpy_lat}};
        sweep("rma_put", "Between nodes, blocking put (us): shmem_putmem+quiet, MPI_Put+flush on "
              "nodeshm's window, memcpy", rput, 3, min, max, 1000, 0, (size_t)1 << 20);
        sweep("rma_get", "Between nodes, blocking get (us): shmem_getmem, MPI_Get+flush on "
              "nodeshm's window, memcpy", rget, 3, min, max, 1000, 0, (size_t)1 << 20);
        const mech_t rsig[] = {{"shmem_putmem_signal+quiet", "nodeshm_put_signal", rma_nodeshm_signal},
                               {"MPI_Put+Accumulate+flush, same window", "mpi_put_signal",
                                rma_mpi_signal}};
        sweep("rma_signal", "Between nodes, blocking put-with-signal (us): shmem_putmem_signal+"
              "quiet, MPI_Put+MPI_Accumulate(REPLACE)+flush on nodeshm's window", rsig, 2, min,
              small_max, 1000, 0, SIZE_MAX);
        if (!opt.cold) {
            const mech_t ramo[] = {{"shmem_uint64_atomic_fetch_add", "nodeshm_fetch_add", rma_nodeshm_fadd},
                                   {"MPI_Fetch_and_op+flush, same window", "mpi_fetch_and_op",
                                    rma_mpi_fop},
                                   {"shmem_uint64_atomic_add+quiet", "nodeshm_add", rma_nodeshm_add},
                                   {"MPI_Accumulate+flush, same window", "mpi_accumulate",
                                    rma_mpi_acc}};
            if (me == 0) bench_note("nodeshm-bench-p2p", "rma_amo 8 bytes");
            measure(ramo, 4, 8, opt.iters > 0 ? opt.iters : bench_iters(2000), st);
            if (me == 0 && opt.csv)
                for (int k = 0; k < 4; k++) bench_row("rma_amo", ramo[k].csv, 8, NULL, npes, st[k]);
            else if (me == 0) {
                printf("\n# Between nodes, blocking 64-bit atomics on nodeshm's window\n# %-42s "
                       "%12s %12s\n", "Operation", "Latency (us)", "vs first");
                for (int k = 0; k < 4; k++)
                    printf("  %-42s %12.3f %11.2fx\n", ramo[k].name, st[k].median * 1e6,
                           st[k].median / st[k & 2].median);
            }
        }
    }

    /* 5. atomics */
    const mech_t amo[] = {{"shmem_uint64_atomic_fetch_add", "nodeshm_fetch_add", shmem_fadd_rate},
                          {"shmem_uint64_atomic_add (+quiet at end)", "nodeshm_add", shmem_add_rate},
                          {"MPI_Fetch_and_op + flush", "mpi_fetch_and_op", mpi_fop_rate},
                          {"MPI_Accumulate (+flush at end)", "mpi_accumulate", mpi_acc_rate}};
    if (!opt.cold) {
        if (me == 0) bench_note("nodeshm-bench-p2p", "atomics");
        measure(amo, 4, 8, opt.iters > 0 ? opt.iters : bench_iters(50000), st);
        if (me == 0 && opt.csv)
            for (int k = 0; k < 4; k++) bench_row("amo", amo[k].csv, 8, NULL, npes, st[k]);
        else if (me == 0) {
            printf("\n# Atomic rate, PE 0 -> PE 1, one 64-bit word\n# %-42s %14s %12s\n",
                   "Operation", "Rate (Mops/s)", "Latency (us)");
            for (int k = 0; k < 4; k++)
                printf("  %-42s %14.2f %12.3f\n", amo[k].name, 1e-6 / st[k].median,
                       st[k].median * 1e6);
        }
        amo_rate = 1e-6 / st[0].median;

        /* 6. barrier, all PEs */
        const mech_t bar[] = {{"shmem_barrier_all", "nodeshm_barrier", shmem_barrier_lat},
                              {"MPI_Barrier", "mpi_barrier", mpi_barrier_lat}};
        if (me == 0) bench_note("nodeshm-bench-p2p", "barrier");
        measure(bar, 2, 0, opt.iters > 0 ? opt.iters : bench_iters(5000), st);
        if (me == 0 && opt.csv)
            for (int k = 0; k < 2; k++) bench_row("barrier", bar[k].csv, 0, NULL, npes, st[k]);
        else if (me == 0) {
            printf("\n# Barrier, %d PEs\n# %-20s %12s\n", npes, "Operation", "Latency (us)");
            for (int k = 0; k < 2; k++) printf("  %-20s %12.3f\n", bar[k].name, st[k].median * 1e6);
        }
        barrier_speedup = st[1].median / st[0].median;
    }

    if (me == 0 && !opt.csv && !opt.cold && !remote_pair) { /* intra-node targets */
        printf("\n# Summary against the targets (ratios from this run)\n");
        printf("  8-byte put+signal ping-pong vs cache line: %5.2fx  (target <= 2x)   %s\n",
               pingpong_ratio, pingpong_ratio <= 2 ? "met" : "NOT met");
        if (put_vs_memcpy_1m > 0)
            printf("  1 MiB put bandwidth vs memcpy:             %5.0f%%  (target >= 90%%) %s\n",
                   100 * put_vs_memcpy_1m, put_vs_memcpy_1m >= 0.9 ? "met" : "NOT met");
        printf("  barrier_all speedup over MPI_Barrier:      %5.2fx  (target >= 2x)   %s\n",
               barrier_speedup, barrier_speedup >= 2 ? "met" : "NOT met");
        printf("  fetch_add rate:                            %5.1f Mops/s (target > 20) %s\n",
               amo_rate, amo_rate > 20 ? "met" : "NOT met");
    }

    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    shmem_free(amo_target);
    shmem_free(sym_dst);
    shmem_free(sym_src);
    free(priv_src);
    free(priv_dst);
    shmem_finalize();
    MPI_Finalize();
    return 0;
}
