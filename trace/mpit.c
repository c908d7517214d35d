/* The MPI tool interface for the trace (mpit.h). What the MPIs here export
 * (tests/mpit): MPICH 4.0.2 as Debian builds it, no performance variable and
 * no event type; Open MPI 4.1.4 (MPI 3.1: no events), of the variables read,
 * the ob1 PML's two queue lengths per peer of a communicator and a hugepage
 * pool's size. */
#include "mpit.h"

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The C type of a variable's elements, and so how its values compare and print. */
enum element { ELEMENT_UNSIGNED, ELEMENT_UNSIGNED_LONG, ELEMENT_UNSIGNED_LONG_LONG,
               ELEMENT_INT, ELEMENT_COUNT, ELEMENT_DOUBLE };

union value {
    unsigned long long u; /* the unsigned types */
    long long s;          /* MPI_INT, MPI_COUNT */
    double d;
};

struct pvar {
    char *name;
    MPI_T_pvar_handle handle;
    enum element element;
    int count; /* 1, or the size of MPI_COMM_WORLD for a communicator's variable */
    union value last;
};

static struct {
    int started;
    int exported;
    MPI_T_pvar_session session;
    MPI_Comm world; /* what a communicator's handle is allocated on (MPI_T takes its address) */
    struct pvar *pvars;
    int count;
    void *buffer; /* room for the largest variable, read into by every read */
} mpit;

static int element_of(MPI_Datatype type, enum element *element, size_t *size)
{
    if (type == MPI_UNSIGNED)
        *element = ELEMENT_UNSIGNED, *size = sizeof(unsigned);
    else if (type == MPI_UNSIGNED_LONG)
        *element = ELEMENT_UNSIGNED_LONG, *size = sizeof(unsigned long);
    else if (type == MPI_UNSIGNED_LONG_LONG)
        *element = ELEMENT_UNSIGNED_LONG_LONG, *size = sizeof(unsigned long long);
    else if (type == MPI_INT)
        *element = ELEMENT_INT, *size = sizeof(int);
    else if (type == MPI_COUNT)
        *element = ELEMENT_COUNT, *size = sizeof(MPI_Count);
    else if (type == MPI_DOUBLE)
        *element = ELEMENT_DOUBLE, *size = sizeof(double);
    else
        return -1;
    return 0;
}

#define SUM(member, type)                                                                      \
    for (int k = 0; k < v->count; k++)                                                         \
        sum.member += ((const type *)buffer)[k]

/* The variable's value read into `buffer`, its elements summed. */
static union value sum_of(const struct pvar *v, const void *buffer)
{
    union value sum = {.u = 0};
    switch (v->element) {
    case ELEMENT_UNSIGNED: SUM(u, unsigned); break;
    case ELEMENT_UNSIGNED_LONG: SUM(u, unsigned long); break;
    case ELEMENT_UNSIGNED_LONG_LONG: SUM(u, unsigned long long); break;
    case ELEMENT_INT: SUM(s, int); break;
    case ELEMENT_COUNT: SUM(s, MPI_Count); break;
    case ELEMENT_DOUBLE: sum.d = 0; SUM(d, double); break;
    }
    return sum;
}
#undef SUM

static int differ(enum element element, union value a, union value b)
{
    switch (element) {
    case ELEMENT_INT:
    case ELEMENT_COUNT: return a.s != b.s;
    case ELEMENT_DOUBLE: return a.d != b.d;
    default: return a.u != b.u;
    }
}

static void print_value(char *text, size_t room, enum element element, union value value)
{
    switch (element) {
    case ELEMENT_INT:
    case ELEMENT_COUNT: snprintf(text, room, "%lld", value.s); break;
    case ELEMENT_DOUBLE: snprintf(text, room, "%.6f", value.d); break;
    default: snprintf(text, room, "%llu", value.u); break;
    }
}

/* Variable `index` if it is one to read: kept in mpit.pvars, with the bytes
 * a read of it needs in *bytes. */
