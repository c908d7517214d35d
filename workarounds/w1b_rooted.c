/* W1-B for Gatherv and Scatterv (and their I-forms) with no plan from the
 * root: see workarounds.h. */
#include "workarounds.h"

#include <limits.h>
#include <stdlib.h>

/* The widest span one round's blocks may have from one base (as the
 * displacement windows of engine.c): every displacement >= INT_MIN and
 * every block end <= INT_MAX. */
#define SPAN_MAX ((int64_t)INT_MAX - (int64_t)INT_MIN)

static MPI_Aint extent_of(MPI_Datatype type)
{
    MPI_Aint lb, extent;
    PMPI_Type_get_extent(type, &lb, &extent);
    return extent;
}

struct pieces {
    MPI_Request *requests;
    int count, capacity;
};

/* Post one block's pieces of at most `chunk` elements: receive (into) or
 * send (from) `base`, with `peer`. */
static int post_block(struct pieces *p, int receive, char *base, int64_t count, int64_t chunk,
                      MPI_Datatype type, int peer, MPI_Comm comm)
{
    MPI_Aint extent = extent_of(type);
    for (int64_t done = 0; done < count; done += chunk) {
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

int sg_w1b_rooted(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d,
                  int64_t chunk, MPI_Comm copy)
{
    enum sg_routine family = (enum sg_routine)(c->routine & ~1);
    int gathers = family == SG_MPI_Gatherv;
    const struct sg_side *blocks = gathers ? &d->recv : &d->send; /* V at the root */
    const struct sg_side *own = gathers ? &d->send : &d->recv;    /* NONE: in place */
    int is_root = blocks->layout == SG_SIDE_V;
    int procs = d->procs;
    struct sg_call first = *c;
    int *arrays = NULL;

    /* Round one: every block of at most `chunk` elements, as the call would
     * move it; the larger ones are 0 here and go point to point. */
    if (is_root) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int i = 0; i < procs; i++)
            if (blocks->counts[i] > 0 && blocks->counts[i] <= chunk) {
                lo = blocks->displs[i] < lo ? blocks->displs[i] : lo;
                hi = blocks->displs[i] + blocks->counts[i] > hi
                         ? blocks->displs[i] + blocks->counts[i] : hi;
            }
        int64_t base = 0;
        if (lo <= hi && (lo < INT_MIN || hi > INT_MAX)) {
            if (hi - lo > SPAN_MAX)
                return -1; /* round one cannot reach its blocks from one base */
            base = hi - lo <= INT_MAX ? lo : hi - INT_MAX;
        }
        if ((arrays = malloc(2 * (size_t)procs * sizeof *arrays)) == NULL)
            return MPI_ERR_NO_MEM;
        for (int i = 0; i < procs; i++) {
            int small = blocks->counts[i] <= chunk;
            arrays[i] = small ? blocks->counts[i] : 0;
            arrays[procs + i] = small && arrays[i] ? (int)(blocks->displs[i] - base) : 0;
        }
        char *moved = (char *)(gathers ? c->recvbuf : (void *)c->sendbuf) +
                      (MPI_Aint)base * extent_of(blocks->type);
        if (gathers) {
            first.recvbuf = moved;
            first.recvcounts = arrays;
            first.rdispls = arrays + procs;
        } else {
            first.sendbuf = moved;
            first.sendcounts = arrays;
            first.sdispls = arrays + procs;
        }
    }
    int own_big = own->layout == SG_SIDE_SINGLE && own->count > chunk;
    if (own_big) {
        if (gathers)
            first.sendcount = 0;
        else
            first.recvcount = 0;
    }

    /* The large blocks, posted before round one so that nothing waits on
     * it: the root's side of each (its own too, unless in place), and this
     * rank's own. One tag: both ends post in call order. */
    struct pieces p = {0};
    int err = MPI_SUCCESS;
    if (is_root) {
        char *base = gathers ? c->recvbuf : (char *)c->sendbuf;
        MPI_Aint extent = extent_of(blocks->type);
        for (int i = 0; i < procs && err == MPI_SUCCESS; i++)
            if (blocks->counts[i] > chunk && !(i == c->root && own->layout != SG_SIDE_SINGLE))
                err = post_block(&p, gathers, base + blocks->displs[i] * extent,
                                 blocks->counts[i], chunk, blocks->type, i, copy);
    }
    if (own_big && err == MPI_SUCCESS)
        err = post_block(&p, !gathers, gathers ? (char *)c->sendbuf : c->recvbuf, own->count,
                         chunk, own->type, c->root, copy);
    if (err == MPI_SUCCESS)
        err = sg_run(runner, &first);
    for (int i = 0; i < p.count; i++) {
        int e = runner->nonblocking && err == MPI_SUCCESS
                    ? sg_runner_add(runner, p.requests[i])
                    : PMPI_Wait(&p.requests[i], MPI_STATUS_IGNORE);
        err = err == MPI_SUCCESS ? e : err;
    }
    free(p.requests);
    if (arrays != NULL) {
        int e = sg_keep(runner, free, arrays);
        err = err == MPI_SUCCESS ? e : err;
    }
    return err;
}
