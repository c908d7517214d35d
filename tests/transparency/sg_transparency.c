/* sg_transparency: calls a correct program may make that the layer must
 * leave computing what they compute, each made twice on every rank, once
 * through MPI_* (libscaleguard.so when preloaded) and once through PMPI_*
 * on a copy of the same buffers, and compared byte for byte, send and
 * receive buffers with a margin either side.
 *
 *   sg_transparency [CASE...]     (no CASE: all of them, in order)
 *
 * The cases (P = 4 unless said; `basic` counts basic elements):
 *   scatter_in_place_vector  Scatter, root 1 in place sends 12 doubles per
 *                            rank; the others receive 1 x vector(4 x 3
 *                            doubles, stride 5)
 *   bcast_own_types          Bcast of 256 doubles, each rank its own type:
 *                            1 x 2048 bytes at the root, 128 x 16, 256 x 8,
 *                            2 x 1024 elsewhere
 *   gather_vector_root       Gather to root 2 of 12 doubles per rank, the
 *                            root receiving each block as 1 x the vector
 *   allgather_own_types      Allgather of 12 doubles per rank, odd ranks
 *                            in contiguous(3 doubles)
 *   alltoall_own_types       Alltoall, 12 doubles per block, rank 0 in
 *                            contiguous(6 doubles)
 *   gatherv_own_types        Gatherv to root 3, 6 i doubles from rank i,
 *                            the root receiving contiguous(2 doubles)
 *   allgatherv_own_types     Allgatherv, 4 (i + 1) doubles from rank i,
 *                            even ranks receiving contiguous(2 doubles)
 *   alltoallv_own_types      Alltoallv, 2 (i + j + 1) doubles from i to j,
 *                            rank 1 sending contiguous(2 doubles)
 *   alltoallv_in_place_own_types  Alltoallv in place, 2 (i + j + 1)
 *                            doubles between i and j, rank 2 receiving
 *                            contiguous(2 doubles)
 *   alltoallw_own_types      Alltoallw, 2 (i + j + 1) doubles from i to j,
 *                            each block in its own datatype (doubles or
 *                            pairs of them, the two ends of a block
 *                            differently), the receive side's blocks 8
 *                            bytes apart
 *   alltoallw_in_place_own_types  Alltoallw in place, the same blocks
 *   ibcast_struct            Ibcast of 20 x struct {int; double} (padded)
 *   allgather_negative_lb    Allgather of 5 x resized(2 ints, lb -8,
 *                            extent 16) per rank
 *   scatter_indexed          Scatter from root 3 of 4 x indexed(2 ints at
 *                            0, 1 at 4) per rank
 *   reduce_noncommutative    Reduce to root 1 of 8 2x2 integer matrices by a
 *                            non-commutative user op (matrix product) that
 *                            also checks it is given the caller's datatype
 *   allreduce_user_struct    Allreduce of 16 x struct {int; double} by a
 *                            commutative user op that checks its datatype
 *   ireduce_scatter_large    Ireduce_scatter of 4096 ints per rank (SUM)
 *   allgather_self           Allgather of 10 doubles on MPI_COMM_SELF
 *   gatherv_zero             Gatherv to root 0 with every count 0
 *   bcast_intercomm          Bcast of 12 doubles over an intercommunicator
 *                            (ranks 0, 1 against 2, 3; root 0 of the first)
 *   alltoallw_intercomm      Alltoallw over that intercommunicator, each
 *                            block to a rank of the other group in its own
 *                            datatype, as in alltoallw_own_types
 *   iscatter_in_place_vector, ibcast_own_types, igather_vector_root,
 *   iallgather_own_types, ialltoall_own_types, ialltoallw_own_types
 *                            the cases above as I-forms
 *   scan_noncommutative      Scan of 8 2x2 integer matrices by the matrix
 *                            product (the prefix's order matters)
 *   neighbor_allgather_own_types  Neighbor_allgather of 12 doubles over a
 *                            periodic ring (MPI_Cart_create), odd ranks in
 *                            contiguous(3 doubles)
 *   neighbor_alltoallv_own_types  Neighbor_alltoallv over a distributed
 *                            graph of unequal degrees (rank r sends to
 *                            r + 1 and r + 2, receives from r - 1 and
 *                            r - 2, and rank 0 to rank 3 too), 2 (r + j +
 *                            1) doubles a block, rank 1 sending pairs
 *   ineighbor_alltoallw_own_types  Ineighbor_alltoallw over that graph, each
 *                            block in its own datatype (doubles or pairs)
 *   allgather_init_own_types  allgather_own_types through MPI_Allgather_init
 *                            and one MPI_Start (MPI 4 libraries)
 *   scatter_c_in_place_vector  scatter_in_place_vector through MPI_Scatter_c
 *                            (libraries with large-count functions)
 *
 * Output: "sg_transparency: CASE same" from rank 0 per case, on standard
 * error (where the layer's words go, for the tests to read both). On a
 * difference: the case, rank and first differing byte on stderr, then
 * exit status 1; a user op given another datatype than the
 * caller's: the same. */
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"

