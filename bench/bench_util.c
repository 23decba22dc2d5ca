/* nodeshm benchmarks: timing, statistics and the command line / output contract. */
#include "bench_util.h"
#include "core/env.h"
#include "core/status.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bench_stats_t bench_stats(double *v, int n)
{
    bench_stats_t s = {0, 0, 0};
    if (n <= 0) return s;
    s.median = bench_median(v, n); /* sorted now */
    s.min = v[0];
    s.max = v[n - 1];
    return s;
}

void bench_wait_ge(const uint64_t *flag, uint64_t value)
{
    for (unsigned spins = 0; __atomic_load_n(flag, __ATOMIC_ACQUIRE) < value; spins++) {
        if (spins < 2000) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        } else {
            sched_yield();
        }
    }
}

int bench_quick(void)
{
    const char *q = getenv("NODESHM_BENCH_QUICK");
    return q && *q && *q != '0';
}

int bench_reps(void)
{
    const char *r = getenv("NODESHM_BENCH_REPS");
    int n = r ? atoi(r) : 0;
    n = n > 0 ? n : bench_quick() ? 3 : 11;
    return n < 64 ? n : 64; /* the programs keep at most 64 samples */
}

long bench_iters(long normal)
{
    long n = bench_quick() ? normal / 50 : normal;
    return n > 0 ? n : 1;
}

void bench_fmt_size(size_t s, char *out)
{
    if (s >= (1u << 20)) sprintf(out, "%zuM", s >> 20);
    else if (s >= 1024) sprintf(out, "%zuK", s >> 10);
    else sprintf(out, "%zu", s);
}

/* --- command line ---------------------------------------------------------------------------- */

/* a byte count in the syntax of every size setting of nodeshm (core/env.h: 64k, 1.5m, 1g,
 * 1048576), where OSU's -m takes plain bytes */
int bench_parse_bytes(const char *t, size_t *out)
{
    return !t || nodeshm_parse_size(t, out) != NODESHM_OK ? -1 : 0;
}

static int parse_count(const char *t, long min, long *out)
{
    char *end;
    errno = 0;
    if (!t || !*t) return -1;
    long v = strtol(t, &end, 10);
    if (end == t || *end || errno || v < min) return -1;
    *out = v;
    return 0;
}

int bench_parse(int argc, char **argv, const char *prog, int rank, bench_opts_t *o,
                int (*extra)(const char *arg, const char *next, void *user), void *user,
                const char *usage)
{
    memset(o, 0, sizeof *o);
    o->warmup = -1;
    const char *bad = NULL, *why = "unknown option";
    for (int i = 1; i < argc && !bad; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--csv")) o->csv = 1;
        else if (!strcmp(a, "--cold")) o->cold = 1;
        else if (!strcmp(a, "-f")) o->full = 1;
        else if (!strcmp(a, "-m")) {
            char buf[64];
            if (!next || strlen(next) >= sizeof buf) { bad = a; why = "needs [min:]max bytes"; break; }
            strcpy(buf, next);
            char *colon = strchr(buf, ':');
            size_t lo = 0, hi = 0;
            if (colon) *colon = 0;
            if ((colon && bench_parse_bytes(buf, &lo)) || bench_parse_bytes(colon ? colon + 1 : buf, &hi) ||
                hi == 0 || lo > hi) {
                bad = next;
                why = "-m needs [min:]max bytes, 0 < min <= max (k/m/g suffixes)";
                break;
            }
            o->min_size = lo;
            o->max_size = hi;
            i++;
        } else if (!strcmp(a, "-i") || !strcmp(a, "-x")) {
            long v;
            if (parse_count(next, !strcmp(a, "-i") ? 1 : 0, &v)) {
                bad = next ? next : a;
                why = !strcmp(a, "-i") ? "-i needs iterations >= 1" : "-x needs warm-up iterations >= 0";
                break;
            }
            if (!strcmp(a, "-i")) o->iters = v;
            else o->warmup = v;
            i++;
        } else {
            int used = extra ? extra(a, next, user) : 0;
            if (used <= 0) { bad = a; break; }
            i += used - 1;
        }
    }
    if (!bad) return 0;
    if (rank == 0)
        fprintf(stderr, "%s: %s: '%s'\nusage: %s [-m [min:]max] [-i iters] [-x warmup] [-f] "
                "[--csv] [--cold]%s%s\n  --cold: each operation on the next of a rotation of "
                "buffers >= 2 x the last-level cache (p2p, pairs, dt; NODESHM_BENCH_COLD_BUDGET "
                "caps it)\n", prog, why, bad, prog, usage ? " " : "", usage ? usage : "");
    return 2;
}

