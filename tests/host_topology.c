/* Emulated hosts (oshrun --hosts K, tests/hosts.cmake): usage host_topology K.
 * Passes only if the job really spans K nodes for MPI and for nodeshm:
 *  - MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) makes K groups, and MPI_Get_processor_name
 *    gives K distinct names, one per group;
 *  - shmemx_n_nodes() == K and shmemx_node_n_pes() == the size of the PE's MPI group, and
 *    PEs are spread evenly (group sizes differ by at most one);
 *  - each node's /dev/shm is its own: a file the node's first PE creates is seen by exactly
 *    the PEs of that node;
 *  - puts, a fetch-add and a broadcast across nodes deliver the right data.
 * Run without --hosts (one node) it fails, which tests/hosts.cmake checks too. */
#include <shmem.h>
#include <shmemx.h>
#include <mpi.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long g_from_left = -1;
static long g_count;
static long g_bcast[4], g_bsrc[4];

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fprintf(stderr, "host_topology: PE %d: FAIL: ", me);          \
            fprintf(stderr, __VA_ARGS__);                                 \
            fputc('\n', stderr);                                          \
            fails++;                                                      \
        }                                                                 \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: host_topology K\n");
        return 2;
    }
    const int want = atoi(argv[1]);
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    int fails = 0;

    /* MPI's view: node groups, their sizes and names */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nrank, nsize;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    int leader = nrank == 0, mpi_nodes, min_size, max_size;
    MPI_Allreduce(&leader, &mpi_nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&nsize, &min_size, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&nsize, &max_size, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(mpi_nodes == want, "MPI_Comm_split_type(SHARED) gives %d nodes, want %d", mpi_nodes, want);
    CHECK(max_size - min_size <= 1, "node sizes %d..%d are not even", min_size, max_size);

    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    MPI_Get_processor_name(name, &len);
    char *names = calloc((size_t)npes, sizeof name);
    if (!names) shmem_global_exit(1);
    MPI_Allgather(name, (int)sizeof name, MPI_CHAR, names, (int)sizeof name, MPI_CHAR,
                  MPI_COMM_WORLD);
    /* my node's leader, in world ranks, to tell same-node peers from others */
    int my_leader = me, *leaders = malloc((size_t)npes * sizeof *leaders);
    if (!leaders) shmem_global_exit(1);
    MPI_Bcast(&my_leader, 1, MPI_INT, 0, node);
    MPI_Allgather(&my_leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
    int distinct = 0;
    for (int i = 0; i < npes; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++) seen |= !strcmp(names + (size_t)i * sizeof name,
                                                    names + (size_t)j * sizeof name);
        distinct += !seen;
        int same_name = !strcmp(name, names + (size_t)i * sizeof name);
        CHECK(same_name == (leaders[i] == my_leader),
              "PE %d (%s) and I (%s): names %s but nodes %s", i, names + (size_t)i * sizeof name,
              name, same_name ? "equal" : "differ", leaders[i] == my_leader ? "equal" : "differ");
    }
    CHECK(distinct == want, "MPI_Get_processor_name gives %d distinct names, want %d", distinct, want);

    /* nodeshm's view */
    CHECK(shmemx_n_nodes() == want, "shmemx_n_nodes() = %d, want %d", shmemx_n_nodes(), want);
    CHECK(shmemx_node_n_pes() == nsize, "shmemx_node_n_pes() = %d, MPI node size %d",
          shmemx_node_n_pes(), nsize);
    CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) == nsize, "SHMEM_TEAM_SHARED has %d PEs, want %d",
          shmem_team_n_pes(SHMEM_TEAM_SHARED), nsize);

    /* a private /dev/shm per node: each leader creates a file named after itself */
    char path[64];
    snprintf(path, sizeof path, "/dev/shm/host_topology.%d", my_leader);
    if (nrank == 0) {
        int fd = open(path, O_CREAT | O_WRONLY, 0600);
        CHECK(fd >= 0, "cannot create %s", path);
        if (fd >= 0) close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < npes; i++) {
        if (leaders[i] != i) continue;
        snprintf(path, sizeof path, "/dev/shm/host_topology.%d", i);
        int seen = access(path, F_OK) == 0;
        CHECK(seen == (i == my_leader), "/dev/shm/host_topology.%d (node of PE %d) %s here", i,
              i, seen ? "is seen" : "is missing");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (nrank == 0) {
        snprintf(path, sizeof path, "/dev/shm/host_topology.%d", my_leader);
        unlink(path);
    }

    /* data across nodes */
    shmem_long_p(&g_from_left, me, (me + 1) % npes);
    shmem_long_atomic_add(&g_count, me + 1, npes - 1);
    if (me == 0)
        for (int i = 0; i < 4; i++) g_bsrc[i] = g_bcast[i] = 1000 + i;
    shmem_barrier_all();
    shmem_long_broadcast(SHMEM_TEAM_WORLD, g_bcast, g_bsrc, 4, 0);
    CHECK(g_from_left == (me + npes - 1) % npes, "put from the left: %ld", g_from_left);
    if (me == npes - 1)
        CHECK(g_count == (long)npes * (npes + 1) / 2, "fetch-add total %ld", g_count);
    for (int i = 0; i < 4; i++) CHECK(g_bcast[i] == 1000 + i, "broadcast[%d] = %ld", i, g_bcast[i]);

    int all_fails;
    MPI_Allreduce(&fails, &all_fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (nrank == 0)
        printf("host_topology: PE %d on %s: MPI nodes %d, nodeshm nodes %d, node PEs %d\n", me,
               name, mpi_nodes, shmemx_n_nodes(), shmemx_node_n_pes());
    if (me == 0) printf("host_topology: %s\n", all_fails ? "FAIL" : "PASS");
    free(names);
    free(leaders);
    MPI_Comm_free(&node);
    shmem_finalize();
    return all_fails != 0;
}