#define TEST_PROGRAM "sg_transparency"
#include "against_plain.h"

/* The collectives through MPI_*: the layer's, when it is preloaded. */
static const struct sg_entry_points via_mpi = {
#define VIA_MPI(Name, params, args, ...) .Name = MPI_##Name,
    SG_COLLECTIVES(VIA_MPI)
#undef VIA_MPI
};

/* One case: the call as this rank makes it, with its buffers as offsets
 * into two regions of the given sizes (SEND_AT / RECV_AT: where the buffer
 * starts in its region, so that a negative lower bound stays inside; NONE:
 * no buffer, IN_PLACE: MPI_IN_PLACE). */
#define NONE ((ptrdiff_t)-1)
#define IN_PLACE ((ptrdiff_t)-2)
struct setup {
    struct sg_call call;
    size_t send_bytes, recv_bytes;
    ptrdiff_t send_at, recv_at;
    MPI_Datatype types[4]; /* freed after the case */
    MPI_Op op;             /* freed after the case, unless MPI_OP_NULL */
};

static MPI_Datatype commit(MPI_Datatype type, struct setup *s)
{
    MPI_Type_commit(&type);
    for (int i = 0; i < 4; i++)
        if (s->types[i] == MPI_DATATYPE_NULL) {
            s->types[i] = type;
            break;
        }
    return type;
}

static MPI_Datatype doubles(int n, struct setup *s)
{
    MPI_Datatype t;
    MPI_Type_contiguous(n, MPI_DOUBLE, &t);
    return commit(t, s);
}

/* 12 doubles as 4 blocks of 3, stride 5: extent 18 doubles. */
static MPI_Datatype vector12(struct setup *s)
{
    MPI_Datatype t;
    MPI_Type_vector(4, 3, 5, MPI_DOUBLE, &t);
    return commit(t, s);
}

static MPI_Datatype int_double(struct setup *s)
{
    struct pair {
        int i;
        double d;
    };
    int lengths[2] = {1, 1};
    MPI_Aint at[2] = {offsetof(struct pair, i), offsetof(struct pair, d)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t, resized;
    MPI_Type_create_struct(2, lengths, at, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(struct pair), &resized);
    MPI_Type_free(&t);
    return commit(resized, s);
}

/* ---- User ops ---------------------------------------------------------- */

static MPI_Datatype expected_type; /* what the user ops must be given */
static int foreign_type;

/* 2x2 matrices of uint32 (row major), c = a * c: associative, not
 * commutative. */
static void matrix_product(void *in, void *inout, int *len, MPI_Datatype *type)
{
    if (*type != expected_type)
        foreign_type = 1;
    const uint32_t *a = in;
    uint32_t *b = inout;
    for (int m = 0; m < *len; m++, a += 4, b += 4) {
        uint32_t r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                         a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, r, sizeof r);
    }
}

/* struct {int; double}: the ints add, the doubles take the larger. */
static void int_add_double_max(void *in, void *inout, int *len, MPI_Datatype *type)
{
    if (*type != expected_type)
        foreign_type = 1;
    MPI_Aint lb, extent;
    MPI_Type_get_extent(*type, &lb, &extent);
    unsigned char *a = in, *b = inout;
    for (int m = 0; m < *len; m++) {
        int x, y;
        double u, v;
        memcpy(&x, a + m * extent, sizeof x);
        memcpy(&y, b + m * extent, sizeof y);
        memcpy(&u, a + m * extent + sizeof(double), sizeof u);
        memcpy(&v, b + m * extent + sizeof(double), sizeof v);
        y = (int)((unsigned)x + (unsigned)y);
        v = u > v ? u : v;
        memcpy(b + m * extent, &y, sizeof y);
        memcpy(b + m * extent + sizeof(double), &v, sizeof v);
    }
}

/* ---- The cases --------------------------------------------------------- */

#define D sizeof(double)

static void scatter_in_place_vector(struct setup *s)
{
    int root = 1;
    MPI_Datatype vec = vector12(s);
    s->call = (struct sg_call){.routine = SG_MPI_Scatter, .sendcount = 12,
                               .sendtype = MPI_DOUBLE, .recvcount = 1, .recvtype = vec,
                               .root = root, .comm = MPI_COMM_WORLD};
    s->send_at = s->recv_at = NONE;
    if (rank == root) {
        s->send_bytes = (size_t)procs * 12 * D;
        s->send_at = 0;
        s->recv_at = IN_PLACE;
    } else {
        s->recv_bytes = 18 * D;
        s->recv_at = 0;
    }
}

