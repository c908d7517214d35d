/* A run of basic elements of an array of any datatype, as a datatype
 * (workarounds.h, sg_type_range): W1-B cuts every rank's block at the same
 * basic element, whatever datatype the rank describes it with.
 *
 * Built from the type's constructor (MPI_Type_get_envelope/contents),
 * recursively: a run of an array is a partial element, whole elements, and
 * a partial element; a partial element of a derived type is a run over its
 * blocks. Whole elements and whole blocks keep their own types, so the
 * result holds as many entries as the run touches blocks of the type's own
 * description (a vector's whole blocks: one hvector), and the MPI sees the
 * user's types inside it. A subarray and a darray are cut as the nests of
 * hvectors and hindexed blocks that they are. */
#include "workarounds.h"

#include <limits.h>
#include <stdlib.h>

/* The entries of the struct type being built. */
struct entries {
    int count, capacity;
    int *lengths;
    MPI_Aint *displs;
    MPI_Datatype *types;
    /* derived types made or decoded here, which the entries may name: freed
     * once the struct holds them */
    MPI_Datatype *owned;
    int owned_count, owned_capacity;
};

static int own_type(struct entries *e, MPI_Datatype type)
{
    if (e->owned_count == e->owned_capacity) {
        int capacity = e->owned_capacity ? 2 * e->owned_capacity : 16;
        MPI_Datatype *owned = realloc(e->owned, (size_t)capacity * sizeof *owned);
        if (owned == NULL) {
            PMPI_Type_free(&type);
            return MPI_ERR_NO_MEM;
        }
        e->owned = owned;
        e->owned_capacity = capacity;
    }
    e->owned[e->owned_count++] = type;
    return MPI_SUCCESS;
}

static int add(struct entries *e, MPI_Aint at, int length, MPI_Datatype type)
{
    if (e->count == e->capacity) {
        int capacity = e->capacity ? 2 * e->capacity : 16;
        int *lengths = realloc(e->lengths, (size_t)capacity * sizeof *lengths);
        if (lengths != NULL)
            e->lengths = lengths;
        MPI_Aint *displs = realloc(e->displs, (size_t)capacity * sizeof *displs);
        if (displs != NULL)
            e->displs = displs;
        MPI_Datatype *types = realloc(e->types, (size_t)capacity * sizeof *types);
        if (types != NULL)
            e->types = types;
        if (lengths == NULL || displs == NULL || types == NULL)
            return MPI_ERR_NO_MEM;
        e->capacity = capacity;
    }
    e->lengths[e->count] = length;
    e->displs[e->count] = at;
    e->types[e->count] = type;
    e->count++;
    return MPI_SUCCESS;
}

static int run_of(struct entries *e, MPI_Datatype type, MPI_Aint at, uint64_t first,
                  uint64_t n);

/* The blocks of a derived type's description: block i holds lengths[i]
 * elements of types[i] from byte displs[i] (one type for all but a struct). */
struct blocks {
    int count;
    const int *lengths; /* NULL: `length` each */
    int length;
    MPI_Aint *displs;
    MPI_Datatype *types; /* one, or one per block */
    int one_type;
    MPI_Aint stride; /* a vector's blocks: displs[i] = i * stride; displs unused */
    int strided;
};

static MPI_Aint block_at(const struct blocks *b, int i)
{
    return b->strided ? (MPI_Aint)i * b->stride : b->displs[i];
}

static int block_length(const struct blocks *b, int i)
{
    return b->lengths ? b->lengths[i] : b->length;
}

static MPI_Datatype block_type(const struct blocks *b, int i)
{
    return b->types[b->one_type ? 0 : i];
}

/* Elements [first, first + n) of one element of a type described by
 * blocks, at `at`. Whole blocks of a vector go in as one hvector. */
static int run_over_blocks(struct entries *e, const struct blocks *b, MPI_Aint at,
                           uint64_t first, uint64_t n)
{
    int err = MPI_SUCCESS;
    for (int i = 0; i < b->count && n > 0 && err == MPI_SUCCESS; i++) {
        uint64_t inner;
        if ((err = sg_type_elements(block_type(b, i), &inner)) != MPI_SUCCESS)
            break;
        uint64_t held = inner * (uint64_t)block_length(b, i);
        if (first >= held) {
            first -= held;
            continue;
        }
        if (b->strided && first == 0 && n >= 2 * held) { /* whole blocks: one hvector */
            uint64_t whole = n / held;
            if ((uint64_t)(b->count - i) < whole)
                whole = (uint64_t)(b->count - i);
            MPI_Datatype vector;
            err = PMPI_Type_create_hvector((int)whole, b->length, b->stride, block_type(b, i),
                                           &vector);
            if (err == MPI_SUCCESS)
                err = own_type(e, vector);
            if (err == MPI_SUCCESS)
                err = add(e, at + block_at(b, i), 1, vector);
            n -= whole * held;
            i += (int)whole - 1;
            continue;
        }
        uint64_t take = held - first < n ? held - first : n;
        err = run_of(e, block_type(b, i), at + block_at(b, i), first, take);
        first = 0;
        n -= take;
    }
    return err;
}

