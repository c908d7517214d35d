/* test_w1b_regular: W1-B of the regular routines against the plain call.
 *
 * Scatter, Gather, Allgather and Alltoall run W1-B as their v-form, a piece
 * of every block a contiguous sub-buffer, over windows of consecutive ranks
 * (Alltoall: over pairings of windows). At real scale a window holds the ranks
 * whose blocks span at most INT_MAX bytes; here the windows are made small:
 * 1 and 2 ranks, and all P (sg_windows_plan's choice for these
 * blocks, checked first, with a block just over INT_MAX / 2 bytes and one of
 * zero bytes). Every form: blocking, and the I-form by a blocking and by a
 * non-blocking runner; roots 0 and P - 1; MPI_IN_PLACE or not; chunks of 2
 * and 7 elements of blocks of 7; MPI_INT and a type with holes (2 MPI_INT
 * at lb -4, extent 24). The same call on the same random data runs once
 * plain (PMPI) and once through sg_w1b, and every byte of both buffers
 * (with margins) must agree on every rank.
 *
 * On any difference: a message naming the case, rank and byte on stderr, and
 * exit status 1. */
#include <inttypes.h>
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workarounds.h"

#define TEST_PROGRAM "test_w1b_regular"
#include "against_plain.h"

#define BLOCK 7

struct setting {
    enum sg_routine routine; /* the blocking form */
    int form;                /* 0 blocking; I-form by a 1 blocking, 2 non-blocking runner */
    int root, in_place, ranks, chunk;
    MPI_Datatype type;
    const char *type_name;
};

static const char *const form_names[] = {"", " (I-form, blocking runner)",
                                         " (I-form, non-blocking runner)"};

static struct sg_call make_call(const struct setting *s, unsigned char *send, unsigned char *recv)
{
    int root = s->routine == SG_MPI_Scatter || s->routine == SG_MPI_Gather ? s->root : -1;
    int in_place = s->in_place && (root < 0 || rank == root);
    struct sg_call c = {.routine = (enum sg_routine)sg_form_with(s->routine, s->form > 0, 0),
                        .sendbuf = send, .recvbuf = recv, .sendcount = BLOCK,
                        .recvcount = BLOCK, .sendtype = s->type, .recvtype = s->type,
                        .root = root, .comm = MPI_COMM_WORLD};
    if (in_place && s->routine == SG_MPI_Scatter)
        c.recvbuf = MPI_IN_PLACE;
    else if (in_place)
        c.sendbuf = MPI_IN_PLACE;
    return c;
}

static void compare(const unsigned char *plain, const unsigned char *got, size_t bytes,
                    const struct setting *s, const char *buffer)
{
    ptrdiff_t at = first_difference(plain, got, bytes);
    if (at != PTRDIFF_MAX)
        fail("%s%s, %s%s, root %d, windows of %d ranks, chunk %d: %s byte %td is 0x%02x, "
             "the plain call gives 0x%02x",
             sg_routines[s->routine].name, form_names[s->form], s->type_name,
             s->in_place ? ", MPI_IN_PLACE" : "", s->root, s->ranks, s->chunk, buffer, at,
             got[at + MARGIN], plain[at + MARGIN]);
}

