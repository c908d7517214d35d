/* The trace as an OTF2 archive (scaleguard-trace --otf2 ARCHIVE), written with
 * the field's own library (libotf2): the format Score-P writes and Vampir,
 * Scalasca and otf2-print read. One location per rank; each traced call a
 * region entered and left; point-to-point messages as MpiSend/MpiRecv (and
 * their nonblocking forms, completed when the trace's `done` line says);
 * collectives as MpiCollectiveBegin/End with root and bytes; communicators
 * and their groups as definitions; what the layer did as attributes of the
 * call's Leave. Times are the trace's own clock: its ticks dated by the
 * file's clock records (trace/ticks.h) in nanoseconds since the epoch, so
 * the timer resolution is 1 GHz and the global offset the run's first call.
 *
 * ARCHIVE is made new (files/safe_file.h's rules): the archive is written
 * into a fresh directory beside it, reached through its descriptor, and
 * renamed to ARCHIVE only when whole, never over anything there. */
#define _GNU_SOURCE /* renameat2 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "model.h"
#include "safe_file.h"

/* ---- What a routine is to OTF2 ---------------------------------------------- */

/* OTF2 (3.0) has no collective operation for the neighbourhood collectives:
 * their calls are regions of role COLL_OTHER, entered and left with the
 * layer's attributes, without MpiCollectiveBegin/End (another routine's
 * operation there would tell tools a false one); their bytes are in the
 * text form's sent= and received=. */
#define NO_COLLECTIVE_OP ((OTF2_CollectiveOp)UINT8_MAX)

