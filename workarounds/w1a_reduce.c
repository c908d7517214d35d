/* W1-A for the reductions to every rank (Allreduce, Reduce_scatter(_block))
 * and Reduce by parts: over a grid of ranks. */
#include "scratch.h"
#include "tuning.h"
#include "w1a_parts.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The reductions over a grid: `columns` consecutive ranks per row
 * (grid_columns), rows and columns at most `members` long. List g <
 * columns is column g (the ranks g, g + columns, ...), list columns + t is
 * row t. Any grid regroups the operands: exact only where the grouping
 * cannot matter (sg_split_risk). */
static int grid_subs(const struct sg_runner *runner, MPI_Comm parent, int procs, int columns,
                     int me, MPI_Comm **subs)
{
    int rows = procs / columns;
    struct partition p;
    int err = w1a_new_partition(&p, columns + rows, 2 * procs);
    for (int g = 0; err == MPI_SUCCESS && g < columns; g++)
        w1a_add_runs(&p, g, rows, columns, 0, 0);
    for (int t = 0; err == MPI_SUCCESS && t < rows; t++)
        w1a_add_runs(&p, t * columns, columns, 1, 0, 0);
    if (err == MPI_SUCCESS)
        err = w1a_subs_of(runner, parent, &p, me, subs);
    w1a_free_partition(&p);
    return err;
}

/* A row's parts of a vector of n elements, as MPI libraries cut a large
 * reduction (reduce-scatter, then gather): part j is counts[j] elements at
 * displs[j], the first n % parts one element longer. So a part never
 * starts before the first part ends: part j > 0 may be reduced from the
 * vector's start into its own place. In one allocation (counts first). */
static int *row_parts(int n, int parts)
{
    int *counts = malloc(2 * (size_t)parts * sizeof *counts);
    for (int j = 0, at = 0; counts != NULL && j < parts; j++) {
        counts[j] = n / parts + (j < n % parts);
        counts[parts + j] = at;
        at += counts[j];
    }
    return counts;
}

/* Run a step whose result a later step takes (the caller sets the fence
 * after it). Where the fence waits for it (sg_runner_fence_waits), it runs
 * as the blocking routine where the configuration lets that take the step
 * (`n` elements over `procs`): the blocking routine is the faster one on
 * some MPIs (Open MPI 4.1.4, 64 MiB over 2 ranks: Reduce 87 ms, libnbc's
 * Ireduce 132 ms, which also allocates twice the vector on every call).
 * Each member of the step's communicator judges alike (the same routine,
 * count and configuration), so all run the same form. Else a non-blocking
 * runner starts it (or queues it, after an earlier fence). */
static int run_step(struct sg_runner *runner, struct sg_call *step, int64_t n, int procs)
{
    if (!sg_runner_fence_waits(runner))
        return sg_run(runner, step);
    enum sg_routine blocking = sg_blocking_form(step->routine);
    if (step->routine != blocking &&
        sg_runner_allows(runner, blocking, blocking, step->sendtype, n, procs))
        step->routine = blocking;
    return sg_run(runner, step);
}

/* One Reduce per part of a vector over `comm` (tuning.h: reduce_by_reduces):
 * part k, the counts[k] elements after the parts before it in `input`, to member
 * k / per_member, which receives its parts one after the other in `mine`
 * (in place where that is the part's place in the input). With `step` each
 * Reduce is a step whose result a later one takes (run_step); else it runs
 * by `runner`. */
static int reduce_each_part(struct sg_runner *runner, int step, const struct sg_call *c,
                            MPI_Comm comm, const char *input, const int *counts, int parts,
                            int per_member, int index, char *mine)
{
    MPI_Aint extent = sg_extent_of(c->sendtype), at = 0, mine_at = 0;
    int err = MPI_SUCCESS;
    for (int k = 0; err == MPI_SUCCESS && k < parts; k++) {
        struct sg_call each = *c;
        each.routine = sg_in_form_of(SG_MPI_Reduce, c->routine);
        each.comm = comm;
        each.root = k / per_member;
        each.sendcount = each.recvcount = counts[k];
        each.sendbuf = input + at * extent;
        each.recvbuf = NULL;
        if (each.root == index) {
            each.recvbuf = mine + mine_at * extent;
            mine_at += counts[k];
        }
        if (each.sendbuf == each.recvbuf)
            each.sendbuf = MPI_IN_PLACE;
        at += counts[k];
        err = step ? run_step(runner, &each, counts[k], parts / per_member)
                   : sg_run(runner, &each);
    }
    return err;
}

