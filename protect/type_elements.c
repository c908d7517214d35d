/* The length of a datatype's type signature: how many basic elements one
 * element of it holds (MPI_INT: 1, MPI_2INT: 2, a vector of 4 blocks of 3
 * doubles: 12). Ranks of a collective may pass different datatypes with the
 * same signature (12 x MPI_DOUBLE against 1 x that vector), so the layer
 * measures a call in basic elements, the one unit every rank shares.
 *
 * Decoded from the type's constructor (MPI_Type_get_envelope/contents,
 * recursively); a derived type's count is cached on it as an attribute, so
 * a later call pays one look-up. */
#include "collective.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

static int keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

static void make_keyval(void)
{
    if (PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &keyval,
                                NULL) != MPI_SUCCESS)
        keyval = MPI_KEYVAL_INVALID;
}

/* The C structs the MPI describes the pair types by. */
int sg_pair_of(MPI_Datatype type, struct sg_pair *p)
{
    struct float_int { float a; int b; };
    struct double_int { double a; int b; };
    struct long_int { long a; int b; };
    struct short_int { short a; int b; };
    struct long_double_int { long double a; int b; };
    const struct sg_pair pairs[] = {
        {MPI_2INT, MPI_INT, MPI_INT, sizeof(int)},
        {MPI_FLOAT_INT, MPI_FLOAT, MPI_INT, offsetof(struct float_int, b)},
        {MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT, offsetof(struct double_int, b)},
        {MPI_LONG_INT, MPI_LONG, MPI_INT, offsetof(struct long_int, b)},
        {MPI_SHORT_INT, MPI_SHORT, MPI_INT, offsetof(struct short_int, b)},
        {MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT, offsetof(struct long_double_int, b)},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        if (type == pairs[i].type) {
            *p = pairs[i];
            return 1;
        }
    /* the Fortran pairs: two of one type, side by side */
    const MPI_Datatype fortran[][2] = {{MPI_2REAL, MPI_REAL},
                                       {MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION},
                                       {MPI_2INTEGER, MPI_INTEGER}};
    for (size_t i = 0; i < sizeof fortran / sizeof *fortran; i++)
        if (type == fortran[i][0]) {
            MPI_Aint lb, extent;
            PMPI_Type_get_extent(fortran[i][1], &lb, &extent);
            *p = (struct sg_pair){type, fortran[i][1], fortran[i][1], extent};
            return 1;
        }
    return 0;
}

static uint64_t product(uint64_t a, uint64_t b)
{
    uint64_t p;
    return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}

static uint64_t sum(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

static int elements_of(MPI_Datatype type, uint64_t *elements);

static int hold(int *held, int n, int index)
{
    if (held != NULL)
        held[n] = index;
    return n + 1;
}

/* MPI 4.0, 5.1.4: all of them (NONE), one block of darg (BLOCK; default
 * ceil(gsize / psize)), or blocks of darg (CYCLIC; default 1) every
 * psize * darg, in ascending order. */
int sg_darray_held(int gsize, int distrib, int darg, int psize, int coordinate, int *held)
{
    int n = 0;
    if (distrib == MPI_DISTRIBUTE_NONE) {
        for (int g = 0; g < gsize; g++)
            n = hold(held, n, g);
    } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int block = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
        for (int g = coordinate * block; g < gsize && g < (coordinate + 1) * block; g++)
            n = hold(held, n, g);
    } else {
        int block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        for (int start = coordinate * block; start < gsize; start += psize * block)
            for (int g = start; g < gsize && g < start + block; g++)
                n = hold(held, n, g);
    }
    return n;
}

int sg_darray_coordinate(int rank, int dims, const int *psizes, int d)
{
    for (int e = dims - 1; e > d; e--) /* row-major: the last dimension fastest */
        rank /= psizes[e];
    return rank % psizes[d];
}

/* The basic elements of a darray: its old type's, times the indices this
 * process holds along each dimension. */
static uint64_t darray_elements(const int *ints, uint64_t inner)
{
    int rank = ints[1], dims = ints[2];
    const int *gsizes = ints + 3, *distribs = ints + 3 + dims, *dargs = ints + 3 + 2 * dims,
              *psizes = ints + 3 + 3 * dims;
    uint64_t n = inner;
    for (int d = 0; d < dims; d++)
        n = product(n, (uint64_t)sg_darray_held(gsizes[d], distribs[d], dargs[d], psizes[d],
                                                sg_darray_coordinate(rank, dims, psizes, d),
                                                NULL));
    return n;
}

/* A derived type's count from its constructor's arguments; *known = 0 for
 * a constructor not decoded here. */
static int decode(MPI_Datatype type, int combiner, int ni, int na, int nd, uint64_t *elements,
                  int *known)
{
    int *ints = malloc(((size_t)ni + 1) * sizeof *ints);
    MPI_Aint *addresses = malloc(((size_t)na + 1) * sizeof *addresses);
    MPI_Datatype *types = malloc(((size_t)nd + 1) * sizeof *types);
    uint64_t *inner = calloc((size_t)nd + 1, sizeof *inner);
    int err = ints && addresses && types && inner ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (err == MPI_SUCCESS)
        err = PMPI_Type_get_contents(type, ni, na, nd, ints, addresses, types);
    if (err != MPI_SUCCESS) {
        free(ints);
        free(addresses);
        free(types);
        free(inner);
        return err;
    }
    *known = 1;
    for (int i = 0; i < nd && err == MPI_SUCCESS; i++)
        err = elements_of(types[i], &inner[i]);
    uint64_t n = 0, blocks = 0;
    if (err == MPI_SUCCESS) {
        switch (combiner) {
        case MPI_COMBINER_DUP:
        case MPI_COMBINER_RESIZED: n = inner[0]; break;
        case MPI_COMBINER_CONTIGUOUS: n = product((uint64_t)ints[0], inner[0]); break;
        case MPI_COMBINER_VECTOR:
        case MPI_COMBINER_HVECTOR:
        case MPI_COMBINER_INDEXED_BLOCK:
        case MPI_COMBINER_HINDEXED_BLOCK:
            n = product(product((uint64_t)ints[0], (uint64_t)ints[1]), inner[0]);
            break;
        case MPI_COMBINER_INDEXED:
        case MPI_COMBINER_HINDEXED:
            for (int i = 0; i < ints[0]; i++)
                blocks = sum(blocks, (uint64_t)ints[1 + i]);
            n = product(blocks, inner[0]);
            break;
        case MPI_COMBINER_STRUCT:
            for (int i = 0; i < ints[0]; i++)
                n = sum(n, product((uint64_t)ints[1 + i], inner[i]));
            break;
        case MPI_COMBINER_SUBARRAY: /* ndims, sizes, subsizes, starts, order */
            n = inner[0];
            for (int i = 0; i < ints[0]; i++)
                n = product(n, (uint64_t)ints[1 + ints[0] + i]);
            break;
        case MPI_COMBINER_DARRAY:
            n = darray_elements(ints, inner[0]);
            break;
        case MPI_COMBINER_F90_REAL:
        case MPI_COMBINER_F90_COMPLEX:
        case MPI_COMBINER_F90_INTEGER:
            n = 1; /* a predefined type of a given precision */
            break;
        default: /* a constructor of an older MPI */
            *known = 0;
            break;
        }
    }
    for (int i = 0; i < nd; i++) {
        int ignored, inner_combiner;
        if (PMPI_Type_get_envelope(types[i], &ignored, &ignored, &ignored, &inner_combiner) ==
                MPI_SUCCESS &&
            inner_combiner != MPI_COMBINER_NAMED)
            PMPI_Type_free(&types[i]);
    }
    free(ints);
    free(addresses);
    free(types);
    free(inner);
    *elements = n;
    return err;
}

/* What the MPI itself counts: the basic elements in the bytes of one
 * element, through a status that says they arrived (not for a darray:
 * MPICH 4.0.2's MPI_Get_elements_x asserts on some). */
static int counted_by_mpi(MPI_Datatype type, uint64_t *elements)
{
    int size, err;
    MPI_Count counted;
    MPI_Status status;
    if ((err = PMPI_Type_size(type, &size)) != MPI_SUCCESS ||
        (err = PMPI_Status_set_elements(&status, MPI_BYTE, size)) != MPI_SUCCESS ||
        (err = PMPI_Get_elements_x(&status, type, &counted)) != MPI_SUCCESS)
        return err;
    *elements = counted > 0 ? (uint64_t)counted : 0;
    return MPI_SUCCESS;
}

/* The predefined types this thread has met: their handles never change
 * (nor become a derived type's), so a call of one asks the MPI nothing. */
#define NAMED_SLOTS 8
struct named_type {
    MPI_Datatype type;
    uint64_t elements; /* 0: the slot is empty */
    int size;
};
static SG_THREAD_LOCAL struct named_type named[NAMED_SLOTS];

static unsigned named_slot(MPI_Datatype type)
{
    return (unsigned)(((uint64_t)(uintptr_t)type * 0x9e3779b97f4a7c15u) >> 61);
}

/* The entry of a predefined type this thread has met, or NULL. */
static const struct named_type *named_known(MPI_Datatype type)
{
    const struct named_type *slot = &named[named_slot(type)];
    return slot->elements != 0 && slot->type == type ? slot : NULL;
}

static int elements_of(MPI_Datatype type, uint64_t *elements)
{
    const struct named_type *met = named_known(type);
    if (met != NULL) {
        *elements = met->elements;
        return MPI_SUCCESS;
    }
    int ni, na, nd, combiner, err, size;
    if ((err = PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner)) != MPI_SUCCESS)
        return err;
    if (combiner == MPI_COMBINER_NAMED) {
        struct sg_pair pair;
        *elements = sg_pair_of(type, &pair) ? 2 : 1;
        if (PMPI_Type_size(type, &size) == MPI_SUCCESS)
            named[named_slot(type)] = (struct named_type){type, *elements, size};
        return MPI_SUCCESS;
    }
    pthread_once(&keyval_once, make_keyval);
    void *cached;
    int found = 0;
    if (keyval != MPI_KEYVAL_INVALID &&
        PMPI_Type_get_attr(type, keyval, &cached, &found) == MPI_SUCCESS && found) {
        *elements = (uint64_t)(uintptr_t)cached;
        return MPI_SUCCESS;
    }
    int known;
    if ((err = decode(type, combiner, ni, na, nd, elements, &known)) != MPI_SUCCESS)
        return err;
    if (!known && (err = counted_by_mpi(type, elements)) != MPI_SUCCESS)
        return err;
    if (keyval != MPI_KEYVAL_INVALID && *elements < UINTPTR_MAX)
        PMPI_Type_set_attr(type, keyval, (void *)(uintptr_t)*elements);
    return MPI_SUCCESS;
}

int sg_type_elements(MPI_Datatype type, uint64_t *elements)
{
    return elements_of(type, elements);
}

int sg_type_measure(MPI_Datatype type, int *size, uint64_t *elements)
{
    const struct named_type *known = named_known(type);
    if (known != NULL) {
        *size = known->size;
        *elements = known->elements;
        return MPI_SUCCESS;
    }
    int err = PMPI_Type_size(type, size);
    return err != MPI_SUCCESS ? err : elements_of(type, elements);
}

int sg_type_met_predefined(MPI_Datatype type) { return named_known(type) != NULL; }
