/* The victim of tests/mpi_fault.sh: an MPI program whose collectives libnodeshm_mpi runs itself
 * (linked, or through LD_PRELOAD).  After MPI_Init every rank prints "ready PE <rank> pid
 * <pid>" once, then loops forever over node-shared collectives (barrier, bcast, allreduce,
 * gather: the other ranks then wait on a dead rank's flags in shared memory, not in the MPI
 * library) and checks their results, so a rank killed with SIGKILL leaves the others blocked
 * mid-collective.  An alarm ends a rank after NODESHM_VICTIM_SECONDS (default 120 s) in case the
 * launcher fails to.  Extra arguments are ignored (the script passes a unique tag). */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *env = getenv("NODESHM_VICTIM_SECONDS");
    alarm(env ? (unsigned)atoi(env) : 120u);
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static double in[1024], out[1024], all[8 * 1024];
    MPI_Barrier(MPI_COMM_WORLD);
    printf("ready PE %d pid %ld\n", rank, (long)getpid());
    fflush(stdout);
    for (long it = 0;; it++) {
        for (int i = 0; i < 1024; i++) in[i] = (double)(rank + it + i);
        MPI_Allreduce(in, out, 1024, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double want = (double)size * (double)(it + 5) + (double)size * (size - 1) / 2;
        if (out[5] != want) {
            fprintf(stderr, "rank %d: allreduce gave %g, expected %g\n", rank, out[5], want);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        MPI_Bcast(in, 512, MPI_DOUBLE, (int)(it % size), MPI_COMM_WORLD);
        if (size <= 8) MPI_Gather(in, 1024, MPI_DOUBLE, all, 1024, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
}
