/* Fortran callers of libscaleguard.so.
 *
 * What the MPIs' Fortran bindings call, on this platform (Debian 12;
 * measured with nm -D and objdump -d, and proved by tests/fortran):
 *
 *  - MPICH 4.0.2 (libmpichfort.so): mpif.h and `use mpi` (mpi_gatherv_ and
 *    its aliases) and `use mpi_f08` (mpi_gatherv_f08ts_, through
 *    MPIR_Gatherv_cdesc) call MPI_Gatherv, for all 42 collectives: the C
 *    wrappers of protect.c see Fortran callers as they are, once. Only
 *    mpi_f08's MPI_Finalize (mpi_finalize_f08_) calls PMPI_Finalize, which
 *    skips the layer's MPI_Finalize summary, and its MPI_Init and
 *    MPI_Init_thread call PMPI_Init*, which skips the ranks' agreement on
 *    the bounds (agree.c): those three are redefined below, and its
 *    MPI_Barrier, MPI_Ibarrier and MPI_Barrier_init (PMPI_*), which the
 *    watchdog watches. Its
 *    MPI_Probe and MPI_Wait call PMPI too: unwatched.
 *
 *  - Open MPI 4.1.4: mpif.h and `use mpi` (libmpi_mpifh.so; the `use mpi`
 *    module of libmpi_usempi_ignore_tkr.so calls the same mpi_gatherv_) name
 *    one C function five times: MPI_GATHERV, mpi_gatherv, mpi_gatherv_ and
 *    mpi_gatherv__ are aliases of ompi_gatherv_f, which converts the
 *    arguments and calls PMPI_Gatherv directly. `use mpi_f08`
 *    (libmpi_usempif08.so: mpi_gatherv_f08_) calls ompi_gatherv_f through
 *    its PLT. So the C wrappers never see a Fortran caller. This file
 *    defines, for each of the 42 collectives, MPI_Init, MPI_Init_thread and
 *    MPI_Finalize, ompi_<name>_f
 *    (which catches mpi_f08) and the four names of mpif.h (which catch
 *    mpif.h and `use mpi`: the aliases inside libmpi_mpifh.so are the same
 *    code, not calls). Each converts its arguments exactly as Open MPI 4.1's
 *    does and calls the layer's own MPI_<Name>, so a Fortran call takes the
 *    path of a C call, once. The same for the calls the watchdog watches
 *    and the trace sees (MPI_Send, Ssend, Rsend, Bsend, Isend, Issend,
 *    Irsend, Ibsend, Recv, Irecv, Probe, Sendrecv(_replace), Barrier,
 *    Ibarrier);
 *    Fortran's MPI_WAIT and friends go to PMPI, unwatched and untraced
 *    (layer.h). The Fortran PMPI names (pmpi_gatherv_ ...) are left alone,
 *    as a PMPI layer must.
 *
 * The wrappers are generated from SG_INT_COUNT_COLLECTIVES (collective.h): each
 * routine's `args` list names, in the order of the routine's parameters, the
 * struct sg_call field each parameter fills, and the Fortran binding has the
 * same parameters in the same order, every one passed by reference, then
 * ierror. The field says how to convert it. */
#include "collective.h"
#include "layer.h"

#include <stdlib.h>

#if defined(SCALEGUARD_MPI_OPENMPI) && !defined(OPEN_MPI)
#error "SCALEGUARD_MPI_OPENMPI is set but mpi.h is not Open MPI's"
#endif
#if defined(SCALEGUARD_MPI_MPICH) && !defined(MPICH_VERSION)
#error "SCALEGUARD_MPI_MPICH is set but mpi.h is not MPICH's"
#endif

#if defined(SCALEGUARD_MPI_MPICH) || (defined(SCALEGUARD_MPI_OPENMPI) && OMPI_MAJOR_VERSION == 4)
/* The Fortran MPI_Init, MPI_Init_thread and MPI_Finalize that bypass the C
 * ones: through the layer's (agree.c: the ranks agree on the bounds; layer.c:
 * the summary). ierror is optional in mpi_f08 (NULL when absent). */
