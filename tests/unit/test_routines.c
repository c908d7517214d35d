/* The routine table (detectors/routines.h) is consistent: 21 families, each
 * in every form of SG_FORM_LIST (blocking, I-form; with large counts, the
 * `_c` and I..._c forms where the MPI has them: SCALEGUARD_LARGE_COUNT; the
 * persistent `_init` form, and `_init_c` with large counts too, where it
 * has them: SCALEGUARD_PERSISTENT), a family's forms next to each other and
 * named from the blocking name (MPI_I + the blocking name, lower-cased
 * after the I; `_init` after the blocking one; `_c` after any), the forms
 * told apart by sg_form_of, sg_is_nonblocking, sg_is_large_count and
 * sg_is_persistent alone, sg_in_form_of, sg_form_with and sg_in_count_form
 * moving between them; a v-form is
 * its own v-form, of the same form, and reduces where the routine does,
 * delivering the same; every form of a family has the family's row; only a
 * v-routine's layout can be seen by fewer than all ranks, and only a rooted
 * one's by the root alone; names round-trip through sg_routine_by_name;
 * what follows from the layouts (displacement sides, who sees the layout,
 * pairwise, Table V's global buffer; a reduction, a prefix, MPI_IN_PLACE on
 * every rank or none; blocks per neighbour; displacements MPI_Aint in every
 * form) is what the routines are. */
#include <ctype.h>

#include "check.h"
#include "routines.h"

/* The forms this tree has, in SG_FORM_LIST's order. */
static const struct form {
    int nonblocking, large, persistent;
} forms[] = {
    {0, 0, 0}, {1, 0, 0},
#if SCALEGUARD_LARGE_COUNT
    {0, 1, 0}, {1, 1, 0},
#endif
#if SCALEGUARD_PERSISTENT
    {0, 0, 1},
#endif
#if SCALEGUARD_PERSISTENT && SCALEGUARD_LARGE_COUNT
    {0, 1, 1},
#endif
};

/* The form of these three, or -1. */
static int form_of(int nonblocking, int large, int persistent)
{
    for (int f = 0; f < (int)(sizeof forms / sizeof *forms); f++)
        if (forms[f].nonblocking == nonblocking && forms[f].large == large &&
            forms[f].persistent == persistent)
            return f;
    return -1;
}

