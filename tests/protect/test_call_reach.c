/* The hot path's one comparison is sound: for random calls of every
 * routine on every rank (random counts up to INT_MAX, datatypes of one,
 * two and mixed-size basic elements, of none, in place or not, each rank as
 * root), sg_call_reach is at least every trigger value of the call's shape
 * (n, nP, sn, snP) and keeps n under the Class X bound it stands for at any
 * measured (s, P); and it is exact (snP) where the call moves one predefined
 * type of the same count on each side, so the hot path stays tight.
 * Alltoallv's shape counts both rows, each in its own datatype, and
 * Alltoallw's and Neighbor_alltoallw's every block in the block's own
 * (random per block). The
 * neighbourhood collectives run over a periodic 2-D torus of the ranks
 * (four neighbours' blocks a side, P = 4 in their sense). */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "collective.h"
#include "detectors.h"

static uint64_t state = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static int random_count(void)
{
    switch (next_random() % 4) {
    case 0: return (int)(next_random() % 4);
    case 1: return (int)(next_random() % 100000);
    case 2: return (int)(next_random() % 100000000);
    default: return INT_MAX - (int)(next_random() % 1000);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int procs, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    state += (uint64_t)rank * 7919u;

    MPI_Datatype types[10] = {MPI_BYTE, MPI_INT, MPI_DOUBLE, MPI_SHORT_INT, MPI_2INT};
    int ntypes = 5;
    MPI_Type_contiguous(3, MPI_INT, &types[ntypes++]);
    MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &types[ntypes++]);
    int lengths[2] = {1, 1};
    MPI_Aint at[2] = {0, 8};
    MPI_Datatype members[2] = {MPI_CHAR, MPI_DOUBLE};
    MPI_Type_create_struct(2, lengths, at, members, &types[ntypes++]); /* 9 B, 2 elements */
    MPI_Type_create_resized(MPI_INT, 0, 16, &types[ntypes++]);
    MPI_Type_contiguous(0, MPI_INT, &types[ntypes++]); /* no element at all */
    for (int t = 5; t < ntypes; t++)
        MPI_Type_commit(&types[t]);
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Comm torus;
    MPI_Dims_create(procs, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &torus);
    enum { TORUS_NEIGHBOURS = 4 };

    int width = procs > TORUS_NEIGHBOURS ? procs : TORUS_NEIGHBOURS; /* any side's blocks */
    int *arrays[4];
    for (int a = 0; a < 4; a++)
        arrays[a] = malloc((size_t)width * sizeof(int));
    MPI_Datatype *block_types[2]; /* Alltoallw's, per block: send, receive */
    for (int a = 0; a < 2; a++)
        block_types[a] = malloc((size_t)width * sizeof(MPI_Datatype));
    int buffer, failures = 0, exact = 0, calls = 0;
    for (int trial = 0; trial < 20000 && failures < 10; trial++) {
        enum sg_routine r = (enum sg_routine)(next_random() % SG_ROUTINE_COUNT);
        const struct sg_routine_info *info = &sg_routines[r];
        int alike = next_random() % 2; /* one count and one type on both sides */
        MPI_Datatype send_type = types[next_random() % (uint64_t)ntypes];
        MPI_Datatype recv_type = alike ? send_type : types[next_random() % (uint64_t)ntypes];
        int count = random_count();
        int blocks = info->neighbours ? TORUS_NEIGHBOURS : procs;
        for (int a = 0; a < 4; a++)
            for (int i = 0; i < blocks; i++)
                arrays[a][i] = alike ? count : random_count();
        for (int i = 0; i < blocks; i++) {
            block_types[0][i] = alike ? send_type : types[next_random() % (uint64_t)ntypes];
            block_types[1][i] = alike ? send_type : types[next_random() % (uint64_t)ntypes];
        }
        struct sg_call c = {.routine = r, .sendbuf = &buffer, .sendcount = count,
                            .sendcounts = SG_COUNTS(arrays[0]), .sdispls = SG_DISPLS(arrays[1]),
                            .sendtype = send_type,
                            .recvbuf = &buffer, .recvcount = alike ? count : random_count(),
                            .recvcounts = SG_COUNTS(arrays[2]), .rdispls = SG_DISPLS(arrays[3]),
                            .recvtype = recv_type, .sendtypes = block_types[0],
                            .recvtypes = block_types[1], .op = MPI_SUM,
                            .root = info->rooted ? (int)(next_random() % (uint64_t)procs) : -1,
                            .comm = info->neighbours ? torus : MPI_COMM_WORLD};
        if (info->in_place && next_random() % 4 == 0) {
            if (info->in_place_side == SG_IN_PLACE_SEND)
                c.sendbuf = MPI_IN_PLACE;
            else
                c.recvbuf = MPI_IN_PLACE;
        }
        struct sg_shape sh;
        uint64_t reach;
        int is_root = c.root < 0 || c.root == rank;
        if (sg_call_shape(&c, &sh) != MPI_SUCCESS ||
            sg_call_reach(&c, procs, is_root, &reach) != MPI_SUCCESS) {
            fprintf(stderr, "rank %d: %s: the shape or the reach failed\n", rank, info->name);
            failures++;
            continue;
        }
        calls++;
        for (int f = SG_TRIGGER_SNP; f <= SG_TRIGGER_N; f++) {
            uint64_t value = sg_trigger_value((enum sg_trigger)f, sh.s, sh.n, sh.procs);
            if (value > reach) {
                fprintf(stderr,
                        "rank %d: %s: %s = %" PRIu64 " over the reach %" PRIu64
                        " (n=%" PRIu64 " s=%" PRIu64 " P=%d)\n",
                        rank, info->name, sg_trigger_name((enum sg_trigger)f), value, reach,
                        sh.n, sh.s, procs);
                failures++;
            }
        }
        int w = sg_routines[r].send == SG_SIDE_W;
        if (sg_blocking_form(r) == SG_MPI_Alltoallv ||
            sg_blocking_form(r) == SG_MPI_Neighbor_alltoallv || w) { /* both rows, own types */
            for (int row = 0; row < 2; row++) {
                if (c.sendbuf == MPI_IN_PLACE && row == 0)
                    continue; /* the receive row is both */
                struct sg_counts counts = row ? c.recvcounts : c.sendcounts;
                uint64_t elements, most = 0;
                for (int i = 0; i < blocks; i++) {
                    sg_type_elements(w ? block_types[row][i] : row ? recv_type : send_type,
                                     &elements);
                    uint64_t basic = (uint64_t)sg_count_at(counts, i) * elements;
                    most = basic > most ? basic : most;
                }
                if (most > sh.n) {
                    fprintf(stderr, "rank %d: %s: n=%" PRIu64 " under the %s row's %" PRIu64 "\n",
                            rank, info->name, sh.n, row ? "receive" : "send", most);
                    failures++;
                }
            }
        }
        uint64_t measured_s = 1 + next_random() % 64, measured_procs = 1 + next_random() % 64;
        if (sh.n > sg_x_effective_bound(reach, measured_s, measured_procs, sh.s, sh.procs, NULL)) {
            fprintf(stderr, "rank %d: %s: n=%" PRIu64 " over a Class X bound of the reach\n",
                    rank, info->name, sh.n);
            failures++;
        }
        /* tight where nothing is rounded: one predefined basic element, one
         * count on each side (not Reduce_scatter's vector of P results) */
        uint64_t snp = sg_trigger_value(SG_TRIGGER_SNP, sh.s, sh.n, sh.procs);
        if (alike && sh.elements == 1 && !info->reduction && !info->irregular) {
            exact++;
            if (reach != snp) {
                fprintf(stderr, "rank %d: %s: reach %" PRIu64 " is not snP = %" PRIu64 "\n",
                        rank, info->name, reach, snp);
                failures++;
            }
        }
    }
    int all_failures;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_call_reach: %d calls on rank 0 (%d checked for exactness), %d failures on "
               "all ranks\n",
               calls, exact, all_failures);
    for (int t = 5; t < ntypes; t++)
        MPI_Type_free(&types[t]);
    for (int a = 0; a < 4; a++)
        free(arrays[a]);
    for (int a = 0; a < 2; a++)
        free(block_types[a]);
    MPI_Comm_free(&torus);
    MPI_Finalize();
    return all_failures != 0 || exact == 0;
}
