/* libnodeshm_mpi: MPI_Ibarrier, Ibcast, Iallreduce, Ireduce, Igather, Iscatter, Iallgather (and
 * the _c forms where the MPI has them) on fresh random data, all of them outstanding at once on
 * several communicators (dups of MPI_COMM_WORLD and one with the ranks reversed), with a
 * point-to-point exchange in the same request array, completed in an order that differs per rank
 * and round (Waitall, Wait in reverse, Waitany, Waitsome, Testall with compute between: overlap,
 * Test and Testany in a random order), every result checked against values any rank can
 * recompute; in place and not, roots that move, a root whose datatype differs from the others'
 * (freed right after the start).  Also: more outstanding ops on one communicator than its buffers
 * hold (starts that publish later), a blocking collective posted after non-blocking ones on the
 * same communicator, MPI_Comm_free with one outstanding, a non-blocking op as the first
 * collective of a communicator without state (MPI_Comm_idup's: handed to the MPI library, its
 * setup is collective) and of ones duplicated or split from one with a state (run here).
 *
 * Each op's counter (nodeshm_mpi_accelerated_op) must move by exactly the calls that had to run in
 * the interposer: with --expect-accel, on a communicator on one node, all those inside the window
 * the test's environment sets (NODESHM_MPI_I<OP>_MAX=16k, tests/mpi_nonblocking.cmake: --window);
 * between nodes (pseudo-nodes, emulated hosts) the same where some node holds two of the
 * communicator's ranks (none where none does); with --expect-none, none.
 *
 *   mpi_nonblocking [--expect-accel | --expect-none] [--window BYTES] [--rounds N] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "nsm_bigcount_config.h" /* NSM_HAVE_MPI_I<OP>_C */

#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi_check.h"
#include "mpi_nb_complete.h"


static uint64_t shared(int r, int c, int k) { return mix(seed ^ 0xabcdefull ^ ((uint64_t)r << 20) ^ ((uint64_t)c << 8) ^ (uint64_t)k); }

/* An element count for bytes-per-element e: mostly the ring (small), some banks (4-window), some
 * above the window (handed to the MPI library), the same on every rank. */
static int pick_count(uint64_t x, int e)
{
    int kind = (int)(x % 20), bytes;
    if (kind < 10) bytes = 1 + (int)((x >> 8) % 512);
    else if (kind < 17) bytes = 4097 + (int)((x >> 8) % (uint64_t)(window - 4096));
    else bytes = window + 1 + (int)((x >> 8) % (uint64_t)window);
    return bytes / e > 0 ? bytes / e : 1;
}

#define NC 3    /* communicators */
#define PER 9   /* ops per communicator per round: the kinds below */
enum { K_BARRIER, K_BCAST, K_SUM, K_MAX, K_BXOR, K_REDUCE, K_GATHER, K_SCATTER, K_ALLGATHER };
#define NOPS 7
static const char *const op_name[NOPS] = {"ibarrier", "ibcast", "iallreduce", "ireduce", "igather", "iscatter",
                                          "iallgather"};
static long want[NOPS]; /* calls of each that must have been accelerated */

typedef struct call {
    int kind, c, root, n, in_place, me, csize;
    void *buf, *ref, *send;
    size_t bytes; /* of buf and ref */
} call_t;

static int *ints(int n) { return malloc(sizeof(int) * (size_t)(n > 0 ? n : 1)); }

/* active: the interposer has shared buffers for comm (on one node or between nodes: all seven
 * run there) */
