/* own_block: a rank's own block, which W1-B by point to point (the root
 * of Gatherv and Scatterv) and W1-A (every rank of Allgather) may copy
 * instead of sending, lands where MPI puts it, also when the block's two
 * ends order their bytes differently.
 *
 *   own_block gatherv|scatterv|allgather   (P >= 2; root 0)
 *
 * Every block is COUNT pairs of ints. The side with one block per rank
 * (Gatherv's send, Scatterv's receive; Allgather's receive, each block)
 * passes COUNT elements of a pair type whose type map holds its second int
 * first (ints at offsets 4 and 0: gapless, 8 bytes); the other side passes
 * 2 x COUNT MPI_INT. MPI moves ints in signature order, so every block, the
 * own block included, arrives with each pair's two ints swapped in memory,
 * which a plain copy of the bytes would not do. Exit 0, or 1 naming the
 * first wrong int. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 3000 /* pairs per block */

static int value(int rank, int i) { return rank * 1000003 + i; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int procs, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc == 2 ? argv[1] : "";
    int gather = strcmp(mode, "gatherv") == 0, allgather = strcmp(mode, "allgather") == 0;
    if (!gather && !allgather && strcmp(mode, "scatterv") != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: own_block gatherv|scatterv|allgather\n");
        MPI_Finalize();
        return 2;
    }

    MPI_Datatype swapped;
    int lengths[2] = {1, 1};
    MPI_Aint offsets[2] = {4, 0};
    MPI_Datatype ints[2] = {MPI_INT, MPI_INT};
    MPI_Type_create_struct(2, lengths, offsets, ints, &swapped);
    MPI_Type_commit(&swapped);

    int *mine = malloc(2 * COUNT * sizeof *mine);
    int *all = malloc((size_t)procs * 2 * COUNT * sizeof *all);
    int *counts = malloc((size_t)procs * sizeof *counts);
    int *displs = malloc((size_t)procs * sizeof *displs);
    for (int r = 0; r < procs; r++) {
        counts[r] = 2 * COUNT;
        displs[r] = r * 2 * COUNT;
    }
    /* the sending side's ints in memory, and where each must arrive */
    int scatter = !gather && !allgather;
    for (int i = 0; i < 2 * COUNT; i++)
        mine[i] = scatter ? -1 : value(rank, i);
    for (int r = 0; r < procs; r++)
        for (int i = 0; i < 2 * COUNT; i++)
            all[r * 2 * COUNT + i] = scatter ? value(r, i) : -1;

    if (gather)
        MPI_Gatherv(mine, COUNT, swapped, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    else if (allgather)
        MPI_Allgather(mine, 2 * COUNT, MPI_INT, all, COUNT, swapped, MPI_COMM_WORLD);
    else
        MPI_Scatterv(all, counts, displs, MPI_INT, mine, COUNT, swapped, 0, MPI_COMM_WORLD);

    int bad = 0;
    if (allgather || (gather && rank == 0)) {
        for (int r = 0; r < procs && !bad; r++)
            for (int i = 0; i < 2 * COUNT && !bad; i++)
                if (all[r * 2 * COUNT + i] != value(r, i ^ 1)) {
                    fprintf(stderr, "own_block: %s: rank %d's block on rank %d: int %d is %d, "
                                    "not %d\n",
                            mode, r, rank, i, all[r * 2 * COUNT + i], value(r, i ^ 1));
                    bad = 1;
                }
    } else if (scatter) {
        for (int i = 0; i < 2 * COUNT && !bad; i++)
            if (mine[i] != value(rank, i ^ 1)) {
                fprintf(stderr, "own_block: scatterv: rank %d's int %d is %d, not %d\n", rank, i,
                        mine[i], value(rank, i ^ 1));
                bad = 1;
            }
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any)
        fprintf(stderr, "own_block: %s, P=%d: every int in place\n", mode, procs);
    MPI_Type_free(&swapped);
    free(mine);
    free(all);
    free(counts);
    free(displs);
    MPI_Finalize();
    return any;
}
