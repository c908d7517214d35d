/* W1-A for Allgather(v): the call once per pair of groups. */
#include "scratch.h"
#include "w1a_parts.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- Routines without a root -------------------------------------------------
 *
 * Every rank gets the whole result, so W1-A shrinks each sub-call's global
 * buffer, not what a rank receives: every sub-call has at most `members`
 * processes, and every rank takes part in several. */

/* The pairs of `groups` groups in the rounds of a round-robin tournament
 * (the circle method): each pair once, and the pairs of a round disjoint.
 * Returns the number of pairs, written as (lower, higher) to `pairs`. */
static int tournament(int groups, int *pairs)
{
    int players = groups + groups % 2, n = 0; /* with a bye when odd */
    for (int round = 0; round < players - 1; round++)
        for (int k = 0; k < players / 2; k++) {
            int a = k == 0 ? players - 1 : (round + k) % (players - 1);
            int b = (round - k + players - 1) % (players - 1);
            if (a >= groups || b >= groups)
                continue;
            pairs[2 * n] = a < b ? a : b;
            pairs[2 * n + 1] = a < b ? b : a;
            n++;
        }
    return n;
}

/* One pair's temporary, and where its blocks go: released (the blocks
 * copied out, then freed) once the pair's sub-call is done. */
struct move {
    MPI_Aint to, from, bytes;
    int count; /* elements of the receive type */
};

struct copy_out {
    char *recvbuf, *temp;
    int moves;
    struct move *move;
    int *counts, *displs; /* Allgatherv: the pair's counts and packed displacements */
    MPI_Datatype typed;   /* a receive type with holes (a copy of it: the caller may free
                           * its own before the copy-out): its elements are copied
                           * through MPI_Pack and MPI_Unpack, which leave the holes
                           * alone; MPI_DATATYPE_NULL: the blocks' bytes */
    char *packed;         /* with `typed`: room for the packed data of the pair */
};

static void copy_moves(struct copy_out *o)
{
    for (int i = 0; i < o->moves; i++) {
        struct move *m = &o->move[i];
        int size = (int)m->bytes, position = 0;
        if (o->typed == MPI_DATATYPE_NULL) {
            memcpy(o->recvbuf + m->to, o->temp + m->from, (size_t)m->bytes);
            continue;
        }
        /* local calls on a type and room that new_copy_out checked */
        PMPI_Pack(o->temp + m->from, m->count, o->typed, o->packed, size, &position,
                  MPI_COMM_SELF);
        size = position;
        position = 0;
        PMPI_Unpack(o->packed, size, &position, o->recvbuf + m->to, m->count, o->typed,
                    MPI_COMM_SELF);
    }
}

static void free_copy_out(struct copy_out *o)
{
    if (o != NULL && o->typed != MPI_DATATYPE_NULL)
        PMPI_Type_free(&o->typed);
    sg_scratch_put(o);
}

static void copy_out(void *memory)
{
    copy_moves(memory);
    free_copy_out(memory);
}

/* One allocation for the copy-out of `blocks` blocks of `type` and a
 * temporary of `bytes` (the blocks' extents), aligned as malloc aligns,
 * with room either side for a type whose data lies before its lower bound
 * or past its extent, and for packing a type with holes. */
static struct copy_out *new_copy_out(int blocks, size_t bytes, void *recvbuf, MPI_Datatype type)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    int holes = !sg_type_gapless(type);
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
    size_t before = true_lb < 0 ? (size_t)-true_lb : 0;
    size_t after = true_lb + true_extent > extent ? (size_t)(true_lb + true_extent - extent) : 0;
    size_t header = sizeof(struct copy_out) + (size_t)blocks * sizeof(struct move) +
                    2 * (size_t)blocks * sizeof(int);
    header = (header + 63) / 64 * 64;
    struct copy_out *o = sg_scratch_get(header + before + bytes + after + (holes ? bytes : 0));
    if (o == NULL)
        return NULL;
    o->typed = MPI_DATATYPE_NULL;
    if (holes && PMPI_Type_dup(type, &o->typed) != MPI_SUCCESS) {
        sg_scratch_put(o);
        return NULL;
    }
    o->packed = (char *)o + header + before + bytes + after;
    o->recvbuf = recvbuf;
    o->temp = (char *)o + header + before;
    o->moves = 0;
    o->move = (struct move *)(o + 1);
    o->counts = (int *)(o->move + blocks);
    o->displs = o->counts + blocks;
    return o;
}

