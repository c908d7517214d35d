/* The collectives ScaleGuard knows (paper Table V), described once: one row
 * per family, and a short list of the forms each family has (SG_FORM_LIST):
 * a routine is a family in one form, e.g. MPI_Igatherv_c is Gatherv's
 * nonblocking large-count form.
 *
 * SG_FAMILY_LIST(F, X) expands F(X, ...) for each family, with these
 * arguments (after X):
 *   blocking       the blocking routine without MPI_, e.g. Gatherv; then
 *   nonblocking    its I-form, e.g. Igatherv (the other forms' names are
 *                  made from these two: Gatherv_c, Igatherv_c)
 *   send, recv     the layout of the send and the receive side (enum
 *                  sg_layout without SG_SIDE_): what each rank's buffer
 *                  holds, read from the call's send fields (sendcount,
 *                  sendcounts, sdispls, sendtype) and receive fields; a
 *                  V side has displacements, which can wrap in a C int (Class
 *                  D; a large-count form's are MPI_Aint); a
 *                  W side (Alltoallw) has a datatype per block too (sendtypes,
 *                  recvtypes) and its displacements count bytes. A
 *                  neighbourhood's W side (MPI_Neighbor_alltoallw) has
 *                  MPI_Aint displacements in every form, its int form's
 *                  counts int (MPI 4.0, 7.6): they cannot wrap, no Class D
 *                  (sg_routine_info's `aint_displs`)
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
 *                  same and MPI_Request *request, the persistent form's
 *                  (`_init`) the same and MPI_Info info, MPI_Request *request
 *   (args)         the same arguments as the fields of a struct sg_call *c
 *                  (call/collective.h: an array's `of_int` member); the
 *                  I-form's add c->request, the persistent form's c->info
 *                  and c->request
 *   (params_c), (args_c)
 *                  the same of the MPI-4 large-count form (MPI_Gatherv_c:
 *                  counts MPI_Count, displacements MPI_Aint, the arrays'
 *                  `wide` members), with the same parameter names: the
 *                  wrappers of the `_c` forms and W3's calls are made from
 *                  these
 *   initialisers   how the parameters fill a struct sg_call, the same for
 *                  every form (an array through SG_COUNTS or SG_DISPLS)
 * The C wrappers, the replay through PMPI and the Fortran entry points
 * (their names: protect/CMakeLists.txt reads the first three words of each
 * row) are made from these; the signature columns need <mpi.h> only where
 * they are expanded.
 * The rest follows from these (struct sg_routine_info): which sides can
 * wrap, who sees the whole layout, the global buffer of Table V.
 *
 * Each routine of the bounds INI is one form: each may have a bound of its
 * own. In enum sg_routine a family's forms are consecutive, in the order of
 * SG_FORM_LIST; sg_form_of, sg_blocking_form, sg_is_nonblocking,
 * sg_is_large_count, sg_is_persistent, sg_in_form_of, sg_form_like,
 * sg_form_with and sg_in_count_form are the one way to tell them apart. */
#ifndef SCALEGUARD_ROUTINES_H
#define SCALEGUARD_ROUTINES_H

#include <stddef.h>

