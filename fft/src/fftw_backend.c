/* nodeshm-fft: FFTW 3 for both precisions from one definition. */
#include "fftw_backend.h"

#include <fftw3.h>

/* FFTW_ESTIMATE: planning neither takes time nor touches the arrays, and the same problem
 * always gets the same algorithm, so every strategy's results are bitwise identical. */
#define NSF_FFTW_BACKEND(P, complex_t, real_t)                                                  \
    static void *nsf_##P##_plan(int n, int howmany, void *in, void *out, int sign, int unaligned)    \
    {                                                                                           \
        unsigned flags = FFTW_ESTIMATE | FFTW_PRESERVE_INPUT | (unaligned ? FFTW_UNALIGNED : 0); \
        return P##_plan_many_dft(1, &n, howmany, (complex_t *)in, NULL, 1, n, (complex_t *)out, \
                                 NULL, 1, n, sign < 0 ? FFTW_FORWARD : FFTW_BACKWARD, flags);   \
    }                                                                                           \
    static void nsf_##P##_exec(void *plan, const void *in, void *out)                                 \
    {                                                                                           \
        P##_execute_dft((P##_plan)plan, (complex_t *)(void *)in, (complex_t *)out);            \
    }                                                                                           \
    static void nsf_##P##_destroy(void *plan) { P##_destroy_plan((P##_plan)plan); }                   \
    static int nsf_##P##_align(const void *p) { return P##_alignment_of((real_t *)(void *)p); }       \
    static const nsf_fftw_t nsf_##P##_backend = {sizeof(complex_t), nsf_##P##_plan, nsf_##P##_exec,  \
                                               nsf_##P##_destroy, nsf_##P##_align};

NSF_FFTW_BACKEND(fftw, fftw_complex, double)
NSF_FFTW_BACKEND(fftwf, fftwf_complex, float)

const nsf_fftw_t *nsf_fftw_for(nodeshm_fft_precision_t precision)
{
    switch (precision) {
    case NODESHM_FFT_DOUBLE: return &nsf_fftw_backend;
    case NODESHM_FFT_SINGLE: return &nsf_fftwf_backend;
    default: return NULL;
    }
}