static void post(call_t *k, int r, MPI_Comm comm, MPI_Request *req, int active)
{
    int me = k->me, csize = k->csize, c = k->c;
    k->root = (int)(shared(r, c, 1 + k->kind) % (uint64_t)csize);
    k->in_place = (int)(shared(r, c, 20 + k->kind) % 2);
    int n, nodes = expect_accel && active;
    switch (k->kind) {
    case K_BARRIER:
        MPI_Ibarrier(comm, req);
        want[0] += nodes;
        return;
    case K_BCAST: { /* ints; on some rounds the root sends pairs of a derived type, freed at once */
        n = k->n = 2 * pick_count(shared(r, c, 2), 8);
        int *b = ints(n), *ref = ints(n);
        for (int i = 0; i < n; i++) {
            ref[i] = (int)val(r, c, k->root, i);
            b[i] = me == k->root ? ref[i] : (int)val(r, c, me, i) ^ 0x5a5a; /* fresh garbage */
        }
        k->buf = b, k->ref = ref, k->bytes = sizeof(int) * (size_t)n;
        if (me == k->root && k->in_place) {
            MPI_Datatype pair;
            MPI_Type_contiguous(2, MPI_INT, &pair);
            MPI_Type_commit(&pair);
            MPI_Ibcast(b, n / 2, pair, k->root, comm, req);
            MPI_Type_free(&pair);
        }
#ifdef NSM_HAVE_MPI_IBCAST_C
        else if (r % 2)
            MPI_Ibcast_c(b, (MPI_Count)n, MPI_INT, k->root, comm, req);
#endif
        else
            MPI_Ibcast(b, n, MPI_INT, k->root, comm, req);
        want[1] += nodes && n * 4 <= window;
        return;
    }
    case K_SUM: /* long SUM (in place or not), double MAX, int BXOR (the _c form), reduce: long SUM */
    case K_MAX:
    case K_BXOR:
    case K_REDUCE: {
        int e = k->kind == K_BXOR ? 4 : 8;
        n = k->n = pick_count(shared(r, c, 10 + k->kind), e);
        MPI_Datatype type = k->kind == K_MAX ? MPI_DOUBLE : k->kind == K_BXOR ? MPI_INT : MPI_LONG;
        MPI_Op op = k->kind == K_MAX ? MPI_MAX : k->kind == K_BXOR ? MPI_BXOR : MPI_SUM;
        char *send = malloc((size_t)n * (size_t)e), *recv = malloc((size_t)n * (size_t)e),
             *ref = calloc((size_t)n, (size_t)e);
        for (int i = 0; i < n; i++) {
            for (int q = 0; q < csize; q++) {
                uint64_t v = val(r, c, q, i);
                if (k->kind == K_MAX) {
                    double x = (double)(v % 100003) / 7.0 - 5000.0;
                    if (q == me) ((double *)send)[i] = x;
                    if (q == 0 || x > ((double *)ref)[i]) ((double *)ref)[i] = x;
                } else if (k->kind == K_BXOR) {
                    if (q == me) ((int *)send)[i] = (int)v;
                    ((int *)ref)[i] ^= (int)v;
                } else {
                    long x = (long)(v % 2000003) - 1000000;
                    if (q == me) ((long *)send)[i] = x;
                    ((long *)ref)[i] += x;
                }
            }
            memset(recv + (size_t)i * (size_t)e, 0xa5, (size_t)e);
        }
        k->in_place = k->in_place && k->kind != K_MAX && k->kind != K_BXOR && (k->kind != K_REDUCE || me == k->root);
        if (k->in_place) memcpy(recv, send, (size_t)n * (size_t)e);
        k->buf = recv, k->ref = ref, k->send = send, k->bytes = (size_t)n * (size_t)e;
        const void *sb = k->in_place ? MPI_IN_PLACE : send;
        if (k->kind == K_REDUCE) {
            MPI_Ireduce(sb, recv, n, type, op, k->root, comm, req);
            want[3] += nodes && (int)k->bytes <= window;
            if (me != k->root) k->bytes = 0; /* nothing to check */
            return;
        }
#ifdef NSM_HAVE_MPI_IALLREDUCE_C
        if (k->kind == K_BXOR)
            MPI_Iallreduce_c(sb, recv, (MPI_Count)n, type, op, comm, req);
        else
#endif
            MPI_Iallreduce(sb, recv, n, type, op, comm, req);
        want[2] += nodes && (int)k->bytes <= window;
        return;
    }
    default: { /* gather family: ints, n per rank; in place on some rounds */
        n = k->n = pick_count(shared(r, c, 30 + k->kind), 4);
        int *send = ints(n * csize), *recv = ints(n * csize), *ref = ints(n * csize);
        int gathers = k->kind != K_SCATTER;
        for (int q = 0; q < csize; q++)
            for (int i = 0; i < n; i++) {
                int v = (int)val(r, c, q, i);
                ref[q * n + i] = v;
                recv[q * n + i] = -7;
                send[q * n + i] = gathers ? (q == 0 ? (int)val(r, c, me, i) : -9) : v; /* scatter: root's */
            }
        k->bytes = sizeof(int) * (size_t)n * (size_t)csize;
        k->buf = recv, k->ref = ref, k->send = send;
        if (k->kind == K_GATHER) {
            k->in_place = k->in_place && me == k->root;
            if (k->in_place) memcpy(recv + me * n, send, sizeof(int) * (size_t)n);
            MPI_Igather(k->in_place ? MPI_IN_PLACE : send, n, MPI_INT, recv, n, MPI_INT, k->root, comm, req);
            if (me != k->root) k->bytes = 0;
            want[4] += nodes && n * 4 <= window;
        } else if (k->kind == K_ALLGATHER) {
            if (k->in_place) memcpy(recv + me * n, send, sizeof(int) * (size_t)n);
            MPI_Iallgather(k->in_place ? MPI_IN_PLACE : send, n, MPI_INT, recv, n, MPI_INT, comm, req);
            want[6] += nodes && n * 4 <= window;
        } else {
            k->in_place = k->in_place && me == k->root;
            /* every rank checks its own block, at the start of recv (in place: the root's is in send) */
            memmove(ref, ref + me * n, sizeof(int) * (size_t)n);
            k->bytes = sizeof(int) * (size_t)n;
            MPI_Iscatter(send, n, MPI_INT, k->in_place ? MPI_IN_PLACE : (void *)recv, n, MPI_INT, k->root, comm, req);
            want[5] += nodes && n * 4 <= window;
        }
        return;
    }
    }
}

