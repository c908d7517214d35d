/* The tuning table: see tuning.h. */
#include "tuning.h"

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

static const struct sg_tuning tunings[] = {
    /* 64 MiB over 2 ranks: Reduce_scatter 0.5 to 0.9 s (it reduces the
     * whole vector to one rank, then scatters), two Reduce 0.03 s;
     * Ireduce_scatter_block of 64 MiB blocks: 174 ms bare, W1-B in four
     * rounds of it 212 ms inside the I-call (packing), by eight Ireduce
     * 85 ms. Two I-calls' stages over idup copies of one communicator hang
     * (tests/protect/crossed_waits.c; open-mpi/ompi#2025: a collective
     * started while an idup of its communicator is in flight). */
    {.library = "Open MPI",
     .reduce_by_reduces = 1,
     .idup_beside_collectives = 0},
    /* 64 MiB over 2 ranks: Reduce_scatter 0.4 to 0.5 s, two Reduce 1.1 s;
     * Ireduce_scatter_block of 64 MiB blocks: 160 ms bare, by eight
     * Ireduce 254 ms. Reduce_scatter_block over 2 ranks, bare, by block:
     * 8 MiB 7.7 ms, 16 MiB 17 ms, 32 MiB 51 to 57 ms, 64 MiB 96 to 107 ms;
     * W1-B of 64 MiB blocks in two rounds 1.53 to 1.65 times the bare
     * call, in four 0.90 to 1.07. */
    {.library = "MPICH", .reduce_by_reduces = 0, .idup_beside_collectives = 1,
     .reduce_scatter_piece_bytes = (unsigned long)32 << 20},
    {.library = NULL, .reduce_by_reduces = 0, .idup_beside_collectives = 0},
};

const struct sg_tuning *sg_tuning(void)
{
    static _Atomic(const struct sg_tuning *) known;
    const struct sg_tuning *row = atomic_load(&known);
    if (row == NULL) {
        char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
        int length;
        PMPI_Get_library_version(version, &length);
        for (row = tunings; row->library != NULL; row++)
            if (strncmp(version, row->library, strlen(row->library)) == 0)
                break;
        atomic_store(&known, row);
    }
    return row;
}
