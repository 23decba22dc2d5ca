/* libnodeshm_mpi: NODESHM_MPI_STATS, a per-op report at MPI_Finalize (what mpiP and IPM print
 * for a whole job, for the interposer's collectives).
 *
 *   NODESHM_MPI_STATS=1          rank 0 writes the report to stderr
 *   NODESHM_MPI_STATS=path       ... to the file (opened at MPI_Init: a path rank 0 cannot write
 *                                ends the job there, with a message); path ending in .csv: one
 *                                CSV row per op instead of the tables
 *   unset, empty or 0            off: each entry pays one predictable branch (NSM_STATS_ON)
 *
 * Per op, summed over the ranks of MPI_COMM_WORLD: calls (whatever the entry: plain, MPI-4 _c,
 * Fortran), accelerated, empty (count 0: nothing to move), handed to the MPI library and why
 * (NSM_WHYS: the first reason that applies, in the order the op checks them), bytes, time inside
 * (all calls, and the accelerated ones); the fewest and most calls and time of one rank.
 * Bytes of a call: what this rank's buffers hold for it: the message (bcast, reduce, allreduce and
 * their non-blocking and persistent forms; a persistent op's call is an MPI_Start), its block (gather, gatherv, allgather, allgatherv, igather,
 * iallgather: the one it sends; scatter, scatterv, iscatter: the one it receives; with MPI_IN_PLACE the same block on the other side), its whole send buffer
 * (alltoall, alltoallv, alltoallw, reduce_scatter_block, reduce_scatter; scan, exscan: the
 * message); barrier 0.  Fortran calls made by the MPI's own
 * routine (the "fortran" column) count no bytes.
 *
 * Counters: relaxed atomics on each op's own cache lines (nsm_op_stats_t), the current call's
 * outcome in a thread-local record, so threads calling collectives at once count exactly. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi/nsmpi.h"
#include "core/env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int nsm_stats_on;
static const char *nsm_stats_path; /* NULL: stderr */
static FILE *nsm_stats_out;        /* rank 0's, opened at MPI_Init */
static long long nsm_stats_t0;     /* MPI_Init, for the report's wall time */
static _Thread_local nsm_call_t *nsm_current;

static const char *const nsm_why_name[NSM_WHY_COUNT] = {
#define NSM_WHY_NAME(id, column, meaning) column,
    NSM_WHYS(NSM_WHY_NAME)
#undef NSM_WHY_NAME
};

static long long nsm_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* ---------------------------------------------------------------- settings */

int nsm_stats_load(void)
{
    const char *text;
    if (nodeshm_setting_text(&nodeshm_face_mpi, "NODESHM_MPI_STATS", &text)) return -1;
    nsm_stats_on = text && *text && strcmp(text, "0") != 0;
    nsm_stats_path = nsm_stats_on && strcmp(text, "1") != 0 ? text : NULL;
    nsm_stats_t0 = nsm_now();
    return 0;
}

/* Rank 0 opens the report's file now, so that a path it cannot write stops the job at once
 * rather than after the run. */
int nsm_stats_open(void)
{
    int rank = 0;
    if (!nsm_stats_on || !nsm_stats_path || nsm_stats_out) return 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) return 0;
    nsm_stats_out = fopen(nsm_stats_path, "w");
    if (nsm_stats_out) return 0;
    char expected[512];
    snprintf(expected, sizeof expected, "0, 1 (stderr) or a file rank 0 can write: %s", strerror(errno));
    nodeshm_setting_invalid(&nodeshm_face_mpi, "NODESHM_MPI_STATS", nsm_stats_path, expected);
    return -1;
}

/* ---------------------------------------------------------------- counting */

void nsm_stats_enter(nsm_call_t *c)
{
    c->why = NSM_WHY_NONE;
    nsm_current = c;
    c->t0 = nsm_now();
}

int nsm_stats_leave(nsm_call_t *c, int op, long long bytes, int rc)
{
    long long dt = nsm_now() - c->t0;
    nsm_op_stats_t *st = &nsm_stats[op];
    nsm_current = NULL;
    __atomic_fetch_add(&st->calls, 1, __ATOMIC_RELAXED);
    if (bytes > 0) __atomic_fetch_add(&st->bytes, (long)bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&st->ns, (long)dt, __ATOMIC_RELAXED);
    if (c->why == NSM_WHY_NONE) __atomic_fetch_add(&st->ns_accel, (long)dt, __ATOMIC_RELAXED);
    __atomic_fetch_add(&st->why[c->why], 1, __ATOMIC_RELAXED);
    return rc;
}

void nsm_stats_why(int why)
{
    if (nsm_current) nsm_current->why = why;
}

