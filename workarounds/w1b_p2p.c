/* W1-B for Gatherv, Scatterv and Alltoallv(w) (and their I-forms) with no
 * plan sent: see workarounds.h. */
#include "workarounds.h"

#include "sides.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workaround.h"

/* The widest span one round's blocks may have from one base (as the
 * displacement windows of w1b.c): every displacement >= INT_MIN and
 * every block end <= INT_MAX. */
#define SPAN_MAX ((int64_t)INT_MAX - (int64_t)INT_MIN)

/* `chunk` basic elements in elements of `type` (rounded down), and
 * whether that is what the side's blocks are compared with (a type of
 * zero elements moves nothing: no block of it is large). */
static int64_t in_elements_of(MPI_Datatype type, int64_t chunk)
{
    uint64_t elements = 1;
    if (sg_type_elements(type, &elements) != MPI_SUCCESS || elements == 0)
        return INT64_MAX;
    return chunk / (int64_t)(elements < INT64_MAX ? elements : INT64_MAX);
}

/* `chunk` basic elements in elements of a side's datatype: of its one
 * type (computed once: `of_side`), or of block i's own on a W side. */
static int64_t block_chunk(const struct sg_side *side, int i, int64_t chunk, int64_t of_side)
{
    return side->layout == SG_SIDE_W ? in_elements_of(side->types[i], chunk) : of_side;
}

/* Round one's arrays of one side: counts and displacements as MPI_Count
 * and MPI_Aint (a large-count form's), and as int (an int form's: counts,
 * then displacements). */
struct round_one {
    MPI_Count *counts;
    MPI_Aint *displs;
    int *of_int;
};

/* Round one of a V or W side: every block of at most `chunk` basic
 * elements, and the first lead[i] elements of each larger one (none
 * without `lead`), described from one base.
 * `arrays` gets the counts, then the displacements; `*buffer` is moved to
 * the base. Returns -1 when those pieces span too wide for one base. */
static int small_blocks(const struct sg_side *side, int procs, int64_t chunk,
                        const int64_t *lead, struct round_one *arrays, char **buffer)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int64_t of_side = side->layout == SG_SIDE_W ? 0 : in_elements_of(side->type, chunk);
    for (int i = 0; i < procs; i++) {
        int64_t count = sg_count_at(side->counts, i);
        count = count <= block_chunk(side, i, chunk, of_side) ? count : lead ? lead[i] : 0;
        arrays->counts[i] = count;
        if (count > 0) {
            int64_t end = side->displs[i] + block_span(side, i, count);
            lo = side->displs[i] < lo ? side->displs[i] : lo;
            hi = end > hi ? end : hi;
        }
    }
    /* a large-count form's MPI_Aint displacements need no base */
    int64_t base = 0;
    if (!side->large && lo <= hi && (lo < INT_MIN || hi > INT_MAX)) {
        if (hi - lo > SPAN_MAX)
            return -1;
        base = hi - lo <= INT_MAX ? lo : hi - INT_MAX;
    }
    for (int i = 0; i < procs; i++)
        arrays->displs[i] = arrays->counts[i] > 0 ? side->displs[i] - base : 0;
    if (!side->large) /* each fits: a block of the call's, a displacement from the base */
        for (int i = 0; i < procs; i++) {
            arrays->of_int[i] = (int)arrays->counts[i];
            arrays->of_int[procs + i] = (int)arrays->displs[i];
        }
    *buffer += (MPI_Aint)base * displ_unit(side);
    return MPI_SUCCESS;
}

/* One side's arrays of round one, of the call's width. */
static struct sg_counts round_one_counts(const struct round_one *a, const struct sg_side *side)
{
    return side->large ? SG_COUNTS(a->counts) : SG_COUNTS(a->of_int);
}

static struct sg_displs_array round_one_displs(const struct round_one *a,
                                               const struct sg_side *side, int procs)
{
    return side->large ? SG_DISPLS(a->displs) : SG_DISPLS(a->of_int + procs);
}

static void release_round_one(void *memory)
{
    struct round_one *a = memory;
    for (int k = 0; k < 2; k++) {
        free(a[k].counts);
        free(a[k].displs);
        free(a[k].of_int);
    }
    free(a);
}

/* Where element `at` of block i of a V or W side lies, in bytes from the
 * side's buffer. */
static MPI_Aint element_at(const struct sg_side *side, int i, int64_t at)
{
    return (MPI_Aint)side->displs[i] * displ_unit(side) +
           (MPI_Aint)at * sg_extent_of(block_type(side, i));
}

struct pieces {
    MPI_Request *requests;
    int count, capacity;
};

