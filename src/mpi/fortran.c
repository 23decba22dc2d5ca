/* libnodeshm_mpi: Fortran entry points (mpif.h and `use mpi`) of the intercepted collectives
 * (blocking, non-blocking, MPI-4 persistent), MPI_INIT and MPI_FINALIZE; those of the request
 * calls (the MPI_WAIT/MPI_TEST family, MPI_START, MPI_STARTALL, MPI_REQUEST_FREE) are in
 * fortran_requests.c.
 *
 * Why: an MPI's Fortran binding may call PMPI_Allreduce, not MPI_Allreduce, and then our C
 * symbols never see a Fortran program's calls.  Measured on Debian 12 (nm -D, objdump, a run):
 * Open MPI 4.1.4's libmpi_mpifh calls PMPI_* only (367 PMPI_ and 0 MPI_ undefined symbols;
 * `use mpi` binds to the same mpi_allreduce_; mpi_f08 goes through ompi_allreduce_f to
 * PMPI_Allreduce): 0 calls accelerated.  MPICH 4.0.2's libmpichfort calls MPI_Allreduce etc.
 * (the C symbols), so it was accelerated already; these entry points replace its wrappers with
 * equivalent ones.  (mpi_f08 is not covered: its symbols and descriptors differ per MPI.)
 *
 * Each entry point converts the Fortran handles (MPI_Comm_f2c, MPI_Type_f2c, MPI_Op_f2c; a
 * non-blocking or persistent op's request back with MPI_Request_c2f, an info with MPI_Info_f2c;
 * alltoallw's datatype arrays into temporaries) and the MPI_IN_PLACE / MPI_BOTTOM sentinels,
 * calls our C function (which hands the call to PMPI_* when it does not accelerate it) and stores
 * the return code in ierror.  The non-blocking ops complete, and the persistent ones start, only
 * in our C request calls, which Open MPI's Fortran MPI_WAIT, MPI_START & co bypass as well: they
 * have entry points too (fortran_requests.c).
 * The four names Fortran compilers mangle to (mpi_x_, mpi_x__, mpi_x, MPI_X) are aliases of one
 * function.
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
#include "mpi/fortran.h"
#include "mpi/nonblocking.h"
#include "nsm_bigcount_config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

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

int nsf_sentinels(void **in_place, void **bottom)
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

/* where we cannot convert a call ourselves */
void *nsf_mpi_routine(const char *name)
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

/* Alltoallw: the datatype arrays converted (MPI_Type_f2c) into temporaries of the communicator's
 * (remote group's) size. */
static int nsf_alltoallw(const void *sb, const nsf_int *sns, const nsf_int *sds, const nsf_int *sts, void *rb,
                         const nsf_int *rns, const nsf_int *rds, const nsf_int *rts, MPI_Comm comm)
{
    int n = 0, inter = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS ||
        (inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n)) != MPI_SUCCESS)
        return PMPI_Alltoallw(sb, NSF_INTS(sns), NSF_INTS(sds), NULL, rb, NSF_INTS(rns), NSF_INTS(rds), NULL,
                              comm); /* the library reports the communicator */
    MPI_Datatype stack[2 * 32], *st = stack;
    if (n > 32 && !(st = malloc(sizeof *st * 2 * (size_t)n))) {
        fprintf(stderr, "nodeshm_mpi: MPI_ALLTOALLW: out of memory for %d datatypes\n", 2 * n);
        nodeshm_abort_job(1);
    }
    MPI_Datatype *rt = st + n;
    for (int r = 0; r < n; r++) st[r] = MPI_Type_f2c(sts[r]), rt[r] = MPI_Type_f2c(rts[r]);
    int rc = MPI_Alltoallw(sb, NSF_INTS(sns), NSF_INTS(sds), st, rb, NSF_INTS(rns), NSF_INTS(rds), rt, comm);
    if (st != stack) free(st);
    return rc;
}

/* X(name, NAME, C function, forms, (Fortran parameters but ierror), (the same as arguments), (C
 * arguments)): one row per blocking collective the interposer defines; forms B: the blocking
 * entry, BI: also the non-blocking one (mpi_i<name>_ calling MPI_I<name>: the parameters and
 * arguments plus the request; the C request goes back through MPI_Request_c2f), BIP: also the
 * MPI-4 persistent one where the MPI has it (mpi_<name>_init_ calling MPI_<Name>_init:
 * persistent_init.c; the arguments plus the info, through MPI_Info_f2c, and the request).  The C
 * arguments may use NSF_BUF/NSF_COMM/NSF_TYPE/NSF_OP/NSF_INTS. */
