/* test_w1b_prefix: W1-B of the prefix reductions against the plain call.
 *
 * Scan and Exscan run W1-B by pieces of their count, as Allreduce does: a
 * prefix is elementwise, so each piece's prefix is the call's. Every form:
 * blocking, and the I-form by a blocking and by a non-blocking runner;
 * MPI_IN_PLACE on no rank, every rank, or the odd ranks only (each rank's
 * own choice for a prefix); chunks of 2 and 5 elements of COUNT (7);
 * MPI_INT with MPI_SUM, MPI_UNSIGNED_CHAR with MPI_BXOR and the pair type
 * MPI_2INT with MPI_MAXLOC (pieces of whole pairs). The same call on the
 * same random data runs once plain (PMPI) and once through sg_w1b, and
 * every byte of both buffers (with margins) must agree on every rank, but
 * Exscan's receive buffer at rank 0, which MPI leaves undefined (only its
 * margins are compared). A derived type (2 MPI_INT contiguous) with
 * MPI_SUM is refused (-1) before any communication, its buffers untouched:
 * its operation is the user's (sg_split_risk).
 *
 * On any difference: a message naming the case, rank and byte on stderr, and
 * exit status 1. */
#include <inttypes.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workarounds.h"

#define TEST_PROGRAM "test_w1b_prefix"
#include "against_plain.h"

#define COUNT 7

struct setting {
    enum sg_routine routine; /* the blocking form */
    int form;                /* 0 blocking; I-form by a 1 blocking, 2 non-blocking runner */
    int in_place;            /* 0 none, 1 every rank, 2 the odd ranks */
    int chunk;
    MPI_Datatype type;
    MPI_Op op;
    const char *type_name;
};

static const char *const form_names[] = {"", " (I-form, blocking runner)",
                                         " (I-form, non-blocking runner)"};
static const char *const in_place_names[] = {"", ", MPI_IN_PLACE", ", MPI_IN_PLACE on odd ranks"};

static struct sg_call make_call(const struct setting *s, unsigned char *send, unsigned char *recv)
{
    int in_place = s->in_place == 1 || (s->in_place == 2 && rank % 2 == 1);
    return (struct sg_call){.routine = (enum sg_routine)sg_form_with(s->routine, s->form > 0, 0),
                            .sendbuf = in_place ? MPI_IN_PLACE : send, .recvbuf = recv,
                            .sendcount = COUNT, .recvcount = COUNT, .sendtype = s->type,
                            .recvtype = s->type, .op = s->op, .root = -1,
                            .comm = MPI_COMM_WORLD};
}

/* Whether this rank's receive buffer holds a result MPI defines. */
static int result_defined(const struct setting *s)
{
    return !(sg_routines[s->routine].reduces == SG_REDUCES_EXCLUSIVE_PREFIX && rank == 0);
}

/* Bytes [from, to) of both buffers (with margins) must agree. */
static void compare(const unsigned char *plain, const unsigned char *got, size_t from, size_t to,
                    const struct setting *s, const char *buffer)
{
    ptrdiff_t at = first_difference(plain + from, got + from, to - from);
    if (at != PTRDIFF_MAX) {
        size_t i = from + (size_t)(at + MARGIN);
        fail("%s%s, %s%s, chunk %d: %s byte %td is 0x%02x, the plain call gives 0x%02x",
             sg_routines[s->routine].name, form_names[s->form], s->type_name,
             in_place_names[s->in_place], s->chunk, buffer, (ptrdiff_t)i - MARGIN, got[i],
             plain[i]);
    }
}

/* Random bytes (integer sums wrap alike in any order). */
static void fill(unsigned char *buf, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        buf[i] = (unsigned char)next_random();
}