static void consider(int index, int world_size, size_t *bytes)
{
    char name[256];
    int name_length = sizeof name, description_length = 0;
    int verbosity, var_class, bind, readonly, continuous, atomic;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    /* Fails for the indices of Open MPI's components closed at MPI_Init. */
    if (MPI_T_pvar_get_info(index, name, &name_length, &verbosity, &var_class, &type, &enumtype,
                            NULL, &description_length, &bind, &readonly, &continuous,
                            &atomic) != MPI_SUCCESS)
        return;
    /* Open MPI 4.1 registers these with its psm2 MTL component, on any
     * machine, and reading them (MPI_T_pvar_handle_alloc does: they are
     * continuous) goes through the PSM2 queue, a null pointer unless that
     * transport is the one in use: a crash in MPI_T_pvar_handle_alloc (seen
     * here). MPI_T cannot tell whether it is in use: never read. */
    if (strncmp(name, "mtl_psm2_", strlen("mtl_psm2_")) == 0)
        return;
    enum element element;
    size_t element_size;
    if (element_of(type, &element, &element_size) != 0)
        return;
    /* Nothing to check for reading: every MPI_T performance variable can be
     * read (`readonly` says whether it can also be written or reset). */
    void *object;
    if (bind == MPI_T_BIND_NO_OBJECT)
        object = NULL;
    else if (bind == MPI_T_BIND_MPI_COMM)
        object = &mpit.world; /* Open MPI's ob1 queue lengths exist per communicator only */
    else
        return;
    MPI_T_pvar_handle handle;
    int count;
    if (MPI_T_pvar_handle_alloc(mpit.session, index, object, &handle, &count) != MPI_SUCCESS)
        return;
    int one_per_rank = bind == MPI_T_BIND_MPI_COMM && count == world_size;
    char *kept_name = NULL;
    if ((count != 1 && !one_per_rank) ||
        (!continuous && MPI_T_pvar_start(mpit.session, handle) != MPI_SUCCESS) ||
        (kept_name = strdup(name)) == NULL) {
        MPI_T_pvar_handle_free(mpit.session, &handle);
        return;
    }
    mpit.pvars[mpit.count++] =
        (struct pvar){.name = kept_name, .handle = handle, .element = element, .count = count};
    if ((size_t)count * element_size > *bytes)
        *bytes = (size_t)count * element_size;
}

static void free_pvars(void)
{
    for (int i = 0; i < mpit.count; i++) {
        MPI_T_pvar_handle_free(mpit.session, &mpit.pvars[i].handle);
        free(mpit.pvars[i].name);
    }
    free(mpit.pvars);
    free(mpit.buffer);
    mpit.pvars = NULL, mpit.buffer = NULL, mpit.count = 0;
}

