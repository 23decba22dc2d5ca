/* libnodeshm_mpi: inactive persistent requests in the completion calls (issue 15).  MPI: an
 * inactive persistent request (never started, or completed and not started again) is a null
 * request to MPI_Wait, Test, Waitany, Testany, Waitsome, Testsome, Waitall, Testall and
 * Request_get_status: Wait/Test return at once with an empty status, Waitany/Testany give
 * MPI_UNDEFINED (Testany: flag true) and Waitsome/Testsome outcount MPI_UNDEFINED when no request
 * is active.  The interposer's persistent collectives are the library's requests that it never
 * started (persistent.h), so only the interposer can say so.
 *
 * Every round, with each of the nine calls, on arrays in a per-rank shuffled order:
 *   (a) only never-started persistent requests (a Bcast_init and a Barrier_init never started);
 *   (b) only completed ones (an Allreduce_init and a Gather_init, run on fresh data, checked);
 *   (c) those four, MPI_REQUEST_NULL and one point-to-point MPI_Irecv whose message comes after a
 *       random delay (its sender waits first): the call must wait for (or test) it, give its
 *       index, its data and status, and MPI_UNDEFINED only once it is returned;
 *   (d) the four, one of them (the Allreduce_init) started on fresh data after a random delay per
 *       rank, MPI_REQUEST_NULL: the active one's index, its values, then MPI_UNDEFINED.
 * Statuses are filled with garbage first: an inactive request's must come back empty.  A
 * watchdog (SIGALRM) names the call that hangs; a probe, that the MPI library was asked about a
 * request of ours (linked test).  With --expect-accel the allreduce_init and
 * gather_init counters must move by exactly the starts.
 *   mpi_persist_inactive [--expect-accel] [--rounds N]
 * Exit 77 (skipped) where the MPI has no persistent collectives. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nsm_bigcount_config.h" /* NSM_HAVE_MPI_<OP>_INIT */

#include <dlfcn.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_check.h"

#if !defined(NSM_HAVE_MPI_BARRIER_INIT) || !defined(NSM_HAVE_MPI_BCAST_INIT) || \
    !defined(NSM_HAVE_MPI_ALLREDUCE_INIT) || !defined(NSM_HAVE_MPI_GATHER_INIT)
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (wrank == 0) printf("mpi_persist_inactive: SKIP (this MPI has no MPI-4 persistent collectives)\n");
    MPI_Finalize();
    return 77;
}
#else
#include "mpi_nb_complete.h" /* spin_us, val, acc, nb_args */

enum { CALL_WAIT, CALL_TEST, CALL_WAITANY, CALL_TESTANY, CALL_WAITSOME, CALL_TESTSOME, CALL_WAITALL, CALL_TESTALL,
       CALL_GET_STATUS, CALLS };
static const char *const call_name[CALLS] = {"MPI_Wait", "MPI_Test", "MPI_Waitany", "MPI_Testany", "MPI_Waitsome",
                                             "MPI_Testsome", "MPI_Waitall", "MPI_Testall", "MPI_Request_get_status"};
static const char *const case_name[4] = {"(a) never started", "(b) completed", "(c) inactive + a late Irecv",
                                         "(d) one active of ours"};

/* the watchdog: which call hangs */
static char where[160];
static void on_alarm(int sig)
{
    (void)sig;
    static const char m[] = "mpi_persist_inactive: hangs in ";
    ssize_t w_ = write(2, m, sizeof m - 1);
    w_ = write(2, where, strlen(where));
    w_ = write(2, "\n", 1);
    (void)w_;
    _exit(3);
}

#define MAXN 8
#define GARBAGE_SRC 12345
static void garbage(MPI_Status *st, int n)
{
    for (int i = 0; i < n; i++) {
        MPI_Status_set_elements(&st[i], MPI_BYTE, 7);
        st[i].MPI_SOURCE = GARBAGE_SRC, st[i].MPI_TAG = 54321;
    }
}
/* an empty status: any source, any tag, nothing received */
static int is_empty(MPI_Status *st)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && count == 0;
}

