/* libnodeshm_mpi: MPI_Ibcast (on one node core/coll/bcast.h's step form, src/mpi/bcast.c; between
 * nodes nonblocking_nodes.c's steps) on fresh random data: several outstanding at once on several
 * communicators (MPI_COMM_WORLD duplicated, reversed, rotated), every rank the root of some on each
 * communicator and round, the communicators taken in an order that differs per rank (each one's
 * calls in the same order everywhere, as MPI wants), completed in an order that differs per rank
 * and round (mpi_nb_complete.h: waits, tests, compute between, a point-to-point ring in the same
 * array).  Each rank's datatype is its own (the type signature is the same): ints, pairs, a
 * vector of pairs with a gap after each (MPI_Type_vector), or those pairs resized over the gap
 * (count > 1 of a derived type), freed right after the start; every gap must stay untouched, the
 * root's buffer too.  Sizes from the small ring, the banks, and above the window (the MPI
 * library's).  Then more outstanding on one communicator than the ring and the banks hold (roots
 * that publish at a later test).
 *
 * Counted per call: with --expect-accel the interposer's ibcast counter moves by 1 at every start
 * that must run in the interposer (inside the window, on a communicator with shared buffers:
 * tests/mpi_nonblocking.cmake's NODESHM_MPI_IBCAST_MAX=16k, --window) and by 0 at the others;
 * with --expect-none never.
 *
 *   mpi_nb_bcast [--expect-accel | --expect-none] [--window BYTES] [--rounds N] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi_check.h"
#include "mpi_nb_complete.h"

#define NC 3      /* communicators */
#define MAX_PER 20 /* calls per communicator and round (NC * MAX_PER + 2 <= NB_COMPLETE_MAX) */
_Static_assert(NC * MAX_PER + 2 <= NB_COMPLETE_MAX, "complete_round takes at most NB_COMPLETE_MAX requests");

enum { L_INTS, L_PAIRS, L_VECTOR, L_RESIZED, LAYOUTS };
static const char *const layout_name[LAYOUTS] = {"ints", "pairs", "vector", "resized pairs"};

/* the same on every rank for the same arguments (round, communicator, call, what is picked) */
static uint64_t key(int r, int c, int i, uint64_t what)
{
    return mix(seed ^ 0x1bca57ull ^ ((uint64_t)r << 40) ^ ((uint64_t)c << 32) ^ ((uint64_t)i << 8) ^ what);
}

/* One call: n ints of the message in `layout` (L_VECTOR, L_RESIZED: a gap int after each pair) */
typedef struct call {
    int c, i, root, n, layout;
    int *buf;
    size_t ints; /* of buf */
} call_t;

/* where the message's element j is in a buffer of this layout, and whether index x is a gap */
static size_t at(int layout, int j) { return layout >= L_VECTOR ? (size_t)(j / 2) * 3 + (size_t)(j % 2) : (size_t)j; }
static int gap(int layout, size_t x) { return layout >= L_VECTOR && x % 3 == 2; }
static int element(int r, int c, int i, int j) { return (int)val(r, 50 + c, i, j); }
static int sentinel(int r, size_t x) { return (int)(0x6d5a0000u ^ (unsigned)r ^ (unsigned)(x << 6)); }

/* Bytes of a call: mostly the ring (small), some banks (above 4 KiB), some above the window (the
 * MPI library's); the same on every rank; an even number of ints. */
static int pick_ints(uint64_t x)
{
    int kind = (int)(x % 10), bytes;
    if (kind < 6) bytes = 8 + (int)((x >> 8) % 512);
    else if (kind < 9) bytes = 4097 + (int)((x >> 8) % (uint64_t)(window - 4096));
    else bytes = window + 1 + (int)((x >> 8) % (uint64_t)window);
    return bytes / 8 * 2;
}

static long counted(void) { return acc("ibcast"); }
static long want; /* calls that must have been accelerated (nb_finish: the counter's total) */

/* Starts call k (its root's values, the others' garbage, gaps marked) and checks that the counter
 * moved by exactly what this call owes (active: comm has shared buffers). */
static void post(call_t *k, int r, MPI_Comm comm, int me, int active, MPI_Request *req)
{
    k->buf = malloc(sizeof(int) * (k->ints = at(k->layout, k->n - 1) + 2));
    for (size_t x = 0; x < k->ints; x++) k->buf[x] = sentinel(r, x);
    for (int j = 0; j < k->n; j++)
        k->buf[at(k->layout, j)] = me == k->root ? element(r, k->c, k->i, j) : element(r, k->c, k->i, j) ^ 0x2c2c;
    MPI_Datatype type = MPI_INT, pair;
    int count = k->n;
    if (k->layout != L_INTS) {
        MPI_Type_contiguous(2, MPI_INT, &pair);
        count = k->n / 2;
        if (k->layout == L_VECTOR) {
            MPI_Type_vector(count, 2, 3, MPI_INT, &type);
            count = 1;
        } else if (k->layout == L_RESIZED) {
            MPI_Type_create_resized(pair, 0, 3 * (MPI_Aint)sizeof(int), &type);
        } else {
            type = pair;
        }
        MPI_Type_commit(&type);
    }
    long before = counted();
    MPI_Ibcast(k->buf, count, type, k->root, comm, req);
    int owed = active && k->n * 4 <= window;
    want += owed;
    if (expect_accel || expect_none)
        CHECK(counted() - before == (expect_none ? 0 : owed), "round %d comm %d call %d (%d B, root %d, %s): "
              "counter moved by %ld, expected %d", r, k->c, k->i, k->n * 4, k->root, layout_name[k->layout],
              counted() - before, expect_none ? 0 : owed);
    if (k->layout != L_INTS) { /* the caller may free its handles once the call started */
        if (type != pair) MPI_Type_free(&type);
        MPI_Type_free(&pair);
    }
}

