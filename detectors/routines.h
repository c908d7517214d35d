/* The collectives ScaleGuard knows (paper Table V), described once: one row
 * per family, a blocking routine and its I-form.
 *
 * SG_FAMILY_LIST(F, X) expands F(X, ...) for each family, with these
 * arguments (after X):
 *   blocking       the blocking routine without MPI_, e.g. Gatherv; then
 *   nonblocking    its I-form, e.g. Igatherv
 *   send, recv     the layout of the send and the receive side (enum
 *                  sg_layout without SG_SIDE_): what each rank's buffer
 *                  holds, read from the call's send fields (sendcount,
 *                  sendcounts, sdispls, sendtype) and receive fields; a
 *                  V side has C-int displacements, which can wrap (Class D); a
 *                  W side (Alltoallw) has a datatype per block too (sendtypes,
 *                  recvtypes) and its displacements count bytes
 *   in_place_side  the side whose buffer may be MPI_IN_PLACE: SEND, RECV
 *                  (Scatter, Scatterv) or NONE (Bcast). Of a rooted routine
 *                  the other side is the root's alone (Gather's receive
 *                  side), and only the root may pass MPI_IN_PLACE
 *   rooted         1 when the routine has a root
 *   reduces        what it delivers when it combines with an MPI_Op (enum
 *                  sg_reduces without SG_REDUCES_): NONE (it moves data),
 *                  TO_ROOT, TO_ALL, SCATTERED (each rank its block), PREFIX
 *                  (rank r: ranks 0..r) or EXCLUSIVE_PREFIX (ranks 0..r-1;
 *                  rank 0's receive buffer is left undefined). A reduction's
 *                  in-place side keeps its layout: its data are in the
 *                  receive buffer
 *   blocks         whose blocks a side of blocks holds (enum sg_blocks without
 *                  SG_BLOCKS_): RANKS, one per rank of the communicator (of
 *                  the remote group of an intercommunicator), or NEIGHBOURS,
 *                  one per neighbour of its virtual topology (MPI 4.0, 7.6):
 *                  the receive side's one per in-neighbour, the send side's
 *                  one per out-neighbour, in the order MPI_Dist_graph_neighbors,
 *                  MPI_Cart_shift (each dimension's -1 then +1 neighbour) and
 *                  MPI_Graph_neighbors give, an MPI_PROC_NULL neighbour (a
 *                  non-periodic edge) and a repeated one each holding their
 *                  block (call/neighbours.c). The neighbourhood collectives
 *                  take no MPI_IN_PLACE and no root
 *   v_form, ...    the routine with counts and displacements per rank that
 *                  moves the same blocks (Scatter: Scatterv), in both forms,
 *                  or the family itself where there is none
 *   (params)       the blocking routine's C parameters; the I-form's are the
 *                  same and MPI_Request *request
 *   (args)         the same arguments as the fields of a struct sg_call *c
 *                  (call/collective.h); the I-form's add c->request
 *   LARGE_COUNT, (params_c), (args_c)
 *                  the MPI-4 large-count function (PMPI_Gatherv_c) that W3
 *                  calls, where a side has displacements: its parameter
 *                  types and its arguments, from c and the MPI_Count and
 *                  MPI_Aint arrays send_counts, send_displs, recv_counts,
 *                  recv_displs (the I-form adds MPI_Request *request); else
 *                  NO_LARGE_COUNT, (), ()
 *   initialisers   how the parameters fill a struct sg_call
 * MPI_Neighbor_alltoallw is not a row yet: its displacements are MPI_Aint
 * (they cannot wrap: no Class D), which no field of struct sg_call holds.
 * The C wrappers, the replay through PMPI, the Fortran entry points (their
 * names: protect/CMakeLists.txt reads the first three words of each row)
 * and W3's calls are made from these; the signature columns need <mpi.h>
 * only where they are expanded.
 * The rest follows from these (struct sg_routine_info): which sides can
 * wrap, who sees the whole layout, the global buffer of Table V.
 *
 * Each routine of the bounds INI is one form: each may have a bound of its
 * own. In enum sg_routine a family's blocking routine is even and its I-form
 * the next one (sg_blocking_form, sg_is_nonblocking). */
