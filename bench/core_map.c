/* nodeshm-bench-map: core-to-core copy bandwidth matrix.
 *
 * Every PE pins itself to one CPU (the k-th CPU of the job's affinity mask for the k-th PE of
 * the node; pinning is printed on stderr).  For each ordered pair (src, dst) of PEs, one pair
 * at a time while the others wait, the source PE copies its private buffer (last written by
 * itself) into a symmetric buffer of the destination PE that the destination has just written
 * (so its lines sit in the destination core's cache, or its NUMA node's memory): the cost of a
 * push from one core's cache / memory into another's.  Only the memcpy is timed, not the
 * handoff that re-dirties the buffers.  Two sizes:
 *   map_hot   a buffer that fits the private caches (default 32 KiB; -m HOT:COLD sets both),
 *   map_cold  a buffer larger than the last-level cache: 2 x LLC, but at most 16 MiB; where the
 *             LLC is larger than that (VMs report the host's), both buffers are flushed from
 *             every cache (clflush) before each copy, so the copy still starts from memory.
 * CSV rows (bench/bench_util.h): test map_hot/map_cold, mechanism memcpy, param "src-dst" (the
 * CPU numbers), time per copy over repetitions.  Pairs on different nodes are skipped. */
#include <shmem.h>
#include <shmemx.h>

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

#define PROG "nodeshm-bench-map"
#define COLD_CAP ((size_t)16 << 20)

static int me, npes;
static int *cpu_of;               /* symmetric: each PE's CPU, gathered */
static uint64_t *ready, *done;    /* symmetric handoff flags */
static double result[3];          /* symmetric: a pair's median, min, max, put to PE 0 */

static void flush_range(const void *p, size_t n)
{
    for (size_t off = 0; off < n; off += 64) __builtin_ia32_clflush((const char *)p + off);
    __builtin_ia32_mfence();
}

