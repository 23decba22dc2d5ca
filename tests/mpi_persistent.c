/* libnodeshm_mpi: the MPI-4 persistent collectives (MPI_Barrier_init, Bcast_init, Allreduce_init,
 * Reduce_init, Gather_init, Scatter_init, Allgather_init, and the _c forms where the MPI has them):
 * requests made once on three communicators (a dup of MPI_COMM_WORLD, one with the ranks reversed,
 * and one made by MPI_Comm_idup with no blocking collective before its inits, so that its first starts are the MPI
 * library's and the later ones, after an MPI_Barrier made its state, ours), then many rounds of
 * fresh random data in the same buffers (the buffers are read at each start), started with
 * MPI_Startall over all of them, per communicator, or MPI_Start one by one, in one array with a
 * non-blocking MPI_Iallreduce and point-to-point requests, completed in an order that differs
 * per rank and round (Waitall, Wait in reverse, Waitany, Waitsome, Testall with compute, Test in
 * random order with Testany, Testsome, Request_get_status then Wait): no request may be returned
 * complete twice.  In place and not, roots that differ, a root whose datatype differs from the
 * others' (freed right after the init where the interposer runs it, decoys reusing its memory),
 * sizes in the small ring, in the banks and above the window (the library's).  MPI_Request_free
 * and a new init halfway; a communicator freed before its requests.
 *
 * Each op's counter (nodeshm_mpi_accelerated_op("<op>_init")) must move by exactly the starts that
 * had to run in the interposer: with --expect-accel those inside the window set by
 * tests/mpi_persistent.cmake (NODESHM_MPI_<OP>_INIT_MAX=16k, --window), on one node, and between
 * nodes (pseudo-nodes, emulated hosts) where a node holds 2 ranks or more; --expect-none: none.
 *
 * First of all, before any blocking collective: an MPI_Ibcast, an MPI_Iallreduce and two starts
 * of an MPI_Bcast_init on MPI_COMM_WORLD, which has its interposer state from MPI_Init: where a
 * node holds 2 ranks or more (between nodes too) ibcast and iallreduce count 1 each unless
 * --expect-no-shm, bcast_init 2 with --expect-accel; and the node-shared memory is mapped right after MPI_Init.  With
 * --expect-no-shm (NODESHM_MPI_DISABLE=all) nothing of nodeshm's is mapped, then or at the end.
 *
 *   mpi_persistent [--expect-accel | --expect-none] [--expect-no-shm] [--window BYTES] [--rounds N]
 * Exit 77 (skipped) where the MPI has no persistent collectives. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nsm_bigcount_config.h" /* NSM_HAVE_MPI_<OP>_INIT(_C) */

#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

#if !defined(NSM_HAVE_MPI_BARRIER_INIT) || !defined(NSM_HAVE_MPI_BCAST_INIT) || !defined(NSM_HAVE_MPI_ALLREDUCE_INIT) || \
    !defined(NSM_HAVE_MPI_REDUCE_INIT) || !defined(NSM_HAVE_MPI_GATHER_INIT) || !defined(NSM_HAVE_MPI_SCATTER_INIT) ||     \
    !defined(NSM_HAVE_MPI_ALLGATHER_INIT)
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (wrank == 0) printf("mpi_persistent: SKIP (this MPI has no MPI-4 persistent collectives)\n");
    MPI_Finalize();
    return 77;
}
#else
#include "mpi_nb_complete.h" /* spin_us, complete_all, val, acc: shared with the non-blocking tests */

#define NOPS 7
static const char *const op_name[NOPS] = {"barrier_init", "bcast_init",   "allreduce_init", "reduce_init",
                                          "gather_init",  "scatter_init", "allgather_init"};
static long want[NOPS]; /* starts of each that must have been accelerated */

static uint64_t shared(int c, int k) { return mix(seed ^ 0x5eedull ^ ((uint64_t)c << 8) ^ (uint64_t)k); }

/* Whether this process maps node-shared memory of nodeshm's (a memfd, or a /dev/shm file). */
static int maps_nodeshm(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, "memfd:nodeshm") || strstr(line, "/dev/shm/nodeshm");
    if (f) fclose(f);
    return found;
}