static void fortran_init(MPI_Fint *ierr)
{
    int err = MPI_Init(NULL, NULL);
    if (ierr != NULL)
        *ierr = (MPI_Fint)err;
}

static void fortran_init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int given;
    int err = MPI_Init_thread(NULL, NULL, (int)*required, &given);
    *provided = (MPI_Fint)given;
    if (ierr != NULL)
        *ierr = (MPI_Fint)err;
}

static void fortran_finalize(MPI_Fint *ierr)
{
    int err = MPI_Finalize();
    if (ierr != NULL)
        *ierr = (MPI_Fint)err;
}

/* The Fortran MPI_Ibarrier that bypasses the C one: through the layer's
 * (observed.c). */
static void fortran_ibarrier(MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request c_request;
    int err = MPI_Ibarrier(PMPI_Comm_f2c(*comm), &c_request);
    if (err == MPI_SUCCESS)
        *request = PMPI_Request_c2f(c_request);
    if (ierr != NULL)
        *ierr = (MPI_Fint)err;
}
#endif

#if defined(SCALEGUARD_MPI_MPICH)

/* Each exported through a stub (foreign.h): the program's own where its
 * MPI is the other kind. */
void sg_entry_mpi_init_f08_(MPI_Fint *ierr);
void sg_entry_mpi_init_f08_(MPI_Fint *ierr) { fortran_init(ierr); }
SG_FORWARDED_STUB(mpi_init_f08_, sg_entry_mpi_init_f08_)
void sg_entry_mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void sg_entry_mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    fortran_init_thread(required, provided, ierr);
}
SG_FORWARDED_STUB(mpi_init_thread_f08_, sg_entry_mpi_init_thread_f08_)
void sg_entry_mpi_finalize_f08_(MPI_Fint *ierr);
void sg_entry_mpi_finalize_f08_(MPI_Fint *ierr) { fortran_finalize(ierr); }
SG_FORWARDED_STUB(mpi_finalize_f08_, sg_entry_mpi_finalize_f08_)
/* mpi_f08's MPI_Barrier calls PMPI_Barrier: the watchdog's Barrier. */
void sg_entry_mpi_barrier_f08_(MPI_Fint *comm, MPI_Fint *ierr);
void sg_entry_mpi_barrier_f08_(MPI_Fint *comm, MPI_Fint *ierr)
{
    int err = MPI_Barrier(PMPI_Comm_f2c(*comm));
    if (ierr != NULL)
        *ierr = (MPI_Fint)err;
}
SG_FORWARDED_STUB(mpi_barrier_f08_, sg_entry_mpi_barrier_f08_)
/* And its MPI_Ibarrier and MPI_Barrier_init call PMPI_Ibarrier and
 * PMPI_Barrier_init: the observed ones (observed.c). */
void sg_entry_mpi_ibarrier_f08_(MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr);
void sg_entry_mpi_ibarrier_f08_(MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    fortran_ibarrier(comm, request, ierr);
}
SG_FORWARDED_STUB(mpi_ibarrier_f08_, sg_entry_mpi_ibarrier_f08_)
#if SCALEGUARD_PERSISTENT
void sg_entry_mpi_barrier_init_f08_(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
                                    MPI_Fint *ierr);
void sg_entry_mpi_barrier_init_f08_(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
                                    MPI_Fint *ierr)
{
    MPI_Request c_request;
    int err = MPI_Barrier_init(PMPI_Comm_f2c(*comm), PMPI_Info_f2c(*info), &c_request);
    if (err == MPI_SUCCESS)
        *request = PMPI_Request_c2f(c_request);
    if (ierr != NULL)
        *ierr = (MPI_Fint)err;
}
SG_FORWARDED_STUB(mpi_barrier_init_f08_, sg_entry_mpi_barrier_init_f08_)
#endif

#elif defined(SCALEGUARD_MPI_OPENMPI) && OMPI_MAJOR_VERSION == 4
/* ompi_<name>_f is Open MPI's internal interface between its Fortran
 * modules and its C glue: checked against the 4.0/4.1 series only (the
 * tests in tests/fortran fail if another version differs). */