/* Whether the reduction of `c` to all or to its root can run by parts:
 * along a row Reduce_scatter of the vector (or Reduce of the largest part,
 * the first) and Allgatherv (Reduce: Gatherv) of the largest part, where
 * the configuration lets those routines take it. */
int w1a_by_parts(const struct sg_runner *runner, const struct sg_call *c, int columns,
                    int per_part)
{
    enum sg_routine gather = sg_blocking_form(c->routine) == SG_MPI_Reduce ? SG_MPI_Gatherv
                                                                 : SG_MPI_Allgatherv;
    int largest = c->sendcount / columns + (c->sendcount % columns > 0);
    int scattered =
        per_part
            ? sg_runner_allows(runner, SG_MPI_Reduce, c->routine, c->sendtype, largest, columns)
            : sg_runner_allows(runner, SG_MPI_Reduce_scatter, c->routine, c->sendtype,
                               c->sendcount, columns);
    return scattered && sg_runner_allows(runner, gather, c->routine, c->sendtype, largest, columns);
}

/* Allreduce and Reduce to the root by parts, in three steps over the grid:
 * along its row each rank reduces the row's inputs and keeps its own part of
 * the vector (Reduce_scatter); down its column that part is reduced over the
 * rows (Allreduce; Reduce to the root's row); along the row the parts are
 * gathered (Allgatherv; Gatherv in the root's row to the root). Each step
 * moves and combines each element once, as the MPI's own algorithm for a
 * large vector does; a grid of two Allreduce steps combines the whole
 * vector twice. A part's input is the step before's result: a fence
 * follows each of the first two steps. */
int w1a_reduce_by_parts(struct sg_runner *runner, const struct sg_call *c,
                           const struct sg_described *d, int columns, int per_part, int me)
{
    int reduce = sg_blocking_form(c->routine) == SG_MPI_Reduce, root = reduce ? c->root : -1;
    int column = me % columns, row = me / columns, in_root_row = !reduce || row == root / columns;
    int is_root = me == root || !reduce, in_place = d->send.in_place && is_root;
    MPI_Comm *subs = NULL;
    int err = grid_subs(runner, c->comm, d->procs, columns, me, &subs);
    int *counts = err == MPI_SUCCESS ? row_parts(c->sendcount, columns) : NULL;
    if (err == MPI_SUCCESS && counts == NULL)
        err = MPI_ERR_NO_MEM;
    if (err != MPI_SUCCESS)
        return err;
    int *displs = counts + columns;
    MPI_Aint extent = sg_extent_of(c->sendtype);
    /* Where step 1 puts this rank's part, and where step 2's result must be
     * (in the root's row): the root's in the receive buffer, at the part's
     * place; the other ranks' in a temporary. A Reduce per part reduces
     * there, in place where the input is the receive buffer. Allreduce in
     * place (every rank passes MPI_IN_PLACE) reduce-scatters in place: the
     * part lands at the start of the receive buffer, and step 2 moves it to
     * its place, which it cannot overlap (row_parts). Reduce in place (the
     * root alone) reduce-scatters from the receive buffer into a temporary:
     * in place is for every rank alike there. */
    const char *input = in_place ? c->recvbuf : c->sendbuf;
    char *part = NULL, *dest = NULL;
    if (is_root)
        dest = (char *)c->recvbuf + (MPI_Aint)displs[column] * extent;
    if (is_root && per_part)
        part = dest;
    else if (!reduce)
        part = in_place ? c->recvbuf : dest;
    else if (is_root && !in_place)
        part = dest;
    else if ((part = sg_scratch_get((size_t)counts[column] * (size_t)extent)) == NULL)
        err = MPI_ERR_NO_MEM;
    int temporary = part != NULL && part != dest && part != c->recvbuf;
    if (dest == NULL)
        dest = part;

    if (per_part && err == MPI_SUCCESS)
        err = reduce_each_part(runner, 1, c, subs[columns + row], input, counts, columns, 1,
                               column, part);
    if (!per_part && err == MPI_SUCCESS) {
        struct sg_call scatter = *c;
        scatter.routine = sg_in_form_of(SG_MPI_Reduce_scatter, c->routine);
        scatter.comm = subs[columns + row];
        if (reduce && in_place)
            scatter.sendbuf = c->recvbuf;
        scatter.recvbuf = part;
        scatter.recvcounts = SG_COUNTS(counts);
        err = run_step(runner, &scatter, c->sendcount, columns);
    }
    sg_runner_fence(runner);
    if (err == MPI_SUCCESS) {
        struct sg_call down = *c;
        down.comm = subs[column];
        if (reduce)
            down.root = root / columns;
        down.sendcount = down.recvcount = counts[column];
        down.sendbuf = in_root_row && part == dest ? MPI_IN_PLACE : part;
        down.recvbuf = in_root_row ? dest : NULL; /* Reduce off the root's row: unused */
        err = run_step(runner, &down, counts[column], d->procs / columns);
    }
    sg_runner_fence(runner);
    if (err == MPI_SUCCESS && in_root_row) {
        struct sg_call gather = *c;
        gather.routine =
            sg_in_form_of(reduce ? SG_MPI_Gatherv : SG_MPI_Allgatherv, c->routine);
        gather.comm = subs[columns + row];
        if (reduce)
            gather.root = root % columns;
        gather.sendbuf = is_root ? MPI_IN_PLACE : dest;
        gather.sendcount = counts[column];
        gather.recvtype = c->sendtype;
        gather.recvcounts = SG_COUNTS(counts);
        gather.rdispls = SG_DISPLS(displs);
        err = sg_run(runner, &gather);
    }
    int kept = sg_keep(runner, free, counts);
    if (temporary) {
        int also = sg_keep(runner, sg_scratch_put, part);
        kept = kept != MPI_SUCCESS ? kept : also;
    }
    return err != MPI_SUCCESS ? err : kept;
}