int nsm_why_window(int op, MPI_Comm comm, const nsm_state_t *s, int looked, long long bytes, int hint)
{
    if (nsm_cfg.all_off || nsm_cfg.off[op]) return NSM_WHY_DISABLED;
    if (op != NSM_OP_BARRIER && op != NSM_OP_IBARRIER && op != NSM_OP_BARRIER_INIT && !nsm_cfg.max[op]) return NSM_WHY_ABOVE_MAX; /* no size */
    if (!looked) {
        if (bytes > (long long)nsm_cfg.max[op]) return NSM_WHY_ABOVE_MAX;
        if (bytes > 0 && (size_t)bytes < nsm_op_min(op)) return NSM_WHY_BELOW_MIN;
        return hint;
    }
    if (!s) {
        int inter = 0;
        return comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter
                   ? NSM_WHY_INTER
                   : NSM_WHY_ALONE;
    }
    if (bytes > (long long)s->max[op]) return NSM_WHY_ABOVE_MAX;
    if (bytes > 0 && (size_t)bytes < s->min[op]) return NSM_WHY_BELOW_MIN;
    return hint;
}

/* ---------------------------------------------------------------- bytes */

long long nsm_stat_bytes(long long count, MPI_Datatype type)
{
    MPI_Count size;
    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size_x(type, &size) != MPI_SUCCESS) return 0;
    return count * (long long)size;
}

int nsm_stat_ranks(MPI_Comm comm)
{
    int inter = 0, n = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
    if ((inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n)) != MPI_SUCCESS) return 0;
    return n;
}

long long nsm_stat_index(const int *counts, MPI_Comm comm, int rank, MPI_Datatype type)
{
    if (rank < 0 && (comm == MPI_COMM_NULL || PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS)) return 0;
    return counts && rank >= 0 && rank < nsm_stat_ranks(comm) ? nsm_stat_bytes(counts[rank], type) : 0;
}

long long nsm_stat_sum(const int *counts, MPI_Comm comm, MPI_Datatype type)
{
    long long n = 0;
    for (int r = 0, size = counts ? nsm_stat_ranks(comm) : 0; r < size; r++) n += counts[r] > 0 ? counts[r] : 0;
    return nsm_stat_bytes(n, type);
}

/* ---------------------------------------------------------------- the report */

/* Per op, the values reduced over ranks: [0..NSM_WHY_COUNT) calls by outcome, then these. */
enum { NSR_CALLS = NSM_WHY_COUNT, NSR_ACCEL, NSR_BYTES, NSR_NS, NSR_NS_ACCEL, NSR_N };

static void nsm_report_csv(FILE *f, long sum[][NSR_N], long lo[][NSR_N], long hi[][NSR_N])
{
    fprintf(f, "op,calls,accelerated,empty,handed,bytes,time_ms,accel_time_ms,calls_min,calls_max,"
               "time_min_ms,time_max_ms");
    for (int w = NSM_WHY_DISABLED; w < NSM_WHY_COUNT; w++) fprintf(f, ",%s", nsm_why_name[w]);
    fprintf(f, "\n");
    for (int i = 0; i < NSM_OP_COUNT; i++) {
        long handed = 0;
        for (int w = NSM_WHY_DISABLED; w < NSM_WHY_COUNT; w++) handed += sum[i][w];
        fprintf(f, "%s,%ld,%ld,%ld,%ld,%ld,%.6f,%.6f,%ld,%ld,%.6f,%.6f", nsm_op_names[i], sum[i][NSR_CALLS],
                sum[i][NSR_ACCEL], sum[i][NSM_WHY_EMPTY], handed, sum[i][NSR_BYTES], sum[i][NSR_NS] / 1e6,
                sum[i][NSR_NS_ACCEL] / 1e6, lo[i][NSR_CALLS], hi[i][NSR_CALLS], lo[i][NSR_NS] / 1e6,
                hi[i][NSR_NS] / 1e6);
        for (int w = NSM_WHY_DISABLED; w < NSM_WHY_COUNT; w++) fprintf(f, ",%ld", sum[i][w]);
        fprintf(f, "\n");
    }
}