#ifndef SCALEGUARD_ROUTINES_H
#define SCALEGUARD_ROUTINES_H

#include <stddef.h>

#define SG_FAMILY_LIST(F, X)                                                                    \
    F(X, Bcast, Ibcast, NONE, SINGLE, NONE, 1, NONE, RANKS, Bcast, Ibcast,                      \
      (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),                \
      (c->recvbuf, c->recvcount, c->recvtype, c->root, c->comm),                                \
      NO_LARGE_COUNT, (), (),                                                                   \
      .sendbuf = buffer, .recvbuf = buffer, .sendcount = count, .recvcount = count,             \
      .sendtype = datatype, .recvtype = datatype, .root = root, .comm = comm)                   \
    F(X, Scatter, Iscatter, REGULAR, SINGLE, RECV, 1, NONE, RANKS, Scatterv, Iscatterv,         \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,                \
       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),                          \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->root,   \
       c->comm),                                                                                \
      NO_LARGE_COUNT, (), (),                                                                   \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,     \
      .recvcount = recvcount, .recvtype = recvtype, .root = root, .comm = comm)                 \
    F(X, Scatterv, Iscatterv, V, SINGLE, RECV, 1, NONE, RANKS, Scatterv, Iscatterv,             \
      (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,  \
       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),           \
      (c->sendbuf, c->sendcounts, c->sdispls, c->sendtype, c->recvbuf, c->recvcount,            \
       c->recvtype, c->root, c->comm),                                                          \
      LARGE_COUNT, (const void *, const MPI_Count[], const MPI_Aint[], MPI_Datatype, void *,    \
       MPI_Count, MPI_Datatype, int, MPI_Comm),                                                 \
      (c->sendbuf, send_counts, send_displs, c->sendtype, c->recvbuf, c->recvcount,             \
       c->recvtype, c->root, c->comm),                                                          \
      .sendbuf = sendbuf, .sendcounts = sendcounts, .sdispls = displs, .sendtype = sendtype,    \
      .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = recvtype, .root = root,           \
      .comm = comm)                                                                             \
    F(X, Gather, Igather, SINGLE, REGULAR, SEND, 1, NONE, RANKS, Gatherv, Igatherv,             \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,                \
       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),                          \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->root,   \
       c->comm),                                                                                \
      NO_LARGE_COUNT, (), (),                                                                   \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,     \
      .recvcount = recvcount, .recvtype = recvtype, .root = root, .comm = comm)                 \
    F(X, Gatherv, Igatherv, SINGLE, V, SEND, 1, NONE, RANKS, Gatherv, Igatherv,                 \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,                \
       const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,             \
       MPI_Comm comm),                                                                          \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcounts, c->rdispls,            \
       c->recvtype, c->root, c->comm),                                                          \
      LARGE_COUNT, (const void *, MPI_Count, MPI_Datatype, void *, const MPI_Count[],           \
       const MPI_Aint[], MPI_Datatype, int, MPI_Comm),                                          \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, recv_counts, recv_displs,             \
       c->recvtype, c->root, c->comm),                                                          \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,     \
      .recvcounts = recvcounts, .rdispls = displs, .recvtype = recvtype, .root = root,          \
      .comm = comm)                                                                             \
    F(X, Allgather, Iallgather, SINGLE, REGULAR, SEND, 0, NONE, RANKS, Allgatherv, Iallgatherv, \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,                \
       int recvcount, MPI_Datatype recvtype, MPI_Comm comm),                                    \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm),  \
      NO_LARGE_COUNT, (), (),                                                                   \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,     \
      .recvcount = recvcount, .recvtype = recvtype, .root = -1, .comm = comm)                   \
    F(X, Allgatherv, Iallgatherv, SINGLE, V, SEND, 0, NONE, RANKS, Allgatherv, Iallgatherv,     \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,                \
       const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),       \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcounts, c->rdispls,            \
       c->recvtype, c->comm),                                                                   \
      LARGE_COUNT, (const void *, MPI_Count, MPI_Datatype, void *, const MPI_Count[],           \
       const MPI_Aint[], MPI_Datatype, MPI_Comm),                                               \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, recv_counts, recv_displs,             \
       c->recvtype, c->comm),                                                                   \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,     \
      .recvcounts = recvcounts, .rdispls = displs, .recvtype = recvtype, .root = -1,            \
      .comm = comm)                                                                             \
    F(X, Alltoall, Ialltoall, REGULAR, REGULAR, SEND, 0, NONE, RANKS, Alltoallv, Ialltoallv,    \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,                \
       int recvcount, MPI_Datatype recvtype, MPI_Comm comm),                                    \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm),  \
      NO_LARGE_COUNT, (), (),                                                                   \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,     \
      .recvcount = recvcount, .recvtype = recvtype, .root = -1, .comm = comm)                   \
    F(X, Alltoallv, Ialltoallv, V, V, SEND, 0, NONE, RANKS, Alltoallv, Ialltoallv,              \
      (const void *sendbuf, const int sendcounts[], const int sdispls[],                        \
       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],       \
       MPI_Datatype recvtype, MPI_Comm comm),                                                   \
      (c->sendbuf, c->sendcounts, c->sdispls, c->sendtype, c->recvbuf, c->recvcounts,           \
       c->rdispls, c->recvtype, c->comm),                                                       \
      LARGE_COUNT, (const void *, const MPI_Count[], const MPI_Aint[], MPI_Datatype, void *,    \
       const MPI_Count[], const MPI_Aint[], MPI_Datatype, MPI_Comm),                            \
      (c->sendbuf, send_counts, send_displs, c->sendtype, c->recvbuf, recv_counts,              \
       recv_displs, c->recvtype, c->comm),                                                      \
      .sendbuf = sendbuf, .sendcounts = sendcounts, .sdispls = sdispls, .sendtype = sendtype,   \
      .recvbuf = recvbuf, .recvcounts = recvcounts, .rdispls = rdispls, .recvtype = recvtype,   \
      .root = -1, .comm = comm)                                                                 \
    F(X, Alltoallw, Ialltoallw, W, W, SEND, 0, NONE, RANKS, Alltoallw, Ialltoallw,              \
      (const void *sendbuf, const int sendcounts[], const int sdispls[],                        \
       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],                   \
       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),                     \
      (c->sendbuf, c->sendcounts, c->sdispls, c->sendtypes, c->recvbuf, c->recvcounts,          \
       c->rdispls, c->recvtypes, c->comm),                                                      \
      LARGE_COUNT, (const void *, const MPI_Count[], const MPI_Aint[], const MPI_Datatype[],    \
       void *, const MPI_Count[], const MPI_Aint[], const MPI_Datatype[], MPI_Comm),            \
      (c->sendbuf, send_counts, send_displs, c->sendtypes, c->recvbuf, recv_counts,             \
       recv_displs, c->recvtypes, c->comm),                                                     \
      .sendbuf = sendbuf, .sendcounts = sendcounts, .sdispls = sdispls,                         \
      .sendtypes = sendtypes, .sendtype = MPI_DATATYPE_NULL, .recvbuf = recvbuf,                \
      .recvcounts = recvcounts, .rdispls = rdispls, .recvtypes = recvtypes,                     \
      .recvtype = MPI_DATATYPE_NULL, .root = -1, .comm = comm)                                  \
    F(X, Reduce, Ireduce, SINGLE, SINGLE, SEND, 1, TO_ROOT, RANKS, Reduce, Ireduce,             \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,         \
       int root, MPI_Comm comm),                                                                \
      (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->root, c->comm),             \
      NO_LARGE_COUNT, (), (),                                                                   \
      .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = count, .recvcount = count,           \
      .sendtype = datatype, .recvtype = datatype, .op = op, .root = root, .comm = comm)         \
    F(X, Allreduce, Iallreduce, SINGLE, SINGLE, SEND, 0, TO_ALL, RANKS, Allreduce, Iallreduce,  \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,         \
       MPI_Comm comm),                                                                          \
      (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->comm),                      \
      NO_LARGE_COUNT, (), (),                                                                   \
      .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = count, .recvcount = count,           \
      .sendtype = datatype, .recvtype = datatype, .op = op, .root = -1, .comm = comm)           \
    F(X, Reduce_scatter, Ireduce_scatter, PACKED, SINGLE, SEND, 0, SCATTERED, RANKS,            \
      Reduce_scatter, Ireduce_scatter,                                                          \
      (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,       \
       MPI_Op op, MPI_Comm comm),                                                               \
      (c->sendbuf, c->recvbuf, c->recvcounts, c->sendtype, c->op, c->comm),                     \
      NO_LARGE_COUNT, (), (),                                                                   \
      .sendbuf = sendbuf, .recvbuf = recvbuf, .recvcounts = recvcounts, .sendtype = datatype,   \
      .recvtype = datatype, .op = op, .root = -1, .comm = comm)                                 \
    F(X, Reduce_scatter_block, Ireduce_scatter_block, PACKED, SINGLE, SEND, 0, SCATTERED, RANKS, \
      Reduce_scatter, Ireduce_scatter,                                                          \
      (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,     \
       MPI_Comm comm),                                                                          \
      (c->sendbuf, c->recvbuf, c->recvcount, c->sendtype, c->op, c->comm),                      \
      NO_LARGE_COUNT, (), (),                                                                   \
      .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = recvcount, .recvcount = recvcount,   \
      .sendtype = datatype, .recvtype = datatype, .op = op, .root = -1, .comm = comm)           \
    F(X, Scan, Iscan, SINGLE, SINGLE, SEND, 0, PREFIX, RANKS, Scan, Iscan,                      \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,         \
       MPI_Comm comm),                                                                          \
      (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->comm),                      \
      NO_LARGE_COUNT, (), (),                                                                   \
      .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = count, .recvcount = count,           \
      .sendtype = datatype, .recvtype = datatype, .op = op, .root = -1, .comm = comm)           \
    F(X, Exscan, Iexscan, SINGLE, SINGLE, SEND, 0, EXCLUSIVE_PREFIX, RANKS, Exscan, Iexscan,    \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,         \
       MPI_Comm comm),                                                                          \
      (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->comm),                      \
      NO_LARGE_COUNT, (), (),                                                                   \
      .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = count, .recvcount = count,           \
      .sendtype = datatype, .recvtype = datatype, .op = op, .root = -1, .comm = comm)           \
    F(X, Neighbor_allgather, Ineighbor_allgather, SINGLE, REGULAR, NONE, 0, NONE, NEIGHBOURS,   \
      Neighbor_allgatherv, Ineighbor_allgatherv,                                                \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,                \
       int recvcount, MPI_Datatype recvtype, MPI_Comm comm),                                    \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm),  \
      NO_LARGE_COUNT, (), (),                                                                   \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,     \
      .recvcount = recvcount, .recvtype = recvtype, .root = -1, .comm = comm)                   \
    F(X, Neighbor_allgatherv, Ineighbor_allgatherv, SINGLE, V, NONE, 0, NONE, NEIGHBOURS,       \
      Neighbor_allgatherv, Ineighbor_allgatherv,                                                \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,                \
       const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),       \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcounts, c->rdispls,            \
       c->recvtype, c->comm),                                                                   \
      LARGE_COUNT, (const void *, MPI_Count, MPI_Datatype, void *, const MPI_Count[],           \
       const MPI_Aint[], MPI_Datatype, MPI_Comm),                                               \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, recv_counts, recv_displs,             \
       c->recvtype, c->comm),                                                                   \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,     \
      .recvcounts = recvcounts, .rdispls = displs, .recvtype = recvtype, .root = -1,            \
      .comm = comm)                                                                             \
    F(X, Neighbor_alltoall, Ineighbor_alltoall, REGULAR, REGULAR, NONE, 0, NONE, NEIGHBOURS,    \
      Neighbor_alltoallv, Ineighbor_alltoallv,                                                  \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,                \
       int recvcount, MPI_Datatype recvtype, MPI_Comm comm),                                    \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm),  \
      NO_LARGE_COUNT, (), (),                                                                   \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,     \
      .recvcount = recvcount, .recvtype = recvtype, .root = -1, .comm = comm)                   \
    F(X, Neighbor_alltoallv, Ineighbor_alltoallv, V, V, NONE, 0, NONE, NEIGHBOURS,              \
      Neighbor_alltoallv, Ineighbor_alltoallv,                                                  \
      (const void *sendbuf, const int sendcounts[], const int sdispls[],                        \
       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],       \
       MPI_Datatype recvtype, MPI_Comm comm),                                                   \
      (c->sendbuf, c->sendcounts, c->sdispls, c->sendtype, c->recvbuf, c->recvcounts,           \
       c->rdispls, c->recvtype, c->comm),                                                       \
      LARGE_COUNT, (const void *, const MPI_Count[], const MPI_Aint[], MPI_Datatype, void *,    \
       const MPI_Count[], const MPI_Aint[], MPI_Datatype, MPI_Comm),                            \
      (c->sendbuf, send_counts, send_displs, c->sendtype, c->recvbuf, recv_counts,              \
       recv_displs, c->recvtype, c->comm),                                                      \
      .sendbuf = sendbuf, .sendcounts = sendcounts, .sdispls = sdispls, .sendtype = sendtype,   \
      .recvbuf = recvbuf, .recvcounts = recvcounts, .rdispls = rdispls, .recvtype = recvtype,   \
      .root = -1, .comm = comm)