/* Elements of one piece of reduce_by_pieces: 4 MiB. */
static int64_t piece_of(MPI_Datatype type)
{
    MPI_Aint extent = sg_extent_of(type);
    return extent >= ((MPI_Aint)4 << 20) ? 1 : ((int64_t)4 << 20) / extent;
}

/* Reduce_scatter(_block) over the grid by pieces (MPICH): the two steps of
 * reduce_to_all cut into pieces of each block. Round j reduces piece j of
 * every block: down the column each block's piece to the member in the
 * block's row, then along the row each one to its rank, in one
 * Reduce_scatter per block whose counts are 0 but at that member's (the
 * calls of a step started at once). MPICH 4.0.2's
 * Reduce_scatter copies the rank's own block and receives into a fresh
 * temporary of the block's size on every call; over the grid, whose step-1
 * blocks are `columns` times the call's, that costs 1.7 times the bare call
 * (64 MiB, P = 4), and its Reduce more. Pieces keep those temporaries, and
 * the row's partial result, at a piece: 1.05 to 1.1 times in a stand-alone
 * test, where glibc's malloc recycles freed blocks of that size (its
 * dynamic mmap threshold; with the threshold fixed, 1.45 to 1.6). Block k
 * starts at the sum of the counts before it; a rank's result goes to its
 * receive buffer, at the piece's place: where that is the input (in place),
 * it was read in this round or an earlier one. Each step takes the step
 * before's result: a fence after each. A non-blocking call queues the steps
 * so the I-call returns at once and its request runs them; a blocking one
 * queues them the same way and finishes them before it returns (MPICH,
 * 64 MiB, P = 4: 0.96 to 1.01 times the bare call, where waiting for each
 * step's calls on the grid's communicators themselves took 1.29 to 1.37;
 * the queued steps run on the call's copies of them, runner.h). */
