/* nodeshm-bench-pairs: N concurrent pairs of PEs copying, through a shared mapping vs Cross
 * Memory Attach (vs XPMEM where present), N = 1 .. P/2 (launch with oshrun -np P).
 *
 * Pair i is PEs (2i, 2i+1) of the node ("pairs"); on a machine with several NUMA nodes or
 * sockets (or with -s) also (i, i + P/2) ("pairs_spread"), which, with PE k pinned to the k-th
 * CPU, puts the two sides far apart (each pair's NUMA nodes are noted on stderr).  In each pair
 * the first PE (the reader) copies `bytes` from its partner, all N readers at once after a
 * barrier (the seed paper's parallel core-to-core bandwidth), by:
 *   memcpy  in-process memcpy of the reader's own buffers: the physical limit
 *   shm     memcpy from the partner's symmetric buffer, mapped here (a shared mapping)
 *   cma     process_vm_readv of the partner's PRIVATE buffer (nodeshm_cma_read)
 *   xpmem   memcpy from the partner's private buffer attached by XPMEM (attachment cached)
 * Buffers are reused (written once by their owner): like the paper, cache effects are part of
 * small sizes; --cold rotates instead through rings >= 2 x LLC (bench_util.h), every copy from and
 * to the next slot, tests pairs_cold / pairs_spread_cold.  CSV (bench/bench_util.h): test
 * pairs|pairs_spread, param N, time per copy (max
 * over the N readers of each repetition); the total bandwidth is N x mbps.  Each PE is pinned
 * to one CPU; pinning and NUMA placement go to stderr. */
#include <mpi.h>
#include <shmem.h>

#include <dirent.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "core/copy_engine.h"
#include "core/runtime.h"

#define PROG "nodeshm-bench-pairs"
#define MAX_SAMPLES 64

static int numa_of_cpu(int cpu)
{
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d", cpu);
    DIR *d = opendir(path);
    int node = -1;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9')
            node = atoi(e->d_name + 4);
    if (d) closedir(d);
    return node < 0 ? 0 : node;
}

static int numa_nodes(void)
{
    DIR *d = opendir("/sys/devices/system/node");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9') n++;
    if (d) closedir(d);
    return n ? n : 1;
}

/* Sockets (distinct physical_package_id) among the CPUs of the affinity mask: a machine with one
 * NUMA node per several sockets still has pairs between sockets. */
static int sockets(void)
{
    cpu_set_t mask;
    int seen[64], n = 0;
    if (sched_getaffinity(0, sizeof mask, &mask)) return 1;
    for (int c = 0; c < CPU_SETSIZE && n < 64; c++) {
        if (!CPU_ISSET(c, &mask)) continue;
        char path[96];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
                 c);
        FILE *f = fopen(path, "r");
        int id = 0, known = 0;
        if (f) {
            if (fscanf(f, "%d", &id) != 1) id = 0;
            fclose(f);
        }
        for (int i = 0; i < n; i++) known |= seen[i] == id;
        if (!known) seen[n++] = id;
    }
    return n ? n : 1;
}

/* Pins to the node_rank-th CPU of the affinity mask; *mask_text the mask before pinning. */
static int pin_self(int node_rank, char *mask_text, size_t len)
{
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask)) return -1;
    size_t used = 0;
    mask_text[0] = 0;
    for (int c = 0; c < CPU_SETSIZE && used + 8 < len; c++)
        if (CPU_ISSET(c, &mask)) used += (size_t)snprintf(mask_text + used, len - used, "%s%d", used ? "," : "", c);
    int n = CPU_COUNT(&mask), want = node_rank % (n ? n : 1), seen = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mask) && seen++ == want) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(c, &one);
            return sched_setaffinity(0, sizeof one, &one) ? -1 : c;
        }
    return -1;
}

enum { M_MEMCPY, M_SHM, M_CMA, M_XPMEM, M_COUNT };

