/* W1-A for the rooted routines (Bcast, Gather(v), Scatter(v), Reduce): the
 * call over groups of ranks with the root in each. */
#include "w1a_parts.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Regular layouts (Gather, Scatter): the root's buffer moved to the group's
 * first member's block, in blocks. A group's members are consecutive ranks
 * and the root sits at one end (or among them in its own group); outside
 * its own group its slot is MPI_IN_PLACE, so nothing lands there. */
static int64_t first_block(const int *ranks, int n, int root, int own)
{
    int j = !own && ranks[0] == root && n > 1;
    return (int64_t)ranks[j] - j;
}

/* V layouts (Gatherv, Scatterv), on the root: the base each group's
 * displacements are rebased to (paper eq. 14), its lowest block, or lower
 * when its blocks span more than INT_MAX extents (negative displacements).
 * 0 when a group spans 2^32 extents or more. */
static int group_bases(const struct sg_side *v, const struct partition *p, int root,
                       int64_t *base)
{
    for (int g = 0; g < p->count; g++) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int j = p->start[g]; j < p->start[g + 1]; j++) {
            int i = p->ranks[j];
            if (sg_count_at(v->counts, i) <= 0 || (i == root && !(p->own && g == 0)))
                continue;
            lo = v->displs[i] < lo ? v->displs[i] : lo;
            int64_t end = v->displs[i] + sg_count_at(v->counts, i);
            hi = end > hi ? end : hi;
        }
        if (lo > hi)
            base[g] = 0; /* no data */
        else if (hi - lo > (int64_t)INT_MAX - INT_MIN)
            return 0;
        else
            base[g] = hi - lo <= INT_MAX ? lo : hi - INT_MAX;
    }
    return 1;
}

/* Bcast by a blocking runner: a tree of groups. After round k the ranks
 * root + 0 .. m^k - 1 (mod P) hold the data, and in round k + 1 each such
 * holder h passes it to h + j m^k, j = 1 .. m - 1, in one group rooted at
 * h: ceil(log_m P) rounds instead of ceil((P - 1) / (m - 1)) sub-calls one
 * after the other from the root. The groups of a round are disjoint and
 * every rank takes its groups in round order, so blocking sub-calls cannot
 * wait on each other in a cycle. (A non-blocking runner starts all of the
 * root's groups at once; in a tree a holder would wait for its own round.)
 * holders[g] is group g's root. */
static int bcast_tree(int procs, int root, int members, struct partition *p, int **holders)
{
    int err = w1a_new_partition(p, procs, 2 * procs);
    int *added = malloc((size_t)members * sizeof *added);
    *holders = malloc((size_t)procs * sizeof **holders);
    if (err != MPI_SUCCESS || added == NULL || *holders == NULL) {
        free(added);
        free(*holders);
        if (err == MPI_SUCCESS)
            w1a_free_partition(p);
        return MPI_ERR_NO_MEM;
    }
    for (int64_t held = 1; held < procs; held *= members)
        for (int64_t h = 0; h < held; h++) {
            int n = 0;
            for (int64_t j = 1; j < members && h + j * held < procs; j++) {
                int rank = (int)((root + h + j * held) % procs), at = n++;
                for (; at > 0 && added[at - 1] > rank; at--) /* ascending */
                    added[at] = added[at - 1];
                added[at] = rank;
            }
            if (n == 0)
                continue;
            (*holders)[p->count] = (int)((root + h) % procs);
            w1a_add_group(p, added, n, (*holders)[p->count]);
        }
    free(added);
    return MPI_SUCCESS;
}