/* A subarray as the nest of hvectors it is: along each dimension, from the
 * fastest, subsizes[d] of the inner type at the dimension's stride, the
 * whole nest at the byte offset of `starts`. */
static int subarray_nest(const int *ints, MPI_Datatype old, MPI_Datatype *nest, MPI_Aint *at)
{
    int dims = ints[0], order = ints[1 + 3 * dims];
    const int *sizes = ints + 1, *subsizes = ints + 1 + dims, *starts = ints + 1 + 2 * dims;
    MPI_Aint stride = sg_extent_of(old);
    MPI_Datatype inner = old;
    int err = MPI_SUCCESS;
    *at = 0;
    for (int k = 0; k < dims && err == MPI_SUCCESS; k++) {
        int d = order == MPI_ORDER_C ? dims - 1 - k : k;
        MPI_Datatype outer;
        err = PMPI_Type_create_hvector(subsizes[d], 1, stride, inner, &outer);
        *at += (MPI_Aint)starts[d] * stride;
        stride *= sizes[d];
        if (inner != old)
            PMPI_Type_free(&inner);
        inner = outer;
    }
    *nest = inner;
    return err;
}

/* A darray as the nest it is: along each dimension, from the fastest, the
 * indices this process holds of the inner type, each at its global place
 * (the process grid is row-major in either order). */
static int darray_nest(const int *ints, MPI_Datatype old, MPI_Datatype *nest)
{
    int rank = ints[1], dims = ints[2]; /* ints[0]: the grid's size */
    const int *gsizes = ints + 3, *distribs = ints + 3 + dims, *dargs = ints + 3 + 2 * dims,
              *psizes = ints + 3 + 3 * dims, order = ints[3 + 4 * dims];
    int largest = 1;
    for (int d = 0; d < dims; d++)
        largest = gsizes[d] > largest ? gsizes[d] : largest;
    int *held = malloc((size_t)largest * sizeof *held);
    MPI_Aint *displs = malloc((size_t)largest * sizeof *displs);
    int err = held && displs ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    MPI_Aint stride = sg_extent_of(old);
    MPI_Datatype inner = old;
    for (int k = 0; k < dims && err == MPI_SUCCESS; k++) {
        int d = order == MPI_ORDER_C ? dims - 1 - k : k;
        int coordinate = sg_darray_coordinate(rank, dims, psizes, d);
        int n = sg_darray_held(gsizes[d], distribs[d], dargs[d], psizes[d], coordinate, held);
        for (int i = 0; i < n; i++)
            displs[i] = (MPI_Aint)held[i] * stride;
        MPI_Datatype outer;
        err = PMPI_Type_create_hindexed_block(n, 1, displs, inner, &outer);
        stride *= gsizes[d];
        if (inner != old)
            PMPI_Type_free(&inner);
        inner = outer;
    }
    free(held);
    free(displs);
    *nest = inner;
    return err;
}