static void bcast_own_types(struct setup *s)
{
    static const int per[4] = {256, 2, 1, 128}; /* doubles per element, by rank */
    int each = per[rank % 4];
    MPI_Datatype t = doubles(each, s);
    s->call = (struct sg_call){.routine = SG_MPI_Bcast, .recvcount = 256 / each, .recvtype = t,
                               .root = 0, .comm = MPI_COMM_WORLD};
    s->recv_bytes = 256 * D;
    s->send_at = NONE;
    s->recv_at = 0;
}

static void gather_vector_root(struct setup *s)
{
    int root = 2;
    s->call = (struct sg_call){.routine = SG_MPI_Gather, .sendcount = 12,
                               .sendtype = MPI_DOUBLE, .recvcount = 1, .recvtype = vector12(s),
                               .root = root, .comm = MPI_COMM_WORLD};
    s->send_bytes = 12 * D;
    s->send_at = 0;
    s->recv_at = NONE;
    if (rank == root) {
        s->recv_bytes = (size_t)procs * 18 * D;
        s->recv_at = 0;
    }
}

static void allgather_own_types(struct setup *s)
{
    int odd = rank % 2;
    MPI_Datatype t = odd ? doubles(3, s) : MPI_DOUBLE;
    int count = odd ? 4 : 12;
    s->call = (struct sg_call){.routine = SG_MPI_Allgather, .sendcount = count, .sendtype = t,
                               .recvcount = count, .recvtype = t, .root = -1,
                               .comm = MPI_COMM_WORLD};
    s->send_bytes = 12 * D;
    s->recv_bytes = (size_t)procs * 12 * D;
    s->send_at = s->recv_at = 0;
}

static void alltoall_own_types(struct setup *s)
{
    MPI_Datatype t = rank == 0 ? doubles(6, s) : MPI_DOUBLE;
    int count = rank == 0 ? 2 : 12;
    s->call = (struct sg_call){.routine = SG_MPI_Alltoall, .sendcount = count, .sendtype = t,
                               .recvcount = count, .recvtype = t, .root = -1,
                               .comm = MPI_COMM_WORLD};
    s->send_bytes = s->recv_bytes = (size_t)procs * 12 * D;
    s->send_at = s->recv_at = 0;
}

static int counts[64], displs[64], scounts[64], sdispls[64];

static void gatherv_own_types(struct setup *s)
{
    int root = 3 % procs, total = 0;
    for (int i = 0; i < procs; i++) {
        counts[i] = 3 * i; /* pairs of doubles */
        displs[i] = total;
        total += counts[i];
    }
    s->call = (struct sg_call){.routine = SG_MPI_Gatherv, .sendcount = 6 * rank,
                               .sendtype = MPI_DOUBLE, .recvcounts = SG_COUNTS(counts),
                               .rdispls = SG_DISPLS(displs),
                               .recvtype = doubles(2, s), .root = root, .comm = MPI_COMM_WORLD};
    s->send_bytes = (size_t)(6 * rank) * D;
    s->send_at = 0;
    s->recv_at = NONE;
    if (rank == root) {
        s->recv_bytes = (size_t)total * 2 * D;
        s->recv_at = 0;
    }
}

static void allgatherv_own_types(struct setup *s)
{
    int pairs = rank % 2 == 0, total = 0;
    for (int i = 0; i < procs; i++) {
        counts[i] = pairs ? 2 * (i + 1) : 4 * (i + 1);
        displs[i] = total;
        total += counts[i];
    }
    MPI_Datatype t = pairs ? doubles(2, s) : MPI_DOUBLE;
    s->call = (struct sg_call){.routine = SG_MPI_Allgatherv, .sendcount = counts[rank],
                               .sendtype = t, .recvcounts = SG_COUNTS(counts),
                               .rdispls = SG_DISPLS(displs),
                               .recvtype = t, .root = -1, .comm = MPI_COMM_WORLD};
    s->send_bytes = (size_t)(4 * (rank + 1)) * D;
    s->recv_bytes = (size_t)total * (pairs ? 2 : 1) * D;
    s->send_at = s->recv_at = 0;
}

static void alltoallv_own_types(struct setup *s)
{
    int pairs = rank == 1, sent = 0, received = 0;
    for (int j = 0; j < procs; j++) {
        scounts[j] = 2 * (rank + j + 1) / (pairs ? 2 : 1);
        sdispls[j] = sent;
        sent += scounts[j];
        counts[j] = 2 * (j + rank + 1);
        displs[j] = received;
        received += counts[j];
    }
    s->call = (struct sg_call){.routine = SG_MPI_Alltoallv, .sendcounts = SG_COUNTS(scounts),
                               .sdispls = SG_DISPLS(sdispls),
                               .sendtype = pairs ? doubles(2, s) : MPI_DOUBLE,
                               .recvcounts = SG_COUNTS(counts), .rdispls = SG_DISPLS(displs),
                               .recvtype = MPI_DOUBLE,
                               .root = -1, .comm = MPI_COMM_WORLD};
    s->send_bytes = (size_t)sent * (pairs ? 2 : 1) * D;
    s->recv_bytes = (size_t)received * D;
    s->send_at = s->recv_at = 0;
}

