/* One MPI_Gatherv, rank r sending r+1 ints of value r: the installed layer's
 * MPI_Finalize summary counts it (check-install.sh). Exit 1 on wrong data. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int send[64];
    for (int i = 0; i <= rank && i < 64; i++)
        send[i] = rank;
    int *counts = calloc((size_t)size, sizeof *counts);
    int *displs = calloc((size_t)size, sizeof *displs);
    int *received = calloc((size_t)size * ((size_t)size + 1) / 2, sizeof *received);
    if (!counts || !displs || !received || size > 64) {
        fprintf(stderr, "gatherv: out of memory or more than 64 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int r = 0, offset = 0; r < size; offset += r + 1, r++) {
        counts[r] = r + 1;
        displs[r] = offset;
    }
    MPI_Gatherv(send, rank + 1, MPI_INT, received, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    int status = 0;
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            for (int i = 0; i < counts[r]; i++)
                if (received[displs[r] + i] != r)
                    status = 1;
        printf("gatherv: %s on %d ranks\n", status ? "WRONG DATA" : "ok", size);
    }
    free(counts);
    free(displs);
    free(received);
    MPI_Finalize();
    return status;
}