#define NSF_CALLS(X)                                                                               \
    X(barrier, BARRIER, MPI_Barrier, BIP, (nsf_int *comm), (comm), (NSF_COMM(comm)))                    \
    X(bcast, BCAST, MPI_Bcast, BIP, (void *buf, nsf_int *n, nsf_int *t, nsf_int *root, nsf_int *comm),  \
      (buf, n, t, root, comm), (NSF_BUF(buf), *n, NSF_TYPE(t), *root, NSF_COMM(comm)))             \
    X(gather, GATHER, MPI_Gather, BIP,                                                                  \
      (void *sb, nsf_int *sn, nsf_int *st, void *rb, nsf_int *rn, nsf_int *rt, nsf_int *root,      \
       nsf_int *comm),                                                                             \
      (sb, sn, st, rb, rn, rt, root, comm),                                                        \
      (NSF_BUF(sb), *sn, NSF_TYPE(st), NSF_BUF(rb), *rn, NSF_TYPE(rt), *root, NSF_COMM(comm)))     \
    X(gatherv, GATHERV, MPI_Gatherv, BI,                                                               \
      (void *sb, nsf_int *sn, nsf_int *st, void *rb, nsf_int *rns, nsf_int *displs, nsf_int *rt,   \
       nsf_int *root, nsf_int *comm),                                                              \
      (sb, sn, st, rb, rns, displs, rt, root, comm),                                               \
      (NSF_BUF(sb), *sn, NSF_TYPE(st), NSF_BUF(rb), NSF_INTS(rns), NSF_INTS(displs), NSF_TYPE(rt), \
       *root, NSF_COMM(comm)))                                                                     \
    X(scatter, SCATTER, MPI_Scatter, BIP,                                                               \
      (void *sb, nsf_int *sn, nsf_int *st, void *rb, nsf_int *rn, nsf_int *rt, nsf_int *root,      \
       nsf_int *comm),                                                                             \
      (sb, sn, st, rb, rn, rt, root, comm),                                                        \
      (NSF_BUF(sb), *sn, NSF_TYPE(st), NSF_BUF(rb), *rn, NSF_TYPE(rt), *root, NSF_COMM(comm)))     \
    X(scatterv, SCATTERV, MPI_Scatterv, BI,                                                            \
      (void *sb, nsf_int *sns, nsf_int *displs, nsf_int *st, void *rb, nsf_int *rn, nsf_int *rt,   \
       nsf_int *root, nsf_int *comm),                                                              \
      (sb, sns, displs, st, rb, rn, rt, root, comm),                                               \
      (NSF_BUF(sb), NSF_INTS(sns), NSF_INTS(displs), NSF_TYPE(st), NSF_BUF(rb), *rn, NSF_TYPE(rt), \
       *root, NSF_COMM(comm)))                                                                     \
    X(allgather, ALLGATHER, MPI_Allgather, BIP,                                                         \
      (void *sb, nsf_int *sn, nsf_int *st, void *rb, nsf_int *rn, nsf_int *rt, nsf_int *comm),     \
      (sb, sn, st, rb, rn, rt, comm),                                                              \
      (NSF_BUF(sb), *sn, NSF_TYPE(st), NSF_BUF(rb), *rn, NSF_TYPE(rt), NSF_COMM(comm)))            \
    X(allgatherv, ALLGATHERV, MPI_Allgatherv, BI,                                                      \
      (void *sb, nsf_int *sn, nsf_int *st, void *rb, nsf_int *rns, nsf_int *displs, nsf_int *rt,   \
       nsf_int *comm),                                                                             \
      (sb, sn, st, rb, rns, displs, rt, comm),                                                     \
      (NSF_BUF(sb), *sn, NSF_TYPE(st), NSF_BUF(rb), NSF_INTS(rns), NSF_INTS(displs), NSF_TYPE(rt), \
       NSF_COMM(comm)))                                                                            \
    X(reduce, REDUCE, MPI_Reduce, BIP,                                                                  \
      (void *sb, void *rb, nsf_int *n, nsf_int *t, nsf_int *op, nsf_int *root, nsf_int *comm),     \
      (sb, rb, n, t, op, root, comm),                                                              \
      (NSF_BUF(sb), NSF_BUF(rb), *n, NSF_TYPE(t), NSF_OP(op), *root, NSF_COMM(comm)))              \
    X(allreduce, ALLREDUCE, MPI_Allreduce, BIP,                                                         \
      (void *sb, void *rb, nsf_int *n, nsf_int *t, nsf_int *op, nsf_int *comm), (sb, rb, n, t, op, comm), \
      (NSF_BUF(sb), NSF_BUF(rb), *n, NSF_TYPE(t), NSF_OP(op), NSF_COMM(comm)))                     \
    X(reduce_scatter_block, REDUCE_SCATTER_BLOCK, MPI_Reduce_scatter_block, B,                         \
      (void *sb, void *rb, nsf_int *n, nsf_int *t, nsf_int *op, nsf_int *comm), (sb, rb, n, t, op, comm), \
      (NSF_BUF(sb), NSF_BUF(rb), *n, NSF_TYPE(t), NSF_OP(op), NSF_COMM(comm)))                     \
    X(reduce_scatter, REDUCE_SCATTER, MPI_Reduce_scatter, B,                                           \
      (void *sb, void *rb, nsf_int *rns, nsf_int *t, nsf_int *op, nsf_int *comm), (sb, rb, rns, t, op, comm), \
      (NSF_BUF(sb), NSF_BUF(rb), NSF_INTS(rns), NSF_TYPE(t), NSF_OP(op), NSF_COMM(comm)))          \
    X(scan, SCAN, MPI_Scan, B, (void *sb, void *rb, nsf_int *n, nsf_int *t, nsf_int *op, nsf_int *comm), \
      (sb, rb, n, t, op, comm), (NSF_BUF(sb), NSF_BUF(rb), *n, NSF_TYPE(t), NSF_OP(op), NSF_COMM(comm))) \
    X(exscan, EXSCAN, MPI_Exscan, B, (void *sb, void *rb, nsf_int *n, nsf_int *t, nsf_int *op, nsf_int *comm), \
      (sb, rb, n, t, op, comm), (NSF_BUF(sb), NSF_BUF(rb), *n, NSF_TYPE(t), NSF_OP(op), NSF_COMM(comm))) \
    X(alltoall, ALLTOALL, MPI_Alltoall, BI,                                                            \
      (void *sb, nsf_int *sn, nsf_int *st, void *rb, nsf_int *rn, nsf_int *rt, nsf_int *comm),     \
      (sb, sn, st, rb, rn, rt, comm),                                                              \
      (NSF_BUF(sb), *sn, NSF_TYPE(st), NSF_BUF(rb), *rn, NSF_TYPE(rt), NSF_COMM(comm)))            \
    X(alltoallv, ALLTOALLV, MPI_Alltoallv, BI,                                                         \
      (void *sb, nsf_int *sns, nsf_int *sds, nsf_int *st, void *rb, nsf_int *rns, nsf_int *rds,    \
       nsf_int *rt, nsf_int *comm),                                                                \
      (sb, sns, sds, st, rb, rns, rds, rt, comm),                                                  \
      (NSF_BUF(sb), NSF_INTS(sns), NSF_INTS(sds), NSF_TYPE(st), NSF_BUF(rb), NSF_INTS(rns),        \
       NSF_INTS(rds), NSF_TYPE(rt), NSF_COMM(comm)))                                               \
    X(alltoallw, ALLTOALLW, nsf_alltoallw, B,                                                          \
      (void *sb, nsf_int *sns, nsf_int *sds, nsf_int *sts, void *rb, nsf_int *rns, nsf_int *rds,   \
       nsf_int *rts, nsf_int *comm),                                                               \
      (sb, sns, sds, sts, rb, rns, rds, rts, comm),                                                \
      (NSF_BUF(sb), sns, sds, sts, NSF_BUF(rb), rns, rds, rts, NSF_COMM(comm)))