static void alltoallv_in_place_own_types(struct setup *s)
{
    int pairs = rank == 2, received = 0;
    for (int j = 0; j < procs; j++) {
        counts[j] = 2 * (j + rank + 1) / (pairs ? 2 : 1);
        displs[j] = received;
        received += counts[j];
    }
    s->call = (struct sg_call){.routine = SG_MPI_Alltoallv, .recvcounts = SG_COUNTS(counts),
                               .rdispls = SG_DISPLS(displs),
                               .recvtype = pairs ? doubles(2, s) : MPI_DOUBLE,
                               .root = -1, .comm = MPI_COMM_WORLD};
    s->recv_bytes = (size_t)received * (pairs ? 2 : 1) * D;
    s->send_at = IN_PLACE;
    s->recv_at = 0;
}

static MPI_Datatype stypes[64], rtypes[64];

/* Block j of Alltoallw: 2 (rank + j + 1) doubles, as doubles or as pairs
 * (`pairs`, made once per case). */
static void w_block(int j, int as_pairs, MPI_Datatype pairs, int *count, MPI_Datatype *type)
{
    *count = 2 * (rank + j + 1) / (as_pairs ? 2 : 1);
    *type = as_pairs ? pairs : MPI_DOUBLE;
}

static void alltoallw_own_types(struct setup *s)
{
    MPI_Datatype pairs = doubles(2, s);
    int sent = 0, received = 0;
    for (int j = 0; j < procs; j++) {
        w_block(j, (rank + j) % 2, pairs, &scounts[j], &stypes[j]);
        sdispls[j] = sent;
        sent += 2 * (rank + j + 1) * D;
    }
    for (int j = 0; j < procs; j++) { /* 8 bytes apart */
        w_block(j, (rank + j + 1) % 2, pairs, &counts[j], &rtypes[j]);
        displs[j] = received;
        received += 2 * (rank + j + 1) * D + 8;
    }
    s->call = (struct sg_call){.routine = SG_MPI_Alltoallw, .sendcounts = SG_COUNTS(scounts),
                               .sdispls = SG_DISPLS(sdispls), .sendtypes = stypes,
                               .sendtype = MPI_DATATYPE_NULL, .recvcounts = SG_COUNTS(counts),
                               .rdispls = SG_DISPLS(displs), .recvtypes = rtypes,
                               .recvtype = MPI_DATATYPE_NULL, .root = -1, .comm = MPI_COMM_WORLD};
    s->send_bytes = (size_t)sent;
    s->recv_bytes = (size_t)received;
    s->send_at = s->recv_at = 0;
}

static void alltoallw_in_place_own_types(struct setup *s)
{
    MPI_Datatype pairs = doubles(2, s);
    int received = 0;
    for (int j = 0; j < procs; j++) {
        w_block(j, (rank + j) % 2, pairs, &counts[j], &rtypes[j]);
        displs[j] = received;
        received += 2 * (rank + j + 1) * D;
    }
    s->call = (struct sg_call){.routine = SG_MPI_Alltoallw, .recvcounts = SG_COUNTS(counts),
                               .rdispls = SG_DISPLS(displs), .recvtypes = rtypes,
                               .sendtype = MPI_DATATYPE_NULL, .recvtype = MPI_DATATYPE_NULL,
                               .root = -1, .comm = MPI_COMM_WORLD};
    s->recv_bytes = (size_t)received;
    s->send_at = IN_PLACE;
    s->recv_at = 0;
}

static void ibcast_struct(struct setup *s)
{
    s->call = (struct sg_call){.routine = SG_MPI_Ibcast, .recvcount = 20,
                               .recvtype = int_double(s), .root = 1 % procs,
                               .comm = MPI_COMM_WORLD};
    s->recv_bytes = 20 * 2 * D;
    s->send_at = NONE;
    s->recv_at = 0;
}

static void allgather_negative_lb(struct setup *s)
{
    MPI_Datatype two, t;
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_create_resized(two, -8, 16, &t);
    MPI_Type_free(&two);
    t = commit(t, s);
    s->call = (struct sg_call){.routine = SG_MPI_Allgather, .sendcount = 5, .sendtype = t,
                               .recvcount = 5, .recvtype = t, .root = -1,
                               .comm = MPI_COMM_WORLD};
    s->send_bytes = 5 * 16;
    s->recv_bytes = (size_t)procs * 5 * 16;
    s->send_at = s->recv_at = 8; /* the lower bound is 8 bytes before the buffer */
}

