/* nodeshm benchmarks: timing and statistics shared by the benchmark programs. */
#ifndef NODESHM_BENCH_UTIL_H
#define NODESHM_BENCH_UTIL_H
#include <stddef.h>

double bench_now(void); /* seconds, monotonic */
double bench_median(double *v, int n); /* sorts v */
/* Repetitions and iteration scale, from -r/-i style env: NODESHM_BENCH_REPS, NODESHM_BENCH_QUICK */
int bench_reps(void); /* at most 64 */
long bench_iters(long normal);
int bench_quick(void); /* NODESHM_BENCH_QUICK: tiny sizes, few iterations */
void bench_fmt_size(size_t s, char *out); /* 1K, 4M ... (out: 16 bytes) */

#endif