/* Parameter and argument lists of the blocking (B), non-blocking (I) and persistent (P) entries,
 * from a row's. */
#define NSF_PARAMS_B(...) (__VA_ARGS__, nsf_int *ierr)
#define NSF_ARGS_B(...) (__VA_ARGS__, ierr)
#define NSF_PARAMS_I(...) (__VA_ARGS__, nsf_int *request, nsf_int *ierr)
#define NSF_ARGS_I(...) (__VA_ARGS__, request, ierr)
#define NSF_CARGS_I(...) (__VA_ARGS__, &creq)
#define NSF_PARAMS_P(...) (__VA_ARGS__, nsf_int *info, nsf_int *request, nsf_int *ierr)
#define NSF_ARGS_P(...) (__VA_ARGS__, info, request, ierr)
#define NSF_CARGS_P(...) (__VA_ARGS__, MPI_Info_f2c(*info), &creq)

/* The persistent forms this MPI has (nsm_bigcount_config.h, which names them as C does), by the
 * table's NAME: NSF_IF_INIT_<NAME>(code) keeps or drops the code. */
#define NSF_IF_INIT_BARRIER NSM_IF_INIT_Barrier
#define NSF_IF_INIT_BCAST NSM_IF_INIT_Bcast
#define NSF_IF_INIT_GATHER NSM_IF_INIT_Gather
#define NSF_IF_INIT_SCATTER NSM_IF_INIT_Scatter
#define NSF_IF_INIT_ALLGATHER NSM_IF_INIT_Allgather
#define NSF_IF_INIT_REDUCE NSM_IF_INIT_Reduce
#define NSF_IF_INIT_ALLREDUCE NSM_IF_INIT_Allreduce

