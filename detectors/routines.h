/* The collectives ScaleGuard knows (paper Table V), described once: one row
 * per family, a blocking routine and its I-form.
 *
 * SG_FAMILY_LIST(F, X) expands F(X, ...) for each family, with these
 * arguments (after X):
 *   blocking       the blocking routine without MPI_, e.g. Gatherv; then
 *   nonblocking    its I-form, e.g. Igatherv
 *   global_buffer  SG_GLOBAL_SNP when the global buffer is s*n*P bytes,
 *                  SG_GLOBAL_SN when it is s*n bytes (Table V)
 *   displs         which sides of the call have C-int displacement arrays,
 *                  which can wrap (Class D): SG_DISPLS_NONE, _SEND
 *                  (Scatterv), _RECV (Gatherv, Allgatherv), _BOTH
 *                  (Alltoallv); the v-routines are those with any
 *   in_place_side  the buffer argument that may be MPI_IN_PLACE:
 *                  SG_IN_PLACE_SEND, _RECV (Scatter, Scatterv) or _NONE
 *                  (Bcast)
 *   rooted         1 when the routine has a root (then only the root may
 *                  pass MPI_IN_PLACE; else every rank or none)
 *   reduction      1 when it combines with an MPI_Op
 *   knows          which ranks see the whole layout of a call: SG_KNOWS_ALL
 *                  (every rank), SG_KNOWS_ROOT (Gatherv/Scatterv: the
 *                  counts of all ranks only at the root), SG_KNOWS_OWN (each
 *                  rank its own row or displacements)
 *   v_form, ...    the routine with counts and displacements per rank that
 *                  moves the same blocks (Scatter: Scatterv), in both forms,
 *                  or the family itself where there is none
 *
 * Each routine of the bounds INI is one form: each may have a bound of its
 * own. In enum sg_routine a family's blocking routine is even and its I-form
 * the next one (sg_blocking_form, sg_is_nonblocking). */
#ifndef SCALEGUARD_ROUTINES_H
#define SCALEGUARD_ROUTINES_H

#include <stddef.h>

#define SG_FAMILY_LIST(F, X)                                                                      \
    F(X, Bcast, Ibcast, SG_GLOBAL_SN, NONE, NONE, 1, 0, SG_KNOWS_ALL, Bcast, Ibcast)              \
    F(X, Scatter, Iscatter, SG_GLOBAL_SNP, NONE, RECV, 1, 0, SG_KNOWS_ALL, Scatterv, Iscatterv)   \
    F(X, Scatterv, Iscatterv, SG_GLOBAL_SNP, SEND, RECV, 1, 0, SG_KNOWS_ROOT, Scatterv,           \
      Iscatterv)                                                                                  \
    F(X, Gather, Igather, SG_GLOBAL_SNP, NONE, SEND, 1, 0, SG_KNOWS_ALL, Gatherv, Igatherv)       \
    F(X, Gatherv, Igatherv, SG_GLOBAL_SNP, RECV, SEND, 1, 0, SG_KNOWS_ROOT, Gatherv, Igatherv)    \
    F(X, Allgather, Iallgather, SG_GLOBAL_SNP, NONE, SEND, 0, 0, SG_KNOWS_ALL, Allgatherv,        \
      Iallgatherv)                                                                                \
    F(X, Allgatherv, Iallgatherv, SG_GLOBAL_SNP, RECV, SEND, 0, 0, SG_KNOWS_OWN, Allgatherv,      \
      Iallgatherv)                                                                                \
    F(X, Alltoall, Ialltoall, SG_GLOBAL_SNP, NONE, SEND, 0, 0, SG_KNOWS_ALL, Alltoallv,           \
      Ialltoallv)                                                                                 \
    F(X, Alltoallv, Ialltoallv, SG_GLOBAL_SNP, BOTH, SEND, 0, 0, SG_KNOWS_OWN, Alltoallv,         \
      Ialltoallv)                                                                                 \
    F(X, Reduce, Ireduce, SG_GLOBAL_SN, NONE, SEND, 1, 1, SG_KNOWS_ALL, Reduce, Ireduce)          \
    F(X, Allreduce, Iallreduce, SG_GLOBAL_SN, NONE, SEND, 0, 1, SG_KNOWS_ALL, Allreduce,          \
      Iallreduce)                                                                                 \
    F(X, Reduce_scatter, Ireduce_scatter, SG_GLOBAL_SN, NONE, SEND, 0, 1, SG_KNOWS_ALL,           \
      Reduce_scatter, Ireduce_scatter)                                                            \
    F(X, Reduce_scatter_block, Ireduce_scatter_block, SG_GLOBAL_SN, NONE, SEND, 0, 1,             \
      SG_KNOWS_ALL, Reduce_scatter, Ireduce_scatter)

/* SG_ROUTINE_LIST(X) expands X(name, global_buffer, displs, in_place_side,
 * rooted, reduction, knows, v_form) for each of the 26 routines, e.g.
 * X(MPI_Igatherv, ..., MPI_Igatherv), in enum order. */
#define SG_ROUTINE_LIST(X) SG_FAMILY_LIST(SG_FAMILY_FORMS, X)
#define SG_FAMILY_FORMS(X, b, i, gb, displs, ip, root, red, knows, vb, vi)                    \
    X(MPI_##b, gb, displs, ip, root, red, knows, MPI_##vb)                                     \
    X(MPI_##i, gb, displs, ip, root, red, knows, MPI_##vi)

enum sg_knows { SG_KNOWS_ALL, SG_KNOWS_ROOT, SG_KNOWS_OWN };
enum sg_displs { SG_DISPLS_NONE, SG_DISPLS_SEND, SG_DISPLS_RECV, SG_DISPLS_BOTH };
enum sg_in_place_side { SG_IN_PLACE_NONE, SG_IN_PLACE_SEND, SG_IN_PLACE_RECV };
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
    enum sg_displs displs;
    enum sg_in_place_side in_place_side;
    int irregular, in_place; /* displs and in_place_side other than NONE */
    int rooted, reduction;
    enum sg_knows knows;
    enum sg_routine v_form;
};

extern const struct sg_routine_info sg_routines[SG_ROUTINE_COUNT];

/* The blocking routine of r's family, whether r is the I-form, and family
 * f's routine in the form of `like`: the one way to tell the forms apart. */
static inline enum sg_routine sg_blocking_form(enum sg_routine r)
{
    return (enum sg_routine)(r & ~1);
}
static inline int sg_is_nonblocking(enum sg_routine r) { return r & 1; }
static inline enum sg_routine sg_in_form_of(enum sg_routine f, enum sg_routine like)
{
    return (enum sg_routine)(sg_blocking_form(f) | (like & 1));
}

/* The routine called `name` (e.g. "MPI_Gatherv"), or -1 when unknown. */
int sg_routine_by_name(const char *name);

/* The same for the first `length` characters of `name` (no terminator needed). */
int sg_routine_by_name_length(const char *name, size_t length);

#endif