/* MPI_COMM_WORLD's first collectives, all non-blocking or persistent (see the top). */
static void first_on_world(int wsize, int expect_no_shm)
{
    long b_ib = acc("ibcast"), b_iar = acc("iallreduce"), b_bi = acc("bcast_init");
    int v[64], w[40], root = wsize - 1;
    long in = (long)(mix(seed ^ 0xf1u ^ (uint64_t)wrank) % 1000), sum = -1, want_sum = 0;
    for (int q = 0; q < wsize; q++) want_sum += (long)(mix(seed ^ 0xf1u ^ (uint64_t)q) % 1000);
    for (int i = 0; i < 64; i++) v[i] = wrank == root ? (int)mix(seed ^ 0xf2u ^ (uint64_t)i) : -1;
    MPI_Request rq[2], p;
    MPI_Ibcast(v, 64, MPI_INT, root, MPI_COMM_WORLD, &rq[0]);
    MPI_Iallreduce(&in, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 64; i++) CHECK(v[i] == (int)mix(seed ^ 0xf2u ^ (uint64_t)i), "first ibcast: element %d", i);
    CHECK(sum == want_sum, "first iallreduce: %ld, expected %ld", sum, want_sum);
    MPI_Bcast_init(w, 40, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &p);
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 40; i++) w[i] = wrank == 0 ? (int)mix(seed ^ 0xf3u ^ (uint64_t)(k * 40 + i)) : -1;
        MPI_Start(&p);
        MPI_Wait(&p, MPI_STATUS_IGNORE);
        for (int i = 0; i < 40; i++)
            CHECK(w[i] == (int)mix(seed ^ 0xf3u ^ (uint64_t)(k * 40 + i)), "first bcast_init, start %d: element %d", k, i);
    }
    MPI_Request_free(&p);
    if (!acc_fn) return;
    /* bcast_init runs between nodes too, where the communicator has shared buffers */
    long nb = nb_active(MPI_COMM_WORLD) && !expect_no_shm, pi = expect_accel && nb_active(MPI_COMM_WORLD) ? 2 : 0;
    CHECK(acc("ibcast") - b_ib == nb, "MPI_COMM_WORLD's first ibcast: %ld accelerated, expected %ld",
          acc("ibcast") - b_ib, nb);
    CHECK(acc("iallreduce") - b_iar == nb, "MPI_COMM_WORLD's first iallreduce: %ld accelerated, expected %ld",
          acc("iallreduce") - b_iar, nb);
    CHECK(acc("bcast_init") - b_bi == pi, "MPI_COMM_WORLD's first bcast_init starts: %ld accelerated, expected %ld",
          acc("bcast_init") - b_bi, pi);
}

/* elements for e bytes each: mostly the ring (small), some banks, some above the window (not
 * on comm 0: every op keeps a request the interposer must run, so each counter can fail) */
static int pick_count(uint64_t x, int e, int c)
{
    int kind = (int)(x % (c ? 20 : 17)), bytes;
    if (kind < 10) bytes = 1 + (int)((x >> 8) % 512);
    else if (kind < 17) bytes = 4097 + (int)((x >> 8) % (uint64_t)(window - 4096));
    else bytes = window + 1 + (int)((x >> 8) % (uint64_t)window);
    return bytes / e > 0 ? bytes / e : 1;
}

enum { K_BARRIER, K_BCAST, K_BCAST_PAIR, K_SUM, K_BXOR, K_MAX, K_REDUCE, K_GATHER, K_SCATTER, K_ALLGATHER, K_BIG };
#define PER 11 /* requests per communicator: the kinds */
#define NC 3
static const int op_of[PER] = {0, 1, 1, 2, 2, 2, 3, 4, 5, 6, 1};
static const char *const what[PER] = {"barrier", "bcast int", "bcast pairs at the root", "allreduce long sum",
                                      "allreduce int bxor", "allreduce double max", "reduce long sum", "gather",
                                      "scatter", "allgather", "bcast above the window"};

typedef struct preq {
    int kind, c, me, csize, root, n, in_place, accel;
    MPI_Comm comm;
    MPI_Request req;
    char *send, *recv, *ref;
    size_t check; /* bytes of recv to compare with ref each round (0: none) */
    int early;    /* the root's derived datatype may be freed right after the init (see init_req) */
    MPI_Datatype pair, decoy[4];
} preq_t;

