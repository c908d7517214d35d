/* W1-B over the side description of workarounds.h: in rounds, in
 * displacement windows, by Reduces, in stages. */
#include "workarounds.h"

#include "private_comm.h"
#include "scratch.h"
#include "sides.h"
#include "tuning.h"
#include "workaround.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t sg_w1b_rounds(const struct sg_described *d, uint64_t chunk)
{
    int64_t send = largest_block(&d->send), recv = largest_block(&d->recv);
    uint64_t largest = (uint64_t)(send > recv ? send : recv);
    return chunk ? (largest + chunk - 1) / chunk : 0;
}

static int64_t clamp_chunk(int64_t count, int64_t offset, int64_t chunk)
{
    int64_t left = count - offset;
    return left <= 0 ? 0 : left < chunk ? left : chunk;
}


/* ---- Per-round state ---------------------------------------------------- */

struct round_side {
    const struct sg_side *side;
    /* V, REGULAR (as V) and PACKED: this round's arrays, of the call's
     * widths: counts int or MPI_Count (sg_side.large), displacements int
     * or MPI_Aint (sg_side.aint_displs) */
    int *counts, *displs;
    MPI_Count *wide_counts;
    MPI_Aint *wide_displs;
    char *packed;         /* PACKED: this round's input, gathered from the blocks */
    char *origin;         /* PACKED: where element 0 of that input starts */
    MPI_Aint true_lb, true_extent; /* PACKED: the data of one element */
    MPI_Datatype piece;   /* this round's piece as a type of its own (sg_type_range), or
                           * MPI_DATATYPE_NULL */
};

/* A run of consecutive elements is copied as the bytes from the first
 * one's data to the last one's, so the data of neighbours must not
 * interleave; where it starts (true lb, before or after lb) does not matter. */
static int packed_side_fits(const struct sg_side *side)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    PMPI_Type_get_extent(side->type, &lb, &extent);
    PMPI_Type_get_true_extent(side->type, &true_lb, &true_extent);
    return extent > 0 && true_extent <= extent;
}

static int side_cuts(const struct sg_side *side)
{
    return side->layout == SG_SIDE_V || side->layout == SG_SIDE_W ? v_side_fits(side)
         : side->layout == SG_SIDE_PACKED ? packed_side_fits(side) : 1;
}

/* ---- Displacement windows ----------------------------------------------- */

/* The widest span one window may have: a base exists from which every
 * displacement is >= INT_MIN and every block end (one past its last
 * element) <= INT_MAX. */
#define WINDOW_SPAN_MAX ((int64_t)INT_MAX - (int64_t)INT_MIN)

/* The base of a window spanning [lo, hi): lo itself when the span fits in
 * [0, INT_MAX] (no negative displacement), else the smallest base that
 * brings hi down to INT_MAX. */
static int64_t window_base(int64_t lo, int64_t hi)
{
    return hi - lo <= INT_MAX ? lo : hi - INT_MAX;
}

struct placed {
    int64_t displ;
    int rank;
};

