/* MPI tests: what every MPI test program shares: failure counting with located messages (CHECK,
 * on rank `wrank`), one job-wide random seed (rank 0's: the time, or NODESHM_TEST_SEED to replay)
 * and the splitmix64 mixer that turns it into values any rank can recompute; the most ranks of a
 * communicator on one (pseudo-)node, and whether all of them are. */
#ifndef NODESHM_TESTS_MPI_CHECK_H
#define NODESHM_TESTS_MPI_CHECK_H
#include "../src/core/coll/library_wins.h" /* a rule the tests restate: by path, every test sees it */

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long failures, checks;
static int wrank;
static uint64_t seed;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond) && failures++ < 10) {                                                          \
            char m_[512];                                                                          \
            int n_ = snprintf(m_, sizeof m_, "rank %d: %s:%d: check failed: %s: ", wrank,          \
                              __FILE__, __LINE__, #cond);                                          \
            if (n_ > 0 && n_ < (int)sizeof m_) snprintf(m_ + n_, sizeof m_ - (size_t)n_, __VA_ARGS__); \
            fprintf(stderr, "%s\n", m_);                                                           \
        }                                                                                          \
    } while (0)

static uint64_t __attribute__((unused)) mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Collective over MPI_COMM_WORLD (through PMPI: no interposer in the way): sets seed. */
static void __attribute__((unused)) mpi_check_seed(void)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    const char *s = getenv("NODESHM_TEST_SEED");
    seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    PMPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
}
/* The most ranks of comm on one node (or pseudo-node: NODESHM_PES_PER_NODE), as the interposer
 * counts them, computed here independently. */
static int __attribute__((unused)) fullest_node(MPI_Comm comm)
{
    MPI_Comm physical;
    int rank, local, n;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &physical);
    PMPI_Comm_rank(physical, &local);
    PMPI_Comm_size(physical, &n);
    const char *ppn_env = getenv("NODESHM_PES_PER_NODE");
    int ppn = ppn_env ? atoi(ppn_env) : 0;
    if (ppn > 0) { /* my pseudo-node: local / ppn, holding the rest of the physical node last */
        int first = local / ppn * ppn;
        n = n - first < ppn ? n - first : ppn;
    }
    PMPI_Comm_free(&physical);
    int most;
    PMPI_Allreduce(&n, &most, 1, MPI_INT, MPI_MAX, comm);
    return most;
}
/* Whether comm lies on one (pseudo-)node, as the interposer sees it. */
static int __attribute__((unused)) on_one_node(MPI_Comm comm)
{
    int size;
    PMPI_Comm_size(comm, &size);
    return fullest_node(comm) == size;
}

/* The hosts comm spans, as MPI sees them (emulated hosts: oshrun --hosts), or 0 between
 * pseudo-nodes (NODESHM_PES_PER_NODE), where no op goes to the library for its network path. */
static int __attribute__((unused)) comm_hosts(MPI_Comm comm)
{
    const char *ppn_env = getenv("NODESHM_PES_PER_NODE");
    if (ppn_env && atoi(ppn_env) > 0) return 0;
    MPI_Comm physical;
    int rank, local, hosts;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &physical);
    PMPI_Comm_rank(physical, &local);
    PMPI_Comm_free(&physical);
    int first = local == 0;
    PMPI_Allreduce(&first, &hosts, 1, MPI_INT, MPI_SUM, comm);
    return hosts;
}
/* Whether an alltoall (blocking or not) of `block` bytes per pair over n ranks on `hosts` hosts
 * (comm_hosts) is MPICH's own by design: its inject band (core/coll/library_wins.h). */
static int __attribute__((unused)) library_alltoall(int n, int hosts, size_t block)
{
    return hosts > 1 && nodeshm_nodes_alltoall_by_library(n, hosts, block);
}

/* A call's command-line spec "op:bytes[:lib]", split in place in spec[] (a copy of arg): *op,
 * *bytes_text, and *want (0 with ":lib": the MPI library's, else accelerated).  0 and a failed
 * check when arg has no ':'. */
static int __attribute__((unused)) call_spec(const char *arg, char spec[128], char **op, char **bytes_text,
                                             int *want)
{
    snprintf(spec, 128, "%s", arg);
    *op = spec;
    char *colon = strchr(spec, ':');
    CHECK(colon != NULL, "bad argument '%s' (op:bytes[:lib])", arg);
    if (!colon) return 0;
    *colon++ = '\0';
    *bytes_text = colon;
    char *lib = strchr(colon, ':');
    if (lib) *lib++ = '\0';
    *want = !(lib && !strcmp(lib, "lib"));
    return 1;
}

#endif