/* The probe: whatever the library would answer, it must never be asked about a request of ours
 * that nodeshm runs (the rule's point: it never started them).  The linked test defines the PMPI
 * completion calls the interposer calls (exported: libnodeshm_mpi refers to them), looks for ours
 * in their arguments, and forwards to the library's own (RTLD_NEXT).  On main the checks above
 * pass under MPICH 5 and Open MPI 5 (both answer for a never-started persistent collective as
 * for an inactive one), while MPICH 4.0.2's Waitsome never returned: this fails there. */
static MPI_Request ours[4];
static int probing; /* --expect-accel on one node: every request of ours is nodeshm's */
static long probed;  /* calls seen (0: the probe is not in the way: preloaded, not linked) */
static void probe(const char *call, int n, const MPI_Request *r)
{
    int at = -1, k = 0;
    probed++;
    for (int i = 0; probing && r && at < 0 && i < n; i++)
        for (k = 0; k < 4 && at < 0; k++)
            if (r[i] == ours[k]) at = i;
    if (probing)
        CHECK(at < 0, "%s: the MPI library's %s was given request %d of ours (%s)", where, call, at,
              k <= 2 ? "never started" : "run by nodeshm");
}
#define PROBE_FN(name, params, n, reqs, args)                                                      \
    int name params                                                                                \
    {                                                                                              \
        static int(*real) params;                                                                  \
        if (!real) {                                                                               \
            void *sym_ = dlsym(RTLD_NEXT, #name);                                                  \
            memcpy(&real, &sym_, sizeof sym_);                                                     \
        }                                                                                          \
        probe(#name, n, reqs);                                                                     \
        return real args;                                                                          \
    }
PROBE_FN(PMPI_Wait, (MPI_Request * r, MPI_Status *s), 1, r, (r, s))
PROBE_FN(PMPI_Test, (MPI_Request * r, int *f, MPI_Status *s), 1, r, (r, f, s))
PROBE_FN(PMPI_Request_get_status, (MPI_Request r, int *f, MPI_Status *s), 1, &r, (r, f, s))
PROBE_FN(PMPI_Waitall, (int c, MPI_Request r[], MPI_Status s[]), c, r, (c, r, s))
PROBE_FN(PMPI_Testall, (int c, MPI_Request r[], int *f, MPI_Status s[]), c, r, (c, r, f, s))
PROBE_FN(PMPI_Waitany, (int c, MPI_Request r[], int *i, MPI_Status *s), c, r, (c, r, i, s))
PROBE_FN(PMPI_Testany, (int c, MPI_Request r[], int *i, int *f, MPI_Status *s), c, r, (c, r, i, f, s))
PROBE_FN(PMPI_Waitsome, (int c, MPI_Request r[], int *o, int x[], MPI_Status s[]), c, r, (c, r, o, x, s))
PROBE_FN(PMPI_Testsome, (int c, MPI_Request r[], int *o, int x[], MPI_Status s[]), c, r, (c, r, o, x, s))

/* One array: n requests, `live` the index of the one that is active (-1: none), which must come
 * back complete once, with its status checked by `live_ok` (NULL: an empty one); all others
 * inactive or null, and must stay as they were. */
typedef struct arr {
    int n, live;
    MPI_Request req[MAXN], before[MAXN];
    int (*live_ok)(MPI_Status *);
} arr_t;

static int left, right, tag_round;
static int irecv_status_ok(MPI_Status *st)
{
    int count = -1;
    MPI_Get_count(st, MPI_LONG, &count);
    return st->MPI_SOURCE == left && st->MPI_TAG == tag_round && count == 4;
}

/* the calls and cases that failed (printed with the verdict) */
static int failed_at[CALLS][4];

/* Completes the array with `call`, checking every answer against the rule. */
static void complete(int call, arr_t *a, int r, int kase)
{
    long failures_before = failures;
    MPI_Status st[MAXN], one;
    int idx[MAXN], out = -1, flag = 0, got_live = a->live < 0, n = a->n;
    snprintf(where, sizeof where, "%s on round %d %s", call_name[call], r, case_name[kase]);
    alarm(60);
    switch (call) {
    case CALL_WAIT:
    case CALL_TEST:
    case CALL_GET_STATUS:
        for (int i = 0; i < n; i++) {
            garbage(&one, 1);
            if (call == CALL_WAIT) MPI_Wait(&a->req[i], &one), flag = 1;
            else if (call == CALL_TEST) {
                MPI_Test(&a->req[i], &flag, &one);
                CHECK(flag || i == a->live, "%s: request %d inactive or null, flag 0", where, i);
                while (!flag) MPI_Test(&a->req[i], &flag, &one);
            } else {
                MPI_Request_get_status(a->req[i], &flag, &one);
                CHECK(flag || i == a->live, "%s: request %d inactive or null, flag 0", where, i);
                while (!flag) MPI_Request_get_status(a->req[i], &flag, &one);
                if (i == a->live) {
                    CHECK(a->live_ok ? a->live_ok(&one) : is_empty(&one), "%s: the active one's status", where);
                    garbage(&one, 1);
                    MPI_Wait(&a->req[i], &one);
                }
            }
            if (i == a->live) got_live = 1;
            CHECK(i == a->live ? (a->live_ok ? a->live_ok(&one) : is_empty(&one)) : is_empty(&one),
                  "%s: request %d: status source %d tag %d", where, i, one.MPI_SOURCE, one.MPI_TAG);
        }
        break;
    case CALL_WAITANY:
    case CALL_TESTANY:
        for (int k = 0; k < 2; k++) { /* the active one, if any, then MPI_UNDEFINED */
            garbage(&one, 1);
            int tries = 1;
            if (call == CALL_WAITANY) MPI_Waitany(n, a->req, &out, &one), flag = 1;
            else
                for (MPI_Testany(n, a->req, &out, &flag, &one); !flag; tries++) MPI_Testany(n, a->req, &out, &flag, &one);
            CHECK(tries == 1 || (k == 0 && a->live >= 0), "%s: flag 0 with no request active", where);
            int want = k == 0 && a->live >= 0 ? a->live : MPI_UNDEFINED;
            CHECK(out == want, "%s: index %d, expected %d", where, out, want);
            CHECK(out == a->live ? (a->live_ok ? a->live_ok(&one) : is_empty(&one)) : is_empty(&one),
                  "%s: status source %d tag %d (index %d)", where, one.MPI_SOURCE, one.MPI_TAG, out);
            if (out == a->live && out >= 0) got_live = 1;
            if (a->live < 0) break;
        }
        break;
    case CALL_WAITSOME:
    case CALL_TESTSOME:
        for (int k = 0; k < 2; k++) {
            garbage(st, n);
            int tries = 1;
            if (call == CALL_WAITSOME) MPI_Waitsome(n, a->req, &out, idx, st);
            else
                for (MPI_Testsome(n, a->req, &out, idx, st); out == 0; tries++) MPI_Testsome(n, a->req, &out, idx, st);
            CHECK(tries == 1 || (k == 0 && a->live >= 0), "%s: outcount 0 with no request active", where);
            int want = k == 0 && a->live >= 0 ? 1 : MPI_UNDEFINED;
            CHECK(out == want, "%s: outcount %d, expected %d", where, out, want);
            if (out == 1) {
                CHECK(idx[0] == a->live, "%s: index %d, expected %d", where, idx[0], a->live);
                CHECK(a->live_ok ? a->live_ok(&st[0]) : is_empty(&st[0]), "%s: the active one's status", where);
                got_live |= idx[0] == a->live;
            }
            if (a->live < 0) break;
        }
        break;
    default: /* Waitall, Testall */
        garbage(st, n);
        if (call == CALL_WAITALL) MPI_Waitall(n, a->req, st);
        else {
            int tries = 1;
            for (MPI_Testall(n, a->req, &flag, st); !flag; tries++) MPI_Testall(n, a->req, &flag, st);
            CHECK(tries == 1 || a->live >= 0, "%s: flag 0 with no request active", where);
        }
        got_live = 1;
        for (int i = 0; i < n; i++)
            CHECK(i == a->live ? (a->live_ok ? a->live_ok(&st[i]) : is_empty(&st[i])) : is_empty(&st[i]),
                  "%s: request %d: status source %d tag %d", where, i, st[i].MPI_SOURCE, st[i].MPI_TAG);
    }
    alarm(0);
    CHECK(got_live, "%s: the active request %d never came back", where, a->live);
    for (int i = 0; i < n; i++) /* persistent ones stay; the Irecv is gone */
        CHECK(a->req[i] == (i == a->live && a->live_ok ? MPI_REQUEST_NULL : a->before[i]),
              "%s: request %d's handle changed", where, i);
    if (failures != failures_before) failed_at[call][kase] = 1;
}

/* reqs in a per-rank shuffled order; *live: the position of live_req (or -1) */
static void fill(arr_t *a, const MPI_Request *reqs, int n, MPI_Request live_req, uint64_t x)
{
    a->n = n;
    a->live = -1;
    for (int i = 0; i < n; i++) a->req[i] = reqs[i];
    for (int i = n - 1; i > 0; i--) {
        int j = (int)((x = mix(x)) % (uint64_t)(i + 1));
        MPI_Request t = a->req[i];
        a->req[i] = a->req[j], a->req[j] = t;
    }
    for (int i = 0; i < n; i++) {
        a->before[i] = a->req[i];
        if (live_req != MPI_REQUEST_NULL && a->req[i] == live_req) a->live = i;
    }
}

#define NA 24 /* allreduce_init elements (longs) */
#define NG 10 /* gather_init elements per rank (ints) */
static long ar_in[NA], ar_out[NA];
static int g_in[NG], *g_out, g_root, wsize;

static void fresh(int r, int c)
{
    for (int i = 0; i < NA; i++) ar_in[i] = (long)(val(r, c, wrank, i) >> 20), ar_out[i] = -1;
    for (int i = 0; i < NG; i++) g_in[i] = (int)val(r, c + 1, wrank, i);
    for (int i = 0; wrank == g_root && i < NG * wsize; i++) g_out[i] = -1;
}
static void check_allreduce(int r, int c, const char *what)
{
    long bad = 0;
    for (int i = 0; i < NA; i++) {
        long want = 0;
        for (int q = 0; q < wsize; q++) want += (long)(val(r, c, q, i) >> 20);
        bad += ar_out[i] != want;
    }
    CHECK(!bad, "round %d, %s: allreduce_init: %ld wrong", r, what, bad);
}
static void check_gather(int r, int c, const char *what)
{
    long bad = 0;
    for (int q = 0; wrank == g_root && q < wsize; q++)
        for (int i = 0; i < NG; i++) bad += g_out[q * NG + i] != (int)val(r, c + 1, q, i);
    CHECK(!bad, "round %d, %s: gather_init: %ld wrong", r, what, bad);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    mpi_check_seed();
    if (nb_args(argc, argv, "mpi_persist_inactive")) {
        MPI_Finalize();
        return 2;
    }
    signal(SIGALRM, on_alarm);
    left = (wrank + wsize - 1) % wsize, right = (wrank + 1) % wsize;
    MPI_Comm comm; /* a dup of the world: its state made at the dup (comm_create.c) */
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    g_root = (int)(mix(seed ^ 0x600d) % (uint64_t)wsize);
    g_out = calloc((size_t)NG * (size_t)wsize, sizeof *g_out);
    const char *names[2] = {"allreduce_init", "gather_init"};
    long before[2] = {acc(names[0]), acc(names[1])}, want[2] = {0, 0};
    int bc[4];
    MPI_Request never[2], done[2];
    MPI_Bcast_init(bc, 4, MPI_INT, 0, comm, MPI_INFO_NULL, &never[0]);
    MPI_Barrier_init(comm, MPI_INFO_NULL, &never[1]);
    MPI_Allreduce_init(ar_in, ar_out, NA, MPI_LONG, MPI_SUM, comm, MPI_INFO_NULL, &done[0]);
    MPI_Gather_init(g_in, NG, MPI_INT, g_out, NG, MPI_INT, g_root, comm, MPI_INFO_NULL, &done[1]);
    if (wrank == 0) printf("seed %llu (replay with NODESHM_TEST_SEED)\n", (unsigned long long)seed);
    int one_node = on_one_node(MPI_COMM_WORLD) && wsize > 1;
    ours[0] = never[0], ours[1] = never[1], ours[2] = done[0], ours[3] = done[1];
    probing = expect_accel && one_node;
    for (int r = 0; r < rounds; r++)
        for (int call = 0; call < CALLS; call++) {
            uint64_t x = mix(seed ^ ((uint64_t)r << 40) ^ ((uint64_t)call << 32) ^ (uint64_t)wrank);
            int c = call * 2;
            arr_t a;
            a.live_ok = NULL;
            /* (a) */
            fill(&a, never, 2, MPI_REQUEST_NULL, x);
            complete(call, &a, r, 0);
            /* (b): both run on fresh data first, then completed again as inactive ones */
            fresh(r, c);
            MPI_Startall(2, done);
            MPI_Waitall(2, done, MPI_STATUSES_IGNORE);
            want[0]++, want[1]++;
            check_allreduce(r, c, case_name[1]);
            check_gather(r, c, case_name[1]);
            MPI_Request reqs[6] = {never[0], never[1], done[0], done[1], MPI_REQUEST_NULL, MPI_REQUEST_NULL};
            fill(&a, done, 2, MPI_REQUEST_NULL, x ^ 1);
            complete(call, &a, r, 1);
            /* (c): the Irecv's sender sends after a delay of its own (0-3 ms) */
            long in[4] = {-1, -1, -1, -1}, out[4];
            tag_round = r * CALLS + call;
            for (int i = 0; i < 4; i++) out[i] = (long)val(r, c, wrank, 100 + i);
            MPI_Request rreq, sreq;
            MPI_Irecv(in, 4, MPI_LONG, left, tag_round, MPI_COMM_WORLD, &rreq);
            spin_us((double)(mix(x ^ 2) % 3000));
            MPI_Isend(out, 4, MPI_LONG, right, tag_round, MPI_COMM_WORLD, &sreq);
            reqs[4] = rreq;
            fill(&a, reqs, 6, rreq, x ^ 3);
            a.live_ok = irecv_status_ok;
            complete(call, &a, r, 2);
            MPI_Wait(&sreq, MPI_STATUS_IGNORE);
            for (int i = 0; i < 4; i++)
                CHECK(in[i] == (long)val(r, c, left, 100 + i), "round %d, %s, %s: Irecv element %d", r, case_name[2],
                      call_name[call], i);
            /* (d): the allreduce_init started after a delay per rank, on fresh data */
            fresh(r, c + 1);
            spin_us((double)(mix(x ^ 4) % 2000));
            MPI_Start(&done[0]);
            want[0]++;
            reqs[4] = MPI_REQUEST_NULL;
            fill(&a, reqs, 5, done[0], x ^ 5);
            a.live_ok = NULL;
            complete(call, &a, r, 3);
            check_allreduce(r, c + 1, case_name[3]);
        }
    probing = 0; /* the handles may be reused once freed */
#ifdef NSM_PROBE_LINKED
    CHECK(probed > 0, "the probe saw no call of the MPI library's completion calls: it is not in the way");
#endif
    for (int i = 0; i < 2; i++) MPI_Request_free(&never[i]), MPI_Request_free(&done[i]);
    MPI_Comm_free(&comm);
    if (!one_node) want[0] = want[1] = 0;
    int any[CALLS][4];
    PMPI_Allreduce(failed_at, any, CALLS * 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int call = 0; wrank == 0 && call < CALLS; call++)
        for (int k = 0; k < 4; k++)
            if (any[call][k]) printf("mpi_persist_inactive: failed: %s on %s\n", call_name[call], case_name[k]);
    return nb_finish("mpi_persist_inactive", 2, names, before, want, one_node);
}
#endif