static void scatter_indexed(struct setup *s)
{
    int lengths[2] = {2, 1}, at[2] = {0, 4};
    MPI_Datatype t, resized;
    MPI_Type_indexed(2, lengths, at, MPI_INT, &t);
    MPI_Type_create_resized(t, 0, 5 * sizeof(int), &resized);
    MPI_Type_free(&t);
    resized = commit(resized, s);
    int root = 3 % procs;
    s->call = (struct sg_call){.routine = SG_MPI_Scatter, .sendcount = 4, .sendtype = resized,
                               .recvcount = 4, .recvtype = resized, .root = root,
                               .comm = MPI_COMM_WORLD};
    s->recv_bytes = 4 * 5 * sizeof(int);
    s->recv_at = 0;
    s->send_at = NONE;
    if (rank == root) {
        s->send_bytes = (size_t)procs * 4 * 5 * sizeof(int);
        s->send_at = 0;
    }
}

static void reduce_noncommutative(struct setup *s)
{
    MPI_Datatype t;
    MPI_Type_contiguous(4, MPI_UINT32_T, &t);
    expected_type = t = commit(t, s);
    MPI_Op_create(matrix_product, 0, &s->op);
    int root = 1 % procs;
    s->call = (struct sg_call){.routine = SG_MPI_Reduce, .sendcount = 8, .sendtype = t,
                               .op = s->op, .root = root, .comm = MPI_COMM_WORLD};
    s->send_bytes = 8 * 16;
    s->send_at = 0;
    s->recv_at = NONE;
    if (rank == root) {
        s->recv_bytes = 8 * 16;
        s->recv_at = 0;
    }
}

static void allreduce_user_struct(struct setup *s)
{
    expected_type = int_double(s);
    MPI_Op_create(int_add_double_max, 1, &s->op);
    s->call = (struct sg_call){.routine = SG_MPI_Allreduce, .sendcount = 16,
                               .sendtype = expected_type, .op = s->op, .root = -1,
                               .comm = MPI_COMM_WORLD};
    s->send_bytes = s->recv_bytes = 16 * 2 * D;
    s->send_at = s->recv_at = 0;
}

static void ireduce_scatter_large(struct setup *s)
{
    for (int i = 0; i < procs; i++)
        counts[i] = 4096;
    s->call = (struct sg_call){.routine = SG_MPI_Ireduce_scatter, .sendtype = MPI_INT,
                               .recvcounts = SG_COUNTS(counts), .recvtype = MPI_INT, .op = MPI_SUM,
                               .root = -1, .comm = MPI_COMM_WORLD};
    s->send_bytes = (size_t)procs * 4096 * sizeof(int);
    s->recv_bytes = 4096 * sizeof(int);
    s->send_at = s->recv_at = 0;
}

static void allgather_self(struct setup *s)
{
    s->call = (struct sg_call){.routine = SG_MPI_Allgather, .sendcount = 10,
                               .sendtype = MPI_DOUBLE, .recvcount = 10, .recvtype = MPI_DOUBLE,
                               .root = -1, .comm = MPI_COMM_SELF};
    s->send_bytes = s->recv_bytes = 10 * D;
    s->send_at = s->recv_at = 0;
}

static void gatherv_zero(struct setup *s)
{
    for (int i = 0; i < procs; i++)
        counts[i] = displs[i] = 0;
    s->call = (struct sg_call){.routine = SG_MPI_Gatherv, .sendcount = 0, .sendtype = MPI_DOUBLE,
                               .recvcounts = SG_COUNTS(counts), .rdispls = SG_DISPLS(displs),
                               .recvtype = MPI_DOUBLE,
                               .root = 0, .comm = MPI_COMM_WORLD};
    s->send_bytes = s->recv_bytes = 8;
    s->send_at = 0;
    s->recv_at = rank == 0 ? 0 : NONE;
}

static void scan_noncommutative(struct setup *s)
{
    MPI_Datatype t;
    MPI_Type_contiguous(4, MPI_UINT32_T, &t);
    expected_type = t = commit(t, s);
    MPI_Op_create(matrix_product, 0, &s->op);
    s->call = (struct sg_call){.routine = SG_MPI_Scan, .sendcount = 8, .sendtype = t,
                               .op = s->op, .root = -1, .comm = MPI_COMM_WORLD};
    s->send_bytes = s->recv_bytes = 8 * 16;
    s->send_at = s->recv_at = 0;
}

/* The neighbourhoods, made on first use: a periodic ring, and a graph of
 * unequal degrees (r to r + 1 and r + 2, and 0 to 3: rank 3 has three in,
 * rank 0 three out). */
static MPI_Comm ring = MPI_COMM_NULL, graph = MPI_COMM_NULL;
static int graph_out[3], graph_in[3], graph_outs, graph_ins;