int main(void)
{
    CHECK_U64(SG_FORM_COUNT, sizeof forms / sizeof *forms);
    CHECK_U64(SG_FORM_COUNT, 2 + 2 * SCALEGUARD_LARGE_COUNT +
                                 SCALEGUARD_PERSISTENT * (1 + SCALEGUARD_LARGE_COUNT));
    CHECK_U64(SG_ROUTINE_COUNT, 21 * SG_FORM_COUNT);
    for (int r = 0; r < SG_ROUTINE_COUNT; r++) {
        const struct sg_routine_info *info = &sg_routines[r];
        enum sg_routine routine = (enum sg_routine)r;
        int form = r % SG_FORM_COUNT, nonblocking = forms[form].nonblocking,
            large = forms[form].large, persistent = forms[form].persistent;
        enum sg_routine blocking = (enum sg_routine)(r - form);
        int int_form = form_of(nonblocking, 0, persistent),
            large_form = form_of(nonblocking, 1, persistent);
        CHECK_U64(sg_routine_by_name(info->name), r);
        CHECK(strncmp(info->name, "MPI_", 4) == 0);
        CHECK_U64(sg_form_of(routine), form);
        CHECK_U64(sg_is_nonblocking(routine), nonblocking);
        CHECK_U64(sg_is_large_count(routine), large);
        CHECK_U64(sg_is_persistent(routine), persistent);
        CHECK_U64(sg_blocking_form(routine), blocking);
        CHECK_U64(sg_in_form_of(routine, SG_MPI_Ibcast), blocking + 1);
        CHECK_U64(sg_in_form_of(routine, SG_MPI_Bcast), blocking);
        CHECK_U64(sg_in_count_form(routine, 0), blocking + int_form);
        CHECK_U64(sg_form_with(routine, 1, 0), blocking + 1);
        CHECK_U64(sg_in_count_form(routine, 1),
                  large_form >= 0 ? (uint64_t)(blocking + large_form) : (uint64_t)-1);
        const char *b = sg_routines[blocking].name;
        char expected[64];
        snprintf(expected, sizeof expected, "%s%c%s%s%s", nonblocking ? "MPI_I" : "MPI_",
                 nonblocking ? tolower((unsigned char)b[4]) : b[4], b + 5,
                 persistent ? "_init" : "", large ? "_c" : "");
        CHECK_STR(info->name, expected);
        const struct sg_routine_info *of_b = &sg_routines[blocking];
        CHECK(info->global_buffer == of_b->global_buffer && info->irregular == of_b->irregular &&
              info->in_place == of_b->in_place && info->rooted == of_b->rooted &&
              info->reduces == of_b->reduces && info->knows == of_b->knows &&
              info->send == of_b->send && info->recv == of_b->recv &&
              info->neighbours == of_b->neighbours && info->aint_displs == of_b->aint_displs &&
              info->v_form == sg_in_form_of(of_b->v_form, routine));
        const struct sg_routine_info *v = &sg_routines[info->v_form];
        CHECK_U64(v->v_form, info->v_form); /* a v-form is its own */
        CHECK_U64(sg_form_of(info->v_form), form);
        CHECK_U64(v->reduces, info->reduces);
        CHECK(info->knows == SG_KNOWS_ALL || info->irregular);
        CHECK(info->knows != SG_KNOWS_ROOT || info->rooted);
    }
    /* what follows from the rows' layouts */
    for (int r = 0; r < SG_ROUTINE_COUNT; r++) {
        const struct sg_routine_info *info = &sg_routines[r];
        /* displacements: V sides, and W sides (Alltoallw's, in bytes) */
        int send_v = info->send == SG_SIDE_V || info->send == SG_SIDE_W;
        int recv_v = info->recv == SG_SIDE_V || info->recv == SG_SIDE_W;
        CHECK_U64(info->irregular, send_v || recv_v);
        CHECK_U64(info->displs, send_v * SG_DISPLS_SEND | recv_v * SG_DISPLS_RECV);
        CHECK_U64(info->reduction, info->reduces != SG_REDUCES_NONE);
        CHECK_U64(info->prefix, info->reduces == SG_REDUCES_PREFIX ||
                                    info->reduces == SG_REDUCES_EXCLUSIVE_PREFIX);
        CHECK_U64(info->in_place_alike, info->in_place && !info->rooted && !info->prefix);
        CHECK(info->reduces != SG_REDUCES_TO_ROOT || info->rooted);
        CHECK_U64(info->neighbours, info->blocks == SG_BLOCKS_NEIGHBOURS);
        /* a neighbourhood's blocks meet where the topology puts them: no
         * root, no MPI_IN_PLACE, not pairwise by rank */
        CHECK(!info->neighbours || (!info->rooted && !info->in_place && !info->pairwise));
    }
    /* what each reduction delivers */
    CHECK_U64(sg_routines[SG_MPI_Ireduce].reduces, SG_REDUCES_TO_ROOT);
    CHECK_U64(sg_routines[SG_MPI_Allreduce].reduces, SG_REDUCES_TO_ALL);
    CHECK_U64(sg_routines[SG_MPI_Reduce_scatter_block].reduces, SG_REDUCES_SCATTERED);
    CHECK_U64(sg_routines[SG_MPI_Iscan].reduces, SG_REDUCES_PREFIX);
    CHECK_U64(sg_routines[SG_MPI_Exscan].reduces, SG_REDUCES_EXCLUSIVE_PREFIX);
    CHECK_U64(sg_routines[SG_MPI_Gatherv].reduces, SG_REDUCES_NONE);
    CHECK(sg_routines[SG_MPI_Iallreduce].in_place_alike);
    CHECK(!sg_routines[SG_MPI_Scan].in_place_alike && !sg_routines[SG_MPI_Iexscan].in_place_alike);
    CHECK(!sg_routines[SG_MPI_Reduce].in_place_alike);
    CHECK_U64(sg_routines[SG_MPI_Gather].knows, SG_KNOWS_ALL);
    CHECK_U64(sg_routines[SG_MPI_Igatherv].knows, SG_KNOWS_ROOT);
    CHECK_U64(sg_routines[SG_MPI_Scatterv].knows, SG_KNOWS_ROOT);
    CHECK_U64(sg_routines[SG_MPI_Allgatherv].knows, SG_KNOWS_OWN);
    CHECK_U64(sg_routines[SG_MPI_Alltoallv].knows, SG_KNOWS_OWN);
    CHECK_U64(sg_routines[SG_MPI_Alltoallv].displs, SG_DISPLS_BOTH);
    CHECK_U64(sg_routines[SG_MPI_Ialltoallw].knows, SG_KNOWS_OWN);
    CHECK_U64(sg_routines[SG_MPI_Alltoallw].displs, SG_DISPLS_BOTH);
    CHECK(sg_routines[SG_MPI_Alltoallw].pairwise && sg_routines[SG_MPI_Ialltoallw].in_place);
    CHECK_U64(sg_routines[SG_MPI_Alltoallw].send, SG_SIDE_W);
    CHECK_U64(sg_routines[SG_MPI_Ialltoallw].v_form, SG_MPI_Ialltoallw);
    CHECK(sg_routines[SG_MPI_Alltoall].pairwise && sg_routines[SG_MPI_Ialltoallv].pairwise);
    CHECK(!sg_routines[SG_MPI_Allgather].pairwise && !sg_routines[SG_MPI_Reduce_scatter].pairwise);
    CHECK(sg_routines[SG_MPI_Iscatter].global_buffer == SG_GLOBAL_SNP &&
          sg_routines[SG_MPI_Allreduce].global_buffer == SG_GLOBAL_SN &&
          sg_routines[SG_MPI_Reduce_scatter_block].global_buffer == SG_GLOBAL_SN);
    CHECK_U64(sg_routines[SG_MPI_Scatter].v_form, SG_MPI_Scatterv);
    CHECK_U64(sg_routines[SG_MPI_Ireduce_scatter_block].v_form, SG_MPI_Ireduce_scatter);
    CHECK_U64(sg_routines[SG_MPI_Scan].v_form, SG_MPI_Scan);
    CHECK_U64(sg_routines[SG_MPI_Iexscan].v_form, SG_MPI_Iexscan);
    CHECK_U64(sg_routine_by_name("MPI_Exscan"), SG_MPI_Exscan);
#if SCALEGUARD_PERSISTENT
    CHECK_U64(sg_routine_by_name("MPI_Scan_init"), SG_MPI_Scan_init);
    CHECK_U64(sg_routines[SG_MPI_Scatter_init].v_form, SG_MPI_Scatterv_init);
    CHECK_U64(sg_form_with(SG_MPI_Scatter_init, 1, 0), SG_MPI_Iscatter);
#else
    CHECK_U64(sg_routine_by_name("MPI_Scan_init"), (uint64_t)-1);
#endif
#if SCALEGUARD_PERSISTENT && SCALEGUARD_LARGE_COUNT
    CHECK_U64(sg_in_count_form(SG_MPI_Gatherv_init, 1), SG_MPI_Gatherv_init_c);
    CHECK_U64(sg_form_with(SG_MPI_Gatherv_init_c, 1, 1), SG_MPI_Igatherv_c);
#endif
#if SCALEGUARD_LARGE_COUNT
    CHECK_U64(sg_routine_by_name("MPI_Iscatter_c"), SG_MPI_Iscatter_c);
    CHECK_U64(sg_routines[SG_MPI_Scatter_c].v_form, SG_MPI_Scatterv_c);
    CHECK_U64(sg_in_count_form(SG_MPI_Igatherv, 1), SG_MPI_Igatherv_c);
    CHECK_U64(sg_routines[SG_MPI_Ineighbor_alltoall_c].v_form, SG_MPI_Ineighbor_alltoallv_c);
#else
    CHECK_U64(sg_routine_by_name("MPI_Scatter_c"), (uint64_t)-1);
#endif
    /* the neighbourhood collectives: blocks per neighbour */
    CHECK(sg_routines[SG_MPI_Ineighbor_allgather].neighbours &&
          !sg_routines[SG_MPI_Alltoall].neighbours);
    CHECK_U64(sg_routines[SG_MPI_Neighbor_alltoall].v_form, SG_MPI_Neighbor_alltoallv);
    CHECK_U64(sg_routines[SG_MPI_Ineighbor_allgather].v_form, SG_MPI_Ineighbor_allgatherv);
    CHECK_U64(sg_routines[SG_MPI_Neighbor_allgatherv].knows, SG_KNOWS_OWN);
    CHECK_U64(sg_routines[SG_MPI_Neighbor_alltoallv].displs, SG_DISPLS_BOTH);
    /* Neighbor_alltoallw: W sides per neighbour, MPI_Aint displacements in
     * every form (no Class D), unlike Alltoallw's int ones */
    CHECK_U64(sg_routines[SG_MPI_Ineighbor_alltoallw].send, SG_SIDE_W);
    CHECK_U64(sg_routines[SG_MPI_Neighbor_alltoallw].displs, SG_DISPLS_BOTH);
    CHECK(sg_routines[SG_MPI_Neighbor_alltoallw].neighbours &&
          !sg_routines[SG_MPI_Neighbor_alltoallw].pairwise);
    CHECK(sg_displs_are_aint(SG_MPI_Neighbor_alltoallw) &&
          sg_displs_are_aint(SG_MPI_Ineighbor_alltoallw));
    CHECK(!sg_displs_are_aint(SG_MPI_Alltoallw) && !sg_displs_are_aint(SG_MPI_Neighbor_alltoallv));
    for (int r = 0; r < SG_ROUTINE_COUNT; r++)
        CHECK_U64(sg_routines[r].aint_displs,
                  sg_blocking_form((enum sg_routine)r) == SG_MPI_Neighbor_alltoallw);
    return check_exit();
}
