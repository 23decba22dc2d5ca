/* libnodeshm_mpi: Fortran entry points of the request calls: the MPI_WAIT/MPI_TEST family,
 * MPI_START, MPI_STARTALL and MPI_REQUEST_FREE (fortran.c has the collectives' and says why there
 * are entry points at all).
 *
 * Open MPI 4.1.4's Fortran routines call PMPI_Wait, PMPI_Start, PMPI_Request_free & co (nm -D
 * libmpi_mpifh: no MPI_* symbol), past our C ones, which alone know our requests:
 *   - a non-blocking op of ours is a generalized request that only our C MPI_Wait/MPI_Test family
 *     drives: the library's own wait for it would never return;
 *   - a persistent collective of ours (persistent.c) is the library's request kept inactive while
 *     our op runs at each start: the library's MPI_START would run its own op instead, its Test
 *     family would say complete at once (an inactive request), and after its MPI_REQUEST_FREE our
 *     entry would outlive the handle (a later request given the same handle taken for ours).
 * So each entry here converts the handles, statuses, flags and 1-based indices and calls our C
 * routine (one wait loop: nonblocking_wait.c, persistent_wait.c) when something of ours needs it:
 *   waits (W)                         an op of ours is outstanding or a persistent request of
 *                                     ours exists
 *   tests (T), start, startall, free  a persistent request of ours exists
 * and else (or while the MPI's Fortran sentinels are unknown: MPI_F_STATUS_IGNORE is set with
 * them) runs the MPI's own routine, which converts everything itself; a test first makes one
 * progress pass, for the non-blocking ops (the library completes generalized requests as any).
 * MPICH 4.0.2's Fortran routines call the C MPI_* symbols, ours: there these entries are
 * equivalent to its own.  Only with NODESHM_MPI_FORTRAN (see fortran.c). */
#ifdef NODESHM_MPI_FORTRAN
#include "mpi/fortran.h"
#include "mpi/persistent.h"

#include <stdio.h>
#include <stdlib.h>

/* Fortran status array length: MPI_STATUS_SIZE (MPI-4's MPI_F_STATUS_SIZE where mpi.h has it;
 * MPICH's and Open MPI's Fortran status is the C one's integers). */
#ifdef MPI_F_STATUS_SIZE
#define NSF_STATUS_SIZE MPI_F_STATUS_SIZE
#else
#define NSF_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

/* A LOGICAL result: .TRUE. is 1 for gfortran and flang (Intel's compilers test the low bit, which
 * 1 sets), .FALSE. 0. */
#define NSF_LOGICAL(b) ((b) ? 1 : 0)