#define SG_FAMILY_LIST(F, X)                                                                   \
    F(X, Bcast, Ibcast, NONE, SINGLE, NONE, 1, NONE, RANKS, Bcast, Ibcast,                     \
      (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),               \
      (c->recvbuf, c->recvcount, c->recvtype, c->root, c->comm),                               \
      (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm),         \
      (c->recvbuf, c->recvcount, c->recvtype, c->root, c->comm),                               \
      .sendbuf = buffer, .recvbuf = buffer, .sendcount = count, .recvcount = count,            \
      .sendtype = datatype, .recvtype = datatype, .root = root, .comm = comm)                  \
    F(X, Scatter, Iscatter, REGULAR, SINGLE, RECV, 1, NONE, RANKS, Scatterv, Iscatterv,        \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),                         \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->root,  \
       c->comm),                                                                               \
      (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,         \
       MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),                   \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->root,  \
       c->comm),                                                                               \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,    \
      .recvcount = recvcount, .recvtype = recvtype, .root = root, .comm = comm)                \
    F(X, Scatterv, Iscatterv, V, SINGLE, RECV, 1, NONE, RANKS, Scatterv, Iscatterv,            \
      (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, \
       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),          \
      (c->sendbuf, c->sendcounts.of_int, c->sdispls.of_int, c->sendtype, c->recvbuf,           \
       c->recvcount, c->recvtype, c->root, c->comm),                                           \
      (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],             \
       MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,       \
       int root, MPI_Comm comm),                                                               \
      (c->sendbuf, c->sendcounts.wide, c->sdispls.wide, c->sendtype, c->recvbuf, c->recvcount, \
       c->recvtype, c->root, c->comm),                                                         \
      .sendbuf = sendbuf, .sendcounts = SG_COUNTS(sendcounts), .sdispls = SG_DISPLS(displs),   \
      .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = recvtype,  \
      .root = root, .comm = comm)                                                              \
    F(X, Gather, Igather, SINGLE, REGULAR, SEND, 1, NONE, RANKS, Gatherv, Igatherv,            \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),                         \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->root,  \
       c->comm),                                                                               \
      (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,         \
       MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),                   \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->root,  \
       c->comm),                                                                               \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,    \
      .recvcount = recvcount, .recvtype = recvtype, .root = root, .comm = comm)                \
    F(X, Gatherv, Igatherv, SINGLE, V, SEND, 1, NONE, RANKS, Gatherv, Igatherv,                \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
       const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,            \
       MPI_Comm comm),                                                                         \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcounts.of_int,                \
       c->rdispls.of_int, c->recvtype, c->root, c->comm),                                      \
      (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,         \
       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, \
       MPI_Comm comm),                                                                         \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcounts.wide, c->rdispls.wide, \
       c->recvtype, c->root, c->comm),                                                         \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,    \
      .recvcounts = SG_COUNTS(recvcounts), .rdispls = SG_DISPLS(displs), .recvtype = recvtype, \
      .root = root, .comm = comm)                                                              \
    F(X, Allgather, Iallgather, SINGLE, REGULAR, SEND, 0, NONE, RANKS,                         \
      Allgatherv, Iallgatherv,                                                                 \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
       int recvcount, MPI_Datatype recvtype, MPI_Comm comm),                                   \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm), \
      (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,         \
       MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm),                             \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm), \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,    \
      .recvcount = recvcount, .recvtype = recvtype, .root = -1, .comm = comm)                  \
    F(X, Allgatherv, Iallgatherv, SINGLE, V, SEND, 0, NONE, RANKS, Allgatherv, Iallgatherv,    \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
       const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),      \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcounts.of_int,                \
       c->rdispls.of_int, c->recvtype, c->comm),                                               \
      (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,         \
       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,           \
       MPI_Comm comm),                                                                         \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcounts.wide, c->rdispls.wide, \
       c->recvtype, c->comm),                                                                  \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,    \
      .recvcounts = SG_COUNTS(recvcounts), .rdispls = SG_DISPLS(displs), .recvtype = recvtype, \
      .root = -1, .comm = comm)                                                                \
    F(X, Alltoall, Ialltoall, REGULAR, REGULAR, SEND, 0, NONE, RANKS, Alltoallv, Ialltoallv,   \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
       int recvcount, MPI_Datatype recvtype, MPI_Comm comm),                                   \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm), \
      (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,         \
       MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm),                             \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm), \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,    \
      .recvcount = recvcount, .recvtype = recvtype, .root = -1, .comm = comm)                  \
    F(X, Alltoallv, Ialltoallv, V, V, SEND, 0, NONE, RANKS, Alltoallv, Ialltoallv,             \
      (const void *sendbuf, const int sendcounts[], const int sdispls[],                       \
       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],      \
       MPI_Datatype recvtype, MPI_Comm comm),                                                  \
      (c->sendbuf, c->sendcounts.of_int, c->sdispls.of_int, c->sendtype, c->recvbuf,           \
       c->recvcounts.of_int, c->rdispls.of_int, c->recvtype, c->comm),                         \
      (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],            \
       MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],                     \
       const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm),                        \
      (c->sendbuf, c->sendcounts.wide, c->sdispls.wide, c->sendtype, c->recvbuf,               \
       c->recvcounts.wide, c->rdispls.wide, c->recvtype, c->comm),                             \
      .sendbuf = sendbuf, .sendcounts = SG_COUNTS(sendcounts), .sdispls = SG_DISPLS(sdispls),  \
      .sendtype = sendtype, .recvbuf = recvbuf, .recvcounts = SG_COUNTS(recvcounts),           \
      .rdispls = SG_DISPLS(rdispls), .recvtype = recvtype, .root = -1, .comm = comm)           \
    F(X, Alltoallw, Ialltoallw, W, W, SEND, 0, NONE, RANKS, Alltoallw, Ialltoallw,             \
      (const void *sendbuf, const int sendcounts[], const int sdispls[],                       \
       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],                  \
       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),                    \
      (c->sendbuf, c->sendcounts.of_int, c->sdispls.of_int, c->sendtypes, c->recvbuf,          \
       c->recvcounts.of_int, c->rdispls.of_int, c->recvtypes, c->comm),                        \
      (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],            \
       const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],            \
       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),               \
      (c->sendbuf, c->sendcounts.wide, c->sdispls.wide, c->sendtypes, c->recvbuf,              \
       c->recvcounts.wide, c->rdispls.wide, c->recvtypes, c->comm),                            \
      .sendbuf = sendbuf, .sendcounts = SG_COUNTS(sendcounts), .sdispls = SG_DISPLS(sdispls),  \
      .sendtypes = sendtypes, .sendtype = MPI_DATATYPE_NULL, .recvbuf = recvbuf,               \
      .recvcounts = SG_COUNTS(recvcounts), .rdispls = SG_DISPLS(rdispls),                      \
      .recvtypes = recvtypes, .recvtype = MPI_DATATYPE_NULL, .root = -1, .comm = comm)         \
    F(X, Reduce, Ireduce, SINGLE, SINGLE, SEND, 1, TO_ROOT, RANKS, Reduce, Ireduce,            \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
       int root, MPI_Comm comm),                                                               \
      (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->root, c->comm),            \
      (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,  \
       int root, MPI_Comm comm),                                                               \
      (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->root, c->comm),            \
      .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = count, .recvcount = count,          \
      .sendtype = datatype, .recvtype = datatype, .op = op, .root = root, .comm = comm)        \
    F(X, Allreduce, Iallreduce, SINGLE, SINGLE, SEND, 0, TO_ALL, RANKS, Allreduce, Iallreduce, \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
       MPI_Comm comm),                                                                         \
      (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->comm),                     \
      (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,  \
       MPI_Comm comm),                                                                         \
      (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->comm),                     \
      .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = count, .recvcount = count,          \
      .sendtype = datatype, .recvtype = datatype, .op = op, .root = -1, .comm = comm)          \
    F(X, Reduce_scatter, Ireduce_scatter, PACKED, SINGLE, SEND, 0, SCATTERED, RANKS,           \
      Reduce_scatter, Ireduce_scatter,                                                         \
      (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,      \
       MPI_Op op, MPI_Comm comm),                                                              \
      (c->sendbuf, c->recvbuf, c->recvcounts.of_int, c->sendtype, c->op, c->comm),             \
      (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],                       \
       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),                                       \
      (c->sendbuf, c->recvbuf, c->recvcounts.wide, c->sendtype, c->op, c->comm),               \
      .sendbuf = sendbuf, .recvbuf = recvbuf, .recvcounts = SG_COUNTS(recvcounts),             \
      .sendtype = datatype, .recvtype = datatype, .op = op, .root = -1, .comm = comm)          \
    F(X, Reduce_scatter_block, Ireduce_scatter_block, PACKED, SINGLE, SEND, 0, SCATTERED,      \
      RANKS, Reduce_scatter, Ireduce_scatter,                                                  \
      (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,    \
       MPI_Comm comm),                                                                         \
      (c->sendbuf, c->recvbuf, c->recvcount, c->sendtype, c->op, c->comm),                     \
      (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,         \
       MPI_Op op, MPI_Comm comm),                                                              \
      (c->sendbuf, c->recvbuf, c->recvcount, c->sendtype, c->op, c->comm),                     \
      .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = recvcount, .recvcount = recvcount,  \
      .sendtype = datatype, .recvtype = datatype, .op = op, .root = -1, .comm = comm)          \
    F(X, Scan, Iscan, SINGLE, SINGLE, SEND, 0, PREFIX, RANKS, Scan, Iscan,                     \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
       MPI_Comm comm),                                                                         \
      (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->comm),                     \
      (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,  \
       MPI_Comm comm),                                                                         \
      (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->comm),                     \
      .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = count, .recvcount = count,          \
      .sendtype = datatype, .recvtype = datatype, .op = op, .root = -1, .comm = comm)          \
    F(X, Exscan, Iexscan, SINGLE, SINGLE, SEND, 0, EXCLUSIVE_PREFIX, RANKS, Exscan, Iexscan,   \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,        \
       MPI_Comm comm),                                                                         \
      (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->comm),                     \
      (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,  \
       MPI_Comm comm),                                                                         \
      (c->sendbuf, c->recvbuf, c->sendcount, c->sendtype, c->op, c->comm),                     \
      .sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = count, .recvcount = count,          \
      .sendtype = datatype, .recvtype = datatype, .op = op, .root = -1, .comm = comm)          \
    F(X, Neighbor_allgather, Ineighbor_allgather, SINGLE, REGULAR, NONE, 0, NONE, NEIGHBOURS,  \
      Neighbor_allgatherv, Ineighbor_allgatherv,                                               \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
       int recvcount, MPI_Datatype recvtype, MPI_Comm comm),                                   \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm), \
      (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,         \
       MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm),                             \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm), \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,    \
      .recvcount = recvcount, .recvtype = recvtype, .root = -1, .comm = comm)                  \
    F(X, Neighbor_allgatherv, Ineighbor_allgatherv, SINGLE, V, NONE, 0, NONE, NEIGHBOURS,      \
      Neighbor_allgatherv, Ineighbor_allgatherv,                                               \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
       const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),      \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcounts.of_int,                \
       c->rdispls.of_int, c->recvtype, c->comm),                                               \
      (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,         \
       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,           \
       MPI_Comm comm),                                                                         \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcounts.wide, c->rdispls.wide, \
       c->recvtype, c->comm),                                                                  \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,    \
      .recvcounts = SG_COUNTS(recvcounts), .rdispls = SG_DISPLS(displs), .recvtype = recvtype, \
      .root = -1, .comm = comm)                                                                \
    F(X, Neighbor_alltoall, Ineighbor_alltoall, REGULAR, REGULAR, NONE, 0, NONE, NEIGHBOURS,   \
      Neighbor_alltoallv, Ineighbor_alltoallv,                                                 \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,               \
       int recvcount, MPI_Datatype recvtype, MPI_Comm comm),                                   \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm), \
      (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,         \
       MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm),                             \
      (c->sendbuf, c->sendcount, c->sendtype, c->recvbuf, c->recvcount, c->recvtype, c->comm), \
      .sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,    \
      .recvcount = recvcount, .recvtype = recvtype, .root = -1, .comm = comm)                  \
    F(X, Neighbor_alltoallv, Ineighbor_alltoallv, V, V, NONE, 0, NONE, NEIGHBOURS,             \
      Neighbor_alltoallv, Ineighbor_alltoallv,                                                 \
      (const void *sendbuf, const int sendcounts[], const int sdispls[],                       \
       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],      \
       MPI_Datatype recvtype, MPI_Comm comm),                                                  \
      (c->sendbuf, c->sendcounts.of_int, c->sdispls.of_int, c->sendtype, c->recvbuf,           \
       c->recvcounts.of_int, c->rdispls.of_int, c->recvtype, c->comm),                         \
      (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],            \
       MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],                     \
       const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm),                        \
      (c->sendbuf, c->sendcounts.wide, c->sdispls.wide, c->sendtype, c->recvbuf,               \
       c->recvcounts.wide, c->rdispls.wide, c->recvtype, c->comm),                             \
      .sendbuf = sendbuf, .sendcounts = SG_COUNTS(sendcounts), .sdispls = SG_DISPLS(sdispls),  \
      .sendtype = sendtype, .recvbuf = recvbuf, .recvcounts = SG_COUNTS(recvcounts),           \
      .rdispls = SG_DISPLS(rdispls), .recvtype = recvtype, .root = -1, .comm = comm)           \
    F(X, Neighbor_alltoallw, Ineighbor_alltoallw, W, W, NONE, 0, NONE, NEIGHBOURS,             \
      Neighbor_alltoallw, Ineighbor_alltoallw,                                                 \
      (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],                  \
       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],                  \
       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),               \
      (c->sendbuf, c->sendcounts.of_int, c->sdispls.wide, c->sendtypes, c->recvbuf,            \
       c->recvcounts.of_int, c->rdispls.wide, c->recvtypes, c->comm),                          \
      (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],            \
       const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],            \
       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),               \
      (c->sendbuf, c->sendcounts.wide, c->sdispls.wide, c->sendtypes, c->recvbuf,              \
       c->recvcounts.wide, c->rdispls.wide, c->recvtypes, c->comm),                            \
      .sendbuf = sendbuf, .sendcounts = SG_COUNTS(sendcounts), .sdispls = SG_DISPLS(sdispls),  \
      .sendtypes = sendtypes, .sendtype = MPI_DATATYPE_NULL, .recvbuf = recvbuf,               \
      .recvcounts = SG_COUNTS(recvcounts), .rdispls = SG_DISPLS(rdispls),                      \
      .recvtypes = recvtypes, .recvtype = MPI_DATATYPE_NULL, .root = -1, .comm = comm)

