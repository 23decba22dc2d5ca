/* libnodeshm_mpi tests: what every test of intercepted collectives shares: random data that
 * keeps results exact, the datatype table, comparison with tolerance, and a main loop that runs
 * one test_comm function on every communicator shape (world, split by parity, dup, reversed
 * ranks, self, and many split/freed), then checks that the interposer did (--expect-accel) or
 * did not (--expect-none) run calls itself.  Each test program includes this once and calls
 * mpi_test_main. */
#ifndef NODESHM_TESTS_MPI_TEST_COMMON_H
#define NODESHM_TESTS_MPI_TEST_COMMON_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi_check.h"

static uint64_t stream;
static uint64_t rnd(void) { return mix(stream++); }
static double urand(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

enum kind { K_INT, K_UINT, K_FLOAT, K_PAIR_DI, K_PAIR_II };
typedef struct {
    MPI_Datatype type;
    const char *name;
    enum kind kind;
    size_t size; /* extent */
} tinfo_t;

typedef struct { double v; int i; } di_t;
typedef struct { int v; int i; } ii_t;

static tinfo_t __attribute__((unused)) types[] = {
    {MPI_INT, "int", K_INT, sizeof(int)},
    {MPI_SHORT, "short", K_INT, sizeof(short)},
    {MPI_LONG_LONG, "long long", K_INT, sizeof(long long)},
    {MPI_UNSIGNED_CHAR, "unsigned char", K_UINT, 1},
    {MPI_UINT64_T, "uint64_t", K_UINT, 8},
    {MPI_FLOAT, "float", K_FLOAT, sizeof(float)},
    {MPI_DOUBLE, "double", K_FLOAT, sizeof(double)},
    {MPI_DOUBLE_INT, "double_int", K_PAIR_DI, sizeof(di_t)},
    {MPI_2INT, "2int", K_PAIR_II, sizeof(ii_t)},
};
#define NTYPES (int)(sizeof types / sizeof *types)

static void set_int(void *p, const tinfo_t *t, long long v)
{
    switch (t->size) {
    case 1: *(unsigned char *)p = (unsigned char)v; break;
    case 2: *(short *)p = (short)v; break;
    case 4: *(int *)p = (int)v; break;
    default: *(long long *)p = v; break;
    }
}

/* Fills n elements for op: values that keep integer results exact and floats tame. */
static void __attribute__((unused)) fill(void *buf, const tinfo_t *t, int n, MPI_Op op)
{
    char *p = buf;
    for (int i = 0; i < n; i++, p += t->size) {
        switch (t->kind) {
        case K_INT:
        case K_UINT:
            if (op == MPI_PROD) set_int(p, t, t->kind == K_INT ? (long long)(rnd() % 3) - 1 : (long long)(rnd() % 2) + 1);
            else if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) set_int(p, t, (long long)(rnd() % 3 == 0 ? 0 : rnd() % 5));
            /* 1-byte sums stay below 256 for up to 16 ranks: Open MPI 5's own 8-bit sum
             * differs from MPI_Reduce_local's on overflow */
            else if (op == MPI_SUM && t->size == 1) set_int(p, t, (long long)(rnd() % 16));
            else if (op == MPI_SUM) set_int(p, t, (long long)(rnd() % 200) - (t->kind == K_INT ? 100 : 0));
            else set_int(p, t, (long long)rnd());
            break;
        case K_FLOAT: {
            double v = op == MPI_PROD ? 0.5 + urand() : 2 * urand() - 1;
            if (t->size == 4) *(float *)p = (float)v;
            else *(double *)p = v;
            break;
        }
        case K_PAIR_DI: {
            di_t x;
            memset(&x, 0, sizeof x);
            x.v = (double)(rnd() % 16); /* ties: the lower index must win */
            x.i = (int)(rnd() % 1000);
            memcpy(p, &x, sizeof x);
            break;
        }
        case K_PAIR_II: {
            ii_t x = {(int)(rnd() % 16), (int)(rnd() % 1000)};
            memcpy(p, &x, sizeof x);
            break;
        }
        }
    }
}

/* Element i of a and b agree: bitwise unless `tol` (floats, relative to `scale`). */
static int __attribute__((unused)) same(const void *a, const void *b, const tinfo_t *t, int n, double tol, int *where)
{
    const char *x = a, *y = b;
    for (int i = 0; i < n; i++, x += t->size, y += t->size) {
        int ok;
        if (t->kind == K_PAIR_DI) {
            di_t u, v;
            memcpy(&u, x, sizeof u);
            memcpy(&v, y, sizeof v);
            ok = u.v == v.v && u.i == v.i;
        } else if (t->kind == K_FLOAT && tol > 0) {
            double u = t->size == 4 ? *(const float *)x : *(const double *)x;
            double v = t->size == 4 ? *(const float *)y : *(const double *)y;
            ok = fabs(u - v) <= tol * (1 + fabs(v));
        } else {
            ok = memcmp(x, y, t->size) == 0;
        }
        if (!ok) {
            *where = i;
            return 0;
        }
    }
    return 1;
}

