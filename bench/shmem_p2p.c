/* nodeshm-bench-p2p: OpenSHMEM point-to-point performance beside the MPI library, same run.
 *
 * PE 0 and PE 1 are the pair (other PEs only join the barrier test).  Every table compares
 * mechanisms measured in interleaved repetitions, so machine noise hits them alike, and
 * reports medians.  memcpy inside one process and a bare cache-line handoff between the two
 * PEs are the physical limits the library is held against. */
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define MAX_SIZE ((size_t)4 << 20)
#define MAX_MECH 8

static int me, npes, reps;
static char *sym_src, *sym_dst;     /* symmetric: shmem transfers */
static char *priv_src, *priv_dst;   /* private: memcpy and MPI origin buffers */
static char *win_buf;
static MPI_Win win;
static uint64_t sig;                /* symmetric (data segment) */
static uint64_t line_a[8], line_b[8]; /* symmetric, one cache line each */

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
            while (__atomic_load_n(mine, __ATOMIC_ACQUIRE) != (uint64_t)i) __builtin_ia32_pause();
        } else if (me == 1) {
            while (__atomic_load_n(mine, __ATOMIC_ACQUIRE) != (uint64_t)i) __builtin_ia32_pause();
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
    sync_mpi();
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) {
        if (me == 0) {
            MPI_Send(priv_src, (int)size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(priv_dst, (int)size, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (me == 1) {
            MPI_Recv(priv_dst, (int)size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(priv_src, (int)size, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    double t = (bench_now() - t0) / (2.0 * (double)iters);
    sync_mpi();
    return t;
}

static double shmem_put_lat(size_t size, long iters)
{
    sync_shmem();
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++) shmem_putmem(sym_dst, sym_src, size, 1);
    double t = (bench_now() - t0) / (double)iters;
    sync_shmem();
    return t;
}

static double shmem_get_lat(size_t size, long iters)
{
    sync_shmem();
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++) shmem_getmem(sym_dst, sym_src, size, 1);
    double t = (bench_now() - t0) / (double)iters;
    sync_shmem();
    return t;
}

static double mpi_put_lat(size_t size, long iters)
{
    sync_mpi();
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++) {
            MPI_Put(priv_src, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
            MPI_Win_flush(1, win);
        }
    double t = (bench_now() - t0) / (double)iters;
    sync_mpi();
    return t;
}

static double mpi_get_lat(size_t size, long iters)
{
    sync_mpi();
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++) {
            MPI_Get(priv_dst, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
            MPI_Win_flush(1, win);
        }
    double t = (bench_now() - t0) / (double)iters;
    sync_mpi();
    return t;
}

static double memcpy_lat(size_t size, long iters)
{
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) {
        memcpy(priv_dst, priv_src, size);
        __asm__ __volatile__("" ::: "memory");
    }
    return (bench_now() - t0) / (double)iters;
}

/* bandwidth: a window of puts, then completion */
#define WINDOW 16
static double shmem_put_bw(size_t size, long iters)
{
    sync_shmem();
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++) {
            for (int w = 0; w < WINDOW; w++) shmem_putmem_nbi(sym_dst, sym_src, size, 1);
            shmem_quiet();
        }
    double t = (bench_now() - t0) / (double)(iters * WINDOW);
    sync_shmem();
    return t;
}

static double mpi_put_bw(size_t size, long iters)
{
    sync_mpi();
    double t0 = bench_now();
    if (me == 0)
        for (long i = 0; i < iters; i++) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Put(priv_src, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
            MPI_Win_flush(1, win);
        }
    double t = (bench_now() - t0) / (double)(iters * WINDOW);
    sync_mpi();
    return t;
}

static double mpi_sendrecv_bw(size_t size, long iters)
{
    MPI_Request req[WINDOW];
    sync_mpi();
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) {
        if (me == 0) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(priv_src, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[w]);
            MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (me == 1) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(priv_dst, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &req[w]);
            MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        }
    }
    double t = (bench_now() - t0) / (double)(iters * WINDOW);
    sync_mpi();
    return t;
}

static uint64_t *amo_target;
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

typedef struct { const char *name; measure_fn fn; } mech_t;