/* SG_ROUTINE_LIST(X) expands X(name, send, recv, in_place_side, rooted,
 * reduces, blocks, v_form) for each of the 40 routines, e.g.
 * X(MPI_Igatherv, SINGLE, V, ..., MPI_Igatherv), in enum order. */
#define SG_ROUTINE_LIST(X) SG_FAMILY_LIST(SG_FAMILY_FORMS, X)
#define SG_FAMILY_FORMS(X, b, i, send, recv, ip, root, red, blocks, vb, vi, ...)                \
    X(MPI_##b, send, recv, ip, root, red, blocks, MPI_##vb)                                    \
    X(MPI_##i, send, recv, ip, root, red, blocks, MPI_##vi)

/* The layout of one side of a call. Its P blocks are one per rank of the
 * communicator, or of a neighbourhood collective one per neighbour (the
 * row's `blocks`; struct sg_call_side's `blocks` counts them). */
enum sg_layout {
    SG_SIDE_NONE,    /* no buffer (Bcast's send side), or not on this rank, or MPI_IN_PLACE */
    SG_SIDE_SINGLE,  /* one block: count elements (or counts[rank], where the side has
                      * counts: Reduce_scatter's result) */
    SG_SIDE_REGULAR, /* P blocks of `count` elements, block i at i*count */
    SG_SIDE_V,       /* P blocks: counts[i] elements at displs[i] */
    SG_SIDE_W,       /* P blocks: counts[i] elements of types[i] at displs[i] bytes
                      * (Alltoallw): a V side in bytes, with a datatype per block */
    SG_SIDE_PACKED,  /* P consecutive blocks, each the size of a rank's result (the
                      * receive fields' counts[i], or count each): the
                      * Reduce_scatter(_block) input */
};

/* Who sees the whole layout of a call: every rank, the root alone
 * (Gatherv/Scatterv: the counts of all ranks), each rank its own row or
 * displacements (Allgatherv, Alltoallv). */
enum sg_knows { SG_KNOWS_ALL, SG_KNOWS_ROOT, SG_KNOWS_OWN };
enum sg_displs { SG_DISPLS_NONE, SG_DISPLS_SEND, SG_DISPLS_RECV, SG_DISPLS_BOTH };
enum sg_in_place_side { SG_IN_PLACE_NONE, SG_IN_PLACE_SEND, SG_IN_PLACE_RECV };
/* What a reduction delivers (the row's `reduces`). */
enum sg_reduces {
    SG_REDUCES_NONE,
    SG_REDUCES_TO_ROOT,          /* the whole reduction, at the root */
    SG_REDUCES_TO_ALL,           /* the whole reduction, on every rank */
    SG_REDUCES_SCATTERED,        /* block r of the whole reduction, on rank r */
    SG_REDUCES_PREFIX,           /* on rank r, the reduction over ranks 0..r */
    SG_REDUCES_EXCLUSIVE_PREFIX, /* over ranks 0..r-1; rank 0's result undefined */
};
/* Whose blocks a side of blocks holds (the row's `blocks`). */
enum sg_blocks { SG_BLOCKS_RANKS, SG_BLOCKS_NEIGHBOURS };
/* Table V: s*n bytes, or s*n*P (a side of P blocks of n) */
enum sg_global_buffer { SG_GLOBAL_SN, SG_GLOBAL_SNP };

enum sg_routine {
#define SG_ROUTINE_ENUM(name, ...) SG_##name,
    SG_ROUTINE_LIST(SG_ROUTINE_ENUM)
#undef SG_ROUTINE_ENUM
    SG_ROUTINE_COUNT
};

struct sg_routine_info {
    const char *name;
    enum sg_layout send, recv;
    enum sg_in_place_side in_place_side;
    int rooted;
    enum sg_reduces reduces;
    enum sg_blocks blocks;
    enum sg_routine v_form;
    /* derived from the above */
    int neighbours; /* blocks NEIGHBOURS: a side's blocks are the topology's (neighbours.h) */
    int reduction; /* reduces other than NONE */
    /* a prefix (PREFIX, EXCLUSIVE_PREFIX): each rank's result depends on the
     * ranks' order, and each rank's MPI_IN_PLACE is its own (the standard
     * asks it of every rank or none only where all get one result) */
    int prefix;
    int in_place_alike; /* MPI_IN_PLACE on every rank or none: in_place, no root, no prefix */
    enum sg_displs displs; /* the V sides */
    int irregular, in_place; /* displs and in_place_side other than NONE */
    enum sg_knows knows;
    enum sg_global_buffer global_buffer;
    int pairwise; /* blocks on both sides: rank r's block for i meets i's for r (Alltoall(v,w));
                   * not of neighbours, whose block for neighbour i lands where i's
                   * topology puts it */
};

extern const struct sg_routine_info sg_routines[SG_ROUTINE_COUNT];

/* The blocking routine of r's family, whether r is the I-form, and family
 * f's routine in the form of `like`: the one way to tell the forms apart. */
static inline enum sg_routine sg_blocking_form(enum sg_routine r)
{
    return (enum sg_routine)(r & ~1);
}
static inline int sg_is_nonblocking(enum sg_routine r) { return r & 1; }
static inline enum sg_routine sg_in_form_of(enum sg_routine f, enum sg_routine like)
{
    return (enum sg_routine)(sg_blocking_form(f) | (like & 1));
}

/* The routine called `name` (e.g. "MPI_Gatherv"), or -1 when unknown. */
int sg_routine_by_name(const char *name);

/* The same for the first `length` characters of `name` (no terminator needed). */
int sg_routine_by_name_length(const char *name, size_t length);

#endif
