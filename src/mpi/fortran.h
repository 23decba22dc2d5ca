/* libnodeshm_mpi: what its Fortran entry points share (fortran.c: the collectives, MPI_INIT and
 * MPI_FINALIZE, and why there are entry points at all; fortran_requests.c: the MPI_WAIT/MPI_TEST
 * family, MPI_START, MPI_STARTALL, MPI_REQUEST_FREE).  Only with NODESHM_MPI_FORTRAN. */
#ifndef NODESHM_MPI_FORTRAN_H
#define NODESHM_MPI_FORTRAN_H

#include "mpi/nsmpi.h"

/* Count, displacement and index arrays are passed through as int arrays. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "nodeshm_mpi: Fortran INTEGER is not a C int");

typedef MPI_Fint nsf_int; /* INTEGER arguments, by reference */

/* 1 with *in_place and *bottom set when this MPI's Fortran MPI_IN_PLACE and MPI_BOTTOM are known
 * now (found with dlsym: fortran.c); MPI_F_STATUS(ES)_IGNORE are set with them. */
int nsf_sentinels(void **in_place, void **bottom) __attribute__((visibility("hidden")));
/* The MPI's own Fortran routine `name` (pmpi_x_); a missing one ends the job. */
void *nsf_mpi_routine(const char *name) __attribute__((visibility("hidden")));

/* The four names Fortran compilers mangle `name` to, declared (also for -Wmissing-prototypes)
 * as aliases of mpi_<name>_, which the caller defines next. */
#define NSF_NAMES(name, NAME, params)                                                              \
    void mpi_##name##_ params;                                                                     \
    void mpi_##name##__ params __attribute__((alias("mpi_" #name "_")));                           \
    void mpi_##name params __attribute__((alias("mpi_" #name "_")));                               \
    void MPI_##NAME params __attribute__((alias("mpi_" #name "_")));

/* The MPI's own Fortran routine pmpi_<name>_ as a pointer of type `params`, looked up once
 * (threads racing here store the same value). */
#define NSF_MPI_ROUTINE(name, params, fn)                                                          \
    static void(*nsf_routine_) params;                                                             \
    void(*fn) params = __atomic_load_n(&nsf_routine_, __ATOMIC_RELAXED);                           \
    if (!fn) {                                                                                     \
        fn = (void(*) params)nsf_mpi_routine("pmpi_" #name "_");                                   \
        __atomic_store_n(&nsf_routine_, fn, __ATOMIC_RELAXED);                                     \
    }

#endif