static int by_displacement(const void *a, const void *b)
{
    const struct placed *x = a, *y = b;
    if (x->displ != y->displ)
        return x->displ < y->displ ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Greedy, in displacement order: a window takes blocks while its span stays
 * within WINDOW_SPAN_MAX. A single block always fits (count <= INT_MAX), so
 * every layout has windows. Where blocks do not overlap (every receive side,
 * every recovered Class D layout) the greedy cut gives the fewest: a window
 * that starts at the first block not yet taken reaches as far as any can. */
static int plan_v_windows(const struct sg_side *side, struct sg_windows *w)
{
    int procs = side->blocks; /* its blocks are the ranks (Gatherv, Scatterv, Allgatherv) */
    struct placed *order = malloc((size_t)procs * sizeof *order);
    w->of = malloc((size_t)procs * sizeof *w->of);
    w->base = malloc((size_t)procs * sizeof *w->base);
    if (order == NULL || w->of == NULL || w->base == NULL) {
        free(order);
        sg_windows_free(w);
        return MPI_ERR_NO_MEM;
    }
    int blocks = 0;
    for (int i = 0; i < procs; i++) {
        w->of[i] = -1;
        if (sg_count_at(side->counts, i) > 0)
            order[blocks++] = (struct placed){side->displs[i], i};
    }
    qsort(order, (size_t)blocks, sizeof *order, by_displacement);
    int count = 0;
    int64_t lo = 0, hi = 0;
    for (int k = 0; k < blocks; k++) {
        int i = order[k].rank;
        int64_t start = order[k].displ, end = start + sg_count_at(side->counts, i);
        if (count == 0 || (end > hi ? end : hi) - lo > WINDOW_SPAN_MAX) {
            if (count > 0)
                w->base[count - 1] = window_base(lo, hi);
            count++;
            lo = start;
            hi = end;
        } else if (end > hi) {
            hi = end;
        }
        w->of[i] = count - 1;
    }
    if (count > 0)
        w->base[count - 1] = window_base(lo, hi);
    else
        w->base[count++] = 0; /* no data at all: one empty window */
    w->count = count;
    free(order);
    return MPI_SUCCESS;
}

/* Alltoallv(w), the neighbourhood v-routines: the base of one window
 * holding the whole side, if there is one (0 where the side fits as it is:
 * its displacements in int, or MPI_Aint ones: Neighbor_alltoallw's). */
static int rebase_whole(const struct sg_side *side, int64_t *base)
{
    *base = 0;
    if ((side->layout != SG_SIDE_V && side->layout != SG_SIDE_W) || v_side_fits(side))
        return 1;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int i = 0; i < side->blocks; i++) {
        if (sg_count_at(side->counts, i) == 0)
            continue;
        if (side->displs[i] < lo)
            lo = side->displs[i];
        if (side->displs[i] + block_span(side, i, sg_count_at(side->counts, i)) > hi)
            hi = side->displs[i] + block_span(side, i, sg_count_at(side->counts, i));
    }
    if (hi - lo > WINDOW_SPAN_MAX)
        return 0;
    *base = window_base(lo, hi);
    return 1;
}

/* A regular neighbourhood side in one window: block i's piece at i times
 * the block's count (its elements) in the v-form. */
static int neighbours_fit(const struct sg_side *side)
{
    return side->layout != SG_SIDE_REGULAR ||
           (int64_t)(side->blocks > 0 ? side->blocks - 1 : 0) * side->count <= INT_MAX;
}

int sg_windows_plan(const struct sg_described *d, int rank, struct sg_windows *w)
{
    *w = SG_WINDOWS_ONE;
    /* A neighbourhood's blocks are no run of ranks, and each meets its
     * neighbour's where that one's topology puts it: never split into
     * windows; its V sides are rebased whole, as Alltoallv's. */
    if (d->neighbours && d->regular)
        return neighbours_fit(&d->send) && neighbours_fit(&d->recv) ? MPI_SUCCESS : -1;
    if (d->regular) {
        /* Zero-byte blocks may still count up to INT_MAX elements: one rank
         * per window keeps their displacements in int too. */
        int64_t fit = d->send.large || d->recv.large ? d->procs
                      : d->block_bytes > 0                 ? INT_MAX / d->block_bytes
                                                           : 1;
        w->ranks = (int)(fit < 1 ? 1 : fit > d->procs ? d->procs : fit);
        w->count = (d->procs + w->ranks - 1) / w->ranks;
        w->mine = rank / w->ranks;
        w->pairs = d->pairwise;
        return MPI_SUCCESS;
    }
    if (d->pairwise || d->neighbours)
        return rebase_whole(&d->send, &w->rebase[0]) && rebase_whole(&d->recv, &w->rebase[1])
                   ? MPI_SUCCESS
                   : -1;
    int send_v = d->send.layout == SG_SIDE_V, recv_v = d->recv.layout == SG_SIDE_V;
    if (!send_v && !side_cuts(&d->send))
        return -1; /* a PACKED input whose elements interleave */
    const struct sg_side *v = send_v ? &d->send : recv_v ? &d->recv : NULL;
    if (v == NULL || v_side_fits(v))
        return MPI_SUCCESS;
    int err = plan_v_windows(v, w);
    if (err == MPI_SUCCESS)
        w->mine = w->of[rank];
    return err;
}

int64_t sg_windows_fingerprint(const struct sg_windows *w, int procs)
{
    if (w->count <= 1 || w->of == NULL)
        return 0;
    uint64_t h = 1469598103934665603u; /* FNV-1a over the partition */
    for (int i = 0; i < procs; i++) {
        h ^= (uint64_t)(uint32_t)w->of[i];
        h *= 1099511628211u;
    }
    return (int64_t)(h >> 2); /* >= 0, so its negation fits: ranks compare max and -min */
}