/* Elements [first, first + n) of one element of a derived type, at `at`. */
static int run_within(struct entries *e, MPI_Datatype type, MPI_Aint at, uint64_t first,
                      uint64_t n)
{
    int ni, na, nd, combiner, err;
    if ((err = PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner)) != MPI_SUCCESS)
        return err;
    if (combiner == MPI_COMBINER_NAMED) {
        struct sg_pair p;
        if (!sg_pair_of(type, &p)) /* a basic element is never cut */
            return add(e, at, 1, type);
        if (first == 0 && (err = add(e, at, 1, p.first)) != MPI_SUCCESS)
            return err;
        return first + n == 2 ? add(e, at + p.second_at, 1, p.second) : MPI_SUCCESS;
    }
    int *ints = malloc(((size_t)ni + 1) * sizeof *ints);
    MPI_Aint *addresses = malloc(((size_t)na + 1) * sizeof *addresses);
    MPI_Datatype *types = malloc(((size_t)nd + 1) * sizeof *types);
    err = ints && addresses && types ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (err == MPI_SUCCESS)
        err = PMPI_Type_get_contents(type, ni, na, nd, ints, addresses, types);
    for (int i = 0; i < nd && err == MPI_SUCCESS; i++) {
        int ignored, inner_combiner;
        err = PMPI_Type_get_envelope(types[i], &ignored, &ignored, &ignored, &inner_combiner);
        if (err == MPI_SUCCESS && inner_combiner != MPI_COMBINER_NAMED)
            err = own_type(e, types[i]);
    }
    if (err != MPI_SUCCESS) {
        free(ints);
        free(addresses);
        free(types);
        return err;
    }
    MPI_Aint old_extent = nd > 0 ? sg_extent_of(types[0]) : 0;
    struct blocks b = {.types = types, .one_type = 1, .displs = addresses};
    MPI_Aint *scaled = NULL;
    switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        err = run_within(e, types[0], at, first, n);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        err = run_of(e, types[0], at, first, n);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
        b = (struct blocks){.count = ints[0], .length = ints[1], .types = types, .one_type = 1,
                            .strided = 1,
                            .stride = combiner == MPI_COMBINER_VECTOR
                                          ? (MPI_Aint)ints[2] * old_extent
                                          : addresses[0]};
        err = run_over_blocks(e, &b, at, first, n);
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_STRUCT: {
        int count = ints[0], blocked = combiner == MPI_COMBINER_INDEXED_BLOCK ||
                                       combiner == MPI_COMBINER_HINDEXED_BLOCK;
        b.count = count;
        b.lengths = blocked ? NULL : ints + 1;
        b.length = blocked ? ints[1] : 0;
        b.one_type = combiner != MPI_COMBINER_STRUCT;
        if (combiner == MPI_COMBINER_INDEXED || combiner == MPI_COMBINER_INDEXED_BLOCK) {
            const int *at_elements = ints + (blocked ? 2 : 1 + count);
            scaled = malloc(((size_t)count + 1) * sizeof *scaled);
            if (scaled == NULL) {
                err = MPI_ERR_NO_MEM;
                break;
            }
            for (int i = 0; i < count; i++)
                scaled[i] = (MPI_Aint)at_elements[i] * old_extent;
            b.displs = scaled;
        }
        err = run_over_blocks(e, &b, at, first, n);
        break;
    }
    case MPI_COMBINER_SUBARRAY: {
        MPI_Datatype nest;
        MPI_Aint start;
        if ((err = subarray_nest(ints, types[0], &nest, &start)) == MPI_SUCCESS &&
            (err = own_type(e, nest)) == MPI_SUCCESS)
            err = run_within(e, nest, at + start, first, n);
        break;
    }
    case MPI_COMBINER_DARRAY: {
        MPI_Datatype nest;
        if ((err = darray_nest(ints, types[0], &nest)) == MPI_SUCCESS &&
            (err = own_type(e, nest)) == MPI_SUCCESS)
            err = run_within(e, nest, at, first, n);
        break;
    }
    default: /* the F90 types hold one basic element and are never cut */
        err = -1;
        break;
    }
    free(scaled);
    free(ints);
    free(addresses);
    free(types);
    return err;
}

/* Elements [first, first + n) of an array of `type` whose element 0 is at
 * `at`: a partial element, the whole ones, a partial element. */
static int run_of(struct entries *e, MPI_Datatype type, MPI_Aint at, uint64_t first,
                  uint64_t n)
{
    uint64_t k;
    int err = sg_type_elements(type, &k);
    if (err != MPI_SUCCESS || n == 0)
        return err;
    if (k == 0)
        return -1; /* no element to count by */
    MPI_Aint extent = sg_extent_of(type);
    uint64_t j = first / k, skip = first % k;
    if (skip > 0) {
        uint64_t take = k - skip < n ? k - skip : n;
        if ((err = run_within(e, type, at + (MPI_Aint)j * extent, skip, take)) != MPI_SUCCESS)
            return err;
        n -= take;
        j++;
    }
    for (uint64_t whole = n / k; whole > 0 && err == MPI_SUCCESS;) {
        int length = whole > INT_MAX ? INT_MAX : (int)whole;
        err = add(e, at + (MPI_Aint)j * extent, length, type);
        j += (uint64_t)length;
        whole -= (uint64_t)length;
        n -= (uint64_t)length * k;
    }
    if (n > 0 && err == MPI_SUCCESS)
        err = run_within(e, type, at + (MPI_Aint)j * extent, 0, n);
    return err;
}

int sg_type_range(MPI_Datatype type, uint64_t first, uint64_t n, MPI_Datatype *range)
{
    struct entries e = {0};
    int err = run_of(&e, type, 0, first, n);
    if (err == MPI_SUCCESS)
        err = PMPI_Type_create_struct(e.count, e.lengths, e.displs, e.types, range);
    if (err == MPI_SUCCESS && (err = PMPI_Type_commit(range)) != MPI_SUCCESS)
        PMPI_Type_free(range);
    for (int i = 0; i < e.owned_count; i++)
        PMPI_Type_free(&e.owned[i]);
    free(e.lengths);
    free(e.displs);
    free(e.types);
    free(e.owned);
    return err;
}