static void nsm_report_text(FILE *f, int ranks, long sum[][NSR_N], long lo[][NSR_N], long hi[][NSR_N])
{
    fprintf(f, "nodeshm_mpi stats: %d rank%s, %.3f s from MPI_Init to MPI_Finalize (rank 0); per op, summed "
               "over ranks (min-max: one rank's)\n",
            ranks, ranks == 1 ? "" : "s", (nsm_now() - nsm_stats_t0) / 1e9);
    fprintf(f, "%-20s %9s %11s %7s %9s %14s %13s %13s %13s %21s\n", "op", "calls", "accelerated", "empty",
            "handed", "bytes", "time_ms", "accel_time_ms", "calls_min-max", "time_ms_min-max");
    int used[NSM_WHY_COUNT] = {0}, any = 0;
    for (int i = 0; i < NSM_OP_COUNT; i++) {
        if (!sum[i][NSR_CALLS]) continue;
        long handed = 0;
        for (int w = NSM_WHY_DISABLED; w < NSM_WHY_COUNT; w++) {
            handed += sum[i][w];
            if (sum[i][w]) used[w] = any = 1;
        }
        char calls[48], time[48];
        snprintf(calls, sizeof calls, "%ld-%ld", lo[i][NSR_CALLS], hi[i][NSR_CALLS]);
        snprintf(time, sizeof time, "%.6f-%.6f", lo[i][NSR_NS] / 1e6, hi[i][NSR_NS] / 1e6);
        fprintf(f, "%-20s %9ld %11ld %7ld %9ld %14ld %13.6f %13.6f %13s %21s\n", nsm_op_names[i], sum[i][NSR_CALLS],
                sum[i][NSR_ACCEL], sum[i][NSM_WHY_EMPTY], handed, sum[i][NSR_BYTES], sum[i][NSR_NS] / 1e6,
                sum[i][NSR_NS_ACCEL] / 1e6, calls, time);
    }
    if (!any) return;
    fprintf(f, "handed to the MPI library, why (calls summed over ranks):\n%-20s", "op");
    for (int w = NSM_WHY_DISABLED; w < NSM_WHY_COUNT; w++)
        if (used[w]) fprintf(f, " %11s", nsm_why_name[w]);
    fprintf(f, "\n");
    for (int i = 0; i < NSM_OP_COUNT; i++) {
        long handed = 0;
        for (int w = NSM_WHY_DISABLED; w < NSM_WHY_COUNT; w++) handed += sum[i][w];
        if (!handed) continue;
        fprintf(f, "%-20s", nsm_op_names[i]);
        for (int w = NSM_WHY_DISABLED; w < NSM_WHY_COUNT; w++)
            if (used[w]) fprintf(f, " %11ld", sum[i][w]);
        fprintf(f, "\n");
    }
    for (int w = NSM_WHY_DISABLED; w < NSM_WHY_COUNT; w++) {
        static const char *const meaning[NSM_WHY_COUNT] = {
#define NSM_WHY_MEANING(id, column, text) text,
            NSM_WHYS(NSM_WHY_MEANING)
#undef NSM_WHY_MEANING
        };
        if (used[w]) fprintf(f, "  %s: %s\n", nsm_why_name[w], meaning[w]);
    }
}

/* Collective over MPI_COMM_WORLD, at MPI_Finalize before the states are freed. */
void nsm_stats_report(void)
{
    int up = 0, down = 0, rank = 0, ranks = 1;
    if (!nsm_stats_on || PMPI_Initialized(&up) != MPI_SUCCESS || !up || PMPI_Finalized(&down) != MPI_SUCCESS ||
        down)
        return;
    static long mine[NSM_OP_COUNT][NSR_N], sum[NSM_OP_COUNT][NSR_N], lo[NSM_OP_COUNT][NSR_N],
        hi[NSM_OP_COUNT][NSR_N];
    for (int i = 0; i < NSM_OP_COUNT; i++) {
        for (int w = 0; w < NSM_WHY_COUNT; w++) mine[i][w] = __atomic_load_n(&nsm_stats[i].why[w], __ATOMIC_RELAXED);
        mine[i][NSR_CALLS] = __atomic_load_n(&nsm_stats[i].calls, __ATOMIC_RELAXED);
        mine[i][NSR_ACCEL] = __atomic_load_n(&nsm_stats[i].accelerated, __ATOMIC_RELAXED);
        mine[i][NSR_BYTES] = __atomic_load_n(&nsm_stats[i].bytes, __ATOMIC_RELAXED);
        mine[i][NSR_NS] = __atomic_load_n(&nsm_stats[i].ns, __ATOMIC_RELAXED);
        mine[i][NSR_NS_ACCEL] = __atomic_load_n(&nsm_stats[i].ns_accel, __ATOMIC_RELAXED);
    }
    const int n = NSM_OP_COUNT * NSR_N;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &ranks);
    PMPI_Reduce(mine, sum, n, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(mine, lo, n, MPI_LONG, MPI_MIN, 0, MPI_COMM_WORLD);
    PMPI_Reduce(mine, hi, n, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank != 0) return;
    if (nsm_stats_path && !nsm_stats_out && nsm_stats_open()) return; /* MPI_Init was not ours */
    /* stderr: the whole report in one write, so that other ranks' lines do not cut into it */
    char *text = NULL;
    size_t text_len = 0;
    FILE *f = nsm_stats_out ? nsm_stats_out : open_memstream(&text, &text_len);
    if (!f) return;
    size_t len = nsm_stats_path ? strlen(nsm_stats_path) : 0;
    if (len > 4 && !strcmp(nsm_stats_path + len - 4, ".csv"))
        nsm_report_csv(f, sum, lo, hi);
    else
        nsm_report_text(f, ranks, sum, lo, hi);
    if (nsm_stats_out) {
        if (fclose(nsm_stats_out))
            fprintf(stderr, "nodeshm_mpi: MPI_Finalize: NODESHM_MPI_STATS: writing %s: %s\n", nsm_stats_path,
                    strerror(errno));
        nsm_stats_out = NULL;
    } else {
        fclose(f);
        if (write(2, text, text_len) < 0) { /* nowhere left to tell */
        }
        free(text);
    }
}
