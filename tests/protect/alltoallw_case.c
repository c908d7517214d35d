/* alltoallw_case: issue 49's MPI_Alltoallw, every byte checked.
 *
 *   alltoallw_case [-b BYTES] [-i]
 *
 * P = 3. Rank 0 receives BYTES bytes (default 1.1e9) from itself and from
 * rank 1 and 1 MiB from rank 2, at byte displacements summed in C int the
 * way an application does, so that past INT_MAX the last one wraps; no
 * other block moves. Each block has its own datatype at each end: rank 1
 * sends its block in elements of 8 chars (a contiguous type) and rank 2 as
 * one element of 1 MiB, while rank 0 receives every block as chars (the
 * same signatures). -i makes it an MPI_Ialltoallw. Rank 0's receive buffer
 * has 4 GiB of PROT_NONE on either side, so a wrapped displacement crashes
 * rather than scribbles.
 *
 * Exit status (the same on every rank): 0 every byte right, 3 wrong data,
 * 4 MPI error; a crash kills the job. Memory: BYTES at rank 0 to send, 2
 * BYTES + 1 MiB to receive, BYTES at rank 1 (4.4 GB by default). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUARD ((size_t)4 << 30)
#define SMALL (1 << 20)
#define UNIT 8 /* rank 1's elements: 8 chars each */

static unsigned char pattern(int from, int64_t j)
{
    return (unsigned char)(((uint32_t)j * 2654435761u + (uint32_t)(from + 1) * 40503u) >> 24);
}

static void fill(unsigned char *p, int from, int64_t n)
{
    for (int64_t j = 0; j < n; j++)
        p[j] = pattern(from, j);
}

static int64_t check(const unsigned char *p, int from, int64_t n)
{
    for (int64_t j = 0; j < n; j++)
        if (p[j] != pattern(from, j))
            return j;
    return -1;
}

/* `bytes` readable and writable between two PROT_NONE guards. */
static unsigned char *guarded(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), body = (bytes + page - 1) / page * page;
    unsigned char *all = mmap(NULL, GUARD + body + GUARD, PROT_NONE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (all == MAP_FAILED || mprotect(all + GUARD, body, PROT_READ | PROT_WRITE) != 0)
        return NULL;
    return all + GUARD;
}

int main(int argc, char **argv)
{
    long long big = 1100000000LL;
    int nonblocking = 0, opt;
    while ((opt = getopt(argc, argv, "b:i")) != -1) {
        if (opt == 'b')
            big = atoll(optarg);
        else if (opt == 'i')
            nonblocking = 1;
        else
            return 2;
    }
    MPI_Init(&argc, &argv);
    int rank, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    if (procs != 3 || big <= 0 || big % UNIT != 0 || big > INT32_MAX) {
        if (rank == 0)
            fprintf(stderr, "usage: alltoallw_case [-b BYTES] [-i] at P = 3, BYTES a multiple "
                            "of %d up to INT_MAX\n", UNIT);
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int64_t sizes[3] = {big, big, SMALL}; /* what rank 0 receives from each */
    int scounts[3] = {0, 0, 0}, sdispls[3] = {0, 0, 0}, rcounts[3] = {0, 0, 0};
    int rdispls[3] = {0, 0, 0};
    MPI_Datatype stypes[3] = {MPI_CHAR, MPI_CHAR, MPI_CHAR};
    MPI_Datatype rtypes[3] = {MPI_CHAR, MPI_CHAR, MPI_CHAR};
    unsigned char *send = NULL, *recv = NULL;
    size_t send_bytes = (size_t)sizes[rank];
    /* each rank's block for rank 0, in a datatype of its own */
    if (rank == 1) {
        MPI_Type_contiguous(UNIT, MPI_CHAR, &stypes[0]);
        scounts[0] = (int)(big / UNIT);
    } else if (rank == 2) {
        MPI_Type_contiguous(SMALL, MPI_CHAR, &stypes[0]);
        scounts[0] = 1;
    } else {
        scounts[0] = (int)big;
    }
    if (stypes[0] != MPI_CHAR)
        MPI_Type_commit(&stypes[0]);
    send = malloc(send_bytes);
    if (rank == 0) {
        int sum = 0; /* the application's byte displacements, summed in int */
        for (int i = 0; i < 3; i++) {
            rcounts[i] = (int)sizes[i];
            rdispls[i] = sum;
            sum = (int)(uint32_t)((uint32_t)sum + (uint32_t)sizes[i]);
        }
        recv = guarded((size_t)(2 * big + SMALL));
    }
    if (send == NULL || (rank == 0 && recv == NULL)) {
        perror("alltoallw_case: memory");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fill(send, rank, (int64_t)send_bytes);

    MPI_Request request;
    double start = MPI_Wtime();
    int err = nonblocking ? MPI_Ialltoallw(send, scounts, sdispls, stypes, recv, rcounts,
                                           rdispls, rtypes, MPI_COMM_WORLD, &request)
                          : MPI_Alltoallw(send, scounts, sdispls, stypes, recv, rcounts,
                                          rdispls, rtypes, MPI_COMM_WORLD);
    if (err == MPI_SUCCESS && nonblocking)
        err = MPI_Wait(&request, MPI_STATUS_IGNORE);
    double seconds = MPI_Wtime() - start;

    int status = err == MPI_SUCCESS ? 0 : 4;
    for (int i = 0; rank == 0 && status == 0 && i < 3; i++) {
        int64_t from = i == 0 ? 0 : i == 1 ? big : 2 * big, bad;
        if ((bad = check(recv + from, i, sizes[i])) >= 0) {
            fprintf(stderr, "alltoallw_case: wrong data from rank %d at byte %lld\n", i,
                    (long long)bad);
            status = 3;
        }
    }
    int worst = status;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        fprintf(stderr, "alltoallw_case: %s, rank 0 receives %lld, %lld and %d bytes, "
                        "displacements %d %d %d: %s (%.1f s)\n",
                nonblocking ? "MPI_Ialltoallw" : "MPI_Alltoallw", big, big, SMALL, rdispls[0],
                rdispls[1], rdispls[2],
                worst == 0 ? "every byte right" : worst == 3 ? "WRONG DATA" : "MPI ERROR",
                seconds);
    if (stypes[0] != MPI_CHAR)
        MPI_Type_free(&stypes[0]);
    free(send);
    MPI_Finalize();
    return worst;
}