static const struct collective {
    const char *name; /* its family (routine_family) */
    OTF2_CollectiveOp op;
    OTF2_RegionRole role;
} collectives[] = {
    {"Barrier", OTF2_COLLECTIVE_OP_BARRIER, OTF2_REGION_ROLE_BARRIER},
    {"Bcast", OTF2_COLLECTIVE_OP_BCAST, OTF2_REGION_ROLE_COLL_ONE2ALL},
    {"Gather", OTF2_COLLECTIVE_OP_GATHER, OTF2_REGION_ROLE_COLL_ALL2ONE},
    {"Gatherv", OTF2_COLLECTIVE_OP_GATHERV, OTF2_REGION_ROLE_COLL_ALL2ONE},
    {"Scatter", OTF2_COLLECTIVE_OP_SCATTER, OTF2_REGION_ROLE_COLL_ONE2ALL},
    {"Scatterv", OTF2_COLLECTIVE_OP_SCATTERV, OTF2_REGION_ROLE_COLL_ONE2ALL},
    {"Allgather", OTF2_COLLECTIVE_OP_ALLGATHER, OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV, OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL, OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV, OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW, OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Reduce", OTF2_COLLECTIVE_OP_REDUCE, OTF2_REGION_ROLE_COLL_ALL2ONE},
    {"Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER, OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK,
     OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Scan", OTF2_COLLECTIVE_OP_SCAN, OTF2_REGION_ROLE_COLL_OTHER},
    {"Exscan", OTF2_COLLECTIVE_OP_EXSCAN, OTF2_REGION_ROLE_COLL_OTHER},
    {"Neighbor_allgather", NO_COLLECTIVE_OP, OTF2_REGION_ROLE_COLL_OTHER},
    {"Neighbor_allgatherv", NO_COLLECTIVE_OP, OTF2_REGION_ROLE_COLL_OTHER},
    {"Neighbor_alltoall", NO_COLLECTIVE_OP, OTF2_REGION_ROLE_COLL_OTHER},
    {"Neighbor_alltoallv", NO_COLLECTIVE_OP, OTF2_REGION_ROLE_COLL_OTHER},
    {"Neighbor_alltoallw", NO_COLLECTIVE_OP, OTF2_REGION_ROLE_COLL_OTHER},
};

/* The collective `routine` is a form of (MPI_Iallreduce_c: Allreduce), or
 * NULL. A persistent form's `_init` is none: it moves no data (its
 * MPI_Start calls do, and the trace has no record of them), so its region
 * is a FUNCTION without collective events. */
static const struct collective *collective_of(const char *routine)
{
    char family[sizeof ((struct call *)0)->routine];
    if (routine_family(routine, family, sizeof family))
        return NULL;
    for (size_t i = 0; i < sizeof collectives / sizeof collectives[0]; i++)
        if (strcmp(family, collectives[i].name) == 0)
            return &collectives[i];
    return NULL;
}

static int nonblocking(const char *routine)
{
    return routine[4] == 'I';
}

static int point_to_point(const char *routine)
{
    static const char *const receives[] = {"MPI_Recv", "MPI_Irecv", "MPI_Probe", "MPI_Iprobe"};
    for (size_t i = 0; i < sizeof receives / sizeof receives[0]; i++)
        if (strcmp(routine, receives[i]) == 0)
            return 1;
    return routine_sends(routine);
}

/* ---- Definitions as they are met --------------------------------------------- */

struct strings {
    char **items;
    size_t count, capacity;
};

/* The reference of `text`, defined on first use. Returns OTF2_UNDEFINED_STRING
 * when out of memory. */
static OTF2_StringRef string_ref(struct strings *s, const char *text)
{
    for (size_t i = 0; i < s->count; i++)
        if (strcmp(s->items[i], text) == 0)
            return (OTF2_StringRef)i;
    if (s->count == s->capacity) {
        size_t more = s->capacity ? 2 * s->capacity : 64;
        char **grown = realloc(s->items, more * sizeof *grown);
        if (grown == NULL)
            return OTF2_UNDEFINED_STRING;
        s->items = grown;
        s->capacity = more;
    }
    if ((s->items[s->count] = strdup(text)) == NULL)
        return OTF2_UNDEFINED_STRING;
    return (OTF2_StringRef)s->count++;
}

/* A communicator's ranks: its members' world ranks in the order of the
 * trace's list (ascending world ranks) and, per world rank, its rank in it. */
struct comm_ranks {
    uint64_t *members; /* world ranks, which are the OTF2 locations' indices */
    uint32_t count;
    uint32_t *of_world; /* OTF2_UNDEFINED_UINT32: not a member */
};

/* The members of `comm` from its RANGES ("0-3,8"); where the trace could
 * not list them ("-"), the ranks that made calls on it. */
static int comm_ranks_of(const struct trace *t, const struct comm *comm, struct comm_ranks *r)
{
    r->count = 0;
    r->members = malloc((size_t)t->procs * sizeof *r->members);
    r->of_world = malloc((size_t)t->procs * sizeof *r->of_world);
    if (r->members == NULL || r->of_world == NULL)
        return -1;
    for (int w = 0; w < t->procs; w++)
        r->of_world[w] = OTF2_UNDEFINED_UINT32;
    if (strcmp(comm->members, "-") == 0) {
        for (size_t i = 0; i < t->call_count; i++) {
            int w = t->calls[i].rank;
            if (t->calls[i].comm == comm->id && r->of_world[w] == OTF2_UNDEFINED_UINT32)
                r->of_world[w] = 0;
        }
        for (int w = 0; w < t->procs; w++)
            if (r->of_world[w] == 0)
                r->of_world[w] = r->count, r->members[r->count++] = (uint64_t)w;
        return 0;
    }
    for (const char *p = comm->members; *p != '\0';) {
        char *end;
        long first = strtol(p, &end, 10), last = first;
        if (*end == '-')
            last = strtol(end + 1, &end, 10);
        if (end == p || first < 0 || last < first || last >= t->procs ||
            (*end != ',' && *end != '\0'))
            return -1;
        for (long w = first; w <= last; w++)
            if (r->of_world[w] == OTF2_UNDEFINED_UINT32)
                r->of_world[w] = r->count, r->members[r->count++] = (uint64_t)w;
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}

enum attribute { DID, WHY, SUBS, SUB_CALLS, NUMBER, SIGNATURE, ATTRIBUTES };
static const struct {
    const char *name, *description;
    OTF2_Type type;
} attributes[ATTRIBUTES] = {
    [DID] = {"scaleguard:did",
             "what the layer did: plain, W1-A, W1-B, W2, W3, W4 (a workaround), or left",
             OTF2_TYPE_STRING},
    [WHY] = {"scaleguard:why", "why the layer left the call alone", OTF2_TYPE_STRING},
    [SUBS] = {"scaleguard:subs", "the sub-calls the workaround made", OTF2_TYPE_UINT64},
    [SUB_CALLS] = {"scaleguard:sub_calls", "the workaround's sub-calls, in order",
                   OTF2_TYPE_STRING},
    [NUMBER] = {"scaleguard:n", "the collective's number on its communicator (1, 2, ...)",
                OTF2_TYPE_UINT64},
    [SIGNATURE] = {"scaleguard:sig", "the type signature hash the collective checks computed",
                   OTF2_TYPE_STRING},
};

struct archive {
    const struct trace *t;
    OTF2_Archive *otf2;
    struct strings strings;
    struct comm_ranks *ranks; /* per t->comms */
    uint64_t first, last;     /* the run's first and last time, ns */
    OTF2_AttributeList *list;
    const struct call **completions; /* the calls completed later (a `done` line), by rank
                                       * and time of completion */
    size_t completion_count;
    uint64_t written; /* the location's last time written */
};

static OTF2_CommRef comm_ref(const struct archive *a, uint64_t id)
{
    for (size_t i = 0; i < a->t->comm_count; i++)
        if (a->t->comms[i].id == id)
            return (OTF2_CommRef)i;
    return OTF2_UNDEFINED_COMM;
}

/* A world rank's rank in communicator `comm` (OTF2's receiver, sender,
 * root), or OTF2_UNDEFINED_UINT32 (MPI_ANY_SOURCE, not a member). */
static uint32_t rank_in(const struct archive *a, OTF2_CommRef comm, int64_t world)
{
    if (comm == OTF2_UNDEFINED_COMM || world < 0 || world >= a->t->procs)
        return OTF2_UNDEFINED_UINT32;
    return a->ranks[comm].of_world[world];
}

static uint32_t tag_of(int64_t tag)
{
    return tag < 0 || tag > UINT32_MAX ? OTF2_UNDEFINED_UINT32 : (uint32_t)tag;
}

static uint64_t bytes_of(int64_t bytes)
{
    return bytes < 0 ? 0 : (uint64_t)bytes;
}

/* ---- Events ------------------------------------------------------------------ */

static int completion_order(const void *a, const void *b)
{
    const struct call *x = *(const struct call *const *)a, *y = *(const struct call *const *)b;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    if (x->completed_ns != y->completed_ns)
        return (x->completed_ns > y->completed_ns) - (x->completed_ns < y->completed_ns);
    return (x->index > y->index) - (x->index < y->index);
}

/* The attributes of call `c`'s Leave: what the layer did. */
static void add_layer_attributes(struct archive *a, const struct call *c)
{
    if (c->did[0] != '\0')
        OTF2_AttributeList_AddStringRef(a->list, DID, string_ref(&a->strings, c->did));
    if (c->why[0] != '\0')
        OTF2_AttributeList_AddStringRef(a->list, WHY, string_ref(&a->strings, c->why));
    if (c->number != NONE)
        OTF2_AttributeList_AddUint64(a->list, NUMBER, (uint64_t)c->number);
    if (c->signature[0] != '\0')
        OTF2_AttributeList_AddStringRef(a->list, SIGNATURE,
                                        string_ref(&a->strings, c->signature));
    if (c->subs != NONE) {
        OTF2_AttributeList_AddUint64(a->list, SUBS, (uint64_t)c->subs);
        char calls[1024] = "";
        size_t used = 0;
        for (size_t j = 0; j < c->sub_count && used < sizeof calls; j++)
            used += (size_t)snprintf(calls + used, sizeof calls - used, "%s%s", j ? "," : "",
                                     a->t->subs[c->first_sub + j].routine);
        if (c->sub_count > 0)
            OTF2_AttributeList_AddStringRef(a->list, SUB_CALLS, string_ref(&a->strings, calls));
    }
}

/* `time`, or the location's last time written when it is earlier: OTF2
 * takes a location's events in order, and calls of threads at once (or
 * times rounded to the nanosecond each on its own) can overlap. */
static uint64_t in_order(struct archive *a, uint64_t time)
{
    if (time < a->written)
        return a->written;
    return a->written = time;
}

/* The completion of nonblocking call `posted` (its `done` line), at `at`. */
static OTF2_ErrorCode write_completion(struct archive *a, OTF2_EvtWriter *w,
                                       const struct call *posted, uint64_t at)
{
    uint64_t request = (uint64_t)posted->request;
    if (posted->cancelled)
        return OTF2_EvtWriter_MpiRequestCancelled(w, NULL, at, request);
    if (routine_sends(posted->routine))
        return OTF2_EvtWriter_MpiIsendComplete(w, NULL, at, request);
    if (strcmp(posted->routine, "MPI_Irecv") != 0 || posted->completed_source == NONE)
        return OTF2_SUCCESS; /* no status: nothing known of a message */
    OTF2_CommRef comm = comm_ref(a, posted->comm);
    return OTF2_EvtWriter_MpiIrecv(w, NULL, at, rank_in(a, comm, posted->completed_source), comm,
                                   tag_of(posted->completed_tag),
                                   bytes_of(posted->completed_bytes), request);
}

/* The rank's completions up to time `until` (ns), each at its time, from
 * a->completions[*next] on. */
static OTF2_ErrorCode write_completions(struct archive *a, OTF2_EvtWriter *w, int rank,
                                        uint64_t until, size_t *next)
{
    OTF2_ErrorCode e = OTF2_SUCCESS;
    for (; e == OTF2_SUCCESS && *next < a->completion_count; ++*next) {
        const struct call *posted = a->completions[*next];
        if (posted->rank != rank || (uint64_t)posted->completed_ns > until)
            break;
        e = write_completion(a, w, posted, in_order(a, (uint64_t)posted->completed_ns));
    }
    return e;
}

/* The events of one call, from its Enter to its Leave, and before its Enter
 * the completions since the last call's Leave; `next` walks the rank's
 * completions: those inside the call (a Wait's) are in its region. */
static OTF2_ErrorCode write_call(struct archive *a, OTF2_EvtWriter *w, OTF2_RegionRef region,
                                 const struct call *c, size_t *next)
{
    uint64_t enter = (uint64_t)c->start_ns, leave = enter + (uint64_t)c->duration_ns;
    OTF2_CommRef comm = comm_ref(a, c->comm);
    const struct collective *coll = c->number != NONE ? collective_of(c->routine) : NULL;
    if (coll != NULL && coll->op == NO_COLLECTIVE_OP)
        coll = NULL; /* its region's role says what it is */
    OTF2_ErrorCode e = enter > 0 ? write_completions(a, w, c->rank, enter - 1, next)
                                 : OTF2_SUCCESS;
    enter = in_order(a, enter);
    if (e == OTF2_SUCCESS)
        e = OTF2_EvtWriter_Enter(w, NULL, enter, region);
    if (e == OTF2_SUCCESS && coll != NULL)
        e = OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, enter);
    if (e == OTF2_SUCCESS && routine_sends(c->routine) && c->peer != NONE) {
        uint32_t to = rank_in(a, comm, c->peer), tag = tag_of(c->tag);
        if (nonblocking(c->routine))
            e = OTF2_EvtWriter_MpiIsend(w, NULL, enter, to, comm, tag, bytes_of(c->bytes),
                                        c->request != NONE ? (uint64_t)c->request
                                                           : OTF2_UNDEFINED_UINT64);
        else
            e = OTF2_EvtWriter_MpiSend(w, NULL, enter, to, comm, tag, bytes_of(c->bytes));
    }
    if (e == OTF2_SUCCESS && strcmp(c->routine, "MPI_Irecv") == 0 && c->request != NONE)
        e = OTF2_EvtWriter_MpiIrecvRequest(w, NULL, enter, (uint64_t)c->request);
    if (e == OTF2_SUCCESS)
        e = write_completions(a, w, c->rank, leave, next);
    leave = in_order(a, leave);
    /* a blocking receive's message: its peer= and tag= as the call named them
     * (the trace has no status of a blocking call); Sendrecv's receive side is
     * source= and source_tag=, its length not in the trace but for _replace */
    if (e == OTF2_SUCCESS && strcmp(c->routine, "MPI_Recv") == 0 && c->peer != NONE)
        e = OTF2_EvtWriter_MpiRecv(w, NULL, leave, rank_in(a, comm, c->peer), comm,
                                   tag_of(c->tag), bytes_of(c->bytes));
    if (e == OTF2_SUCCESS && c->source != NONE)
        e = OTF2_EvtWriter_MpiRecv(w, NULL, leave, rank_in(a, comm, c->source), comm,
                                   tag_of(c->source_tag),
                                   strcmp(c->routine, "MPI_Sendrecv_replace") == 0
                                       ? bytes_of(c->bytes)
                                       : 0);
    if (e == OTF2_SUCCESS && coll != NULL)
        e = OTF2_EvtWriter_MpiCollectiveEnd(
            w, NULL, leave, coll->op, comm,
            c->root != NONE ? rank_in(a, comm, c->root) : OTF2_UNDEFINED_UINT32,
            bytes_of(c->sent), bytes_of(c->received));
    if (e == OTF2_SUCCESS) {
        add_layer_attributes(a, c);
        e = OTF2_EvtWriter_Leave(w, a->list, leave, region);
    }
    return e;
}

/* The region of `routine`: its index among the trace's routines, which
 * `routines` collects. */
static OTF2_RegionRef region_ref(struct strings *routines, const char *routine)
{
    return (OTF2_RegionRef)string_ref(routines, routine);
}

static OTF2_ErrorCode write_events(struct archive *a, struct strings *routines,
                                   uint64_t *events)
{
    size_t i = 0, next = 0;
    for (int rank = 0; rank < a->t->procs; rank++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a->otf2, (OTF2_LocationRef)rank);
        if (w == NULL)
            return OTF2_ERROR_INVALID;
        OTF2_ErrorCode e = OTF2_SUCCESS;
        a->written = 0;
        for (; e == OTF2_SUCCESS && i < a->t->call_count && a->t->calls[i].rank == rank; i++) {
            OTF2_RegionRef region = region_ref(routines, a->t->calls[i].routine);
            if (region == OTF2_UNDEFINED_REGION)
                return OTF2_ERROR_MEM_ALLOC_FAILED;
            e = write_call(a, w, region, &a->t->calls[i], &next);
        }
        if (e == OTF2_SUCCESS) /* after the last call (its record lost with the file's tail) */
            e = write_completions(a, w, rank, UINT64_MAX, &next);
        if (e == OTF2_SUCCESS)
            e = OTF2_EvtWriter_GetNumberOfEvents(w, &events[rank]);
        OTF2_ErrorCode closed = OTF2_Archive_CloseEvtWriter(a->otf2, w);
        if (e != OTF2_SUCCESS || closed != OTF2_SUCCESS)
            return e != OTF2_SUCCESS ? e : closed;
    }
    return OTF2_SUCCESS;
}

/* ---- Global definitions --------------------------------------------------------- */

#define REGION_DESCRIPTION "an MPI call (traced by ScaleGuard)"

static void rank_name(int rank, char *name, size_t size)
{
    snprintf(name, size, "rank %d", rank);
}

static void comm_name(const struct comm *c, char *name, size_t size)
{
    snprintf(name, size, "comm %016" PRIx64 " (%d ranks)", c->id, c->size);
}

/* Readers resolve a definition's strings as they read it: the strings go
 * first, so every one the definitions name is made here beforehand. */
static void make_definition_strings(struct archive *a, const struct strings *routines)
{
    struct strings *s = &a->strings;
    char name[64];
    for (size_t r = 0; r < routines->count; r++)
        string_ref(s, routines->items[r]);
    string_ref(s, REGION_DESCRIPTION);
    string_ref(s, "");
    for (int i = 0; i < ATTRIBUTES; i++)
        string_ref(s, attributes[i].name), string_ref(s, attributes[i].description);
    string_ref(s, a->t->files[0].job);
    string_ref(s, "machine");
    string_ref(s, "node");
    string_ref(s, "MPI ranks");
    for (int rank = 0; rank < a->t->procs; rank++) {
        string_ref(s, a->t->files[rank].host);
        rank_name(rank, name, sizeof name);
        string_ref(s, name);
    }
    for (size_t i = 0; i < a->t->comm_count; i++) {
        comm_name(&a->t->comms[i], name, sizeof name);
        string_ref(s, name);
    }
}

static OTF2_ErrorCode write_definitions(struct archive *a, const struct strings *routines,
                                        const uint64_t *events)
{
    const struct trace *t = a->t;
    OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(a->otf2);
    if (d == NULL)
        return OTF2_ERROR_INVALID;
    struct strings *s = &a->strings;
    make_definition_strings(a, routines);
    size_t made = s->count;
    OTF2_ErrorCode e = OTF2_GlobalDefWriter_WriteClockProperties(
        d, 1000000000, a->first, a->last - a->first, a->first);
    for (size_t i = 0; e == OTF2_SUCCESS && i < made; i++)
        e = OTF2_GlobalDefWriter_WriteString(d, (OTF2_StringRef)i, s->items[i]);
    /* regions: the routines' names are their strings too */
    for (size_t r = 0; e == OTF2_SUCCESS && r < routines->count; r++) {
        const char *routine = routines->items[r];
        const struct collective *coll = collective_of(routine);
        OTF2_RegionRole role = coll ? coll->role
                               : point_to_point(routine) ? OTF2_REGION_ROLE_POINT2POINT
                                                         : OTF2_REGION_ROLE_FUNCTION;
        OTF2_StringRef name = string_ref(s, routine);
        e = OTF2_GlobalDefWriter_WriteRegion(d, (OTF2_RegionRef)r, name, name,
                                             string_ref(s, REGION_DESCRIPTION),
                                             role, OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE,
                                             string_ref(s, ""), 0, 0);
    }
    for (int i = 0; e == OTF2_SUCCESS && i < ATTRIBUTES; i++)
        e = OTF2_GlobalDefWriter_WriteAttribute(d, (OTF2_AttributeRef)i,
                                                string_ref(s, attributes[i].name),
                                                string_ref(s, attributes[i].description),
                                                attributes[i].type);
    /* the system tree: the machine, its hosts, a process (location group)
     * and a location per rank */
    if (e == OTF2_SUCCESS)
        e = OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, string_ref(s, t->files[0].job),
                                                     string_ref(s, "machine"),
                                                     OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    struct strings hosts = {0};
    for (int rank = 0; e == OTF2_SUCCESS && rank < t->procs; rank++) {
        size_t known = hosts.count;
        OTF2_SystemTreeNodeRef host = 1 + string_ref(&hosts, t->files[rank].host);
        if (host == OTF2_UNDEFINED_SYSTEM_TREE_NODE)
            e = OTF2_ERROR_MEM_ALLOC_FAILED;
        else if (hosts.count > known)
            e = OTF2_GlobalDefWriter_WriteSystemTreeNode(d, host,
                                                         string_ref(s, t->files[rank].host),
                                                         string_ref(s, "node"), 0);
        char name[32];
        rank_name(rank, name, sizeof name);
        OTF2_StringRef named = string_ref(s, name);
        if (e == OTF2_SUCCESS)
            e = OTF2_GlobalDefWriter_WriteLocationGroup(d, (OTF2_LocationGroupRef)rank, named,
                                                        OTF2_LOCATION_GROUP_TYPE_PROCESS, host,
                                                        OTF2_UNDEFINED_LOCATION_GROUP);
        if (e == OTF2_SUCCESS)
            e = OTF2_GlobalDefWriter_WriteLocation(d, (OTF2_LocationRef)rank, named,
                                                   OTF2_LOCATION_TYPE_CPU_THREAD, events[rank],
                                                   (OTF2_LocationGroupRef)rank);
    }
    for (size_t i = 0; i < hosts.count; i++)
        free(hosts.items[i]);
    free(hosts.items);
    /* MPI's groups: group 0 lists the locations in world rank order; each
     * communicator's group its members, as indices into group 0 */
    uint64_t *world = malloc((size_t)t->procs * sizeof *world);
    if (world == NULL && e == OTF2_SUCCESS)
        e = OTF2_ERROR_MEM_ALLOC_FAILED;
    for (int rank = 0; e == OTF2_SUCCESS && rank < t->procs; rank++)
        world[rank] = (uint64_t)rank;
    if (e == OTF2_SUCCESS)
        e = OTF2_GlobalDefWriter_WriteGroup(d, 0, string_ref(s, "MPI ranks"),
                                            OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                            OTF2_GROUP_FLAG_NONE, (uint32_t)t->procs, world);
    free(world);
    for (size_t i = 0; e == OTF2_SUCCESS && i < t->comm_count; i++) {
        const struct comm *c = &t->comms[i];
        char name[64];
        comm_name(c, name, sizeof name);
        e = OTF2_GlobalDefWriter_WriteGroup(d, (OTF2_GroupRef)(1 + i), string_ref(s, name),
                                            OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                            OTF2_GROUP_FLAG_NONE, a->ranks[i].count,
                                            a->ranks[i].members);
        OTF2_CommRef parent = c->parent ? comm_ref(a, c->parent) : OTF2_UNDEFINED_COMM;
        if (e == OTF2_SUCCESS)
            e = OTF2_GlobalDefWriter_WriteComm(d, (OTF2_CommRef)i, string_ref(s, name),
                                               (OTF2_GroupRef)(1 + i), parent,
                                               OTF2_COMM_FLAG_NONE);
    }
    if (e == OTF2_SUCCESS && s->count != made) /* a string make_definition_strings missed */
        e = OTF2_ERROR_INVALID;
    OTF2_ErrorCode closed = OTF2_Archive_CloseGlobalDefWriter(a->otf2, d);
    return e != OTF2_SUCCESS ? e : closed;
}

/* ---- The archive -------------------------------------------------------------- */

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location,
                                void *caller, bool final)
{
    (void)user, (void)type, (void)location, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef location)
{
    (void)user, (void)type, (void)location;
    return 0;
}

