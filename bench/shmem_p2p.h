/* nodeshm-bench-p2p's parts: shmem_p2p.c the driver (measuring, tables, main), shmem_p2p_mech.c
 * the mechanisms of the one-node tables (and of the MPI library's columns beside them),
 * shmem_p2p_rma.c the between-node tables on the library's own window.  What they share. */
#ifndef NODESHM_BENCH_SHMEM_P2P_H
#define NODESHM_BENCH_SHMEM_P2P_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_util.h"

#define MAX_MECH 8

extern int me, npes;
extern bench_opts_t opt;
extern char *sym_src, *sym_dst;   /* symmetric: shmem transfers */
extern char *priv_src, *priv_dst; /* private: memcpy and MPI origin buffers */
extern char *win_buf;             /* MPI_Win_allocate's, for the one-node MPI RMA columns */
extern MPI_Win win;
extern uint64_t *amo_target;      /* symmetric: [0] the atomics' word, [1] rma_signal's signal */

/* --cold: operation number n of a measurement uses slot n of each ring (bench_util.h); hot, the
 * rings are the one buffer each.  Every PE takes the same turns (even one that does not copy),
 * so the two sides of a send/recv agree on the slot. */
extern bench_ring_t r_psrc, r_pdst, r_ssrc, r_sdst, r_win; /* priv_*, sym_*, win_buf */
unsigned long take_turns(long n);
#define PSRC(n) bench_slot(&r_psrc, (n))
#define PDST(n) bench_slot(&r_pdst, (n))
#define SSRC(n) bench_slot(&r_ssrc, (n))
#define SDST(n) bench_slot(&r_sdst, (n))
#define WDISP(n) ((MPI_Aint)bench_slot_off(&r_win, (n)))

void sync_shmem(void);
void sync_mpi(void);

typedef double (*measure_fn)(size_t size, long iters); /* seconds per operation (PE 0) */
typedef struct { const char *name, *csv; measure_fn fn; } mech_t;

/* The driver: statistics of each mechanism at one size, repetitions interleaved (alternating
 * orders); a table over sizes min..max (x4, x2 from x2_from up), human lines or CSV rows. */
void measure(const mech_t *m, int nm, size_t size, long iters, bench_stats_t *st);
void sweep(const char *test_hot, const char *title, const mech_t *m, int nm, size_t min,
           size_t max, long small_iters, int bw, size_t x2_from);

/* shmem_p2p_mech.c: each table's mechanisms, first the one others are compared with. */
extern const mech_t p2p_lat8[3];   /* cache line, put-with-signal ping-pong, send/recv */
extern const mech_t p2p_lat[7];    /* latency by size; the last (CMA) only where it works */
extern const mech_t p2p_bw[5];     /* bandwidth by size; the same */
extern const mech_t p2p_bibw[3];
extern const mech_t p2p_amo[4];
extern const mech_t p2p_barrier[2];
double memcpy_lat(size_t size, long iters);
/* Whether PE 0 can read PE 1's private memory with CMA (the same answer on every PE). */
int p2p_cma_setup(void);

/* shmem_p2p_rma.c: PE 1 on another (pseudo-)node (the same answer on every PE), and if so the
 * library's window and the buffers' places in it; 0 or 1, or exits the job. */
int p2p_rma_setup(size_t total);
/* The between-node tables: rma_put, rma_get (min..max), rma_signal (min..small_max), rma_amo. */
void p2p_rma_tables(size_t min, size_t max, size_t small_max);

#endif