/* -s: the spread layout too, even on one NUMA node (to compare, and to test it) */
static int spread_arg(const char *arg, const char *next, void *user)
{
    (void)next;
    if (strcmp(arg, "-s")) return 0;
    *(int *)user = 1;
    return 1;
}
static const char *const mech_name[M_COUNT] = {"memcpy", "shm", "cma", "xpmem"};

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    bench_opts_t opt;
    int spread = 0;
    int bad = bench_parse(argc, argv, PROG, me, &opt, spread_arg, &spread,
                          "[-s] (-s: also pairs (i, i+P/2) on one NUMA node)");
    if (!bad && npes < 2) {
        if (me == 0) bench_note(PROG, "needs at least 2 PEs (oshrun -np P, P >= 2)");
        bad = 2;
    }
    if (bad) {
        shmem_finalize();
        return bad;
    }
    const nodeshm_topology_t *topo = &nodeshm_rt.topo;
    const nodeshm_copy_caps_t *caps = nodeshm_copy_caps();
    size_t lo, hi;
    bench_range(&opt, 4096, (size_t)64 << 20, (size_t)64 << 10, 1, (size_t)1 << 30, &lo, &hi);
    int reps = bench_reps(), half = npes / 2;

    char mask[256];
    int cpu = pin_self(topo->node_my_pe, mask, sizeof mask), numa = cpu >= 0 ? numa_of_cpu(cpu) : 0;
    int nn = numa_nodes(), ns = sockets();
    bench_note(PROG, "PE %d (pid %d): affinity %s, pinned to CPU %d, NUMA node %d", me,
               (int)getpid(), mask, cpu, numa);
    int *numa_all = malloc((size_t)npes * sizeof *numa_all);
    int *cpu_all = malloc((size_t)npes * sizeof *cpu_all);
    MPI_Allgather(&numa, 1, MPI_INT, numa_all, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(&cpu, 1, MPI_INT, cpu_all, 1, MPI_INT, MPI_COMM_WORLD);
    if (me == 0) { /* one line: nodeshm-bench copies it into its report */
        char line[512];
        int len = 0;
        for (int p = 0; p < npes && len < (int)sizeof line - 40; p++)
            len += snprintf(line + len, sizeof line - (size_t)len, "%sPE %d -> CPU %d (NUMA %d)",
                            p ? ", " : "", p, cpu_all[p], numa_all[p]);
        bench_note(PROG, "pinning: %s", line);
    }
    free(cpu_all);

    /* --cold: each buffer is a ring (bench_util.h), the symmetric one within the heap */
    size_t total = hi;
    if (opt.cold) {
        total = bench_cold_bytes(PROG, me, topo->node_n_pes, 3, 1, nodeshm_rt.heap_size, hi);
        if (!total) {
            shmem_finalize();
            return 1;
        }
    }
    char *sym = shmem_malloc(total);                  /* the shared mapping (partner's pages) */
    char *priv = malloc(total), *dst = malloc(total); /* private: CMA/XPMEM source; destination */
    static uint64_t priv_addr;                  /* symmetric: where my private buffer is */
    int ok = sym && priv && dst, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all_ok) {
        if (me == 0) bench_note(PROG, "cannot allocate 3 x %zu bytes per PE (SHMEM_SYMMETRIC_SIZE"
                                " or -m%s)", total, opt.cold ? ", --cold" : "");
        shmem_finalize();
        return 1;
    }
    memset(sym, me + 1, total); /* written by their owner: its pages, its NUMA node, its caches */
    memset(priv, me + 1, total);
    memset(dst, 0, total);
    bench_ring_t ring = {dst, total, 0, 1}; /* slots: the same offsets in all three buffers */
    unsigned long turns = 0;                /* copies so far, the same count on every PE */
    priv_addr = (uint64_t)(uintptr_t)priv;
    shmem_barrier_all();

    int layouts = nn > 1 || ns > 1 || spread ? 2 : 1;
    int avail[M_COUNT] = {1, 1, caps && caps->cma, caps && caps->xpmem};
    if (me == 0) {
        bench_note(PROG, "%d PEs, %d NUMA node%s, %d socket%s%s; sizes %zu..%zu, %d repetitions; "
                   "CMA %s%s%s,"
                   " XPMEM %s%s%s", npes, nn, nn > 1 ? "s" : "", ns, ns > 1 ? "s" : "",
                   nn > 1 || ns > 1 || spread ? "" : " (one socket: no spread layout)", lo, hi,
                   reps,
                   avail[M_CMA] ? "on" : "off", avail[M_CMA] ? "" : ": ",
                   avail[M_CMA] ? "" : caps ? caps->cma_why : "not probed",
                   avail[M_XPMEM] ? "on" : "off", avail[M_XPMEM] ? "" : ": ",
                   avail[M_XPMEM] ? "" : caps ? caps->xpmem_why : "not probed");
        if (opt.csv) bench_csv_header();
    }

    for (int layout = 0; layout < layouts; layout++) {
        char test[64];
        bench_cold_test(&opt, layout ? "pairs_spread" : "pairs", test);
        /* my partner, and whether I am the reader, in this layout */
        int reader = layout ? me < half : me % 2 == 0;
        int pair = layout ? (me < half ? me : me - half) : me / 2;
        int partner = layout ? (me < half ? me + half : me - half) : me ^ 1;
        if (partner >= npes || pair >= half) reader = 0, pair = half; /* odd P: the last idles */
        if (me == 0)
            for (int i = 0; i < half; i++) {
                int a = layout ? i : 2 * i, b = layout ? i + half : 2 * i + 1;
                bench_note(PROG, "%s: pair %d = PE %d (NUMA %d) reads PE %d (NUMA %d)", test, i, a,
                           numa_all[a], b, numa_all[b]);
            }
        int pidx = partner < npes ? topo->node_index_of[partner] : -1;
        const nodeshm_copy_peer_t *peer = pidx >= 0 ? nodeshm_copy_peer(pidx) : NULL;
        const char *shared = pidx >= 0 ? shmem_ptr(sym, partner) : NULL;
        uint64_t their_priv = 0;
        if (partner < npes) shmem_getmem(&their_priv, &priv_addr, sizeof their_priv, partner);
        int local = !reader || (peer && shared), all_local = 0;
        MPI_Allreduce(&local, &all_local, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (!all_local) {
            if (me == 0) bench_note(PROG, "%s: some pair spans nodes: skipped", test);
            continue;
        }
        if (me == 0 && !opt.csv) {
            printf("\n# %s: %d PEs, %d NUMA node%s; total MB/s of N concurrent copies (median of "
                   "%d)\n", test, npes, nn, nn > 1 ? "s" : "", reps);
            printf("# %3s %9s", "N", "bytes");
            for (int m = 0; m < M_COUNT; m++)
                if (avail[m]) printf(" %12s%s", mech_name[m], opt.full ? " [ worst  -  best  ]" : "");
            if (avail[M_CMA]) printf(" %9s", "shm/cma");
            printf("\n");
        }
        for (int n = 1; n <= half; n++) {
            int active = reader && pair < n;
            for (size_t size = lo; size <= hi; size *= 2) {
                double med[M_COUNT] = {0}, lo_t[M_COUNT] = {0}, hi_t[M_COUNT] = {0};
                long normal = (long)(((size_t)32 << 20) / size);
                long iters = bench_iters_opt(&opt, normal < 2 ? 2 : normal > 200 ? 200 : normal);
                long warm = bench_warmup(&opt, 2);
                bench_ring_size(&ring, size, opt.cold);
                /* sources; XPMEM attaches (cached) once per size (the whole ring when cold) */
                const char *srcs[M_COUNT] = {priv, shared, NULL, NULL};
                int use[M_COUNT];
                for (int m = 0; m < M_COUNT; m++) {
                    if (m == M_XPMEM && active && avail[m]) {
                        srcs[m] = nodeshm_xpmem_attach(peer, (void *)(uintptr_t)their_priv,
                                                       opt.cold ? total : size);
                        if (!srcs[m]) bench_note(PROG, "PE %d: xpmem attach failed", me);
                    }
                    int ok_src = !avail[m] || !active || m == M_CMA || srcs[m];
                    MPI_Allreduce(&ok_src, &use[m], 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
                    use[m] = use[m] && avail[m];
                }
                static double samples[M_COUNT][MAX_SAMPLES];
                int failed = 0;
                /* repetitions outermost, engines inside: load that comes and goes (a shared
                 * machine) hits every engine alike */
                for (int r = -1; r < reps && !failed; r++) { /* r = -1: warm-up */
                    for (int m = 0; m < M_COUNT && !failed; m++) {
                        if (!use[m]) continue;
                        long count = r < 0 ? warm : iters;
                        unsigned long t1 = turns;
                        turns += (unsigned long)count;
                        /* the last copy's destination, cleared: the copy must bring them */
                        char *last = count ? bench_slot(&ring, turns - 1) : dst;
                        if (active) last[0] = last[size - 1] = 0;
                        MPI_Barrier(MPI_COMM_WORLD);
                        double t0 = bench_now();
                        for (long it = 0; active && it < count && !failed; it++) {
                            size_t off = bench_slot_off(&ring, t1 + (unsigned long)it);
                            if (m == M_CMA)
                                failed = nodeshm_cma_read(PROG, peer, dst + off,
                                                          (void *)(uintptr_t)(their_priv + off),
                                                          size);
                            else memcpy(dst + off, srcs[m] + off, size);
                            __asm__ __volatile__("" ::: "memory");
                        }
                        double t = active && count ? (bench_now() - t0) / (double)count : 0;
                        /* the last copy must have brought the partner's bytes (memcpy: my own) */
                        char want = (char)((m == M_MEMCPY ? me : partner) + 1);
                        if (active && count && !failed &&
                            (last[0] != want || last[size - 1] != want)) {
                            bench_note(PROG, "PE %d: %s copied wrong data", me, mech_name[m]);
                            failed = 1;
                        }
                        /* one collective for both: each costs a time slice on a loaded machine */
                        double mine[2] = {t, failed}, all[2];
                        MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                        if (r >= 0) samples[m][r] = all[0];
                        failed = all[1] > 0;
                    }
                }
                if (failed) {
                    shmem_finalize();
                    return 1;
                }
                for (int m = 0; m < M_COUNT; m++) {
                    if (!use[m]) continue;
                    bench_stats_t st = bench_stats(samples[m], reps);
                    med[m] = st.median, lo_t[m] = st.min, hi_t[m] = st.max;
                    if (me == 0 && opt.csv) {
                        char param[16];
                        snprintf(param, sizeof param, "%d", n);
                        bench_row(test, mech_name[m], size, param, npes, st);
                    }
                }
                if (me == 0 && !opt.csv) {
                    printf("  %3d %9zu", n, size);
                    double total = (double)n * (double)size / 1e6; /* MB moved per round */
                    for (int m = 0; m < M_COUNT; m++) {
                        if (!avail[m]) continue;
                        printf(" %12.0f", med[m] > 0 ? total / med[m] : 0.0);
                        if (opt.full) /* best and worst repetition */
                            printf(" [%8.0f-%8.0f]", hi_t[m] > 0 ? total / hi_t[m] : 0.0,
                                   lo_t[m] > 0 ? total / lo_t[m] : 0.0);
                    }
                    if (avail[M_CMA]) printf(" %9.2f", med[M_SHM] > 0 ? med[M_CMA] / med[M_SHM] : 0.0);
                    printf("\n");
                    fflush(stdout);
                }
                if (size > hi / 2) break; /* no overflow past hi */
            }
        }
        if (peer && reader) nodeshm_xpmem_release(peer);
    }
    shmem_barrier_all();
    shmem_free(sym);
    free(priv);
    free(dst);
    free(numa_all);
    shmem_finalize();
    return 0;
}
