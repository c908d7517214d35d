/* W1-B for Gatherv, Scatterv and Alltoallv (and their I-forms) with no
 * plan sent: see workarounds.h. */
#include "workarounds.h"

#include <limits.h>
#include <stdlib.h>

/* The widest span one round's blocks may have from one base (as the
 * displacement windows of engine.c): every displacement >= INT_MIN and
 * every block end <= INT_MAX. */
#define SPAN_MAX ((int64_t)INT_MAX - (int64_t)INT_MIN)

/* Round one of a V side: every block of at most `chunk` elements, and the
 * first `lead` elements of each larger one, described from one base.
 * `arrays` gets the counts, then the displacements; `*buffer` is moved to
 * the base. Returns -1 when those pieces span too wide for one base. */
static int small_blocks(const struct sg_side *side, int procs, int64_t chunk, int64_t lead,
                        int *arrays, char **buffer)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int i = 0; i < procs; i++) {
        arrays[i] = side->counts[i] <= chunk ? side->counts[i] : (int)lead;
        if (arrays[i] > 0) {
            lo = side->displs[i] < lo ? side->displs[i] : lo;
            hi = side->displs[i] + arrays[i] > hi ? side->displs[i] + arrays[i] : hi;
        }
    }
    int64_t base = 0;
    if (lo <= hi && (lo < INT_MIN || hi > INT_MAX)) {
        if (hi - lo > SPAN_MAX)
            return -1;
        base = hi - lo <= INT_MAX ? lo : hi - INT_MAX;
    }
    for (int i = 0; i < procs; i++)
        arrays[procs + i] = arrays[i] > 0 ? (int)(side->displs[i] - base) : 0;
    *buffer += (MPI_Aint)base * sg_extent_of(side->type);
    return MPI_SUCCESS;
}

struct pieces {
    MPI_Request *requests;
    int count, capacity;
};

/* Post the pieces of one block after its first `lead` elements (which
 * round one moves), each at most `chunk`: receive (into) or send (from)
 * `base`, with `peer`. */
static int post_block(struct pieces *p, int receive, char *base, int64_t count, int64_t chunk,
                      int64_t lead, MPI_Datatype type, int peer, MPI_Comm comm)
{
    MPI_Aint extent = sg_extent_of(type);
    for (int64_t done = lead; done < count; done += chunk) {
        int piece = (int)(count - done < chunk ? count - done : chunk);
        if (p->count == p->capacity) {
            int wanted = p->capacity ? 2 * p->capacity : 16;
            MPI_Request *bigger = realloc(p->requests, (size_t)wanted * sizeof *bigger);
            if (bigger == NULL)
                return MPI_ERR_NO_MEM;
            p->requests = bigger;
            p->capacity = wanted;
        }
        char *at = base + done * extent;
        int err = receive ? PMPI_Irecv(at, piece, type, peer, 0, comm, &p->requests[p->count])
                          : PMPI_Isend(at, piece, type, peer, 0, comm, &p->requests[p->count]);
        if (err != MPI_SUCCESS)
            return err;
        p->count++;
    }
    return MPI_SUCCESS;
}

/* An in-place Alltoallv's large blocks after their first `chunk` elements
 * (which round one moves): each is sent and replaced by its peer's block
 * for this rank, piece by piece (one piece of memory inside MPI at a time).
 * Peer after peer in rank order: every rank takes its pairs in the order of
 * (lower rank, higher rank), so the first pair not yet done is the next of
 * both its ranks, and no cycle of waits can form. */
