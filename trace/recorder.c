/* The trace's buffer and file (trace.h, FORMAT.md). A call appends a
 * binary entry to the rank's buffer under one lock; the text is made when
 * the buffer is written (when full, and at MPI_Finalize), by hand-written
 * number formatting, so that tracing a call costs little more than the
 * copy. A job killed in between loses the buffer: the file then lacks its
 * `end` line. */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collective.h"
#include "mpit.h"

enum entry_type { ENTRY_CALL = 1, ENTRY_SUB, ENTRY_DONE, ENTRY_TEXT };

/* The fields a call entry has, beyond its routine, communicator and times. */
enum {
    HAS_NUMBER = 1 << 0,
    HAS_ROOT = 1 << 1,
    HAS_PEER = 1 << 2,
    HAS_TAG = 1 << 3,
    HAS_SOURCE = 1 << 4,
    HAS_SOURCE_TAG = 1 << 5,
    HAS_COUNT = 1 << 6,
    HAS_SIDES = 1 << 7,
    HAS_REQUEST = 1 << 8,
    HAS_SIGNATURE = 1 << 9,
};

struct call_entry {
    uint64_t index, comm, number, request, signature;
    int64_t start_ns, duration_ns, count, bytes, sent, received;
    const char *routine, *did, *why;
    int root, peer, tag, source, source_tag, subs;
    unsigned has;
};

struct sub_entry {
    uint64_t index;
    int64_t start_ns, duration_ns;
    const char *routine;
    int j;
};

struct done_entry {
    uint64_t request, index;
    int64_t at_ns, bytes;
    int source, tag, has_status, cancelled;
};

/* An entry in the buffer: this header, then `length` bytes, padded to 8. */
struct entry_header {
    uint32_t type, length;
};

/* A request of a non-blocking call, until a completion call sees it end. */
struct tracked {
    uint64_t handle; /* the MPI_Request's bits; 0: a free slot */
    uint64_t request, index;
    int receive;
    int source;      /* a receive's world rank, -1: MPI_ANY_SOURCE */
    int *world;      /* a receive from MPI_ANY_SOURCE: its communicator's world ranks */
    int world_size;
};

static struct {
    pthread_mutex_t lock;
    int fd;
    char path[PATH_MAX];
    char *data;
    size_t used, size;
    uint64_t calls_written, lost;
    atomic_uint_fast64_t next_index;
    /* the requests in flight: open addressing, a power of two */
    struct tracked *tracked;
    size_t tracked_slots, tracked_count;
    uint64_t next_request;
    int pvars; /* performance variables read after each call (mpit.h) */
} trace = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

/* ---- Text ---------------------------------------------------------------- */

/* Hand-made number formatting: the buffer's text costs a few nanoseconds
 * a field (snprintf would cost as much as a small collective). */
static char *put_u64(char *p, uint64_t v)
{
    char digits[20];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n > 0)
        *p++ = digits[--n];
    return p;
}

static char *put_i64(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return put_u64(p, (uint64_t)0 - (uint64_t)v);
    }
    return put_u64(p, (uint64_t)v);
}

static char *put_hex16(char *p, uint64_t v)
{
    for (int shift = 60; shift >= 0; shift -= 4)
        *p++ = "0123456789abcdef"[(v >> shift) & 15];
    return p;
}

/* Nanoseconds as seconds with 6 decimals. */
static char *put_seconds(char *p, int64_t ns)
{
    if (ns < 0) {
        *p++ = '-';
        ns = -ns;
    }
    int64_t micro = (ns + 500) / 1000;
    p = put_u64(p, (uint64_t)(micro / 1000000));
    *p++ = '.';
    int64_t fraction = micro % 1000000;
    for (int64_t unit = 100000; unit > 0; unit /= 10)
        *p++ = (char)('0' + fraction / unit % 10);
    return p;
}

