/* nodeshm-fft: batches of contiguous 1D FFTs by FFTW, one interface for both precisions
 * (fftw_* and fftwf_* are generated from one macro in fftw_backend.c). */
#ifndef NODESHM_FFT_FFTW_BACKEND_H
#define NODESHM_FFT_FFTW_BACKEND_H

#include "nodeshm_fft.h"

typedef struct nsf_fftw {
    size_t elem_bytes;
    /* 1D transforms of length n at element stride `stride`, for every point of a 2D loop
     * (loop[k][0] points at element stride loop[k][1]); in and out have the same layout, out
     * of place.  sign -1 forward, +1 backward.  unaligned: for arrays of any alignment. */
    void *(*plan)(int n, int stride, const int loop[2][2], void *in, void *out, int sign,
                  int unaligned);
    void (*execute)(void *plan, const void *in, void *out);
    void (*destroy)(void *plan);
    /* 0 when p is as aligned as FFTW's SIMD code wants (what the aligned plans assume). */
    int (*alignment_of)(const void *p);
} nsf_fftw_t;

const nsf_fftw_t *nsf_fftw_for(nodeshm_fft_precision_t precision);

#endif
