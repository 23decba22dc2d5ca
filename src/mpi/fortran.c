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
 * Each entry point converts the Fortran handles (MPI_Comm_f2c, MPI_Type_f2c, MPI_Op_f2c; a
 * non-blocking op's request back with MPI_Request_c2f; alltoallw's datatype arrays into
 * temporaries) and the MPI_IN_PLACE / MPI_BOTTOM sentinels, calls our C function (which hands
 * the call to PMPI_* when it does not accelerate it) and stores the return code in ierror.  The
 * non-blocking ops complete only in our C MPI_Wait/MPI_Test family, which Open MPI's Fortran
 * MPI_WAIT & co bypass as well: that family has entry points here too (see "completion" below).
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
 * arguments plus the request; the C request goes back through MPI_Request_c2f).  The C
 * arguments may use NSF_BUF/NSF_COMM/NSF_TYPE/NSF_OP/NSF_INTS. */
#define NSF_CALLS(X)                                                                               \
    X(barrier, BARRIER, MPI_Barrier, BI, (nsf_int *comm), (comm), (NSF_COMM(comm)))                    \
    X(bcast, BCAST, MPI_Bcast, BI, (void *buf, nsf_int *n, nsf_int *t, nsf_int *root, nsf_int *comm),  \
      (buf, n, t, root, comm), (NSF_BUF(buf), *n, NSF_TYPE(t), *root, NSF_COMM(comm)))             \
    X(gather, GATHER, MPI_Gather, BI,                                                                  \
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
    X(scatter, SCATTER, MPI_Scatter, BI,                                                               \
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
    X(allgather, ALLGATHER, MPI_Allgather, BI,                                                         \
      (void *sb, nsf_int *sn, nsf_int *st, void *rb, nsf_int *rn, nsf_int *rt, nsf_int *comm),     \
      (sb, sn, st, rb, rn, rt, comm),                                                              \
      (NSF_BUF(sb), *sn, NSF_TYPE(st), NSF_BUF(rb), *rn, NSF_TYPE(rt), NSF_COMM(comm)))            \
    X(allgatherv, ALLGATHERV, MPI_Allgatherv, BI,                                                      \
      (void *sb, nsf_int *sn, nsf_int *st, void *rb, nsf_int *rns, nsf_int *displs, nsf_int *rt,   \
       nsf_int *comm),                                                                             \
      (sb, sn, st, rb, rns, displs, rt, comm),                                                     \
      (NSF_BUF(sb), *sn, NSF_TYPE(st), NSF_BUF(rb), NSF_INTS(rns), NSF_INTS(displs), NSF_TYPE(rt), \
       NSF_COMM(comm)))                                                                            \
    X(reduce, REDUCE, MPI_Reduce, BI,                                                                  \
      (void *sb, void *rb, nsf_int *n, nsf_int *t, nsf_int *op, nsf_int *root, nsf_int *comm),     \
      (sb, rb, n, t, op, root, comm),                                                              \
      (NSF_BUF(sb), NSF_BUF(rb), *n, NSF_TYPE(t), NSF_OP(op), *root, NSF_COMM(comm)))              \
    X(allreduce, ALLREDUCE, MPI_Allreduce, BI,                                                         \
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

/* Parameter and argument lists of the blocking (B) and non-blocking (I) entries, from a row's. */
#define NSF_PARAMS_B(...) (__VA_ARGS__, nsf_int *ierr)
#define NSF_ARGS_B(...) (__VA_ARGS__, ierr)
#define NSF_PARAMS_I(...) (__VA_ARGS__, nsf_int *request, nsf_int *ierr)
#define NSF_ARGS_I(...) (__VA_ARGS__, request, ierr)
#define NSF_CARGS_I(...) (__VA_ARGS__, &creq)

/* Defines mpi_<name>_ (and aliases): the C call `call` when the MPI's Fortran sentinels are
 * known, with `after` on success; else the MPI's own routine, counted as handed (reason
 * "fortran"). */
#define NSF_DEFINE(name, NAME, params, args, call, after)                                          \
    NSF_NAMES(name, NAME, params)                                                                  \
    void mpi_##name##_ params                                                                      \
    {                                                                                              \
        void *nsf_in_place, *nsf_bottom;                                                           \
        if (!nsf_sentinels(&nsf_in_place, &nsf_bottom)) {                                          \
            NSF_MPI_ROUTINE(name, params, fn)                                                      \
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
        MPI_Request creq = MPI_REQUEST_NULL;                                                       \
        *ierr = call;                                                                              \
        if (*ierr == MPI_SUCCESS) after;                                                           \
        (void)creq;                                                                                \
    }
#define NSF_FORMS_B(name, NAME, cfn, params, args, cargs)                                        \
    NSF_DEFINE(name, NAME, NSF_PARAMS_B params, NSF_ARGS_B args, cfn cargs, (void)0)
#define NSF_FORMS_BI(name, NAME, cfn, params, args, cargs)                                       \
    NSF_FORMS_B(name, NAME, cfn, params, args, cargs)                                            \
    NSF_DEFINE(i##name, I##NAME, NSF_PARAMS_I params, NSF_ARGS_I args, MPI_I##name NSF_CARGS_I cargs, \
               *request = MPI_Request_c2f(creq))
#define NSF_ENTRIES(name, NAME, cfn, forms, params, args, cargs)                                 \
    NSF_FORMS_##forms(name, NAME, cfn, params, args, cargs)
NSF_CALLS(NSF_ENTRIES)
#undef NSF_ENTRIES

/* ---- completion: Open MPI's Fortran MPI_Wait & co call PMPI_Wait & co, which never make
 * progress on our non-blocking ops (generalized requests completed in our C MPI_Wait/Test):
 * a Fortran wait for one of them would never return.  The tests make one progress pass, then
 * run the MPI's own routine (as our C MPI_Test does: the library completes our requests as any
 * others, and converts handles, statuses, flags and indices itself); the waits convert to C
 * and run our C MPI_Wait & co, the one wait loop (nonblocking_wait.c), unless nothing of ours is
 * outstanding or the MPI's Fortran sentinels are unknown (then the MPI's own routine). */

/* X(name, NAME, (Fortran parameters), (the same as arguments)) */
#define NSF_TESTS(X)                                                                               \
    X(test, TEST, (nsf_int *req, nsf_int *flag, nsf_int *st, nsf_int *ierr), (req, flag, st, ierr)) \
    X(testall, TESTALL, (nsf_int *n, nsf_int *reqs, nsf_int *flag, nsf_int *sts, nsf_int *ierr),   \
      (n, reqs, flag, sts, ierr))                                                                  \
    X(testany, TESTANY,                                                                            \
      (nsf_int *n, nsf_int *reqs, nsf_int *idx, nsf_int *flag, nsf_int *st, nsf_int *ierr),        \
      (n, reqs, idx, flag, st, ierr))                                                            \
    X(testsome, TESTSOME,                                                                          \
      (nsf_int *n, nsf_int *reqs, nsf_int *outcount, nsf_int *indices, nsf_int *sts, nsf_int *ierr), \
      (n, reqs, outcount, indices, sts, ierr))                                                     \
    X(request_get_status, REQUEST_GET_STATUS, (nsf_int *req, nsf_int *flag, nsf_int *st, nsf_int *ierr), \
      (req, flag, st, ierr))
#define NSF_TEST(name, NAME, params, args)                                                         \
    NSF_NAMES(name, NAME, params)                                                                  \
    void mpi_##name##_ params                                                                      \
    {                                                                                              \
        NSF_MPI_ROUTINE(name, params, fn)                                                          \
        nodeshm_nb_progress();                                                                     \
        fn args;                                                                                   \
    }
NSF_TESTS(NSF_TEST)
#undef NSF_TEST

/* Fortran status array length: MPI_STATUS_SIZE (MPI-4's MPI_F_STATUS_SIZE where mpi.h has it;
 * MPICH's and Open MPI's Fortran status is the C one's integers). */
#ifdef MPI_F_STATUS_SIZE
#define NSF_STATUS_SIZE MPI_F_STATUS_SIZE
#else
#define NSF_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

/* A wait's requests (and statuses) in C: on the stack up to NSF_STACK, else allocated. */
#define NSF_STACK 16
typedef struct nsf_reqs {
    int n, ignore;  /* ignore: the caller passed MPI_STATUSES_IGNORE (st is then C's) */
    MPI_Request *req;
    MPI_Status *st;
    MPI_Request req_stack[NSF_STACK];
    MPI_Status st_stack[NSF_STACK];
} nsf_reqs_t;

static void nsf_reqs_in(nsf_reqs_t *a, const nsf_int *n, const nsf_int *reqs, const nsf_int *sts, const char *call)
{
    a->n = *n > 0 ? *n : 0;
    a->ignore = sts == MPI_F_STATUSES_IGNORE;
    a->req = a->req_stack;
    a->st = a->st_stack;
    if (a->n > NSF_STACK) {
        a->req = malloc(sizeof *a->req * (size_t)a->n);
        if (!a->ignore) a->st = malloc(sizeof *a->st * (size_t)a->n);
        if (!a->req || !a->st) {
            fprintf(stderr, "nodeshm_mpi: %s: out of memory for %d requests\n", call, a->n);
            nodeshm_abort_job(1);
        }
    }
    if (a->ignore) a->st = MPI_STATUSES_IGNORE;
    for (int i = 0; i < a->n; i++) a->req[i] = MPI_Request_f2c(reqs[i]);
}

/* Back to Fortran after the C call returned rc: the requests, and the first nst statuses, as
 * the MPIs' own bindings do on success or MPI_ERR_IN_STATUS; then the temporaries freed. */
static void nsf_reqs_out(nsf_reqs_t *a, int rc, nsf_int *reqs, nsf_int *sts, int nst)
{
    if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {
        for (int i = 0; i < a->n; i++) reqs[i] = MPI_Request_c2f(a->req[i]);
        for (int k = 0; !a->ignore && k < nst; k++) MPI_Status_c2f(&a->st[k], sts + (size_t)k * NSF_STATUS_SIZE);
    }
    if (a->req != a->req_stack) free(a->req);
    if (!a->ignore && a->st != a->st_stack) free(a->st);
}

/* The wait entries: the MPI's own routine when nothing of ours is outstanding or its sentinels
 * are unknown (MPI_F_STATUS_IGNORE is set with them), else the body. */
#define NSF_WAIT(name, NAME, params, args)                                                         \
    NSF_NAMES(name, NAME, params)                                                                  \
    static void nsf_##name params;                                                                 \
    void mpi_##name##_ params                                                                      \
    {                                                                                              \
        void *in_place, *bottom;                                                                   \
        if (nodeshm_nb_any() && nsf_sentinels(&in_place, &bottom)) {                               \
            nsf_##name args;                                                                       \
            return;                                                                                \
        }                                                                                          \
        NSF_MPI_ROUTINE(name, params, fn)                                                          \
        fn args;                                                                                   \
    }                                                                                              \
    static void nsf_##name params

NSF_WAIT(wait, WAIT, (nsf_int *req, nsf_int *st, nsf_int *ierr), (req, st, ierr))
{
    MPI_Request c = MPI_Request_f2c(*req);
    MPI_Status cst;
    const int ignore = st == MPI_F_STATUS_IGNORE;
    *ierr = MPI_Wait(&c, ignore ? MPI_STATUS_IGNORE : &cst);
    if (*ierr != MPI_SUCCESS) return;
    *req = MPI_Request_c2f(c);
    if (!ignore) MPI_Status_c2f(&cst, st);
}

NSF_WAIT(waitall, WAITALL, (nsf_int *n, nsf_int *reqs, nsf_int *sts, nsf_int *ierr), (n, reqs, sts, ierr))
{
    nsf_reqs_t a;
    nsf_reqs_in(&a, n, reqs, sts, "MPI_WAITALL");
    *ierr = MPI_Waitall(a.n, a.req, a.st);
    nsf_reqs_out(&a, *ierr, reqs, sts, a.n);
}

/* index: 1-based in Fortran, MPI_UNDEFINED as it is */
NSF_WAIT(waitany, WAITANY, (nsf_int *n, nsf_int *reqs, nsf_int *idx, nsf_int *st, nsf_int *ierr),
         (n, reqs, idx, st, ierr))
{
    nsf_reqs_t a;
    nsf_reqs_in(&a, n, reqs, MPI_F_STATUSES_IGNORE, "MPI_WAITANY");
    MPI_Status cst;
    const int ignore = st == MPI_F_STATUS_IGNORE;
    int i = MPI_UNDEFINED;
    *ierr = MPI_Waitany(a.n, a.req, &i, ignore ? MPI_STATUS_IGNORE : &cst);
    nsf_reqs_out(&a, *ierr, reqs, NULL, 0);
    if (*ierr != MPI_SUCCESS) return;
    *idx = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;
    if (!ignore) MPI_Status_c2f(&cst, st);
}

/* indices (an int array: MPI_Fint is int) 1-based in Fortran; outcount MPI_UNDEFINED as it is;
 * the C statuses are packed in completion order, as Fortran's */
NSF_WAIT(waitsome, WAITSOME,
         (nsf_int *n, nsf_int *reqs, nsf_int *outcount, nsf_int *indices, nsf_int *sts, nsf_int *ierr),
         (n, reqs, outcount, indices, sts, ierr))
{
    nsf_reqs_t a;
    nsf_reqs_in(&a, n, reqs, sts, "MPI_WAITSOME");
    int out = 0;
    *ierr = MPI_Waitsome(a.n, a.req, &out, indices, a.st);
    const int done = out == MPI_UNDEFINED ? 0 : out;
    nsf_reqs_out(&a, *ierr, reqs, sts, done);
    if (*ierr != MPI_SUCCESS && *ierr != MPI_ERR_IN_STATUS) return;
    *outcount = out;
    for (int k = 0; k < done; k++) indices[k]++;
}
#undef NSF_WAIT

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
    void (*fn)(nsf_int *) = (void (*)(nsf_int *))nsf_mpi_routine("pmpi_finalize_");
    fn(ierr);
}
#endif /* NODESHM_MPI_FORTRAN */
