/* libnodeshm_mpi: MPI_Cancel and MPI-4.1's MPI_Request_get_status_any/some/all on requests of
 * ours (issue 15).
 *
 * MPI_Cancel: MPI makes cancelling a non-blocking or persistent collective request erroneous
 * (MPI-4.1, 6.12 and 6.13).  On an Iallreduce of ours (outstanding, and complete but not yet
 * waited for) and on an Allreduce_init of ours (inactive, and started), with an error handler of
 * the test's own on the communicator: the call must return MPI_ERR_REQUEST, through that handler
 * exactly once, and leave the request as it was (it completes with the right values, not
 * cancelled; the persistent one starts again).  With --fatal (the default handler, fatal) rank 0
 * cancels an Iallreduce of ours: the job must end with the interposer's message (the test's
 * PASS_REGEX), never hang or go on.
 * MPI_Request_free: erroneous on a non-blocking collective's request too (MPI-4.1 6.12, whatever
 * its state; on an inactive persistent one it is how it is freed): on the same Iallreduce of
 * ours, outstanding and complete, refused as MPI_Cancel is (the library alone would free the
 * handle and return MPI_SUCCESS); --fatal-free as --fatal with MPI_Request_free, on every rank.
 * On an active persistent request of ours (an Allreduce_init started, outstanding and complete
 * but not yet waited for) it is erroneous too (MPI-4.1 3.7.3): refused the same way, the request
 * left active, completed by MPI_Wait with the right sum, started again; once inactive, freed.
 * --fatal-free-persistent: as --fatal-free on a started Allreduce_init of ours.
 *
 * MPI_Request_get_status_any/some/all (where the MPI has them: MPICH >= 4.2, not Open MPI 5.0):
 * arrays of an Iallreduce of ours, a started Allreduce_init of ours, a never-started one of
 * ours (a null request to MPI; both only where they are ours), MPI_REQUEST_NULL
 * and a point-to-point receive, rank 0 starting
 * late so that ours are still running when the others ask: all says complete only once every
 * active one is, any and some never say "no active request" while one of ours is active, an
 * index is given complete only when its values are there, and nothing is freed or made inactive
 * (each is then completed by MPI_Wait).  The library alone cannot know ours: it would not drive
 * the Iallreduce (a hang) and would take the started Allreduce_init for inactive.
 * Counters: each call of ours counted (iallreduce, allreduce_init), exactly.
 *
 *   mpi_nb_status [--expect-accel] [--fatal | --fatal-free | --fatal-free-persistent] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nsm_bigcount_config.h" /* NSM_HAVE_MPI_ALLREDUCE_INIT, NSM_HAVE_MPI_REQUEST_GET_STATUS_ANY */

#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"
#include "mpi_nb_complete.h"

#define N 37 /* longs per reduction */
static int handler_calls, handler_code;
static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

static int wsize;
static long want_nb, want_persist; /* calls that must have been counted */

/* in[] for round r on my rank; out[] checked against the sum over ranks */
static void fill(long *in, long *out, int r)
{
    for (int i = 0; i < N; i++) in[i] = (long)(val(r, 1, wrank, i) % 100000), out[i] = -1;
}
static int sum_ok(const long *out, int r)
{
    for (int i = 0; i < N; i++) {
        long s = 0;
        for (int q = 0; q < wsize; q++) s += (long)(val(r, 1, q, i) % 100000);
        if (out[i] != s) return 0;
    }
    return 1;
}

/* MPI_Cancel (call "MPI_Cancel") or MPI_Request_free on *req must be refused with MPI_ERR_REQUEST
 * through comm's handler, once, the handle left as it was */
static void refused_by(const char *call, MPI_Request *req, const char *what)
{
    int before = handler_calls, cls = MPI_SUCCESS;
    MPI_Request keep = *req;
    int rc = strcmp(call, "MPI_Cancel") ? MPI_Request_free(req) : MPI_Cancel(req);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_REQUEST, "%s on %s: error class %d, expected MPI_ERR_REQUEST", call, what, cls);
    CHECK(handler_calls == before + 1, "%s on %s: the error handler ran %d times", call, what, handler_calls - before);
    if (handler_calls > before) MPI_Error_class(handler_code, &cls);
    CHECK(cls == MPI_ERR_REQUEST, "%s on %s: the handler got class %d", call, what, cls);
    CHECK(*req == keep, "%s on %s changed the handle", call, what);
}
static void refused(MPI_Request *req, const char *what) { refused_by("MPI_Cancel", req, what); }

