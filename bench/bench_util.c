/* nodeshm benchmarks: timing and statistics. */
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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
