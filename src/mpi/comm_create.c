/* libnodeshm_mpi: communicators made from an accelerated one get their interposer state at once.
 *
 * Why: a communicator's state is made by its first blocking collective, since making it is
 * collective (node split, shared memory) and a non-blocking start must not wait for peers.  So
 * a communicator that only ever sees non-blocking collectives never had them accelerated:
 * mpi4py 4.1.2's own test suite (test_cco_nb_*, 4 ranks) duplicates MPI_COMM_WORLD for each
 * test, and 6048 of its 13104 MPI_Iallgatherv calls and of its 13524 MPI_Ialltoallv calls went
 * to the MPI library (reason `setup`).  Duplicating and splitting are collective over the new
 * communicator's ranks anyway, so its state is made right there, when the communicator it comes
 * from has an active one: every rank of the new communicator then decides alike (the parent's
 * state and the settings are the same on all of them).  A program that never runs an
 * accelerated collective on the parent pays nothing; one that does pays the state at creation
 * (4 ranks on 2 cores at a load of 9, MPI_Comm_dup + MPI_Comm_free of MPI_COMM_WORLD, medians:
 * MPICH 1.4-1.5 ms bare, 8.8-10 ms with it; Open MPI 0.08-0.12 ms, 0.6-1.0 ms).  A dup on one
 * node (or a split keeping the group in its order) takes its parent's shape instead
 * (nsm_get_dup_state: no node split, no allgather, no communicator made): the same pair, 6
 * alternating runs of 200, medians of the runs' medians, bare / full state / shape taken, at a
 * load of 9.4-10.3: MPICH 1.5 / 4.6 / 1.5 ms (CPU of all ranks per pair 2.9 / 7.4 / 3.0 ms),
 * Open MPI 0.15 / 2.0 / 0.92 ms (CPU 0.19 / 0.61 / 0.38 ms); again at 4.2-5.3: MPICH 3.2 / 25 /
 * 8.8 ms, Open MPI 0.042 / 0.26 / 0.093 ms; full / taken per round 2.4-3.1x (MPICH, both sets
 * 0.54-8.1x), 1.3-12x (Open MPI); and under MPICH all 2045 live dups of
 * MPI_COMM_WORLD accelerated (the full state's split found no context id for the last 2; bare
 * 2046).  MPI_Comm_idup is left alone: it must not block. */
#include "mpi/nsmpi.h"

/* Whether comm has parent's group in parent's order, as a split or create may (all ranks, keys in
 * rank order): local, and the same answer on every rank of comm (both groups are). */
static int nsm_same_group(MPI_Comm parent, MPI_Comm comm)
{
    MPI_Group a, b;
    int same = MPI_UNEQUAL;
    PMPI_Comm_group(parent, &a);
    PMPI_Comm_group(comm, &b);
    PMPI_Group_compare(a, b, &same);
    PMPI_Group_free(&a);
    PMPI_Group_free(&b);
    return same == MPI_IDENT;
}

/* comm's state, made now if parent has an active one (collective over comm's ranks); from
 * parent's shape where comm has its group in its order (nsm_get_dup_state): a dup always. */
static void nsm_inherit_state(MPI_Comm parent, MPI_Comm comm, int dup)
{
    nsm_state_t *s = NULL;
    if (comm == MPI_COMM_NULL || !nsm_peek_state(parent, &s) || !s) return;
    if (dup || nsm_same_group(parent, comm)) nsm_get_dup_state(comm, s);
    else nsm_get_state(comm);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (rc == MPI_SUCCESS) nsm_inherit_state(comm, *newcomm, 1);
    return rc;
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_dup_with_info(comm, info, newcomm);
    if (rc == MPI_SUCCESS) nsm_inherit_state(comm, *newcomm, 1);
    return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    if (rc == MPI_SUCCESS) nsm_inherit_state(comm, *newcomm, 0);
    return rc;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
    if (rc == MPI_SUCCESS) nsm_inherit_state(comm, *newcomm, 0);
    return rc;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_create(comm, group, newcomm);
    if (rc == MPI_SUCCESS) nsm_inherit_state(comm, *newcomm, 0);
    return rc;
}