/* Post one block whole, as one message: receive (into) or send (from)
 * `at`, with `peer`. Whole, because the ranks at its two ends may pass
 * different datatypes for it (the same signature): pieces cut in elements
 * of each would not match, and one message of an int count of either
 * always does. */
static int post_block(struct pieces *p, int receive, char *at, MPI_Count count,
                      MPI_Datatype type, int peer, MPI_Comm comm)
{
    if (p->count == p->capacity) {
        int wanted = p->capacity ? 2 * p->capacity : 16;
        MPI_Request *bigger = realloc(p->requests, (size_t)wanted * sizeof *bigger);
        if (bigger == NULL)
            return MPI_ERR_NO_MEM;
        p->requests = bigger;
        p->capacity = wanted;
    }
    MPI_Request *request = &p->requests[p->count];
    int err;
    if (count <= INT_MAX)
        err = receive ? PMPI_Irecv(at, (int)count, type, peer, 0, comm, request)
                      : PMPI_Isend(at, (int)count, type, peer, 0, comm, request);
    else /* a block of a large-count form's call */
#if SCALEGUARD_LARGE_COUNT
        err = receive ? PMPI_Irecv_c(at, count, type, peer, 0, comm, request)
                      : PMPI_Isend_c(at, count, type, peer, 0, comm, request);
#else
        err = MPI_ERR_COUNT; /* never: this MPI has no large-count call */
#endif
    if (err == MPI_SUCCESS)
        p->count++;
    return err;
}

/* The most pieces an in-place exchange cuts one block into. */
#define MAX_PIECES 1024

/* An in-place Alltoallv's blocks over `chunk` basic elements: how many
 * elements of each round one moves (lead[j], per peer j; 0 for a block
 * that is not large) and in what steps the rest is exchanged (step[j]).
 * The two ends of a block may receive it in types of different signature
 * lengths, so they first tell each other theirs (one int64 each way, pair
 * after pair in rank order, as the exchange goes) and cut at multiples of
 * the least common multiple: both ends then cut at the same basic
 * elements. At least one such multiple leads (a bound below it is
 * exceeded by a few elements); at most MAX_PIECES steps follow. */
