/* A datatype's type signature, as a hash tuple (signature.h): the
 * sequence of basic datatypes one element of it holds. Its length is what
 * the layer measures calls in (MPI_INT: 1, MPI_2INT: 2, a vector of 4
 * blocks of 3 doubles: 12): ranks of a collective may pass different
 * datatypes with the same signature (12 x MPI_DOUBLE against 1 x that
 * vector), and basic elements are the one unit every rank shares. Its hash
 * is what the collective checks compare (checks/).
 *
 * Decoded from the type's constructor (MPI_Type_get_envelope/contents,
 * recursively); a derived type's tuple is cached on it as an attribute, a
 * predefined type's per thread, so a later call pays one look-up. */
#include "collective.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

/* The predefined datatypes, each its own basic datatype, in a fixed order
 * (the same on every rank: the hashes are their positions). A handle the
 * MPI does not provide is MPI_DATATYPE_NULL and never matches; one that is
 * another's alias (MPI_LONG_LONG, MPI_C_COMPLEX) takes the first's place. */
#define SG_BASIC_TYPES(X)                                                                         \
    X(MPI_CHAR) X(MPI_SHORT) X(MPI_INT) X(MPI_LONG) X(MPI_LONG_LONG_INT) X(MPI_SIGNED_CHAR)     \
    X(MPI_UNSIGNED_CHAR) X(MPI_UNSIGNED_SHORT) X(MPI_UNSIGNED) X(MPI_UNSIGNED_LONG)              \
    X(MPI_UNSIGNED_LONG_LONG) X(MPI_FLOAT) X(MPI_DOUBLE) X(MPI_LONG_DOUBLE) X(MPI_WCHAR)         \
    X(MPI_C_BOOL) X(MPI_INT8_T) X(MPI_INT16_T) X(MPI_INT32_T) X(MPI_INT64_T) X(MPI_UINT8_T)      \
    X(MPI_UINT16_T) X(MPI_UINT32_T) X(MPI_UINT64_T) X(MPI_AINT) X(MPI_COUNT) X(MPI_OFFSET)       \
    X(MPI_C_FLOAT_COMPLEX) X(MPI_C_DOUBLE_COMPLEX) X(MPI_C_LONG_DOUBLE_COMPLEX) X(MPI_BYTE)     \
    X(MPI_PACKED) X(MPI_INTEGER) X(MPI_REAL) X(MPI_DOUBLE_PRECISION) X(MPI_COMPLEX)              \
    X(MPI_LOGICAL) X(MPI_CHARACTER) X(MPI_DOUBLE_COMPLEX) X(MPI_INTEGER1) X(MPI_INTEGER2)        \
    X(MPI_INTEGER4) X(MPI_INTEGER8) X(MPI_REAL4) X(MPI_REAL8) X(MPI_REAL16) X(MPI_COMPLEX8)      \
    X(MPI_COMPLEX16) X(MPI_COMPLEX32) X(MPI_CXX_BOOL) X(MPI_CXX_FLOAT_COMPLEX)                   \
    X(MPI_CXX_DOUBLE_COMPLEX) X(MPI_CXX_LONG_DOUBLE_COMPLEX)