static int reduce_by_pieces(struct sg_runner *runner, const struct sg_call *c, MPI_Comm *subs,
                            int columns, int row, int column, const int *block_counts,
                            int largest, int procs, const char *input)
{
    int rows = procs / columns;
    MPI_Aint extent = sg_extent_of(c->sendtype);
    int64_t piece = piece_of(c->sendtype);
    /* the steps' runner; the row's partial result of one piece; per call
     * of every step its counts (all are queued in the call) */
    struct sg_runner queued = SG_RUNNER(runner->mpi, 1);
    struct sg_runner *steps_runner = runner->nonblocking ? runner : &queued;
    size_t slot = (size_t)procs * (size_t)(rows > columns ? rows : columns);
    size_t steps = 2 * (size_t)((largest + piece - 1) / piece);
    char *part = sg_scratch_get((size_t)(columns * piece) * (size_t)extent);
    int *counts = calloc(slot * steps, sizeof *counts), *step_counts = counts;
    int64_t *displs = malloc((size_t)procs * sizeof *displs);
    int err = part != NULL && counts != NULL && displs != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    int64_t start = 0; /* the vector may be longer than INT_MAX */
    for (int k = 0; err == MPI_SUCCESS && k < procs; start += block_counts[k++])
        displs[k] = start;
    for (int64_t at = 0; err == MPI_SUCCESS && at < largest; at += piece) {
        for (int step = 0; err == MPI_SUCCESS && step < 2; step++) {
            int calls = step == 0 ? procs : columns, members = step == 0 ? rows : columns;
            for (int i = 0; err == MPI_SUCCESS && i < calls; i++) {
                int k = step == 0 ? i : row * columns + i; /* the block */
                int64_t left = block_counts[k] - at;
                if (left <= 0)
                    continue; /* the same on every rank */
                int to = step == 0 ? k / columns : i, mine = to == (step == 0 ? row : column);
                int *these = step_counts + (size_t)i * (size_t)members;
                memset(these, 0, (size_t)members * sizeof *these);
                these[to] = (int)(left < piece ? left : piece);
                struct sg_call sub = *c;
                sub.routine = SG_MPI_Ireduce_scatter;
                sub.comm = subs[step == 0 ? column : columns + row];
                sub.recvcounts = SG_COUNTS(these);
                if (step == 0) {
                    sub.sendbuf = input + (displs[k] + at) * extent;
                    sub.recvbuf = mine ? part + (k % columns) * piece * extent : NULL;
                } else {
                    sub.sendbuf = part + i * piece * extent;
                    sub.recvbuf = mine ? (char *)c->recvbuf + at * extent : NULL;
                }
                err = sg_run(steps_runner, &sub);
            }
            sg_runner_fence(steps_runner); /* the next step takes this one's result */
            step_counts += slot;
        }
    }
    free(displs);
    if (steps_runner == &queued) {
        int done = sg_runner_finish(&queued);
        err = err != MPI_SUCCESS ? err : done;
    }
    int kept = sg_keep(runner, sg_scratch_put, part), also = sg_keep(runner, free, counts);
    kept = kept != MPI_SUCCESS ? kept : also;
    return err != MPI_SUCCESS ? err : kept;
}

/* Allreduce and Reduce_scatter(_block) over the grid in two steps (an
 * Allreduce that cannot run by parts). Step 1 reduces down each column with
 * the routine itself: Allreduce gives every member the column's partial
 * result; Reduce_scatter gives the column's t-th member the column's partial
 * result for row t's blocks, which are consecutive in the input. Step 2
 * reduces along each row those partial results: the result over all
 * columns, each rank's own. Step 2 takes step 1's result as input: a
 * fence between them. */