void sg_windows_free(struct sg_windows *w)
{
    free(w->of);
    free(w->base);
    w->of = NULL;
    w->base = NULL;
}

/* Block i's count and displacement in this round's arrays. Those of int
 * fit: a piece is at most a block of the call, and a window keeps every
 * int displacement in int (sg_windows_plan). */
static void set_block(struct round_side *r, int i, int64_t count, int64_t displ)
{
    if (r->side->large)
        r->wide_counts[i] = count;
    else
        r->counts[i] = (int)count;
    if (r->side->aint_displs)
        r->wide_displs[i] = displ;
    else
        r->displs[i] = (int)displ;
}

static struct sg_counts round_counts(const struct round_side *r)
{
    return r->side->large ? SG_COUNTS(r->wide_counts) : SG_COUNTS(r->counts);
}

static struct sg_displs_array round_displs(const struct round_side *r)
{
    return r->side->aint_displs ? SG_DISPLS(r->wide_displs) : SG_DISPLS(r->displs);
}

static int prepare(struct round_side *r, const struct sg_side *side, int64_t chunk,
                   const struct sg_windows *w)
{
    int procs = side->blocks;
    memset(r, 0, sizeof *r);
    r->side = side;
    r->piece = MPI_DATATYPE_NULL;
    /* a V side with windows, or rebased whole, was checked by sg_windows_plan */
    int rebased = w->of != NULL || w->rebase[0] != 0 || w->rebase[1] != 0;
    int displaced = side->layout == SG_SIDE_V || side->layout == SG_SIDE_W;
    if (!(displaced && rebased) && !side_cuts(side))
        return -1;
    if (side->layout != SG_SIDE_NONE && side->layout != SG_SIDE_SINGLE) {
        size_t blocks = (size_t)(procs > 0 ? procs : 1);
        if (side->large)
            r->wide_counts = malloc(blocks * sizeof *r->wide_counts);
        else
            r->counts = malloc(blocks * sizeof *r->counts);
        if (side->aint_displs)
            r->wide_displs = malloc(blocks * sizeof *r->wide_displs);
        else
            r->displs = malloc(blocks * sizeof *r->displs);
        if ((side->large ? (void *)r->wide_counts : (void *)r->counts) == NULL ||
            (side->aint_displs ? (void *)r->wide_displs : (void *)r->displs) == NULL)
            return MPI_ERR_NO_MEM;
    }
    if (side->layout == SG_SIDE_PACKED) {
        /* up to procs*chunk elements: element i's data at origin + i*extent
         * + true_lb, origin placed so that a negative true lb stays inside */
        MPI_Aint extent = sg_extent_of(side->type);
        PMPI_Type_get_true_extent(side->type, &r->true_lb, &r->true_extent);
        size_t below = r->true_lb < 0 ? (size_t)-r->true_lb : 0;
        size_t above = r->true_lb > 0 ? (size_t)r->true_lb : 0;
        r->packed = sg_scratch_get((size_t)procs * (size_t)chunk * (size_t)extent + below +
                                   above + (size_t)r->true_extent);
        if (r->packed == NULL)
            return MPI_ERR_NO_MEM;
        r->origin = r->packed + below;
    }
    return MPI_SUCCESS;
}

/* A piece's own type, once its sub-call has started (MPI keeps what a
 * started operation uses). */
static void free_piece(struct round_side *r)
{
    if (r->piece != MPI_DATATYPE_NULL)
        PMPI_Type_free(&r->piece);
}

static void release(struct round_side *r)
{
    free_piece(r);
    free(r->counts);
    free(r->displs);
    free(r->wide_counts);
    free(r->wide_displs);
    sg_scratch_put(r->packed);
}

/* Alltoall: the window whose ranks this rank exchanges with in sub-call k
 * of a round (see workarounds.h). */
static int partner(const struct sg_windows *w, int k)
{
    return ((k - w->mine) % w->count + w->count) % w->count;
}

/* This round's piece of a block of `count` elements of a SINGLE or REGULAR
 * side: units [offset, offset + chunk) (basic elements where by_basic),
 * as `*pieces` elements of `*type` from element `*first` of the block.
 * Whole elements where the piece starts and ends on them; else one element
 * of a type of just those units, made here (r->piece), with the block's
 * extent (`stretch`: REGULAR, whose blocks follow each other). Returns an
 * MPI error code, or -1 for a piece no type can hold (sg_type_range). */
