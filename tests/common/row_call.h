/* A call of a routine laid out from its row (routines.h), for the MPI tests
 * that make one call of any routine of a family (tests/protect's
 * large_count and persistent_case): COUNT elements a block; a V side's
 * block i COUNT + i elements (Alltoallv's between ranks r and i
 * COUNT + r + i, the same at both ends) at a gap of one element after the
 * one before, in the routine's width (int, or MPI_Count and MPI_Aint);
 * MPI_CHAR, or with `vector` a datatype with holes (two MPI_INT, one apart:
 * 8 bytes over an extent of 12); the reductions MPI_INT and MPI_SUM. After
 * against_plain.h (rank, procs, fail). */
#ifndef SCALEGUARD_ROW_CALL_H
#define SCALEGUARD_ROW_CALL_H

#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>

#include "collective.h"

struct row_call {
    struct sg_call call;   /* its buffers not set, nor its request */
    size_t send_bytes;     /* what each side's buffer spans on this rank */
    size_t recv_bytes;
    MPI_Datatype type;
    int *counts, *displs;  /* V sides, int forms */
    MPI_Count *wide_counts; /* V sides, large-count forms */
    MPI_Aint *wide_displs;
};

/* The elements a side spans on this rank. */
static MPI_Count row_side_elements(const struct sg_call_side *side)
{
    MPI_Count most = 0;
    switch (side->layout) {
    case SG_SIDE_SINGLE:
        return side->count;
    case SG_SIDE_REGULAR:
        return side->count * procs;
    case SG_SIDE_V:
        for (int i = 0; i < procs; i++) {
            MPI_Count end = sg_displ_at(side->displs, i) + sg_count_at(side->counts, i);
            most = end > most ? end : most;
        }
        return most;
    case SG_SIDE_PACKED:
        for (int i = 0; i < procs; i++)
            most += sg_counts_given(side->counts) ? sg_count_at(side->counts, i) : side->count;
        return most;
    default:
        return 0;
    }
}

/* Lays out routine r's call of n at `root` (-1: not rooted) on
 * MPI_COMM_WORLD; `is_root`: this rank is the root, or the routine has
 * none. */
static void row_call_make(struct row_call *rc, enum sg_routine r, MPI_Count n, int vector,
                          int root, int is_root)
{
    const struct sg_routine_info *info = &sg_routines[r];
    int large = sg_is_large_count(r);
    rc->type = info->reduction ? MPI_INT : MPI_CHAR;
    if (vector && !info->reduction) {
        MPI_Type_vector(2, 1, 2, MPI_INT, &rc->type);
        MPI_Type_commit(&rc->type);
    }
    MPI_Aint lb, extent;
    MPI_Type_get_extent(rc->type, &lb, &extent);
    rc->counts = malloc((size_t)procs * sizeof *rc->counts);
    rc->displs = malloc((size_t)procs * sizeof *rc->displs);
    rc->wide_counts = malloc((size_t)procs * sizeof *rc->wide_counts);
    rc->wide_displs = malloc((size_t)procs * sizeof *rc->wide_displs);
    if (rc->counts == NULL || rc->displs == NULL || rc->wide_counts == NULL ||
        rc->wide_displs == NULL)
        fail("out of memory");
    for (int i = 0; i < procs; i++) {
        rc->wide_counts[i] = n + i + (info->pairwise ? rank : 0);
        rc->wide_displs[i] =
            i == 0 ? 0 : rc->wide_displs[i - 1] + (MPI_Aint)rc->wide_counts[i - 1] + 1;
        rc->counts[i] = (int)rc->wide_counts[i]; /* an int form's counts are ints */
        rc->displs[i] = (int)rc->wide_displs[i];
    }
    struct sg_counts counts = large ? SG_COUNTS(rc->wide_counts) : SG_COUNTS(rc->counts);
    struct sg_displs_array displs = large ? SG_DISPLS(rc->wide_displs) : SG_DISPLS(rc->displs);
    /* Reduce_scatter (its own v-form, PACKED): counts per rank; a SINGLE
     * side facing a V one: this rank's block of it */
    int per_rank = sg_blocking_form(info->v_form) == sg_blocking_form(r) &&
                   info->send == SG_SIDE_PACKED;
    int faces_v = info->send == SG_SIDE_V || info->recv == SG_SIDE_V;
    MPI_Count own = faces_v || per_rank ? rc->wide_counts[rank] : n;
    rc->call = (struct sg_call){.routine = r, .sendcount = own, .recvcount = own,
                                .sendtype = rc->type, .recvtype = rc->type, .op = MPI_SUM,
                                .root = root, .comm = MPI_COMM_WORLD};
    if (info->send == SG_SIDE_V) {
        rc->call.sendcounts = counts;
        rc->call.sdispls = displs;
    }
    if (info->recv == SG_SIDE_V || per_rank)
        rc->call.recvcounts = counts;
    if (info->recv == SG_SIDE_V)
        rc->call.rdispls = displs;
    if (info->send == SG_SIDE_PACKED && !per_rank)
        rc->call.recvcount = n;

    /* both sides' sizes as the row reads them */
    struct sg_call_side send, recv;
    sg_call_sides(&rc->call, is_root, procs, &send, &recv);
    rc->send_bytes = (size_t)row_side_elements(&send) * (size_t)extent;
    rc->recv_bytes = (size_t)row_side_elements(&recv) * (size_t)extent;
    if (info->send == SG_SIDE_PACKED) /* Reduce_scatter's result: this rank's block */
        rc->recv_bytes = (size_t)(per_rank ? rc->wide_counts[rank] : n) * (size_t)extent;
}

static void row_call_free(struct row_call *rc)
{
    free(rc->counts);
    free(rc->displs);
    free(rc->wide_counts);
    free(rc->wide_displs);
    if (rc->type != MPI_CHAR && rc->type != MPI_INT)
        MPI_Type_free(&rc->type);
}

#endif