/* A sub-call straight into the receive buffer, where the routine can
 * describe the pair's blocks there: Allgatherv when they span at most
 * INT_MAX extents (rebased displacements in `counts`, `displs`), Allgather
 * when the pair's ranks are consecutive, or two ranks a < b: Allgatherv of
 * the two blocks (b - a) * count extents apart when that is an int and the
 * configuration lets Allgatherv take it, else Allgather of a resized type
 * (left in *stride to free). Contiguous blocks rather than a type whose
 * extent is not its size: MPICH 4.0.2 moves such a type through its
 * packing path, 8 to 17 times slower at 64 MiB. The
 * own group's blocks are then written again by each of its pairs, with the
 * same bytes, one sub-call after the other. Returns 1 and sets `sub` when
 * so, 0 when only a temporary will do, or an MPI error code (negated). */
static int direct(const struct sg_runner *runner, const struct sg_side *r, const int *ranks,
                  int n, int *counts, int *displs, struct sg_call *sub, MPI_Datatype *stride)
{
    MPI_Aint extent = sg_extent_of(r->type);
    if (r->layout == SG_SIDE_V) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int j = 0; j < n; j++)
            if (sg_count_at(r->counts, ranks[j]) > 0) {
                int64_t at = r->displs[ranks[j]];
                lo = at < lo ? at : lo;
                int64_t end = at + sg_count_at(r->counts, ranks[j]);
                hi = end > hi ? end : hi;
            }
        if (lo > hi)
            lo = hi = 0;
        if (hi - lo > INT_MAX)
            return 0;
        for (int j = 0; j < n; j++) {
            counts[j] = sg_count_at(r->counts, ranks[j]);
            displs[j] = counts[j] > 0 ? (int)(r->displs[ranks[j]] - lo) : 0;
        }
        sub->recvbuf = (char *)sub->recvbuf + (MPI_Aint)lo * extent;
        sub->recvcounts = SG_COUNTS(counts);
        sub->rdispls = SG_DISPLS(displs);
        return 1;
    }
    MPI_Aint block = (MPI_Aint)r->count * extent;
    sub->recvbuf = (char *)sub->recvbuf + (MPI_Aint)ranks[0] * block;
    if (ranks[n - 1] - ranks[0] == n - 1)
        return 1;
    if (n != 2)
        return 0;
    int64_t gap = (int64_t)(ranks[1] - ranks[0]) * r->count;
    if (gap <= INT_MAX &&
        sg_runner_allows(runner, SG_MPI_Allgatherv, sub->routine, r->type, r->count, 2)) {
        counts[0] = counts[1] = r->count;
        displs[0] = 0;
        displs[1] = (int)gap;
        sub->routine = sg_in_form_of(SG_MPI_Allgatherv, sub->routine);
        sub->recvcounts = SG_COUNTS(counts);
        sub->rdispls = SG_DISPLS(displs);
        return 1;
    }
    MPI_Datatype contiguous;
    int err = PMPI_Type_contiguous(r->count, r->type, &contiguous);
    if (err == MPI_SUCCESS) {
        err = PMPI_Type_create_resized(contiguous, 0, (MPI_Aint)(ranks[1] - ranks[0]) * block,
                                       stride);
        PMPI_Type_free(&contiguous);
    }
    if (err == MPI_SUCCESS && (err = PMPI_Type_commit(stride)) != MPI_SUCCESS)
        PMPI_Type_free(stride);
    if (err != MPI_SUCCESS)
        return -err;
    sub->recvtype = *stride;
    sub->recvcount = 1;
    return 1;
}

/* Where rank i's block starts in the receive buffer, in extents. */
static int64_t block_at(const struct sg_side *r, int i)
{
    return r->layout == SG_SIDE_V ? r->displs[i] : (int64_t)i * r->count;
}

/* Copy this rank's input to its block of the receive buffer: a memcpy
 * where that puts every byte where MPI would (sg_copy_bytes), else a
 * message to itself on one of W1-A's own sub-communicators, where no
 * application message can match it. */