static char *put_text(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

static char *put_field(char *p, const char *key, int64_t v)
{
    return put_i64(put_text(p, key), v);
}

/* A call's line: at most 16 fields of at most 30 bytes and its names. */
#define LINE_MAX_BYTES 1024

static char *format_call(char *p, const struct call_entry *e)
{
    p = put_u64(put_text(p, "call "), e->index);
    *p++ = ' ';
    p = put_text(p, e->routine);
    p = put_hex16(put_text(p, " comm="), e->comm);
    p = put_seconds(put_text(p, " t="), e->start_ns);
    p = put_seconds(put_text(p, " d="), e->duration_ns);
    if (e->has & HAS_NUMBER)
        p = put_field(p, " n=", (int64_t)e->number);
    if (e->has & HAS_ROOT)
        p = put_field(p, " root=", e->root);
    if (e->has & HAS_PEER)
        p = put_field(p, " peer=", e->peer);
    if (e->has & HAS_TAG)
        p = put_field(p, " tag=", e->tag);
    if (e->has & HAS_SOURCE)
        p = put_field(p, " source=", e->source);
    if (e->has & HAS_SOURCE_TAG)
        p = put_field(p, " source_tag=", e->source_tag);
    if (e->has & HAS_COUNT)
        p = put_field(put_field(p, " count=", e->count), " bytes=", e->bytes);
    if (e->has & HAS_SIDES)
        p = put_field(put_field(p, " sent=", e->sent), " received=", e->received);
    if (e->has & HAS_SIGNATURE)
        p = put_hex16(put_text(p, " sig="), e->signature);
    if (e->did != NULL)
        p = put_text(put_text(p, " did="), e->did);
    if (e->why != NULL)
        p = put_text(put_text(p, " why="), e->why);
    if (e->subs > 0)
        p = put_field(p, " subs=", e->subs);
    if (e->has & HAS_REQUEST)
        p = put_field(p, " req=", (int64_t)e->request);
    return p;
}

static char *format_sub(char *p, const struct sub_entry *e)
{
    p = put_u64(put_text(p, "sub "), e->index);
    p = put_field(p, " ", e->j);
    *p++ = ' ';
    p = put_text(p, e->routine);
    p = put_seconds(put_text(p, " t="), e->start_ns);
    return put_seconds(put_text(p, " d="), e->duration_ns);
}

static char *format_done(char *p, const struct done_entry *e)
{
    p = put_u64(put_text(p, "done "), e->request);
    p = put_field(p, " ", (int64_t)e->index);
    p = put_seconds(put_text(p, " t="), e->at_ns);
    if (e->has_status) {
        if (e->source >= 0)
            p = put_field(p, " source=", e->source);
        p = put_field(put_field(p, " tag=", e->tag), " bytes=", e->bytes);
    }
    if (e->cancelled)
        p = put_text(p, " cancelled=1");
    return p;
}

/* ---- The file --------------------------------------------------------------- */

static void write_out(const char *text, size_t length)
{
    while (trace.fd >= 0 && length > 0) {
        ssize_t n = write(trace.fd, text, length);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            fprintf(stderr, "scaleguard: trace: cannot write %s (%s); the rest of this rank's "
                            "trace is lost\n", trace.path, strerror(errno));
            close(trace.fd);
            trace.fd = -1;
            return;
        }
        text += n;
        length -= (size_t)n;
    }
}

/* The buffer as text, into the file; under the lock. */
static void flush_locked(void)
{
    static char out[1 << 16];
    size_t at = 0;
    for (size_t offset = 0; offset < trace.used;) {
        const struct entry_header *h = (const void *)(trace.data + offset);
        const void *payload = h + 1;
        offset += sizeof *h + ((h->length + 7u) & ~(size_t)7);
        if (trace.fd < 0) { /* the file failed */
            trace.lost++;
            continue;
        }
        if (at + LINE_MAX_BYTES + h->length > sizeof out) {
            write_out(out, at);
            at = 0;
        }
        char *p = out + at;
        switch (h->type) {
        case ENTRY_CALL:
            p = format_call(p, payload);
            trace.calls_written++;
            break;
        case ENTRY_SUB:
            p = format_sub(p, payload);
            break;
        case ENTRY_DONE:
            p = format_done(p, payload);
            break;
        default: /* ENTRY_TEXT: made whole when appended */
            memcpy(p, payload, h->length);
            p += h->length;
            break;
        }
        *p++ = '\n';
        at = (size_t)(p - out);
    }
    write_out(out, at);
    trace.used = 0;
}

/* Room for an entry of `length` bytes, or NULL (the entry is lost). Under
 * the lock. */