static int piece_of(struct round_side *r, int64_t count, int64_t offset, int64_t chunk,
                    int stretch, MPI_Count *pieces, int64_t *first, MPI_Datatype *type)
{
    const struct sg_side *side = r->side;
    int64_t unit = (int64_t)side->unit, length = clamp_chunk(count * unit, offset, chunk);
    *type = side->type;
    *first = 0;
    if (unit == 0 || (offset % unit == 0 && length % unit == 0)) {
        *pieces = unit ? length / unit : 0;
        *first = unit ? offset / unit : 0;
        return MPI_SUCCESS;
    }
    MPI_Datatype range;
    int err = sg_type_range(side->type, (uint64_t)offset, (uint64_t)length, &range);
    if (err != MPI_SUCCESS)
        return err;
    if (stretch) {
        err = PMPI_Type_create_resized(range, 0, (MPI_Aint)count * sg_extent_of(side->type),
                                       &r->piece);
        PMPI_Type_free(&range);
        if (err == MPI_SUCCESS && (err = PMPI_Type_commit(&r->piece)) != MPI_SUCCESS)
            PMPI_Type_free(&r->piece);
        if (err != MPI_SUCCESS)
            return err;
    } else {
        r->piece = range;
    }
    *pieces = 1;
    *type = r->piece;
    return MPI_SUCCESS;
}

/* Set round `offset` of window `window` (Alltoall: pair of windows) of one
 * side into `sub`: buffer, count, arrays. Only SINGLE, REGULAR and V sides
 * can have more than one window (sg_windows_plan). */
static int cut(struct round_side *r, const struct sg_call *c, struct sg_call *sub, int is_send,
               int64_t offset, int64_t chunk, const struct sg_windows *w, int window)
{
    const struct sg_side *side = r->side;
    int procs = side->blocks;
    const void *base = is_send ? c->sendbuf : c->recvbuf;
    /* a W side's displacements count bytes, and its blocks have types of their own */
    MPI_Aint extent = side->layout == SG_SIDE_NONE ? 0 : displ_unit(side);
    const char *moved = NULL;
    MPI_Datatype type = side->layout == SG_SIDE_NONE ? MPI_DATATYPE_NULL : side->type;
    MPI_Count count = 0;
    int err;
    int64_t at;

    switch (side->layout) {
    case SG_SIDE_NONE:
        return MPI_SUCCESS;
    case SG_SIDE_SINGLE:
        if (window != w->mine) {
            moved = base;
            break;
        }
        if ((err = piece_of(r, side->count, offset, chunk, 0, &count, &at, &type)) !=
            MPI_SUCCESS)
            return err;
        moved = count && !side->in_place ? (const char *)base + at * extent : base;
        break;
    case SG_SIDE_REGULAR: {
        /* In the v-form, block i's piece is a contiguous sub-buffer at
         * (i - first) * count from the first block's piece: an int, as a
         * window spans at most INT_MAX elements (a piece of its own type
         * has the block's extent: at i - first). The buffer moves to that
         * piece, so the first displacement is 0 (MPICH 4.0.2's
         * Allgatherv on one process copies to the buffer's start whatever
         * displs[0] says, pmodels/mpich#6374). */
        int k = w->pairs ? partner(w, window) : window, ranks = w->ranks ? w->ranks : procs;
        int first = k * ranks, end = first + ranks;
        MPI_Count pieces;
        if ((err = piece_of(r, side->count, offset, chunk, 1, &pieces, &at, &type)) !=
            MPI_SUCCESS)
            return err;
        int64_t step = r->piece != MPI_DATATYPE_NULL ? 1 : side->count;
        for (int i = 0; i < procs; i++) {
            int inside = i >= first && i < end && pieces > 0;
            set_block(r, i, inside ? pieces : 0, inside ? (int64_t)(i - first) * step : 0);
        }
        moved = (const char *)base + ((MPI_Aint)first * side->count + at) * extent;
        break;
    }
    case SG_SIDE_V:
    case SG_SIDE_W: {
        /* With windows: the buffer moves to the window's base and only its
         * blocks move data; every displacement is an int by construction. */
        int64_t from = w->of ? w->base[window] : w->rebase[is_send ? 0 : 1];
        for (int i = 0; i < procs; i++) {
            int inside = w->of ? w->of[i] == window : 1;
            int64_t piece = inside ? clamp_chunk(sg_count_at(side->counts, i), offset, chunk) : 0;
            set_block(r, i, piece,
                      piece ? side->displs[i] - from + block_span(side, i, offset) : 0);
        }
        moved = (const char *)base + (MPI_Aint)from * extent;
        break;
    }
    case SG_SIDE_PACKED: {
        /* Gather this round's piece of every block into one input vector. */
        const char *input = side->in_place ? c->recvbuf : c->sendbuf;
        int64_t start = 0, packed = 0;
        for (int i = 0; i < procs; i++) {
            int64_t n = block_count(side, i), piece = clamp_chunk(n, offset, chunk);
            set_block(r, i, piece, 0);
            if (piece)
                memcpy(r->origin + packed * extent + r->true_lb,
                       input + (start + offset) * extent + r->true_lb,
                       (size_t)(piece - 1) * (size_t)extent + (size_t)r->true_extent);
            packed += piece;
            start += n;
        }
        sub->sendbuf = r->origin;
        if (sg_counts_given(side->counts))
            sub->recvcounts = round_counts(r);
        return MPI_SUCCESS;
    }
    }

    int arrays = side->layout == SG_SIDE_V || side->layout == SG_SIDE_W ||
                 side->layout == SG_SIDE_REGULAR;
    if (is_send) {
        sub->sendbuf = moved;
        sub->sendcount = count;
        sub->sendtype = type;
        if (arrays) {
            sub->sendcounts = round_counts(r);
            sub->sdispls = round_displs(r);
        }
    } else {
        sub->recvbuf = (void *)moved;
        sub->recvcount = count;
        sub->recvtype = type;
        if (arrays) {
            sub->recvcounts = round_counts(r);
            sub->rdispls = round_displs(r);
        }
    }
    return MPI_SUCCESS;
}