int sg_mpit_start(void)
{
    int provided, exported = 0, world_size = 0;
    /* The layer makes its calls one at a time, not always from one thread. */
    if (MPI_T_init_thread(MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        return -1;
    if (MPI_T_pvar_session_create(&mpit.session) != MPI_SUCCESS) {
        MPI_T_finalize();
        return -1;
    }
    mpit.started = 1;
    mpit.world = MPI_COMM_WORLD;
    if (MPI_T_pvar_get_num(&exported) != MPI_SUCCESS || exported <= 0)
        return 0;
    mpit.exported = exported;
    if (PMPI_Comm_size(MPI_COMM_WORLD, &world_size) != MPI_SUCCESS)
        return 0;
    mpit.pvars = calloc((size_t)exported, sizeof *mpit.pvars);
    if (mpit.pvars == NULL)
        return 0;
    size_t bytes = 0;
    for (int index = 0; index < exported; index++)
        consider(index, world_size, &bytes);
    if (mpit.count > 0 && (mpit.buffer = malloc(bytes)) == NULL)
        free_pvars();
    return mpit.count;
}

void sg_mpit_read_changed(void (*changed)(const char *name, const char *value, void *arg),
                          void *arg)
{
    for (int i = 0; i < mpit.count; i++) {
        struct pvar *v = &mpit.pvars[i];
        if (MPI_T_pvar_read(mpit.session, v->handle, mpit.buffer) != MPI_SUCCESS)
            continue;
        union value now = sum_of(v, mpit.buffer);
        if (!differ(v->element, now, v->last))
            continue;
        v->last = now;
        char text[64];
        print_value(text, sizeof text, v->element, now);
        changed(v->name, text, arg);
    }
}

int sg_mpit_pvars_exported(void)
{
    return mpit.exported;
}

#if MPI_VERSION >= 4

/* Events delivered and not yet drained, oldest first; when the ring is full,
 * later ones are dropped. */
#define EVENT_RING_SIZE 256
struct delivered_event {
    int type;
    double time;
};
static struct {
    pthread_mutex_t lock;
    struct delivered_event ring[EVENT_RING_SIZE];
    unsigned first, length;
} delivered = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct event_type {
    char *name; /* NULL: not registered (bound to an object, or it failed) */
    MPI_T_event_registration registration;
};
static struct {
    int count;
    struct event_type *types; /* by event type index */
} events;

/* Registered as thread safe, not async-signal safe: it takes a mutex. */
static void on_event(MPI_T_event_instance instance, MPI_T_event_registration registration,
                     MPI_T_cb_safety safety, void *type)
{
    (void)instance, (void)registration, (void)safety;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    pthread_mutex_lock(&delivered.lock);
    if (delivered.length < EVENT_RING_SIZE) {
        delivered.ring[(delivered.first + delivered.length++) % EVENT_RING_SIZE] =
            (struct delivered_event){.type = (int)(intptr_t)type,
                                     .time = (double)now.tv_sec + (double)now.tv_nsec * 1e-9};
    }
    pthread_mutex_unlock(&delivered.lock);
}

static void register_event_type(int index)
{
    char name[256];
    int name_length = sizeof name, verbosity, elements = 0, description_length = 0, bind;
    MPI_T_enum enumtype;
    MPI_Info info = MPI_INFO_NULL;
    if (MPI_T_event_get_info(index, name, &name_length, &verbosity, NULL, NULL, &elements,
                             &enumtype, &info, NULL, &description_length, &bind) != MPI_SUCCESS)
        return;
    if (info != MPI_INFO_NULL)
        PMPI_Info_free(&info);
    struct event_type *type = &events.types[index];
    if (bind != MPI_T_BIND_NO_OBJECT ||
        MPI_T_event_handle_alloc(index, NULL, MPI_INFO_NULL, &type->registration) != MPI_SUCCESS)
        return;
    if (MPI_T_event_register_callback(type->registration, MPI_T_CB_REQUIRE_THREAD_SAFE,
                                      MPI_INFO_NULL, (void *)(intptr_t)index,
                                      on_event) != MPI_SUCCESS ||
        (type->name = strdup(name)) == NULL)
        MPI_T_event_handle_free(type->registration, NULL, NULL);
}

int sg_mpit_events_start(void)
{
    int exported = 0;
    if (!mpit.started || MPI_T_event_get_num(&exported) != MPI_SUCCESS || exported <= 0)
        return 0;
    events.types = calloc((size_t)exported, sizeof *events.types);
    if (events.types != NULL) {
        events.count = exported;
        for (int index = 0; index < exported; index++)
            register_event_type(index);
    }
    return exported;
}

void sg_mpit_drain_events(void (*event)(const char *name, double time, void *arg), void *arg)
{
    /* Copied out first: `event` runs without the lock the callbacks take. */
    struct delivered_event drained[EVENT_RING_SIZE];
    pthread_mutex_lock(&delivered.lock);
    unsigned length = delivered.length;
    for (unsigned k = 0; k < length; k++)
        drained[k] = delivered.ring[(delivered.first + k) % EVENT_RING_SIZE];
    delivered.first = (delivered.first + length) % EVENT_RING_SIZE;
    delivered.length = 0;
    pthread_mutex_unlock(&delivered.lock);
    for (unsigned k = 0; k < length; k++) {
        int type = drained[k].type;
        if (type < events.count && events.types[type].name != NULL) /* else after stop */
            event(events.types[type].name, drained[k].time, arg);
    }
}

static void stop_events(void)
{
    for (int index = 0; index < events.count; index++) {
        if (events.types[index].name != NULL) {
            MPI_T_event_handle_free(events.types[index].registration, NULL, NULL);
            free(events.types[index].name);
        }
    }
    free(events.types);
    events.types = NULL, events.count = 0;
    pthread_mutex_lock(&delivered.lock);
    delivered.length = 0;
    pthread_mutex_unlock(&delivered.lock);
}

#else /* mpi.h predates MPI 4: no MPI_T events to ask for */

int sg_mpit_events_start(void)
{
    return 0;
}

void sg_mpit_drain_events(void (*event)(const char *name, double time, void *arg), void *arg)
{
    (void)event, (void)arg;
}

static void stop_events(void)
{
}

#endif

void sg_mpit_stop(void)
{
    if (!mpit.started)
        return;
    stop_events();
    free_pvars();
    MPI_T_pvar_session_free(&mpit.session);
    MPI_T_finalize();
    mpit.started = 0, mpit.exported = 0;
}
