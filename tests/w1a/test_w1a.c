/* test_w1a: W1-A (workarounds/w1a.h) against the plain call.
 *
 * For Bcast, Scatter, Scatterv, Gather, Gatherv and Reduce, blocking and
 * I-form (the I-form both by a blocking runner and by a non-blocking one,
 * finished with sg_runner_finish), every root, groups of 2 and 3, a
 * contiguous and a non-contiguous type (lb != 0, extent != size; for Reduce,
 * which takes predefined types only, MPI_SHORT_INT: extent 8, size 6), with
 * and without MPI_IN_PLACE at the root: the same call on the same random data
 * runs once plain (PMPI) and once through sg_w1a, and every byte of every
 * buffer on every rank must agree. The buffers have margins on either side,
 * so a stray write shows too. The same for Allgather(v) (MPI_INT, a
 * contiguous derived type, a send type with holes, and a receive type with
 * holes, whose holes the copy out of a temporary must leave), Allreduce and
 * Reduce_scatter(_block) (the reductions above), in groups of 2 to 4 where P
 * has a grid of them, with and without MPI_IN_PLACE on every rank. A
 * blocking runner lets the I-form take a blocking call's independent groups
 * together (sg_runner.together); Scatter(v), Gather(v), Reduce, Allgather
 * and the reductions to all also run under a configuration that lets no
 * other routine take a sub-call (refuse), without together: then W1-A keeps
 * to the call's routine, group after group (Reduce_scatter otherwise runs
 * by one Reduce per part on Open MPI and by pieces on MPICH; a blocking
 * runner's I-form reduction steps otherwise run in the blocking routine).
 *
 * Also checked: a rank creates one sub-communicator per group it is in on
 * the first call of a partition (Bcast by a blocking runner: its tree's
 * groups) and none on the next calls; freeing the parent frees them all;
 * the calls W1-A refuses are refused without communicating; and Class D
 * layouts run over displacement windows: windows made by hand over small
 * displacements (compared with the plain call), and the windows of
 * sg_windows_plan for a layout spanning more than 2^32 elements (the buffer
 * is only reserved; compared with the expected bytes).
 *
 * On any difference: a message naming the routine, root, rank and byte on
 * stderr, and exit status 1. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "w1a.h"

#define TEST_PROGRAM "test_w1a"
#include "against_plain.h"

static void seed(uint64_t s) { state = s * 0x9E3779B97F4A7C15u + 12345; }

/* ---- One call, plain and through W1-A ------------------------------------ */

struct setting {
    enum sg_routine routine; /* the blocking form */
    int form;                /* 0 blocking; I-form by a 1 blocking, 2 non-blocking runner */
    int root, members, in_place;
    MPI_Datatype type;
    MPI_Op op;
    const char *type_name;
    const struct sg_windows *w; /* NULL: SG_WINDOWS_ONE */
    const MPI_Datatype *sendtype; /* Allgather(v): another send type; NULL: type */
    int others_refused; /* no other routine takes a sub-call, nor the I-form (together) */
};

/* The same on every rank: n for the regular routines, counts and
 * displacements for the v-routines, and how many elements each buffer has. */
struct layout {
    int n, *counts, *displs;
    int64_t elements;
};

static const char *const form_names[] = {"", " (I-form, blocking runner)",
                                         " (I-form, non-blocking runner)"};

static struct sg_call make_call(const struct setting *s, const struct layout *l,
                                unsigned char *send, unsigned char *recv, MPI_Comm comm)
{
    int in_place = s->in_place && (s->root < 0 || rank == s->root);
    struct sg_call c = {.routine = (enum sg_routine)sg_form_with(s->routine, s->form > 0, 0),
                        .sendbuf = send, .recvbuf = recv,
                        .sendtype = s->sendtype ? *s->sendtype : s->type,
                        .recvtype = s->type, .op = s->op, .root = s->root, .comm = comm};
    switch (s->routine) {
    case SG_MPI_Bcast:
        c.recvbuf = send;
        c.sendcount = c.recvcount = l->n;
        break;
    case SG_MPI_Reduce:
    case SG_MPI_Gather:
        c.sendbuf = in_place ? MPI_IN_PLACE : send;
        c.sendcount = c.recvcount = l->n;
        break;
    case SG_MPI_Scatter:
        c.recvbuf = in_place ? MPI_IN_PLACE : recv;
        c.sendcount = c.recvcount = l->n;
        break;
    case SG_MPI_Gatherv:
        c.sendbuf = in_place ? MPI_IN_PLACE : send;
        c.sendcount = l->counts[rank];
        c.recvcounts = SG_COUNTS(l->counts);
        c.rdispls = SG_DISPLS(l->displs);
        break;
    case SG_MPI_Scatterv:
        c.recvbuf = in_place ? MPI_IN_PLACE : recv;
        c.recvcount = l->counts[rank];
        c.sendcounts = SG_COUNTS(l->counts);
        c.sdispls = SG_DISPLS(l->displs);
        break;
    case SG_MPI_Allgather:
    case SG_MPI_Allreduce:
    case SG_MPI_Reduce_scatter_block:
        c.sendbuf = in_place ? MPI_IN_PLACE : send;
        c.sendcount = c.recvcount = l->n;
        break;
    case SG_MPI_Allgatherv:
        c.sendbuf = in_place ? MPI_IN_PLACE : send;
        c.sendcount = l->counts[rank];
        c.recvcounts = SG_COUNTS(l->counts);
        c.rdispls = SG_DISPLS(l->displs);
        break;
    case SG_MPI_Reduce_scatter:
        c.sendbuf = in_place ? MPI_IN_PLACE : send;
        c.recvcounts = SG_COUNTS(l->counts);
        break;
    default:
        fail("%s: not a routine of this test", sg_routines[s->routine].name);
    }
    return c;
}

