/* test_w1b_p2p: W1-B with no plan sent (sg_w1b_p2p) against the plain call.
 *
 * Gatherv, Scatterv and Alltoallv under a chunk of 4 elements: blocks of 0
 * to 9 elements (in place: 1 to 9, symmetric for Alltoallv), at random
 * displacements with gaps, so that every call mixes blocks that round one
 * moves, blocks that go point to point in pieces, and empty ones. Every
 * form: blocking, and the I-form by a blocking and by a non-blocking runner;
 * roots 0 and P - 1; MPI_IN_PLACE or not (an in-place Alltoallv exchanges
 * its large blocks by MPI_Sendrecv_replace); MPI_INT and a type with holes
 * (2 MPI_INT at lb -4, extent 24). The same call on the same random data
 * runs once plain (PMPI) and once through sg_w1b_p2p, and every byte of both
 * buffers (with margins) must agree on every rank.
 *
 * On any difference: a message naming the case, rank and byte on stderr, and
 * exit status 1. */
#include <inttypes.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "private_comm.h"
#include "workarounds.h"

#define TEST_PROGRAM "test_w1b_p2p"
#include "against_plain.h"

#define CHUNK 4
#define GAP 3

struct setting {
    enum sg_routine routine; /* the blocking form */
    int form;                /* 0 blocking; I-form by a 1 blocking, 2 non-blocking runner */
    int root, in_place;
    MPI_Datatype type;
    const char *type_name;
};

static const char *const form_names[] = {"", " (I-form, blocking runner)",
                                         " (I-form, non-blocking runner)"};

/* This rank's V sides: counts and displacements of what it sends and
 * receives (the same on every rank for one case), and the elements of each
 * buffer. */
struct layout {
    int *send_counts, *send_displs, *recv_counts, *recv_displs;
    int64_t send_elements, recv_elements;
};

/* The count of the block that rank i sends to rank j. */
static int block(uint64_t number, int i, int j, int in_place)
{
    if (in_place && i > j) /* an in-place exchange is symmetric */
        return block(number, j, i, in_place);
    state = number * 7919 + (uint64_t)i * 131 + (uint64_t)j;
    next_random();
    return in_place ? 1 + (int)(next_random() % 9) : (int)(next_random() % 10);
}