/* One round's state on both sides. A blocking call reuses one; a
 * non-blocking call keeps each round's until its sub-call is done. */
struct round {
    struct round_side send, recv;
};

static void release_round(void *memory)
{
    struct round *r = memory;
    release(&r->send);
    release(&r->recv);
    free(r);
}

static int prepare_round(struct round *r, const struct sg_described *d, int64_t chunk,
                         const struct sg_windows *w)
{
    int err = prepare(&r->send, &d->send, chunk, w);
    if (err == MPI_SUCCESS)
        err = prepare(&r->recv, &d->recv, chunk, w);
    else
        r->recv = (struct round_side){0};
    return err;
}

/* The Reduce_scatter family by one Reduce per block and round, each of a
 * contiguous piece of the input to the block's rank (tuning.h:
 * reduce_by_reduces): nothing packed, and the sub-calls do not depend on
 * each other. The input in place is the result's buffer too, which the
 * Reduces would overwrite while others still read it: not this way. */
static int by_reduces(const struct sg_runner *runner, const struct sg_call *c,
                      const struct sg_described *d, uint64_t chunk, const struct sg_windows *w)
{
    return d->send.layout == SG_SIDE_PACKED && !d->send.in_place && w->count == 1 &&
           sg_tuning()->reduce_by_reduces &&
           sg_runner_allows(runner, SG_MPI_Reduce, c->routine, c->sendtype, (int64_t)chunk,
                            d->procs);
}

static int w1b_by_reduces(struct sg_runner *runner, const struct sg_call *c,
                          const struct sg_described *d, int64_t chunk, uint64_t rounds, int rank)
{
    MPI_Aint extent = sg_extent_of(c->sendtype);
    int err = MPI_SUCCESS;
    for (uint64_t t = 0; err == MPI_SUCCESS && t < rounds; t++) {
        int64_t offset = (int64_t)t * chunk, start = 0;
        for (int i = 0; err == MPI_SUCCESS && i < d->procs; i++) {
            int64_t n = block_count(&d->send, i);
            struct sg_call piece = *c;
            piece.routine = sg_in_form_of(SG_MPI_Reduce, c->routine);
            piece.root = i;
            piece.sendcount = piece.recvcount = clamp_chunk(n, offset, chunk);
            piece.sendbuf = (const char *)c->sendbuf + (start + offset) * extent;
            piece.recvbuf = i == rank ? (char *)c->recvbuf + offset * extent : NULL;
            start += n;
            if (piece.sendcount > 0) /* every rank has every block's count */
                err = sg_run(runner, &piece);
        }
    }
    return err;
}