static int exchange_in_place(const struct sg_side *side, char *buffer, int procs, int rank,
                             int64_t chunk, MPI_Comm comm)
{
    MPI_Aint extent = sg_extent_of(side->type);
    for (int j = 0; j < procs; j++)
        if (j != rank && side->counts[j] > chunk)
            for (int64_t done = chunk; done < side->counts[j]; done += chunk) {
                int piece = (int)(side->counts[j] - done < chunk ? side->counts[j] - done : chunk);
                int err = PMPI_Sendrecv_replace(buffer + (side->displs[j] + done) * extent, piece,
                                                side->type, j, 0, j, 0, comm, MPI_STATUS_IGNORE);
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
    int *arrays = malloc(4 * (size_t)procs * sizeof *arrays);
    if (arrays == NULL)
        return MPI_ERR_NO_MEM;

    /* Round one: the call itself with every block of at most `chunk`
     * elements, and `lead` of each larger one, whose rest goes point to
     * point (a rank with no larger block makes the call as it is).
     * Alltoallv's round one moves the first chunk of every block, so that
     * every rank with data moves some (Open MPI 4.1.4's in-place
     * MPI_Ialltoallv hangs where some ranks' counts are all 0 and others'
     * not). Gatherv/Scatterv's moves none of a larger block: the non-root
     * cannot know whether the root's round one reaches it (a Class D layout
     * spans 2^32 extents or more), so the whole block goes point to point,
     * wherever it lies. */
    int64_t lead = d->pairwise ? chunk : 0;
    char *send_base = (char *)c->sendbuf, *recv_base = c->recvbuf;
    char *send_from = send_base, *recv_into = recv_base;
    int err = MPI_SUCCESS;
    if (send->layout == SG_SIDE_V &&
        (err = small_blocks(send, procs, chunk, lead, arrays, &send_from)) == MPI_SUCCESS) {
        first.sendbuf = send_from;
        first.sendcounts = arrays;
        first.sdispls = arrays + procs;
    }
    if (err == MPI_SUCCESS && recv->layout == SG_SIDE_V &&
        (err = small_blocks(recv, procs, chunk, lead, arrays + 2 * procs, &recv_into)) ==
            MPI_SUCCESS) {
        first.recvbuf = recv_into;
        first.recvcounts = arrays + 2 * procs;
        first.rdispls = arrays + 3 * procs;
    }
    if (err != MPI_SUCCESS) {
        free(arrays);
        return err; /* -1: before any communication */
    }
    int in_place = send->in_place || recv->in_place;
    int send_big = send->layout == SG_SIDE_SINGLE && send->count > chunk;
    int recv_big = recv->layout == SG_SIDE_SINGLE && recv->count > chunk;
    if (send_big)
        first.sendcount = (int)lead;
    if (recv_big)
        first.recvcount = (int)lead;

    /* The rest of the large blocks, posted before round one so that nothing
     * waits on it (an in-place Alltoallv's exchanged in blocking steps): one
     * message per piece, each end posting in block order (one tag); a
     * SINGLE side's peer is the root. The block a rank keeps in place (the
     * root's own, MPI_IN_PLACE) does not move. */
    struct pieces p = {0};
    if (d->pairwise && in_place) {
        err = exchange_in_place(recv, recv_base, procs, rank, chunk, copy);
    } else {
        MPI_Aint send_extent = send->layout == SG_SIDE_V ? sg_extent_of(send->type) : 0;
        MPI_Aint recv_extent = recv->layout == SG_SIDE_V ? sg_extent_of(recv->type) : 0;
        for (int i = 0; i < procs && err == MPI_SUCCESS; i++) {
            if (i == rank && in_place)
                continue;
            if (recv->layout == SG_SIDE_V && recv->counts[i] > chunk)
                err = post_block(&p, 1, recv_base + recv->displs[i] * recv_extent,
                                 recv->counts[i], chunk, lead, recv->type, i, copy);
            if (err == MPI_SUCCESS && send->layout == SG_SIDE_V && send->counts[i] > chunk)
                err = post_block(&p, 0, send_base + send->displs[i] * send_extent,
                                 send->counts[i], chunk, lead, send->type, i, copy);
        }
        if (send_big && err == MPI_SUCCESS)
            err = post_block(&p, 0, send_base, send->count, chunk, lead, send->type, c->root,
                             copy);
        if (recv_big && err == MPI_SUCCESS)
            err = post_block(&p, 1, recv_base, recv->count, chunk, lead, recv->type, c->root,
                             copy);
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
    int kept = sg_keep(runner, free, arrays);
    return err == MPI_SUCCESS ? kept : err;
}