/* Local definitions: none, but each location has its file, as readers expect. */
static OTF2_ErrorCode write_local_definitions(struct archive *a)
{
    OTF2_ErrorCode e = OTF2_Archive_OpenDefFiles(a->otf2);
    for (int rank = 0; e == OTF2_SUCCESS && rank < a->t->procs; rank++) {
        OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(a->otf2, (OTF2_LocationRef)rank);
        e = w == NULL ? OTF2_ERROR_INVALID : OTF2_Archive_CloseDefWriter(a->otf2, w);
    }
    OTF2_ErrorCode closed = OTF2_Archive_CloseDefFiles(a->otf2);
    return e != OTF2_SUCCESS ? e : closed;
}

/* The archive in the directory `path` (which exists, empty). */
static int write_archive(struct archive *a, const char *path)
{
    struct strings routines = {0};
    uint64_t *events = calloc((size_t)a->t->procs, sizeof *events);
    /* the smallest chunks: a reader holds one per location (16 MiB at
     * 1,024 ranks, not the default's 1 GiB) */
    a->otf2 = OTF2_Archive_Open(path, "traces", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
                                OTF2_CHUNK_SIZE_MIN, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    a->list = OTF2_AttributeList_New();
    OTF2_ErrorCode e = a->otf2 == NULL || a->list == NULL || events == NULL
                           ? OTF2_ERROR_MEM_ALLOC_FAILED
                           : OTF2_SUCCESS;
    static const OTF2_FlushCallbacks flush = {pre_flush, post_flush};
    if (e == OTF2_SUCCESS)
        e = OTF2_Archive_SetFlushCallbacks(a->otf2, &flush, NULL);
    if (e == OTF2_SUCCESS)
        e = OTF2_Archive_SetSerialCollectiveCallbacks(a->otf2);
    if (e == OTF2_SUCCESS)
        e = OTF2_Archive_SetCreator(a->otf2, "scaleguard-trace " SCALEGUARD_VERSION);
    if (e == OTF2_SUCCESS)
        e = OTF2_Archive_SetDescription(a->otf2, a->t->files[0].job);
    if (e == OTF2_SUCCESS)
        e = OTF2_Archive_OpenEvtFiles(a->otf2);
    if (e == OTF2_SUCCESS) {
        e = write_events(a, &routines, events);
        OTF2_ErrorCode closed = OTF2_Archive_CloseEvtFiles(a->otf2);
        e = e != OTF2_SUCCESS ? e : closed;
    }
    if (e == OTF2_SUCCESS)
        e = write_local_definitions(a);
    if (e == OTF2_SUCCESS)
        e = write_definitions(a, &routines, events);
    if (a->otf2 != NULL) {
        OTF2_ErrorCode closed = OTF2_Archive_Close(a->otf2);
        e = e != OTF2_SUCCESS ? e : closed;
    }
    if (a->list != NULL)
        OTF2_AttributeList_Delete(a->list);
    for (size_t i = 0; i < routines.count; i++)
        free(routines.items[i]);
    free(routines.items);
    free(events);
    if (e != OTF2_SUCCESS)
        fprintf(stderr, "scaleguard-trace: the OTF2 archive: %s (%s)\n",
                OTF2_Error_GetName(e), OTF2_Error_GetDescription(e));
    return e == OTF2_SUCCESS ? 0 : -1;
}

/* Remove the directory `name` in `dir` and what is in it, made here: never
 * through a link (a link is removed, not followed). */
static void remove_tree(int dir, const char *name)
{
    int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (d == NULL && fd >= 0)
        close(fd);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
            remove_tree(dirfd(d), e->d_name);
        else
            unlinkat(dirfd(d), e->d_name, 0);
    }
    if (d != NULL)
        closedir(d);
    unlinkat(dir, name, AT_REMOVEDIR);
}

