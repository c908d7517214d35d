/* sg_type_signature (call/type_signature.c) against the standard's
 * notion of a type signature: datatypes built differently with the same
 * sequence of basic datatypes have the same tuple; a different sequence
 * (other basic datatypes, another order, another length) does not.
 *
 *   type_signatures     (any P; every rank checks)
 *
 * Exit 0 and rank 0 prints "type_signatures: N pairs right", or 1 naming
 * each wrong pair. */
#include "collective.h"

#include <stdio.h>

static int checked, wrong;

static MPI_Datatype committed(MPI_Datatype type)
{
    MPI_Type_commit(&type);
    return type;
}

static void expect(const char *what, MPI_Datatype a, int count_a, MPI_Datatype b, int count_b,
                   int equal)
{
    struct sg_signature x, y;
    if (sg_type_signature(a, &x) != MPI_SUCCESS || sg_type_signature(b, &y) != MPI_SUCCESS) {
        fprintf(stderr, "type_signatures: %s: no signature\n", what);
        wrong++;
        return;
    }
    x = sg_signature_repeat(x, (uint64_t)count_a);
    y = sg_signature_repeat(y, (uint64_t)count_b);
    int same = sg_signature_same(x, y);
    checked++;
    if (same != equal) {
        fprintf(stderr, "type_signatures: %s: %s, expected %s\n", what,
                same ? "equal" : "different", equal ? "equal" : "different");
        wrong++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Datatype two_int, vector, indexed, hindexed_block, resized, dup, subarray, pair, float_int,
        int_float, nested, big, three_int;
    MPI_Type_contiguous(2, MPI_INT, &two_int);
    two_int = committed(two_int);
    MPI_Type_vector(2, 1, 3, MPI_INT, &vector); /* 2 ints, 12 bytes apart */
    vector = committed(vector);
    int lengths[] = {1, 2}, displs[] = {5, 0};
    MPI_Type_indexed(2, lengths, displs, MPI_INT, &indexed);
    indexed = committed(indexed);
    MPI_Aint block_at[] = {16, 0, 40};
    MPI_Type_create_hindexed_block(3, 2, block_at, MPI_INT, &hindexed_block);
    hindexed_block = committed(hindexed_block);
    MPI_Type_create_resized(two_int, 0, 64, &resized);
    resized = committed(resized);
    MPI_Type_dup(vector, &dup);
    int sizes[] = {4, 5}, subsizes[] = {2, 3}, starts[] = {1, 1};
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &subarray);
    subarray = committed(subarray);
    int ones[] = {1, 1};
    MPI_Aint at[] = {0, 8};
    MPI_Datatype ints[] = {MPI_INT, MPI_INT}, fi[] = {MPI_FLOAT, MPI_INT},
                 iff[] = {MPI_INT, MPI_FLOAT};
    MPI_Type_create_struct(2, ones, at, ints, &pair);
    pair = committed(pair);
    MPI_Type_create_struct(2, ones, at, fi, &float_int);
    float_int = committed(float_int);
    MPI_Type_create_struct(2, ones, at, iff, &int_float);
    int_float = committed(int_float);
    int nested_lengths[] = {1, 1};
    MPI_Aint nested_at[] = {0, 16};
    MPI_Datatype nested_types[] = {two_int, MPI_DOUBLE};
    MPI_Type_create_struct(2, nested_lengths, nested_at, nested_types, &nested);
    nested = committed(nested);
    MPI_Type_contiguous(1000000, nested, &big);
    big = committed(big);
    MPI_Type_contiguous(3, MPI_INT, &three_int);
    three_int = committed(three_int);

    /* what; a, count of a; b, count of b; whether their signatures are equal */
    const struct pair_case {
        const char *what;
        MPI_Datatype a;
        int count_a;
        MPI_Datatype b;
        int count_b, equal;
    } cases[] = {
        {"contiguous(2, INT) ~ 2 x INT", two_int, 1, MPI_INT, 2, 1},
        {"vector(2, 1, 3, INT) ~ 2 x INT", vector, 1, MPI_INT, 2, 1},
        {"indexed({1, 2}, INT) ~ 3 x INT", indexed, 1, MPI_INT, 3, 1},
        {"hindexed_block(3, 2, INT) ~ 6 x INT", hindexed_block, 1, MPI_INT, 6, 1},
        {"resized(contiguous(2, INT)) ~ 2 x INT", resized, 1, MPI_INT, 2, 1},
        {"dup(vector) ~ 2 x INT", dup, 1, MPI_INT, 2, 1},
        {"dup(vector), twice (cached) ~ vector", dup, 1, vector, 1, 1},
        {"subarray(2 x 3 of INT) ~ 6 x INT", subarray, 1, MPI_INT, 6, 1},
        {"struct{INT, INT} ~ MPI_2INT", pair, 1, MPI_2INT, 1, 1},
        {"struct{FLOAT, INT} ~ MPI_FLOAT_INT", float_int, 1, MPI_FLOAT_INT, 1, 1},
        {"3 x contiguous(1000000, struct{contiguous(2, INT), DOUBLE})", big, 3, nested, 3000000, 1},
        {"contiguous(3, INT) ~ indexed({1, 2}, INT)", three_int, 1, indexed, 1, 1},
        {"2 x INT vs 1 x DOUBLE", MPI_INT, 2, MPI_DOUBLE, 1, 0},
        {"INT vs FLOAT", MPI_INT, 1, MPI_FLOAT, 1, 0},
        {"struct{FLOAT, INT} vs struct{INT, FLOAT}", float_int, 1, int_float, 1, 0},
        {"contiguous(3, INT) vs contiguous(2, INT)", three_int, 1, two_int, 1, 0},
        {"MPI_CHAR vs MPI_SIGNED_CHAR", MPI_CHAR, 1, MPI_SIGNED_CHAR, 1, 0},
        {"MPI_INT vs MPI_INTEGER", MPI_INT, 1, MPI_INTEGER, 1, 0},
        {"MPI_2INT vs MPI_FLOAT_INT", MPI_2INT, 1, MPI_FLOAT_INT, 1, 0},
        {"128 x INT vs 128 x FLOAT (equal under XOR and rotation)", MPI_INT, 128, MPI_FLOAT, 128,
         0},
        {"4096 x contiguous(2, INT) vs 8192 x FLOAT", two_int, 4096, MPI_FLOAT, 8192, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        expect(cases[i].what, cases[i].a, cases[i].count_a, cases[i].b, cases[i].count_b,
               cases[i].equal);

    MPI_Datatype all[] = {two_int, vector, indexed, hindexed_block, resized, dup, subarray, pair,
                          float_int, int_float, nested, big, three_int};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        MPI_Type_free(&all[i]);
    int any, rank;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 && any == 0)
        fprintf(stderr, "type_signatures: %d pairs right\n", checked);
    MPI_Finalize();
    return any != 0;
}
