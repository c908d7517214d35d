/* spread_comms: MPI_Allgather of 3000 bytes a rank on communicators of
 * three spreads, in a job whose ranks are on 2 nodes: MPI_COMM_WORLD (both
 * nodes), each node's ranks (MPI_COMM_TYPE_SHARED: one node) and the pairs
 * of world ranks r and r + P/2, one on each node (launch-local and
 * launch-slurm place the ranks in blocks). Each call twice, every byte
 * checked; rank 0 of each communicator prints
 *   spread_comms: NAME of P ranks on H hosts: every byte right
 * (or how many were wrong). Exit 0 when every byte on every rank arrived. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COUNT = 3000, CALLS = 2 };

static unsigned char expected_byte(int world_rank, int i)
{
    return (unsigned char)(world_rank * 31 + i * 7 + 1);
}

/* The hosts of the communicator's ranks, by their processor names. */
static int hosts_of(MPI_Comm comm, int procs)
{
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int length;
    MPI_Get_processor_name(name, &length);
    char *names = calloc((size_t)procs, MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, comm);
    int hosts = 0;
    for (int r = 0; r < procs; r++) {
        int first = 1;
        for (int q = 0; q < r && first; q++)
            first = strcmp(names + (size_t)q * MPI_MAX_PROCESSOR_NAME,
                           names + (size_t)r * MPI_MAX_PROCESSOR_NAME) != 0;
        hosts += first;
    }
    free(names);
    return hosts;
}

/* Returns the bytes wrong on this rank. */
static long gather_checked(MPI_Comm comm, const char *what)
{
    int procs, rank, world_rank;
    MPI_Comm_size(comm, &procs);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    int hosts = hosts_of(comm, procs);
    int *world_of = malloc((size_t)procs * sizeof *world_of);
    unsigned char *send = malloc(COUNT), *receive = malloc((size_t)COUNT * (size_t)procs);
    MPI_Allgather(&world_rank, 1, MPI_INT, world_of, 1, MPI_INT, comm);
    for (int i = 0; i < COUNT; i++)
        send[i] = expected_byte(world_rank, i);
    long wrong = 0;
    for (int call = 0; call < CALLS; call++) {
        memset(receive, 0, (size_t)COUNT * (size_t)procs);
        if (MPI_Allgather(send, COUNT, MPI_UNSIGNED_CHAR, receive, COUNT, MPI_UNSIGNED_CHAR,
                          comm) != MPI_SUCCESS)
            wrong += COUNT * procs;
        for (int r = 0; r < procs; r++)
            for (int i = 0; i < COUNT; i++)
                wrong += receive[(size_t)r * COUNT + (size_t)i] != expected_byte(world_of[r], i);
    }
    long all_wrong;
    MPI_Reduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, 0, comm);
    if (rank == 0) {
        if (all_wrong == 0)
            printf("spread_comms: %s of %d ranks on %d host%s: every byte right\n", what, procs,
                   hosts, hosts == 1 ? "" : "s");
        else
            printf("spread_comms: %s of %d ranks on %d host%s: %ld bytes wrong\n", what, procs,
                   hosts, hosts == 1 ? "" : "s", all_wrong);
        fflush(stdout);
    }
    free(world_of);
    free(send);
    free(receive);
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int procs, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm node, across;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_split(MPI_COMM_WORLD, rank % (procs / 2 > 0 ? procs / 2 : 1), rank, &across);
    long wrong = gather_checked(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    wrong += gather_checked(node, "node");
    wrong += gather_checked(across, "pair across nodes");
    long all_wrong;
    MPI_Allreduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    MPI_Comm_free(&across);
    MPI_Finalize();
    return all_wrong == 0 ? 0 : 3;
}