static void init_req(preq_t *p)
{
    int k = p->kind, c = p->c, me = p->me, csize = p->csize;
    MPI_Comm comm = p->comm;
    p->root = (int)(shared(c, 100 + k) % (uint64_t)csize);
    p->in_place = (int)(shared(c, 200 + k) % 2);
    int e = k == K_BXOR ? 4 : k == K_SUM || k == K_MAX || k == K_REDUCE ? 8 : 4, n;
    n = p->n = k == K_BIG ? (window + 64) / 4 : k == K_BCAST_PAIR ? 2 * pick_count(shared(c, k), 8, c) : pick_count(shared(c, k), e, c);
    size_t blk = (size_t)n * (size_t)e, all = blk * (size_t)csize;
    p->send = calloc(all, 1), p->recv = calloc(all, 1), p->ref = calloc(all, 1);
    size_t bytes = blk; /* what the interposer's window is compared with */
    switch (k) {
    case K_BARRIER:
        MPI_Barrier_init(comm, MPI_INFO_NULL, &p->req);
        bytes = 0;
        break;
    case K_BCAST:
    case K_BIG:
        MPI_Bcast_init(p->recv, n, MPI_INT, p->root, comm, MPI_INFO_NULL, &p->req);
        p->check = blk;
        break;
    case K_BCAST_PAIR: /* the root sends pairs of a derived type (freed early: below) */
        if (me == p->root) {
            MPI_Type_contiguous(2, MPI_INT, &p->pair);
            MPI_Type_commit(&p->pair);
            MPI_Bcast_init(p->recv, n / 2, p->pair, p->root, comm, MPI_INFO_NULL, &p->req);
        } else {
#ifdef NSM_HAVE_MPI_BCAST_INIT_C
            MPI_Bcast_init_c(p->recv, (MPI_Count)n, MPI_INT, p->root, comm, MPI_INFO_NULL, &p->req);
#else
            MPI_Bcast_init(p->recv, n, MPI_INT, p->root, comm, MPI_INFO_NULL, &p->req);
#endif
        }
        p->check = blk;
        break;
    case K_SUM:
    case K_BXOR:
    case K_MAX: {
        MPI_Datatype type = k == K_MAX ? MPI_DOUBLE : k == K_BXOR ? MPI_INT : MPI_LONG;
        MPI_Op op = k == K_MAX ? MPI_MAX : k == K_BXOR ? MPI_BXOR : MPI_SUM;
        p->in_place = p->in_place && k != K_MAX;
        const void *sb = p->in_place ? MPI_IN_PLACE : p->send;
#ifdef NSM_HAVE_MPI_ALLREDUCE_INIT_C
        if (k == K_BXOR)
            MPI_Allreduce_init_c(sb, p->recv, (MPI_Count)n, type, op, comm, MPI_INFO_NULL, &p->req);
        else
#endif
            MPI_Allreduce_init(sb, p->recv, n, type, op, comm, MPI_INFO_NULL, &p->req);
        p->check = blk;
        break;
    }
    case K_REDUCE:
        p->in_place = p->in_place && me == p->root;
        MPI_Reduce_init(p->in_place ? MPI_IN_PLACE : p->send, p->recv, n, MPI_LONG, MPI_SUM, p->root, comm,
                        MPI_INFO_NULL, &p->req);
        p->check = me == p->root ? blk : 0;
        break;
    case K_GATHER:
        p->in_place = p->in_place && me == p->root;
#ifdef NSM_HAVE_MPI_GATHER_INIT_C
        if (c == 2)
            MPI_Gather_init_c(p->in_place ? MPI_IN_PLACE : p->send, n, MPI_INT, p->recv, n, MPI_INT, p->root, comm,
                              MPI_INFO_NULL, &p->req);
        else
#endif
            MPI_Gather_init(p->in_place ? MPI_IN_PLACE : p->send, n, MPI_INT, p->recv, n, MPI_INT, p->root, comm,
                            MPI_INFO_NULL, &p->req);
        p->check = me == p->root ? all : 0;
        break;
    case K_SCATTER: /* every rank checks its own block at the start of recv */
        p->in_place = p->in_place && me == p->root;
        MPI_Scatter_init(p->send, n, MPI_INT, p->in_place ? MPI_IN_PLACE : (void *)p->recv, n, MPI_INT, p->root,
                         comm, MPI_INFO_NULL, &p->req);
        p->check = blk;
        break;
    case K_ALLGATHER:
#ifdef NSM_HAVE_MPI_ALLGATHER_INIT_C
        if (c == 0)
            MPI_Allgather_init_c(p->in_place ? MPI_IN_PLACE : p->send, n, MPI_INT, p->recv, n, MPI_INT, comm,
                                 MPI_INFO_NULL, &p->req);
        else
#endif
            MPI_Allgather_init(p->in_place ? MPI_IN_PLACE : p->send, n, MPI_INT, p->recv, n, MPI_INT, comm,
                               MPI_INFO_NULL, &p->req);
        p->check = all;
        break;
    }
    p->accel = (int)bytes <= window;
    /* The root's pair type freed right after the init, where the interposer runs every start of
     * the request: it must keep a type of its own.  Decoy types then take the freed memory, so
     * that a path still using the caller's handle fails.  Not where the MPI library runs it:
     * Open MPI 5.0.11's persistent collectives use a derived datatype freed after their init
     * (legal MPI) and corrupt the heap at the next starts (bare, without libnodeshm_mpi: a
     * broadcast of pairs crashed 3 of 3 runs, 0 of 3 with the type freed after MPI_Request_free) */
    if (p->pair != MPI_DATATYPE_NULL && p->early && p->accel) {
        MPI_Type_free(&p->pair);
        for (int d = 0; d < 4; d++) {
            MPI_Type_contiguous(5 + d, MPI_INT, &p->decoy[d]);
            MPI_Type_commit(&p->decoy[d]);
        }
    }
}