int w1a_rooted(struct sg_runner *runner, const struct sg_call *c, const struct sg_described *d,
                  int members, const struct sg_windows *w, int me)
{
    enum sg_routine f = sg_blocking_form(c->routine);
    int irregular = f == SG_MPI_Gatherv || f == SG_MPI_Scatterv;
    if (w->of != NULL && !irregular)
        return -1;
    int err, root = c->root, procs = d->procs, *holders = NULL;
    struct partition p;
    if (f == SG_MPI_Bcast && !runner->nonblocking)
        err = bcast_tree(procs, root, members, &p, &holders);
    else
        err = w1a_partition(procs, root, members, w, &p);
    if (err != MPI_SUCCESS)
        return err;

    /* The root of Gatherv/Scatterv: each group's counts and rebased
     * displacements, in int, at start[g] of `counts` and `displs`. */
    const struct sg_side *v = f == SG_MPI_Gatherv ? &d->recv : &d->send;
    int total = p.start[p.count], *counts = NULL, *displs = NULL;
    int64_t *base = NULL;
    if (irregular && me == root) {
        counts = malloc(2 * (size_t)total * sizeof *counts);
        base = malloc((size_t)p.count * sizeof *base);
        if (counts == NULL || base == NULL)
            err = MPI_ERR_NO_MEM;
        else if (!group_bases(v, &p, root, base))
            err = -1;
        else
            displs = counts + total;
    }
    MPI_Comm *subs = NULL;
    if (err == MPI_SUCCESS)
        err = w1a_subs_of(runner, c->comm, &p, me, &subs);
    /* Ibcast runs flat groups, which an I-call does not make (w1a.h): a
     * blocking Bcast, whose groups are a tree, makes them too. */
    if (err == MPI_SUCCESS && holders != NULL) {
        struct partition flat;
        MPI_Comm *unused;
        err = w1a_partition(procs, root, members, w, &flat);
        if (err == MPI_SUCCESS) {
            err = w1a_subs_of(runner, c->comm, &flat, me, &unused);
            w1a_free_partition(&flat);
        }
    }

    /* Blocking Gather(v) and Scatter(v): every group's sub-call starts at
     * once and all complete together, as the MPI's own linear algorithm
     * posts all of the root's transfers at once; group after group leaves
     * all but one pair of ranks idle (MPICH 4.0.2, 64 MiB per rank, P = 4 in
     * pairs: Scatterv 64 ms group after group, 28 ms at once, 41 ms bare). */
    struct sg_runner together = SG_RUNNER(runner->mpi, 1), *use = runner;
    if (runner->together && f != SG_MPI_Bcast && f != SG_MPI_Reduce)
        use = &together;

    for (int g = 0; err == MPI_SUCCESS && g < p.count; g++) {
        if (subs[g] == MPI_COMM_NULL)
            continue; /* not a member */
        const int *ranks = p.ranks + p.start[g];
        int n = p.start[g + 1] - p.start[g], own = p.own && g == 0;
        struct sg_call sub = *c;
        sub.comm = subs[g];
        sub.root = w1a_member(ranks, n, holders != NULL ? holders[g] : root);
        /* the root's own block or contribution moves in its own group only */
        if (me == root && !own && f != SG_MPI_Bcast) {
            if (f == SG_MPI_Scatter || f == SG_MPI_Scatterv)
                sub.recvbuf = MPI_IN_PLACE;
            else
                sub.sendbuf = MPI_IN_PLACE;
        }
        if (me == root && (f == SG_MPI_Gather || f == SG_MPI_Scatter)) {
            int is_send = f == SG_MPI_Scatter;
            MPI_Datatype type = is_send ? c->sendtype : c->recvtype;
            MPI_Aint offset = (MPI_Aint)first_block(ranks, n, root, own) *
                              (is_send ? c->sendcount : c->recvcount) * sg_extent_of(type);
            if (is_send)
                sub.sendbuf = (const char *)c->sendbuf + offset;
            else
                sub.recvbuf = (char *)c->recvbuf + offset;
        } else if (me == root && irregular) {
            int *group_counts = counts + p.start[g], *group_displs = displs + p.start[g];
            for (int j = 0; j < n; j++) {
                int i = ranks[j];
                group_counts[j] = i == root && !own ? 0 : sg_count_at(v->counts, i);
                group_displs[j] = group_counts[j] ? (int)(v->displs[i] - base[g]) : 0;
            }
            MPI_Aint offset = (MPI_Aint)base[g] * sg_extent_of(v->type);
            if (f == SG_MPI_Scatterv) {
                sub.sendbuf = (const char *)c->sendbuf + offset;
                sub.sendcounts = SG_COUNTS(group_counts);
                sub.sdispls = SG_DISPLS(group_displs);
            } else {
                sub.recvbuf = (char *)c->recvbuf + offset;
                sub.recvcounts = SG_COUNTS(group_counts);
                sub.rdispls = SG_DISPLS(group_displs);
            }
        }
        /* Reduce: the root's partial result is the next group's input, so a
         * fence stands before each group after the first, on every member */
        if (f == SG_MPI_Reduce && g > 0)
            sg_runner_fence(runner);
        if (use == &together)
            sub.routine =
                (enum sg_routine)sg_form_with(sub.routine, 1, sg_is_large_count(sub.routine));
        err = sg_run(use, &sub);
    }

    w1a_free_partition(&p);
    free(holders);
    free(base);
    int kept = counts != NULL ? sg_keep(use, free, counts) : MPI_SUCCESS;
    if (use == &together) {
        int done = sg_runner_finish(&together);
        kept = kept != MPI_SUCCESS ? kept : done;
    }
    return err != MPI_SUCCESS ? err : kept;
}
