/* libnodeshm_mpi: Fortran entry points (mpif.h and `use mpi`) of the intercepted collectives.
 *
 * Why: an MPI's Fortran binding may call PMPI_Allreduce, not MPI_Allreduce, and then our C
 * symbols never see a Fortran program's calls.  Measured on Debian 12 (nm -D, objdump, a run):
 * Open MPI 4.1.4's libmpi_mpifh calls PMPI_* only (367 PMPI_ and 0 MPI_ undefined symbols;
 * `use mpi` binds to the same mpi_allreduce_; mpi_f08 goes through ompi_allreduce_f to
 * PMPI_Allreduce): 0 calls accelerated.  MPICH 4.0.2's libmpichfort calls MPI_Allreduce etc.
 * (the C symbols), so it was accelerated already; these entry points replace its wrappers with
 * equivalent ones.  (mpi_f08 is not covered: its symbols and descriptors differ per MPI.)
 *
 * Each entry point converts the Fortran handles (MPI_Comm_f2c, MPI_Type_f2c, MPI_Op_f2c) and the
 * MPI_IN_PLACE / MPI_BOTTOM sentinels, calls our C function (which hands the call to PMPI_*
 * when it does not accelerate it) and stores the return code in ierror.  The four names Fortran
 * compilers mangle to (mpi_x_, mpi_x__, mpi_x, MPI_X) are aliases of one function.
 *
 * The sentinels are addresses only the MPI knows: NSF_SENTINELS lists where each MPI keeps them,
 * found with dlsym in the running process.  Where none is known (another MPI, or MPICH before its
 * Fortran side is initialised), a call goes to the MPI's own Fortran routine (pmpi_x_), correct
 * and not accelerated rather than misreading MPI_IN_PLACE as a buffer.
 *
 * Compiled only when CMake finds a Fortran compiler and a Fortran-enabled MPI (the Fortran block
 * of CMakeLists.txt defines NODESHM_MPI_FORTRAN): the glob of src/mpi sources always sees it. */
#ifdef NODESHM_MPI_FORTRAN
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mpi/nsmpi.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* Count and displacement arrays are passed through as int arrays. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "nodeshm_mpi: Fortran INTEGER is not a C int");

/* X(symbol holding MPI_IN_PLACE, symbol holding MPI_BOTTOM, indirect): indirect 0 means the
 * symbol's address is the sentinel (Open MPI's common blocks), 1 means the symbol is a pointer
 * to it (MPICH's MPIR_F_*, set when its Fortran side initialises). */
#define NSF_SENTINELS(X)                                                                           \
    X("mpi_fortran_in_place_", "mpi_fortran_bottom_", 0) /* Open MPI */                            \
    X("MPIR_F_MPI_IN_PLACE", "MPIR_F_MPI_BOTTOM", 1)     /* MPICH */

typedef struct nsf_sentinels {
    void *in_place, *bottom; /* the symbols found */
    int indirect;
} nsf_sentinels_t;

static nsf_sentinels_t nsf_found;
static int nsf_looked; /* 0: not yet, 1: found, -1: none known */

/* 1 with *in_place and *bottom set when this MPI's Fortran sentinels are known now. */
static int nsf_sentinels(void **in_place, void **bottom)
{
    int looked = __atomic_load_n(&nsf_looked, __ATOMIC_ACQUIRE);
    if (!looked) { /* racing threads find the same symbols */
        static const nsf_sentinels_t known[] = {
#define NSF_KNOWN(ip, bot, ind) {(void *)(ip), (void *)(bot), ind},
            NSF_SENTINELS(NSF_KNOWN)
#undef NSF_KNOWN
        };
        looked = -1;
        for (size_t i = 0; i < sizeof known / sizeof known[0] && looked < 0; i++) {
            void *ip = dlsym(RTLD_DEFAULT, (const char *)known[i].in_place);
            void *bot = dlsym(RTLD_DEFAULT, (const char *)known[i].bottom);
            if (ip && bot) {
                nsf_found = (nsf_sentinels_t){ip, bot, known[i].indirect};
                looked = 1;
            }
        }
        __atomic_store_n(&nsf_looked, looked, __ATOMIC_RELEASE);
    }
    if (looked < 0) return 0;
    *in_place = nsf_found.indirect ? *(void **)nsf_found.in_place : nsf_found.in_place;
    *bottom = nsf_found.indirect ? *(void **)nsf_found.bottom : nsf_found.bottom;
    return *in_place != NULL;
}

/* The MPI's own Fortran routine `name` (pmpi_x_): where we cannot convert a call ourselves. */
static void *nsf_mpi_routine(const char *name)
{
    void *fn = dlsym(RTLD_DEFAULT, name);
    if (!fn) {
        fprintf(stderr, "nodeshm_mpi: %s: the MPI library has no Fortran routine %s\n", name + 1, name);
        abort();
    }
    return fn;
}