static int __attribute__((unused)) op_fits(MPI_Op op, enum kind k)
{
    if (k == K_PAIR_DI || k == K_PAIR_II) return op == MPI_MAXLOC || op == MPI_MINLOC;
    if (op == MPI_MAXLOC || op == MPI_MINLOC) return 0;
    if (k == K_FLOAT) return op == MPI_SUM || op == MPI_PROD || op == MPI_MAX || op == MPI_MIN;
    return 1;
}

/* Back-to-back loops: now and then one rank (a different one each time) arrives late, so the
 * others run ahead into the next calls while it still reads the previous one's buffers (the
 * interposer lets a rank write the next operation's buffers before its peers finished this one). */
static void __attribute__((unused)) straggle(MPI_Comm comm, int it)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (it % 3 == 0 && rank == (it / 3) % size) usleep(300 + (unsigned)(rnd() % 700));
}

/* Every predefined reduction op (op_fits says which types it takes) and its name. */
static const MPI_Op ops[] __attribute__((unused)) = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR,
                                                     MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_MAXLOC, MPI_MINLOC};
static const char *const opname[] __attribute__((unused)) = {"sum", "prod", "max", "min", "band", "bor", "bxor",
                                                             "land", "lor", "lxor", "maxloc", "minloc"};
#define NOPS (int)(sizeof ops / sizeof *ops)

/* Float sums and products: the MPI library picks the order, so results agree within this. */
static double __attribute__((unused)) tolerance(const tinfo_t *t, MPI_Op op, int size)
{
    if (t->kind == K_FLOAT && (op == MPI_SUM || op == MPI_PROD))
        return (t->size == 4 ? FLT_EPSILON : DBL_EPSILON) * 4 * size;
    return 0;
}

static const int counts[] __attribute__((unused)) = {0, 1, 3, 17, 1001, 4099, 30000};
#define NCOUNTS (int)(sizeof counts / sizeof *counts)


/* User-defined ops (handed to the MPI library by the interposer): int sum, and the sum of both
 * ints of MPI_2INT pairs. */
static void __attribute__((unused)) sum_ints(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static void __attribute__((unused)) sum_pairs(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < 2 * *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

/* Runs test_comm(comm, name) on every communicator shape; returns the exit status. */
static int mpi_test_main(int argc, char **argv, const char *prog,
                         void (*test_comm)(MPI_Comm comm, const char *cname))
{
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int expect = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--expect-accel")) expect = 1;
        else if (!strcmp(argv[i], "--expect-none")) expect = -1;
    }
    mpi_check_seed();
    if (wrank == 0) printf("%s: %d ranks, seed %llu\n", prog, size, (unsigned long long)seed);

    double t0 = MPI_Wtime();
    test_comm(MPI_COMM_WORLD, "world");
    MPI_Comm parity, dup, rev;
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &parity);
    test_comm(parity, "parity");
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    test_comm(dup, "dup");
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - wrank, &rev);
    test_comm(rev, "reversed");
    test_comm(MPI_COMM_SELF, "self");
    MPI_Comm_free(&parity);
    MPI_Comm_free(&dup);
    /* create, use and free many communicators: the state is freed with them */
    for (int i = 0; i < 40; i++) {
        MPI_Comm c;
        MPI_Comm_split(MPI_COMM_WORLD, (wrank + i) % 2, -wrank, &c);
        long one = 1, n;
        MPI_Allreduce(&one, &n, 1, MPI_LONG, MPI_SUM, c);
        int csize;
        MPI_Comm_size(c, &csize);
        CHECK(n == csize, "loop comm %d: %ld", i, n);
        MPI_Comm_free(&c);
    }
    /* rev stays alive: MPI_Finalize frees its state */

    long (*accel)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "nodeshm_mpi_accelerated");
    long n_accel = accel ? accel() : 0, max_accel;
    PMPI_Allreduce(&n_accel, &max_accel, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (expect == 1) CHECK(max_accel > 0 || size == 1, "the interposer accelerated no call");
    if (expect == -1) CHECK(max_accel == 0, "the interposer accelerated %ld calls", max_accel);

    long f[2] = {failures, checks}, tot[2];
    PMPI_Allreduce(f, tot, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("%s: %s: %ld checks, %ld failed, %ld calls accelerated on the busiest rank, %.2f s\n",
               prog, tot[0] ? "FAIL" : "PASS", tot[1], tot[0], max_accel, MPI_Wtime() - t0);
    return tot[0] ? 1 : 0;
}

#endif
