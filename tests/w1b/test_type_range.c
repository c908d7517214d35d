/* test_type_range: sg_type_range against the MPI's own packing.
 *
 * For random datatypes nested up to three deep (every constructor the layer
 * decodes: contiguous, vector, hvector, indexed, hindexed, indexed_block,
 * hindexed_block, struct, resized with a negative lb, dup, subarray in C
 * and Fortran order, over basic types and the MINLOC pair types) and for
 * every run [a, b) of basic elements of 1 to 3 elements of the type: the
 * bytes MPI_Pack takes through the range type must be exactly bytes
 * off(a)..off(b) of what it takes through the whole array. off(a) comes
 * from the type map the test builds beside each type (itself checked
 * against MPI_Pack of the whole array; MPI_Get_elements on partial byte
 * counts is no oracle: MPICH's is not monotonic). Then random darrays of
 * MPI_INT (1 to 3 dimensions, C and Fortran order, NONE, BLOCK and CYCLIC
 * with default and given dargs), whose map the MPI gives (MPI_Pack of an
 * array of its own indices). One
 * process; on any difference a message naming the type's recipe and the
 * run, and exit status 1. */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workarounds.h"

static uint64_t state = 88172645463325252u;

static int random_below(int n)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (int)(state % (uint64_t)n);
}

static char recipe[4096];

static void say(const char *format, ...)
{
    size_t used = strlen(recipe);
    va_list args;
    va_start(args, format);
    vsnprintf(recipe + used, sizeof recipe - used, format, args);
    va_end(args);
}

static void fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "test_type_range: ");
    vfprintf(stderr, format, args);
    va_end(args);
    fprintf(stderr, "\n  type: %s\n", recipe);
    exit(1);
}

/* A datatype's type map as the test builds it, independently of the
 * layer: each basic element's displacement and size, in order. */
struct map {
    size_t count;
    MPI_Aint *at;
    int *size;
};

static void put(struct map *m, MPI_Aint at, int size)
{
    m->at = realloc(m->at, (m->count + 1) * sizeof *m->at);
    m->size = realloc(m->size, (m->count + 1) * sizeof *m->size);
    m->at[m->count] = at;
    m->size[m->count++] = size;
}

/* `times` copies of `old`'s map, `step` bytes apart, from `at`. */
static void repeat(struct map *m, const struct map *old, int times, MPI_Aint at, MPI_Aint step)
{
    for (int t = 0; t < times; t++)
        for (size_t e = 0; e < old->count; e++)
            put(m, at + (MPI_Aint)t * step + old->at[e], old->size[e]);
}

struct built {
    MPI_Datatype type;
    struct map map;
};

/* Free a derived type: the test keeps few alive (MPICH 4.0.2 packs a
 * one-byte derived type as 0 bytes once some 500 derived types are alive). */
static void release(struct built *b)
{
    int ignored, combiner;
    MPI_Type_get_envelope(b->type, &ignored, &ignored, &ignored, &combiner);
    if (combiner != MPI_COMBINER_NAMED)
        MPI_Type_free(&b->type);
    free(b->map.at);
    free(b->map.size);
}

