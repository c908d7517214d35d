/* The side description of workarounds.h (sg_describe), and what the
 * workarounds ask of a call's datatypes and reduction. */
#include "workarounds.h"

#include "sides.h"

static int is_integer(MPI_Datatype type)
{
    const MPI_Datatype integers[] = {
        MPI_INT, MPI_LONG, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
        MPI_LONG_LONG_INT, MPI_UNSIGNED_LONG_LONG, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR,
        MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T,
        MPI_UINT32_T, MPI_UINT64_T, MPI_INTEGER, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4,
        MPI_INTEGER8, MPI_AINT, MPI_OFFSET, MPI_COUNT};
    for (size_t i = 0; i < sizeof integers / sizeof *integers; i++)
        if (type == integers[i])
            return 1;
    return 0;
}

static int predefined(MPI_Datatype type)
{
    int integers, addresses, types, combiner;
    return PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner) ==
               MPI_SUCCESS &&
           combiner == MPI_COMBINER_NAMED;
}

const char *sg_split_risk(const struct sg_call *c)
{
    if (!is_reduction(c->routine))
        return NULL;
    MPI_Op op = c->op;
    MPI_Datatype type = c->sendtype;
    const char *rounding = "the grouping of its operands could change rounding";
    const char *zeros = "MIN/MAX of floating values depend on the grouping (signed zeros, NaNs)";
    if (!predefined(type))
        return "its datatype is not predefined, so its operation is the user's";
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR || op == MPI_BAND || op == MPI_BOR ||
        op == MPI_BXOR)
        return NULL;
    if (op == MPI_MINLOC || op == MPI_MAXLOC)
        return type == MPI_2INT || type == MPI_SHORT_INT || type == MPI_LONG_INT ||
                       type == MPI_2INTEGER
                   ? NULL
                   : zeros;
    if (op == MPI_MIN || op == MPI_MAX)
        return is_integer(type) ? NULL : zeros;
    if (op == MPI_SUM || op == MPI_PROD)
        return is_integer(type) ? NULL : rounding;
    return "a user-defined operation need not be exact in another grouping";
}

int sg_type_gapless(MPI_Datatype type)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    int size;
    return PMPI_Type_get_extent(type, &lb, &extent) == MPI_SUCCESS &&
           PMPI_Type_get_true_extent(type, &true_lb, &true_extent) == MPI_SUCCESS &&
           PMPI_Type_size(type, &size) == MPI_SUCCESS && lb == 0 && true_lb == 0 &&
           extent == size && true_extent == size;
}

int64_t sg_copy_bytes(int64_t from_count, MPI_Datatype from_type, int64_t to_count,
                      MPI_Datatype to_type)
{
    int from_size, to_size;
    if (!sg_type_gapless(from_type) || !sg_type_gapless(to_type) ||
        PMPI_Type_size(from_type, &from_size) != MPI_SUCCESS ||
        PMPI_Type_size(to_type, &to_size) != MPI_SUCCESS ||
        from_count * from_size != to_count * to_size)
        return -1;
    if (from_type != to_type && !(predefined(from_type) && predefined(to_type)))
        return -1;
    return from_count * from_size;
}

static struct sg_side side_of(const struct sg_call_side *s, const int64_t *displs, int rank,
                              int by_basic, enum sg_routine routine)
{
    int single = s->layout == SG_SIDE_SINGLE;
    uint64_t unit = 1;
    if (by_basic && s->layout != SG_SIDE_NONE && s->layout != SG_SIDE_W &&
        sg_type_elements(s->type, &unit) != MPI_SUCCESS)
        unit = 1;
    return (struct sg_side){.layout = s->layout, .in_place = s->in_place, .blocks = s->blocks,
                            .count = single ? sg_single_count(s, rank) : s->count,
                            .counts = single ? (struct sg_counts){0} : s->counts,
                            .displs = s->layout == SG_SIDE_V || s->layout == SG_SIDE_W
                                          ? displs
                                          : NULL,
                            .type = s->type,
                            .types = s->types, .unit = unit,
                            .large = sg_is_large_count(routine),
                            .aint_displs = sg_displs_are_aint(routine)};
}

void sg_describe(const struct sg_call *c, int procs, int rank, const int64_t *send_displs,
                 const int64_t *recv_displs, struct sg_described *d)
{
    const struct sg_routine_info *info = &sg_routines[c->routine];
    struct sg_call_side send, recv;
    sg_call_sides(c, c->root < 0 || c->root == rank, procs, &send, &recv);
    d->procs = procs;
    d->neighbours = info->neighbours;
    d->trigger_procs = sg_call_procs(c, procs);
    d->per_block_factor = send.layout == SG_SIDE_PACKED ? send.blocks : 1;
    d->pairwise = info->pairwise;
    d->regular = info->v_form != c->routine && !is_reduction(c->routine);
    d->block_bytes = 0;
    /* by the routine's row, not this rank's sides: the same on every rank */
    d->by_basic = !is_reduction(c->routine) && !info->irregular;
    d->send = side_of(&send, send_displs, rank, d->by_basic, c->routine);
    d->recv = side_of(&recv, recv_displs, rank, d->by_basic, c->routine);
    if (d->regular) {
        const struct sg_side *side = block_side(d);
        if (side->layout != SG_SIDE_NONE)
            d->block_bytes = (int64_t)side->count * (int64_t)type_size(side->type);
    }
}