static void compare(const unsigned char *plain, const unsigned char *got, size_t bytes,
                    const struct setting *s, const char *buffer)
{
    ptrdiff_t at = first_difference(plain, got, bytes);
    if (at != PTRDIFF_MAX)
        fail("%s%s, %s%s, root %d, groups of %d%s%s: %s byte %td is 0x%02x, the plain call "
             "gives 0x%02x",
             sg_routines[s->routine].name, form_names[s->form], s->type_name,
             s->in_place ? ", MPI_IN_PLACE" : "", s->root, s->members,
             s->w ? ", displacement windows" : "",
             s->others_refused ? ", other routines refused" : "", buffer, at,
             got[at + MARGIN], plain[at + MARGIN]);
}

/* Random bytes; for reductions small values, so that sums cannot overflow. */
static void fill(unsigned char *buffer, size_t bytes, const struct setting *s, MPI_Aint extent)
{
    for (size_t i = 0; i < bytes; i++)
        buffer[i] = (unsigned char)next_random();
    if (s->op == MPI_OP_NULL)
        return;
    for (size_t at = 0; at + sizeof(int) <= bytes; at += sizeof(int)) {
        int value = (int)(next_random() % 2001) - 1000;
        if (s->type == MPI_SHORT_INT) /* MINLOC pairs with ties: value 0..3 */
            value = at % (size_t)extent == MARGIN % (size_t)extent ? (int)(next_random() % 4)
                                                                    : value;
        memcpy(buffer + at, &value, sizeof value);
    }
}

/* A configuration that knows every other routine broken: W1-A keeps to the
 * call's own routine (Reduce and Allreduce not by parts, Reduce_scatter
 * neither by blocks nor by pieces, Allgather pairs as a resized type, Gather(v) and Scatter(v)
 * group after group). */
static int refuse(enum sg_routine r, uint64_t s, uint64_t n, uint64_t procs)
{
    (void)r, (void)s, (void)n, (void)procs;
    return 0;
}

/* W1-A's communicators are made in blocking runs only (workarounds/w1a.h):
 * a non-blocking run that finds them missing returns SG_W1A_UNMADE, on
 * every rank, with `send` and `recv` (`bytes` each) untouched, as
 * sg_w1a_made said before; the same call run blocking over copies of them
 * makes the communicators, and the non-blocking run then takes them.
 * Returns what the run returns. */
static int run_w1a(struct sg_runner *runner, const struct setting *s, const struct layout *l,
                   unsigned char *send, unsigned char *recv, size_t bytes,
                   const struct sg_described *d, MPI_Comm comm)
{
    struct sg_call call = make_call(s, l, send + MARGIN, recv + MARGIN, comm);
    const struct sg_windows *w = s->w ? s->w : &SG_WINDOWS_ONE;
    if (!runner->nonblocking) {
        int err = sg_w1a(runner, &call, d, s->members, w);
        if (err == SG_W1A_UNMADE)
            fail("%s: a blocking run returned SG_W1A_UNMADE", sg_routines[call.routine].name);
        return err;
    }
    unsigned char *send_before = malloc(bytes), *recv_before = malloc(bytes);
    if (send_before == NULL || recv_before == NULL)
        fail("out of memory");
    memcpy(send_before, send, bytes);
    memcpy(recv_before, recv, bytes);
    int made = sg_w1a_made(runner, &call, d, s->members, w);
    int err = sg_w1a(runner, &call, d, s->members, w);
    int unmade = err == SG_W1A_UNMADE, unmade_anywhere = unmade;
    MPI_Allreduce(MPI_IN_PLACE, &unmade_anywhere, 1, MPI_INT, MPI_MAX, comm);
    if (unmade != unmade_anywhere)
        fail("%s: SG_W1A_UNMADE on some ranks only", sg_routines[call.routine].name);
    if (made == unmade)
        fail("%s: sg_w1a_made said %d, and the run returned %d", sg_routines[call.routine].name,
             made, err);
    if (unmade) {
        if (memcmp(send, send_before, bytes) != 0 || memcmp(recv, recv_before, bytes) != 0)
            fail("%s: SG_W1A_UNMADE after touching a buffer", sg_routines[call.routine].name);
        struct sg_runner blocking = *runner;
        blocking.nonblocking = 0;
        struct sg_call scratch = make_call(s, l, send_before + MARGIN, recv_before + MARGIN, comm);
        if (sg_w1a(&blocking, &scratch, d, s->members, w) != MPI_SUCCESS ||
            sg_runner_finish(&blocking) != MPI_SUCCESS)
            fail("%s: the blocking run that makes the communicators failed",
                 sg_routines[call.routine].name);
        err = sg_w1a(runner, &call, d, s->members, w);
    }
    free(send_before);
    free(recv_before);
    return err;
}

