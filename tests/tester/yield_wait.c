/* yield_wait: does a rank that waits in the MPI leave its CPU?
 *
 * Rank 1 sleeps 300 ms before MPI_Barrier; rank 0 waits there meanwhile, and
 * counts the voluntary context switches it made in the call (getrusage's
 * ru_nvcsw). A rank polling MPICH's progress makes a handful; under
 * libscaleguard-yield.so, which sleeps after 20 us of fruitless polls, it
 * gives its CPU away thousands of times. Rank 0 prints
 * "voluntary switches in the wait: N" on standard error and exits 0 when N
 * is on the side the argument names ("sleeps": at least 100, "spins": fewer),
 * 1 when not; the other ranks exit 0. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static long voluntary_switches(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_nvcsw;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, expect_sleeps = argc > 1 && strcmp(argv[1], "sleeps") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD); /* both started */
    long before = voluntary_switches();
    if (rank == 1) {
        const struct timespec late = {0, 300000000};
        nanosleep(&late, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    long switches = voluntary_switches() - before;
    int status = 0;
    if (rank == 0) {
        fprintf(stderr, "voluntary switches in the wait: %ld\n", switches);
        status = (switches >= 100) != expect_sleeps;
    }
    MPI_Finalize();
    return status;
}