#define NSF_BUF(p) ((p) == nsf_in_place ? MPI_IN_PLACE : (p) == nsf_bottom ? MPI_BOTTOM : (void *)(p))
#define NSF_COMM(c) MPI_Comm_f2c(*(c))
#define NSF_TYPE(t) MPI_Type_f2c(*(t))
#define NSF_OP(o) MPI_Op_f2c(*(o))
#define NSF_INTS(a) ((const int *)(a))

typedef MPI_Fint nsf_int; /* INTEGER arguments, by reference */

/* X(name, NAME, (Fortran parameters), (the same as arguments), C call): one row per collective
 * the interposer defines.  The C call may use NSF_BUF/NSF_COMM/NSF_TYPE/NSF_OP/NSF_INTS. */
#define NSF_CALLS(X)                                                                               \
    X(barrier, BARRIER, (nsf_int *comm, nsf_int *ierr), (comm, ierr), MPI_Barrier(NSF_COMM(comm))) \
    X(bcast, BCAST,                                                                                \
      (void *buf, nsf_int *n, nsf_int *t, nsf_int *root, nsf_int *comm, nsf_int *ierr),            \
      (buf, n, t, root, comm, ierr),                                                               \
      MPI_Bcast(NSF_BUF(buf), *n, NSF_TYPE(t), *root, NSF_COMM(comm)))                             \
    X(gather, GATHER,                                                                              \
      (void *sb, nsf_int *sn, nsf_int *st, void *rb, nsf_int *rn, nsf_int *rt, nsf_int *root,      \
       nsf_int *comm, nsf_int *ierr),                                                              \
      (sb, sn, st, rb, rn, rt, root, comm, ierr),                                                  \
      MPI_Gather(NSF_BUF(sb), *sn, NSF_TYPE(st), NSF_BUF(rb), *rn, NSF_TYPE(rt), *root,            \
                 NSF_COMM(comm)))                                                                  \
    X(gatherv, GATHERV,                                                                            \
      (void *sb, nsf_int *sn, nsf_int *st, void *rb, nsf_int *rns, nsf_int *displs, nsf_int *rt,   \
       nsf_int *root, nsf_int *comm, nsf_int *ierr),                                               \
      (sb, sn, st, rb, rns, displs, rt, root, comm, ierr),                                         \
      MPI_Gatherv(NSF_BUF(sb), *sn, NSF_TYPE(st), NSF_BUF(rb), NSF_INTS(rns), NSF_INTS(displs),    \
                  NSF_TYPE(rt), *root, NSF_COMM(comm)))                                            \
    X(scatter, SCATTER,                                                                            \
      (void *sb, nsf_int *sn, nsf_int *st, void *rb, nsf_int *rn, nsf_int *rt, nsf_int *root,      \
       nsf_int *comm, nsf_int *ierr),                                                              \
      (sb, sn, st, rb, rn, rt, root, comm, ierr),                                                  \
      MPI_Scatter(NSF_BUF(sb), *sn, NSF_TYPE(st), NSF_BUF(rb), *rn, NSF_TYPE(rt), *root,           \
                  NSF_COMM(comm)))                                                                 \
    X(scatterv, SCATTERV,                                                                          \
      (void *sb, nsf_int *sns, nsf_int *displs, nsf_int *st, void *rb, nsf_int *rn, nsf_int *rt,   \
       nsf_int *root, nsf_int *comm, nsf_int *ierr),                                               \
      (sb, sns, displs, st, rb, rn, rt, root, comm, ierr),                                         \
      MPI_Scatterv(NSF_BUF(sb), NSF_INTS(sns), NSF_INTS(displs), NSF_TYPE(st), NSF_BUF(rb), *rn,   \
                   NSF_TYPE(rt), *root, NSF_COMM(comm)))                                           \
    X(allgather, ALLGATHER,                                                                        \
      (void *sb, nsf_int *sn, nsf_int *st, void *rb, nsf_int *rn, nsf_int *rt, nsf_int *comm,      \
       nsf_int *ierr),                                                                             \
      (sb, sn, st, rb, rn, rt, comm, ierr),                                                        \
      MPI_Allgather(NSF_BUF(sb), *sn, NSF_TYPE(st), NSF_BUF(rb), *rn, NSF_TYPE(rt), NSF_COMM(comm))) \
    X(allgatherv, ALLGATHERV,                                                                      \
      (void *sb, nsf_int *sn, nsf_int *st, void *rb, nsf_int *rns, nsf_int *displs, nsf_int *rt,   \
       nsf_int *comm, nsf_int *ierr),                                                              \
      (sb, sn, st, rb, rns, displs, rt, comm, ierr),                                               \
      MPI_Allgatherv(NSF_BUF(sb), *sn, NSF_TYPE(st), NSF_BUF(rb), NSF_INTS(rns), NSF_INTS(displs), \
                     NSF_TYPE(rt), NSF_COMM(comm)))                                                \
    X(reduce, REDUCE,                                                                              \
      (void *sb, void *rb, nsf_int *n, nsf_int *t, nsf_int *op, nsf_int *root, nsf_int *comm,      \
       nsf_int *ierr),                                                                             \
      (sb, rb, n, t, op, root, comm, ierr),                                                        \
      MPI_Reduce(NSF_BUF(sb), NSF_BUF(rb), *n, NSF_TYPE(t), NSF_OP(op), *root, NSF_COMM(comm)))    \
    X(allreduce, ALLREDUCE,                                                                        \
      (void *sb, void *rb, nsf_int *n, nsf_int *t, nsf_int *op, nsf_int *comm, nsf_int *ierr),     \
      (sb, rb, n, t, op, comm, ierr),                                                              \
      MPI_Allreduce(NSF_BUF(sb), NSF_BUF(rb), *n, NSF_TYPE(t), NSF_OP(op), NSF_COMM(comm)))        \
    X(reduce_scatter_block, REDUCE_SCATTER_BLOCK,                                                  \
      (void *sb, void *rb, nsf_int *n, nsf_int *t, nsf_int *op, nsf_int *comm, nsf_int *ierr),     \
      (sb, rb, n, t, op, comm, ierr),                                                              \
      MPI_Reduce_scatter_block(NSF_BUF(sb), NSF_BUF(rb), *n, NSF_TYPE(t), NSF_OP(op),              \
                               NSF_COMM(comm)))                                                    \
    X(alltoall, ALLTOALL,                                                                          \
      (void *sb, nsf_int *sn, nsf_int *st, void *rb, nsf_int *rn, nsf_int *rt, nsf_int *comm,      \
       nsf_int *ierr),                                                                             \
      (sb, sn, st, rb, rn, rt, comm, ierr),                                                        \
      MPI_Alltoall(NSF_BUF(sb), *sn, NSF_TYPE(st), NSF_BUF(rb), *rn, NSF_TYPE(rt), NSF_COMM(comm))) \
    X(alltoallv, ALLTOALLV,                                                                        \
      (void *sb, nsf_int *sns, nsf_int *sdispls, nsf_int *st, void *rb, nsf_int *rns,              \
       nsf_int *rdispls, nsf_int *rt, nsf_int *comm, nsf_int *ierr),                               \
      (sb, sns, sdispls, st, rb, rns, rdispls, rt, comm, ierr),                                    \
      MPI_Alltoallv(NSF_BUF(sb), NSF_INTS(sns), NSF_INTS(sdispls), NSF_TYPE(st), NSF_BUF(rb),      \
                    NSF_INTS(rns), NSF_INTS(rdispls), NSF_TYPE(rt), NSF_COMM(comm)))

