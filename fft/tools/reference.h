/* nodeshm-fft command: the references each strategy is measured against. */
#ifndef NODESHM_FFT_TOOLS_REFERENCE_H
#define NODESHM_FFT_TOOLS_REFERENCE_H

#include "nodeshm_fft.h"

/* The serial FFTW transform of the whole grid, gathered on rank 0 and handed back as every
 * rank's out brick (double values, interleaved complex): in_data is the rank's in brick in the
 * given precision.  Collective; returns NULL when out of memory. */
double *reference_serial(MPI_Comm comm, const int n[3], const nodeshm_fft_brick_t *in,
                         const nodeshm_fft_brick_t *out, nodeshm_fft_precision_t prec,
                         const void *in_data);

/* FFTW's own MPI transform (fftw_mpi_plan_dft_3d, slabs, transposed out/in: its cheapest
 * forward+backward pair) on the same data: planned, warmed up, then `iterations` pairs timed
 * into seconds[] (max over ranks); with `check`, its forward result's largest error against
 * `ref` relative to ref's peak in *error.  0 when this build has no FFTW-MPI (*why says so). */
int reference_fftw_mpi(MPI_Comm comm, const int n[3], const nodeshm_fft_brick_t *in,
                       const nodeshm_fft_brick_t *out, nodeshm_fft_precision_t prec,
                       const void *in_data, const double *ref, double peak, int iterations,
                       int check, double *seconds, double *error, const char **why);

/* Median of v[0..k). Sorts v. */
double median(double *v, int k);

#endif