/* Displacements in a random order of the blocks, with gaps. */
static int64_t place(const int *counts, int *displs, uint64_t seed)
{
    state = seed;
    int *order = malloc((size_t)procs * sizeof *order);
    for (int i = 0; i < procs; i++)
        order[i] = i;
    for (int i = procs - 1; i > 0; i--) {
        int j = (int)(next_random() % (uint32_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    int at = (int)(next_random() % GAP);
    for (int k = 0; k < procs; k++) {
        displs[order[k]] = at;
        at += counts[order[k]] + (int)(next_random() % GAP);
    }
    free(order);
    return at;
}

static void make_layout(const struct setting *s, uint64_t number, struct layout *l)
{
    int root = s->root;
    for (int i = 0; i < procs; i++) {
        switch (s->routine) {
        case SG_MPI_Gatherv:
            l->send_counts[i] = i == rank ? block(number, rank, root, 0) : 0;
            l->recv_counts[i] = rank == root ? block(number, i, root, 0) : 0;
            break;
        case SG_MPI_Scatterv:
            l->send_counts[i] = rank == root ? block(number, root, i, 0) : 0;
            l->recv_counts[i] = i == rank ? block(number, root, rank, 0) : 0;
            break;
        default: /* Alltoallv */
            l->send_counts[i] = block(number, rank, i, s->in_place);
            l->recv_counts[i] = block(number, i, rank, s->in_place);
        }
    }
    l->send_elements = place(l->send_counts, l->send_displs, number * 31 + (uint64_t)rank);
    l->recv_elements = place(l->recv_counts, l->recv_displs, number * 37 + (uint64_t)rank);
    if (s->in_place && s->routine == SG_MPI_Alltoallv)
        l->send_elements = 0;
    if (s->in_place && rank == root && s->routine != SG_MPI_Alltoallv) {
        /* the root's own block stays where the V side puts it */
        if (s->routine == SG_MPI_Gatherv)
            l->send_elements = 0;
        else
            l->recv_elements = 0;
    }
}

static struct sg_call make_call(const struct setting *s, const struct layout *l,
                                unsigned char *send, unsigned char *recv)
{
    int root = s->routine == SG_MPI_Alltoallv ? -1 : s->root;
    struct sg_call c = {.routine = (enum sg_routine)sg_form_with(s->routine, s->form > 0, 0),
                        .sendbuf = send, .recvbuf = recv, .sendtype = s->type,
                        .recvtype = s->type, .root = root, .comm = MPI_COMM_WORLD};
    int in_place = s->in_place && (root < 0 || rank == root);
    switch (s->routine) {
    case SG_MPI_Gatherv:
        c.sendcount = l->send_counts[rank];
        c.recvcounts = SG_COUNTS(l->recv_counts);
        c.rdispls = SG_DISPLS(l->recv_displs);
        if (in_place)
            c.sendbuf = MPI_IN_PLACE;
        break;
    case SG_MPI_Scatterv:
        c.recvcount = l->recv_counts[rank];
        c.sendcounts = SG_COUNTS(l->send_counts);
        c.sdispls = SG_DISPLS(l->send_displs);
        if (in_place)
            c.recvbuf = MPI_IN_PLACE;
        break;
    default:
        c.sendcounts = SG_COUNTS(l->send_counts);
        c.sdispls = SG_DISPLS(l->send_displs);
        c.recvcounts = SG_COUNTS(l->recv_counts);
        c.rdispls = SG_DISPLS(l->recv_displs);
        if (in_place)
            c.sendbuf = MPI_IN_PLACE;
    }
    return c;
}

static void compare(const unsigned char *plain, const unsigned char *got, size_t bytes,
                    const struct setting *s, const char *buffer)
{
    ptrdiff_t at = first_difference(plain, got, bytes);
    if (at != PTRDIFF_MAX)
        fail("%s%s, %s%s, root %d: %s byte %td is 0x%02x, the plain call gives 0x%02x",
             sg_routines[s->routine].name, form_names[s->form], s->type_name,
             s->in_place ? ", MPI_IN_PLACE" : "", s->root, buffer, at, got[at + MARGIN],
             plain[at + MARGIN]);
}

static void run_case(const struct setting *s, uint64_t number, MPI_Comm copy)
{
    struct layout l;
    int *arrays = malloc(4 * (size_t)procs * sizeof *arrays);
    if (arrays == NULL)
        fail("out of memory");
    l.send_counts = arrays, l.send_displs = arrays + procs;
    l.recv_counts = arrays + 2 * procs, l.recv_displs = arrays + 3 * procs;
    make_layout(s, number, &l);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(s->type, &lb, &extent);
    size_t elements = (size_t)(l.send_elements > l.recv_elements ? l.send_elements
                                                                 : l.recv_elements);
    size_t bytes = elements * (size_t)extent + 2 * MARGIN;
    unsigned char *plain_send = malloc(bytes), *plain_recv = malloc(bytes);
    unsigned char *send = malloc(bytes), *recv = malloc(bytes);
    if (!plain_send || !plain_recv || !send || !recv)
        fail("out of memory");
    state = number * 1000 + (uint64_t)rank;
    for (size_t i = 0; i < bytes; i++)
        plain_send[i] = (unsigned char)next_random(), plain_recv[i] = (unsigned char)next_random();
    memcpy(send, plain_send, bytes);
    memcpy(recv, plain_recv, bytes);

    struct sg_call plain = make_call(s, &l, plain_send + MARGIN, plain_recv + MARGIN);
    run_plain(&plain);

    struct sg_call call = make_call(s, &l, send + MARGIN, recv + MARGIN);
    int64_t *wide = malloc(2 * (size_t)procs * sizeof *wide);
    for (int i = 0; i < procs; i++)
        wide[i] = l.send_displs[i], wide[procs + i] = l.recv_displs[i];
    struct sg_described d;
    sg_describe(&call, procs, rank, wide, wide + procs, &d);
    struct sg_runner runner = SG_RUNNER(&sg_pmpi, s->form == 2);
    int err = sg_w1b_p2p(&runner, &call, &d, CHUNK, copy);
    int finished = sg_runner_finish(&runner);
    if (err != MPI_SUCCESS || finished != MPI_SUCCESS)
        fail("%s: sg_w1b_p2p failed (%d)", sg_routines[call.routine].name,
             err != MPI_SUCCESS ? err : finished);
    compare(plain_send, send, bytes, s, "send buffer");
    compare(plain_recv, recv, bytes, s, "receive buffer");
    free(wide);
    free(arrays);
    free(plain_send);
    free(plain_recv);
    free(send);
    free(recv);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Comm copy;
    if (sg_private_comm(MPI_COMM_WORLD, &copy) != MPI_SUCCESS)
        fail("no private copy of MPI_COMM_WORLD");

    MPI_Datatype pair, spaced;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_create_resized(pair, -4, 24, &spaced);
    MPI_Type_commit(&spaced);
    const struct {
        MPI_Datatype type;
        const char *name;
    } types[] = {{MPI_INT, "MPI_INT"}, {spaced, "2 MPI_INT at lb -4, extent 24"}};
    const enum sg_routine routines[] = {SG_MPI_Gatherv, SG_MPI_Scatterv, SG_MPI_Alltoallv};
    uint64_t number = 0;
    for (size_t r = 0; r < sizeof routines / sizeof *routines; r++)
        for (int form = 0; form < 3; form++)
            for (int root = 0; root < (routines[r] == SG_MPI_Alltoallv ? 1 : procs);
                 root += procs - 1)
                for (int in_place = 0; in_place < 2; in_place++)
                    for (size_t t = 0; t < sizeof types / sizeof *types; t++)
                        for (int layout = 0; layout < 4; layout++) {
                            struct setting s = {routines[r], form, root, in_place, types[t].type,
                                                types[t].name};
                            run_case(&s, ++number, copy);
                        }
    MPI_Type_free(&pair);
    MPI_Type_free(&spaced);
    if (rank == 0)
        printf("test_w1b_p2p: %" PRIu64 " cases agree with the plain call at P = %d\n", number,
               procs);
    MPI_Finalize();
    return 0;
}