/* The forms of every family, in enum order within it: SG_FORM_LIST(Y, ...)
 * expands Y(FORM, nonblocking, large, persistent, ...) for each, where
 *   FORM         its name in enum sg_form (SG_FORM_...), which also picks how
 *                its routine is named (SG_FORM_NAME_...) and called
 *                (collective.h, SG_COLLECTIVE_SIGNATURE_...)
 *   nonblocking  1 for the I-forms (they add MPI_Request *request)
 *   large        1 for the MPI-4 large-count forms (`_c`: counts MPI_Count,
 *                displacements MPI_Aint), which only an MPI that has them
 *                gets: SCALEGUARD_LARGE_COUNT, set by CMake where mpi.h
 *                declares MPI_Scatter_c (MPICH 4; not Open MPI 4.1), so
 *                that no list of this tree names a routine its MPI lacks
 *   persistent   1 for the MPI-4 persistent collectives (`_init`: they add
 *                MPI_Info info, MPI_Request *request; the request is
 *                started by MPI_Start), likewise only where the MPI has
 *                them: SCALEGUARD_PERSISTENT (MPICH 4; Open MPI 4.1 has
 *                only MPIX_ ones), and their large-count `_init_c` where
 *                it has both
 * and passes the rest of the arguments on. */
#if SCALEGUARD_LARGE_COUNT
#define SG_FORMS_LARGE(Y, ...)                                                                  \
    Y(LARGE, 0, 1, 0, __VA_ARGS__)                                                              \
    Y(NONBLOCKING_LARGE, 1, 1, 0, __VA_ARGS__)