static void *room_locked(enum entry_type type, size_t length)
{
    size_t needed = sizeof(struct entry_header) + ((length + 7u) & ~(size_t)7);
    if (trace.used + needed > trace.size)
        flush_locked();
    if (trace.used + needed > trace.size || length > LINE_MAX_BYTES) {
        trace.lost++;
        return NULL;
    }
    struct entry_header *h = (void *)(trace.data + trace.used);
    *h = (struct entry_header){(uint32_t)type, (uint32_t)length};
    trace.used += needed;
    return h + 1;
}

static void append_locked(enum entry_type type, const void *payload, size_t length)
{
    void *to = room_locked(type, length);
    if (to != NULL)
        memcpy(to, payload, length);
}

static void append_text_locked(const char *text, size_t length)
{
    append_locked(ENTRY_TEXT, text, length);
}

static int make_directory(const char *path)
{
    return mkdir(path, 0777) == 0 || errno == EEXIST ? 0 : -1;
}

/* The buffer's size: SCALEGUARD_TRACE_BUFFER bytes (with a K, M or G), by
 * default 4 MiB. */
static size_t buffer_size(void)
{
    const char *text = getenv("SCALEGUARD_TRACE_BUFFER");
    size_t size = (size_t)4 << 20;
    if (text != NULL && *text) {
        char *end;
        unsigned long long n = strtoull(text, &end, 10);
        unsigned shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
        if (end != text && (end[0] == '\0' || (shift && end[1] == '\0')) && n > 0 &&
            n <= (1ull << 40) >> shift && (n << shift) >= 64 * 1024)
            size = (size_t)(n << shift);
        else
            fprintf(stderr, "scaleguard: trace: SCALEGUARD_TRACE_BUFFER=%s is not a size from "
                            "64K to 1T (bytes, or with K, M or G); using 4M\n", text);
    }
    return size;
}