static void run_case(MPI_Comm comm, const struct setting *s, const struct layout *l,
                     uint64_t number)
{
    MPI_Aint lb, extent, send_extent;
    MPI_Type_get_extent(s->type, &lb, &extent);
    MPI_Type_get_extent(s->sendtype ? *s->sendtype : s->type, &lb, &send_extent);
    extent = send_extent > extent ? send_extent : extent;
    size_t bytes = (size_t)l->elements * (size_t)extent + 2 * MARGIN;
    unsigned char *plain_send = malloc(bytes), *plain_recv = malloc(bytes);
    unsigned char *send = malloc(bytes), *recv = malloc(bytes);
    if (!plain_send || !plain_recv || !send || !recv)
        fail("out of memory");
    seed(number * 1000 + (uint64_t)rank);
    fill(plain_send, bytes, s, extent);
    fill(plain_recv, bytes, s, extent);
    memcpy(send, plain_send, bytes);
    memcpy(recv, plain_recv, bytes);

    struct sg_call plain = make_call(s, l, plain_send + MARGIN, plain_recv + MARGIN, comm);
    run_plain(&plain);

    struct sg_call call = make_call(s, l, send + MARGIN, recv + MARGIN, comm);
    int64_t *wide = malloc((size_t)procs * sizeof *wide);
    for (int i = 0; i < procs; i++)
        wide[i] = l->displs[i];
    int holds = rank == s->root || s->routine == SG_MPI_Allgatherv;
    struct sg_described d;
    sg_describe(&call, procs, rank, holds && s->routine == SG_MPI_Scatterv ? wide : NULL,
                holds && s->routine != SG_MPI_Scatterv ? wide : NULL, &d);
    struct sg_runner runner = SG_RUNNER(&sg_pmpi, s->form == 2);
    if (s->others_refused)
        runner.allows = refuse;
    else
        runner.together = s->form < 2; /* as the layer's plan where the I-form may */
    int err = run_w1a(&runner, s, l, send, recv, bytes, &d, comm);
    int finished = sg_runner_finish(&runner);
    if (err != MPI_SUCCESS || finished != MPI_SUCCESS)
        fail("%s: sg_w1a failed (%d)", sg_routines[call.routine].name,
             err != MPI_SUCCESS ? err : finished);
    compare(plain_send, send, bytes, s, "send buffer");
    if (s->in_place && (s->routine == SG_MPI_Reduce_scatter ||
                        s->routine == SG_MPI_Reduce_scatter_block)) {
        /* Past its result an in-place Reduce_scatter's buffer is the MPI's
         * scratch (Open MPI 4.1 leaves partial sums there): the result and
         * the margins are what the call defines. */
        int result = s->routine == SG_MPI_Reduce_scatter ? l->counts[rank] : l->n;
        size_t defined = MARGIN + (size_t)result * (size_t)extent;
        compare(plain_recv, recv, defined, s, "receive buffer");
        compare(plain_recv + bytes - MARGIN, recv + bytes - MARGIN, MARGIN, s,
                "receive buffer's end margin");
    } else {
        compare(plain_recv, recv, bytes, s, "receive buffer");
    }
    free(wide);
    free(plain_send);
    free(plain_recv);
    free(send);
    free(recv);
}