/* round r's data: fresh values in the same buffers, the expected result in ref */
static void fill(preq_t *p, int r)
{
    int k = p->kind, c = p->c, me = p->me, csize = p->csize, n = p->n;
    int *si = (int *)p->send, *ri = (int *)p->recv, *fi = (int *)p->ref;
    switch (k) {
    case K_BARRIER:
        return;
    case K_BCAST:
    case K_BCAST_PAIR:
    case K_BIG:
        for (int i = 0; i < n; i++) {
            fi[i] = (int)val(r, c, p->root, i);
            ri[i] = me == p->root ? fi[i] : (int)val(r, c, me, i) ^ 0x5a5a; /* fresh garbage */
        }
        return;
    case K_SUM:
    case K_BXOR:
    case K_MAX:
    case K_REDUCE: {
        int e = k == K_BXOR ? 4 : 8;
        memset(p->ref, 0, (size_t)n * (size_t)e);
        for (int i = 0; i < n; i++) {
            for (int q = 0; q < csize; q++) {
                uint64_t v = val(r, c, q, i);
                if (k == K_MAX) {
                    double x = (double)(v % 100003) / 7.0 - 5000.0;
                    if (q == me) ((double *)p->send)[i] = x;
                    if (q == 0 || x > ((double *)p->ref)[i]) ((double *)p->ref)[i] = x;
                } else if (k == K_BXOR) {
                    if (q == me) si[i] = (int)v;
                    fi[i] ^= (int)v;
                } else {
                    long x = (long)(v % 2000003) - 1000000;
                    if (q == me) ((long *)p->send)[i] = x;
                    ((long *)p->ref)[i] += x;
                }
            }
            memset(p->recv + (size_t)i * (size_t)e, 0xa5, (size_t)e);
        }
        if (p->in_place) memcpy(p->recv, p->send, (size_t)n * (size_t)e);
        return;
    }
    default: /* gather family: n ints per rank */
        for (int q = 0; q < csize; q++)
            for (int i = 0; i < n; i++) {
                int v = (int)val(r, c, q, i);
                fi[q * n + i] = v;
                ri[q * n + i] = -7;
                if (k == K_SCATTER) si[q * n + i] = me == p->root ? v : -9;
                else si[q * n + i] = q == 0 ? (int)val(r, c, me, i) : -9;
            }
        if (k == K_SCATTER) memmove(fi, fi + me * n, sizeof(int) * (size_t)n);
        else if (p->in_place) memcpy(ri + me * n, si, sizeof(int) * (size_t)n);
        return;
    }
}

static void check(preq_t *p, int r, const char *how)
{
    const char *got = p->recv;
    if (p->kind == K_SCATTER && p->in_place) got = p->send + (size_t)p->me * (size_t)p->n * 4; /* untouched */
    if (p->check)
        CHECK(!memcmp(got, p->ref, p->check), "round %d comm %d: %s of %d (root %d%s, %s): wrong result", r, p->c,
              what[p->kind], p->n, p->root, p->in_place ? ", in place" : "", how);
}