/* A call's requests (and statuses) in C: on the stack up to NSF_STACK, else allocated. */
#define NSF_STACK 16
typedef struct nsf_reqs {
    int n, ignore; /* ignore: the caller passed MPI_STATUSES_IGNORE (st is then C's) */
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

/* ---------------------------------------------------------------- the C calls, converted */

enum { NSF_WAIT_ONE, NSF_TEST_ONE, NSF_GET_STATUS };

/* MPI_Wait (flag NULL), MPI_Test, MPI_Request_get_status (the request stays as it is) */
static void nsf_one(int call, nsf_int *req, nsf_int *flag, nsf_int *st, nsf_int *ierr)
{
    MPI_Request c = MPI_Request_f2c(*req);
    MPI_Status cst;
    MPI_Status *s = st == MPI_F_STATUS_IGNORE ? MPI_STATUS_IGNORE : &cst;
    int done = 1;
    *ierr = call == NSF_WAIT_ONE ? MPI_Wait(&c, s)
            : call == NSF_TEST_ONE ? MPI_Test(&c, &done, s)
                                   : MPI_Request_get_status(c, &done, s);
    if (*ierr != MPI_SUCCESS) return;
    if (flag) *flag = NSF_LOGICAL(done);
    if (call != NSF_GET_STATUS) *req = MPI_Request_c2f(c);
    if (done && s != MPI_STATUS_IGNORE) MPI_Status_c2f(&cst, st);
}

/* MPI_Waitall (flag NULL), MPI_Testall: statuses only when all are complete */
static void nsf_all(const nsf_int *n, nsf_int *reqs, nsf_int *flag, nsf_int *sts, nsf_int *ierr)
{
    nsf_reqs_t a;
    nsf_reqs_in(&a, n, reqs, sts, flag ? "MPI_TESTALL" : "MPI_WAITALL");
    int done = 1;
    *ierr = flag ? MPI_Testall(a.n, a.req, &done, a.st) : MPI_Waitall(a.n, a.req, a.st);
    nsf_reqs_out(&a, *ierr, reqs, sts, done ? a.n : 0);
    if (flag && (*ierr == MPI_SUCCESS || *ierr == MPI_ERR_IN_STATUS)) *flag = NSF_LOGICAL(done);
}

/* MPI_Waitany (flag NULL), MPI_Testany: index 1-based in Fortran, MPI_UNDEFINED as it is */
static void nsf_any(const nsf_int *n, nsf_int *reqs, nsf_int *idx, nsf_int *flag, nsf_int *st, nsf_int *ierr)
{
    nsf_reqs_t a;
    nsf_reqs_in(&a, n, reqs, MPI_F_STATUSES_IGNORE, flag ? "MPI_TESTANY" : "MPI_WAITANY");
    MPI_Status cst;
    MPI_Status *s = st == MPI_F_STATUS_IGNORE ? MPI_STATUS_IGNORE : &cst;
    int i = MPI_UNDEFINED, done = 1;
    *ierr = flag ? MPI_Testany(a.n, a.req, &i, &done, s) : MPI_Waitany(a.n, a.req, &i, s);
    nsf_reqs_out(&a, *ierr, reqs, NULL, 0);
    if (*ierr != MPI_SUCCESS) return;
    if (flag) *flag = NSF_LOGICAL(done);
    *idx = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;
    if (done && s != MPI_STATUS_IGNORE) MPI_Status_c2f(&cst, st);
}

/* MPI_Waitsome, MPI_Testsome: indices (an int array: MPI_Fint is int) 1-based in Fortran;
 * outcount MPI_UNDEFINED as it is; the C statuses are packed in completion order, as Fortran's */
static void nsf_some(int test, const nsf_int *n, nsf_int *reqs, nsf_int *outcount, nsf_int *indices, nsf_int *sts,
                     nsf_int *ierr)
{
    nsf_reqs_t a;
    nsf_reqs_in(&a, n, reqs, sts, test ? "MPI_TESTSOME" : "MPI_WAITSOME");
    int out = 0;
    *ierr = test ? MPI_Testsome(a.n, a.req, &out, indices, a.st) : MPI_Waitsome(a.n, a.req, &out, indices, a.st);
    const int done = out == MPI_UNDEFINED ? 0 : out;
    nsf_reqs_out(&a, *ierr, reqs, sts, done);
    if (*ierr != MPI_SUCCESS && *ierr != MPI_ERR_IN_STATUS) return;
    *outcount = out;
    for (int k = 0; k < done; k++) indices[k]++;
}

/* MPI_Start, MPI_Request_free: one request, in and out */
static void nsf_request(int (*call)(MPI_Request *), nsf_int *req, nsf_int *ierr)
{
    MPI_Request c = MPI_Request_f2c(*req);
    *ierr = call(&c);
    if (*ierr == MPI_SUCCESS) *req = MPI_Request_c2f(c);
}

static void nsf_startall(const nsf_int *n, nsf_int *reqs, nsf_int *ierr)
{
    nsf_reqs_t a;
    nsf_reqs_in(&a, n, reqs, MPI_F_STATUSES_IGNORE, "MPI_STARTALL");
    *ierr = MPI_Startall(a.n, a.req);
    nsf_reqs_out(&a, *ierr, reqs, NULL, 0);
}

/* ---------------------------------------------------------------- the entries */

/* X(name, NAME, when (W, T, P: above), (Fortran parameters), (the same as arguments), the C call
 * converted) */
#define NSF_REQUEST_CALLS(X)                                                                       \
    X(wait, WAIT, W, (nsf_int *req, nsf_int *st, nsf_int *ierr), (req, st, ierr),                  \
      nsf_one(NSF_WAIT_ONE, req, NULL, st, ierr))                                                  \
    X(test, TEST, T, (nsf_int *req, nsf_int *flag, nsf_int *st, nsf_int *ierr), (req, flag, st, ierr), \
      nsf_one(NSF_TEST_ONE, req, flag, st, ierr))                                                  \
    X(request_get_status, REQUEST_GET_STATUS, T, (nsf_int *req, nsf_int *flag, nsf_int *st, nsf_int *ierr), \
      (req, flag, st, ierr), nsf_one(NSF_GET_STATUS, req, flag, st, ierr))                         \
    X(waitall, WAITALL, W, (nsf_int *n, nsf_int *reqs, nsf_int *sts, nsf_int *ierr), (n, reqs, sts, ierr), \
      nsf_all(n, reqs, NULL, sts, ierr))                                                           \
    X(testall, TESTALL, T, (nsf_int *n, nsf_int *reqs, nsf_int *flag, nsf_int *sts, nsf_int *ierr), \
      (n, reqs, flag, sts, ierr), nsf_all(n, reqs, flag, sts, ierr))                               \
    X(waitany, WAITANY, W, (nsf_int *n, nsf_int *reqs, nsf_int *idx, nsf_int *st, nsf_int *ierr), \
      (n, reqs, idx, st, ierr), nsf_any(n, reqs, idx, NULL, st, ierr))                             \
    X(testany, TESTANY, T,                                                                         \
      (nsf_int *n, nsf_int *reqs, nsf_int *idx, nsf_int *flag, nsf_int *st, nsf_int *ierr),        \
      (n, reqs, idx, flag, st, ierr), nsf_any(n, reqs, idx, flag, st, ierr))                       \
    X(waitsome, WAITSOME, W,                                                                       \
      (nsf_int *n, nsf_int *reqs, nsf_int *outcount, nsf_int *indices, nsf_int *sts, nsf_int *ierr), \
      (n, reqs, outcount, indices, sts, ierr), nsf_some(0, n, reqs, outcount, indices, sts, ierr)) \
    X(testsome, TESTSOME, T,                                                                       \
      (nsf_int *n, nsf_int *reqs, nsf_int *outcount, nsf_int *indices, nsf_int *sts, nsf_int *ierr), \
      (n, reqs, outcount, indices, sts, ierr), nsf_some(1, n, reqs, outcount, indices, sts, ierr)) \
    X(start, START, P, (nsf_int *req, nsf_int *ierr), (req, ierr), nsf_request(MPI_Start, req, ierr)) \
    X(startall, STARTALL, P, (nsf_int *n, nsf_int *reqs, nsf_int *ierr), (n, reqs, ierr),          \
      nsf_startall(n, reqs, ierr))                                                                 \
    X(request_free, REQUEST_FREE, P, (nsf_int *req, nsf_int *ierr), (req, ierr),                   \
      nsf_request(MPI_Request_free, req, ierr))

/* when a call needs ours (one or two relaxed loads), and what the MPI's own routine follows */
#define NSF_OURS_W (nodeshm_nb_any() || nsm_persist_exist())
#define NSF_OURS_T nsm_persist_exist()
#define NSF_OURS_P nsm_persist_exist()
#define NSF_BEFORE_W
#define NSF_BEFORE_T nodeshm_nb_progress();
#define NSF_BEFORE_P

#define NSF_REQUEST_ENTRY(name, NAME, when, params, args, converted)                               \
    NSF_NAMES(name, NAME, params)                                                                  \
    void mpi_##name##_ params                                                                      \
    {                                                                                              \
        void *in_place, *bottom;                                                                   \
        if (NSF_OURS_##when && nsf_sentinels(&in_place, &bottom)) {                                \
            converted;                                                                             \
            return;                                                                                \
        }                                                                                          \
        NSF_MPI_ROUTINE(name, params, fn)                                                          \
        NSF_BEFORE_##when                                                                          \
        fn args;                                                                                   \
    }
NSF_REQUEST_CALLS(NSF_REQUEST_ENTRY)
#undef NSF_REQUEST_ENTRY
#endif /* NODESHM_MPI_FORTRAN */
