/* nodeshm core: node and pseudo-node discovery.  Compiled into libnodeshm_mpi too (the
 * interposer's node split): it needs only MPI, libc and core/env.c, not the OpenSHMEM runtime. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "core/topology.h"
#include "core/env.h"
#include "core/status.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nodeshm_topology_split_node(MPI_Comm comm, long per_node, MPI_Comm *node, int *physical_size)
{
    MPI_Comm physical;
    int rank, local, size, rc;
    *node = MPI_COMM_NULL;
    PMPI_Comm_rank(comm, &rank);
    rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &physical);
    if (rc != MPI_SUCCESS) return rc;
    PMPI_Comm_size(physical, &size);
    PMPI_Comm_rank(physical, &local);
    if (physical_size) *physical_size = size;
    if (per_node <= 0) {
        *node = physical;
        return MPI_SUCCESS;
    }
    rc = PMPI_Comm_split(physical, (int)(local / per_node), local, node);
    if (rc != MPI_SUCCESS) *node = MPI_COMM_NULL;
    PMPI_Comm_free(&physical);
    return rc;
}

/* Reported here, not by core/status.c, which needs the OpenSHMEM runtime. */
__attribute__((format(printf, 3, 4)))
static int fail(const nodeshm_topology_t *t, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nodeshm_vmessage(&nodeshm_face_shmem, t->my_pe, "shmem_init", fmt, ap);
    va_end(ap);
    return status;
}

#define BOOT_ID_LEN 40 /* 36 characters, newline, NUL */

/* The ranks of comm on this machine: those with my kernel boot id.  A node (MPI_COMM_TYPE_SHARED)
 * may be less: emulated hosts (oshrun --hosts) are namespaces of one machine, each its own node
 * to MPI, yet they share its CPUs, and 2 hosts x 2 PEs on 2 cores are oversubscribed.  Without a
 * readable boot id, the node. */
static void machine_split(MPI_Comm comm, MPI_Comm *machine)
{
    char id[BOOT_ID_LEN] = {0};
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    int ok = f && fgets(id, sizeof id, f) != NULL && id[0] != '\0';
    if (f) fclose(f);
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    char *ids = all_ok ? malloc((size_t)size * BOOT_ID_LEN) : NULL;
    int found = ids != NULL, all_found = 0;
    PMPI_Allreduce(&found, &all_found, 1, MPI_INT, MPI_LAND, comm);
    if (!all_found) {
        free(ids);
        PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, machine);
        return;
    }
    PMPI_Allgather(id, BOOT_ID_LEN, MPI_CHAR, ids, BOOT_ID_LEN, MPI_CHAR, comm);
    int color = 0; /* the first rank with my boot id */
    while (memcmp(ids + (size_t)color * BOOT_ID_LEN, id, BOOT_ID_LEN) != 0) color++;
    free(ids);
    PMPI_Comm_split(comm, color, rank, machine);
}

void nodeshm_topology_machine(MPI_Comm comm, int *ranks, int *cpus)
{
    /* CPUs the ranks of this machine may use together: the union of their affinity masks (one
     * rank bound to each core is not oversubscription) */
    cpu_set_t set, all;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) CPU_SET(0, &set);
    MPI_Comm machine;
    machine_split(comm, &machine);
    PMPI_Comm_size(machine, ranks);
    PMPI_Allreduce(&set, &all, (int)(sizeof set / sizeof(unsigned long)), MPI_UNSIGNED_LONG, MPI_BOR, machine);
    PMPI_Comm_free(&machine);
    *cpus = CPU_COUNT(&all);
}

int nodeshm_topology_create(MPI_Comm parent, nodeshm_topology_t *t)
{
    memset(t, 0, sizeof *t);
    MPI_Comm_dup(parent, &t->world);
    MPI_Comm_rank(t->world, &t->my_pe);
    MPI_Comm_size(t->world, &t->n_pes);

    long per_node = 0;
    int rc = nodeshm_env_long("NODESHM_PES_PER_NODE", 0, 1, 1L << 20, &per_node);
    if (rc) return rc;

    if (nodeshm_topology_split_node(t->world, per_node, &t->node, NULL) != MPI_SUCCESS)
        return fail(t, NODESHM_ERR_MPI, "MPI_Comm_split_type / MPI_Comm_split for the node failed");
    MPI_Comm_rank(t->node, &t->node_my_pe);
    MPI_Comm_size(t->node, &t->node_n_pes);
    MPI_Comm_split(t->world, t->node_my_pe == 0 ? 0 : MPI_UNDEFINED, t->my_pe, &t->leaders);

    /* node number = rank of my node's leader among the leaders */
    int leader_rank = -1;
    if (t->leaders != MPI_COMM_NULL) {
        MPI_Comm_rank(t->leaders, &leader_rank);
        MPI_Comm_size(t->leaders, &t->n_nodes);
    }
    int bcast[2] = {leader_rank, t->n_nodes};
    MPI_Bcast(bcast, 2, MPI_INT, 0, t->node);
    t->my_node = bcast[0];
    t->n_nodes = bcast[1];

    t->node_of = malloc(sizeof(int) * (size_t)t->n_pes);
    t->node_index_of = malloc(sizeof(int) * (size_t)t->n_pes);
    t->node_pes = malloc(sizeof(int) * (size_t)t->node_n_pes);
    if (!t->node_of || !t->node_index_of || !t->node_pes)
        return fail(t, NODESHM_ERR_NOMEM, "out of memory for %d PEs", t->n_pes);
    MPI_Allgather(&t->my_node, 1, MPI_INT, t->node_of, 1, MPI_INT, t->world);
    MPI_Allgather(&t->my_pe, 1, MPI_INT, t->node_pes, 1, MPI_INT, t->node);
    for (int pe = 0; pe < t->n_pes; pe++) t->node_index_of[pe] = -1;
    for (int i = 0; i < t->node_n_pes; i++) t->node_index_of[t->node_pes[i]] = i;

    nodeshm_topology_machine(t->world, &t->machine_n_pes, &t->cpus_online);
    return NODESHM_OK;
}

void nodeshm_topology_destroy(nodeshm_topology_t *t)
{
    if (t->leaders != MPI_COMM_NULL) MPI_Comm_free(&t->leaders);
    MPI_Comm_free(&t->node);
    MPI_Comm_free(&t->world);
    free(t->node_of);
    free(t->node_index_of);
    free(t->node_pes);
    memset(t, 0, sizeof *t);
}
