/* Every intercepted collective, described once.
 *
 * A call is captured into a `struct sg_call` (one layout for every
 * routine), and can be replayed through any table of entry points: the real
 * PMPI functions, or the next library in the preload chain. Wrapper
 * libraries (libscaleguard.so, the fault-injecting test preload) instantiate
 * SG_COLLECTIVES with their own handler instead of copying their signatures. */
#ifndef SCALEGUARD_COLLECTIVE_H
#define SCALEGUARD_COLLECTIVE_H

#include <mpi.h>
#include <stdint.h>

#include "foreign.h"
#include "neighbours.h"
#include "routines.h"
#include "signature.h"

/* This code's thread-locals. It lives in a preloaded or linked library or a
 * program, never a dlopened one (a dlopened PMPI layer would interpose
 * nothing), so its thread-locals sit in the static TLS block, which a
 * wrapper reads with one load instead of a __tls_get_addr call. */
#define SG_THREAD_LOCAL _Thread_local __attribute__((tls_model("initial-exec")))

/* A call's array of counts, or of displacements: C int for the forms
 * with int counts, MPI_Count (counts) or MPI_Aint (displacements) for the
 * large-count `_c` forms; one of the two members is set, or none where
 * the call has no such array. Read an element through sg_count_at or
 * sg_displ_at, never by a cast; make one with SG_COUNTS or SG_DISPLS. */
struct sg_counts {
    const int *of_int;
    const MPI_Count *wide;
};
struct sg_displs_array {
    const int *of_int;
    const MPI_Aint *wide;
};

static inline int sg_counts_given(struct sg_counts a) { return a.of_int || a.wide; }
static inline int sg_displs_given(struct sg_displs_array a) { return a.of_int || a.wide; }
static inline MPI_Count sg_count_at(struct sg_counts a, int i)
{
    return a.of_int ? a.of_int[i] : a.wide[i];
}
static inline MPI_Aint sg_displ_at(struct sg_displs_array a, int i)
{
    return a.of_int ? a.of_int[i] : a.wide[i];
}
/* The array from element `first` on (a part of Reduce_scatter's counts). */
static inline struct sg_counts sg_counts_from(struct sg_counts a, int first)
{
    return (struct sg_counts){a.of_int ? a.of_int + first : 0, a.wide ? a.wide + first : 0};
}
static inline struct sg_counts sg_counts_of_int(const int *a) { return (struct sg_counts){a, 0}; }
static inline struct sg_counts sg_counts_wide(const MPI_Count *a)
{
    return (struct sg_counts){0, a};
}
static inline struct sg_displs_array sg_displs_of_int(const int *a)
{
    return (struct sg_displs_array){a, 0};
}
static inline struct sg_displs_array sg_displs_wide(const MPI_Aint *a)
{
    return (struct sg_displs_array){0, a};
}
#define SG_COUNTS(a)                                                                           \
    _Generic((a), int *: sg_counts_of_int, const int *: sg_counts_of_int,                      \
             MPI_Count *: sg_counts_wide, const MPI_Count *: sg_counts_wide)(a)
#define SG_DISPLS(a)                                                                           \
    _Generic((a), int *: sg_displs_of_int, const int *: sg_displs_of_int,                      \
             MPI_Aint *: sg_displs_wide, const MPI_Aint *: sg_displs_wide)(a)

/* A call of any form: its scalar counts in MPI_Count (an int count widens
 * for free), its arrays of either width (sg_counts). */
