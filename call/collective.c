/* The description of the collectives: entry-point tables, replay, shape. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "collective.h"

#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>

struct sg_world sg_world;

/* Read by the stubs of every wrapper library (foreign.h); set by
 * libscaleguard.so's check at load time (foreign.c) only. */
unsigned char sg_foreign_mpi;

const struct sg_entry_points sg_pmpi = {
#define SG_PMPI_ENTRY(Name, params, args, ...) .Name = PMPI_##Name,
    SG_COLLECTIVES(SG_PMPI_ENTRY)
#undef SG_PMPI_ENTRY
};

int sg_entry_points_next(struct sg_entry_points *table, const char **missing)
{
#define SG_NEXT_ENTRY(Name, params, args, ...)                               \
    {                                                                        \
        void *symbol = dlsym(RTLD_NEXT, "PMPI_" #Name);                      \
        if (symbol == NULL) {                                                \
            *missing = "PMPI_" #Name;                                        \
            return -1;                                                       \
        }                                                                    \
        /* POSIX guarantees data and function pointers convert (dlsym) */    \
        *(void **)&table->Name = symbol;                                     \
    }
    SG_COLLECTIVES(SG_NEXT_ENTRY)
#undef SG_NEXT_ENTRY
    return 0;
}

int sg_call_invoke(const struct sg_entry_points *table, const struct sg_call *c)
{
    switch (c->routine) {
#define SG_INVOKE_CASE(Name, params, args, ...) \
    case SG_MPI_##Name: return table->Name args;
        SG_COLLECTIVES(SG_INVOKE_CASE)
#undef SG_INVOKE_CASE
    case SG_ROUTINE_COUNT: break;
    }
    return MPI_ERR_INTERN;
}

static int fits_int(int64_t value) { return value >= INT_MIN && value <= INT_MAX; }

/* Copy a call's array into `into` as ints, where each of the `procs`
 * fits; returns 0, or -1. */
static int narrow_counts(struct sg_counts a, int procs, int *into, struct sg_counts *to)
{
    for (int i = 0; a.wide && i < procs; i++) {
        if (!fits_int(a.wide[i]))
            return -1;
        if (into)
            into[i] = (int)a.wide[i];
    }
    if (into && a.wide)
        *to = SG_COUNTS(into);
    return 0;
}

static int narrow_displs(struct sg_displs_array a, int procs, int *into,
                         struct sg_displs_array *to)
{
    for (int i = 0; a.wide && i < procs; i++) {
        if (!fits_int(a.wide[i]))
            return -1;
        if (into)
            into[i] = (int)a.wide[i];
    }
    if (into && a.wide)
        *to = SG_DISPLS(into);
    return 0;
}

int sg_call_narrow(const struct sg_call *c, int procs, int *ints, struct sg_call *narrow)
{
    int form = sg_in_count_form(c->routine, 0);
    struct sg_call n = *c; /* its displacements stay where the int form takes MPI_Aint
                            * ones too (Neighbor_alltoallw) */
    int aint = form >= 0 && sg_displs_are_aint((enum sg_routine)form);
    if (!fits_int(c->sendcount) || !fits_int(c->recvcount) || form < 0 ||
        narrow_counts(c->sendcounts, procs, ints, &n.sendcounts) != 0 ||
        (!aint &&
         narrow_displs(c->sdispls, procs, ints ? ints + procs : NULL, &n.sdispls) != 0) ||
        narrow_counts(c->recvcounts, procs, ints ? ints + 2 * procs : NULL, &n.recvcounts) != 0 ||
        (!aint &&
         narrow_displs(c->rdispls, procs, ints ? ints + 3 * procs : NULL, &n.rdispls) != 0))
        return -1;
    n.routine = (enum sg_routine)form;
    if (narrow)
        *narrow = n;
    return 0;
}

static uint64_t count_of(MPI_Count count) { return count > 0 ? (uint64_t)count : 0; }

/* The count of one message on a side: a block's, the largest block's, or the
 * whole vector that Reduce_scatter reduces. */
static uint64_t message_count(const struct sg_call_side *side, int rank)
{
    uint64_t n = 0;
    switch (side->layout) {
    case SG_SIDE_SINGLE:
        return count_of(sg_single_count(side, rank));
    case SG_SIDE_V:
        for (int i = 0; i < side->blocks; i++) {
            uint64_t block = count_of(sg_count_at(side->counts, i));
            n = block > n ? block : n;
        }
        return n;
    case SG_SIDE_PACKED:
        if (!sg_counts_given(side->counts))
            return count_of(side->count) * (uint64_t)side->blocks;
        for (int i = 0; i < side->blocks; i++)
            n += count_of(sg_count_at(side->counts, i));
        return n;
    default:
        return count_of(side->count);
    }
}

/* Alltoallw's shape: its largest block in basic elements of the block's
 * own datatype, of either side (as the rank at its other end sees it too),
 * and the span of the signature lengths of its blocks' datatypes (of those
 * that hold data: a rank's empty blocks move nothing to cut). */
static int w_shape(const struct sg_call_side *send, const struct sg_call_side *recv,
                   struct sg_shape *shape)
{
    const struct sg_call_side *sides[2] = {send, recv};
    unsigned __int128 most = 0;
    uint64_t count = 0, elements = 1, least = UINT64_MAX, greatest = 0;
    int size = 0, err;
    for (int k = 0; k < 2; k++) {
        if (sides[k]->layout != SG_SIDE_W)
            continue;
        for (int i = 0; i < sides[k]->blocks; i++) {
            int block_size;
            uint64_t block_elements;
            MPI_Count block = sg_count_at(sides[k]->counts, i);
            if (block <= 0)
                continue;
            if ((err = sg_type_measure(sides[k]->types[i], &block_size, &block_elements)) !=
                MPI_SUCCESS)
                return err;
            least = block_elements < least ? block_elements : least;
            greatest = block_elements > greatest ? block_elements : greatest;
            unsigned __int128 basic = (unsigned __int128)block * block_elements;
            if (count == 0 || basic > most) {
                most = basic;
                count = (uint64_t)block;
                size = block_size;
                elements = block_elements;
            }
        }
    }
    shape->elements = elements;
    /* no block of data: no datatype for the ranks to compare, a span that
     * their MAX of the largest and the negated smallest leaves out */
    shape->elements_min = count ? least : INT64_MAX;
    shape->elements_max = count ? greatest : 0;
    shape->count = count;
    shape->size = (uint64_t)size;
    sg_in_basic_elements(count, (uint64_t)size, elements, &shape->n, &shape->s);
    return MPI_SUCCESS;
}

int sg_call_shape(const struct sg_call *c, struct sg_shape *shape)
{
    int procs, rank, err;
    if ((err = sg_comm_size_rank(c->comm, &procs, &rank)) != MPI_SUCCESS)
        return err;
    *shape = (struct sg_shape){.procs = (uint64_t)sg_call_procs(c, procs), .rank = rank};
    shape->is_root = c->root < 0 || c->root == rank;

    /* The side that describes the message on this rank: one of P blocks
     * where this rank has one (the receive side first), else its own block
     * (the receive side where it has one). */
    struct sg_call_side send, recv;
    sg_call_sides(c, shape->is_root, procs, &send, &recv);
    if (send.layout == SG_SIDE_W || recv.layout == SG_SIDE_W)
        return w_shape(&send, &recv, shape);
    int recv_blocks = recv.layout >= SG_SIDE_REGULAR, send_blocks = send.layout >= SG_SIDE_REGULAR;
    const struct sg_call_side *side =
        recv_blocks || (!send_blocks && recv.layout != SG_SIDE_NONE) ? &recv : &send;
    uint64_t n = message_count(side, rank);
    int size;
    uint64_t elements, other;
    if ((err = sg_type_measure(side->type, &size, &elements)) != MPI_SUCCESS)
        return err;
    if (recv.layout == SG_SIDE_V && send.layout == SG_SIDE_V) {
        /* Alltoallv: both rows, as the rank at a block's other end sees it
         * too, each in basic elements of its own datatype */
        uint64_t sent = message_count(&send, rank), sent_elements;
        int sent_size;
        if ((err = sg_type_measure(send.type, &sent_size, &sent_elements)) != MPI_SUCCESS)
            return err;
        unsigned __int128 sent_basic = (unsigned __int128)sent * sent_elements;
        if (sent_basic > (unsigned __int128)n * elements) {
            side = &send;
            n = sent;
            size = sent_size;
            elements = sent_elements;
        }
    }
    shape->elements = shape->elements_min = shape->elements_max = elements;
    const struct sg_call_side *more = side == &recv ? &send : &recv;
    if (more->layout != SG_SIDE_NONE && !more->in_place && more->type != side->type) {
        if ((err = sg_type_elements(more->type, &other)) != MPI_SUCCESS)
            return err;
        shape->elements_min = other < elements ? other : elements;
        shape->elements_max = other > elements ? other : elements;
    }
    shape->count = n;
    shape->size = (uint64_t)size;
    sg_in_basic_elements(n, (uint64_t)size, elements, &shape->n, &shape->s);
    return MPI_SUCCESS;
}

int sg_call_reach(const struct sg_call *c, int procs, int is_root, uint64_t *reach)
{
    struct sg_call_side sides[2];
    sg_call_sides(c, is_root, procs, &sides[0], &sides[1]);
    const struct sg_call_side *measured = NULL; /* the side whose type size and elements hold */
    uint64_t most = 0, elements = 0;
    int size = 0, err;
    for (int i = 0; i < 2; i++) {
        const struct sg_call_side *side = &sides[i];
        /* Reduce_scatter's result (SINGLE with counts) is a part of its input */
        if (side->layout == SG_SIDE_NONE ||
            (side->layout == SG_SIDE_SINGLE && sg_counts_given(side->counts)))
            continue;
        if (side->layout == SG_SIDE_W) { /* each block in its own datatype */
            for (int b = 0; b < side->blocks; b++) {
                uint64_t of_block = 0;
                MPI_Count block = sg_count_at(side->counts, b);
                if (block <= 0)
                    continue;
                if ((err = sg_type_measure(side->types[b], &size, &elements)) != MPI_SUCCESS)
                    return err;
                if (elements > 0 &&
                    __builtin_mul_overflow((uint64_t)block,
                                           (uint64_t)size + elements - 1, &of_block))
                    of_block = UINT64_MAX;
                most = of_block > most ? of_block : most;
            }
            measured = NULL;
            continue;
        }
        if (measured == NULL || side->type != measured->type) {
            if ((err = sg_type_measure(side->type, &size, &elements)) != MPI_SUCCESS)
                return err;
            measured = side;
        }
        /* count x (size + elements - 1) is at least n and s n of the side's
         * message: a basic element has a byte, and s is size/elements
         * rounded up */
        uint64_t of_one, of_side;
        if (elements == 0)
            continue;
        if (__builtin_add_overflow((uint64_t)size, elements - 1, &of_one) ||
            __builtin_mul_overflow(message_count(side, -1), of_one, &of_side))
            of_side = UINT64_MAX;
        most = of_side > most ? of_side : most;
    }
    if (__builtin_mul_overflow(most, (uint64_t)sg_call_procs(c, procs), reach))
        *reach = UINT64_MAX;
    return MPI_SUCCESS;
}