static int plan_exchange(const struct sg_side *side, int procs, int rank, int64_t chunk,
                         MPI_Comm comm, int64_t *lead, int64_t *step)
{
    uint64_t elements = 0;
    int err = MPI_SUCCESS;
    for (int j = 0; j < procs; j++) {
        /* a W side's blocks each have their own datatype */
        if ((j == 0 || side->layout == SG_SIDE_W) &&
            (err = sg_type_elements(block_type(side, j), &elements)) != MPI_SUCCESS)
            return err;
        int64_t mine = elements > 0 && elements < INT32_MAX ? (int64_t)elements : 0;
        lead[j] = step[j] = 0;
        if (j == rank || mine == 0 || sg_count_at(side->counts, j) <= chunk / mine)
            continue;
        int64_t theirs = 0;
        if ((err = PMPI_Sendrecv(&mine, 1, MPI_INT64_T, j, 1, &theirs, 1, MPI_INT64_T, j, 1,
                                 comm, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            return err;
        if (theirs <= 0)
            theirs = mine;
        int64_t common = mine / sg_gcd(mine, theirs) * theirs; /* basic elements */
        int64_t unit = common / mine, blocks = sg_count_at(side->counts, j) / unit;
        int64_t first = chunk / common > 0 ? chunk / common : 1;
        first = first < blocks ? first : blocks;
        int64_t rest = blocks - first, each = (rest + MAX_PIECES - 1) / MAX_PIECES;
        lead[j] = first * unit;
        step[j] = (each > first ? each : first) * unit;
    }
    return MPI_SUCCESS;
}

/* An in-place Alltoallv's large blocks after their first lead[j] elements
 * (which round one moves): each is sent and replaced by its peer's block
 * for this rank, step by step (one step of memory inside MPI at a time).
 * Peer after peer in rank order: every rank takes its pairs in the order of
 * (lower rank, higher rank), so the first pair not yet done is the next of
 * both its ranks, and no cycle of waits can form. */
static int exchange_in_place(const struct sg_side *side, char *buffer, int procs,
                             const int64_t *lead, const int64_t *step, MPI_Comm comm)
{
    for (int j = 0; j < procs; j++)
        for (int64_t done = lead[j]; step[j] > 0 && done < sg_count_at(side->counts, j);
             done += step[j]) {
            MPI_Count left = sg_count_at(side->counts, j) - done;
            MPI_Count piece = left < step[j] ? left : step[j];
            char *at = buffer + element_at(side, j, done);
            int err;
            if (piece <= INT_MAX)
                err = PMPI_Sendrecv_replace(at, (int)piece, block_type(side, j), j, 0, j, 0, comm,
                                            MPI_STATUS_IGNORE);
            else /* a step of a large-count form's block */
#if SCALEGUARD_LARGE_COUNT
                err = PMPI_Sendrecv_replace_c(at, piece, block_type(side, j), j, 0, j, 0, comm,
                                              MPI_STATUS_IGNORE);
#else
                err = MPI_ERR_COUNT; /* never: this MPI has no large-count call */
#endif
            if (err != MPI_SUCCESS)
                return err;
        }
    return MPI_SUCCESS;
}

int sg_w1b_p2p(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d,
               int64_t chunk, MPI_Comm copy)
{
    int procs = d->procs, rank;
    PMPI_Comm_rank(c->comm, &rank);
    const struct sg_side *send = &d->send, *recv = &d->recv;
    struct sg_call first = *c;
    struct round_one *arrays = calloc(2, sizeof *arrays); /* [0] send, [1] receive */
    int64_t *lead = NULL;
    for (int k = 0; arrays != NULL && k < 2; k++) {
        arrays[k].counts = malloc((size_t)procs * sizeof *arrays[k].counts);
        arrays[k].displs = malloc((size_t)procs * sizeof *arrays[k].displs);
        arrays[k].of_int = malloc(2 * (size_t)procs * sizeof *arrays[k].of_int);
        if (!arrays[k].counts || !arrays[k].displs || !arrays[k].of_int) {
            release_round_one(arrays);
            return MPI_ERR_NO_MEM;
        }
    }
    if (arrays == NULL)
        return MPI_ERR_NO_MEM;

    /* Round one: the call itself with every block of at most `chunk` basic
     * elements, whose rest goes point to point, each block as one message
     * (a rank with no larger block makes the call as it is). Both ends of
     * a block see it larger or not alike, as both count basic elements.
     * An in-place Alltoallv's round one moves the first part of every
     * larger block too (plan_exchange), so that every rank with data moves
     * some (Open MPI 4.1.4's in-place MPI_Ialltoallv hangs where some
     * ranks' counts are all 0 and others' not), and exchanges the rest in
     * steps. Gatherv/Scatterv's
     * moves none of a larger block: the non-root cannot know whether the
     * root's round one reaches it (a Class D layout spans 2^32 extents or
     * more), so the whole block goes point to point, wherever it lies. */
    int in_place = send->in_place || recv->in_place;
    /* a W side's blocks are compared each in its own datatype (block_chunk) */
    int64_t send_chunk = send->layout != SG_SIDE_NONE && send->layout != SG_SIDE_W
                             ? in_elements_of(send->type, chunk)
                             : 0;
    int64_t recv_chunk = recv->layout != SG_SIDE_NONE && recv->layout != SG_SIDE_W
                             ? in_elements_of(recv->type, chunk)
                             : 0;
    int send_v = send->layout == SG_SIDE_V || send->layout == SG_SIDE_W;
    int recv_v = recv->layout == SG_SIDE_V || recv->layout == SG_SIDE_W;
    int exchanges = d->pairwise && in_place;
    char *send_base = (char *)c->sendbuf, *recv_base = c->recvbuf;
    char *send_from = send_base, *recv_into = recv_base;
    int err = MPI_SUCCESS;
    if (exchanges) {
        lead = malloc(2 * (size_t)procs * sizeof *lead);
        err = lead == NULL ? MPI_ERR_NO_MEM
                           : plan_exchange(recv, procs, rank, chunk, copy, lead, lead + procs);
    }
    if (err == MPI_SUCCESS && send_v &&
        (err = small_blocks(send, procs, chunk, NULL, &arrays[0], &send_from)) == MPI_SUCCESS) {
        first.sendbuf = send_from;
        first.sendcounts = round_one_counts(&arrays[0], send);
        first.sdispls = round_one_displs(&arrays[0], send, procs);
    }
    if (err == MPI_SUCCESS && recv_v &&
        (err = small_blocks(recv, procs, chunk, lead, &arrays[1], &recv_into)) == MPI_SUCCESS) {
        first.recvbuf = recv_into;
        first.recvcounts = round_one_counts(&arrays[1], recv);
        first.rdispls = round_one_displs(&arrays[1], recv, procs);
    }
    if (err != MPI_SUCCESS) {
        release_round_one(arrays);
        free(lead);
        return err; /* -1: before any communication but the exchange's plan */
    }
    int send_big = send->layout == SG_SIDE_SINGLE && send->count > send_chunk;
    int recv_big = recv->layout == SG_SIDE_SINGLE && recv->count > recv_chunk;
    if (send_big)
        first.sendcount = 0;
    if (recv_big)
        first.recvcount = 0;

    /* The larger blocks, posted before round one so that nothing waits on
     * it (an in-place Alltoallv's exchanged in blocking steps): one message
     * each, each end posting in block order (one tag); a SINGLE side's peer
     * is the root. The block a rank keeps in place (the root's own,
     * MPI_IN_PLACE) does not move. */
    struct pieces p = {0};
    if (exchanges) {
        err = exchange_in_place(recv, recv_base, procs, lead, lead + procs, copy);
    } else {
        /* Gatherv's own block from its SINGLE send side, Scatterv's to its
         * SINGLE receive side: copied once the others' are posted, so that
         * theirs move meanwhile, where a copy can be (MPICH 4.0.2 moves a
         * message to the same rank in twice a copy's time, 64 MiB: 16 to
         * 19 ms against 9 ms) */
        const char *own_from = NULL;
        char *own_to = NULL;
        int64_t own_bytes = -1;
        if (c->root == rank && !in_place && send_big) {
            own_from = send_base;
            own_to = recv_base + element_at(recv, rank, 0);
            own_bytes = sg_copy_bytes(send->count, send->type, sg_count_at(recv->counts, rank),
                                      recv->type);
        } else if (c->root == rank && !in_place && recv_big) {
            own_from = send_base + element_at(send, rank, 0);
            own_to = recv_base;
            own_bytes = sg_copy_bytes(sg_count_at(send->counts, rank), send->type, recv->count,
                                      recv->type);
        }
        if (own_bytes >= 0)
            send_big = recv_big = 0;
        for (int i = 0; i < procs && err == MPI_SUCCESS; i++) {
            if (i == rank && (in_place || own_bytes >= 0))
                continue;
            if (recv_v && sg_count_at(recv->counts, i) > block_chunk(recv, i, chunk, recv_chunk))
                err = post_block(&p, 1, recv_base + element_at(recv, i, 0),
                                 sg_count_at(recv->counts, i), block_type(recv, i), i, copy);
            if (err == MPI_SUCCESS && send_v &&
                sg_count_at(send->counts, i) > block_chunk(send, i, chunk, send_chunk))
                err = post_block(&p, 0, send_base + element_at(send, i, 0),
                                 sg_count_at(send->counts, i), block_type(send, i), i, copy);
        }
        if (send_big && err == MPI_SUCCESS)
            err = post_block(&p, 0, send_base, send->count, send->type, c->root, copy);
        if (recv_big && err == MPI_SUCCESS)
            err = post_block(&p, 1, recv_base, recv->count, recv->type, c->root, copy);
        if (own_bytes >= 0 && err == MPI_SUCCESS)
            memcpy(own_to, own_from, (size_t)own_bytes);
    }
    if (err == MPI_SUCCESS)
        err = sg_run(runner, &first);
    for (int i = 0; i < p.count; i++) {
        int e = runner->nonblocking && err == MPI_SUCCESS
                    ? sg_runner_add(runner, p.requests[i])
                    : PMPI_Wait(&p.requests[i], MPI_STATUS_IGNORE);
        err = err == MPI_SUCCESS ? e : err;
    }
    free(p.requests);
    free(lead);
    int kept = sg_keep(runner, release_round_one, arrays);
    return err == MPI_SUCCESS ? kept : err;
}

/* ---- W1-B point to point's row (workaround.h) ------------------------------ */

/* Never chosen by `auto` or an entry (no `applies`): decide() takes it past
 * a bound of Gatherv/Scatterv/Alltoallv. Its refusal fails the call: the
 * other ranks take their part, so it cannot be left alone. */
static int run_w1b_p2p(struct sg_runner *runner, const struct sg_call *c,
                       const struct sg_run_with *r)
{
    return sg_w1b_p2p(runner, c, r->d, r->plan->chunk, r->copy);
}

static void refused_w1b_p2p(char *words, size_t size, const struct sg_call *c,
                            const struct sg_run_with *r)
{
    (void)c;
    snprintf(words, size,
             "the blocks of at most %" PRId64 " elements span 2^32 extents or more, which one "
             "call cannot address: the call fails (MPI_ERR_ARG)",
             r->plan->chunk);
}

static void how_w1b_p2p(char *how, size_t size, const struct sg_call *c,
                        const struct sg_run_with *r)
{
    (void)c;
    snprintf(how, size, "W1-B (blocks over %" PRId64 " point to point)", r->plan->chunk);
}

const struct sg_workaround_op sg_w1b_p2p_op = {
    .name = SG_WORKAROUND_W1B, .kind = SG_PLAN_W1B_P2P, .run = run_w1b_p2p,
    .refused = refused_w1b_p2p, .refusal_fails = 1, .how = how_w1b_p2p};