/* An I-form of the Reduce_scatter family in rounds of the routine, where a
 * fence defers the later rounds to the caller's request (runner.h): one
 * round at a time, each packing its input into the one buffer when it
 * starts, on the layer's private copy of the communicator (the queued
 * rounds run on copies of it). One round's input is in memory, and one
 * round's pages are touched afresh, not every round's: all rounds in
 * flight at once cost 1.6 to 1.9 times the bare call at 64 MiB, most of it
 * the pages of their packed inputs (tuning.c). */
struct staged {
    struct sg_call call; /* the application's: its buffers and counts outlive the request */
    struct sg_side side; /* the packed input */
    struct round_side packed;
    int64_t chunk;
    struct stage {
        struct staged *of;
        int64_t offset;
    } stages[];
};

static void release_staged(void *memory)
{
    struct staged *s = memory;
    release(&s->packed);
    free(s);
}

static int pack_stage(void *state, struct sg_call *sub)
{
    const struct stage *stage = state;
    struct staged *s = stage->of;
    struct sg_windows one = SG_WINDOWS_ONE;
    return cut(&s->packed, &s->call, sub, 1, stage->offset, s->chunk, &one, 0);
}

int sg_w1b_staged(enum sg_routine routine)
{
    return sg_routines[routine].send == SG_SIDE_PACKED && sg_is_nonblocking(routine) &&
           sg_tuning()->idup_beside_collectives;
}

static int w1b_staged(struct sg_runner *runner, const struct sg_call *c,
                      const struct sg_described *d, int64_t chunk, uint64_t rounds)
{
    MPI_Comm copy;
    int err = sg_private_comm(c->comm, &copy);
    if (err != MPI_SUCCESS)
        return err;
    struct staged *s = malloc(sizeof *s + rounds * sizeof *s->stages);
    if (s == NULL)
        return MPI_ERR_NO_MEM;
    *s = (struct staged){.call = *c, .side = d->send, .chunk = chunk};
    struct sg_windows one = SG_WINDOWS_ONE;
    struct round_side result; /* a SINGLE side: nothing allocated, no piece type */
    if ((err = prepare(&s->packed, &s->side, chunk, &one)) != MPI_SUCCESS ||
        (err = prepare(&result, &d->recv, chunk, &one)) != MPI_SUCCESS) {
        release_staged(s);
        return err;
    }
    for (uint64_t t = 0; err == MPI_SUCCESS && t < rounds; t++) {
        if (t > 0)
            sg_runner_fence(runner);
        struct sg_call sub = *c;
        sub.comm = copy;
        s->stages[t] = (struct stage){s, (int64_t)t * chunk};
        err = cut(&result, c, &sub, 0, s->stages[t].offset, chunk, &one, 0);
        sub.recvcount = clamp_chunk(d->recv.count, s->stages[t].offset, chunk);
        if (err == MPI_SUCCESS)
            err = sg_run_prepared(runner, &sub, pack_stage, &s->stages[t]);
    }
    int kept = sg_keep(runner, release_staged, s);
    return err != MPI_SUCCESS ? err : kept;
}

