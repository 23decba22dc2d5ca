/* nodeshm benchmarks: timing and statistics shared by the benchmark programs. */
#ifndef NODESHM_BENCH_UTIL_H
#define NODESHM_BENCH_UTIL_H
#include <stddef.h>

double bench_now(void); /* seconds, monotonic */
double bench_median(double *v, int n); /* sorts v */
/* Repetitions and iteration scale, from -r/-i style env: NODESHM_BENCH_REPS, NODESHM_BENCH_QUICK */
int bench_reps(void);
long bench_iters(long normal);

#endif