static void free_req(preq_t *p)
{
    MPI_Request_free(&p->req);
    CHECK(p->req == MPI_REQUEST_NULL, "MPI_Request_free left the handle set");
    if (p->pair != MPI_DATATYPE_NULL) MPI_Type_free(&p->pair);
    for (int d = 0; d < 4; d++)
        if (p->decoy[d] != MPI_DATATYPE_NULL) MPI_Type_free(&p->decoy[d]);
    free(p->send);
    free(p->recv);
    free(p->ref);
}

int main(int argc, char **argv)
{
    int rounds = 24, expect_none = 0, expect_no_shm = 0;
    MPI_Init(&argc, &argv);
    int shm_at_init = maps_nodeshm(); /* before any collective: MPI_COMM_WORLD's state */
    mpi_check_seed();
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--expect-accel")) expect_accel = 1;
        else if (!strcmp(argv[i], "--expect-none")) expect_none = 1;
        else if (!strcmp(argv[i], "--expect-no-shm")) expect_no_shm = 1;
        else if (!strcmp(argv[i], "--window") && i + 1 < argc) window = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else {
            if (wrank == 0)
                fprintf(stderr, "usage: mpi_persistent [--expect-accel|--expect-none] [--expect-no-shm] [--window B] "
                                "[--rounds N]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (window <= 4096) window = 4097 + 4096;
    if (rounds < 4) rounds = 4;
    acc_fn = (long (*)(const char *))dlsym(RTLD_DEFAULT, "nodeshm_mpi_accelerated_op");
    if (expect_accel && !acc_fn) {
        fprintf(stderr, "mpi_persistent: --expect-accel, but libnodeshm_mpi is not loaded\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* Testall: see complete_all */
    if (acc_fn && wsize > 1) { /* none where no node holds 2 ranks (pseudo-nodes of 1) */
        int want_shm = !expect_no_shm && nb_active(MPI_COMM_WORLD);
        CHECK(shm_at_init == want_shm, "node-shared memory mapped right after MPI_Init: %d, expected %d", shm_at_init,
              want_shm);
    }
    first_on_world(wsize, expect_no_shm);
    long before[NOPS];
    for (int i = 0; i < NOPS; i++) before[i] = acc(op_name[i]);

    /* comm 1: no blocking collective before its inits (the interposer has no state for it yet:
     * the library runs its starts until the MPI_Barrier at round `late`) */
    MPI_Comm comm[NC];
    int one_node[NC], active[NC], late = rounds / 3;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[0]);
    { /* MPI_Comm_idup's communicator has no state (a dup's gets one: src/mpi/comm_create.c) */
        MPI_Request q;
        MPI_Comm_idup(MPI_COMM_WORLD, &comm[1], &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &comm[2]); /* ranks reversed */
    for (int c = 0; c < NC; c++) {
        one_node[c] = on_one_node(comm[c]) && wsize > 1; /* PMPI inside: makes no state */
        active[c] = nb_active(comm[c]); /* between nodes: shared buffers where a node holds 2 ranks */
    }
    MPI_Barrier(comm[0]);
    MPI_Barrier(comm[2]);

    static preq_t p[NC * PER];
    for (int c = 0; c < NC; c++)
        for (int k = 0; k < PER; k++) {
            preq_t *q = &p[c * PER + k];
            *q = (preq_t){.kind = k, .c = c, .comm = comm[c], .pair = MPI_DATATYPE_NULL,
                          .decoy = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL},
                          /* comm 1: the library runs its first starts */
                          .early = expect_accel && (one_node[c] || active[c]) && c != 1};
            MPI_Comm_rank(comm[c], &q->me);
            MPI_Comm_size(comm[c], &q->csize);
            init_req(q);
        }

    MPI_Request req[NC * PER + 3];

    _Static_assert(NC * PER + 3 <= NB_COMPLETE_MAX, "complete_all takes at most NB_COMPLETE_MAX requests");
    long nb_in = 0, nb_out = 0;
    for (int r = 0; r < rounds; r++) {
        if (r == late) MPI_Barrier(comm[1]); /* its state: its starts run in the interposer now */
        if (r == rounds / 2) { /* free one and make it again (a new handle, the same buffers) */
            preq_t *q = &p[0 * PER + K_SUM];
            free_req(q);
            init_req(q);
        }
        for (int i = 0; i < NC * PER; i++) {
            fill(&p[i], r);
            req[i] = p[i].req;
            int ours = expect_accel && (one_node[p[i].c] || active[p[i].c]) &&
                       (p[i].c != 1 || r >= late) && p[i].accel;
            want[op_of[p[i].kind]] += ours;
        }
        int start = r % 3; /* the same on every rank: starts are collective calls, in order */
        if (start == 0) {
            MPI_Startall(NC * PER, req);
        } else if (start == 1) {
            for (int c = 0; c < NC; c++) MPI_Startall(PER, req + c * PER);
        } else {
            for (int i = 0; i < NC * PER; i++) MPI_Start(&req[i]);
        }
        /* a non-blocking collective and point to point in the same array */
        int n = NC * PER;
        nb_in = (long)val(r, 8, wrank, 0) % 1000;
        MPI_Iallreduce(&nb_in, &nb_out, 1, MPI_LONG, MPI_SUM, comm[0], &req[n++]);
        long out = (long)val(r, 9, wrank, 0), in = -1;
        MPI_Irecv(&in, 1, MPI_LONG, (wrank + wsize - 1) % wsize, r, MPI_COMM_WORLD, &req[n++]);
        MPI_Isend(&out, 1, MPI_LONG, (wrank + 1) % wsize, r, MPI_COMM_WORLD, &req[n++]);
        uint64_t x = mix(seed ^ ((uint64_t)r << 32) ^ (uint64_t)wrank);
        if (x % 3 == 0) spin_us((double)(x >> 8 & 63)); /* overlap: compute before completing */
        int mode = getenv("NODESHM_TEST_MODE") ? atoi(getenv("NODESHM_TEST_MODE")) : (int)((x >> 16) % NB_COMPLETE_MODES);
        const char *how = complete_all(mode, n, req, x); /* NODESHM_TEST_MODE: one mode, to replay */
        for (int i = 0; i < NC * PER; i++) {
            CHECK(req[i] == p[i].req, "round %d: %s on comm %d: the persistent handle changed (%s)", r,
                  what[p[i].kind], p[i].c, how);
            check(&p[i], r, how);
        }
        long sum = 0;
        for (int q = 0; q < wsize; q++) sum += (long)val(r, 8, q, 0) % 1000;
        CHECK(nb_out == sum, "round %d: iallreduce beside the persistent ones (%s): %ld, expected %ld", r, how, nb_out,
              sum);
        CHECK(in == (long)val(r, 9, (wrank + wsize - 1) % wsize, 0), "round %d: point to point (%s): %ld", r, how, in);
    }

    long moved[NOPS];
    int none_expected = 0;
    for (int i = 0; i < NOPS; i++) {
        moved[i] = acc(op_name[i]) - before[i];
        if (expect_none) want[i] = 0;
        if (expect_accel || expect_none)
            CHECK(moved[i] == want[i], "%s: %ld starts accelerated, expected %ld", op_name[i], moved[i], want[i]);
        none_expected |= !want[i];
    }
    if (expect_accel && wsize > 1 && one_node[0])
        CHECK(!none_expected, "an op with no start expected accelerated: the test cannot fail for it");
    if (expect_accel && active[0] && !one_node[0]) /* between nodes: every op must have had starts to count */
        for (int i = 0; i < NOPS; i++) CHECK(want[i] > 0, "%s: no start expected accelerated between nodes", op_name[i]);

    /* comm 2 freed before its requests (MPI keeps it for them) */
    MPI_Comm_free(&comm[2]);
    for (int i = 0; i < NC * PER; i++) free_req(&p[i]);
    MPI_Comm_free(&comm[0]);
    MPI_Comm_free(&comm[1]);
    if (expect_no_shm) CHECK(!maps_nodeshm(), "node-shared memory mapped with the interposer switched off");
    long f = failures, all;
    PMPI_Allreduce(&f, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0) {
        if (all) printf("mpi_persistent: FAIL (%ld failures)\n", all);
        else {
            printf("mpi_persistent: PASS (%ld checks on rank 0; starts accelerated on rank 0:", checks);
            for (int i = 0; i < NOPS; i++) printf(" %s %ld", op_name[i], moved[i]);
            printf(")\n");
        }
    }
    MPI_Finalize();
    return all ? 1 : 0;
}
#endif