void bench_range(const bench_opts_t *o, size_t dmin, size_t dmax, size_t quick_max, size_t lo,
                 size_t hi, size_t *min, size_t *max)
{
    size_t a = dmin, b = bench_quick() && quick_max < dmax ? quick_max : dmax;
    if (o->max_size) {
        b = o->max_size;
        a = o->min_size ? o->min_size : (dmin < b ? dmin : b);
    }
    if (b > hi) b = hi;
    if (a < lo) a = lo;
    if (a > b) a = b;
    *min = a;
    *max = b;
}

long bench_iters_opt(const bench_opts_t *o, long normal)
{
    return o->iters > 0 ? o->iters : bench_iters(normal);
}

long bench_warmup(const bench_opts_t *o, long normal)
{
    if (o->warmup >= 0) return o->warmup;
    long n = bench_quick() ? normal / 10 : normal;
    return n > 0 ? n : 1;
}

/* --- --cold ------------------------------------------------------------------------------- */

size_t bench_llc_bytes(void)
{
    /* sysfs first: the highest level of cpu0's data/unified caches */
    size_t best = 0;
    int best_level = 0;
    for (int i = 0; i < 16; i++) {
        char path[96], kind[32] = "";
        int level = 0;
        unsigned long kb = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f) break;
        if (fscanf(f, "%d", &level) != 1) level = 0;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if ((f = fopen(path, "r"))) {
            if (fscanf(f, "%31s", kind) != 1) kind[0] = 0;
            fclose(f);
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if ((f = fopen(path, "r"))) {
            if (fscanf(f, "%luK", &kb) != 1) kb = 0;
            fclose(f);
        }
        if (strcmp(kind, "Instruction") && kb && level >= best_level) {
            best_level = level;
            best = (size_t)kb << 10;
        }
    }
    if (best) return best;
    long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v <= 0) v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return v > 0 ? (size_t)v : (size_t)32 << 20;
}

/* MemAvailable from /proc/meminfo, bytes (0: unknown) */
static size_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    unsigned long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lu kB", &kb) == 1) break;
    if (f) fclose(f);
    return (size_t)kb << 10;
}