static int prepare(struct archive *a, const struct trace *t)
{
    *a = (struct archive){.t = t, .first = UINT64_MAX};
    a->ranks = calloc(t->comm_count ? t->comm_count : 1, sizeof *a->ranks);
    a->completions = malloc((t->call_count ? t->call_count : 1) * sizeof *a->completions);
    if (a->ranks == NULL || a->completions == NULL)
        return -1;
    for (size_t i = 0; i < t->comm_count; i++)
        if (comm_ranks_of(t, &t->comms[i], &a->ranks[i]) != 0) {
            fprintf(stderr, "scaleguard-trace: communicator %016" PRIx64 ": its members '%s' "
                            "are not ranks of the job's %d\n",
                    t->comms[i].id, t->comms[i].members, t->procs);
            return -1;
        }
    for (size_t i = 0; i < t->call_count; i++)
        if (t->calls[i].completed >= 0 && t->calls[i].request != NONE)
            a->completions[a->completion_count++] = &t->calls[i];
    if (a->completion_count > 0)
        qsort(a->completions, a->completion_count, sizeof *a->completions, completion_order);
    for (size_t i = 0; i < t->call_count; i++) {
        uint64_t start = (uint64_t)t->calls[i].start_ns;
        uint64_t end = start + (uint64_t)t->calls[i].duration_ns;
        a->first = start < a->first ? start : a->first;
        a->last = end > a->last ? end : a->last;
    }
    if (a->first > a->last)
        a->first = a->last = 0;
    return 0;
}

