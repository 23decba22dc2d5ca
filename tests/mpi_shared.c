/* nodeshm.h: node-shared data.  Per-rank contributions (some empty) are visible to every rank of
 * the node at the addresses nodeshm_shared_ptr gives, and to nobody else; a replicated table
 * (one copy per node) is filled by one rank and read by all after nodeshm_shared_sync; and
 * sync orders writes in a loop where the writer changes every round; the producer/consumer
 * signals (publish / wait / release) order fresh random data between writers and readers. */
#include "nodeshm.h"

#include <mpi.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long failures, checks;
static int wrank;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond) && failures++ < 10) {                                                          \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", wrank, __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static size_t bytes_of(int r) { return r % 3 == 2 ? 0 : (size_t)(r + 1) * 1000 + 8; }
static unsigned char byte_of(int r, size_t i, int round) { return (unsigned char)(r * 31 + i * 7 + round); }

static void run(MPI_Comm comm, const char *name)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    nodeshm_shared_t h;
    CHECK(nodeshm_shared_alloc(comm, bytes_of(rank), &h) == MPI_SUCCESS, "%s: alloc", name);
    int node_rank, node_size, n_nodes, node;
    nodeshm_shared_node_info(h, &node_rank, &node_size, &n_nodes, &node);
    size_t mine_bytes;
    unsigned char *mine = nodeshm_shared_ptr(h, rank, &mine_bytes);
    CHECK(mine_bytes == bytes_of(rank) && (mine != NULL) == (bytes_of(rank) > 0), "%s: my own part", name);
    for (size_t i = 0; i < mine_bytes; i++) mine[i] = byte_of(rank, i, 0);
    nodeshm_shared_sync(h);
    /* the node's ranks, from MPI: who must be visible */
    int *nodes = malloc(sizeof(int) * (size_t)size);
    PMPI_Allgather(&node, 1, MPI_INT, nodes, 1, MPI_INT, comm);
    size_t node_total = 0, got_total;
    int seen = 0;
    for (int r = 0; r < size; r++) {
        size_t b;
        unsigned char *p = nodeshm_shared_ptr(h, r, &b);
        if (nodes[r] != node) {
            CHECK(p == NULL, "%s: rank %d of another node is mapped", name, r);
            continue;
        }
        seen++;
        node_total += bytes_of(r);
        CHECK(b == bytes_of(r), "%s: rank %d has %zu bytes", name, r, b);
        int ok = 1;
        for (size_t i = 0; p && i < b; i++) ok &= p[i] == byte_of(r, i, 0);
        CHECK(ok, "%s: rank %d's bytes", name, r);
    }
    CHECK(seen == node_size, "%s: %d ranks on my node, info says %d", name, seen, node_size);
    nodeshm_shared_node_base(h, &got_total);
    CHECK(got_total == node_total, "%s: node region %zu bytes, expected %zu", name, got_total, node_total);
    int leaders = node_rank == 0, n_leaders;
    PMPI_Allreduce(&leaders, &n_leaders, 1, MPI_INT, MPI_SUM, comm);
    CHECK(n_nodes == n_leaders, "%s: %d nodes, expected %d", name, n_nodes, n_leaders);
    nodeshm_shared_sync(h);
    nodeshm_shared_free(&h);
    CHECK(h == NULL, "%s: free", name);

    /* replicated: one copy per node, the writer changes every round */
    size_t n = 4096;
    CHECK(nodeshm_shared_alloc(comm, node_rank == 0 ? n * sizeof(long) : 0, &h) == MPI_SUCCESS, "%s: alloc", name);
    size_t tb;
    long *table = nodeshm_shared_node_base(h, &tb);
    CHECK(table && tb == n * sizeof(long), "%s: table %p of %zu bytes", name, (void *)table, tb);
    for (int round = 0; round < 200 && table; round++) {
        if (round % node_size == node_rank)
            for (size_t i = 0; i < n; i++) table[i] = round * 100000L + (long)i + node;
        nodeshm_shared_sync(h);
        int ok = 1;
        for (size_t i = 0; i < n; i++) ok &= table[i] == round * 100000L + (long)i + node;
        CHECK(ok, "%s: round %d: the table is not what rank %d wrote", name, round, round % node_size);
        nodeshm_shared_sync(h);
    }
    nodeshm_shared_free(&h);
    free(nodes);
}

/* producer/consumer signals: the reader of epoch e is node rank e % node_size; every rank writes
 * fresh random values into a ring of 2 buffers, publishes, and before overwriting a buffer waits
 * for that buffer's reader to release it.  The reader waits for all and checks every value; a
 * rank also waits for one neighbour's publication and checks it.  Then the error paths. */
static uint64_t seed;
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static uint64_t rval(int r, uint64_t e, size_t i) { return mix(seed ^ mix(((uint64_t)r << 44) ^ (e << 24) ^ i)); }

