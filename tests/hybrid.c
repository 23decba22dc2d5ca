/* MPI and OpenSHMEM in one program: the program starts MPI itself, then shmem_init; MPI
 * collectives and point-to-point mix with shmem puts, atomics and barriers on the symmetric
 * heap and global variables; shmem_finalize leaves MPI up for more MPI calls; the program ends
 * with MPI_Finalize.
 *
 * Checks: MPI rank == shmem_my_pe and sizes agree; a wildcard MPI_Irecv posted before the shmem
 * traffic matches only the program's own message; shmem data verified with MPI reductions and
 * MPI data used as shmem operands; after shmem_finalize, MPI still works (Allreduce, Sendrecv,
 * a communicator split) and shmem_finalize did not finalize MPI.  --thread-multiple: MPI starts
 * at MPI_THREAD_MULTIPLE. */
#include "common.h"

#include <mpi.h>
#include <shmem.h>
#include <stdint.h>
#include <string.h>

#define N 64
static long g_block[N];
static long g_counter;
static uint64_t g_fetched[4096];

static int me, npes;
/* the program's own point-to-point traffic; MPI_COMM_WORLD is left to the wildcard receive */
static MPI_Comm app_comm;

static long val(int pe, int k, int i) { return (long)(test_value(pe, k, (uint64_t)i) % 1000003); }

