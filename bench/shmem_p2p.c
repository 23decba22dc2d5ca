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
 * Between (pseudo-)nodes (NODESHM_PES_PER_NODE=1 or --hosts: PE 1 on another node) the
 * library's MPI path runs: no cache-line or CMA rows, the other tables stop at 1 MiB, and the
 * between-node tables of shmem_p2p_rma.c follow (rma_put, rma_get, rma_signal, rma_amo).
 * The program's parts: shmem_p2p.h. */
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/runtime.h"
#include "shmem_p2p.h"

#define MAX_SIZE ((size_t)4 << 20)

int me, npes;
static int reps;
bench_opts_t opt;
char *sym_src, *sym_dst, *priv_src, *priv_dst, *win_buf;
MPI_Win win;
uint64_t *amo_target;
bench_ring_t r_psrc, r_pdst, r_ssrc, r_sdst, r_win;

static unsigned long turns;
unsigned long take_turns(long n)
{
    unsigned long t = turns;
    turns += (unsigned long)n;
    return t;
}

void sync_shmem(void) { shmem_barrier_all(); }
void sync_mpi(void) { MPI_Barrier(MPI_COMM_WORLD); }

/* --- driver ------------------------------------------------------------------------------ */

static bench_stats_t at_1m[MAX_MECH]; /* the last sweep's stats at 1 MiB, for the summary */
static int have_1m;
static long iters_for(size_t size, long small);

/* Statistics of each mechanism at `size`: repetitions interleaved, a warm-up first; each
 * repetition's sample is the slowest PE's time.  Odd repetitions run the mechanisms in reverse
 * order: the first one after a switch pays for caches and TLBs the previous one left cold
 * (measured up to 25% between pseudo-nodes), which must not count against one mechanism. */
void measure(const mech_t *m, int nm, size_t size, long iters, bench_stats_t *st)
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
void sweep(const char *test_hot, const char *title, const mech_t *m, int nm, size_t min,
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
    int remote_pair = p2p_rma_setup(total); /* PE 1 on another (pseudo-)node */
    /* the MPI path: the other tables stop at 1 MiB (their windows of 16 would move GiBs);
     * rma_put / rma_get go on to max */
    size_t small_max = remote_pair && max > ((size_t)1 << 20) ? (size_t)1 << 20 : max;
    char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(mpi_version, &len);
    char *nl = strchr(mpi_version, '\n');
    if (nl) *nl = 0;
    bench_stats_t st[MAX_MECH];
    int have_cma = p2p_cma_setup();

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
    double pingpong_ratio = 0, amo_rate = 0, barrier_speedup = 0;
    if (!opt.cold) {
        /* between nodes there is no shared cache line: the signal is the first row */
        const mech_t *l8 = remote_pair ? p2p_lat8 + 1 : p2p_lat8;
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
    sweep("latency", "Latency (us): shmem put/get, MPI_Put/Get+flush, Send/Recv one-way, memcpy, "
          "CMA", p2p_lat, have_cma ? 7 : 6, min, small_max, 1000, 0, SIZE_MAX);

    /* 3. bandwidth by size */
    sweep("bandwidth", "Bandwidth (MB/s), window of 16 (memcpy, CMA: one at a time)", p2p_bw,
          have_cma ? 5 : 4, min, small_max, 101, 1, SIZE_MAX);
    double put_vs_memcpy_1m = have_1m ? at_1m[3].median / at_1m[0].median : 0;

    /* 4. bidirectional bandwidth by size */
    sweep("bibw", "Bidirectional bandwidth (MB/s, both directions summed), window of 16", p2p_bibw, 3,
          min, small_max, 101, 1, SIZE_MAX);

    /* 4b. between nodes: blocking operations against MPI on the library's own window */
    if (remote_pair) p2p_rma_tables(min, max, small_max);

    /* 5. atomics */
    if (!opt.cold) {
        if (me == 0) bench_note("nodeshm-bench-p2p", "atomics");
        measure(p2p_amo, 4, 8, opt.iters > 0 ? opt.iters : bench_iters(50000), st);
        if (me == 0 && opt.csv)
            for (int k = 0; k < 4; k++) bench_row("amo", p2p_amo[k].csv, 8, NULL, npes, st[k]);
        else if (me == 0) {
            printf("\n# Atomic rate, PE 0 -> PE 1, one 64-bit word\n# %-42s %14s %12s\n",
                   "Operation", "Rate (Mops/s)", "Latency (us)");
            for (int k = 0; k < 4; k++)
                printf("  %-42s %14.2f %12.3f\n", p2p_amo[k].name, 1e-6 / st[k].median,
                       st[k].median * 1e6);
        }
        amo_rate = 1e-6 / st[0].median;

        /* 6. barrier, all PEs */
        if (me == 0) bench_note("nodeshm-bench-p2p", "barrier");
        measure(p2p_barrier, 2, 0, opt.iters > 0 ? opt.iters : bench_iters(5000), st);
        if (me == 0 && opt.csv)
            for (int k = 0; k < 2; k++) bench_row("barrier", p2p_barrier[k].csv, 0, NULL, npes, st[k]);
        else if (me == 0) {
            printf("\n# Barrier, %d PEs\n# %-20s %12s\n", npes, "Operation", "Latency (us)");
            for (int k = 0; k < 2; k++) printf("  %-20s %12.3f\n", p2p_barrier[k].name, st[k].median * 1e6);
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