size_t bench_cold_bytes(const char *prog, int rank, int node_pes, int nrings, int nsym,
                        size_t sym_heap, size_t max_size)
{
    char a[16], b[16], c[16];
    /* quick mode (tests): a small budget, so that touching the rings stays cheap */
    size_t llc = bench_llc_bytes(), want = 2 * llc,
           budget = bench_quick() ? (size_t)64 << 20 : (size_t)1 << 30;
    const char *env = getenv("NODESHM_BENCH_COLD_BUDGET");
    if (env && *env && bench_parse_bytes(env, &budget)) {
        if (rank == 0)
            bench_note(prog, "--cold: NODESHM_BENCH_COLD_BUDGET='%s' is not a byte count", env);
        return 0;
    }
    const char *capped_by = NULL;
    size_t avail = mem_available(), per_ring = budget / (size_t)(nrings > 0 ? nrings : 1);
    if (want > per_ring) capped_by = "NODESHM_BENCH_COLD_BUDGET per PE";
    size_t mem_cap = avail ? avail / 4 / (size_t)(node_pes > 0 ? node_pes : 1) / (size_t)nrings : 0;
    if (mem_cap && mem_cap < per_ring) {
        per_ring = mem_cap;
        if (want > per_ring) capped_by = "a quarter of MemAvailable over the node's PEs";
    }
    if (nsym > 0 && sym_heap / 4 * 3 / (size_t)nsym < per_ring) {
        per_ring = sym_heap / 4 * 3 / (size_t)nsym;
        if (want > per_ring) capped_by = "SHMEM_SYMMETRIC_SIZE (3/4 of the heap)";
    }
    size_t total = want < per_ring ? want : per_ring;
    size_t slot = (max_size + 4095) & ~(size_t)4095;
    if (total < slot) total = slot; /* one slot of the largest size, at least */
    if (total > per_ring) {
        if (rank == 0) {
            bench_fmt_size(slot, a);
            bench_fmt_size(per_ring, b);
            bench_note(prog, "--cold: a %s-byte buffer does not fit the %s bytes each of %d rings "
                       "may take (%s): use a smaller -m, or raise %s", a, b, nrings,
                       capped_by ? capped_by : "memory budget",
                       nsym > 0 && sym_heap / 4 * 3 / (size_t)nsym == per_ring
                           ? "SHMEM_SYMMETRIC_SIZE" : "NODESHM_BENCH_COLD_BUDGET");
        }
        return 0;
    }
    if (rank == 0) {
        bench_fmt_size(total, a);
        bench_fmt_size(llc, b);
        bench_fmt_size(budget, c);
        bench_note(prog, "--cold: %d ring(s) of %s bytes per PE (%.3g x the last-level cache of "
                   "%s bytes)%s%s%s; budget %s per PE", nrings, a, (double)total / (double)llc, b,
                   capped_by && total < want ? ", capped by " : "",
                   capped_by && total < want ? capped_by : "",
                   capped_by && total < want ? ": later slots may still be cached" : "", c);
    }
    return total;
}

void bench_ring_size(bench_ring_t *r, size_t size, int cold)
{
    if (!cold || !size) {
        r->stride = size;
        r->k = 1;
        return;
    }
    size_t unit = size >= 4096 ? 4096 : 64;
    r->stride = (size + unit - 1) / unit * unit;
    r->k = r->stride <= r->total ? (unsigned long)(r->total / r->stride) : 1;
}

const char *bench_cold_test(const bench_opts_t *o, const char *test, char *out)
{
    snprintf(out, 64, "%s%s", test, o->cold ? "_cold" : "");
    return out;
}

int bench_cold_refuse(const bench_opts_t *o, const char *prog, int rank, const char *why)
{
    if (!o->cold) return 0;
    if (rank == 0)
        bench_note(prog, "--cold: not supported here (%s); the buffer rotation is in "
                   "nodeshm-bench-p2p, -pairs and -dt", why);
    return 2;
}

/* --- output ---------------------------------------------------------------------------------- */

void bench_csv_header(void)
{
    printf("test,mechanism,bytes,param,pes,median_us,min_us,max_us,mbps\n");
    fflush(stdout);
}

void bench_row(const char *test, const char *mech, size_t bytes, const char *param, int pes,
               bench_stats_t s)
{
    double mbps = bytes && s.median > 0 ? (double)bytes / s.median / 1e6 : 0;
    printf("%s,%s,%zu,%s,%d,%.4f,%.4f,%.4f,%.2f\n", test, mech, bytes, param ? param : "0", pes,
           s.median * 1e6, s.min * 1e6, s.max * 1e6, mbps);
    fflush(stdout);
}

void bench_note(const char *prog, const char *fmt, ...)
{
    char msg[512];
    int n = snprintf(msg, sizeof msg, "%s: ", prog);
    if (n < 0 || n >= (int)sizeof msg) n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof msg - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(msg);
    msg[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, msg, len);
    (void)w;
}