static struct built random_type(int depth)
{
    /* the basic types and the pair types, with their maps on x86-64 */
    static const struct {
        MPI_Datatype type;
        const char *name;
        int elements, size[2];
        MPI_Aint second_at;
    } basic[] = {{MPI_INT, "int", 1, {4}, 0},          {MPI_DOUBLE, "double", 1, {8}, 0},
                 {MPI_CHAR, "char", 1, {1}, 0},        {MPI_SHORT, "short", 1, {2}, 0},
                 {MPI_2INT, "2int", 2, {4, 4}, 4},     {MPI_DOUBLE_INT, "double_int", 2, {8, 4}, 8},
                 {MPI_SHORT_INT, "short_int", 2, {2, 4}, 4},
                 {MPI_LONG_DOUBLE_INT, "long_double_int", 2, {16, 4}, 16}};
    struct built r = {MPI_DATATYPE_NULL, {0, NULL, NULL}};
    if (depth == 0 || random_below(4) == 0) {
        int i = random_below((int)(sizeof basic / sizeof *basic));
        say("%s", basic[i].name);
        r.type = basic[i].type;
        put(&r.map, 0, basic[i].size[0]);
        if (basic[i].elements == 2)
            put(&r.map, basic[i].second_at, basic[i].size[1]);
        return r;
    }
    struct built old, second;
    int kind = random_below(11), count = 1 + random_below(4), length = 1 + random_below(3);
    int lengths[4], at[4];
    MPI_Aint bytes[4], extent;
    switch (kind) {
    case 0:
        say("contiguous(%d, ", count);
        old = random_type(depth - 1);
        extent = sg_extent_of(old.type);
        MPI_Type_contiguous(count, old.type, &r.type);
        repeat(&r.map, &old.map, count, 0, extent);
        break;
    case 1:
    case 2: {
        say("%svector(%d, %d, ", kind == 1 ? "" : "h", count, length);
        old = random_type(depth - 1);
        extent = sg_extent_of(old.type);
        /* a vector's stride past its blocks; an hvector's backwards */
        MPI_Aint step = kind == 1 ? (MPI_Aint)(length + 1) * extent
                                  : -(MPI_Aint)length * extent - 3;
        say(", stride %ld bytes", (long)step);
        if (kind == 1)
            MPI_Type_vector(count, length, length + 1, old.type, &r.type);
        else
            MPI_Type_create_hvector(count, length, step, old.type, &r.type);
        for (int i = 0; i < count; i++)
            repeat(&r.map, &old.map, length, (MPI_Aint)i * step, extent);
        break;
    }
    case 3:
    case 4: {
        int position = 0;
        for (int i = 0; i < count; i++) {
            lengths[i] = random_below(3); /* blocks of 0 too */
            at[i] = position + random_below(2);
            position = at[i] + lengths[i];
        }
        say("%sindexed(%d, ", kind == 3 ? "" : "h", count);
        old = random_type(depth - 1);
        extent = sg_extent_of(old.type);
        if (kind == 3) {
            MPI_Type_indexed(count, lengths, at, old.type, &r.type);
            for (int i = 0; i < count; i++)
                repeat(&r.map, &old.map, lengths[i], (MPI_Aint)at[i] * extent, extent);
        } else { /* the blocks in descending order */
            int reversed[4];
            for (int i = 0; i < count; i++) {
                bytes[i] = (MPI_Aint)at[count - 1 - i] * extent;
                reversed[i] = lengths[count - 1 - i];
            }
            MPI_Type_create_hindexed(count, reversed, bytes, old.type, &r.type);
            for (int i = 0; i < count; i++)
                repeat(&r.map, &old.map, reversed[i], bytes[i], extent);
        }
        break;
    }
    case 5:
    case 6:
        say("%sindexed_block(%d, %d, ", kind == 5 ? "" : "h", count, length);
        old = random_type(depth - 1);
        extent = sg_extent_of(old.type);
        for (int i = 0; i < count; i++) {
            at[i] = i * (length + 1);
            bytes[i] = (MPI_Aint)at[i] * extent;
        }
        if (kind == 5)
            MPI_Type_create_indexed_block(count, length, at, old.type, &r.type);
        else
            MPI_Type_create_hindexed_block(count, length, bytes, old.type, &r.type);
        for (int i = 0; i < count; i++)
            repeat(&r.map, &old.map, length, bytes[i], extent);
        break;
    case 7: {
        say("struct(");
        old = random_type(depth - 1);
        say(", ");
        second = random_type(depth - 1);
        MPI_Datatype types[2] = {old.type, second.type};
        int two[2] = {length, 1 + random_below(2)};
        MPI_Aint places[2] = {0, (MPI_Aint)length * sg_extent_of(old.type) + 8};
        MPI_Type_create_struct(2, two, places, types, &r.type);
        repeat(&r.map, &old.map, two[0], places[0], sg_extent_of(old.type));
        repeat(&r.map, &second.map, two[1], places[1], sg_extent_of(second.type));
        release(&second);
        break;
    }
    case 8:
        say("resized(-8, +16, ");
        old = random_type(depth - 1);
        MPI_Type_create_resized(old.type, -8, sg_extent_of(old.type) + 16, &r.type);
        repeat(&r.map, &old.map, 1, 0, 0);
        break;
    case 9:
        say("dup(");
        old = random_type(depth - 1);
        MPI_Type_dup(old.type, &r.type);
        repeat(&r.map, &old.map, 1, 0, 0);
        break;
    default: {
        int c_order = random_below(2);
        int sizes[2] = {3 + random_below(2), 4}, subsizes[2] = {2, 1 + random_below(3)},
            starts[2] = {random_below(2), random_below(2)};
        say("subarray(%s, %dx%d of %dx%d at %d,%d, ", c_order ? "C" : "F", subsizes[0],
            subsizes[1], sizes[0], sizes[1], starts[0], starts[1]);
        old = random_type(depth - 1);
        extent = sg_extent_of(old.type);
        MPI_Type_create_subarray(2, sizes, subsizes, starts,
                                 c_order ? MPI_ORDER_C : MPI_ORDER_FORTRAN, old.type, &r.type);
        int slow = c_order ? 0 : 1, fast = 1 - slow;
        for (int i = 0; i < subsizes[slow]; i++)
            for (int j = 0; j < subsizes[fast]; j++) {
                int x[2];
                x[slow] = starts[slow] + i;
                x[fast] = starts[fast] + j;
                MPI_Aint element = c_order ? (MPI_Aint)x[0] * sizes[1] + x[1]
                                           : (MPI_Aint)x[1] * sizes[0] + x[0];
                repeat(&r.map, &old.map, 1, element * extent, 0);
            }
        break;
    }
    }
    say(")");
    release(&old); /* the new type holds what it needs of it */
    return r;
}