static void cancels(MPI_Comm comm, int ours, int pers)
{
    long in[N], out[N];
    MPI_Request q;
    MPI_Status st;
    int flag = 0;
    /* outstanding: rank 0 comes late, so the others' is still running */
    fill(in, out, 1);
    if (wrank == 0) spin_us(2000);
    MPI_Iallreduce(in, out, N, MPI_LONG, MPI_SUM, comm, &q);
    want_nb += ours;
    if (ours) refused(&q, "an outstanding MPI_Iallreduce");
    if (ours) refused_by("MPI_Request_free", &q, "an outstanding MPI_Iallreduce");
    MPI_Wait(&q, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(sum_ok(out, 1) && !flag, "MPI_Iallreduce after a refused MPI_Cancel: wrong sum or cancelled (%d)", flag);
    /* complete, not yet waited for */
    fill(in, out, 2);
    MPI_Iallreduce(in, out, N, MPI_LONG, MPI_SUM, comm, &q);
    want_nb += ours;
    for (flag = 0; !flag;) MPI_Request_get_status(q, &flag, MPI_STATUS_IGNORE);
    if (ours) refused(&q, "a complete MPI_Iallreduce");
    if (ours) refused_by("MPI_Request_free", &q, "a complete MPI_Iallreduce, not yet waited for");
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    CHECK(q == MPI_REQUEST_NULL && sum_ok(out, 2), "MPI_Iallreduce complete, refused cancel: wrong sum");
#ifdef NSM_HAVE_MPI_ALLREDUCE_INIT
    MPI_Allreduce_init(in, out, N, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &q);
    if (pers) refused(&q, "an inactive MPI_Allreduce_init request");
    /* active: MPI_Request_free refused too (MPI-4.1 3.7.3), outstanding (rank 0 starts late) and
     * complete but not yet waited for; the request stays active, completes with the right sum
     * and starts again */
    for (int r = 3; r < 6; r++) {
        fill(in, out, r);
        if (wrank == 0 && r == 4) spin_us(2000);
        MPI_Start(&q);
        want_persist += pers;
        if (pers) refused(&q, "a started MPI_Allreduce_init request");
        if (pers && r == 4) refused_by("MPI_Request_free", &q, "an outstanding MPI_Allreduce_init request");
        for (flag = 0; r == 5 && !flag;) MPI_Request_get_status(q, &flag, MPI_STATUS_IGNORE);
        if (pers && r == 5) refused_by("MPI_Request_free", &q, "a complete MPI_Allreduce_init request, not yet waited for");
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        CHECK(sum_ok(out, r), "MPI_Allreduce_init start %d after a refused MPI_Cancel or MPI_Request_free: wrong sum",
              r - 2);
    }
    MPI_Request_free(&q); /* inactive: freed */
    CHECK(q == MPI_REQUEST_NULL, "MPI_Request_free of an inactive MPI_Allreduce_init request left the handle set");
#else
    (void)pers;
#endif
}

#ifdef NSM_HAVE_MPI_REQUEST_GET_STATUS_ANY
/* One round: req[0] Iallreduce (nb), [1] a started Allreduce_init (p), [2] a never-started one,
 * [3] null, [4] an Irecv from the left neighbour; rank 0 late. */
enum { R_NB, R_P, R_IDLE, R_NULL, R_RECV, R_N };
static void status_round(MPI_Comm comm, int ours, int pers, int how, int r)
{
    long in[2][N], out[2][N], msg = -1, sent = (long)val(r, 9, wrank, 0);
    MPI_Request req[R_N], idle, ps;
    const char *name[] = {"get_status_all", "get_status_any", "get_status_some"};
    /* persistent ones only where they are ours: MPICH 5.0.2's Request_get_status_all says
     * MPI_ERR_IN_STATUS (fatal) on a persistent collective it runs itself, as its Testall does */
    req[R_P] = idle = MPI_REQUEST_NULL;
    if (pers) MPI_Allreduce_init(in[1], out[1], N, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &req[R_P]);
    if (pers) MPI_Allreduce_init(in[1], out[1], N, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &idle);
    req[R_IDLE] = idle;
    req[R_NULL] = MPI_REQUEST_NULL;
    MPI_Irecv(&msg, 1, MPI_LONG, (wrank + wsize - 1) % wsize, r, MPI_COMM_WORLD, &req[R_RECV]);
    if (wrank == 0) spin_us(3000);
    fill(in[0], out[0], 10 * r);
    fill(in[1], out[1], 10 * r + 1);
    MPI_Iallreduce(in[0], out[0], N, MPI_LONG, MPI_SUM, comm, &req[R_NB]);
    if (pers) MPI_Start(&req[R_P]);
    want_nb += ours;
    want_persist += pers;
    MPI_Isend(&sent, 1, MPI_LONG, (wrank + 1) % wsize, r, MPI_COMM_WORLD, &ps);
    int done[R_N] = {0, !pers, 1, 1, 0}, left = 2 + pers, flag = 0, out_n = 0, idx[R_N];
    MPI_Status st[R_N];
    /* whether request i's values are there (what "complete" must mean) */
#define READY(i) ((i) == R_NB ? sum_ok(out[0], 10 * r) : (i) == R_P ? sum_ok(out[1], 10 * r + 1) \
                  : (i) == R_RECV ? msg == (long)val(r, 9, (wrank + wsize - 1) % wsize, 0) : 1)
    while (left > 0) {
        if (how == 0) {
            MPI_Request_get_status_all(R_N, req, &flag, st);
            if (!flag) continue;
            for (int i = 0; i < R_N; i++)
                CHECK(done[i] || READY(i), "round %d, %s: request %d complete without its values", r, name[how], i);
            CHECK(req[R_NB] != MPI_REQUEST_NULL && (!pers || req[R_P] != MPI_REQUEST_NULL) && req[R_RECV] != MPI_REQUEST_NULL,
                  "round %d, %s freed a request", r, name[how]);
            MPI_Waitall(R_N, req, MPI_STATUSES_IGNORE);
            left = 0;
        } else {
            int n = 0;
            if (how == 1) {
                MPI_Request_get_status_any(R_N, req, &idx[0], &flag, &st[0]);
                n = flag ? 1 : 0;
                CHECK(!flag || idx[0] != MPI_UNDEFINED, "round %d, %s: no active request with %d left", r,
                      name[how], left);
                if (flag && idx[0] == MPI_UNDEFINED) break;
            } else {
                MPI_Request_get_status_some(R_N, req, &out_n, idx, st);
                CHECK(out_n != MPI_UNDEFINED, "round %d, %s: no active request with %d left", r, name[how], left);
                if (out_n == MPI_UNDEFINED) break;
                n = out_n;
            }
            for (int j = 0; j < n; j++) {
                int i = idx[j];
                CHECK(i >= 0 && i < R_N && !done[i] && READY(i), "round %d, %s: request %d complete: %s", r,
                      name[how], i, i < 0 || i >= R_N ? "no such index" : done[i] ? "twice" : "without its values");
                if (i < 0 || i >= R_N || done[i]) continue;
                CHECK(req[i] != MPI_REQUEST_NULL, "round %d, %s freed request %d", r, name[how], i);
                MPI_Wait(&req[i], MPI_STATUS_IGNORE); /* now returned, inactive or freed */
                done[i] = 1, left--;
            }
        }
    }
#undef READY
    /* nothing active: all says complete, any MPI_UNDEFINED, some MPI_UNDEFINED */
    MPI_Request_get_status_all(R_N, req, &flag, MPI_STATUSES_IGNORE);
    CHECK(flag, "round %d: get_status_all on inactive and null requests: not complete", r);
    MPI_Request_get_status_any(R_N, req, &idx[0], &flag, MPI_STATUS_IGNORE);
    CHECK(flag && idx[0] == MPI_UNDEFINED, "round %d: get_status_any with none active: flag %d index %d", r, flag,
          idx[0]);
    MPI_Request_get_status_some(R_N, req, &out_n, idx, MPI_STATUSES_IGNORE);
    CHECK(out_n == MPI_UNDEFINED, "round %d: get_status_some with none active: outcount %d", r, out_n);
    MPI_Wait(&ps, MPI_STATUS_IGNORE);
    if (pers) MPI_Request_free(&req[R_P]);
    if (pers) MPI_Request_free(&idle);
}
#endif