static int place_own_block(const struct sg_call *c, const struct sg_side *r, int me,
                           MPI_Aint extent, const MPI_Comm *subs)
{
    int count = r->layout == SG_SIDE_V ? sg_count_at(r->counts, me) : r->count, err;
    char *to = (char *)c->recvbuf + (MPI_Aint)block_at(r, me) * extent;
    int64_t bytes = sg_copy_bytes(c->sendcount, c->sendtype, count, r->type);
    if (bytes >= 0) {
        memcpy(to, c->sendbuf, (size_t)bytes);
        return MPI_SUCCESS;
    }
    int l = 0, self;
    while (subs[l] == MPI_COMM_NULL) /* every rank is in a pair */
        l++;
    if ((err = PMPI_Comm_rank(subs[l], &self)) != MPI_SUCCESS)
        return err;
    return PMPI_Sendrecv(c->sendbuf, c->sendcount, c->sendtype, self, 0, to, count, r->type, self,
                         0, subs[l], MPI_STATUS_IGNORE);
}

/* Allgather(v): groups of at most members / 2 consecutive ranks (for
 * Allgatherv also of at most INT_MAX / 2 elements, so that a pair's blocks
 * have int displacements in a temporary), and per pair of groups one
 * sub-call of the routine over the pair's ranks: straight into the receive
 * buffer where it can be (see below), else into a temporary of the pair's
 * blocks, packed, from which each rank copies out the other group's blocks,
 * and in its first pair its own group's (its own block not when in place:
 * it is the sub-calls' input then). Blocks land by their 64-bit
 * displacements, so a Class D layout needs no windows. The pairs run in the
 * rounds of a tournament: one global order, so blocking sub-calls cannot
 * wait on each other in a cycle, and the disjoint pairs of a round run at
 * once. */
/* A rank takes part in one sub-call, and holds one sub-communicator, per
 * other group: more would use up the MPI's communicators (MPICH has a few
 * thousand context ids) and serialise as many sub-calls. */
#define PAIRS_PER_RANK 64