static void run_case(const struct setting *s, uint64_t number)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(s->type, &lb, &extent);
    size_t data = COUNT * (size_t)extent, bytes = data + 2 * MARGIN;
    unsigned char *plain_send = malloc(bytes), *plain_recv = malloc(bytes);
    unsigned char *send = malloc(bytes), *recv = malloc(bytes);
    if (!plain_send || !plain_recv || !send || !recv)
        fail("out of memory");
    state = number * 1000 + (uint64_t)rank;
    fill(plain_send, bytes);
    fill(plain_recv, bytes);
    memcpy(send, plain_send, bytes);
    memcpy(recv, plain_recv, bytes);

    struct sg_call plain = make_call(s, plain_send + MARGIN, plain_recv + MARGIN);
    run_plain(&plain);

    struct sg_call call = make_call(s, send + MARGIN, recv + MARGIN);
    struct sg_described d;
    sg_describe(&call, procs, rank, NULL, NULL, &d);
    struct sg_windows w = SG_WINDOWS_ONE;
    struct sg_runner runner = SG_RUNNER(&sg_pmpi, s->form == 2);
    uint64_t rounds = sg_w1b_rounds(&d, (uint64_t)s->chunk);
    int err = sg_w1b(&runner, &call, &d, (uint64_t)s->chunk, rounds, &w);
    int finished = sg_runner_finish(&runner);
    if (err != MPI_SUCCESS || finished != MPI_SUCCESS)
        fail("%s: sg_w1b failed (%d)", sg_routines[call.routine].name,
             err != MPI_SUCCESS ? err : finished);
    if (rounds != (uint64_t)((COUNT + s->chunk - 1) / s->chunk))
        fail("%s, chunk %d: %" PRIu64 " rounds", sg_routines[call.routine].name, s->chunk,
             rounds);
    compare(plain_send, send, 0, bytes, s, "send buffer");
    if (result_defined(s)) {
        compare(plain_recv, recv, 0, bytes, s, "receive buffer");
    } else { /* its margins only */
        compare(plain_recv, recv, 0, MARGIN, s, "receive buffer");
        compare(plain_recv, recv, MARGIN + data, bytes, s, "receive buffer");
    }
    free(plain_send);
    free(plain_recv);
    free(send);
    free(recv);
}

/* A derived type of one basic type: MPI_SUM is defined on it, but W1-B
 * splits only the predefined types' reductions, and says so before any
 * communication, on every rank alike. */
static void check_refused(enum sg_routine routine, MPI_Datatype derived)
{
    unsigned char send[2 * COUNT * sizeof(int)], recv[sizeof send], before[sizeof send];
    memset(send, 1, sizeof send);
    memset(recv, 7, sizeof recv);
    memcpy(before, recv, sizeof recv);
    struct setting s = {routine, 0, 0, 2, derived, MPI_SUM, "2 MPI_INT contiguous"};
    struct sg_call call = make_call(&s, send, recv);
    struct sg_described d;
    sg_describe(&call, procs, rank, NULL, NULL, &d);
    struct sg_windows w = SG_WINDOWS_ONE;
    struct sg_runner runner = SG_RUNNER(&sg_pmpi, 0);
    int err = sg_w1b(&runner, &call, &d, 2, sg_w1b_rounds(&d, 2), &w);
    int finished = sg_runner_finish(&runner);
    if (err != -1 || finished != MPI_SUCCESS || memcmp(recv, before, sizeof recv) != 0)
        fail("%s of a derived type: sg_w1b returned %d (expected -1, nothing received)",
             sg_routines[routine].name, err);
    if (sg_split_risk(&call) == NULL)
        fail("%s of a derived type: sg_split_risk gives no reason", sg_routines[routine].name);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);

    const struct {
        MPI_Datatype type;
        MPI_Op op;
        const char *name;
    } types[] = {{MPI_INT, MPI_SUM, "MPI_INT, MPI_SUM"},
                 {MPI_UNSIGNED_CHAR, MPI_BXOR, "MPI_UNSIGNED_CHAR, MPI_BXOR"},
                 {MPI_2INT, MPI_MAXLOC, "MPI_2INT, MPI_MAXLOC"}};
    const enum sg_routine routines[] = {SG_MPI_Scan, SG_MPI_Exscan};
    const int chunks[] = {2, 5};
    uint64_t number = 0;
    for (size_t r = 0; r < sizeof routines / sizeof *routines; r++)
        for (int form = 0; form < 3; form++)
            for (int in_place = 0; in_place < 3; in_place++)
                for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++)
                    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
                        struct setting s = {routines[r], form,        in_place,     chunks[c],
                                            types[t].type, types[t].op, types[t].name};
                        run_case(&s, ++number);
                    }
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (size_t r = 0; r < sizeof routines / sizeof *routines; r++)
        check_refused(routines[r], pair);
    MPI_Type_free(&pair);
    if (rank == 0)
        printf("test_w1b_prefix: %" PRIu64 " cases agree with the plain call at P = %d, "
               "a derived type refused\n",
               number, procs);
    MPI_Finalize();
    return 0;
}