static void make_neighbourhoods(void)
{
    if (ring != MPI_COMM_NULL)
        return;
    int periodic = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &procs, &periodic, 0, &ring);
    graph_outs = graph_ins = 0;
    for (int k = 1; k <= 2; k++) {
        graph_out[graph_outs++] = (rank + k) % procs;
        graph_in[graph_ins++] = (rank - k + procs) % procs;
    }
    if (rank == 0)
        graph_out[graph_outs++] = 3;
    if (rank == 3)
        graph_in[graph_ins++] = 0;
    int weights[3] = {1, 1, 1}; /* not MPI_UNWEIGHTED: gcc 12 reads Open MPI's as int[0] */
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, graph_ins, graph_in, weights, graph_outs,
                                   graph_out, weights, MPI_INFO_NULL, 0, &graph);
}

static void neighbor_allgather_own_types(struct setup *s)
{
    make_neighbourhoods();
    int odd = rank % 2;
    MPI_Datatype t = odd ? doubles(3, s) : MPI_DOUBLE;
    int count = odd ? 4 : 12;
    s->call = (struct sg_call){.routine = SG_MPI_Neighbor_allgather, .sendcount = count,
                               .sendtype = t, .recvcount = count, .recvtype = t, .root = -1,
                               .comm = ring};
    s->send_bytes = 12 * D;
    s->recv_bytes = 2 * 12 * D; /* two neighbours */
    s->send_at = s->recv_at = 0;
}

/* The block between ranks i and j: 2 (i + j + 1) doubles. */
static int pair_block(int i, int j) { return 2 * (i + j + 1); }

static void neighbor_alltoallv_own_types(struct setup *s)
{
    make_neighbourhoods();
    int pairs = rank == 1, sent = 0, received = 0;
    for (int k = 0; k < graph_outs; k++) {
        scounts[k] = pair_block(rank, graph_out[k]) / (pairs ? 2 : 1);
        sdispls[k] = sent;
        sent += scounts[k];
    }
    for (int k = 0; k < graph_ins; k++) {
        counts[k] = pair_block(graph_in[k], rank);
        displs[k] = received + 1; /* a gap of one element before each */
        received += counts[k] + 1;
    }
    s->call = (struct sg_call){.routine = SG_MPI_Neighbor_alltoallv,
                               .sendcounts = SG_COUNTS(scounts), .sdispls = SG_DISPLS(sdispls),
                               .sendtype = pairs ? doubles(2, s) : MPI_DOUBLE,
                               .recvcounts = SG_COUNTS(counts), .rdispls = SG_DISPLS(displs),
                               .recvtype = MPI_DOUBLE, .root = -1, .comm = graph};
    s->send_bytes = (size_t)sent * (pairs ? 2 : 1) * D;
    s->recv_bytes = (size_t)received * D;
    s->send_at = s->recv_at = 0;
}

static MPI_Aint wide_sdispls[64], wide_rdispls[64];

static void ineighbor_alltoallw_own_types(struct setup *s)
{
    make_neighbourhoods();
    MPI_Datatype pairs = doubles(2, s);
    MPI_Aint sent = 0, received = 0;
    for (int k = 0; k < graph_outs; k++) {
        int as_pairs = (rank + graph_out[k]) % 2, n = pair_block(rank, graph_out[k]);
        scounts[k] = n / (as_pairs ? 2 : 1);
        stypes[k] = as_pairs ? pairs : MPI_DOUBLE;
        wide_sdispls[k] = sent;
        sent += n * (MPI_Aint)D;
    }
    for (int k = 0; k < graph_ins; k++) { /* the other end's type, 8 bytes apart */
        int as_pairs = (graph_in[k] + rank + 1) % 2, n = pair_block(graph_in[k], rank);
        counts[k] = n / (as_pairs ? 2 : 1);
        rtypes[k] = as_pairs ? pairs : MPI_DOUBLE;
        wide_rdispls[k] = received;
        received += n * (MPI_Aint)D + 8;
    }
    s->call = (struct sg_call){.routine = SG_MPI_Ineighbor_alltoallw,
                               .sendcounts = SG_COUNTS(scounts),
                               .sdispls = SG_DISPLS(wide_sdispls), .sendtypes = stypes,
                               .sendtype = MPI_DATATYPE_NULL, .recvcounts = SG_COUNTS(counts),
                               .rdispls = SG_DISPLS(wide_rdispls), .recvtypes = rtypes,
                               .recvtype = MPI_DATATYPE_NULL, .root = -1, .comm = graph};
    s->send_bytes = (size_t)sent;
    s->recv_bytes = (size_t)received;
    s->send_at = s->recv_at = 0;
}