static void run_case(const struct setting *s, uint64_t number)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(s->type, &lb, &extent);
    size_t bytes = (size_t)procs * BLOCK * (size_t)extent + 2 * MARGIN;
    unsigned char *plain_send = malloc(bytes), *plain_recv = malloc(bytes);
    unsigned char *send = malloc(bytes), *recv = malloc(bytes);
    if (!plain_send || !plain_recv || !send || !recv)
        fail("out of memory");
    state = number * 1000 + (uint64_t)rank;
    for (size_t i = 0; i < bytes; i++)
        plain_send[i] = (unsigned char)next_random(), plain_recv[i] = (unsigned char)next_random();
    memcpy(send, plain_send, bytes);
    memcpy(recv, plain_recv, bytes);

    struct sg_call plain = make_call(s, plain_send + MARGIN, plain_recv + MARGIN);
    run_plain(&plain);

    struct sg_call call = make_call(s, send + MARGIN, recv + MARGIN);
    struct sg_described d;
    sg_describe(&call, procs, rank, NULL, NULL, &d);
    struct sg_windows w = SG_WINDOWS_ONE;
    w.ranks = s->ranks;
    w.count = (procs + s->ranks - 1) / s->ranks;
    w.mine = rank / s->ranks;
    w.pairs = s->routine == SG_MPI_Alltoall;
    struct sg_runner runner = SG_RUNNER(&sg_pmpi, s->form == 2);
    uint64_t rounds = sg_w1b_rounds(&d, (uint64_t)s->chunk);
    int err = sg_w1b(&runner, &call, &d, (uint64_t)s->chunk, rounds, &w);
    int finished = sg_runner_finish(&runner);
    if (err != MPI_SUCCESS || finished != MPI_SUCCESS)
        fail("%s: sg_w1b failed (%d)", sg_routines[call.routine].name,
             err != MPI_SUCCESS ? err : finished);
    compare(plain_send, send, bytes, s, "send buffer");
    compare(plain_recv, recv, bytes, s, "receive buffer");
    free(plain_send);
    free(plain_recv);
    free(send);
    free(recv);
}

/* sg_windows_plan's windows for regular blocks of `bytes` bytes. */
static void check_plan(int64_t bytes, int ranks)
{
    struct sg_described d = {.procs = procs, .regular = 1, .block_bytes = bytes};
    struct sg_windows w;
    if (sg_windows_plan(&d, rank, &w) != MPI_SUCCESS)
        fail("sg_windows_plan failed for blocks of %" PRId64 " bytes", bytes);
    if (w.ranks != ranks || w.count != (procs + ranks - 1) / ranks || w.mine != rank / ranks ||
        w.of != NULL)
        fail("blocks of %" PRId64 " bytes: %d windows of %d ranks (mine %d), expected windows "
             "of %d ranks",
             bytes, w.count, w.ranks, w.mine, ranks);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);

    check_plan((int64_t)INT_MAX / 2 + 1, 1);
    check_plan((int64_t)INT_MAX / procs, procs);
    check_plan((int64_t)INT_MAX / (procs - 1), procs - 1);
    check_plan(0, 1);

    MPI_Datatype pair, spaced;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_create_resized(pair, -4, 24, &spaced);
    MPI_Type_commit(&spaced);
    const struct {
        MPI_Datatype type;
        const char *name;
    } types[] = {{MPI_INT, "MPI_INT"}, {spaced, "2 MPI_INT at lb -4, extent 24"}};
    const enum sg_routine routines[] = {SG_MPI_Scatter, SG_MPI_Gather, SG_MPI_Allgather,
                                        SG_MPI_Alltoall};
    const int window_ranks[] = {1, 2, procs}, chunks[] = {2, 7};
    uint64_t number = 0;
    for (size_t r = 0; r < sizeof routines / sizeof *routines; r++)
        for (int form = 0; form < 3; form++)
            for (int root = 0; root < procs; root += procs - 1)
                for (int in_place = 0; in_place < 2; in_place++)
                    for (size_t k = 0; k < sizeof window_ranks / sizeof *window_ranks; k++)
                        for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++)
                            for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
                                struct setting s = {routines[r], form, root, in_place,
                                                    window_ranks[k], chunks[c], types[t].type,
                                                    types[t].name};
                                run_case(&s, ++number);
                            }
    MPI_Type_free(&pair);
    MPI_Type_free(&spaced);
    if (rank == 0)
        printf("test_w1b_regular: %" PRIu64 " cases agree with the plain call at P = %d\n",
               number, procs);
    MPI_Finalize();
    return 0;
}