/* Defines mpi_<name>_ (and aliases): the C call `call` when the MPI's Fortran sentinels are
 * known, with `after` on success; else the MPI's own routine, counted (`counted` 1) as handed
 * (reason "fortran"): not an init, whose starts are the calls counted (they reach MPI_START). */
#define NSF_DEFINE(name, NAME, params, args, call, after, counted)                                 \
    NSF_NAMES(name, NAME, params)                                                                  \
    void mpi_##name##_ params                                                                      \
    {                                                                                              \
        void *nsf_in_place, *nsf_bottom;                                                           \
        if (!nsf_sentinels(&nsf_in_place, &nsf_bottom)) {                                          \
            NSF_MPI_ROUTINE(name, params, fn)                                                      \
            nsm_call_t c_; /* NODESHM_MPI_STATS: the "fortran" column */                           \
            const int counting = (counted) && NSM_STATS_ON;                                        \
            if (counting) nsm_stats_enter(&c_);                                                    \
            fn args;                                                                               \
            if (counting) {                                                                        \
                c_.why = NSM_WHY_FORTRAN;                                                          \
                nsm_stats_leave(&c_, NSM_OP_##NAME, 0, 0);                                         \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        (void)nsf_in_place, (void)nsf_bottom;                                                      \
        MPI_Request creq = MPI_REQUEST_NULL;                                                       \
        *ierr = call;                                                                              \
        if (*ierr == MPI_SUCCESS) after;                                                           \
        (void)creq;                                                                                \
    }
#define NSF_FORMS_B(name, NAME, cfn, params, args, cargs)                                        \
    NSF_DEFINE(name, NAME, NSF_PARAMS_B params, NSF_ARGS_B args, cfn cargs, (void)0, 1)
#define NSF_FORMS_BI(name, NAME, cfn, params, args, cargs)                                       \
    NSF_FORMS_B(name, NAME, cfn, params, args, cargs)                                            \
    NSF_DEFINE(i##name, I##NAME, NSF_PARAMS_I params, NSF_ARGS_I args, MPI_I##name NSF_CARGS_I cargs, \
               *request = MPI_Request_c2f(creq), 1)
#define NSF_FORMS_BIP(name, NAME, cfn, params, args, cargs)                                      \
    NSF_FORMS_BI(name, NAME, cfn, params, args, cargs)                                           \
    NSF_IF_INIT_##NAME(NSF_DEFINE(name##_init, NAME##_INIT, NSF_PARAMS_P params, NSF_ARGS_P args,  \
                                  cfn##_init NSF_CARGS_P cargs, *request = MPI_Request_c2f(creq), 0))
#define NSF_ENTRIES(name, NAME, cfn, forms, params, args, cargs)                                 \
    NSF_FORMS_##forms(name, NAME, cfn, params, args, cargs)
NSF_CALLS(NSF_ENTRIES)
#undef NSF_ENTRIES

/* MPI_INIT, MPI_INIT_THREAD: the MPI's own routine (MPICH's prepares its Fortran side, then calls
 * MPI_Init, ours; Open MPI's calls PMPI_Init), then, where ours did not run (the settings are
 * still unread), what it does after PMPI_Init.  Without it Open MPI's Fortran programs had no
 * nsm_p2p: gatherv, scatterv, alltoallv, alltoallw and the non-blocking v-forms all went to the
 * library. */
static void nsf_after_init(const nsf_int *ierr)
{
    if (*ierr != MPI_SUCCESS || __atomic_load_n(&nsm_cfg.loaded, __ATOMIC_ACQUIRE)) return;
    nsm_load_config();
    nsm_after_init();
}

NSF_NAMES(init, INIT, (nsf_int *ierr))
void mpi_init_(nsf_int *ierr)
{
    NSF_MPI_ROUTINE(init, (nsf_int *), fn)
    fn(ierr);
    nsf_after_init(ierr);
}

NSF_NAMES(init_thread, INIT_THREAD, (nsf_int *required, nsf_int *provided, nsf_int *ierr))
void mpi_init_thread_(nsf_int *required, nsf_int *provided, nsf_int *ierr)
{
    NSF_MPI_ROUTINE(init_thread, (nsf_int *, nsf_int *, nsf_int *), fn)
    fn(required, provided, ierr);
    nsf_after_init(ierr);
}

/* MPI_FINALIZE: the communicators' shared windows are freed while MPI still runs (what our
 * MPI_Finalize does for C), then the MPI's own Fortran routine finishes. */
NSF_NAMES(finalize, FINALIZE, (nsf_int *ierr))
void mpi_finalize_(nsf_int *ierr)
{
    nsm_stats_report();
    nsm_finalize_states();
    nsm_nb_forget_kept();
    void (*fn)(nsf_int *) = (void (*)(nsf_int *))nsf_mpi_routine("pmpi_finalize_");
    fn(ierr);
}
#endif /* NODESHM_MPI_FORTRAN */