/* Pins this PE to the node-rank-th CPU of its affinity mask; returns the CPU or -1. */
static int pin_self(int node_rank, int *wrapped)
{
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask)) return -1;
    int n = CPU_COUNT(&mask), want = node_rank % (n ? n : 1), seen = 0;
    *wrapped = node_rank >= n;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mask) && seen++ == want) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(c, &one);
            return sched_setaffinity(0, sizeof one, &one) ? -1 : c;
        }
    return -1;
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    bench_opts_t opt;
    int bad = bench_parse(argc, argv, PROG, me, &opt, NULL, NULL, "(-m HOT:COLD buffer sizes)");
    if (!bad) bad = bench_cold_refuse(&opt, PROG, me, "its map_cold rows are always cold");
    if (bad) {
        shmem_finalize();
        return bad;
    }
    size_t llc = bench_llc_bytes();
    size_t hot = bench_quick() ? 4096 : (size_t)32 << 10;
    size_t cold = 2 * llc > COLD_CAP ? COLD_CAP : 2 * llc;
    if (bench_quick()) cold = (size_t)1 << 20;
    if (opt.max_size) {
        cold = opt.max_size;
        if (opt.min_size) hot = opt.min_size;
    }
    int flush = cold <= llc; /* a cold buffer that fits the LLC is flushed before each copy */
    int reps = bench_reps();
    long hot_iters = bench_iters_opt(&opt, 200), cold_iters = bench_iters_opt(&opt, 2);
    long warm = bench_warmup(&opt, 2);

    int node_rank = shmem_team_my_pe(SHMEM_TEAM_SHARED), wrapped = 0;
    cpu_of = shmem_calloc((size_t)npes, sizeof *cpu_of);
    ready = shmem_calloc(1, sizeof *ready);
    done = shmem_calloc(1, sizeof *done);
    char *dst = shmem_malloc(cold);
    char *src = malloc(cold);
    int ok = dst && src && cpu_of && ready && done, all_ok;
    static int ok_sym, all_ok_sym;
    ok_sym = ok;
    shmem_int_min_reduce(SHMEM_TEAM_WORLD, &all_ok_sym, &ok_sym, 1);
    all_ok = all_ok_sym;
    if (!all_ok) {
        if (me == 0) bench_note(PROG, "cannot allocate %zu bytes per PE (symmetric heap: raise "
                                "SHMEM_SYMMETRIC_SIZE, or a smaller -m)", cold);
        shmem_finalize();
        return 1;
    }
    int cpu = pin_self(node_rank, &wrapped);
    for (int p = 0; p < npes; p++) shmem_int_p(cpu_of + me, cpu, p);
    shmem_barrier_all();
    memset(src, 1, cold);
    memset(dst, 2, cold);
    static int any_wrapped, wrapped_sym;
    wrapped_sym = wrapped;
    shmem_int_max_reduce(SHMEM_TEAM_WORLD, &any_wrapped, &wrapped_sym, 1);
    if (me == 0) { /* one line: the driver copies it into its report */
        char line[512];
        int len = 0;
        for (int p = 0; p < npes && len < (int)sizeof line - 32; p++)
            len += snprintf(line + len, sizeof line - (size_t)len, "%sPE %d -> CPU %d",
                            p ? ", " : "", p, cpu_of[p]);
        bench_note(PROG, "pinning: %s%s", line,
                   any_wrapped ? " (more PEs than CPUs: some share one)" : "");
    }
    if (me == 0) {
        bench_note(PROG, "hot %zu bytes, cold %zu bytes (last-level cache %zu bytes%s), %d "
                   "repetitions", hot, cold, llc, flush ? "; flushed before each copy" : "", reps);
        if (opt.csv) bench_csv_header();
        else
            printf("# nodeshm-bench-map: %d PEs, memcpy from the source PE's buffer into one the "
                   "destination PE wrote, MB/s (median of %d)\n", npes, reps);
    }

    const size_t sizes[2] = {hot, cold};
    const char *tests[2] = {"map_hot", "map_cold"};
    double *mbps = calloc((size_t)npes * (size_t)npes * 2, sizeof *mbps);
    for (int which = 0; which < 2; which++) {
        size_t n = sizes[which];
        long iters = which ? cold_iters : hot_iters;
        for (int s = 0; s < npes; s++)
            for (int d = 0; d < npes; d++) {
                if (me == 0) bench_note(PROG, "%s pair %d/%d: PE %d -> PE %d", tests[which],
                                        s * npes + d + 1, npes * npes, s, d);
                int local = shmem_ptr(dst, d) != NULL;
                double samples[64];
                *ready = *done = 0;
                shmem_barrier_all();
                /* iteration k: dst writes its buffer and raises ready = k; src copies (timed)
                 * and raises done = k; warm-up iterations first, untimed */
                for (long it = -warm, k = 1; it < (long)reps * iters && local; it++, k++) {
                    if (me == d) {
                        if (s != d) bench_wait_ge(done, (uint64_t)k - 1);
                        memset(dst, (int)(k & 0x7f), n);
                        if (flush) flush_range(dst, n);
                        if (s != d) shmem_uint64_atomic_set(ready, (uint64_t)k, s);
                    }
                    if (me == s) {
                        if (s != d) bench_wait_ge(ready, (uint64_t)k);
                        char *to = shmem_ptr(dst, d);
                        if (flush) flush_range(src, n);
                        double t0 = bench_now();
                        memcpy(to, src, n);
                        __asm__ __volatile__("" ::: "memory");
                        double t = bench_now() - t0;
                        if (it >= 0) {
                            int r = (int)(it / iters);
                            if (it % iters == 0) samples[r] = 0;
                            samples[r] += t / (double)iters;
                        }
                        if (s != d) shmem_uint64_atomic_set(done, (uint64_t)k, d);
                    }
                }
                if (me == s && local) {
                    bench_stats_t st = bench_stats(samples, reps);
                    double out[3] = {st.median, st.min, st.max};
                    shmem_putmem(result, out, sizeof out, 0);
                }
                shmem_barrier_all();
                if (me != 0) continue;
                if (!local) {
                    bench_note(PROG, "PE %d -> PE %d: different nodes, skipped", s, d);
                    continue;
                }
                bench_stats_t st = {result[0], result[1], result[2]};
                char pair[32];
                snprintf(pair, sizeof pair, "%d-%d", cpu_of[s], cpu_of[d]);
                if (opt.csv) bench_row(tests[which], "memcpy", n, pair, npes, st);
                mbps[(which * npes + s) * npes + d] = (double)n / st.median / 1e6;
            }
        if (me == 0 && !opt.csv) {
            char sz[16];
            bench_fmt_size(n, sz);
            printf("\n# %s: %s buffer, MB/s, row = source CPU, column = destination CPU\n# %8s",
                   tests[which], sz, "src\\dst");
            for (int d = 0; d < npes; d++) printf(" %9d", cpu_of[d]);
            printf("\n");
            for (int s = 0; s < npes; s++) {
                printf("  %8d", cpu_of[s]);
                for (int d = 0; d < npes; d++) printf(" %9.0f", mbps[(which * npes + s) * npes + d]);
                printf("\n");
            }
        }
    }
    free(mbps);
    free(src);
    shmem_free(dst);
    shmem_free(done);
    shmem_free(ready);
    shmem_free(cpu_of);
    shmem_finalize();
    return 0;
}