#else
#define SG_FORMS_LARGE(Y, ...)
#endif
#if SCALEGUARD_PERSISTENT
#define SG_FORMS_PERSISTENT(Y, ...) Y(PERSISTENT, 0, 0, 1, __VA_ARGS__)
#else
#define SG_FORMS_PERSISTENT(Y, ...)
#endif
#if SCALEGUARD_PERSISTENT && SCALEGUARD_LARGE_COUNT
#define SG_FORMS_PERSISTENT_LARGE(Y, ...) Y(PERSISTENT_LARGE, 0, 1, 1, __VA_ARGS__)
#else
#define SG_FORMS_PERSISTENT_LARGE(Y, ...)
#endif
#define SG_FORM_LIST(Y, ...)                                                                    \
    Y(BLOCKING, 0, 0, 0, __VA_ARGS__)                                                           \
    Y(NONBLOCKING, 1, 0, 0, __VA_ARGS__)                                                        \
    SG_FORMS_LARGE(Y, __VA_ARGS__)                                                              \
    SG_FORMS_PERSISTENT(Y, __VA_ARGS__)                                                         \
    SG_FORMS_PERSISTENT_LARGE(Y, __VA_ARGS__)
#define SG_FORM_NAME_BLOCKING(b, i) b
#define SG_FORM_NAME_NONBLOCKING(b, i) i
#define SG_FORM_NAME_LARGE(b, i) b##_c
#define SG_FORM_NAME_NONBLOCKING_LARGE(b, i) i##_c
#define SG_FORM_NAME_PERSISTENT(b, i) b##_init
#define SG_FORM_NAME_PERSISTENT_LARGE(b, i) b##_init_c
/* The routine's name in `form`, after `prefix` (MPI_). */
#define SG_FORM_NAME(prefix, form, b, i) SG_ROUTINE_CAT(prefix, SG_FORM_NAME_##form(b, i))
#define SG_ROUTINE_CAT(a, b) SG_ROUTINE_CAT_(a, b)
#define SG_ROUTINE_CAT_(a, b) a##b