#include "fortran_names.h" /* generated from detectors/routines.h */

/* mpif.h and the mpi module have no large-count forms; where mpi_f08 has
 * them, it calls the C MPI_*_c (MPICH). */
_Static_assert(SG_FORTRAN_NAME_COUNT == 2 * SG_ROUTINE_COUNT / SG_FORM_COUNT,
               "a Fortran name for every routine with int counts");
/* Open MPI converts INTEGER arrays (counts, displacements) only when
 * INTEGER is not a C int; here it never does. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "INTEGER arrays pass as C int arrays");

/* Open MPI's Fortran MPI_IN_PLACE and MPI_BOTTOM: common blocks, told apart
 * by address. The program that uses them defines them (or else libmpi.so
 * does); this library must only refer to them, so that it sees the same
 * copy as the program. Open MPI 4.1 on Linux checks the single-underscore
 * names only. */
extern int mpi_fortran_in_place_ SG_EXPORT;
extern int mpi_fortran_bottom_ SG_EXPORT;

/* An INTEGER array, named like the int member of struct sg_call's arrays;
 * a displacements array may be INTEGER(KIND=MPI_ADDRESS_KIND) instead
 * (Neighbor_alltoallw's), an MPI_Aint one, named like the wide member. */
struct fortran_array {
    MPI_Fint *of_int;
};
struct fortran_displs {
    MPI_Fint *of_int;
    MPI_Aint *wide;
};

/* The raw arguments of one Fortran call, named like struct sg_call's
 * fields: the `args` lists of SG_INT_COUNT_COLLECTIVES store into them. */
struct fortran_args {
    void *sendbuf, *recvbuf;
    MPI_Fint *sendcount, *recvcount, *root;
    struct fortran_array sendcounts, recvcounts;
    struct fortran_displs sdispls, rdispls;
    MPI_Fint *sendtype, *recvtype, *op, *comm, *request;
    MPI_Fint *sendtypes, *recvtypes; /* Alltoallw(, Neighbor_): a handle per block */
};

/* The blocks of a W side: one per rank of the (remote) group, as Open
 * MPI's alltoallw_f converts them, or of Neighbor_alltoallw one per in- or
 * out-neighbour (`in`), the blocks the call reads (neighbours.h); -1 where
 * the MPI cannot say. */
static int w_blocks(enum sg_routine routine, MPI_Comm comm, int in)
{
    int procs, inter = 0;
    if (sg_routines[routine].neighbours) {
        const struct sg_neighbours *n = sg_comm_neighbours(comm);
        return n == NULL ? -1 : in ? n->in : n->out;
    }
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS ||
        (inter ? PMPI_Comm_remote_size(comm, &procs) : PMPI_Comm_size(comm, &procs)) !=
            MPI_SUCCESS)
        return -1;
    return procs;
}

/* A W side's datatype handles from Fortran, `blocks` of them; NULL for a
 * side it does not read (MPI_IN_PLACE), where the MPI cannot say how many
 * or when memory runs out (the MPI then reports the call). Freed when the
 * call returns: the layer starts every sub-call of an I-form within it, and
 * the MPI keeps what a started operation uses. */
static MPI_Datatype *types_from_fortran(const MPI_Fint *handles, int blocks)
{
    if (handles == NULL || blocks < 0)
        return NULL;
    MPI_Datatype *types = malloc((size_t)(blocks > 0 ? blocks : 1) * sizeof *types);
    for (int i = 0; types != NULL && i < blocks; i++)
        types[i] = PMPI_Type_f2c(handles[i]);
    return types;
}

/* The layer's own entry points (protect.c), bound like a C caller's. */
static const struct sg_entry_points layer_entry_points = {
#define SG_LAYER_ENTRY(Name, params, args, ...) .Name = MPI_##Name,
    SG_COLLECTIVES(SG_LAYER_ENTRY)
#undef SG_LAYER_ENTRY
};