static void check(call_t *k, int r, const char *how)
{
    int bad_at = -1, gap_at = -1;
    for (int j = 0; j < k->n && bad_at < 0; j++)
        if (k->buf[at(k->layout, j)] != element(r, k->c, k->i, j)) bad_at = j;
    for (size_t x = 0; x < k->ints && gap_at < 0; x++)
        if ((gap(k->layout, x) || x == k->ints - 1) && k->buf[x] != sentinel(r, x)) gap_at = (int)x;
    CHECK(bad_at < 0, "round %d comm %d call %d (%d B, root %d, %s, %s): element %d wrong", r, k->c, k->i, k->n * 4,
          k->root, layout_name[k->layout], how, bad_at);
    CHECK(gap_at < 0, "round %d comm %d call %d (%d B, root %d, %s, %s): gap at int %d written", r, k->c, k->i,
          k->n * 4, k->root, layout_name[k->layout], how, gap_at);
    free(k->buf);
    k->buf = NULL;
}

/* More outstanding on one communicator than the ring holds (small) and than the banks do (8 KiB):
 * the roots' starts publish at later tests; completed all at once on even ranks, in reverse
 * order one by one on odd ones. */
static void deep(MPI_Comm comm, int c, int active, int n_small, int n_big)
{
    int me, csize, n = n_small + n_big;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &csize);
    call_t *k = calloc((size_t)n, sizeof *k);
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)n);
    for (int i = 0; i < n; i++) {
        k[i] = (call_t){.c = c, .i = i, .root = i % csize, .n = i < n_small ? 2 + 2 * (i % 16) : 2048,
                        .layout = (int)(key(1000, c, i, 1 + (uint64_t)wrank) % LAYOUTS)};
        post(&k[i], 1000, comm, me, active, &req[i]);
    }
    if (me % 2)
        for (int i = n - 1; i >= 0; i--) MPI_Wait(&req[i], MPI_STATUS_IGNORE);
    else
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < n; i++) check(&k[i], 1000, me % 2 ? "deep, wait in reverse" : "deep, waitall");
    free(k);
    free(req);
}

int main(int argc, char **argv)
{
    int wsize = nb_init(&argc, &argv, "mpi_nb_bcast");
    if (!wsize) return 2;
    long before = counted();

    MPI_Comm comm[NC];
    int active[NC], me[NC], csize[NC];
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[0]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &comm[1]);         /* ranks reversed */
    MPI_Comm_split(MPI_COMM_WORLD, 0, (wrank + 1) % wsize, &comm[2]);   /* rotated */
    for (int c = 0; c < NC; c++) {
        MPI_Barrier(comm[c]); /* its state: later non-blocking calls may run in the interposer */
        active[c] = nb_active(comm[c]);
        MPI_Comm_rank(comm[c], &me[c]);
        MPI_Comm_size(comm[c], &csize[c]);
    }
    int first_one_node = on_one_node(comm[0]) && wsize > 1;

    call_t calls[NC * MAX_PER];
    MPI_Request req[NC * MAX_PER + 2];
    for (int r = 0; r < rounds; r++) {
        int n = 0;
        for (int t = 0; t < NC; t++) {
            int c = (t + wrank + r) % NC; /* this rank's order of the communicators */
            int per = 2 * csize[c] < MAX_PER ? 2 * csize[c] : MAX_PER;
            for (int i = 0; i < per; i++, n++) {
                calls[n] = (call_t){.c = c, .i = i, .root = i % csize[c], .n = pick_ints(key(r, c, i, 0)),
                                    .layout = (int)(key(r, c, i, 1 + (uint64_t)wrank) % LAYOUTS)};
                post(&calls[n], r, comm[c], me[c], active[c], &req[n]);
            }
        }
        const char *how = complete_round(r, n, req);
        for (int i = 0; i < n; i++) check(&calls[i], r, how);
    }
    deep(comm[0], 0, active[0], 300, 6);
    deep(comm[1], 1, active[1], 20, 6);

    for (int c = 0; c < NC; c++) MPI_Comm_free(&comm[c]);
    static const char *const name[1] = {"ibcast"};
    return nb_finish("mpi_nb_bcast", 1, name, &before, &want, first_one_node);
}