/* n of 1..3; v-blocks of 0..3 elements in random order with gaps. */
static void make_layout(struct layout *l, uint64_t number)
{
    seed(number);
    l->n = 1 + (int)(next_random() % 3);
    int *order = malloc((size_t)procs * sizeof *order);
    for (int i = 0; i < procs; i++)
        order[i] = i;
    for (int i = procs - 1; i > 0; i--) {
        int j = (int)(next_random() % (uint32_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    int at = (int)(next_random() % 2);
    for (int k = 0; k < procs; k++) {
        int i = order[k];
        l->counts[i] = (int)(next_random() % 4);
        l->displs[i] = at;
        at += l->counts[i] + (int)(next_random() % 3);
    }
    l->elements = at > procs * l->n ? at : procs * l->n;
    free(order);
}

/* ---- The sweep ------------------------------------------------------------- */

struct typed {
    MPI_Datatype type;
    MPI_Op op;
    const char *name;
    const MPI_Datatype *sendtype; /* NULL: type */
};

static uint64_t case_number;

/* The groups this rank is in when W1-A runs Bcast as a tree (a blocking
 * runner): the round it receives in, and every later round in which it
 * passes the data on to at least one rank. */
static long tree_groups(int root, int members)
{
    long v = (rank - root + procs) % procs, groups = 0;
    for (long held = 1; held < procs; held *= members)
        groups += (v >= held && v < held * members) || (v < held && v + held < procs);
    return groups;
}

/* The columns of the reductions' grid at this group size (w1a.c's
 * w1a_grid_columns), 0 when P has none. */
static int grid_of(int members)
{
    for (int columns = members < procs ? members : procs; columns >= 2; columns--)
        if (procs % columns == 0 && procs / columns <= members && procs / columns >= 2)
            return columns;
    return 0;
}

static void sweep(MPI_Comm comm, MPI_Datatype spaced)
{
    const enum sg_routine routines[] = {SG_MPI_Bcast,   SG_MPI_Scatter, SG_MPI_Scatterv,
                                        SG_MPI_Gather,  SG_MPI_Gatherv, SG_MPI_Reduce};
    const struct typed moves[] = {{MPI_INT, MPI_OP_NULL, "MPI_INT", NULL},
                                  {spaced, MPI_OP_NULL, "2 MPI_INT at lb -4, extent 24", NULL}};
    const struct typed reductions[] = {
        {MPI_INT, MPI_SUM, "MPI_INT, MPI_SUM", NULL},
        {MPI_SHORT_INT, MPI_MINLOC, "MPI_SHORT_INT, MPI_MINLOC", NULL}, /* extent 8, size 6 */
        {MPI_UNSIGNED_CHAR, MPI_BXOR, "MPI_UNSIGNED_CHAR, MPI_BXOR", NULL}};
    struct layout l = {.counts = malloc((size_t)procs * sizeof(int)),
                       .displs = malloc((size_t)procs * sizeof(int))};
    int first_on_parent = 1, grid_made = 0;
    for (int members = 2; members <= 3; members++)
        for (int root = 0; root < procs; root++) {
            int tree_seen = 0, star_seen = 0;
            for (size_t r = 0; r < sizeof routines / sizeof *routines; r++) {
                int reduce = routines[r] == SG_MPI_Reduce;
                const struct typed *types = reduce ? reductions : moves;
                size_t type_count = reduce ? 3 : 2;
                for (int refused = 0; refused <= (routines[r] != SG_MPI_Bcast); refused++)
                    for (int form = 0; form < 3; form++)
                        for (size_t t = 0; t < type_count; t++)
                            for (int in_place = 0; in_place <= (routines[r] != SG_MPI_Bcast);
                                 in_place++) {
                                struct setting s = {routines[r], form,          root,
                                                    members,     in_place,      types[t].type,
                                                    types[t].op, types[t].name, NULL,
                                                    NULL,        refused};
                                make_layout(&l, case_number);
                                long before = sg_w1a_created();
                                run_case(comm, &s, &l, case_number++);
                                /* the first call of a partition: one per group of
                                 * this rank (in the star of the root's groups, the
                                 * root is in all), and the parent's private copy;
                                 * the tree's first call makes the star too (Ibcast's
                                 * groups), except where the star is the tree (P = 4,
                                 * root 0, groups of 3: {0, 1, 2}, {0, 3} both ways);
                                 * Reduce by parts: its column and its row, once
                                 * for all roots */
                                int tree = routines[r] == SG_MPI_Bcast && form < 2;
                                int grid = reduce && !refused ? grid_of(members) : 0;
                                long star = (procs - 1 + members - 2) / (members - 1), expect = 0;
                                long created = sg_w1a_created() - before;
                                long star_here = rank == root ? star : 1;
                                if (tree && !tree_seen) {
                                    expect = tree_groups(root, members) + first_on_parent;
                                    expect += created == expect + star_here ? star_here : 0;
                                } else if (grid)
                                    expect = grid == grid_made ? 0 : 2;
                                else if (!tree && !star_seen)
                                    expect = star_here + first_on_parent;
                                tree_seen |= tree;
                                star_seen |= !grid;
                                grid_made = grid ? grid : grid_made;
                                if (created != expect)
                                    fail("%s%s, root %d, groups of %d: created %ld "
                                         "sub-communicators, not %ld",
                                         sg_routines[routines[r]].name, form_names[form], root,
                                         members, created, expect);
                                first_on_parent = 0;
                            }
            }
        }
    free(l.counts);
    free(l.displs);
}

/* The routines without a root: Allgather(v) in pairs of groups (a
 * contiguous derived type too, 2 MPI_INT received from a send type with
 * holes, which W1-A puts in place by a message to itself, and a receive
 * type with holes), Allreduce and
 * Reduce_scatter(_block) over a grid, with and without MPI_IN_PLACE. A rank
 * creates its sub-communicators on the first call of a partition: one per
 * pair its group is in, or its column and its row; none on the next calls,
 * nor for a group size that gives the same partition. */
static void sweep_to_all(MPI_Comm comm, MPI_Datatype triple, MPI_Datatype two_ints,
                         const MPI_Datatype *spaced)
{
    const enum sg_routine gathers[] = {SG_MPI_Allgather, SG_MPI_Allgatherv};
    const enum sg_routine reduces[] = {SG_MPI_Allreduce, SG_MPI_Reduce_scatter,
                                       SG_MPI_Reduce_scatter_block};
    const struct typed moves[] = {{MPI_INT, MPI_OP_NULL, "MPI_INT", NULL},
                                  {triple, MPI_OP_NULL, "3 MPI_CHAR, contiguous", NULL},
                                  {two_ints, MPI_OP_NULL,
                                   "2 MPI_INT, sent as 2 MPI_INT at lb -4, extent 24", spaced},
                                  {*spaced, MPI_OP_NULL,
                                   "2 MPI_INT at lb -4, extent 24, received so too", NULL}};
    const struct typed reductions[] = {
        {MPI_INT, MPI_SUM, "MPI_INT, MPI_SUM", NULL},
        {MPI_SHORT_INT, MPI_MINLOC, "MPI_SHORT_INT, MPI_MINLOC", NULL},
        {MPI_UNSIGNED_CHAR, MPI_BXOR, "MPI_UNSIGNED_CHAR, MPI_BXOR", NULL}};
    struct layout l = {.counts = malloc((size_t)procs * sizeof(int)),
                       .displs = malloc((size_t)procs * sizeof(int))};
    int seen[2] = {0, 0}, first_on_parent = 1;
    for (int reduce = 0; reduce <= 1; reduce++)
        for (int members = 2; members <= 4; members++) {
            const enum sg_routine *routines = reduce ? reduces : gathers;
            size_t routine_count = reduce ? 3 : 2, type_count = reduce ? 3 : 4;
            const struct typed *types = reduce ? reductions : moves;
            struct sg_described grid = {.procs = procs};
            struct sg_call probe = {.routine = routines[0], .sendtype = MPI_INT,
                                    .recvtype = MPI_INT, .op = MPI_SUM, .comm = comm};
            if (!sg_w1a_applies(&probe, &grid, members, NULL))
                continue; /* P has no grid of this size: check_refusals */
            /* the partition: groups of members / 2, or the grid's columns */
            int half = members / 2, groups = (procs + half - 1) / half;
            int shape = reduce ? grid_of(members) : half;
            long expect = shape == seen[reduce] ? 0 : reduce ? 2 : groups == 1 ? 1 : groups - 1;
            expect += first_on_parent; /* the parent's private copy */
            first_on_parent = 0;
            seen[reduce] = shape;
            long before = sg_w1a_created(), after_first = -1;
            for (size_t r = 0; r < routine_count; r++)
                for (int refused = 0; refused <= (reduce || r == 0); refused++)
                    for (int form = 0; form < 3; form++)
                        for (size_t t = 0; t < type_count; t++)
                            for (int in_place = 0; in_place <= 1; in_place++) {
                                struct setting s = {routines[r], form,          -1,
                                                    members,     in_place,      types[t].type,
                                                    types[t].op, types[t].name, NULL,
                                                    types[t].sendtype, refused};
                                make_layout(&l, case_number);
                                run_case(comm, &s, &l, case_number++);
                                long now = sg_w1a_created();
                                if (after_first < 0 && now - before != expect)
                                    fail("%s, groups of %d: the first call created %ld "
                                         "sub-communicators, not %ld",
                                         sg_routines[routines[r]].name, members, now - before,
                                         expect);
                                if (after_first >= 0 && now != after_first)
                                    fail("%s: a repeated partition created %ld sub-communicators",
                                         sg_routines[routines[r]].name, now - after_first);
                                after_first = now;
                            }
        }
    free(l.counts);
    free(l.displs);
}

/* ---- Refusals ---------------------------------------------------------------- */

static void sum_op(void *in, void *inout, int *count, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *count; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void expect_applies(enum sg_routine routine, MPI_Datatype type, MPI_Op op, int members,
                           int expected)
{
    struct sg_call c = {.routine = routine, .sendtype = type, .recvtype = type, .op = op,
                        .root = 0, .comm = MPI_COMM_WORLD};
    struct sg_described d = {.procs = procs};
    const char *why = NULL;
    int applies = sg_w1a_applies(&c, &d, members, &why);
    if (applies != expected || (!applies && why == NULL))
        fail("%s: sg_w1a_applies gives %d", sg_routines[routine].name, applies);
    if (applies)
        return;
    /* refused before any communication (a collective here would hang or
     * fail, as rank 0 alone tries) */
    struct sg_runner runner = SG_RUNNER(&sg_pmpi, 0);
    if (rank == 0 && sg_w1a(&runner, &c, &d, members, &SG_WINDOWS_ONE) != -1)
        fail("%s: sg_w1a did not refuse", sg_routines[routine].name);
}

static void check_refusals(MPI_Datatype spaced)
{
    const enum sg_routine excluded[] = {SG_MPI_Alltoall, SG_MPI_Ialltoall, SG_MPI_Alltoallv,
                                        SG_MPI_Ialltoallv};
    for (size_t i = 0; i < sizeof excluded / sizeof *excluded; i++)
        expect_applies(excluded[i], MPI_INT, MPI_SUM, 2, 0);
    const enum sg_routine grouped[] = {SG_MPI_Bcast,  SG_MPI_Scatter,  SG_MPI_Scatterv,
                                       SG_MPI_Gather, SG_MPI_Igatherv, SG_MPI_Ireduce,
                                       SG_MPI_Allgather, SG_MPI_Iallgatherv};
    for (size_t i = 0; i < sizeof grouped / sizeof *grouped; i++) {
        expect_applies(grouped[i], MPI_INT, MPI_SUM, 2, 1);
        expect_applies(grouped[i], MPI_INT, MPI_SUM, 1, 0); /* a group of one */
    }
    /* Allgather(v)'s temporary takes a receive type with holes (its elements
     * copied out through MPI_Pack/MPI_Unpack), whatever type the other
     * ranks pass */
    expect_applies(SG_MPI_Allgather, spaced, MPI_OP_NULL, 2, 1);
    expect_applies(SG_MPI_Iallgatherv, spaced, MPI_OP_NULL, 3, 1);
    /* the grid: P = 4 is 2 x 2; P = 5 has none */
    const enum sg_routine gridded[] = {SG_MPI_Allreduce, SG_MPI_Ireduce_scatter,
                                       SG_MPI_Reduce_scatter_block};
    for (size_t i = 0; i < sizeof gridded / sizeof *gridded; i++) {
        expect_applies(gridded[i], MPI_INT, MPI_SUM, 2, procs == 4);
        expect_applies(gridded[i], MPI_INT, MPI_SUM, 1, 0);
        expect_applies(gridded[i], MPI_DOUBLE, MPI_SUM, 2, 0);
    }
    MPI_Op user;
    MPI_Op_create(sum_op, 1, &user);
    const struct {
        MPI_Datatype type;
        MPI_Op op;
    } refused[] = {{MPI_FLOAT, MPI_SUM},        {MPI_DOUBLE, MPI_PROD},
                   {MPI_DOUBLE, MPI_MAX},       {MPI_FLOAT, MPI_MIN},
                   {MPI_DOUBLE_INT, MPI_MINLOC}, {MPI_C_DOUBLE_COMPLEX, MPI_SUM},
                   {MPI_INT, user},             {spaced, MPI_SUM}},
      exact[] = {{MPI_LONG_LONG, MPI_PROD}, {MPI_UINT64_T, MPI_SUM},  {MPI_INT8_T, MPI_MIN},
                 {MPI_UNSIGNED_SHORT, MPI_MAX}, {MPI_2INT, MPI_MAXLOC}, {MPI_LONG_INT, MPI_MINLOC},
                 {MPI_C_BOOL, MPI_LAND},    {MPI_BYTE, MPI_BOR},     {MPI_INTEGER, MPI_SUM}};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        expect_applies(SG_MPI_Reduce, refused[i].type, refused[i].op, 2, 0);
        expect_applies(SG_MPI_Ireduce, refused[i].type, refused[i].op, 3, 0);
    }
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        expect_applies(SG_MPI_Reduce, exact[i].type, exact[i].op, 2, 1);
    MPI_Op_free(&user);
}

/* ---- Class D: displacement windows ------------------------------------------ */

/* Windows by hand over a small layout, so the plain call can be compared:
 * the blocks of even and of odd ranks form the two windows (so a window's
 * ranks are not consecutive), rank 1 has no block and no window. No
 * w->base: W1-A rebases each group to its own blocks. */
static void windows_by_hand(MPI_Comm comm, MPI_Datatype spaced)
{
    struct layout l = {.counts = malloc((size_t)procs * sizeof(int)),
                       .displs = malloc((size_t)procs * sizeof(int))};
    int *of = malloc((size_t)procs * sizeof *of), at = 1;
    for (int i = 0; i < procs; i++) {
        l.counts[i] = i == 1 ? 0 : 1 + i % 3;
        l.displs[i] = at;
        at += l.counts[i] + i % 2;
        of[i] = l.counts[i] ? i % 2 : -1;
    }
    l.n = 0;
    l.elements = at;
    struct sg_windows w = {.count = 2, .mine = of[rank], .of = of};
    const struct typed types[] = {{MPI_INT, MPI_OP_NULL, "MPI_INT", NULL},
                                  {spaced, MPI_OP_NULL, "2 MPI_INT at lb -4, extent 24", NULL}};
    const enum sg_routine routines[] = {SG_MPI_Gatherv, SG_MPI_Scatterv};
    const int members[] = {2, 3, procs}; /* procs: the windows alone */
    for (int r = 0; r < 2; r++)
        for (int form = 0; form < 3; form++)
            for (int root = 0; root < procs; root++)
                for (int m = 0; m < 3; m++)
                    for (int t = 0; t < 2; t++)
                        for (int in_place = 0; in_place <= 1; in_place++) {
                            struct setting s = {routines[r], form,     root,
                                                members[m],  in_place, types[t].type,
                                                MPI_OP_NULL, types[t].name, &w,
                                                NULL,        0};
                            run_case(comm, &s, &l, case_number++);
                        }
    free(of);
    free(l.counts);
    free(l.displs);
}

static unsigned char pattern(int owner, int64_t j)
{
    return (unsigned char)(((uint32_t)j * 2654435761u + (uint32_t)(owner + 1) * 40503u) >> 24);
}

/* A layout as wide as Class D makes it: block i of 5 + i chars at i * 1.5e9,
 * with the displacements summed in int as user code does (they wrap). The
 * root plans the windows (sg_windows_plan), every rank learns them (the
 * layer's Bcast), and each rank's bytes must arrive where they belong; the
 * root's buffer is only reserved, so the span costs a few pages. */
#define STRIDE 1500000000LL

struct wide_layout {
    int *counts, *wrapped;
    int64_t *intended;
    size_t span;
};

static void planned_case(MPI_Comm comm, const struct wide_layout *l, enum sg_routine routine,
                         int form, int root, int members)
{
    int gather = routine == SG_MPI_Gatherv;
    unsigned char *wide = NULL, mine[64] = {0};
    if (rank == root) {
        wide = mmap(NULL, l->span, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (wide == MAP_FAILED)
            fail("mmap of the wide layout failed");
        for (int i = 0; i < procs && !gather; i++)
            for (int j = 0; j < l->counts[i]; j++)
                wide[l->intended[i] + j] = pattern(i, j);
    }
    for (int j = 0; j < l->counts[rank] && gather; j++)
        mine[j] = pattern(rank, j);
    struct sg_call c = {.routine = form > 0 ? sg_in_form_of(routine, SG_MPI_Ibcast) : routine,
                        .sendbuf = gather ? mine : wide, .sendcount = l->counts[rank],
                        .sendcounts = SG_COUNTS(l->counts), .sdispls = SG_DISPLS(l->wrapped),
                        .sendtype = MPI_CHAR,
                        .recvbuf = gather ? wide : mine, .recvcount = l->counts[rank],
                        .recvcounts = SG_COUNTS(l->counts), .rdispls = SG_DISPLS(l->wrapped),
                        .recvtype = MPI_CHAR,
                        .root = root, .comm = comm};
    struct sg_described d;
    sg_describe(&c, procs, rank, rank == root && !gather ? l->intended : NULL,
                rank == root && gather ? l->intended : NULL, &d);
    struct sg_windows w = SG_WINDOWS_ONE;
    if (rank == root && sg_windows_plan(&d, rank, &w) != MPI_SUCCESS)
        fail("%s: sg_windows_plan failed", sg_routines[c.routine].name);
    MPI_Bcast(&w.count, 1, MPI_INT, root, comm);
    if (w.count < 2)
        fail("%s: %d window(s) for a span past 2^32", sg_routines[c.routine].name, w.count);
    if (rank != root)
        w.of = malloc((size_t)procs * sizeof *w.of);
    MPI_Bcast(w.of, procs, MPI_INT, root, comm);
    w.mine = w.of[rank];

    struct sg_runner runner = SG_RUNNER(&sg_pmpi, form == 2);
    int err = sg_w1a(&runner, &c, &d, members, &w);
    if (err == SG_W1A_UNMADE) { /* made by a blocking run (run_w1a); this one moves the same */
        struct sg_runner blocking = SG_RUNNER(&sg_pmpi, 0);
        if (sg_w1a(&blocking, &c, &d, members, &w) != MPI_SUCCESS ||
            sg_runner_finish(&blocking) != MPI_SUCCESS)
            fail("%s: the blocking run that makes the communicators failed",
                 sg_routines[c.routine].name);
        err = sg_w1a(&runner, &c, &d, members, &w);
    }
    int finished = sg_runner_finish(&runner);
    if (err != MPI_SUCCESS || finished != MPI_SUCCESS)
        fail("%s: sg_w1a over planned windows failed (%d)", sg_routines[c.routine].name,
             err != MPI_SUCCESS ? err : finished);
    /* every block this rank sees, and the byte after it untouched */
    for (int i = 0; i < procs; i++) {
        const unsigned char *block = gather ? (rank == root ? wide + l->intended[i] : NULL)
                                            : (i == rank ? mine : NULL);
        for (int j = 0; block != NULL && j <= l->counts[i]; j++)
            if (block[j] != (j < l->counts[i] ? pattern(i, j) : 0)) {
                fprintf(stderr,
                        "test_w1a: %s%s over %d planned windows, root %d, groups of %d: rank "
                        "%d: block %d byte %d is 0x%02x\n",
                        sg_routines[routine].name, form_names[form], w.count, root, members,
                        rank, i, j, block[j]);
                exit(1);
            }
    }
    if (rank == root) {
        sg_windows_free(&w);
        munmap(wide, l->span);
    } else {
        free(w.of);
    }
    case_number++;
}

static void windows_planned(MPI_Comm comm)
{
    struct wide_layout l = {malloc((size_t)procs * sizeof(int)),
                            malloc((size_t)procs * sizeof(int)),
                            malloc((size_t)procs * sizeof(int64_t)), 0};
    for (int i = 0; i < procs; i++) {
        l.counts[i] = 5 + i;
        l.intended[i] = i * STRIDE;
        l.wrapped[i] = (int)(uint32_t)(uint64_t)l.intended[i];
    }
    l.span = (size_t)l.intended[procs - 1] + (size_t)l.counts[procs - 1] + MARGIN;
    const enum sg_routine routines[] = {SG_MPI_Gatherv, SG_MPI_Scatterv};
    for (int r = 0; r < 2; r++)
        for (int form = 0; form <= 2; form += 2) /* blocking; non-blocking runner */
            for (int root = 0; root < procs; root += procs - 1)
                for (int members = 2; members <= procs; members += procs - 2)
                    planned_case(comm, &l, routines[r], form, root, members);
    free(l.counts);
    free(l.wrapped);
    free(l.intended);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Datatype pair, spaced;
    MPI_Type_vector(2, 1, 3, MPI_INT, &pair);             /* ints at bytes 0 and 12 */
    MPI_Type_create_resized(pair, -4, 24, &spaced);       /* lb -4, extent 24, size 8 */
    MPI_Type_commit(&spaced);
    MPI_Type_free(&pair);
    MPI_Datatype triple, two_ints;
    MPI_Type_contiguous(3, MPI_CHAR, &triple);
    MPI_Type_commit(&triple);
    MPI_Type_contiguous(2, MPI_INT, &two_ints);
    MPI_Type_commit(&two_ints);

    check_refusals(spaced);

    long alive = sg_w1a_alive();
    MPI_Comm comm, to_all; /* each sweep counts the creations on its own parent */
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &to_all);
    sweep(comm, spaced);
    sweep_to_all(to_all, triple, two_ints, &spaced);
    MPI_Comm_free(&to_all);
    windows_by_hand(comm, spaced);
    windows_planned(comm);
    if (sg_w1a_alive() <= alive)
        fail("no sub-communicator alive after the sweep");
    MPI_Comm_free(&comm);
    if (sg_w1a_alive() != alive)
        fail("%ld sub-communicators still alive after MPI_Comm_free of the parent",
             sg_w1a_alive() - alive);

    /* left on MPI_COMM_WORLD: MPI_Finalize deletes the cache */
    struct setting s = {SG_MPI_Gather, 2,    procs - 1, 2, 1, MPI_INT, MPI_OP_NULL, "MPI_INT",
                        NULL,          NULL, 0};
    struct layout l = {.counts = malloc((size_t)procs * sizeof(int)),
                       .displs = malloc((size_t)procs * sizeof(int))};
    make_layout(&l, case_number);
    run_case(MPI_COMM_WORLD, &s, &l, case_number++);
    free(l.counts);
    free(l.displs);

    MPI_Type_free(&spaced);
    MPI_Type_free(&triple);
    MPI_Type_free(&two_ints);
    if (rank == 0)
        printf("test_w1a: %d ranks, %llu calls compared byte for byte\n", procs,
               (unsigned long long)case_number);
    MPI_Finalize();
    return 0;
}