/* Declares the four mangled names (also for -Wmissing-prototypes) and defines the first. */
#define NSF_DEFINE(name, NAME, params, args, call)                                                 \
    void mpi_##name##_ params;                                                                     \
    void mpi_##name##__ params __attribute__((alias("mpi_" #name "_")));                           \
    void mpi_##name params __attribute__((alias("mpi_" #name "_")));                               \
    void MPI_##NAME params __attribute__((alias("mpi_" #name "_")));                               \
    void mpi_##name##_ params                                                                      \
    {                                                                                              \
        void *nsf_in_place, *nsf_bottom;                                                           \
        if (!nsf_sentinels(&nsf_in_place, &nsf_bottom)) {                                          \
            static void (*mpi_routine) params; /* threads racing here store the same value */      \
            void (*fn) params = __atomic_load_n(&mpi_routine, __ATOMIC_RELAXED);                   \
            if (!fn) {                                                                             \
                fn = (void (*) params)nsf_mpi_routine("pmpi_" #name "_");                          \
                __atomic_store_n(&mpi_routine, fn, __ATOMIC_RELAXED);                              \
            }                                                                                      \
            nsm_call_t c_; /* NODESHM_MPI_STATS: the "fortran" column */                           \
            const int counting = NSM_STATS_ON;                                                     \
            if (counting) nsm_stats_enter(&c_);                                                    \
            fn args;                                                                               \
            if (counting) {                                                                        \
                c_.why = NSM_WHY_FORTRAN;                                                          \
                nsm_stats_leave(&c_, NSM_OP_##NAME, 0, 0);                                         \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        (void)nsf_in_place, (void)nsf_bottom;                                                      \
        *ierr = call;                                                                              \
    }
NSF_CALLS(NSF_DEFINE)
#undef NSF_DEFINE

/* MPI_FINALIZE: the communicators' shared windows are freed while MPI still runs (what our
 * MPI_Finalize does for C), then the MPI's own Fortran routine finishes. */
void mpi_finalize_(nsf_int *ierr);
void mpi_finalize__(nsf_int *ierr) __attribute__((alias("mpi_finalize_")));
void mpi_finalize(nsf_int *ierr) __attribute__((alias("mpi_finalize_")));
void MPI_FINALIZE(nsf_int *ierr) __attribute__((alias("mpi_finalize_")));
void mpi_finalize_(nsf_int *ierr)
{
    nsm_stats_report();
    nsm_finalize_states();
    void (*fn)(nsf_int *) = (void (*)(nsf_int *))nsf_mpi_routine("pmpi_finalize_");
    fn(ierr);
}
#endif /* NODESHM_MPI_FORTRAN */