static void check(call_t *k, int r, const char *how)
{
    static const char *const what[PER] = {"ibarrier", "ibcast", "iallreduce long sum", "iallreduce double max",
                                          "iallreduce int bxor", "ireduce long sum", "igather", "iscatter",
                                          "iallgather"};
    if (k->kind == K_SCATTER && k->in_place) /* the root's own block: where it was, untouched */
        memcpy(k->buf, (int *)k->send + k->me * k->n, k->bytes);
    if (k->bytes)
        CHECK(!memcmp(k->buf, k->ref, k->bytes), "round %d comm %d: %s of %d (root %d%s, %s): wrong result", r, k->c,
              what[k->kind], k->n, k->root, k->in_place ? ", in place" : "", how);
    free(k->buf);
    free(k->ref);
    free(k->send);
    k->buf = k->ref = k->send = NULL;
}

/* Many outstanding on one communicator: more than the ring holds (small) and than the banks do
 * (8 KiB), completed in an order of the rank's own. */
static void deep(MPI_Comm comm, int active, int n_small, int n_big)
{
    int me, csize, n = n_small + n_big;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &csize);
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)n);
    long *send = malloc(sizeof(long) * 1024 * (size_t)n), *recv = malloc(sizeof(long) * 1024 * (size_t)n);
    for (int k = 0; k < n; k++) {
        int len = k < n_small ? 1 + k % 16 : 1024; /* longs: 8 B-128 B, or 8 KiB */
        for (int i = 0; i < len; i++) {
            send[k * 1024 + i] = (long)(val(1000 + k, 7, me, i) % 1000);
            recv[k * 1024 + i] = -1;
        }
        MPI_Iallreduce(send + k * 1024, recv + k * 1024, len, MPI_LONG, MPI_SUM, comm, &req[k]);
        want[2] += expect_accel && active && len * 8 <= window;
    }
    if (me % 2)
        for (int k = n - 1; k >= 0; k--) MPI_Wait(&req[k], MPI_STATUS_IGNORE);
    else
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    for (int k = 0, bad = 0; k < n && !bad; k++) {
        int len = k < n_small ? 1 + k % 16 : 1024;
        for (int i = 0; i < len && !bad; i++) {
            long want = 0;
            for (int q = 0; q < csize; q++) want += (long)(val(1000 + k, 7, q, i) % 1000);
            bad = recv[k * 1024 + i] != want;
            CHECK(!bad, "deep: op %d of %d, element %d: %ld, expected %ld", k, n, i, recv[k * 1024 + i], want);
        }
    }
    free(req);
    free(send);
    free(recv);
}