static void run_signals(MPI_Comm comm, const char *name)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const size_t n = 1000 + (size_t)(seed % 1000); /* words per buffer */
    nodeshm_shared_t h;
    CHECK(nodeshm_shared_alloc(comm, 2 * n * sizeof(uint64_t), &h) == MPI_SUCCESS, "%s: alloc", name);
    int node_rank, node_size;
    nodeshm_shared_node_info(h, &node_rank, &node_size, NULL, NULL);
    int *members = malloc(sizeof(int) * (size_t)node_size); /* comm rank of each node rank */
    for (int r = 0, k = 0; r < size; r++)
        if (nodeshm_shared_ptr(h, r, NULL)) members[k++] = r;
    uint64_t *mine = nodeshm_shared_ptr(h, rank, NULL);
    const uint64_t epochs = 60;
    long bad = 0;
    for (uint64_t e = 1; e <= epochs; e++) {
        int reader = members[e % (uint64_t)node_size];
        uint64_t *buf = mine + (e & 1) * n;
        if (e > 2) { /* buffer e & 1 was read by epoch e-2's reader and by my left neighbour */
            CHECK(nodeshm_shared_wait_released(h, members[(e - 2) % (uint64_t)node_size], e - 2) == MPI_SUCCESS,
                  "%s: wait_released", name);
            CHECK(nodeshm_shared_wait_released(h, members[(node_rank + node_size - 1) % node_size], e - 2) ==
                      MPI_SUCCESS, "%s: wait_released", name);
        }
        for (size_t i = 0; i < n; i++) buf[i] = rval(rank, e, i);
        CHECK(nodeshm_shared_publish(h, e) == MPI_SUCCESS, "%s: publish %llu", name, (unsigned long long)e);
        int next = members[(node_rank + 1) % node_size]; /* one neighbour, alone */
        if (e & 1) { /* odd epochs: poll with nodeshm_shared_test instead of waiting */
            int ready = 0;
            while (!ready) {
                CHECK(nodeshm_shared_test(h, next, e, &ready) == MPI_SUCCESS, "%s: test", name);
                if (!ready) sched_yield();
            }
        } else {
            CHECK(nodeshm_shared_wait(h, next, e) == MPI_SUCCESS, "%s: wait", name);
        }
        if (next != rank) { /* next cannot publish e + 2 before I release e */
            int ahead = -1;
            CHECK(nodeshm_shared_test(h, next, e + 2, &ahead) == MPI_SUCCESS && ahead == 0,
                  "%s: test of epoch %llu of rank %d said %d before it could be published", name,
                  (unsigned long long)e + 2, next, ahead);
        }
        const uint64_t *nb = (const uint64_t *)nodeshm_shared_ptr(h, next, NULL) + (e & 1) * n;
        bad += nb[0] != rval(next, e, 0) || nb[n - 1] != rval(next, e, n - 1);
        if (rank == reader) {
            CHECK(nodeshm_shared_wait(h, NODESHM_ALL_RANKS, e) == MPI_SUCCESS, "%s: wait all", name);
            for (int k = 0; k < node_size; k++) {
                const uint64_t *p = (const uint64_t *)nodeshm_shared_ptr(h, members[k], NULL) + (e & 1) * n;
                for (size_t i = 0; i < n; i++) bad += p[i] != rval(members[k], e, i);
            }
        }
        /* everybody releases (the reader after reading, the others for their neighbour read):
         * the writer of buffer e waits for the reader's release only */
        CHECK(nodeshm_shared_release(h, e) == MPI_SUCCESS, "%s: release", name);
    }
    CHECK(bad == 0, "%s: %ld values wrong after publish/wait", name, bad);
    /* a writer may overwrite its buffer once its neighbour released too: wait for all */
    CHECK(nodeshm_shared_wait_released(h, NODESHM_ALL_RANKS, epochs) == MPI_SUCCESS, "%s: wait_released all", name);
    /* error paths: an epoch that does not grow, a rank off this node or out of range */
    CHECK(nodeshm_shared_publish(h, epochs) == MPI_ERR_ARG, "%s: publish of an old epoch", name);
    CHECK(nodeshm_shared_release(h, 0) == MPI_ERR_ARG, "%s: release of epoch 0", name);
    CHECK(nodeshm_shared_wait(h, size, 1) == MPI_ERR_RANK, "%s: wait for rank %d", name, size);
    int flag = -1;
    CHECK(nodeshm_shared_test(h, size, 1, &flag) == MPI_ERR_RANK && flag == 0, "%s: test of rank %d", name, size);
    for (int r = 0; r < size; r++)
        if (!nodeshm_shared_ptr(h, r, NULL) && !(r == rank)) {
            CHECK(nodeshm_shared_wait(h, r, 1) == MPI_ERR_RANK, "%s: wait for rank %d of another node", name, r);
            CHECK(nodeshm_shared_test(h, r, 1, &flag) == MPI_ERR_RANK, "%s: test of rank %d of another node", name, r);
            break;
        }
    PMPI_Barrier(comm);
    nodeshm_shared_free(&h);
    free(members);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (wrank == 0) {
        const char *env = getenv("NODESHM_TEST_SEED");
        seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
        printf("seed %llu (replay with NODESHM_TEST_SEED=%llu)\n", (unsigned long long)seed, (unsigned long long)seed);
        fflush(stdout);
    }
    PMPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    run(MPI_COMM_WORLD, "world");
    run_signals(MPI_COMM_WORLD, "signals world");
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - wrank, &rev);
    run(rev, "reversed");
    run_signals(rev, "signals reversed");
    MPI_Comm_free(&rev);
    run(MPI_COMM_SELF, "self");
    run_signals(MPI_COMM_SELF, "signals self");
    long f[2] = {failures, checks}, t[2];
    PMPI_Allreduce(f, t, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0) printf("mpi_shared: %s: %ld checks, %ld failed\n", t[0] ? "FAIL" : "PASS", t[1], t[0]);
    MPI_Finalize();
    return t[0] != 0;
}
