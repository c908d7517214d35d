/* own_block: under W1-B by point to point, the root's own block of Gatherv
 * and Scatterv lands where MPI puts it, also when its two ends order their
 * bytes differently.
 *
 *   own_block gatherv|scatterv   (P >= 2; root 0)
 *
 * Every block is COUNT pairs of ints. The side with one block per rank
 * (Gatherv's send, Scatterv's receive) passes COUNT elements of a pair type
 * whose type map holds its second int first (ints at offsets 4 and 0:
 * gapless, 8 bytes); the root's side passes 2 x COUNT MPI_INT. MPI moves
 * ints in signature order, so every block, the root's own included, arrives
 * with each pair's two ints swapped in memory, which a plain copy of the
 * bytes would not do. Exit 0, or 1 naming the first wrong int. */
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
    int gather = argc > 1 && strcmp(argv[1], "gatherv") == 0;
    if (argc != 2 || (!gather && strcmp(argv[1], "scatterv") != 0)) {
        if (rank == 0)
            fprintf(stderr, "usage: own_block gatherv|scatterv\n");
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
    for (int i = 0; i < 2 * COUNT; i++)
        mine[i] = gather ? value(rank, i) : -1;
    for (int r = 0; r < procs; r++)
        for (int i = 0; i < 2 * COUNT; i++)
            all[r * 2 * COUNT + i] = gather ? -1 : value(r, i);

    if (gather)
        MPI_Gatherv(mine, COUNT, swapped, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    else
        MPI_Scatterv(all, counts, displs, MPI_INT, mine, COUNT, swapped, 0, MPI_COMM_WORLD);

    int bad = 0;
    if (gather && rank == 0) {
        for (int r = 0; r < procs && !bad; r++)
            for (int i = 0; i < 2 * COUNT && !bad; i++)
                if (all[r * 2 * COUNT + i] != value(r, i ^ 1)) {
                    fprintf(stderr, "own_block: gatherv: rank %d's int %d is %d, not %d\n", r, i,
                            all[r * 2 * COUNT + i], value(r, i ^ 1));
                    bad = 1;
                }
    } else if (!gather) {
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
        fprintf(stderr, "own_block: %s, P=%d: every int in place\n", argv[1], procs);
    MPI_Type_free(&swapped);
    free(mine);
    free(all);
    free(counts);
    free(displs);
    MPI_Finalize();
    return any;
}