enum sg_form {
#define SG_FORM_ENUM(form, ...) SG_FORM_##form,
    SG_FORM_LIST(SG_FORM_ENUM, )
#undef SG_FORM_ENUM
    SG_FORM_COUNT
};
/* Bit f: whether form f is nonblocking, large-count, persistent. */
#define SG_NONBLOCKING_FORMS (0 SG_FORM_LIST(SG_FORM_BIT_OF, nonblocking))
#define SG_LARGE_COUNT_FORMS (0 SG_FORM_LIST(SG_FORM_BIT_OF, large))
#define SG_PERSISTENT_FORMS (0 SG_FORM_LIST(SG_FORM_BIT_OF, persistent))
#define SG_FORM_BIT_OF(form, nonblocking, large, persistent, which)                              \
    SG_FORM_BIT_##which(form, nonblocking, large, persistent)
#define SG_FORM_BIT_nonblocking(form, nonblocking, large, persistent)                            \
    | (nonblocking << SG_FORM_##form)
#define SG_FORM_BIT_large(form, nonblocking, large, persistent) | (large << SG_FORM_##form)
#define SG_FORM_BIT_persistent(form, nonblocking, large, persistent)                             \
    | (persistent << SG_FORM_##form)

/* SG_ROUTINE_LIST(X) expands X(name, send, recv, in_place_side, rooted,
 * reduces, blocks, v_form) for each routine, e.g.
 * X(MPI_Igatherv, SINGLE, V, ..., MPI_Igatherv), in enum order: each
 * family's forms, in the order of SG_FORM_LIST. */
#define SG_ROUTINE_LIST(X) SG_FAMILY_LIST(SG_FAMILY_FORMS, X)
#define SG_FAMILY_FORMS(X, b, i, send, recv, ip, root, red, blocks, vb, vi, ...)                \
    SG_FORM_LIST(SG_ROUTINE_FORM, X, b, i, send, recv, ip, root, red, blocks, vb, vi)
#define SG_ROUTINE_FORM(form, nonblocking, large, persistent, X, b, i, send, recv, ip, root, red, \
                        blocks, vb, vi)                                                         \
    SG_EXPANDED(X, SG_FORM_NAME(MPI_, form, b, i), send, recv, ip, root, red, blocks,          \
                SG_FORM_NAME(MPI_, form, vb, vi))
/* X(arguments), each argument macro-expanded first (a name made by
 * SG_FORM_NAME, which X may paste). */
#define SG_EXPANDED(X, ...) X(__VA_ARGS__)

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
    int aint_displs; /* its displacements are MPI_Aint in every form, not only `_c`: a
                      * neighbourhood's W sides (MPI_Neighbor_alltoallw, MPI 4.0 7.6) */
};

