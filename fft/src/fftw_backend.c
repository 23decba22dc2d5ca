/* nodeshm-fft: FFTW 3 for both precisions from one definition. */
#include "fftw_backend.h"

#include "core/tuning.h"

#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The planner's rigor, NODESHM_FFT_FFTW=estimate|measure|patient (default measure).  Plans are
 * made on the plan's own buffers when it is created.  FFTW keeps what it measured (wisdom) for
 * the process, so every later plan of the same problem gets the same algorithm: the strategies'
 * results stay bitwise identical. */
unsigned nodeshm_fft_fftw_flags(void)
{
    static const struct { const char *name; unsigned flag; } rigor[] = {
        {"estimate", FFTW_ESTIMATE}, {"measure", FFTW_MEASURE}, {"patient", FFTW_PATIENT}};
    const char *env = nodeshm_getenv("NODESHM_FFT_FFTW"); /* or the tuning file */
    if (!env || !*env) return FFTW_MEASURE;
    for (size_t k = 0; k < sizeof rigor / sizeof rigor[0]; k++)
        if (!strcmp(env, rigor[k].name)) return rigor[k].flag;
    static int said;
    if (!said++)
        fprintf(stderr, "nodeshm-fft: NODESHM_FFT_FFTW=%s (accepted: estimate, measure, patient): "
                "using measure\n", env);
    return FFTW_MEASURE;
}

#define NSF_FFTW_BACKEND(P, complex_t, real_t)                                                  \
    static void *nsf_##P##_plan(int rank, const int dims[][2], int loops, const int loop[][2], \
                                void *in, void *out, int sign, int unaligned)                   \
    {                                                                                           \
        unsigned flags = nodeshm_fft_fftw_flags() | FFTW_PRESERVE_INPUT |                       \
                         (unaligned ? FFTW_UNALIGNED : 0);                                      \
        P##_iodim d[3], many[3];                                                                \
        for (int k = 0; k < rank; k++) d[k] = (P##_iodim){dims[k][0], dims[k][1], dims[k][1]};  \
        for (int k = 0; k < loops; k++)                                                         \
            many[k] = (P##_iodim){loop[k][0], loop[k][1], loop[k][1]};                          \
        return P##_plan_guru_dft(rank, d, loops, many, (complex_t *)in, (complex_t *)out,       \
                                 sign < 0 ? FFTW_FORWARD : FFTW_BACKWARD, flags);               \
    }                                                                                           \
    static void nsf_##P##_exec(void *plan, const void *in, void *out)                                 \
    {                                                                                           \
        P##_execute_dft((P##_plan)plan, (complex_t *)(void *)in, (complex_t *)out);            \
    }                                                                                           \
    static void nsf_##P##_destroy(void *plan) { P##_destroy_plan((P##_plan)plan); }                   \
    static int nsf_##P##_align(const void *p) { return P##_alignment_of((real_t *)(void *)p); }       \
    static char *nsf_##P##_export(void) { return P##_export_wisdom_to_string(); }               \
    static int nsf_##P##_import(const char *w) { return P##_import_wisdom_from_string(w); }   \
    static const nsf_fftw_t nsf_##P##_backend = {sizeof(complex_t), nsf_##P##_plan, nsf_##P##_exec,  \
                                               nsf_##P##_destroy, nsf_##P##_align,              \
                                               nsf_##P##_export, nsf_##P##_import};

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
