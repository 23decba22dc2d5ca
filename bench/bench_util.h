/* nodeshm benchmarks: timing, statistics and the command line / output contract shared by the
 * benchmark programs.
 *
 * Every program takes OSU-style flags: -m [min:]max (bytes), -i iters, -x warmup, -f (min and
 * max columns in the tables), --csv, --cold (buffer rotation below: p2p, pairs, dt; the others
 * refuse it with bench_cold_refuse); and NODESHM_BENCH_QUICK=1 (tiny sizes, few iterations).
 * With --csv, rank 0 prints exactly one header line (bench_csv_header) and rows (bench_row) on
 * stdout, nothing else: progress and notes go to stderr (bench_note).  tools/nodeshm_bench/rows.py
 * parses these rows. */
#ifndef NODESHM_BENCH_UTIL_H
#define NODESHM_BENCH_UTIL_H
#include <stddef.h>
#include <stdint.h>

double bench_now(void); /* seconds, monotonic */
double bench_median(double *v, int n); /* sorts v */
/* Repetitions and iteration scale, from -r/-i style env: NODESHM_BENCH_REPS, NODESHM_BENCH_QUICK */
int bench_reps(void); /* at most 64 */
long bench_iters(long normal);
int bench_quick(void); /* NODESHM_BENCH_QUICK: tiny sizes, few iterations */
void bench_fmt_size(size_t s, char *out); /* 1K, 4M ... (out: 16 bytes) */

/* Waits until *flag (acquire) is >= value: spins briefly, then yields the core (the policy of
 * src/core/wait.h), so that a handoff between two PEs still works when the machine is
 * oversubscribed (a pure spin then costs a whole time slice per handoff). */
void bench_wait_ge(const uint64_t *flag, uint64_t value);

/* The command line of the contract.  Fields left at their "unset" value (0 / -1) mean "the
 * program's default". */
typedef struct bench_opts {
    size_t min_size; /* -m min:max; 0 = default */
    size_t max_size; /* -m max; 0 = default */
    long iters;      /* -i: iterations per repetition; 0 = default (sized per message) */
    long warmup;     /* -x: warm-up iterations before the repetitions; -1 = default */
    int full;        /* -f: min and max columns in the human tables */
    int csv;         /* --csv: machine rows only on stdout */
    int cold;        /* --cold: every operation on the next buffer of a rotation (bench_ring_t) */
} bench_opts_t;

/* Parses argv.  Words it does not know are an error unless `extra` (may be NULL) accepts them:
 * extra(arg, next, opts_user) returns how many words it consumed (1 or 2), or 0 if unknown.
 * On a bad command line: rank 0 prints what is wrong and the usage to stderr, returns 2
 * (the caller finalizes and exits with it); returns 0 when fine.  `usage` describes the
 * program's own flags, or NULL. */
/* A byte count as every nodeshm size setting takes it (64k, 1.5m, 1048576): 0, or -1 if bad. */
int bench_parse_bytes(const char *text, size_t *bytes);

int bench_parse(int argc, char **argv, const char *prog, int rank, bench_opts_t *o,
                int (*extra)(const char *arg, const char *next, void *user), void *user,
                const char *usage);
/* Sizes min..max from the options: default range [dmin, dmax], clamped to [lo, hi] (the
 * program's buffers).  The quick mode shrinks the default maximum to `quick_max`. */
void bench_range(const bench_opts_t *o, size_t dmin, size_t dmax, size_t quick_max, size_t lo,
                 size_t hi, size_t *min, size_t *max);
/* Iterations per repetition: -i if given, else `normal` (scaled down in quick mode). */
long bench_iters_opt(const bench_opts_t *o, long normal);
/* Warm-up iterations: -x if given, else `normal` (at least 1 in quick mode). */
long bench_warmup(const bench_opts_t *o, long normal);

typedef struct bench_stats {
    double median, min, max; /* seconds per operation */
} bench_stats_t;
/* Median, min and max of n samples (sorts v). */
bench_stats_t bench_stats(double *v, int n);

/* --- --cold: buffer rotation ---------------------------------------------------------------
 * A hot benchmark reuses one buffer, so after the first iteration it measures the caches.  With
 * --cold each operation uses the next slot of a ring of buffers whose total is at least twice the
 * last-level cache, so by the time a slot comes round again it has been evicted.  The CSV test
 * name gets the suffix "_cold" (bench_cold_test): hot and cold rows never share a table. */
/* Last-level cache bytes: the highest cache level in sysfs (cpu0), else sysconf, else 32 MiB. */
size_t bench_llc_bytes(void);
/* Bytes of each of `nrings` rings per PE: 2 x LLC, at least max_size, capped by the memory
 * budget (NODESHM_BENCH_COLD_BUDGET bytes per PE, default 1 GiB, 64 MiB in quick mode; and a
 * quarter of the node's available memory shared by its `node_pes` PEs) and, for the `nsym`
 * rings that must be symmetric, by 3/4 of the symmetric heap (`sym_heap` bytes; 0: none are).
 * Rank 0 notes the choice and any cap on stderr.  Returns 0 (after an error on stderr naming
 * --cold and the sizes) when not even one max_size slot fits. */
size_t bench_cold_bytes(const char *prog, int rank, int node_pes, int nrings, int nsym,
                        size_t sym_heap, size_t max_size);
typedef struct bench_ring {
    char *base;    /* `total` bytes */
    size_t total;
    size_t stride; /* between slots: the size in whole cache lines (pages from 4 KiB) */
    unsigned long k; /* slots; 1 when hot (the one buffer at base) */
} bench_ring_t;
/* Slots of `size` bytes over the ring (cold), or the one buffer at base (hot). */
void bench_ring_size(bench_ring_t *r, size_t size, int cold);
/* Operation i's buffer, and its offset from base (for a peer's copy of a symmetric ring). */
static inline size_t bench_slot_off(const bench_ring_t *r, unsigned long i)
{
    return (size_t)(i % r->k) * r->stride;
}
static inline char *bench_slot(const bench_ring_t *r, unsigned long i)
{
    return r->base + bench_slot_off(r, i);
}
/* "latency" -> "latency_cold" under --cold (out: 64 bytes). */
const char *bench_cold_test(const bench_opts_t *o, const char *test, char *out);
/* For programs without a rotation: under --cold, rank 0 says so (naming the programs that have
 * one) and it returns 2 (a bad command line); else 0. */
int bench_cold_refuse(const bench_opts_t *o, const char *prog, int rank, const char *why);

/* CSV: header once (rank 0 only), then one row per measurement; `param` NULL means "0". */
void bench_csv_header(void);
void bench_row(const char *test, const char *mech, size_t bytes, const char *param, int pes,
               bench_stats_t s);
/* A note on stderr ("prog: ..."), one write so ranks do not interleave. */
void bench_note(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
