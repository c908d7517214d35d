/* The collectives ScaleGuard knows (paper Table V), described once.
 *
 * SG_ROUTINE(name, global_buffer, irregular, in_place, v_form)
 *   name           the MPI routine, e.g. MPI_Gatherv
 *   global_buffer  SG_GLOBAL_SNP when the global buffer is s*n*P bytes,
 *                  SG_GLOBAL_SN when it is s*n bytes (Table V)
 *   irregular      1 for the v-routines, whose C-int displacement arrays
 *                  can wrap (Class D)
 *   in_place       1 when the routine takes MPI_IN_PLACE (all but Bcast)
 *   v_form         the routine with counts and displacements per rank that
 *                  moves the same blocks (MPI_Scatter: MPI_Scatterv), or the
 *                  routine itself where there is none
 *
 * Blocking and non-blocking forms are listed separately: each is a routine of
 * its own in the bounds INI and may have a bound of its own. */
#ifndef SCALEGUARD_ROUTINES_H
#define SCALEGUARD_ROUTINES_H

#include <stddef.h>

#define SG_ROUTINE_LIST(SG_ROUTINE)                                           \
    SG_ROUTINE(MPI_Bcast, SG_GLOBAL_SN, 0, 0, MPI_Bcast)                      \
    SG_ROUTINE(MPI_Ibcast, SG_GLOBAL_SN, 0, 0, MPI_Ibcast)                    \
    SG_ROUTINE(MPI_Scatter, SG_GLOBAL_SNP, 0, 1, MPI_Scatterv)                \
    SG_ROUTINE(MPI_Iscatter, SG_GLOBAL_SNP, 0, 1, MPI_Iscatterv)              \
    SG_ROUTINE(MPI_Scatterv, SG_GLOBAL_SNP, 1, 1, MPI_Scatterv)               \
    SG_ROUTINE(MPI_Iscatterv, SG_GLOBAL_SNP, 1, 1, MPI_Iscatterv)             \
    SG_ROUTINE(MPI_Gather, SG_GLOBAL_SNP, 0, 1, MPI_Gatherv)                  \
    SG_ROUTINE(MPI_Igather, SG_GLOBAL_SNP, 0, 1, MPI_Igatherv)                \
    SG_ROUTINE(MPI_Gatherv, SG_GLOBAL_SNP, 1, 1, MPI_Gatherv)                 \
    SG_ROUTINE(MPI_Igatherv, SG_GLOBAL_SNP, 1, 1, MPI_Igatherv)               \
    SG_ROUTINE(MPI_Allgather, SG_GLOBAL_SNP, 0, 1, MPI_Allgatherv)            \
    SG_ROUTINE(MPI_Iallgather, SG_GLOBAL_SNP, 0, 1, MPI_Iallgatherv)          \
    SG_ROUTINE(MPI_Allgatherv, SG_GLOBAL_SNP, 1, 1, MPI_Allgatherv)           \
    SG_ROUTINE(MPI_Iallgatherv, SG_GLOBAL_SNP, 1, 1, MPI_Iallgatherv)         \
    SG_ROUTINE(MPI_Alltoall, SG_GLOBAL_SNP, 0, 1, MPI_Alltoallv)              \
    SG_ROUTINE(MPI_Ialltoall, SG_GLOBAL_SNP, 0, 1, MPI_Ialltoallv)            \
    SG_ROUTINE(MPI_Alltoallv, SG_GLOBAL_SNP, 1, 1, MPI_Alltoallv)             \
    SG_ROUTINE(MPI_Ialltoallv, SG_GLOBAL_SNP, 1, 1, MPI_Ialltoallv)           \
    SG_ROUTINE(MPI_Reduce, SG_GLOBAL_SN, 0, 1, MPI_Reduce)                    \
    SG_ROUTINE(MPI_Ireduce, SG_GLOBAL_SN, 0, 1, MPI_Ireduce)                  \
    SG_ROUTINE(MPI_Allreduce, SG_GLOBAL_SN, 0, 1, MPI_Allreduce)              \
    SG_ROUTINE(MPI_Iallreduce, SG_GLOBAL_SN, 0, 1, MPI_Iallreduce)            \
    SG_ROUTINE(MPI_Reduce_scatter, SG_GLOBAL_SN, 0, 1, MPI_Reduce_scatter)    \
    SG_ROUTINE(MPI_Ireduce_scatter, SG_GLOBAL_SN, 0, 1, MPI_Ireduce_scatter)  \
    SG_ROUTINE(MPI_Reduce_scatter_block, SG_GLOBAL_SN, 0, 1, MPI_Reduce_scatter)\
    SG_ROUTINE(MPI_Ireduce_scatter_block, SG_GLOBAL_SN, 0, 1, MPI_Ireduce_scatter)

enum sg_global_buffer { SG_GLOBAL_SN, SG_GLOBAL_SNP };

enum sg_routine {
#define SG_ROUTINE_ENUM(name, ...) SG_##name,
    SG_ROUTINE_LIST(SG_ROUTINE_ENUM)
#undef SG_ROUTINE_ENUM
    SG_ROUTINE_COUNT
};

struct sg_routine_info {
    const char *name;
    enum sg_global_buffer global_buffer;
    int irregular;
    int in_place;
    enum sg_routine v_form;
};

extern const struct sg_routine_info sg_routines[SG_ROUTINE_COUNT];

/* The routine called `name` (e.g. "MPI_Gatherv"), or -1 when unknown. */
int sg_routine_by_name(const char *name);

/* The same for the first `length` characters of `name` (no terminator needed). */
int sg_routine_by_name_length(const char *name, size_t length);

#endif
