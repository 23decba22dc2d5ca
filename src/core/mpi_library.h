/* nodeshm core: which MPI library this build is against.  Where our collectives win depends on
 * what they race, so some defaults and hand-over rules differ per library; both faces take the
 * answer from here.  Decided when compiled, by the mpi.h built against; another MPI library gets
 * the smaller of the two defaults and neither library's hand-over rules. */
#ifndef NODESHM_MPI_LIBRARY_H
#define NODESHM_MPI_LIBRARY_H

#include <mpi.h>

#if defined(OMPI_MAJOR_VERSION)
#define NODESHM_UNDER_MPICH 0
#define NODESHM_UNDER_OPEN_MPI 1
#define NODESHM_MPI_DEFAULTS_NAME "Open MPI"
#define NODESHM_BY_MPI_LIBRARY(mpich, ompi) (ompi)
#elif defined(MPICH_VERSION)
#define NODESHM_UNDER_MPICH 1
#define NODESHM_UNDER_OPEN_MPI 0
#define NODESHM_MPI_DEFAULTS_NAME "MPICH"
#define NODESHM_BY_MPI_LIBRARY(mpich, ompi) (mpich)
#else
#define NODESHM_UNDER_MPICH 0
#define NODESHM_UNDER_OPEN_MPI 0
#define NODESHM_MPI_DEFAULTS_NAME "the smaller of MPICH's and Open MPI's"
#define NODESHM_BY_MPI_LIBRARY(mpich, ompi) ((mpich) < (ompi) ? (mpich) : (ompi))
#endif

#endif