int main(int argc, char **argv)
{
    int expect_accel_ = 0, fatal = 0, fatal_free = 0, fatal_persist = 0;
    MPI_Init(&argc, &argv);
    mpi_check_seed();
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--expect-accel")) expect_accel_ = 1;
        else if (!strcmp(argv[i], "--fatal")) fatal = 1;
        else if (!strcmp(argv[i], "--fatal-free")) fatal = fatal_free = 1;
        else if (!strcmp(argv[i], "--fatal-free-persistent")) fatal = fatal_free = fatal_persist = 1;
        else if (!strncmp(argv[i], "nodeshm-tag-", 12)) continue; /* expect_failure.sh's */
        else {
            if (wrank == 0)
                fprintf(stderr, "usage: mpi_nb_status [--expect-accel] [--fatal | --fatal-free | "
                                "--fatal-free-persistent]\n");
            MPI_Finalize();
            return 2;
        }
    }
    acc_fn = (long (*)(const char *))dlsym(RTLD_DEFAULT, "nodeshm_mpi_accelerated_op");
    long nb0 = acc("iallreduce"), p0 = acc("allreduce_init");
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Barrier(comm); /* its state: the non-blocking calls run in the interposer */
    int ours = expect_accel_ && nb_active(comm);
    if (fatal) {
        long in[N], out[N];
        MPI_Request q;
        fill(in, out, 1);
#ifdef NSM_HAVE_MPI_ALLREDUCE_INIT
        if (fatal_persist) { /* an active persistent one of ours instead */
            MPI_Allreduce_init(in, out, N, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &q);
            MPI_Start(&q);
        } else
#else
        if (fatal_persist) { /* nothing to test: said so (the test's SKIP_REGULAR_EXPRESSION) */
            if (wrank == 0) printf("mpi_nb_status: SKIP (this MPI has no MPI_Allreduce_init)\n");
            MPI_Finalize();
            return 77;
        }
#endif
            MPI_Iallreduce(in, out, N, MPI_LONG, MPI_SUM, comm, &q);
        /* the default handler: fatal.  MPI_Request_free on every rank: none is left waiting for
         * the launcher to end it (Open MPI 5.0's prterun crashed after rank 0's abort in 2 of 17
         * runs, and a rank waiting in MPI_Wait then hung) */
        if (wrank == 0 || fatal_free) {
            if (fatal_free) MPI_Request_free(&q);
            else MPI_Cancel(&q);
            fprintf(stderr, "mpi_nb_status: FAIL: %s returned on rank %d (ours %d)\n",
                    fatal_free ? "MPI_Request_free" : "MPI_Cancel", wrank, ours);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Finalize();
        return 1;
    }
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(count_errors, &eh);
    MPI_Comm_set_errhandler(comm, eh);
    /* an Allreduce_init is ours where an Iallreduce is (between nodes too: persistent.c) */
    int pers = ours;
    cancels(comm, ours, pers);
#ifdef NSM_HAVE_MPI_REQUEST_GET_STATUS_ANY
    for (int r = 1; r <= 9; r++) status_round(comm, ours, pers, r % 3, r);
#endif
    if (expect_accel_) {
        CHECK(acc("iallreduce") - nb0 == want_nb, "iallreduce: %ld accelerated, expected %ld", acc("iallreduce") - nb0,
              want_nb);
        CHECK(acc("allreduce_init") - p0 == want_persist, "allreduce_init: %ld accelerated, expected %ld",
              acc("allreduce_init") - p0, want_persist);
        CHECK(wsize < 2 || want_nb > 0, "no call expected accelerated: the test cannot fail");
    }
    MPI_Comm_free(&comm);
    MPI_Errhandler_free(&eh);
    long f = failures, all;
    PMPI_Allreduce(&f, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0) {
        if (all) printf("mpi_nb_status: FAIL (%ld failures)\n", all);
        else
            printf("mpi_nb_status: PASS (%ld checks on rank 0; iallreduce %ld, allreduce_init %ld accelerated)\n",
                   checks, want_nb, want_persist);
    }
    MPI_Finalize();
    return all ? 1 : 0;
}