static void *from_fortran_buffer(void *buffer, int may_be_in_place)
{
    if (may_be_in_place && buffer == (void *)&mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    return buffer == (void *)&mpi_fortran_bottom_ ? MPI_BOTTOM : buffer;
}

/* What ompi_<name>_f does, but into the layer: handles from Fortran, the
 * Fortran MPI_IN_PLACE (on the send side; on the receive side for Scatter
 * and Scatterv; never for Bcast, whose one buffer is the receive side) and
 * MPI_BOTTOM, ierror, and the request handle back to Fortran on success. */
static void fortran_call(enum sg_routine routine, const struct fortran_args *f, MPI_Fint *ierr)
{
    int in_place_receives = sg_routines[routine].in_place_side == SG_IN_PLACE_RECV;
    struct sg_call c = {.routine = routine};
    c.sendbuf = from_fortran_buffer(f->sendbuf, !in_place_receives);
    c.recvbuf = from_fortran_buffer(f->recvbuf, in_place_receives);
    c.sendcount = f->sendcount ? *f->sendcount : 0;
    c.recvcount = f->recvcount ? *f->recvcount : 0;
    c.root = f->root ? *f->root : 0;
    c.sendcounts = SG_COUNTS(f->sendcounts.of_int);
    c.sdispls = f->sdispls.wide ? SG_DISPLS(f->sdispls.wide) : SG_DISPLS(f->sdispls.of_int);
    c.recvcounts = SG_COUNTS(f->recvcounts.of_int);
    c.rdispls = f->rdispls.wide ? SG_DISPLS(f->rdispls.wide) : SG_DISPLS(f->rdispls.of_int);
    if (f->sendtype)
        c.sendtype = PMPI_Type_f2c(*f->sendtype);
    if (f->recvtype)
        c.recvtype = PMPI_Type_f2c(*f->recvtype);
    if (f->op)
        c.op = PMPI_Op_f2c(*f->op);
    if (f->comm)
        c.comm = PMPI_Comm_f2c(*f->comm);
    MPI_Datatype *sendtypes = NULL, *recvtypes = NULL;
    if (f->recvtypes) {
        recvtypes = types_from_fortran(f->recvtypes, w_blocks(routine, c.comm, 1));
        if (c.sendbuf != MPI_IN_PLACE)
            sendtypes = types_from_fortran(f->sendtypes, w_blocks(routine, c.comm, 0));
        c.sendtypes = sendtypes;
        c.recvtypes = recvtypes;
        c.sendtype = c.recvtype = MPI_DATATYPE_NULL;
    }
    MPI_Request request = MPI_REQUEST_NULL;
    if (f->request)
        c.request = &request;

    sg_fortran_caller = 1;
    int err = sg_call_invoke(&layer_entry_points, &c);
    sg_fortran_caller = 0;
    free(sendtypes);
    free(recvtypes);
    if (ierr != NULL)
        *ierr = (MPI_Fint)err;
    if (err == MPI_SUCCESS && f->request != NULL)
        *f->request = PMPI_Request_c2f(request);
}

/* ---- The entry points, one per routine and name ------------------------- */

#define SG_CAT(a, b) a##b
#define SG_XCAT(a, b) SG_CAT(a, b)
#define SG_CAT3(a, b, c) a##b##c
#define SG_XCAT3(a, b, c) SG_CAT3(a, b, c)
#define SG_STR(x) #x
#define SG_XSTR(x) SG_STR(x)

/* How many parameters a routine has (its `args` list: 5 to 10). */
#define SG_NARGS(...) SG_NARGS_(__VA_ARGS__, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define SG_NARGS_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, n, ...) n

/* n parameters passed by reference, and the list of their names. */
#define SG_PARAMS(n) SG_XCAT(SG_PARAMS_, n)
#define SG_PARAMS_5 void *p0, void *p1, void *p2, void *p3, void *p4
#define SG_PARAMS_6 SG_PARAMS_5, void *p5
#define SG_PARAMS_7 SG_PARAMS_6, void *p6
#define SG_PARAMS_8 SG_PARAMS_7, void *p7
#define SG_PARAMS_9 SG_PARAMS_8, void *p8
#define SG_PARAMS_10 SG_PARAMS_9, void *p9
#define SG_VALUES(n) SG_XCAT(SG_VALUES_, n)
#define SG_VALUES_5 p0, p1, p2, p3, p4
#define SG_VALUES_6 SG_VALUES_5, p5
#define SG_VALUES_7 SG_VALUES_6, p6
#define SG_VALUES_8 SG_VALUES_7, p7
#define SG_VALUES_9 SG_VALUES_8, p8
#define SG_VALUES_10 SG_VALUES_9, p9

/* Store parameter i into the i-th field of `args` (`c->field = p[i];`). */
#define SG_STORE(...) SG_XCAT(SG_STORE_, SG_NARGS(__VA_ARGS__))(0, __VA_ARGS__)
#define SG_STORE_1(i, a) a = p[i];
#define SG_STORE_2(i, a, ...) a = p[i]; SG_STORE_1(i + 1, __VA_ARGS__)
#define SG_STORE_3(i, a, ...) a = p[i]; SG_STORE_2(i + 1, __VA_ARGS__)
#define SG_STORE_4(i, a, ...) a = p[i]; SG_STORE_3(i + 1, __VA_ARGS__)
#define SG_STORE_5(i, a, ...) a = p[i]; SG_STORE_4(i + 1, __VA_ARGS__)
#define SG_STORE_6(i, a, ...) a = p[i]; SG_STORE_5(i + 1, __VA_ARGS__)
#define SG_STORE_7(i, a, ...) a = p[i]; SG_STORE_6(i + 1, __VA_ARGS__)
#define SG_STORE_8(i, a, ...) a = p[i]; SG_STORE_7(i + 1, __VA_ARGS__)
#define SG_STORE_9(i, a, ...) a = p[i]; SG_STORE_8(i + 1, __VA_ARGS__)
#define SG_STORE_10(i, a, ...) a = p[i]; SG_STORE_9(i + 1, __VA_ARGS__)

#define SG_LOWER(Name) SG_FORTRAN_LOWER_##Name
#define SG_UPPER(Name) SG_FORTRAN_UPPER_##Name
#define SG_OMPI_F(Name) SG_XCAT3(ompi_, SG_LOWER(Name), _f)

/* Each name goes to the function itself (Open MPI's names are aliases
 * too), through a stub (foreign.h): in a program of the MPICH kind, to
 * that MPI's own. */
#define SG_FORTRAN_ALIAS(target, name) SG_FORWARDED_STUB(name, target)

#define SG_FORTRAN_NAMES(target, lower, upper)    \
    SG_FORTRAN_ALIAS(target, SG_XCAT(MPI_, upper))    \
    SG_FORTRAN_ALIAS(target, SG_XCAT(mpi_, lower))    \
    SG_FORTRAN_ALIAS(target, SG_XCAT3(mpi_, lower, _)) \
    SG_FORTRAN_ALIAS(target, SG_XCAT3(mpi_, lower, __))

#define SG_DEFINE_FORTRAN(Name, params, args, ...)                                      \
    SG_EXPORT void SG_OMPI_F(Name)(SG_PARAMS(SG_NARGS args), MPI_Fint *ierr);          \
    void SG_OMPI_F(Name)(SG_PARAMS(SG_NARGS args), MPI_Fint *ierr)                     \
    {                                                                                   \
        void *const p[] = {SG_VALUES(SG_NARGS args)};                                   \
        struct fortran_args raw = {0}, *c = &raw;                                       \
        SG_STORE args                                                                   \
        fortran_call(SG_MPI_##Name, c, ierr);                                           \
    }                                                                                   \
    SG_FORTRAN_NAMES(SG_OMPI_F(Name), SG_LOWER(Name), SG_UPPER(Name))

SG_INT_COUNT_COLLECTIVES(SG_DEFINE_FORTRAN)

SG_EXPORT void ompi_init_f(MPI_Fint *ierr);
void ompi_init_f(MPI_Fint *ierr) { fortran_init(ierr); }
SG_FORTRAN_NAMES(ompi_init_f, init, INIT)
SG_EXPORT void ompi_init_thread_f(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void ompi_init_thread_f(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    fortran_init_thread(required, provided, ierr);
}
SG_FORTRAN_NAMES(ompi_init_thread_f, init_thread, INIT_THREAD)
SG_EXPORT void ompi_finalize_f(MPI_Fint *ierr);
void ompi_finalize_f(MPI_Fint *ierr) { fortran_finalize(ierr); }
SG_FORTRAN_NAMES(ompi_finalize_f, finalize, FINALIZE)

/* The calls the watchdog watches and the trace sees (observed.c), each as Open MPI 4.1's
 * mpif-h glue makes it (send_f.c, recv_f.c, ...), but into the layer's
 * MPI_Xxx: handles from Fortran, MPI_BOTTOM, MPI_STATUS_IGNORE (a status
 * is a C one: INTEGER is a C int), ierror. */
extern int mpi_fortran_status_ignore_ SG_EXPORT;

_Static_assert(sizeof(MPI_Status) == 6 * sizeof(MPI_Fint), /* Open MPI 4.1's MPI_STATUS_SIZE */
               "a Fortran status is a C one");

static MPI_Status *from_fortran_status(MPI_Fint *status)
{
    return status == (MPI_Fint *)&mpi_fortran_status_ignore_ ? MPI_STATUS_IGNORE
                                                              : (MPI_Status *)status;
}

static void fortran_result(int err, MPI_Fint *ierr)
{
    if (ierr != NULL)
        *ierr = (MPI_Fint)err;
}

#define SG_FORTRAN_SEND(lower, upper, Name)                                                   \
    SG_EXPORT void ompi_##lower##_f(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, \
                                    MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *ierr);            \
    void ompi_##lower##_f(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest,          \
                          MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *ierr)                       \
    {                                                                                          \
        fortran_result(MPI_##Name(from_fortran_buffer(buf, 0), *count, PMPI_Type_f2c(*type),   \
                                  *dest, *tag, PMPI_Comm_f2c(*comm)),                          \
                       ierr);                                                                  \
    }                                                                                          \
    SG_FORTRAN_NAMES(ompi_##lower##_f, lower, upper)
SG_FORTRAN_SEND(send, SEND, Send)
SG_FORTRAN_SEND(ssend, SSEND, Ssend)
SG_FORTRAN_SEND(rsend, RSEND, Rsend)
SG_FORTRAN_SEND(bsend, BSEND, Bsend)

/* The non-blocking ones the trace sees (observed.c): the request back as
 * Fortran's handle. Open MPI's MPI_WAIT family goes to PMPI (above): their
 * completions are not traced. */
#define SG_FORTRAN_ISEND(lower, upper, Name)                                                  \
    SG_EXPORT void ompi_##lower##_f(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest, \
                                    MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *request,          \
                                    MPI_Fint *ierr);                                           \
    void ompi_##lower##_f(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest,          \
                          MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)    \
    {                                                                                          \
        MPI_Request c_request;                                                                 \
        int err = MPI_##Name(from_fortran_buffer(buf, 0), *count, PMPI_Type_f2c(*type), *dest, \
                             *tag, PMPI_Comm_f2c(*comm), &c_request);                          \
        if (err == MPI_SUCCESS)                                                                \
            *request = PMPI_Request_c2f(c_request);                                            \
        fortran_result(err, ierr);                                                             \
    }                                                                                          \
    SG_FORTRAN_NAMES(ompi_##lower##_f, lower, upper)
SG_FORTRAN_ISEND(isend, ISEND, Isend)
SG_FORTRAN_ISEND(issend, ISSEND, Issend)
SG_FORTRAN_ISEND(irsend, IRSEND, Irsend)
SG_FORTRAN_ISEND(ibsend, IBSEND, Ibsend)

SG_EXPORT void ompi_irecv_f(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *source,
                            MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr);
void ompi_irecv_f(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *source, MPI_Fint *tag,
                  MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Request c_request;
    int err = MPI_Irecv(from_fortran_buffer(buf, 0), *count, PMPI_Type_f2c(*type), *source, *tag,
                        PMPI_Comm_f2c(*comm), &c_request);
    if (err == MPI_SUCCESS)
        *request = PMPI_Request_c2f(c_request);
    fortran_result(err, ierr);
}
SG_FORTRAN_NAMES(ompi_irecv_f, irecv, IRECV)

SG_EXPORT void ompi_recv_f(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *source,
                           MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr);
void ompi_recv_f(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *source, MPI_Fint *tag,
                 MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
{
    fortran_result(MPI_Recv(from_fortran_buffer(buf, 0), *count, PMPI_Type_f2c(*type), *source,
                            *tag, PMPI_Comm_f2c(*comm), from_fortran_status(status)),
                   ierr);
}
SG_FORTRAN_NAMES(ompi_recv_f, recv, RECV)

SG_EXPORT void ompi_probe_f(MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *status,
                            MPI_Fint *ierr);
void ompi_probe_f(MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *status,
                  MPI_Fint *ierr)
{
    fortran_result(MPI_Probe(*source, *tag, PMPI_Comm_f2c(*comm), from_fortran_status(status)),
                   ierr);
}
SG_FORTRAN_NAMES(ompi_probe_f, probe, PROBE)

SG_EXPORT void ompi_sendrecv_f(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                               MPI_Fint *dest, MPI_Fint *sendtag, void *recvbuf,
                               MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *source,
                               MPI_Fint *recvtag, MPI_Fint *comm, MPI_Fint *status,
                               MPI_Fint *ierr);
void ompi_sendrecv_f(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, MPI_Fint *dest,
                     MPI_Fint *sendtag, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
                     MPI_Fint *source, MPI_Fint *recvtag, MPI_Fint *comm, MPI_Fint *status,
                     MPI_Fint *ierr)
{
    fortran_result(MPI_Sendrecv(from_fortran_buffer(sendbuf, 0), *sendcount,
                                PMPI_Type_f2c(*sendtype), *dest, *sendtag,
                                from_fortran_buffer(recvbuf, 0), *recvcount,
                                PMPI_Type_f2c(*recvtype), *source, *recvtag,
                                PMPI_Comm_f2c(*comm), from_fortran_status(status)),
                   ierr);
}
SG_FORTRAN_NAMES(ompi_sendrecv_f, sendrecv, SENDRECV)

SG_EXPORT void ompi_sendrecv_replace_f(void *buf, MPI_Fint *count, MPI_Fint *type,
                                       MPI_Fint *dest, MPI_Fint *sendtag, MPI_Fint *source,
                                       MPI_Fint *recvtag, MPI_Fint *comm, MPI_Fint *status,
                                       MPI_Fint *ierr);
void ompi_sendrecv_replace_f(void *buf, MPI_Fint *count, MPI_Fint *type, MPI_Fint *dest,
                             MPI_Fint *sendtag, MPI_Fint *source, MPI_Fint *recvtag,
                             MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
{
    fortran_result(MPI_Sendrecv_replace(from_fortran_buffer(buf, 0), *count, PMPI_Type_f2c(*type),
                                        *dest, *sendtag, *source, *recvtag,
                                        PMPI_Comm_f2c(*comm), from_fortran_status(status)),
                   ierr);
}
SG_FORTRAN_NAMES(ompi_sendrecv_replace_f, sendrecv_replace, SENDRECV_REPLACE)

SG_EXPORT void ompi_barrier_f(MPI_Fint *comm, MPI_Fint *ierr);
void ompi_barrier_f(MPI_Fint *comm, MPI_Fint *ierr)
{
    fortran_result(MPI_Barrier(PMPI_Comm_f2c(*comm)), ierr);
}
SG_FORTRAN_NAMES(ompi_barrier_f, barrier, BARRIER)

SG_EXPORT void ompi_ibarrier_f(MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr);
void ompi_ibarrier_f(MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr)
{
    fortran_ibarrier(comm, request, ierr);
}
SG_FORTRAN_NAMES(ompi_ibarrier_f, ibarrier, IBARRIER)

#else
/* An Open MPI whose Fortran glue was not checked: C callers only. */
typedef int sg_fortran_unchecked;
#endif
