/* nodeshm-bench-p2p (shmem_p2p.h): the mechanisms of the one-node tables, each returning seconds
 * per operation on PE 0, and the tables' rows. */
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>

#include <stdlib.h>
#include <string.h>

#include "core/copy_engine.h"
#include "shmem_p2p.h"

static uint64_t sig;                  /* symmetric (data segment) */
static uint64_t line_a[8], line_b[8]; /* symmetric, one cache line each */

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

double memcpy_lat(size_t size, long iters)
{
    unsigned long t = take_turns(iters);
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) {
        memcpy(PDST(t + i), PSRC(t + i), size);
        __asm__ __volatile__("" ::: "memory");
    }
    return (bench_now() - t0) / (double)iters;
}

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

const mech_t p2p_lat8[3] = {{"cache line handoff (load/store)", "cacheline", cacheline_oneway},
                            {"shmem_putmem_signal + signal_wait_until", "nodeshm_put_signal",
                             shmem_pingpong},
                            {"MPI_Send/MPI_Recv", "mpi_send", mpi_pingpong}};
const mech_t p2p_lat[7] = {{"shmem_put", "nodeshm_put", shmem_put_lat},
                           {"shmem_get", "nodeshm_get", shmem_get_lat},
                           {"MPI_Put+flush", "mpi_put", mpi_put_lat},
                           {"MPI_Get+flush", "mpi_get", mpi_get_lat},
                           {"Send/Recv", "mpi_send", mpi_pingpong},
                           {"memcpy", "memcpy", memcpy_lat},
                           {"CMA read", "cma", cma_get_lat}};
const mech_t p2p_bw[5] = {{"shmem_put_nbi", "nodeshm_put", shmem_put_bw},
                          {"MPI_Put", "mpi_put", mpi_put_bw},
                          {"Isend/Irecv", "mpi_send", mpi_sendrecv_bw},
                          {"memcpy", "memcpy", memcpy_lat},
                          {"CMA read", "cma", cma_get_lat}};
const mech_t p2p_bibw[3] = {{"shmem_put_nbi", "nodeshm_put", shmem_put_bibw},
                            {"MPI_Put", "mpi_put", mpi_put_bibw},
                            {"Isend/Irecv", "mpi_send", mpi_sendrecv_bibw}};
const mech_t p2p_amo[4] = {{"shmem_uint64_atomic_fetch_add", "nodeshm_fetch_add", shmem_fadd_rate},
                           {"shmem_uint64_atomic_add (+quiet at end)", "nodeshm_add", shmem_add_rate},
                           {"MPI_Fetch_and_op + flush", "mpi_fetch_and_op", mpi_fop_rate},
                           {"MPI_Accumulate (+flush at end)", "mpi_accumulate", mpi_acc_rate}};
const mech_t p2p_barrier[2] = {{"shmem_barrier_all", "nodeshm_barrier", shmem_barrier_lat},
                               {"MPI_Barrier", "mpi_barrier", mpi_barrier_lat}};

/* CMA where it works between PE 0 and PE 1 (same answer on every PE: the probe agrees) */
int p2p_cma_setup(void)
{
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
    return have_cma;
}