static unsigned char *pack(const void *buffer, int count, MPI_Datatype type, int *bytes)
{
    int size;
    MPI_Pack_size(count, type, MPI_COMM_SELF, &size);
    unsigned char *packed = malloc((size_t)size + 1);
    *bytes = 0;
    MPI_Pack(buffer, count, type, packed, size, bytes, MPI_COMM_SELF);
    return packed;
}

static void check_range(const unsigned char *origin, MPI_Datatype type, int count,
                        const unsigned char *whole, const int *off, uint64_t a, uint64_t b)
{
    MPI_Datatype range;
    int err = sg_type_range(type, a, b - a, &range);
    if (err != MPI_SUCCESS)
        fail("sg_type_range(%llu, %llu) failed (%d)", (unsigned long long)a,
             (unsigned long long)(b - a), err);
    int bytes;
    unsigned char *piece = pack(origin, 1, range, &bytes);
    if (bytes != off[b] - off[a] || memcmp(piece, whole + off[a], (size_t)bytes) != 0)
        fail("elements [%llu, %llu) of %d: %d bytes packed through the range, bytes %d..%d of "
             "the whole expected%s",
             (unsigned long long)a, (unsigned long long)b, count, bytes, off[a], off[b],
             bytes == off[b] - off[a] ? ", and they differ" : "");
    free(piece);
    MPI_Type_free(&range);
}

/* Every run of an array of up to EVERY_RUN basic elements; of a longer
 * one, SAMPLED runs at random. */
#define EVERY_RUN 40
#define SAMPLED 400

static void check_type(struct built *t, int count)
{
    MPI_Datatype type = t->type;
    if (t->map.count == 0)
        return; /* no data at all (indexed blocks of 0): no run to cut */
    int ignored, combiner;
    MPI_Type_get_envelope(type, &ignored, &ignored, &ignored, &combiner);
    if (combiner != MPI_COMBINER_NAMED)
        MPI_Type_commit(&t->type);
    MPI_Aint lb, extent, true_lb, true_extent;
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &true_lb, &true_extent);
    /* element 0 at `origin`; every byte any element may touch lies inside */
    MPI_Aint low = true_lb < 0 ? true_lb : 0, high = true_lb + true_extent;
    if (extent > 0)
        high += (MPI_Aint)(count - 1) * extent;
    else
        low += (MPI_Aint)(count - 1) * extent;
    size_t span = (size_t)(high - low) + 64;
    unsigned char *buffer = malloc(span);
    for (size_t i = 0; i < span; i++)
        buffer[i] = (unsigned char)random_below(256);
    const unsigned char *origin = buffer - low;

    /* the array's packed bytes from the test's own map, and where each
     * basic element starts in them; then the MPI must pack the same */
    uint64_t n = t->map.count * (uint64_t)count;
    int *off = malloc((n + 1) * sizeof *off);
    size_t packed = 0;
    for (size_t i = 0; i < t->map.count; i++)
        packed += (size_t)t->map.size[i] * (size_t)count;
    unsigned char *expected = malloc(packed + 1);
    off[0] = 0;
    for (uint64_t e = 0; e < n; e++) {
        size_t i = e % t->map.count;
        MPI_Aint at = (MPI_Aint)(e / t->map.count) * extent + t->map.at[i];
        memcpy(expected + off[e], origin + at, (size_t)t->map.size[i]);
        off[e + 1] = off[e] + t->map.size[i];
    }
    int whole_bytes;
    unsigned char *whole = pack(origin, count, type, &whole_bytes);
    if (whole_bytes != off[n] || memcmp(whole, expected, (size_t)whole_bytes) != 0)
        fail("the test's own type map disagrees with MPI_Pack (%d bytes against %d)", off[n],
             whole_bytes);
    uint64_t k;
    if (sg_type_elements(type, &k) != MPI_SUCCESS || k != t->map.count)
        fail("sg_type_elements says %llu basic elements, the map holds %zu",
             (unsigned long long)k, t->map.count);
    if (n <= EVERY_RUN) {
        for (uint64_t a = 0; a <= n; a++)
            for (uint64_t b = a; b <= n; b++)
                check_range(origin, type, count, whole, off, a, b);
    } else {
        for (int r = 0; r < SAMPLED; r++) {
            uint64_t a = (uint64_t)random_below((int)n + 1), b = (uint64_t)random_below((int)n + 1);
            check_range(origin, type, count, whole, off, a < b ? a : b, a < b ? b : a);
        }
    }
    free(expected);
    free(off);
    free(whole);
    free(buffer);
}