#if SCALEGUARD_PERSISTENT
static void allgather_init_own_types(struct setup *s)
{
    allgather_own_types(s);
    s->call.routine = SG_MPI_Allgather_init;
    s->call.info = MPI_INFO_NULL;
}
#endif

#if SCALEGUARD_LARGE_COUNT
static void scatter_c_in_place_vector(struct setup *s)
{
    scatter_in_place_vector(s);
    s->call.routine = SG_MPI_Scatter_c;
}
#endif

static MPI_Comm intercomm = MPI_COMM_NULL;

static void bcast_intercomm(struct setup *s)
{
    if (intercomm == MPI_COMM_NULL) {
        MPI_Comm half;
        int low = rank < procs / 2;
        MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? procs / 2 : 0, 7, &intercomm);
        MPI_Comm_free(&half);
    }
    int low = rank < procs / 2;
    s->call = (struct sg_call){.routine = SG_MPI_Bcast, .recvcount = 12, .recvtype = MPI_DOUBLE,
                               .root = low ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0,
                               .comm = intercomm};
    s->recv_bytes = 12 * D;
    s->send_at = NONE;
    s->recv_at = 0;
}

static void alltoallw_intercomm(struct setup *s)
{
    bcast_intercomm(s); /* the intercommunicator */
    MPI_Datatype pairs = doubles(2, s);
    int remote = procs / 2, low = rank < procs / 2, sent = 0, received = 0;
    for (int j = 0; j < remote; j++) { /* world ranks: this one and j of the other group */
        int peer = low ? remote + j : j;
        int blocks = 2 * (rank + peer + 1);
        scounts[j] = (rank + j) % 2 ? blocks / 2 : blocks;
        stypes[j] = (rank + j) % 2 ? pairs : MPI_DOUBLE;
        sdispls[j] = sent;
        sent += blocks * D;
        counts[j] = (rank + j + 1) % 2 ? blocks / 2 : blocks;
        rtypes[j] = (rank + j + 1) % 2 ? pairs : MPI_DOUBLE;
        displs[j] = received;
        received += blocks * D + 8;
    }
    s->call = (struct sg_call){.routine = SG_MPI_Alltoallw, .sendcounts = SG_COUNTS(scounts),
                               .sdispls = SG_DISPLS(sdispls), .sendtypes = stypes,
                               .sendtype = MPI_DATATYPE_NULL, .recvcounts = SG_COUNTS(counts),
                               .rdispls = SG_DISPLS(displs), .recvtypes = rtypes,
                               .recvtype = MPI_DATATYPE_NULL, .root = -1, .comm = intercomm};
    s->send_bytes = (size_t)sent;
    s->recv_bytes = (size_t)received;
    s->send_at = s->recv_at = 0;
}

/* The cases of ranks with their own datatypes as I-forms, where the ranks
 * cannot compare anything inside the call: they must choose alike alone. */
#define AS_I_FORM(name)                                                                        \
    static void i##name(struct setup *s)                                                       \
    {                                                                                          \
        name(s);                                                                               \
        s->call.routine = sg_in_form_of(s->call.routine, SG_MPI_Ibcast);                       \
    }
AS_I_FORM(scatter_in_place_vector)
AS_I_FORM(bcast_own_types)
AS_I_FORM(gather_vector_root)
AS_I_FORM(allgather_own_types)
AS_I_FORM(alltoall_own_types)
AS_I_FORM(alltoallw_own_types)
#undef AS_I_FORM

static const struct {
    const char *name;
    void (*setup)(struct setup *s);
} cases[] = {
#define CASE(name) {#name, name}
    CASE(scatter_in_place_vector), CASE(bcast_own_types),      CASE(gather_vector_root),
    CASE(allgather_own_types),    CASE(alltoall_own_types),   CASE(gatherv_own_types),
    CASE(allgatherv_own_types),    CASE(alltoallv_own_types),
    CASE(alltoallv_in_place_own_types),                        CASE(ibcast_struct),
    CASE(allgather_negative_lb),   CASE(scatter_indexed),      CASE(reduce_noncommutative),
    CASE(allreduce_user_struct),   CASE(ireduce_scatter_large), CASE(allgather_self),
    CASE(gatherv_zero),            CASE(bcast_intercomm),      CASE(iscatter_in_place_vector),
    CASE(ibcast_own_types),        CASE(igather_vector_root),  CASE(iallgather_own_types),
    CASE(ialltoall_own_types),     CASE(alltoallw_own_types),  CASE(alltoallw_in_place_own_types),
    CASE(ialltoallw_own_types),    CASE(alltoallw_intercomm),  CASE(scan_noncommutative),
    CASE(neighbor_allgather_own_types), CASE(neighbor_alltoallv_own_types),
    CASE(ineighbor_alltoallw_own_types),
#if SCALEGUARD_PERSISTENT
    CASE(allgather_init_own_types),
#endif
#if SCALEGUARD_LARGE_COUNT
    CASE(scatter_c_in_place_vector),
#endif
#undef CASE
};
#define CASES (sizeof cases / sizeof *cases)