extern const struct sg_routine_info sg_routines[SG_ROUTINE_COUNT];

/* The form of r, the blocking routine of r's family, whether r is an
 * I-form, whether a large-count (`_c`) one, whether a persistent (`_init`)
 * one, family f's routine in the form of `like`, r's family's routine that
 * is nonblocking or not with int counts (large 0) or large counts (large
 * 1) and not persistent, and r's own form with int or large counts, -1
 * where this MPI has no such form: the one way to tell the forms apart. */
static inline enum sg_form sg_form_of(enum sg_routine r)
{
    return (enum sg_form)(r % SG_FORM_COUNT);
}
static inline enum sg_routine sg_blocking_form(enum sg_routine r)
{
    return (enum sg_routine)(r - r % SG_FORM_COUNT);
}
static inline int sg_is_nonblocking(enum sg_routine r)
{
    return SG_NONBLOCKING_FORMS >> sg_form_of(r) & 1;
}
static inline int sg_is_large_count(enum sg_routine r)
{
    return SG_LARGE_COUNT_FORMS >> sg_form_of(r) & 1;
}
static inline int sg_is_persistent(enum sg_routine r)
{
    return SG_PERSISTENT_FORMS >> sg_form_of(r) & 1;
}
/* Whether r's displacements are MPI_Aint, which cannot wrap (no Class D):
 * a large-count form's, or every form's of a row with `aint_displs`. */
