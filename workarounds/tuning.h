/* What each MPI library does faster where a workaround has two ways of
 * equal result: measured on this platform, one row per library in
 * tuning.c. Adding a library or a choice touches that table only. */
#ifndef SCALEGUARD_TUNING_H
#define SCALEGUARD_TUNING_H

struct sg_tuning {
    const char *library; /* how MPI_Get_library_version begins; NULL: any other */
    /* W1-A reduces a vector over a row or a column of its grid by one
     * Reduce per part, each to the member that keeps it, rather than by one
     * Reduce_scatter: the same elements move and combine either way. W1-B
     * cuts the Reduce_scatter family (its input not in place) into one
     * Reduce per block and round, of contiguous pieces, rather than into
     * rounds of the routine, whose input it must pack. */
    int reduce_by_reduces;
    /* A collective may start on a communicator while an MPI_Comm_idup of
     * it is in flight: a non-blocking workaround's later stages then run
     * from its request, on such copies (runner.h); where not, the stages
     * before a fence end inside the I-call. */
    int idup_beside_collectives;
    /* W1-B's sub-calls of the Reduce_scatter family reduce vectors of at
     * most this many bytes, fewer than a bound allows, where the MPI
     * reduces smaller vectors faster per byte; 0: no such size. */
    unsigned long reduce_scatter_piece_bytes;
};

/* The row of the running MPI library (the same on every rank). */
const struct sg_tuning *sg_tuning(void);

#endif