int w1a_reduce_to_all(struct sg_runner *runner, const struct sg_call *c,
                         const struct sg_described *d, int columns, int me)
{
    enum sg_routine f = sg_blocking_form(c->routine);
    int procs = d->procs, rows = procs / columns;
    int column = me % columns, row = me / columns;
    /* step 1's counts (Reduce_scatter: per row, the sum of its ranks'
     * counts), in int on every rank alike */
    int *row_counts = NULL, block = 0;
    int64_t vector = c->sendcount; /* the length reduced down a column */
    if (f == SG_MPI_Reduce_scatter) {
        if ((row_counts = malloc((size_t)rows * sizeof *row_counts)) == NULL)
            return MPI_ERR_NO_MEM;
        vector = 0;
        for (int t = 0; t < rows; t++) {
            int64_t sum = 0;
            for (int g = 0; g < columns; g++)
                sum += sg_count_at(c->recvcounts, t * columns + g);
            if (sum > INT_MAX) {
                free(row_counts);
                return -1;
            }
            row_counts[t] = (int)sum;
            vector += sum;
        }
    } else if (f == SG_MPI_Reduce_scatter_block) {
        if ((int64_t)c->recvcount * columns > INT_MAX)
            return -1;
        block = c->recvcount * columns;
        vector = (int64_t)block * rows;
    }

    /* One Reduce per block in each step (tuning.h: reduce_by_reduces), where the
     * configuration lets Reduce take the largest block: down the column row
     * t's blocks to its member t, then along the row each rank's block to
     * it. A Reduce of a block is never larger than the call. Else (MPICH)
     * by pieces, where the configuration lets Ireduce_scatter take a piece
     * (reduce_by_pieces). */
    int *block_counts = NULL, per_block = 0, by_pieces = 0, largest = 0;
    if (f != SG_MPI_Allreduce) {
        if ((block_counts = malloc((size_t)procs * sizeof *block_counts)) == NULL) {
            free(row_counts);
            return MPI_ERR_NO_MEM;
        }
        for (int i = 0; i < procs; i++) {
            block_counts[i] =
                f == SG_MPI_Reduce_scatter ? sg_count_at(c->recvcounts, i) : c->recvcount;
            largest = block_counts[i] > largest ? block_counts[i] : largest;
        }
        if (sg_tuning()->reduce_by_reduces)
            per_block =
                sg_runner_allows(runner, SG_MPI_Reduce, c->routine, c->sendtype, largest, rows) &&
                sg_runner_allows(runner, SG_MPI_Reduce, c->routine, c->sendtype, largest, columns);
        else { /* a sub-call's vector: one piece at most */
            int64_t piece = piece_of(c->sendtype), n = largest < piece ? largest : piece;
            by_pieces = sg_runner_allows(runner, SG_MPI_Ireduce_scatter, SG_MPI_Ireduce_scatter,
                                         c->sendtype, n, rows) &&
                        sg_runner_allows(runner, SG_MPI_Ireduce_scatter, SG_MPI_Ireduce_scatter,
                                         c->sendtype, n, columns);
        }
    }

    MPI_Comm *subs = NULL;
    int err = grid_subs(runner, c->comm, procs, columns, me, &subs);
    if (by_pieces) {
        if (err == MPI_SUCCESS)
            err = reduce_by_pieces(runner, c, subs, columns, row, column, block_counts, largest,
                                   procs, d->send.in_place ? c->recvbuf : c->sendbuf);
        free(row_counts);
        free(block_counts);
        return err;
    }
    void *partial = NULL;
    if (err == MPI_SUCCESS && f != SG_MPI_Allreduce) {
        int count = f == SG_MPI_Reduce_scatter ? row_counts[row] : block;
        partial = sg_scratch_get((size_t)count * (size_t)sg_extent_of(c->sendtype));
        if (partial == NULL)
            err = MPI_ERR_NO_MEM;
    }
    if (err == MPI_SUCCESS) {
        struct sg_call down = *c, along = *c;
        down.comm = subs[column];
        along.comm = subs[columns + row];
        along.sendbuf = MPI_IN_PLACE; /* Allreduce: step 1's result, in recvbuf */
        if (f != SG_MPI_Allreduce) {
            down.sendbuf = d->send.in_place ? c->recvbuf : c->sendbuf;
            down.recvbuf = partial;
            down.recvcounts = SG_COUNTS(row_counts);
            down.recvcount = down.sendcount = block;
            along.sendbuf = partial;
            along.recvcounts = sg_counts_from(c->recvcounts, row * columns);
        }
        if (per_block) {
            err = reduce_each_part(runner, 1, c, down.comm, down.sendbuf, block_counts, procs,
                                   columns, row, partial);
            sg_runner_fence(runner);
            if (err == MPI_SUCCESS)
                err = reduce_each_part(runner, 0, c, along.comm, partial,
                                       block_counts + row * columns, columns, 1, column,
                                       c->recvbuf);
        } else {
            err = run_step(runner, &down, vector, rows);
            sg_runner_fence(runner);
            if (err == MPI_SUCCESS)
                err = sg_run(runner, &along);
        }
    }
    int kept = partial != NULL ? sg_keep(runner, sg_scratch_put, partial) : MPI_SUCCESS;
    if (row_counts != NULL) { /* step 1's */
        int also = sg_keep(runner, free, row_counts);
        kept = kept != MPI_SUCCESS ? kept : also;
    }
    free(block_counts); /* a Reduce keeps no counts */
    return err != MPI_SUCCESS ? err : kept;
}