struct sg_call {
    enum sg_routine routine;
    const void *sendbuf;
    MPI_Count sendcount;   /* Bcast: count; reductions: count (or recvcount) */
    struct sg_counts sendcounts;    /* Scatterv, Alltoallv(w), Neighbor_alltoallv(w) */
    struct sg_displs_array sdispls; /* Scatterv, Alltoallv; the W sides' (Alltoallw,
                                     * Neighbor_alltoallw: MPI_Aint in every form) in bytes */
    MPI_Datatype sendtype; /* reductions and Bcast: the datatype; W sides: NULL */
    const MPI_Datatype *sendtypes; /* W sides: each block's */
    void *recvbuf;         /* Bcast: the buffer */
    MPI_Count recvcount;
    struct sg_counts recvcounts;    /* Gatherv, Allgatherv, Alltoallv(w), Reduce_scatter,
                                     * their neighbourhood forms */
    struct sg_displs_array rdispls; /* Gatherv, Allgatherv, Alltoallv; W sides: in bytes */
    MPI_Datatype recvtype; /* W sides: MPI_DATATYPE_NULL */
    const MPI_Datatype *recvtypes; /* W sides: each block's */
    MPI_Op op;
    int root;
    MPI_Comm comm;
    MPI_Info info;        /* persistent forms only */
    MPI_Request *request; /* non-blocking and persistent forms only */
    int persistent_plan;  /* the layer's plan of a persistent call, in its I-form: made at
                           * the `_init`, run at each MPI_Start */
};

/* The routine the application called, which the layer names and counts:
 * a persistent call's plan is in its I-form (persistent_plan). */
static inline enum sg_routine sg_called(const struct sg_call *c)
{
    int form = c->persistent_plan
                   ? sg_form_like(c->routine, 0, sg_is_large_count(c->routine), 1)
                   : -1;
    return form >= 0 ? (enum sg_routine)form : c->routine;
}

/* SG_COLLECTIVES(X) expands X(Name, (parameters), (arguments from a
 * struct sg_call *c), initialisers of struct sg_call) for every routine
 * (each family in each form of SG_FORM_LIST), from the rows of
 * SG_FAMILY_LIST (routines.h). SG_INT_COUNT_COLLECTIVES(X): the same for
 * the forms with int counts only (the Fortran bindings' of mpif.h and the
 * mpi module). */
#define SG_COLLECTIVES(X) SG_FAMILY_LIST(SG_COLLECTIVE_FORMS, X)
#define SG_COLLECTIVE_FORMS(X, b, i, send, recv, ip, root, red, blocks, vb, vi, params, args,  \
                            params_c, args_c, ...)                                             \
    SG_FORM_LIST(SG_COLLECTIVE_FORM, X, b, i, params, args, params_c, args_c, __VA_ARGS__)
#define SG_INT_COUNT_COLLECTIVES(X) SG_FAMILY_LIST(SG_INT_COUNT_COLLECTIVE_FORMS, X)
#define SG_INT_COUNT_COLLECTIVE_FORMS(X, b, i, send, recv, ip, root, red, blocks, vb, vi,       \
                                      params, args, params_c, args_c, ...)                     \
    SG_COLLECTIVE_FORM(BLOCKING, 0, 0, 0, X, b, i, params, args, params_c, args_c, __VA_ARGS__) \
    SG_COLLECTIVE_FORM(NONBLOCKING, 1, 0, 0, X, b, i, params, args, params_c, args_c,          \
                       __VA_ARGS__)