/* One round of mixing on symmetric `block`/`counter` (heap or global). */
static void round_trip(long *block, long *counter, uint64_t *fetched, const char *where, int k)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long src[N], buf[N];

    /* shmem put to the right; MPI_Allreduce checks the sum of what everyone received */
    for (int i = 0; i < N; i++) src[i] = val(me, k, i);
    shmem_long_put(block, src, N, right);
    shmem_barrier_all();
    long local = 0, want_local = 0, sum = 0, want_sum = 0;
    for (int i = 0; i < N; i++) {
        local += block[i];
        want_local += val(left, k, i);
    }
    CHECK(local == want_local, "%s: shmem_put from PE %d: block sums to %ld, expected %ld", where,
          left, local, want_local);
    MPI_Allreduce(&local, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int p = 0; p < npes; p++)
        for (int i = 0; i < N; i++) want_sum += val(p, k, i);
    CHECK(sum == want_sum, "%s: MPI_Allreduce of shmem-received data: %ld, expected %ld", where,
          sum, want_sum);

    /* MPI_Sendrecv to the left; the received data becomes a shmem put back to the sender */
    MPI_Sendrecv(block, N, MPI_LONG, left, 7, buf, N, MPI_LONG, right, 7, app_comm,
                 MPI_STATUS_IGNORE);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += buf[i] != val(me, k, i); /* right got mine, sent it back */
    CHECK(bad == 0, "%s: MPI_Sendrecv returned %d wrong words of this PE's own data", where, bad);
    for (int i = 0; i < N; i++) buf[i] = buf[i] * 3 + 1;
    shmem_barrier_all(); /* everyone has sent its block before it is overwritten */
    shmem_long_put(block, buf, N, me);
    shmem_quiet();
    MPI_Barrier(MPI_COMM_WORLD); /* quiet, then an MPI barrier, orders it for a shmem_g */
    bad = 0;
    for (int i = 0; i < N; i++) bad += shmem_long_g(&block[i], right) != val(right, k, i) * 3 + 1;
    CHECK(bad == 0, "%s: shmem_g after quiet + MPI_Barrier: %d wrong words at PE %d", where, bad,
          right);

    /* atomics: operands from an MPI_Allreduce; fetched values checked with an MPI_Allgather */
    long mine = val(me, k, 1000), total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    *counter = 0;
    shmem_barrier_all();
    uint64_t got = (uint64_t)shmem_long_atomic_fetch_add(counter, total % 1000 + 1, 0);
    shmem_long_atomic_add(counter, mine, npes - 1);
    shmem_barrier_all();
    MPI_Allgather(&got, 1, MPI_UINT64_T, fetched, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    uint64_t step = (uint64_t)(total % 1000 + 1);
    int seen[4096] = {0}, dup = 0;
    for (int p = 0; p < npes; p++) {
        uint64_t idx = fetched[p] / step;
        if (fetched[p] % step || idx >= (uint64_t)npes || seen[idx]++) dup++;
    }
    CHECK(dup == 0, "%s: fetch_add results gathered by MPI are not {0, %llu, ...}: %d bad", where,
          (unsigned long long)step, dup);
    long want0 = (long)(step * (uint64_t)npes) + (npes == 1 ? total : 0);
    if (me == 0) CHECK(*counter == want0, "%s: counter on PE 0 is %ld, expected %ld", where, *counter, want0);
    if (me == npes - 1 && npes > 1)
        CHECK(*counter == total, "%s: counter on PE %d is %ld, expected the MPI sum %ld", where, me,
              *counter, total);
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    int provided = -1, flag = 0, multiple = 0;
    for (int i = 1; i < argc; i++) multiple |= !strcmp(argv[i], "--thread-multiple");
    /* --thread-multiple: MPI up at MPI_THREAD_MULTIPLE before shmem_init (Open MPI 4.x cannot
     * give windows between nodes at that level: shmem_init must say so and stop, amo_sync.cmake) */
    if (multiple) MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm_dup(MPI_COMM_WORLD, &app_comm);
    /* a wildcard receive on MPI_COMM_WORLD posted before shmem starts: whatever traffic shmem
     * has of its own must not match it */
    long user_msg = -1;
    MPI_Request req = MPI_REQUEST_NULL;
    if (size > 1 && rank == 0) MPI_Irecv(&user_msg, 1, MPI_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    MPI_Query_thread(&provided);
    CHECK(me == rank && npes == size, "shmem PE %d of %d, MPI rank %d of %d", me, npes, rank, size);
    CHECK(npes <= 4096, "too many PEs for this test: %d", npes);
    test_seed();

    long *h_block = shmem_malloc(N * sizeof(long));
    long *h_counter = shmem_malloc(sizeof(long));
    uint64_t *h_fetched = shmem_malloc(4096 * sizeof(uint64_t));
    if (!h_block || !h_counter || !h_fetched) shmem_global_exit(1);
    for (int r = 0; r < 4; r++) {
        round_trip(h_block, h_counter, h_fetched, "heap", 10 * r + 1);
        round_trip(g_block, &g_counter, g_fetched, "global", 10 * r + 2);
    }

    /* the user's message arrives only now; the wildcard receive must get exactly it */
    if (size > 1) {
        if (rank == size - 1) {
            long msg = 4242 + (long)(test_value(0, 99, 0) % 1000);
            MPI_Send(&msg, 1, MPI_LONG, 0, 42, MPI_COMM_WORLD);
        }
        if (rank == 0) {
            MPI_Status st;
            MPI_Wait(&req, &st);
            long want = 4242 + (long)(test_value(0, 99, 0) % 1000);
            CHECK(user_msg == want && st.MPI_SOURCE == size - 1 && st.MPI_TAG == 42,
                  "wildcard MPI_Irecv got %ld from rank %d tag %d, expected %ld from %d tag 42",
                  user_msg, st.MPI_SOURCE, st.MPI_TAG, want, size - 1);
        }
    }

    shmem_free(h_fetched);
    shmem_free(h_counter);
    shmem_free(h_block);
    int rc = test_finish("hybrid");
    shmem_finalize();

    /* MPI after shmem_finalize */
    MPI_Finalized(&flag);
    CHECK(!flag, "shmem_finalize finalized MPI, which the program started");
    MPI_Initialized(&flag);
    CHECK(flag, "MPI not initialized after shmem_finalize");
    long one = rank + 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == (long)size * (size + 1) / 2, "MPI_Allreduce after shmem_finalize: %ld", sum);
    long out = (long)(test_value(rank, 77, 0) >> 2), in = -1;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Sendrecv(&out, 1, MPI_LONG, right, 3, &in, 1, MPI_LONG, left, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    CHECK(in == (long)(test_value(left, 77, 0) >> 2), "MPI_Sendrecv after shmem_finalize: got %ld", in);
    MPI_Comm half;
    MPI_Comm_split(app_comm, rank % 2, rank, &half);
    int hsize = 0;
    MPI_Comm_size(half, &hsize);
    CHECK(hsize == (size + (rank % 2 ? 0 : 1)) / 2, "MPI_Comm_split after shmem_finalize: size %d", hsize);
    MPI_Comm_free(&half);
    MPI_Comm_free(&app_comm);

    long fails = test_failures, all_fails = 0, checks = test_checks, all_checks = 0;
    MPI_Allreduce(&fails, &all_fails, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&checks, &all_checks, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("hybrid after shmem_finalize: %ld checks in all, %ld failed\n", all_checks, all_fails);
    MPI_Finalize();
    return rc || all_fails != 0;
}