int main(int argc, char **argv)
{
    rounds = 12;
    int wsize = nb_init(&argc, &argv, "mpi_nonblocking");
    if (!wsize) return 2;
    long before[NOPS];
    for (int i = 0; i < NOPS; i++) before[i] = acc(op_name[i]);

    /* a non-blocking op first on a communicator without interposer state: the MPI library's
     * (making the state is collective); MPI_Comm_idup must not block, so its result has none */
    MPI_Comm fresh;
    MPI_Request r0;
    MPI_Comm_idup(MPI_COMM_WORLD, &fresh, &r0);
    MPI_Wait(&r0, MPI_STATUS_IGNORE);
    MPI_Ibarrier(fresh, &r0);
    MPI_Wait(&r0, MPI_STATUS_IGNORE);

    MPI_Comm comm[NC];
    int one_node[NC], active[NC];
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[1]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &comm[2]); /* ranks reversed */
    for (int c = 0; c < NC; c++) {
        MPI_Barrier(comm[c]); /* its state: later non-blocking calls may run in the interposer */
        one_node[c] = on_one_node(comm[c]) && wsize > 1;
        active[c] = nb_active(comm[c]);
    }
    MPI_Barrier(fresh);

    call_t calls[NC * PER];
    MPI_Request req[NC * PER + 2];
    _Static_assert(NC * PER + 2 <= NB_COMPLETE_MAX, "complete_all takes at most NB_COMPLETE_MAX requests");
    for (int r = 0; r < rounds; r++) {
        int n = 0;
        for (int c = 0; c < NC; c++) {
            int me, csize;
            MPI_Comm_rank(comm[c], &me);
            MPI_Comm_size(comm[c], &csize);
            for (int k = 0; k < PER; k++, n++) {
                calls[n] = (call_t){.kind = k, .c = c, .me = me, .csize = csize};
                post(&calls[n], r, comm[c], &req[n], active[c]);
            }
        }
        const char *how = complete_round(r, n, req);
        for (int i = 0; i < n; i++) check(&calls[i], r, how);
    }

    /* deeper than the buffers: 300 small (ring: 256 entries at most) and 6 of 8 KiB (2 banks) */
    deep(comm[0], active[0], 300, 6);
    deep(comm[2], active[2], 20, 6);

    /* communicators made by MPI_Comm_dup and MPI_Comm_split of one with a state have theirs at
     * once (src/mpi/comm_create.c): their first collective, a non-blocking one, runs in the
     * interposer */
    {
        MPI_Comm child[2];
        MPI_Comm_dup(comm[0], &child[0]);
        /* (not under --expect-none: a half may lie on one pseudo-node, where it runs here) */
        if (!expect_none) MPI_Comm_split(comm[2], wrank % 2, wrank, &child[1]);
        for (int k = 0; k < 2 - expect_none; k++) {
            int csize;
            PMPI_Comm_size(child[k], &csize);
            long a = wrank + 1, sum = -1, want_sum = 0;
            for (int r = k ? wrank % 2 : 0; r < wsize; r += k ? 2 : 1) want_sum += r + 1;
            MPI_Request q;
            MPI_Iallreduce(&a, &sum, 1, MPI_LONG, MPI_SUM, child[k], &q);
            want[2] += expect_accel && nb_active(child[k]);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
            CHECK(sum == want_sum, "iallreduce first on a %s communicator: %ld, expected %ld",
                  k ? "split" : "duplicated", sum, want_sum);
            MPI_Comm_free(&child[k]);
        }
    }

    /* a blocking collective after non-blocking ones on the same communicator */
    {
        long a = wrank + 1, b = -1, c2 = -1;
        MPI_Request q[2];
        MPI_Ibarrier(comm[1], &q[0]);
        MPI_Iallreduce(&a, &b, 1, MPI_LONG, MPI_SUM, comm[1], &q[1]);
        want[0] += expect_accel && active[1];
        want[2] += expect_accel && active[1];
        MPI_Allreduce(&a, &c2, 1, MPI_LONG, MPI_MAX, comm[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        CHECK(b == (long)wsize * (wsize + 1) / 2, "iallreduce before a blocking allreduce: %ld", b);
        CHECK(c2 == wsize, "blocking allreduce after non-blocking ones: %ld", c2);
    }
    /* MPI_Comm_free with one outstanding (where the interposer runs it: Open MPI 5's own
     * Ibarrier crashes in MPI_Wait when its communicator was freed meanwhile) */
    {
        MPI_Request q;
        int ours = expect_accel && active[1];
        MPI_Ibarrier(comm[1], &q);
        want[0] += ours;
        if (!ours) MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Comm_free(&comm[1]);
        if (ours) MPI_Wait(&q, MPI_STATUS_IGNORE);
    }

    int first_one_node = one_node[0];
    /* between nodes the seven that run there must each have had calls to count */
    if (expect_accel && active[0] && !one_node[0])
        for (int i = 0; i < NOPS; i++) CHECK(want[i] > 0, "%s: no call expected accelerated between nodes", op_name[i]);
    MPI_Comm_free(&comm[0]);
    MPI_Comm_free(&comm[2]);
    MPI_Comm_free(&fresh);
    return nb_finish("mpi_nonblocking", NOPS, op_name, before, want, first_one_node);
}