static void release(struct archive *a)
{
    for (size_t i = 0; a->ranks != NULL && i < a->t->comm_count; i++)
        free(a->ranks[i].members), free(a->ranks[i].of_world);
    free(a->ranks);
    free(a->completions);
    for (size_t i = 0; i < a->strings.count; i++)
        free(a->strings.items[i]);
    free(a->strings.items);
}

int write_otf2(const struct trace *t, const char *given)
{
    char path[4096], name[256], why[256], fresh[300], where[64];
    size_t length = strlen(given);
    while (length > 1 && given[length - 1] == '/') /* ARCHIVE/ is ARCHIVE */
        length--;
    if (length >= sizeof path) {
        fprintf(stderr, "scaleguard-trace: %s: too long a path\n", given);
        return -1;
    }
    snprintf(path, sizeof path, "%.*s", (int)length, given);
    int parent = sg_safe_parent(path, name, sizeof name, why, sizeof why);
    if (parent < 0) {
        fprintf(stderr, "scaleguard-trace: cannot write the OTF2 archive %s: %s\n", path, why);
        return -1;
    }
    struct stat st;
    if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        fprintf(stderr, "scaleguard-trace: %s exists: the OTF2 archive goes to a new directory "
                        "(nothing there is written over)\n", path);
        close(parent);
        return -1;
    }
    /* written in a directory made here, reached through its descriptor
     * (libotf2 opens paths) */
    snprintf(fresh, sizeof fresh, ".%s.%ld.partial", name, (long)getpid());
    int made = 0;
    int archive_dir = sg_safe_subdir(parent, fresh, 1, &made, why, sizeof why);
    if (archive_dir < 0 || !made) {
        fprintf(stderr, "scaleguard-trace: cannot make a directory beside %s: %s\n", path,
                archive_dir < 0 ? why : "an earlier one of the same name is there");
        if (archive_dir >= 0)
            close(archive_dir);
        close(parent);
        return -1;
    }
    snprintf(where, sizeof where, "/proc/self/fd/%d", archive_dir);
    struct archive a;
    int failed = prepare(&a, t) != 0 || write_archive(&a, where) != 0;
    release(&a);
    close(archive_dir);
    if (!failed && renameat2(parent, fresh, parent, name, RENAME_NOREPLACE) != 0) {
        fprintf(stderr, "scaleguard-trace: cannot name the OTF2 archive %s: %s\n", path,
                strerror(errno));
        failed = 1;
    }
    if (failed)
        remove_tree(parent, fresh);
    close(parent);
    return failed ? -1 : 0;
}