#define SG_COLLECTIVE_FORM(form, nonblocking, large, persistent, X, b, i, params, args,        \
                           params_c, args_c, ...)                                              \
    SG_EXPANDED(X, SG_FORM_NAME_##form(b, i),                                                  \
                SG_COLLECTIVE_SIGNATURE_##form(params, args, params_c, args_c),                \
                __VA_ARGS__ SG_COLLECTIVE_REQUEST_##form)
#define SG_COLLECTIVE_SIGNATURE_BLOCKING(params, args, params_c, args_c) params, args
#define SG_COLLECTIVE_SIGNATURE_NONBLOCKING(params, args, params_c, args_c)                    \
    SG_WITH_REQUEST params, SG_WITH_CALL_REQUEST args
#define SG_COLLECTIVE_SIGNATURE_LARGE(params, args, params_c, args_c) params_c, args_c
#define SG_COLLECTIVE_SIGNATURE_NONBLOCKING_LARGE(params, args, params_c, args_c)              \
    SG_WITH_REQUEST params_c, SG_WITH_CALL_REQUEST args_c
#define SG_COLLECTIVE_SIGNATURE_PERSISTENT(params, args, params_c, args_c)                     \
    SG_WITH_INFO_REQUEST params, SG_WITH_CALL_INFO_REQUEST args
#define SG_COLLECTIVE_SIGNATURE_PERSISTENT_LARGE(params, args, params_c, args_c)               \
    SG_WITH_INFO_REQUEST params_c, SG_WITH_CALL_INFO_REQUEST args_c
#define SG_COLLECTIVE_REQUEST_BLOCKING
#define SG_COLLECTIVE_REQUEST_NONBLOCKING , .request = request
#define SG_COLLECTIVE_REQUEST_LARGE
#define SG_COLLECTIVE_REQUEST_NONBLOCKING_LARGE , .request = request
#define SG_COLLECTIVE_REQUEST_PERSISTENT , .info = info, .request = request
#define SG_COLLECTIVE_REQUEST_PERSISTENT_LARGE , .info = info, .request = request
#define SG_WITH_REQUEST(...) (__VA_ARGS__, MPI_Request *request)
#define SG_WITH_CALL_REQUEST(...) (__VA_ARGS__, c->request)
#define SG_WITH_INFO_REQUEST(...) (__VA_ARGS__, MPI_Info info, MPI_Request *request)
#define SG_WITH_CALL_INFO_REQUEST(...) (__VA_ARGS__, c->info, c->request)

/* A call of a large-count form as the same call of its int form, where
 * every count and displacement it holds on this rank fits in int (its
 * arrays have `procs` entries): `narrow` gets it, its arrays copied into
 * `ints` (4 procs of them, the caller's, which must outlive the call), but
 * displacements the int form takes as MPI_Aint (sg_displs_are_aint), kept.
 * Either may be NULL: only whether it fits. Returns 0, or -1 where one
 * does not fit (nothing is cut: a count is never narrowed past INT_MAX). */
int sg_call_narrow(const struct sg_call *c, int procs, int *ints, struct sg_call *narrow);

/* A table of entry points with the collectives' own signatures. */
struct sg_entry_points {
#define SG_ENTRY_POINT(Name, params, args, ...) int(*Name) params;
    SG_COLLECTIVES(SG_ENTRY_POINT)
#undef SG_ENTRY_POINT
};

/* The library's own PMPI_* functions. */
extern const struct sg_entry_points sg_pmpi;

/* Fill `table` with the next definition of each PMPI_* after the caller's
 * library in symbol lookup order (dlsym RTLD_NEXT). Returns 0, or -1 with
 * the missing name in `missing`. */
int sg_entry_points_next(struct sg_entry_points *table, const char **missing);

/* Call `c` through `table`. */
int sg_call_invoke(const struct sg_entry_points *table, const struct sg_call *c);

/* The only symbols a wrapper library exports (it is built with hidden
 * visibility, so its internals never bind to another layer's copies). */
#define SG_EXPORT __attribute__((visibility("default")))

/* Define the MPI_* functions of a wrapper library: each captures its call
 * and returns HANDLER(&call). */
#define SG_DEFINE_WRAPPER(Name, params, args, ...)                       \
    SG_EXPORT int MPI_##Name params                                                \
    {                                                                    \
        struct sg_call call = {.routine = SG_MPI_##Name, __VA_ARGS__};   \
        return SG_WRAPPER_HANDLER(&call);                                \
    }

/* The same with three ways past the handler, where the call goes straight
 * to PMPI_*, as the application made it: where SG_WRAPPER_PASSES_AT_ENTRY(c)
 * says it may from a look that calls nothing (so needs no frame); where
 * SG_WRAPPER_PASSES(c) says it may (a look that may call the MPI); and
 * where the handler returns SG_CALL_AS_MADE. `passed` is read
 * field by field: the compiler keeps it in registers, and builds the
 * handler's struct only in the last way. The exported MPI_<Name> is a stub
 * (foreign.h). */
#define SG_CALL_AS_MADE (-1) /* never an MPI error code, which are >= 0 */
#define SG_DEFINE_PASSING_WRAPPER(Name, params, args, ...)                   \
    static __attribute__((noinline)) int sg_looked_##Name params             \
    {                                                                        \
        const struct sg_call passed = {.routine = SG_MPI_##Name, __VA_ARGS__}; \
        if (SG_WRAPPER_PASSES(&passed)) {                                    \
            const struct sg_call *c = &passed;                               \
            return PMPI_##Name args;                                         \
        }                                                                    \
        struct sg_call call = {.routine = SG_MPI_##Name, __VA_ARGS__};       \
        int handled = SG_WRAPPER_HANDLER(&call);                             \
        if (handled != SG_CALL_AS_MADE)                                      \
            return handled;                                                  \
        const struct sg_call *c = &call;                                     \
        return PMPI_##Name args;                                             \
    }                                                                        \
    SG_FORWARDED_ENTRY(MPI_##Name)                                           \
    int SG_ENTRY(MPI_##Name) params                                          \
    {                                                                        \
        const struct sg_call passed = {.routine = SG_MPI_##Name, __VA_ARGS__}; \
        const struct sg_call *c = &passed;                                   \
        if (SG_WRAPPER_PASSES_AT_ENTRY(c))                                   \
            return PMPI_##Name args;                                         \
        return sg_looked_##Name args;                                        \
    }

/* The same for PMPI_* (a preload that sits below another PMPI layer). */
#define SG_DEFINE_PMPI_WRAPPER(Name, params, args, ...)                  \
    SG_EXPORT int PMPI_##Name params                                               \
    {                                                                    \
        struct sg_call call = {.routine = SG_MPI_##Name, __VA_ARGS__};   \
        return SG_WRAPPER_HANDLER(&call);                                \
    }

/* ---- What a call moves, as the detectors see it ------------------------- */

/* One side of a call as this rank sees it, read from the call's fields by
 * its routine's row (routines.h): NONE where the side is not this rank's
 * (the root's side of a rooted routine) or is MPI_IN_PLACE, except that a
 * reduction's in-place side keeps its layout (`in_place` says so). */
struct sg_call_side {
    enum sg_layout layout;
    int in_place;
    int blocks;              /* REGULAR, V, W, PACKED: P, or the side's neighbours (the
                              * row's `blocks`: 0 where the communicator has no topology) */
    MPI_Count count;         /* SINGLE, REGULAR, PACKED without counts */
    struct sg_counts counts; /* V, PACKED (none: `count` each); SINGLE: none, or
                              * counts[rank] is the count (Reduce_scatter's result) */
    struct sg_displs_array displs; /* V (in extents of type), W (in bytes) */
    MPI_Datatype type; /* W: MPI_DATATYPE_NULL, each block has its own */
    const MPI_Datatype *types; /* W */
};

/* The sides of a call on a communicator of `procs` ranks (of the remote
 * group of an intercommunicator). A neighbourhood collective's blocks are
 * its topology's (neighbours.h), asked only for its rows. */
static inline void sg_call_sides(const struct sg_call *c, int is_root, int procs,
                                 struct sg_call_side *send, struct sg_call_side *recv)
{
    const struct sg_routine_info *info = &sg_routines[c->routine];
    enum sg_in_place_side in_place = info->in_place_side;
    int in_place_here = !info->rooted || is_root;
    int send_blocks = procs, recv_blocks = procs;
    if (info->neighbours) {
        const struct sg_neighbours *n = sg_comm_neighbours(c->comm);
        send_blocks = n ? n->out : 0;
        recv_blocks = n ? n->in : 0;
    }
    *send = (struct sg_call_side){.layout = info->send, .blocks = send_blocks,
                                  .count = c->sendcount, .counts = c->sendcounts,
                                  .displs = c->sdispls, .type = c->sendtype,
                                  .types = c->sendtypes};
    *recv = (struct sg_call_side){.layout = info->recv, .blocks = recv_blocks,
                                  .count = c->recvcount, .counts = c->recvcounts,
                                  .displs = c->rdispls, .type = c->recvtype,
                                  .types = c->recvtypes};
    if (send->layout == SG_SIDE_SINGLE)
        send->counts = (struct sg_counts){0};
    if (send->layout == SG_SIDE_PACKED) { /* blocks the size of each rank's result */
        send->count = c->recvcount;
        send->counts = c->recvcounts;
    } else if (recv->layout == SG_SIDE_SINGLE) {
        recv->counts = (struct sg_counts){0}; /* a result's counts[rank]: only of a PACKED
                                                * input */
    }
    if (info->rooted && !is_root && in_place != SG_IN_PLACE_NONE)
        *(in_place == SG_IN_PLACE_SEND ? recv : send) = (struct sg_call_side){0}; /* the root's */
    struct sg_call_side *may = in_place == SG_IN_PLACE_SEND   ? send
                               : in_place == SG_IN_PLACE_RECV ? recv
                                                              : NULL;
    const void *buffer = in_place == SG_IN_PLACE_SEND ? c->sendbuf : c->recvbuf;
    if (may != NULL && in_place_here && buffer == MPI_IN_PLACE) {
        if (!info->reduction)
            *may = (struct sg_call_side){0};
        may->in_place = 1;
    }
}

/* The P of a call's triggers (DESIGN.md "Notation") on a communicator of
 * `procs` ranks: procs, or of a neighbourhood collective the most blocks a
 * rank of the communicator holds on a side (neighbours.h; 0 where the
 * communicator has no topology). */
static inline int sg_call_procs(const struct sg_call *c, int procs)
{
    if (!sg_routines[c->routine].neighbours)
        return procs;
    const struct sg_neighbours *n = sg_comm_neighbours(c->comm);
    return n ? n->most : 0;
}

/* The count of a SINGLE side on this rank: `count`, or counts[rank] where
 * it has counts (Reduce_scatter's result). */
static inline MPI_Count sg_single_count(const struct sg_call_side *side, int rank)
{
    return sg_counts_given(side->counts) ? sg_count_at(side->counts, rank) : side->count;
}

/* `type`'s type signature (type_signature.c): each predefined datatype a
 * basic one of its own (the pairs such as MPI_FLOAT_INT two), the same
 * tuple on every rank for the same sequence, whatever the layout. Returns
 * an MPI error code. */
int sg_type_signature(MPI_Datatype type, struct sg_signature *sig);

/* How many basic elements one element of `type` holds: the length of its
 * type signature. Returns an MPI error code. */
int sg_type_elements(MPI_Datatype type, uint64_t *elements);

/* The predefined pair types of MINLOC/MAXLOC (two basic elements each):
 * whether `type` is one, and its two basic elements and where the second
 * lies. */
struct sg_pair {
    MPI_Datatype type, first, second;
    MPI_Aint second_at;
};
int sg_pair_of(MPI_Datatype type, struct sg_pair *p);

/* Its size (MPI_Type_size) and signature length together: for a
 * predefined type this thread has met, without asking the MPI. */
int sg_type_measure(MPI_Datatype type, int *size, uint64_t *elements);

/* Whether `type` is a predefined type this thread has met (sg_type_measure
 * has measured it): its handle never becomes another type's. */
int sg_type_met_predefined(MPI_Datatype type);

/* A darray's indices along one dimension: how many of the gsize global
 * indices the process at `coordinate` of psize holds, written in ascending
 * order to `held` (NULL: only counted). */
int sg_darray_held(int gsize, int distrib, int darg, int psize, int coordinate, int *held);

/* The coordinate along dimension d of process `rank` in a darray's
 * process grid (row-major, whatever the array's order). */
int sg_darray_coordinate(int rank, int dims, const int *psizes, int d);

/* `count` elements of `size` bytes, each of `elements` basic elements, as
 * n basic elements of s bytes (s rounded up for a signature that mixes
 * sizes; n saturates). */
static inline void sg_in_basic_elements(uint64_t count, uint64_t size, uint64_t elements,
                                        uint64_t *n, uint64_t *s)
{
    if (__builtin_mul_overflow(count, elements, n))
        *n = UINT64_MAX;
    /* no division for a predefined type of one element, every call's case */
    *s = elements == 1 ? size : elements ? (size + elements - 1) / elements : 0;
}

/* MPI_COMM_WORLD's size and this process's rank in it, set where MPI_Init
 * went through the layer (agree.c); procs is 0 until then. */
struct sg_world {
    int procs, rank;
};
extern struct sg_world sg_world;

/* MPI_COMM_WORLD's and MPI_COMM_SELF's size and this process's rank in
 * them, which the layer holds without asking the MPI (whose checks of the
 * handle cost more than the layer's whole look at a call): 1, or 0 for
 * another communicator. */
static inline int sg_comm_size_rank_held(MPI_Comm comm, int *procs, int *rank)
{
    if (comm == MPI_COMM_WORLD && sg_world.procs > 0) {
        *procs = sg_world.procs;
        *rank = sg_world.rank;
        return 1;
    }
    if (comm == MPI_COMM_SELF) {
        *procs = 1;
        *rank = 0;
        return 1;
    }
    return 0;
}

/* The size of `comm` and, where `rank` is not NULL, this process's rank in
 * it (sg_comm_size_rank_held's where it holds them). */
static inline int sg_comm_size_rank(MPI_Comm comm, int *procs, int *rank)
{
    int held_rank;
    if (sg_comm_size_rank_held(comm, procs, &held_rank)) {
        if (rank)
            *rank = held_rank;
        return MPI_SUCCESS;
    }
    int err = PMPI_Comm_size(comm, procs);
    return err != MPI_SUCCESS || rank == NULL ? err : PMPI_Comm_rank(comm, rank);
}

/* Whether `comm` is an intercommunicator: MPI_COMM_WORLD and
 * MPI_COMM_SELF are not, without asking the MPI. */
static inline int sg_comm_test_inter(MPI_Comm comm, int *inter)
{
    if (comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF) {
        *inter = 0;
        return MPI_SUCCESS;
    }
    return PMPI_Comm_test_inter(comm, inter);
}

/* n, s and P of a call on this rank (DESIGN.md "Notation"), in basic
 * elements, which every rank counts alike whatever datatypes they pass
 * (12 x MPI_DOUBLE on one rank against 1 x a vector of 12 doubles on
 * another: n = 12, s = 8 on both): n is the number of basic elements of
 * one message (for v-routines of the largest per-rank block this rank can
 * see; for Reduce_scatter(_block) of the whole vector reduced), s the bytes
 * per basic element (rounded up for a signature that mixes sizes), P the
 * communicator's size. `elements` is the signature length of the datatype
 * n was counted in; `elements_min`/`elements_max` span those of every
 * datatype this rank passes (its sides without MPI_IN_PLACE; of a W side
 * the blocks' that hold data, none: INT64_MAX and 0), which the
 * v-routines' ranks compare (plan_agreement.c); `count` and `size`
 * are n and s as the MPI itself sees them on this rank, in elements of that
 * datatype. A neighbourhood collective's blocks are its neighbours, and its
 * P the most any rank holds on a side (sg_call_procs). Returns an MPI error
 * code. */
struct sg_shape {
    uint64_t n;
    uint64_t s;
    uint64_t procs;
    int rank;
    int is_root; /* rank == root, or 1 for routines without a root */
    uint64_t elements, elements_min, elements_max;
    uint64_t count, size;
};

int sg_call_shape(const struct sg_call *c, struct sg_shape *shape);

/* An upper bound of every trigger value of the call on this rank (n, n P,
 * s n and s n P of DESIGN.md "Notation", in basic elements) that needs
 * neither the shape nor this rank's rank: what the hot path compares with
 * the smallest bound. `procs`: the communicator's size. Returns an MPI
 * error code. */
int sg_call_reach(const struct sg_call *c, int procs, int is_root, uint64_t *reach);

#endif