/* Medians (PE 0's clock, broadcast) of each mechanism at `size`, repetitions interleaved. */
static void measure(const mech_t *m, int nm, size_t size, long iters, double *median)
{
    double samples[MAX_MECH][64];
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < nm; k++) samples[k][r] = m[k].fn(size, iters);
    for (int k = 0; k < nm; k++) median[k] = bench_median(samples[k], reps);
    MPI_Bcast(median, nm, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

static long iters_for(size_t size, long small)
{
    long n = (long)((64u << 20) / (size ? size : 1));
    if (n > small) n = small;
    if (n < 10) n = 10;
    return bench_iters(n);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    reps = bench_reps();
    size_t max = MAX_SIZE;
    if (bench_quick()) max = 64 << 10;
    if (npes < 2 || shmemx_node_n_pes() < 2) {
        if (me == 0) printf("nodeshm-bench-p2p: needs 2 PEs on one node (have %d)\n", npes);
        shmem_finalize();
        MPI_Finalize();
        return 0;
    }
    sym_src = shmem_malloc(max);
    sym_dst = shmem_malloc(max);
    amo_target = shmem_calloc(1, sizeof *amo_target);
    priv_src = malloc(max);
    priv_dst = malloc(max);
    memset(sym_src, 1, max); memset(sym_dst, 2, max);
    memset(priv_src, 3, max); memset(priv_dst, 4, max);
    MPI_Win_allocate((MPI_Aint)max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win_buf, &win);
    memset(win_buf, 0, max);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(mpi_version, &len);
    char *nl = strchr(mpi_version, '\n');
    if (nl) *nl = 0;
    char sz[16];
    double med[MAX_MECH];

    if (me == 0) {
        printf("# nodeshm-bench-p2p: %d PEs, PE 0 <-> PE 1, median of %d repetitions\n", npes, reps);
        printf("# MPI library: %s\n", mpi_version);
    }

    /* 1. one-way latency of an 8-byte message, against the bare cache-line handoff */
    const mech_t lat8[] = {{"cache line handoff (load/store)", cacheline_oneway},
                           {"shmem_putmem_signal + signal_wait_until", shmem_pingpong},
                           {"MPI_Send/MPI_Recv", mpi_pingpong}};
    measure(lat8, 3, 8, bench_iters(20000), med);
    if (me == 0) {
        printf("\n# One-way latency, 8 bytes (ping-pong / 2)\n# %-40s %12s %12s\n", "Mechanism",
               "Latency (us)", "vs line");
        for (int k = 0; k < 3; k++)
            printf("  %-40s %12.3f %11.2fx\n", lat8[k].name, med[k] * 1e6, med[k] / med[0]);
    }
    double pingpong_ratio = med[1] / med[0];

    /* 2. latency by size */
    const mech_t lat[] = {{"shmem_put", shmem_put_lat}, {"shmem_get", shmem_get_lat},
                          {"MPI_Put+flush", mpi_put_lat}, {"MPI_Get+flush", mpi_get_lat},
                          {"Send/Recv", mpi_pingpong},  {"memcpy", memcpy_lat}};
    if (me == 0)
        printf("\n# Latency (us): blocking put/get vs MPI RMA (MPI_Win_allocate, lock_all) and "
               "send/recv one-way\n# %-8s %11s %11s %13s %13s %11s %11s\n", "Size", "shmem_put",
               "shmem_get", "MPI_Put+flush", "MPI_Get+flush", "Send/Recv", "memcpy");
    for (size_t s = 1; s <= max; s *= 4) {
        measure(lat, 6, s, iters_for(s, 5000), med);
        bench_fmt_size(s, sz);
        if (me == 0)
            printf("  %-8s %11.3f %11.3f %13.3f %13.3f %11.3f %11.3f\n", sz, med[0] * 1e6,
                   med[1] * 1e6, med[2] * 1e6, med[3] * 1e6, med[4] * 1e6, med[5] * 1e6);
    }

    /* 3. bandwidth by size */
    const mech_t bw[] = {{"shmem_put_nbi", shmem_put_bw}, {"MPI_Put", mpi_put_bw},
                         {"Isend/Irecv", mpi_sendrecv_bw}, {"memcpy", memcpy_lat}};
    double put_vs_memcpy_1m = 0;
    if (me == 0)
        printf("\n# Bandwidth (MB/s), window of %d\n# %-8s %13s %13s %13s %13s %10s %10s\n", WINDOW,
               "Size", "shmem_put", "MPI_Put", "Isend/Irecv", "memcpy", "put/memcpy", "put/MPI");
    for (size_t s = 1; s <= max; s *= 4) {
        measure(bw, 4, s, iters_for(s, 2000) / 4 + 1, med);
        bench_fmt_size(s, sz);
        if (s == ((size_t)1 << 20)) put_vs_memcpy_1m = med[3] / med[0];
        if (me == 0)
            printf("  %-8s %13.1f %13.1f %13.1f %13.1f %9.2fx %9.2fx\n", sz, s / med[0] / 1e6,
                   s / med[1] / 1e6, s / med[2] / 1e6, s / med[3] / 1e6, med[3] / med[0],
                   med[1] / med[0]);
    }

    /* 4. atomics */
    const mech_t amo[] = {{"shmem_uint64_atomic_fetch_add", shmem_fadd_rate},
                          {"shmem_uint64_atomic_add (+quiet at end)", shmem_add_rate},
                          {"MPI_Fetch_and_op + flush", mpi_fop_rate},
                          {"MPI_Accumulate (+flush at end)", mpi_acc_rate}};
    measure(amo, 4, 8, bench_iters(200000), med);
    if (me == 0) {
        printf("\n# Atomic rate, PE 0 -> PE 1, one 64-bit word\n# %-42s %14s %12s\n", "Operation",
               "Rate (Mops/s)", "Latency (us)");
        for (int k = 0; k < 4; k++)
            printf("  %-42s %14.2f %12.3f\n", amo[k].name, 1e-6 / med[k], med[k] * 1e6);
    }
    double amo_rate = 1e-6 / med[0];

    /* 5. barrier, all PEs */
    const mech_t bar[] = {{"shmem_barrier_all", shmem_barrier_lat}, {"MPI_Barrier", mpi_barrier_lat}};
    measure(bar, 2, 0, bench_iters(20000), med);
    if (me == 0) {
        printf("\n# Barrier, %d PEs\n# %-20s %12s\n", npes, "Operation", "Latency (us)");
        for (int k = 0; k < 2; k++) printf("  %-20s %12.3f\n", bar[k].name, med[k] * 1e6);
    }
    double barrier_speedup = med[1] / med[0];

    if (me == 0) {
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
