/* nodeshm-bench-p2p (shmem_p2p.h): between (pseudo-)nodes, PE 0's blocking operations on PE 1
 * through nodeshm's MPI path beside the MPI library's on the library's own window (white box:
 * core/remote.h): rma_put (shmem_putmem + quiet, MPI_Put + flush), rma_get (shmem_getmem,
 * MPI_Get + flush), both beside memcpy, sizes doubling from 1 MiB (x4 below) up to -m max;
 * rma_signal (shmem_putmem_signal + quiet, MPI_Put + MPI_Accumulate(REPLACE) of the signal
 * word + flush) and rma_amo, 8 bytes (fetch_add beside MPI_Fetch_and_op + flush, add + quiet
 * beside MPI_Accumulate + flush).  Those MPI columns are what MPI promises, not always what it
 * does: the columns with the same guarantees as the OpenSHMEM calls are mpi_put_confirmed and
 * mpi_accumulate_confirmed (a fetch before the flush, where the library confirms writes:
 * MPICH) and mpi_put_signal_ordered (the data complete at the target before the signal). */
#include <mpi.h>
#include <shmem.h>

#include <stdio.h>
#include <string.h>

#include "core/remote.h"
#include "core/runtime.h"
#include "shmem_p2p.h"

static MPI_Win ns_win;          /* the library's window over the heap */
static MPI_Aint ns_src, ns_dst; /* sym_src, sym_dst: displacements in ns_win */
static MPI_Aint ns_amo, ns_sig; /* amo_target[0], [1] (the signal word): the same */
static int confirms;            /* the library confirms writes with a fetch (core/remote.c) */

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
/* The same guarantees from MPI: where the library confirms writes (core/remote.c: MPICH over
 * OFI tcp counts a small MPI_Put complete once it is in the origin's socket, so MPI_Win_flush
 * returns before the data is at the target), a fetch from the target before the flush, as the
 * library's quiet does; put-with-signal's data complete at the target before its signal. */
static void confirm(void)
{
    static uint64_t zero, sink;
    if (confirms)
        MPI_Fetch_and_op(&zero, &sink, MPI_UINT64_T, 1, 0, MPI_NO_OP, ns_win);
}
static void mpi_put_confirmed(size_t s, unsigned long n)
{
    MPI_Put(PSRC(n), (int)s, MPI_BYTE, 1, ns_dst + (MPI_Aint)bench_slot_off(&r_sdst, n), (int)s,
            MPI_BYTE, ns_win);
    confirm();
    MPI_Win_flush(1, ns_win);
}
static void mpi_signal_ordered(size_t s, unsigned long n)
{
    uint64_t v = n;
    mpi_put_confirmed(s, n);
    MPI_Accumulate(&v, 1, MPI_UINT64_T, 1, ns_sig, 1, MPI_UINT64_T, MPI_REPLACE, ns_win);
    confirm();
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
static void mpi_acc_confirmed(size_t s, unsigned long n)
{
    (void)s, (void)n;
    uint64_t one = 1;
    MPI_Accumulate(&one, 1, MPI_UINT64_T, 1, ns_amo, 1, MPI_UINT64_T, MPI_SUM, ns_win);
    confirm();
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
RMA_MECH(rma_mpi_put_confirmed, 0, mpi_put_confirmed)
RMA_MECH(rma_mpi_signal_ordered, 0, mpi_signal_ordered)
RMA_MECH(rma_mpi_acc_confirmed, 0, mpi_acc_confirmed)

int p2p_rma_setup(size_t total)
{
    int far = me == 0 && shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, SHMEM_TEAM_SHARED) < 0;
    int remote_pair = 0;
    MPI_Allreduce(&far, &remote_pair, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!remote_pair) return 0;
    nodeshm_target_t ts = {0}, td = {0}, ta = {0};
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
    confirms = nodeshm_remote_confirms_writes();
    return 1;
}

void p2p_rma_tables(size_t min, size_t max, size_t small_max)
{
    /* mpi_put_confirmed only where it differs from mpi_put */
    const mech_t rput[] = {{"shmem_putmem+quiet", "nodeshm_put", rma_nodeshm_put},
                           {"MPI_Put+flush, same window", "mpi_put", rma_mpi_put},
                           {"memcpy", "memcpy", memcpy_lat},
                           {"MPI_Put+Fetch_and_op+flush (at target)", "mpi_put_confirmed",
                            rma_mpi_put_confirmed}};
    const mech_t rget[] = {{"shmem_getmem", "nodeshm_get", rma_nodeshm_get},
                           {"MPI_Get+flush, same window", "mpi_get", rma_mpi_get},
                           {"memcpy", "memcpy", memcpy_lat}};
    sweep("rma_put", "Between nodes, blocking put (us): shmem_putmem+quiet, MPI_Put+flush on "
          "nodeshm's window, memcpy", rput, confirms ? 4 : 3, min, max, 1000, 0, (size_t)1 << 20);
    sweep("rma_get", "Between nodes, blocking get (us): shmem_getmem, MPI_Get+flush on "
          "nodeshm's window, memcpy", rget, 3, min, max, 1000, 0, (size_t)1 << 20);
    const mech_t rsig[] = {{"shmem_putmem_signal+quiet", "nodeshm_put_signal", rma_nodeshm_signal},
                           {"MPI_Put+Accumulate+flush, same window", "mpi_put_signal",
                            rma_mpi_signal},
                           {"MPI_Put+flush+Accumulate+flush (ordered)", "mpi_put_signal_ordered",
                            rma_mpi_signal_ordered}};
    sweep("rma_signal", "Between nodes, blocking put-with-signal (us): shmem_putmem_signal+"
          "quiet, MPI_Put+MPI_Accumulate(REPLACE)+flush on nodeshm's window", rsig, 3, min,
          small_max, 1000, 0, SIZE_MAX);
    if (opt.cold) return;
    const mech_t ramo[] = {{"shmem_uint64_atomic_fetch_add", "nodeshm_fetch_add", rma_nodeshm_fadd},
                           {"MPI_Fetch_and_op+flush, same window", "mpi_fetch_and_op", rma_mpi_fop},
                           {"shmem_uint64_atomic_add+quiet", "nodeshm_add", rma_nodeshm_add},
                           {"MPI_Accumulate+flush, same window", "mpi_accumulate", rma_mpi_acc},
                           {"MPI_Accumulate+Fetch_and_op+flush", "mpi_accumulate_confirmed",
                            rma_mpi_acc_confirmed}};
    int na = confirms ? 5 : 4;
    bench_stats_t st[MAX_MECH];
    if (me == 0) bench_note("nodeshm-bench-p2p", "rma_amo 8 bytes");
    measure(ramo, na, 8, opt.iters > 0 ? opt.iters : bench_iters(2000), st);
    if (me == 0 && opt.csv)
        for (int k = 0; k < na; k++) bench_row("rma_amo", ramo[k].csv, 8, NULL, npes, st[k]);
    else if (me == 0) {
        printf("\n# Between nodes, blocking 64-bit atomics on nodeshm's window\n# %-42s "
               "%12s %12s\n", "Operation", "Latency (us)", "vs nodeshm");
        for (int k = 0; k < na; k++) /* fetching ones against fetch_add, the others against add */
            printf("  %-42s %12.3f %11.2fx\n", ramo[k].name, st[k].median * 1e6,
                   st[k].median / st[k < 2 ? 0 : 2].median);
    }
}