static int basic_index(MPI_Datatype type)
{
    int index = 0;
#define SG_BASIC_MATCH(T)                                                                         \
    if (T != MPI_DATATYPE_NULL && type == T)                                                      \
        return index;                                                                             \
    index++;
    SG_BASIC_TYPES(SG_BASIC_MATCH)
#undef SG_BASIC_MATCH
    return -1;
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

/* A predefined datatype: a basic one, a pair of two, or (the Fortran
 * parameterized types, MPI_Type_create_f90_*, and whatever predefined type
 * the table above lacks) one told apart by its size and kind. */
static int named_signature(MPI_Datatype type, int combiner, struct sg_signature *sig)
{
    int index = basic_index(type);
    struct sg_pair pair;
    if (index >= 0) {
        *sig = sg_signature_basic((unsigned)index);
    } else if (sg_pair_of(type, &pair)) {
        *sig = sg_signature_then(sg_signature_basic((unsigned)basic_index(pair.first)),
                                 sg_signature_basic((unsigned)basic_index(pair.second)));
    } else {
        int size, err = PMPI_Type_size(type, &size);
        if (err != MPI_SUCCESS)
            return err;
        *sig = sg_signature_basic(1024u + 64u * (unsigned)combiner + (unsigned)size);
    }
    return MPI_SUCCESS;
}

static uint64_t product(uint64_t a, uint64_t b)
{
    uint64_t p;
    return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}

static int signature_of(MPI_Datatype type, struct sg_signature *sig);

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

/* How many old elements a darray holds: the indices this process holds
 * along each dimension, multiplied. */
static uint64_t darray_elements(const int *ints)
{
    int rank = ints[1], dims = ints[2];
    const int *gsizes = ints + 3, *distribs = ints + 3 + dims, *dargs = ints + 3 + 2 * dims,
              *psizes = ints + 3 + 3 * dims;
    uint64_t n = 1;
    for (int d = 0; d < dims; d++)
        n = product(n, (uint64_t)sg_darray_held(gsizes[d], distribs[d], dargs[d], psizes[d],
                                                sg_darray_coordinate(rank, dims, psizes, d),
                                                NULL));
    return n;
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

/* A constructor not decoded here (one of an older MPI): as many of its
 * first datatype as the MPI counts basic elements in it. */
static int undecoded(MPI_Datatype type, const struct sg_signature *inner, int nd,
                     struct sg_signature *sig)
{
    uint64_t elements;
    int err = counted_by_mpi(type, &elements);
    if (err != MPI_SUCCESS)
        return err;
    if (nd > 0 && inner[0].count > 0)
        *sig = sg_signature_repeat(inner[0], elements / inner[0].count);
    else
        *sig = sg_signature_repeat(sg_signature_basic(2048u), elements);
    return MPI_SUCCESS;
}

/* A derived type's tuple from its constructor's arguments. */
static int decode(MPI_Datatype type, int combiner, int ni, int na, int nd,
                  struct sg_signature *sig)
{
    int *ints = malloc(((size_t)ni + 1) * sizeof *ints);
    MPI_Aint *addresses = malloc(((size_t)na + 1) * sizeof *addresses);
    MPI_Datatype *types = malloc(((size_t)nd + 1) * sizeof *types);
    struct sg_signature *inner = calloc((size_t)nd + 1, sizeof *inner);
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
    for (int i = 0; i < nd && err == MPI_SUCCESS; i++)
        err = signature_of(types[i], &inner[i]);
    uint64_t times = 0; /* of inner[0], for the constructors of one datatype */
    int by_times = 1;
    if (err == MPI_SUCCESS) {
        switch (combiner) {
        case MPI_COMBINER_DUP:
        case MPI_COMBINER_RESIZED: times = 1; break;
        case MPI_COMBINER_CONTIGUOUS: times = (uint64_t)ints[0]; break;
        case MPI_COMBINER_VECTOR:
        case MPI_COMBINER_HVECTOR:
        case MPI_COMBINER_INDEXED_BLOCK:
        case MPI_COMBINER_HINDEXED_BLOCK: times = (uint64_t)ints[0] * (uint64_t)ints[1]; break;
        case MPI_COMBINER_INDEXED:
        case MPI_COMBINER_HINDEXED: /* every block of the one datatype */
            for (int i = 0; i < ints[0]; i++)
                times += (uint64_t)ints[1 + i];
            break;
        case MPI_COMBINER_SUBARRAY: /* ndims, sizes, subsizes, starts, order */
            times = 1;
            for (int i = 0; i < ints[0]; i++)
                times = product(times, (uint64_t)ints[1 + ints[0] + i]);
            break;
        case MPI_COMBINER_DARRAY: times = darray_elements(ints); break;
        case MPI_COMBINER_STRUCT:
            by_times = 0;
            *sig = SG_SIGNATURE_EMPTY;
            for (int i = 0; i < ints[0]; i++)
                *sig = sg_signature_then(*sig,
                                         sg_signature_repeat(inner[i], (uint64_t)ints[1 + i]));
            break;
        case MPI_COMBINER_F90_REAL:
        case MPI_COMBINER_F90_COMPLEX:
        case MPI_COMBINER_F90_INTEGER: /* a predefined type of a given precision */
            by_times = 0;
            err = named_signature(type, combiner, sig);
            break;
        default:
            by_times = 0;
            err = undecoded(type, inner, nd, sig);
            break;
        }
        if (err == MPI_SUCCESS && by_times)
            *sig = sg_signature_repeat(inner[0], times);
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
    return err;
}

/* ---- the caches ------------------------------------------------------------ */

/* The predefined types this thread has met: their handles never change
 * (nor become a derived type's), so a call of one asks the MPI nothing. */
#define NAMED_SLOTS 8
struct named_type {
    MPI_Datatype type;
    struct sg_signature sig; /* count 0: the slot is empty */
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
    return slot->sig.count != 0 && slot->type == type ? slot : NULL;
}

/* A derived type's tuple, on it: the attribute's value points to a copy
 * (MPI_Type_dup makes a DUP, decoded through the original's). */
static int keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

static int delete_signature(MPI_Datatype type, int key, void *value, void *extra)
{
    (void)type, (void)key, (void)extra;
    free(value);
    return MPI_SUCCESS;
}

static void make_keyval(void)
{
    if (PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_signature, &keyval, NULL) !=
        MPI_SUCCESS)
        keyval = MPI_KEYVAL_INVALID;
}

static int signature_of(MPI_Datatype type, struct sg_signature *sig)
{
    const struct named_type *met = named_known(type);
    if (met != NULL) {
        *sig = met->sig;
        return MPI_SUCCESS;
    }
    int ni, na, nd, combiner, err, size;
    if ((err = PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner)) != MPI_SUCCESS)
        return err;
    if (combiner == MPI_COMBINER_NAMED) {
        if ((err = named_signature(type, combiner, sig)) != MPI_SUCCESS)
            return err;
        if (PMPI_Type_size(type, &size) == MPI_SUCCESS)
            named[named_slot(type)] = (struct named_type){type, *sig, size};
        return MPI_SUCCESS;
    }
    pthread_once(&keyval_once, make_keyval);
    struct sg_signature *cached;
    int found = 0;
    if (keyval != MPI_KEYVAL_INVALID &&
        PMPI_Type_get_attr(type, keyval, &cached, &found) == MPI_SUCCESS && found) {
        *sig = *cached;
        return MPI_SUCCESS;
    }
    if ((err = decode(type, combiner, ni, na, nd, sig)) != MPI_SUCCESS)
        return err;
    if (keyval != MPI_KEYVAL_INVALID && (cached = malloc(sizeof *cached)) != NULL) {
        *cached = *sig;
        if (PMPI_Type_set_attr(type, keyval, cached) != MPI_SUCCESS)
            free(cached);
    }
    return MPI_SUCCESS;
}

int sg_type_signature(MPI_Datatype type, struct sg_signature *sig)
{
    return signature_of(type, sig);
}

int sg_type_elements(MPI_Datatype type, uint64_t *elements)
{
    struct sg_signature sig;
    int err = signature_of(type, &sig);
    if (err == MPI_SUCCESS)
        *elements = sig.count;
    return err;
}

int sg_type_measure(MPI_Datatype type, int *size, uint64_t *elements)
{
    const struct named_type *known = named_known(type);
    if (known != NULL) {
        *size = known->size;
        *elements = known->sig.count;
        return MPI_SUCCESS;
    }
    int err = PMPI_Type_size(type, size);
    return err != MPI_SUCCESS ? err : sg_type_elements(type, elements);
}

int sg_type_met_predefined(MPI_Datatype type) { return named_known(type) != NULL; }