static inline int sg_displs_are_aint(enum sg_routine r)
{
    return sg_is_large_count(r) || sg_routines[r].aint_displs;
}
static inline enum sg_routine sg_in_form_of(enum sg_routine f, enum sg_routine like)
{
    return (enum sg_routine)(sg_blocking_form(f) + sg_form_of(like));
}
static inline int sg_form_like(enum sg_routine r, int nonblocking, int large, int persistent)
{
    for (int form = 0; form < SG_FORM_COUNT; form++)
        if ((SG_NONBLOCKING_FORMS >> form & 1) == (nonblocking != 0) &&
            (SG_LARGE_COUNT_FORMS >> form & 1) == (large != 0) &&
            (SG_PERSISTENT_FORMS >> form & 1) == (persistent != 0))
            return (int)sg_blocking_form(r) + form;
    return -1;
}
static inline int sg_form_with(enum sg_routine r, int nonblocking, int large)
{
    return sg_form_like(r, nonblocking, large, 0);
}
static inline int sg_in_count_form(enum sg_routine r, int large)
{
    return sg_form_like(r, sg_is_nonblocking(r), large, sg_is_persistent(r));
}

/* The routine called `name` (e.g. "MPI_Gatherv"), or -1 when unknown. */
int sg_routine_by_name(const char *name);

/* The same for the first `length` characters of `name` (no terminator needed). */
int sg_routine_by_name_length(const char *name, size_t length);

#endif
