/* nodeshm.h: node-shared data.  Per-rank contributions (some empty) are visible to every rank of
 * the node at the addresses nodeshm_shared_ptr gives, and to nobody else; a replicated table
 * (one copy per node) is filled by one rank and read by all after nodeshm_shared_sync; and
 * sync orders writes in a loop where the writer changes every round. */
#include "nodeshm.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run(MPI_COMM_WORLD, "world");
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - wrank, &rev);
    run(rev, "reversed");
    MPI_Comm_free(&rev);
    run(MPI_COMM_SELF, "self");
    long f[2] = {failures, checks}, t[2];
    PMPI_Allreduce(f, t, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0) printf("mpi_shared: %s: %ld checks, %ld failed\n", t[0] ? "FAIL" : "PASS", t[1], t[0]);
    MPI_Finalize();
    return t[0] != 0;
}
