/* The type signature of an MPI datatype as a hash tuple (signature.h),
 * decoded with MPI_Type_get_envelope / MPI_Type_get_contents and cached on
 * the datatype (an attribute, copied by MPI_Type_dup). */
#include "type_signature.h"

#include <pthread.h>
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

/* The predefined pairs (MINLOC/MAXLOC), each the signature of its two
 * basic datatypes. */
#define SG_PAIR_TYPES(X)                                                                          \
    X(MPI_FLOAT_INT, MPI_FLOAT, MPI_INT) X(MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT)                  \
    X(MPI_LONG_INT, MPI_LONG, MPI_INT) X(MPI_2INT, MPI_INT, MPI_INT)                             \
    X(MPI_SHORT_INT, MPI_SHORT, MPI_INT) X(MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT)        \
    X(MPI_2REAL, MPI_REAL, MPI_REAL) X(MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION,              \
                                        MPI_DOUBLE_PRECISION) X(MPI_2INTEGER, MPI_INTEGER, MPI_INTEGER)

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

/* A named datatype: a basic one, a predefined pair, or (the Fortran
 * parameterized types, MPI_Type_create_f90_*: NAMED in some MPIs) one
 * told apart by its size and kind of combiner. */
static int named_signature(MPI_Datatype type, int combiner, struct sg_signature *sig)
{
    int index = basic_index(type);
    if (index >= 0) {
        *sig = sg_signature_basic((unsigned)index);
        return MPI_SUCCESS;
    }
#define SG_PAIR_MATCH(T, A, B)                                                                    \
    if (type == T) {                                                                              \
        *sig = sg_signature_then(sg_signature_basic((unsigned)basic_index(A)),                    \
                                 sg_signature_basic((unsigned)basic_index(B)));                   \
        return MPI_SUCCESS;                                                                       \
    }
    SG_PAIR_TYPES(SG_PAIR_MATCH)
#undef SG_PAIR_MATCH
    int size;
    int err = PMPI_Type_size(type, &size);
    if (err != MPI_SUCCESS)
        return err;
    *sig = sg_signature_basic(1024u + 64u * (unsigned)combiner + (unsigned)size);
    return MPI_SUCCESS;
}

/* The contents' datatypes that are not named are the caller's to free. */
static void free_contents_types(MPI_Datatype *types, int count)
{
    for (int i = 0; i < count; i++) {
        int integers, addresses, datatypes, combiner;
        if (PMPI_Type_get_envelope(types[i], &integers, &addresses, &datatypes, &combiner) ==
                MPI_SUCCESS &&
            combiner != MPI_COMBINER_NAMED)
            PMPI_Type_free(&types[i]);
    }
}

/* `old` repeated `times` times. */
static int repeated(MPI_Datatype old, uint64_t times, struct sg_signature *sig)
{
    struct sg_signature one;
    int err = sg_type_signature(old, &one);
    if (err == MPI_SUCCESS)
        *sig = sg_signature_repeat(one, times);
    return err;
}

static int derived_signature(MPI_Datatype type, int integers, int addresses, int datatypes,
                             int combiner, struct sg_signature *sig)
{
    int *ints = malloc(((size_t)integers + 1) * sizeof *ints);
    MPI_Aint *addrs = malloc(((size_t)addresses + 1) * sizeof *addrs);
    MPI_Datatype *types = malloc(((size_t)datatypes + 1) * sizeof *types);
    if (ints == NULL || addrs == NULL || types == NULL) {
        free(ints);
        free(addrs);
        free(types);
        return MPI_ERR_NO_MEM;
    }
    int err = PMPI_Type_get_contents(type, integers, addresses, datatypes, ints, addrs, types);
    if (err != MPI_SUCCESS) {
        free(ints);
        free(addrs);
        free(types);
        return err;
    }
    uint64_t times = 0;
    switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        times = 1;
        break;
    case MPI_COMBINER_CONTIGUOUS:
        times = (uint64_t)ints[0];
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        times = (uint64_t)ints[0] * (uint64_t)ints[1];
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED: /* every block of the same datatype */
        for (int i = 0; i < ints[0]; i++)
            times += (uint64_t)ints[1 + i];
        break;
    case MPI_COMBINER_SUBARRAY: /* ndims, sizes, subsizes, starts, order */
        times = 1;
        for (int i = 0; i < ints[0]; i++)
            times *= (uint64_t)ints[1 + ints[0] + i];
        break;
    case MPI_COMBINER_STRUCT: {
        struct sg_signature all = SG_SIGNATURE_EMPTY, block;
        for (int i = 0; err == MPI_SUCCESS && i < ints[0]; i++)
            if ((err = repeated(types[i], (uint64_t)ints[1 + i], &block)) == MPI_SUCCESS)
                all = sg_signature_then(all, block);
        *sig = all;
        break;
    }
    default: { /* DARRAY and whatever else: as many old elements as fit its size */
        int size, old_size;
        if ((err = PMPI_Type_size(type, &size)) == MPI_SUCCESS &&
            (err = PMPI_Type_size(types[0], &old_size)) == MPI_SUCCESS)
            times = old_size > 0 ? (uint64_t)(size / old_size) : 0;
        break;
    }
    }
    if (err == MPI_SUCCESS && combiner != MPI_COMBINER_STRUCT)
        err = repeated(types[0], times, sig);
    free_contents_types(types, datatypes);
    free(ints);
    free(addrs);
    free(types);
    return err;
}

/* ---- the cache ----------------------------------------------------------- */

static int keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

static int copy_signature(MPI_Datatype type, int key, void *extra, void *in, void *out, int *flag)
{
    (void)type, (void)key, (void)extra;
    struct sg_signature *copy = malloc(sizeof *copy);
    if (copy == NULL)
        return MPI_ERR_NO_MEM;
    *copy = *(const struct sg_signature *)in;
    *(void **)out = copy;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_signature(MPI_Datatype type, int key, void *value, void *extra)
{
    (void)type, (void)key, (void)extra;
    free(value);
    return MPI_SUCCESS;
}

static void create_keyval(void)
{
    if (PMPI_Type_create_keyval(copy_signature, delete_signature, &keyval, NULL) != MPI_SUCCESS)
        keyval = MPI_KEYVAL_INVALID;
}

int sg_type_signature(MPI_Datatype type, struct sg_signature *sig)
{
    int integers, addresses, datatypes, combiner;
    int err = PMPI_Type_get_envelope(type, &integers, &addresses, &datatypes, &combiner);
    if (err != MPI_SUCCESS)
        return err;
    if (combiner == MPI_COMBINER_NAMED || combiner == MPI_COMBINER_F90_REAL ||
        combiner == MPI_COMBINER_F90_COMPLEX || combiner == MPI_COMBINER_F90_INTEGER)
        return named_signature(type, combiner, sig);
    pthread_once(&keyval_once, create_keyval);
    int found = 0;
    struct sg_signature *cached = NULL;
    if (keyval != MPI_KEYVAL_INVALID &&
        PMPI_Type_get_attr(type, keyval, &cached, &found) == MPI_SUCCESS && found) {
        *sig = *cached;
        return MPI_SUCCESS;
    }
    if ((err = derived_signature(type, integers, addresses, datatypes, combiner, sig)) !=
        MPI_SUCCESS)
        return err;
    if (keyval != MPI_KEYVAL_INVALID && (cached = malloc(sizeof *cached)) != NULL) {
        *cached = *sig;
        if (PMPI_Type_set_attr(type, keyval, cached) != MPI_SUCCESS)
            free(cached);
    }
    return MPI_SUCCESS;
}
