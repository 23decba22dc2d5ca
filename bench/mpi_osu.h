/* bench/mpi_osu: what its rows (mpi_osu_rows.c: one function per operation, the table) and its
 * measuring program (mpi_osu.c) share. */
#ifndef NODESHM_BENCH_MPI_OSU_H
#define NODESHM_BENCH_MPI_OSU_H
#include "nsm_bigcount_config.h" /* NSM_IF_C_<Name>(...), NSM_HAVE_MPI_<OP>_INIT */

#include <mpi.h>

typedef struct bufs {
    void *send, *recv;        /* size * max_bytes each */
    int *counts, *displs;     /* [size]: v-variants, bytes per rank */
    MPI_Count *ccounts;       /* [size]: the same for the _c rows */
    MPI_Aint *cdispls;
    int rank, size;
} bufs_t;

/* A call's form: by the interposer (MPI_*: libnodeshm_mpi is linked) or with OSU_LIB by the MPI
 * library (PMPI_*); with OSU_C through the MPI-4 large-count entry (MPI_<Op>_c). */
enum { OSU_LIB = 1, OSU_C = 2 };

/* One call of an op over `bytes` (per rank or per pair, as OSU counts) in `form`. */
typedef void (*op_fn)(int form, bufs_t *b, int bytes, MPI_Comm comm);

typedef struct op_desc {
    const char *name;
    op_fn fn;
    int sized;     /* 0: barrier */
    int min_bytes; /* 8 (8 per rank) for the rows on doubles: their check fills doubles */
    int overlap;   /* computes osu_overlap_ns per call between start and wait */
    int rooted;    /* takes -R's root */
    int form;      /* OSU_C: the row's _c twin (same function, right after it in the table) */
} op_desc_t;

extern const op_desc_t osu_ops[];
extern const int osu_nops;
extern int osu_root;          /* -R */
extern long osu_overlap_ns;   /* -c */
void osu_compute(long ns);    /* ns of this thread's CPU time */
void osu_persist_free(int lib); /* the persistent rows' request of a column, if any */

/* One call in `form` (f): PMPI_ with OSU_LIB, the _c entry with OSU_C.  The _c branch is
 * compiled only where mpi.h has MPI_<Name>_c (nsm_bigcount_config.h), and the table has a _c
 * row only there.  pa: the plain entry's arguments, ca: the _c entry's (the v-forms' count and
 * displacement arrays have other types); OSU_CALL: the same arguments for both. */
#define OSU_CALL2(f, Name, pa, ca)                                                                 \
    do {                                                                                           \
        if ((f) & OSU_C) {                                                                         \
            NSM_IF_C_##Name(if ((f) & OSU_LIB) PMPI_##Name##_c ca; else MPI_##Name##_c ca;)       \
        } else if ((f) & OSU_LIB)                                                                  \
            PMPI_##Name pa;                                                                        \
        else                                                                                       \
            MPI_##Name pa;                                                                         \
    } while (0)
#define OSU_CALL(f, Name, ...) OSU_CALL2(f, Name, (__VA_ARGS__), (__VA_ARGS__))

#endif
