/* nodeshm-fft: batches of strided FFTs by FFTW, one interface for both precisions
 * (fftw_* and fftwf_* are generated from one macro in fftw_backend.c). */
#ifndef NODESHM_FFT_FFTW_BACKEND_H
#define NODESHM_FFT_FFTW_BACKEND_H

#include "nodeshm_fft.h"

typedef struct nsf_fftw {
    size_t elem_bytes;
    /* A rank-`rank` transform over dims[k] = {points, element stride}, for every point of a
     * loop over loop[k] = {points, element stride} (k < loops); in and out have the same
     * layout, in place when in == out.  sign -1 forward, +1 backward.  unaligned: any
     * alignment. */
    void *(*plan)(int rank, const int dims[][2], int loops, const int loop[][2], void *in,
                  void *out, int sign, int unaligned);
    void (*execute)(void *plan, const void *in, void *out);
    void (*destroy)(void *plan);
    /* 0 when p is as aligned as FFTW's SIMD code wants (what the aligned plans assume). */
    int (*alignment_of)(const void *p);
    /* What the planner has measured, as a string to free() (NULL when out of memory), and
     * taking in another process's (nonzero on success). */
    char *(*export_wisdom)(void);
    int (*import_wisdom)(const char *wisdom);
} nsf_fftw_t;

const nsf_fftw_t *nsf_fftw_for(nodeshm_fft_precision_t precision);

#endif