/* ---- Running a case twice ---------------------------------------------- */

static void *region_at(unsigned char *region, ptrdiff_t at)
{
    return at == NONE ? NULL : at == IN_PLACE ? MPI_IN_PLACE : region + MARGIN + at;
}

/* Call `c` on its own copy of the buffers through `table`, to completion. */
static void call_through(const struct sg_entry_points *table, struct sg_call *c,
                         const struct setup *s, unsigned char *send, unsigned char *recv)
{
    MPI_Request request;
    c->sendbuf = region_at(send, s->send_at);
    c->recvbuf = region_at(recv, s->recv_at); /* Bcast's one buffer too */
    int persistent = sg_is_persistent(c->routine);
    if (table == &sg_pmpi) { /* a persistent call's plain one: its blocking form */
        if (persistent)
            c->routine = (enum sg_routine)sg_form_with(c->routine, 0,
                                                       sg_is_large_count(c->routine));
        run_plain(c);
        return;
    }
    c->request = sg_is_nonblocking(c->routine) || persistent ? &request : NULL;
    int err = sg_call_invoke(table, c);
    if (err == MPI_SUCCESS && persistent)
        err = MPI_Start(&request);
    if (err == MPI_SUCCESS && c->request != NULL)
        err = MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (err == MPI_SUCCESS && persistent)
        err = MPI_Request_free(&request);
    if (err != MPI_SUCCESS)
        fail("%s through MPI_* failed (%d)", sg_routines[c->routine].name, err);
}

static void compare(const char *name, const char *what, const unsigned char *plain,
                    const unsigned char *got, size_t bytes)
{
    ptrdiff_t at = first_difference(plain, got, bytes + 2 * MARGIN);
    if (at != PTRDIFF_MAX)
        fail("%s: the %s buffer differs from the plain call's at byte %td of %zu", name, what,
             at, bytes);
}

static void run(int which)
{
    struct setup s = {.types = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL,
                                MPI_DATATYPE_NULL},
                      .op = MPI_OP_NULL};
    cases[which].setup(&s);
    size_t send_size = s.send_bytes + 2 * MARGIN, recv_size = s.recv_bytes + 2 * MARGIN;
    unsigned char *send[2] = {malloc(send_size), malloc(send_size)};
    unsigned char *recv[2] = {malloc(recv_size), malloc(recv_size)};
    if (!send[0] || !send[1] || !recv[0] || !recv[1])
        fail("%s: out of memory", cases[which].name);
    state = 0x5eed0000u + (uint64_t)rank * 7919u + (uint64_t)which;
    for (size_t i = 0; i < send_size; i++)
        send[0][i] = (unsigned char)next_random();
    for (size_t i = 0; i < recv_size; i++)
        recv[0][i] = (unsigned char)next_random();
    memcpy(send[1], send[0], send_size);
    memcpy(recv[1], recv[0], recv_size);

    struct sg_call layer = s.call, plain = s.call;
    foreign_type = 0;
    call_through(&via_mpi, &layer, &s, send[0], recv[0]);
    call_through(&sg_pmpi, &plain, &s, send[1], recv[1]);
    if (foreign_type)
        fail("%s: the user op was given another datatype than the caller's",
             cases[which].name);
    compare(cases[which].name, "receive", recv[1], recv[0], s.recv_bytes);
    compare(cases[which].name, "send", send[1], send[0], s.send_bytes);
    free(send[0]);
    free(send[1]);
    free(recv[0]);
    free(recv[1]);
    for (int i = 0; i < 4; i++)
        if (s.types[i] != MPI_DATATYPE_NULL)
            MPI_Type_free(&s.types[i]);
    if (s.op != MPI_OP_NULL)
        MPI_Op_free(&s.op);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        fprintf(stderr, "sg_transparency: %s same\n", cases[which].name);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    if (procs != 4)
        fail("runs at P = 4 (the cases' types are per rank), not %d", procs);
    for (int a = 1; a < argc; a++) {
        size_t i = 0;
        while (i < CASES && strcmp(argv[a], cases[i].name) != 0)
            i++;
        if (i == CASES)
            fail("no case %s in this build", argv[a]);
    }
    for (size_t i = 0; i < CASES; i++) {
        int chosen = argc == 1;
        for (int a = 1; a < argc; a++)
            chosen |= strcmp(argv[a], cases[i].name) == 0;
        if (chosen)
            run((int)i);
    }
    if (intercomm != MPI_COMM_NULL)
        MPI_Comm_free(&intercomm);
    if (ring != MPI_COMM_NULL) {
        MPI_Comm_free(&ring);
        MPI_Comm_free(&graph);
    }
    MPI_Finalize();
    return 0;
}