int w1a_gather_to_all(struct sg_runner *runner, const struct sg_call *c,
                         const struct sg_described *d, int members, int me)
{
    const struct sg_side *r = &d->recv;
    int procs = d->procs, half = members / 2, v = r->layout == SG_SIDE_V;
    int *group = malloc(((size_t)procs + 1) * sizeof *group), groups = 0;
    if (group == NULL)
        return MPI_ERR_NO_MEM;
    int64_t elements = 0;
    group[0] = 0;
    for (int i = 0; i < procs; i++) {
        int64_t count = v ? sg_count_at(r->counts, i) : r->count;
        if (count > INT_MAX / 2) {
            free(group);
            return -1; /* the same on every rank: every rank holds the counts */
        }
        if (i - group[groups] == half || elements + count > INT_MAX / 2) {
            group[++groups] = i;
            elements = 0;
        }
        elements += count;
    }
    group[++groups] = procs;
    if (groups - 1 > PAIRS_PER_RANK) {
        free(group);
        return -1;
    }
    int *pairs = malloc(((size_t)groups * (size_t)groups + 2) * sizeof *pairs);
    if (pairs == NULL) {
        free(group);
        return MPI_ERR_NO_MEM;
    }
    int lists = groups == 1 ? 1 : tournament(groups, pairs);
    if (groups == 1)
        pairs[0] = pairs[1] = 0;

    struct partition p;
    int err = w1a_new_partition(&p, lists, lists * 2 * half);
    for (int l = 0; err == MPI_SUCCESS && l < lists; l++) {
        int a = pairs[2 * l], b = pairs[2 * l + 1];
        w1a_add_runs(&p, group[a], group[a + 1] - group[a], 1, group[b],
                 b != a ? group[b + 1] - group[b] : 0);
    }
    MPI_Comm *subs = NULL;
    if (err == MPI_SUCCESS)
        err = w1a_subs_of(runner, c->comm, &p, me, &subs);

    /* How the pairs' blocks reach the receive buffer: straight (direct())
     * where the routine can describe them there and no two sub-calls in
     * flight write the same bytes: a blocking runner runs them one after
     * the other; a non-blocking one only with groups of one rank (a
     * sub-call writes the other rank's block alone). Else through a
     * temporary, copied out after the sub-call (blocking: one temporary for
     * all pairs, as a fresh one per pair costs its page faults again) or
     * when all are done. Straight, this rank's block is put in place first
     * and every sub-call runs in place: one copy of it, not one per pair,
     * and the same on every rank, as MPI_IN_PLACE must be. */
    MPI_Aint extent = sg_extent_of(r->type);
    int in_place = d->send.in_place, mine = -1, first = 1;
    for (int g = 0; g < groups; g++)
        mine = me >= group[g] && me < group[g + 1] ? g : mine;
    int straight = !runner->nonblocking || half == 1;
    size_t slot = 4 * (size_t)half, slots = runner->nonblocking ? (size_t)lists : 1;
    int *arrays = straight ? malloc(slot * slots * sizeof *arrays) : NULL;
    size_t *bytes = malloc((size_t)lists * sizeof *bytes), most = 0;
    if (err == MPI_SUCCESS && (bytes == NULL || (straight && arrays == NULL)))
        err = MPI_ERR_NO_MEM;
    if (err == MPI_SUCCESS && straight && !in_place) {
        err = place_own_block(c, r, me, extent, subs);
        in_place = 1;
    }
    for (int l = 0; err == MPI_SUCCESS && l < lists; l++) {
        bytes[l] = 0;
        for (int j = p.start[l]; j < p.start[l + 1]; j++)
            bytes[l] +=
                (size_t)(v ? sg_count_at(r->counts, p.ranks[j]) : r->count) * (size_t)extent;
        if (subs[l] != MPI_COMM_NULL && bytes[l] > most)
            most = bytes[l];
    }
    struct copy_out *shared = NULL;
    for (int l = 0; err == MPI_SUCCESS && l < lists; l++) {
        if (subs[l] == MPI_COMM_NULL)
            continue;
        const int *ranks = p.ranks + p.start[l];
        int n = p.start[l + 1] - p.start[l], kept;
        struct sg_call sub = *c;
        sub.comm = subs[l];
        if (in_place)
            sub.sendbuf = MPI_IN_PLACE;
        if (straight) {
            int *counts = arrays + (runner->nonblocking ? (size_t)l * slot : 0);
            MPI_Datatype stride = MPI_DATATYPE_NULL;
            int done = direct(runner, r, ranks, n, counts, counts + 2 * half, &sub, &stride);
            if (done != 0) {
                err = done < 0 ? -done : sg_run(runner, &sub);
                if (stride != MPI_DATATYPE_NULL)
                    PMPI_Type_free(&stride); /* a started sub-call keeps it */
                first = 0;
                continue;
            }
            sub = *c;
            sub.comm = subs[l];
        }
        if (!runner->nonblocking && shared == NULL &&
            (shared = new_copy_out(2 * half, most, c->recvbuf, r->type)) == NULL) {
            err = MPI_ERR_NO_MEM;
            break;
        }
        struct copy_out *o = shared ? shared : new_copy_out(n, bytes[l], c->recvbuf, r->type);
        if (o == NULL) {
            err = MPI_ERR_NO_MEM;
            break;
        }
        o->moves = 0;
        MPI_Aint at = 0;
        for (int j = 0; j < n; j++) {
            int i = ranks[j], count = v ? sg_count_at(r->counts, i) : r->count;
            int64_t displ = block_at(r, i);
            o->counts[j] = count;
            o->displs[j] = (int)(at / extent);
            int wanted = (i < group[mine] || i >= group[mine + 1] || first) &&
                         !(i == me && in_place);
            if (wanted && count > 0)
                o->move[o->moves++] = (struct move){(MPI_Aint)displ * extent, at,
                                                    (MPI_Aint)count * extent, count};
            at += (MPI_Aint)count * extent;
        }
        first = 0;
        sub.recvbuf = o->temp;
        if (v) {
            sub.recvcounts = SG_COUNTS(o->counts);
            sub.rdispls = SG_DISPLS(o->displs);
        }
        if (in_place) { /* the input is this rank's block of the receive buffer */
            int64_t displ = block_at(r, me);
            sub.sendbuf = (char *)c->recvbuf + (MPI_Aint)displ * extent;
            sub.sendcount = v ? sg_count_at(r->counts, me) : r->count;
            sub.sendtype = r->type;
        }
        err = sg_run(runner, &sub);
        if (shared != NULL)
            copy_moves(shared);
        else if ((kept = sg_keep(runner, copy_out, o)) != MPI_SUCCESS && err == MPI_SUCCESS)
            err = kept;
    }
    int kept = arrays != NULL ? sg_keep(runner, free, arrays) : MPI_SUCCESS;
    err = err != MPI_SUCCESS ? err : kept;
    free_copy_out(shared);
    free(bytes);
    w1a_free_partition(&p);
    free(group);
    free(pairs);
    return err;
}