/* A random darray of MPI_INT, its map taken from the MPI itself: MPI_Pack
 * of an array whose ints are their own indices gives the order in which
 * the darray holds them. */
static struct built random_darray(void)
{
    int dims = 1 + random_below(3), gsizes[3], distribs[3], dargs[3], psizes[3], size = 1;
    for (int d = 0; d < dims; d++) {
        gsizes[d] = 2 + random_below(5);
        psizes[d] = 1 + random_below(3);
        int kind = random_below(3);
        distribs[d] = kind == 0 ? MPI_DISTRIBUTE_NONE
                      : kind == 1 ? MPI_DISTRIBUTE_BLOCK
                                  : MPI_DISTRIBUTE_CYCLIC;
        if (distribs[d] == MPI_DISTRIBUTE_NONE)
            psizes[d] = 1;
        dargs[d] = MPI_DISTRIBUTE_DFLT_DARG;
        if (random_below(2) && distribs[d] == MPI_DISTRIBUTE_CYCLIC)
            dargs[d] = 1 + random_below(3);
        if (random_below(2) && distribs[d] == MPI_DISTRIBUTE_BLOCK)
            dargs[d] = (gsizes[d] + psizes[d] - 1) / psizes[d] + random_below(2);
        size *= psizes[d];
    }
    int rank = random_below(size), order = random_below(2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    say("darray(%s, rank %d of %d:", order == MPI_ORDER_C ? "C" : "F", rank, size);
    int total = 1;
    for (int d = 0; d < dims; d++) {
        say(" %d/%d %s(%d)", gsizes[d], psizes[d],
            distribs[d] == MPI_DISTRIBUTE_NONE    ? "none"
            : distribs[d] == MPI_DISTRIBUTE_BLOCK ? "block"
                                                  : "cyclic",
            dargs[d]);
        total *= gsizes[d];
    }
    say(", int)");
    struct built r = {MPI_DATATYPE_NULL, {0, NULL, NULL}};
    MPI_Type_create_darray(size, rank, dims, gsizes, distribs, dargs, psizes, order, MPI_INT,
                           &r.type);
    MPI_Type_commit(&r.type);
    int *indices = malloc((size_t)total * sizeof *indices), bytes;
    for (int i = 0; i < total; i++)
        indices[i] = i;
    int *held = (int *)pack(indices, 1, r.type, &bytes);
    for (int i = 0; i < bytes / (int)sizeof(int); i++)
        put(&r.map, (MPI_Aint)held[i] * (MPI_Aint)sizeof(int), sizeof(int));
    free(held);
    free(indices);
    return r;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int types = argc > 1 ? atoi(argv[1]) : 300;
    for (int t = 0; t < types; t++) {
        recipe[0] = '\0';
        struct built type = random_type(3);
        check_type(&type, 1 + random_below(3));
        release(&type);
    }
    for (int t = 0; t < types / 3; t++) {
        recipe[0] = '\0';
        struct built darray = random_darray();
        check_type(&darray, 1 + random_below(3));
        release(&darray);
    }
    printf("test_type_range: %d random datatypes and %d darrays, every run of their basic "
           "elements\n",
           types, types / 3);
    MPI_Finalize();
    return 0;
}