int sg_trace_start(const char *dir, const char *job)
{
    int rank, procs;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &procs);
    trace.size = buffer_size();
    trace.data = malloc(trace.size);
    errno = ENAMETOOLONG;
    if (trace.data == NULL || make_directory(dir) != 0 ||
        snprintf(trace.path, sizeof trace.path, "%s/rank-%d.sgtrace", dir, rank) >=
            (int)sizeof trace.path ||
        (trace.fd = open(trace.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
        fprintf(stderr, "scaleguard: trace: cannot write %s/rank-%d.sgtrace (%s); rank %d is not "
                        "traced\n", dir, rank, strerror(errno), rank);
        free(trace.data);
        trace.data = NULL;
        return -1;
    }
    char host[64] = "?", library[MPI_MAX_LIBRARY_VERSION_STRING] = "?";
    int length = 0;
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "?");
    if (PMPI_Get_library_version(library, &length) == MPI_SUCCESS)
        library[strcspn(library, "\r\n")] = '\0';
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    char header[512 + MPI_MAX_LIBRARY_VERSION_STRING], *p = header;
    p += snprintf(p, 512, "scaleguard-trace 1\njob %s rank %d size %d host %s pid %d\nmpi %s\n",
                  job, rank, procs, host, (int)getpid(), library);
    p = put_seconds(put_text(p, "start "), (int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
    *p++ = '\n';
    write_out(header, (size_t)(p - header));
    trace.pvars = sg_mpit_start() > 0;
    sg_mpit_events_start();
    return 0;
}

uint64_t sg_trace_next_index(void)
{
    return atomic_fetch_add_explicit(&trace.next_index, 1, memory_order_relaxed) + 1;
}

/* ---- Sub-calls -------------------------------------------------------------- */

/* The current call's sub-calls, on this thread: written after its line. */
static SG_THREAD_LOCAL struct {
    struct sub_entry *items;
    int count, capacity;
    uint64_t index;
} subs;

void sg_trace_sub_call(uint64_t index, int j, const char *routine, int64_t start_ns)
{
    if (subs.index != index)
        subs.count = 0, subs.index = index;
    if (subs.count == subs.capacity) {
        int capacity = subs.capacity ? 2 * subs.capacity : 16;
        struct sub_entry *grown = realloc(subs.items, (size_t)capacity * sizeof *grown);
        if (grown == NULL)
            return; /* the call's line still counts them */
        subs.items = grown;
        subs.capacity = capacity;
    }
    subs.items[subs.count++] = (struct sub_entry){index, start_ns, 0, routine, j};
}

/* ---- Requests --------------------------------------------------------------- */

static uint64_t handle_bits(MPI_Request request)
{
    uint64_t bits = 0;
    _Static_assert(sizeof request <= sizeof bits, "a request handle fits 64 bits");
    memcpy(&bits, &request, sizeof request);
    return bits ? bits : UINT64_C(1) << 63;
}

static struct tracked *slot_of(uint64_t handle)
{
    size_t mask = trace.tracked_slots - 1;
    for (size_t i = (size_t)(handle * UINT64_C(0x9e3779b97f4a7c15) >> 20) & mask;; i = (i + 1) & mask)
        if (trace.tracked[i].handle == handle || trace.tracked[i].handle == 0)
            return &trace.tracked[i];
}

static int track_locked(struct tracked entry)
{
    if (2 * (trace.tracked_count + 1) > trace.tracked_slots) {
        size_t old_slots = trace.tracked_slots, slots = old_slots ? 2 * old_slots : 64;
        struct tracked *old = trace.tracked, *grown = calloc(slots, sizeof *grown);
        if (grown == NULL)
            return -1;
        trace.tracked = grown;
        trace.tracked_slots = slots;
        for (size_t i = 0; i < old_slots; i++)
            if (old[i].handle != 0)
                *slot_of(old[i].handle) = old[i];
        free(old);
    }
    struct tracked *slot = slot_of(entry.handle);
    if (slot->handle == 0)
        trace.tracked_count++;
    else
        free(slot->world); /* a handle reused: the earlier one was freed unseen */
    *slot = entry;
    return 0;
}

/* Remove and return it (handle 0: not tracked). */
static struct tracked untrack_locked(uint64_t handle)
{
    struct tracked found = {0};
    if (trace.tracked_count == 0)
        return found;
    struct tracked *slot = slot_of(handle);
    if (slot->handle == 0)
        return found;
    found = *slot;
    slot->handle = 0;
    trace.tracked_count--;
    /* close the gap: re-place the run after it */
    size_t mask = trace.tracked_slots - 1;
    for (size_t i = ((size_t)(slot - trace.tracked) + 1) & mask; trace.tracked[i].handle != 0;
         i = (i + 1) & mask) {
        struct tracked moved = trace.tracked[i];
        trace.tracked[i].handle = 0;
        *slot_of(moved.handle) = moved;
    }
    return found;
}

static SG_THREAD_LOCAL struct {
    uint64_t *handles;
    int count, capacity;
    int done; /* completions recorded in the current call */
} completing;

void sg_trace_completing(int count, const MPI_Request *requests)
{
    completing.count = 0;
    completing.done = 0;
    if (trace.tracked_count == 0 || count <= 0) /* a racy peek: a miss only loses a done line */
        return;
    if (count > completing.capacity) {
        uint64_t *grown = realloc(completing.handles, (size_t)count * sizeof *grown);
        if (grown == NULL)
            return;
        completing.handles = grown;
        completing.capacity = count;
    }
    for (int i = 0; i < count; i++)
        completing.handles[i] = requests[i] == MPI_REQUEST_NULL ? 0 : handle_bits(requests[i]);
    completing.count = count;
}

void sg_trace_completed(int completed, const int *indices, const MPI_Status *statuses,
                        int64_t now_ns)
{
    if (completing.count == 0)
        return;
    pthread_mutex_lock(&trace.lock);
    for (int k = 0; k < completed; k++) {
        int i = indices ? indices[k] : k;
        if (i < 0 || i >= completing.count || completing.handles[i] == 0)
            continue;
        struct tracked t = untrack_locked(completing.handles[i]);
        if (t.handle == 0)
            continue;
        struct done_entry e = {.request = t.request, .index = t.index, .at_ns = now_ns,
                               .source = -1};
        if (t.receive && statuses != NULL) {
            const MPI_Status *s = &statuses[indices ? k : i];
            int bytes = 0, cancelled = 0;
            PMPI_Test_cancelled(s, &cancelled);
            e.cancelled = cancelled;
            if (!cancelled && PMPI_Get_count(s, MPI_BYTE, &bytes) == MPI_SUCCESS &&
                bytes != MPI_UNDEFINED && s->MPI_SOURCE >= 0) {
                e.has_status = 1;
                e.bytes = bytes;
                e.tag = s->MPI_TAG;
                e.source = t.world == NULL                   ? t.source
                           : s->MPI_SOURCE < t.world_size ? t.world[s->MPI_SOURCE]
                                                          : s->MPI_SOURCE;
            }
        }
        free(t.world);
        append_locked(ENTRY_DONE, &e, sizeof e);
        completing.done++;
    }
    pthread_mutex_unlock(&trace.lock);
    completing.count = 0;
}

/* ---- Calls ------------------------------------------------------------------ */

static int64_t type_bytes(MPI_Datatype type, int64_t count)
{
    int size = 0;
    if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS)
        return 0;
    return (int64_t)size * count;
}

/* The elements of one side of a collective on this rank, as its layout reads. */
static int64_t side_elements(const struct sg_call_side *side, int procs, int rank)
{
    int64_t total = 0;
    switch (side->layout) {
    case SG_SIDE_SINGLE:
        return sg_single_count(side, rank);
    case SG_SIDE_REGULAR:
        return (int64_t)side->count * procs;
    case SG_SIDE_V:
    case SG_SIDE_PACKED:
        for (int i = 0; i < procs; i++)
            total += side->counts ? side->counts[i] : side->count;
        return total;
    default:
        return 0;
    }
}

static void collective_bytes(const struct sg_call *c, const struct sg_comm_identity *identity,
                             int64_t *sent, int64_t *received)
{
    int rank = 0;
    PMPI_Comm_rank(c->comm, &rank);
    int procs = identity ? (identity->remote ? identity->remote_size : identity->local_size) : 1;
    struct sg_call_side send, recv;
    sg_call_sides(c, c->root < 0 || c->root == rank || c->root == MPI_ROOT, &send, &recv);
    int64_t send_elements = side_elements(&send, procs, rank);
    int64_t recv_elements = side_elements(&recv, procs, rank);
    *sent = send_elements > 0 ? type_bytes(send.type, send_elements) : 0;
    *received = recv_elements > 0 ? type_bytes(recv.type, recv_elements) : 0;
}

static int routine_is_test(const char *routine) { return strncmp(routine, "MPI_Test", 8) == 0; }

/* The changed performance variables after call `index`, as one line. */
struct pvar_line {
    char text[LINE_MAX_BYTES];
    size_t length;
    int any;
};

static void add_pvar(const char *name, const char *value, void *arg)
{
    struct pvar_line *line = arg;
    size_t room = sizeof line->text - line->length;
    int n = snprintf(line->text + line->length, room, " %s=%s", name, value);
    if (n > 0 && (size_t)n < room) {
        line->length += (size_t)n;
        line->any = 1;
    }
}

static void add_event(const char *name, double time, void *arg)
{
    const uint64_t *index = arg;
    char text[256];
    int n = snprintf(text, sizeof text, "event %" PRIu64 " %s t=%.6f", *index, name, time);
    if (n > 0 && (size_t)n < sizeof text)
        append_text_locked(text, (size_t)n);
}

static void describe_comm_locked(struct sg_comm_identity *identity)
{
    char text[LINE_MAX_BYTES], *p = text;
    identity->traced = 1;
    p = put_hex16(put_text(p, "comm "), identity->id);
    p = put_field(p, " size ", identity->size);
    p = put_text(put_text(p, " members "), identity->members[0] ? identity->members : "-");
    if (identity->parent)
        p = put_hex16(put_text(p, " parent="), identity->parent);
    append_text_locked(text, (size_t)(p - text));
}

void sg_trace_call(const struct sg_trace_call *t)
{
    const struct sg_observed_call *call = t->call;
    struct sg_comm_identity *identity = t->identity;
    if (routine_is_test(call->routine) && completing.done == 0)
        return;
    completing.done = 0;
    struct call_entry e = {.index = t->index, .comm = identity ? identity->id : 0,
                           .start_ns = t->start_ns, .duration_ns = t->end_ns - t->start_ns,
                           .routine = call->routine, .did = t->did, .why = t->why,
                           .subs = t->subs};
    if (call->kind == SG_WATCH_COLLECTIVE) {
        e.has |= HAS_NUMBER;
        e.number = t->number;
    }
    if (t->has_signature) {
        e.has |= HAS_SIGNATURE;
        e.signature = t->signature;
    }
    if (call->collective != NULL) {
        e.has |= HAS_SIDES;
        collective_bytes(call->collective, identity, &e.sent, &e.received);
    }
    if (call->root != SG_WATCH_NONE && call->root >= 0) {
        e.has |= HAS_ROOT;
        e.root = sg_comm_world_rank(identity, call->root);
    }
    int sends = call->dest != SG_WATCH_NONE, receives = call->source != SG_WATCH_NONE;
    if (sends && call->dest != MPI_PROC_NULL) {
        e.has |= HAS_PEER | HAS_TAG;
        e.peer = sg_comm_world_rank(identity, call->dest);
        e.tag = call->dest_tag;
    }
    if (receives && call->source != MPI_PROC_NULL) {
        int any = call->source == MPI_ANY_SOURCE;
        int source = any ? -1 : sg_comm_world_rank(identity, call->source);
        int tag = call->source_tag == MPI_ANY_TAG ? -1 : call->source_tag;
        if (sends) { /* Sendrecv: the receive side apart */
            e.has |= HAS_SOURCE | HAS_SOURCE_TAG;
            e.source = source, e.source_tag = tag;
        } else {
            e.has |= HAS_PEER | HAS_TAG;
            e.peer = source, e.tag = tag;
        }
    }
    if ((sends || receives) && call->count >= 0 && call->type != MPI_DATATYPE_NULL) {
        e.has |= HAS_COUNT;
        e.count = call->count;
        e.bytes = type_bytes(call->type, call->count);
    }
    struct tracked posted = {0};
    if (call->request != NULL && *call->request != MPI_REQUEST_NULL) {
        posted = (struct tracked){.handle = handle_bits(*call->request), .index = t->index,
                                  .receive = receives, .source = e.peer};
        if (receives && call->source == MPI_ANY_SOURCE && identity != NULL) {
            const int *world = identity->remote ? identity->remote : identity->local;
            posted.world_size = identity->remote ? identity->remote_size : identity->local_size;
            posted.world = malloc((size_t)posted.world_size * sizeof *posted.world);
            if (posted.world != NULL)
                memcpy(posted.world, world, (size_t)posted.world_size * sizeof *posted.world);
        }
    }
    struct pvar_line pvars = {.length = 0};
    if (trace.pvars) {
        pvars.length = (size_t)(put_u64(put_text(pvars.text, "pvar "), t->index) - pvars.text);
        sg_mpit_read_changed(add_pvar, &pvars);
    }

    pthread_mutex_lock(&trace.lock);
    if (trace.data == NULL) { /* not tracing (any more) */
        pthread_mutex_unlock(&trace.lock);
        free(posted.world);
        return;
    }
    if (posted.handle != 0) {
        posted.request = ++trace.next_request;
        if (track_locked(posted) == 0) {
            e.has |= HAS_REQUEST;
            e.request = posted.request;
        } else
            free(posted.world);
    }
    if (identity != NULL && !identity->traced)
        describe_comm_locked(identity);
    append_locked(ENTRY_CALL, &e, sizeof e);
    if (subs.index == t->index) {
        for (int j = 0; j < subs.count; j++) {
            struct sub_entry *s = &subs.items[j];
            s->duration_ns = (j + 1 < subs.count ? s[1].start_ns : t->end_ns) - s->start_ns;
            append_locked(ENTRY_SUB, s, sizeof *s);
        }
        subs.count = 0;
    }
    if (pvars.any)
        append_text_locked(pvars.text, pvars.length);
    sg_mpit_drain_events(add_event, &e.index);
    pthread_mutex_unlock(&trace.lock);
}

void sg_trace_stop(void)
{
    pthread_mutex_lock(&trace.lock);
    if (trace.data == NULL) {
        pthread_mutex_unlock(&trace.lock);
        return;
    }
    flush_locked();
    char tail[128], *p = tail;
    if (trace.lost > 0)
        p = put_u64(put_text(p, "lost "), trace.lost), *p++ = '\n';
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    p = put_u64(put_text(p, "end "), trace.calls_written);
    p = put_seconds(put_text(p, " "), (int64_t)now.tv_sec * 1000000000 + now.tv_nsec);
    *p++ = '\n';
    write_out(tail, (size_t)(p - tail));
    if (trace.fd >= 0)
        close(trace.fd);
    trace.fd = -1;
    free(trace.data);
    trace.data = NULL;
    pthread_mutex_unlock(&trace.lock);
    sg_mpit_stop();
}