int sg_w1b(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d,
           uint64_t chunk, uint64_t rounds, const struct sg_windows *w)
{
    if (sg_split_risk(c) != NULL)
        return -1;
    if (by_reduces(runner, c, d, chunk, w)) {
        int rank;
        PMPI_Comm_rank(c->comm, &rank);
        return w1b_by_reduces(runner, c, d, (int64_t)chunk, rounds, rank);
    }
    if (sg_w1b_staged(c->routine) && runner->nonblocking && w->count == 1)
        return w1b_staged(runner, c, d, (int64_t)chunk, rounds);
    enum sg_routine routine = d->regular ? sg_routines[c->routine].v_form : c->routine;
    if (routine != c->routine && runner->allows != NULL) { /* regular: chunk counts basic elements */
        int size;
        uint64_t basic, s;
        if (sg_type_measure(block_side(d)->type, &size, &basic) != MPI_SUCCESS)
            return -1;
        sg_in_basic_elements(1, (uint64_t)size, basic, &basic, &s);
        if (!runner->allows(routine, s, chunk, (uint64_t)d->trigger_procs))
            return -1;
    }
    struct round *r = malloc(sizeof *r);
    if (r == NULL)
        return MPI_ERR_NO_MEM;
    int err = prepare_round(r, d, (int64_t)chunk, w);

    /* Window after window, each in the same number of rounds: a rank that
     * holds no V side knows its own window only, not the others' blocks, so
     * the rounds cannot follow each window's own largest block. */
    uint64_t calls = (uint64_t)w->count * rounds;
    for (uint64_t t = 0; err == MPI_SUCCESS && t < calls; t++) {
        if (t > 0 && runner->nonblocking) { /* the previous round's state is in flight */
            err = sg_keep(runner, release_round, r);
            if (err == MPI_SUCCESS && (r = malloc(sizeof *r)) == NULL)
                err = MPI_ERR_NO_MEM;
            if (err != MPI_SUCCESS)
                return err;
            if ((err = prepare_round(r, d, (int64_t)chunk, w)) != MPI_SUCCESS)
                break;
        }
        struct sg_call sub = *c;
        sub.routine = routine;
        int window = (int)(t / rounds);
        int64_t offset = (int64_t)((t % rounds) * chunk);
        err = cut(&r->send, c, &sub, 1, offset, (int64_t)chunk, w, window);
        if (err == MPI_SUCCESS)
            err = cut(&r->recv, c, &sub, 0, offset, (int64_t)chunk, w, window);
        if (err == MPI_SUCCESS) {
            /* Reductions share one count between both buffers. */
            if (is_reduction(c->routine) && d->send.layout == SG_SIDE_SINGLE)
                sub.recvcount = sub.sendcount;
            if (d->send.layout == SG_SIDE_PACKED)
                sub.recvcount = clamp_chunk(d->recv.count, offset, (int64_t)chunk);
            err = sg_run(runner, &sub);
        }
        free_piece(&r->send);
        free_piece(&r->recv);
    }
    int kept = sg_keep(runner, release_round, r);
    return err != MPI_SUCCESS ? err : kept;
}

/* ---- W1-B's row (workaround.h) -------------------------------------------- */

/* Where the chunk cuts this layout and the ranks agree (or it is one
 * window, one round), and splitting cannot change a reduction's bits. */
static int w1b_applies(const struct sg_choice *ch)
{
    int local = ch->fit->win.count == 1 && ch->fit->rounds == 1;
    return ch->fit->cuts && (ch->agreed || local) && ch->exact;
}

static enum sg_unavailable w1b_unavailable(const struct sg_choice *ch, char *why, size_t size)
{
    const struct sg_w1b_fit *fit = ch->fit;
    if (!ch->exact)
        snprintf(why, size, "splitting this reduction could change its result, as %s",
                 sg_split_risk(ch->c));
    else if (fit->too_many)
        snprintf(why, size, "it would cut the call into more than %d sub-calls",
                 SG_W1B_MAX_SUBCALLS);
    else if (fit->chunk <= 0)
        snprintf(why, size, "the bound leaves no element of the call for a sub-call");
    else if (!fit->cuts)
        snprintf(why, size, "its displacement windows could not be planned");
    else
        snprintf(why, size,
                 "the ranks would have to agree on its rounds and windows, which needs a "
                 "message sent only for a routine with a bound (class G or X)");
    return SG_UNAVAILABLE_CANNOT_APPLY;
}

static struct sg_plan w1b_plan(const struct sg_choice *ch)
{
    return (struct sg_plan){SG_PLAN_W1B, ch->fit->chunk, ch->fit->rounds, ch->fit->win.count, 0, 0};
}

static int run_w1b(struct sg_runner *runner, const struct sg_call *c, const struct sg_run_with *r)
{
    return sg_w1b(runner, c, r->d, (uint64_t)r->plan->chunk, (uint64_t)r->plan->rounds,
                  r->windows);
}

static void how_w1b(char *how, size_t size, const struct sg_call *c, const struct sg_run_with *r)
{
    (void)c;
    const struct sg_windows *w = r->windows;
    if (w->of == NULL && (w->rebase[0] != 0 || w->rebase[1] != 0))
        snprintf(how, size, "W1-B with displacements rebased");
    else if (w->of == NULL)
        snprintf(how, size, "W1-B");
    else
        snprintf(how, size, "W1-B over %d displacement window%s", w->count,
                 w->count == 1 ? "" : "s");
}

const struct sg_workaround_op sg_w1b_op = {
    .name = SG_WORKAROUND_W1B, .kind = SG_PLAN_W1B, .applies = w1b_applies, .plan = w1b_plan,
    .unavailable = w1b_unavailable, .run = run_w1b, .how = how_w1b};
