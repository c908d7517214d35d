/* What the side description (describe.c), W1-B (w1b.c) and W2 (w2.c)
 * share of a struct sg_side: private to workarounds/. */
#ifndef SCALEGUARD_SIDES_H
#define SCALEGUARD_SIDES_H

#include <limits.h>

#include "workarounds.h"

static inline int is_reduction(enum sg_routine r) { return sg_routines[r].reduction; }

static inline MPI_Count type_size(MPI_Datatype type)
{
    MPI_Count size = 0;
    PMPI_Type_size_x(type, &size);
    return size;
}

/* A regular routine's side that shows the size of a block on this rank:
 * its REGULAR side, or else its own block. */
static inline const struct sg_side *block_side(const struct sg_described *d)
{
    return d->recv.layout == SG_SIDE_REGULAR   ? &d->recv
           : d->send.layout == SG_SIDE_REGULAR ? &d->send
           : d->recv.layout == SG_SIDE_SINGLE  ? &d->recv
                                               : &d->send;
}

static inline int64_t block_count(const struct sg_side *side, int i)
{
    return sg_counts_given(side->counts) ? sg_count_at(side->counts, i) : side->count;
}

static inline int64_t largest_block(const struct sg_side *side)
{
    switch (side->layout) {
    case SG_SIDE_SINGLE:
    case SG_SIDE_REGULAR:
        return side->count * (int64_t)side->unit;
    case SG_SIDE_V:
    case SG_SIDE_W:
    case SG_SIDE_PACKED: {
        int64_t largest = 0;
        for (int i = 0; i < side->blocks; i++)
            if (block_count(side, i) > largest)
                largest = block_count(side, i);
        return largest;
    }
    case SG_SIDE_NONE:
        break;
    }
    return 0;
}

/* The datatype of block i of a V or W side. */
static inline MPI_Datatype block_type(const struct sg_side *side, int i)
{
    return side->types ? side->types[i] : side->type;
}

/* How many displacement units `count` elements of block i span: elements
 * (of the side's one type) on a V side, bytes on a W side (Alltoallw),
 * whose displacements count bytes. */
static inline int64_t block_span(const struct sg_side *side, int i, int64_t count)
{
    return side->layout == SG_SIDE_W ? count * (int64_t)sg_extent_of(side->types[i]) : count;
}

/* The bytes of one displacement unit: the extent of a V side's type, one
 * byte on a W side. */
static inline MPI_Aint displ_unit(const struct sg_side *side)
{
    return side->layout == SG_SIDE_W ? 1 : sg_extent_of(side->type);
}

/* V and W sides are cut only if every piece keeps its displacement: an
 * int one, or any MPI_Aint one (a large-count form's, Neighbor_alltoallw's). */
static inline int v_side_fits(const struct sg_side *side)
{
    if (side->aint_displs)
        return 1;
    for (int i = 0; i < side->blocks; i++)
        if (block_count(side, i) > 0 &&
            (side->displs[i] < INT_MIN ||
             side->displs[i] + block_span(side, i, block_count(side, i)) - 1 > INT_MAX))
            return 0;
    return 1;
}

#endif
