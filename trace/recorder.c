/* The trace's buffer and file (trace.h, FORMAT.md). A call appends a
 * binary record (records.h) to the rank's buffer; the buffer is written as
 * it is, after a clock record that dates its ticks, when it fills and at
 * MPI_Finalize. No text is made in the job: scaleguard-trace makes it. A
 * job killed in between loses the buffer: the file then lacks its `end`
 * line. */
#include "trace.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "collective.h"
#include "mpit.h"
#include "records.h"
#include "safe_file.h"

int sg_ticks_from_tsc;

/* A request of a non-blocking call, until a completion call sees it end. */
struct tracked {
    uint64_t handle; /* the MPI_Request's bits; 0: a free slot */
    uint64_t request, index;
    int receive;
    int source;      /* a receive's world rank, -1: MPI_ANY_SOURCE */
    int *world;      /* a receive from MPI_ANY_SOURCE: its communicator's world ranks */
    int world_size;
};

/* Names (routines, decisions, reasons: strings that outlive the job) by
 * their address, each given an id when first recorded. */
#define NAME_SLOTS 512

static struct {
    pthread_mutex_t lock;
    int threaded; /* MPI_THREAD_MULTIPLE: the lock is taken */
    int fd;
    char path[PATH_MAX];
    int dir_fd, made_dir;   /* until sg_trace_begin or sg_trace_discard */
    char dir[PATH_MAX];
    struct sg_safe_file file;
    uint64_t *data; /* the buffer: records of whole words */
    size_t used, size; /* words */
    uint64_t calls, lost;
    uint64_t last_index; /* of the last call record */
    uint32_t comms;      /* comm lines written */
    atomic_uint_fast64_t next_index;
    struct {
        const char *name;
        uint16_t id;
    } names[NAME_SLOTS];
    uint16_t name_count;
    /* the requests in flight: open addressing, a power of two */
    struct tracked *tracked;
    size_t tracked_slots, tracked_count;
    uint64_t next_request;
    int pvars, events;      /* performance variables, event types (mpit.h) */
    uint64_t pvar_period;   /* ticks between two readings of them */
    uint64_t pvar_read_at;  /* ticks of the last reading; 0: none yet */
} trace = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1, .dir_fd = -1};

static void lock(void)
{
    if (trace.threaded)
        pthread_mutex_lock(&trace.lock);
}

static void unlock(void)
{
    if (trace.threaded)
        pthread_mutex_unlock(&trace.lock);
}

/* ---- The file --------------------------------------------------------------- */

static void failed_to_write(void)
{
    fprintf(stderr, "scaleguard: trace: cannot write %s (%s); the rest of this rank's trace is "
                    "lost\n", trace.path, strerror(errno));
    close(trace.fd);
    trace.fd = -1;
}

static void write_all(struct iovec *parts, int count)
{
    while (trace.fd >= 0 && count > 0) {
        ssize_t n = writev(trace.fd, parts, count);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            failed_to_write();
            return;
        }
        for (; count > 0 && (size_t)n >= parts->iov_len; parts++, count--)
            n -= (ssize_t)parts->iov_len;
        if (count > 0) {
            parts->iov_base = (char *)parts->iov_base + n;
            parts->iov_len -= (size_t)n;
        }
    }
}

/* A clock record, then the buffer; under the lock. */
static void flush_locked(void)
{
    uint64_t clock[3];
    struct sg_record_head head = {SG_RECORD_CLOCK, 2, 0};
    memcpy(&clock[0], &head, sizeof head);
    clock[1] = sg_ticks();
    clock[2] = sg_realtime_ns();
    struct iovec parts[2] = {{clock, sizeof clock}, {trace.data, trace.used * sizeof *trace.data}};
    if (trace.fd < 0) {
        for (size_t at = 0; at < trace.used; at += 1 + ((struct sg_record_head *)&trace.data[at])->words)
            trace.lost++;
    } else
        write_all(parts, 2);
    trace.used = 0;
}

/* Room for a record of `words` words after its head, or NULL (the record
 * is lost). Under the lock. */
static uint64_t *room_locked(enum sg_record_type type, size_t words, uint32_t bits)
{
    if (trace.used + 1 + words > trace.size)
        flush_locked();
    if (trace.used + 1 + words > trace.size || words > UINT16_MAX) {
        trace.lost++;
        return NULL;
    }
    uint64_t *record = &trace.data[trace.used];
    struct sg_record_head head = {(uint16_t)type, (uint16_t)words, bits};
    memcpy(record, &head, sizeof head);
    trace.used += 1 + words;
    return record + 1;
}

/* A string record (a name, a line of text), NUL-padded to whole words. */
static void append_string_locked(enum sg_record_type type, uint32_t bits, const char *text,
                                 size_t length)
{
    size_t words = length / 8 + 1;
    uint64_t *to = room_locked(type, words, bits);
    if (to != NULL) {
        to[words - 1] = 0;
        memcpy(to, text, length);
    }
}

/* The id of a name, its NAME record written when first used; 0 for NULL
 * or when the table is full. Under the lock. */
static uint16_t name_id_locked(const char *name)
{
    if (name == NULL)
        return 0;
    uintptr_t address = (uintptr_t)name;
    for (size_t i = (address >> 3) % NAME_SLOTS, probes = 0; probes < NAME_SLOTS;
         i = (i + 1) % NAME_SLOTS, probes++) {
        if (trace.names[i].name == name)
            return trace.names[i].id;
        if (trace.names[i].name == NULL) {
            if (trace.name_count + 1 >= NAME_SLOTS)
                return 0;
            uint16_t id = ++trace.name_count;
            trace.names[i].name = name;
            trace.names[i].id = id;
            append_string_locked(SG_RECORD_NAME, id, name, strlen(name));
            return id;
        }
    }
    return 0;
}

/* The buffer's size: SCALEGUARD_TRACE_BUFFER bytes (with a K, M or G), by
 * default 4 MiB; a value not understood is told by rank 0 (every rank reads
 * the same), and the default taken. */
static size_t buffer_size(int rank)
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
        else if (rank == 0)
            fprintf(stderr, "scaleguard: trace: SCALEGUARD_TRACE_BUFFER=%s is not a size from "
                            "64K to 1T (bytes, or with K, M or G); using 4M (the default)\n",
                    text);
    }
    return size;
}

/* Whether the time-stamp counter ticks at a constant rate, whatever the
 * core's frequency and sleep state (CPUID 0x80000007, EDX bit 8). */
static int invariant_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax, ebx, ecx, edx;
    __asm__ volatile("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(0x80000000u));
    if (eax < 0x80000007u)
        return 0;
    __asm__ volatile("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(0x80000007u));
    return (edx >> 8) & 1;
#else
    return 0;
#endif
}

/* Ticks in `ns` nanoseconds, measured over a fifth of a millisecond. */
static uint64_t ticks_in(uint64_t ns)
{
    uint64_t ticks0 = sg_ticks(), ns0 = sg_realtime_ns(), now;
    while ((now = sg_realtime_ns()) - ns0 < 200000)
        ;
    uint64_t ticks = sg_ticks() - ticks0;
    return (uint64_t)((double)ticks * (double)ns / (double)(now - ns0));
}

int sg_trace_start(const char *dir, char *why, size_t why_size)
{
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t bytes = buffer_size(rank);
    trace.size = bytes / sizeof *trace.data;
    trace.data = malloc(bytes);
    if (trace.data == NULL) {
        snprintf(why, why_size, "no memory for a buffer of %zu bytes (SCALEGUARD_TRACE_BUFFER)",
                 bytes);
        return -1;
    }
    char name[64], reason[256];
    snprintf(name, sizeof name, "rank-%d.sgtrace", rank);
    if (snprintf(trace.dir, sizeof trace.dir, "%s", dir) >= (int)sizeof trace.dir ||
        snprintf(trace.path, sizeof trace.path, "%s/%s", dir, name) >= (int)sizeof trace.path)
        snprintf(why, why_size, "%s: %s", dir, strerror(ENAMETOOLONG));
    else if ((trace.dir_fd = sg_safe_dir(dir, 1, &trace.made_dir, reason, sizeof reason)) < 0)
        snprintf(why, why_size, "%s %s", dir, reason);
    else if (sg_safe_begin(trace.dir_fd, name, 0600, &trace.file, reason, sizeof reason) != 0 ||
             sg_safe_commit(&trace.file, reason, sizeof reason) != 0)
        snprintf(why, why_size, "%s %s", trace.path, reason);
    else {
        trace.fd = trace.file.fd;
        return 0;
    }
    sg_trace_discard();
    return -1;
}

void sg_trace_discard(void)
{
    if (trace.fd >= 0)
        sg_safe_abandon(&trace.file, 1);
    trace.fd = -1;
    if (trace.dir_fd >= 0) {
        close(trace.dir_fd);
        if (trace.made_dir)
            rmdir(trace.dir); /* when empty: no other rank's file */
    }
    trace.dir_fd = -1;
    free(trace.data);
    trace.data = NULL;
}

void sg_trace_begin(const char *job)
{
    int rank, procs, provided = MPI_THREAD_SINGLE;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &procs);
    PMPI_Query_thread(&provided);
    close(trace.dir_fd);
    trace.dir_fd = -1;
    trace.threaded = provided == MPI_THREAD_MULTIPLE;
    sg_ticks_from_tsc = invariant_tsc();
    char host[64] = "?", library[MPI_MAX_LIBRARY_VERSION_STRING] = "?";
    int length = 0;
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "?");
    if (PMPI_Get_library_version(library, &length) == MPI_SUCCESS)
        library[strcspn(library, "\r\n")] = '\0';
    uint64_t now = sg_realtime_ns();
    const uint16_t order = 1;
    char header[512 + MPI_MAX_LIBRARY_VERSION_STRING];
    int n = snprintf(header, sizeof header,
                     "scaleguard-trace %d\njob %s rank %d size %d host %s pid %d\nmpi %s\n"
                     "start %llu.%09llu\nrecords %s %s\n",
                     SG_TRACE_VERSION, job, rank, procs, host, (int)getpid(), library,
                     (unsigned long long)(now / 1000000000u),
                     (unsigned long long)(now % 1000000000u),
                     *(const char *)&order ? "little-endian" : "big-endian",
                     sg_ticks_from_tsc ? "tsc" : "ns");
    struct iovec part = {header, (size_t)n};
    write_all(&part, 1);
    lock();
    flush_locked(); /* the first clock record */
    unlock();
    trace.pvars = sg_mpit_start() > 0;
    trace.events = sg_mpit_events_start() > 0;
    if (trace.pvars)
        trace.pvar_period = ticks_in(1000000);
}

uint64_t sg_trace_next_index(void)
{
    if (trace.threaded)
        return atomic_fetch_add_explicit(&trace.next_index, 1, memory_order_relaxed) + 1;
    uint64_t index = atomic_load_explicit(&trace.next_index, memory_order_relaxed) + 1;
    atomic_store_explicit(&trace.next_index, index, memory_order_relaxed);
    return index;
}

/* ---- Sub-calls -------------------------------------------------------------- */

struct sub {
    const char *routine;
    uint64_t start;
    int j;
};

/* The current call's sub-calls, on this thread: written after its record. */
static SG_THREAD_LOCAL struct {
    struct sub *items;
    int count, capacity;
    uint64_t index;
} subs;

void sg_trace_sub_call(uint64_t index, int j, const char *routine, uint64_t start)
{
    if (subs.index != index)
        subs.count = 0, subs.index = index;
    if (subs.count == subs.capacity) {
        int capacity = subs.capacity ? 2 * subs.capacity : 16;
        struct sub *grown = realloc(subs.items, (size_t)capacity * sizeof *grown);
        if (grown == NULL)
            return; /* the call's record still counts them */
        subs.items = grown;
        subs.capacity = capacity;
    }
    subs.items[subs.count++] = (struct sub){routine, start, j};
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
                        uint64_t now)
{
    if (completing.count == 0)
        return;
    lock();
    for (int k = 0; k < completed && trace.data != NULL; k++) {
        int i = indices ? indices[k] : k;
        if (i < 0 || i >= completing.count || completing.handles[i] == 0)
            continue;
        struct tracked t = untrack_locked(completing.handles[i]);
        if (t.handle == 0)
            continue;
        uint32_t bits = 0;
        int64_t source = -1, tag = 0, bytes = 0;
        if (t.receive && statuses != NULL) {
            const MPI_Status *s = &statuses[indices ? k : i];
            int count = 0, cancelled = 0;
            PMPI_Test_cancelled(s, &cancelled);
            if (cancelled)
                bits |= SG_DONE_CANCELLED;
            else if (PMPI_Get_count(s, MPI_BYTE, &count) == MPI_SUCCESS &&
                     count != MPI_UNDEFINED && s->MPI_SOURCE >= 0) {
                bits |= SG_DONE_STATUS;
                bytes = count;
                tag = s->MPI_TAG;
                source = t.world == NULL                   ? t.source
                         : s->MPI_SOURCE < t.world_size ? t.world[s->MPI_SOURCE]
                                                        : s->MPI_SOURCE;
            }
        }
        free(t.world);
        uint64_t *done = room_locked(SG_RECORD_DONE, 6, bits);
        if (done != NULL) {
            done[0] = t.request, done[1] = t.index, done[2] = now;
            done[3] = (uint64_t)source, done[4] = (uint64_t)tag, done[5] = (uint64_t)bytes;
        }
        completing.done++;
    }
    unlock();
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

/* The elements of one side of a collective on this rank, as its layout reads
 * (a neighbourhood collective's blocks are its neighbours': an
 * MPI_PROC_NULL neighbour's block counted too, as the MPI reads it). */
static int64_t side_elements(const struct sg_call_side *side, int rank)
{
    int64_t total = 0;
    switch (side->layout) {
    case SG_SIDE_SINGLE:
        return sg_single_count(side, rank);
    case SG_SIDE_REGULAR:
        return (int64_t)side->count * side->blocks;
    case SG_SIDE_V:
    case SG_SIDE_PACKED:
        for (int i = 0; i < side->blocks; i++)
            total += sg_counts_given(side->counts) ? sg_count_at(side->counts, i) : side->count;
        return total;
    default:
        return 0;
    }
}

/* The bytes of one side: its elements in its type, or each block in its
 * own (Alltoallw). */
static int64_t side_bytes(const struct sg_call_side *side, int rank)
{
    int64_t total = 0;
    if (side->layout == SG_SIDE_W) {
        for (int i = 0; i < side->blocks; i++)
            total += sg_count_at(side->counts, i) > 0
                         ? type_bytes(side->types[i], sg_count_at(side->counts, i))
                         : 0;
        return total;
    }
    int64_t elements = side_elements(side, rank);
    return elements > 0 ? type_bytes(side->type, elements) : 0;
}

static void collective_bytes(const struct sg_call *c, const struct sg_comm_identity *identity,
                             int64_t *sent, int64_t *received)
{
    int rank = identity ? identity->rank : 0;
    int procs = identity ? (identity->remote ? identity->remote_size : identity->local_size) : 1;
    struct sg_call_side send, recv;
    sg_call_sides(c, c->root < 0 || c->root == rank || c->root == MPI_ROOT, procs, &send, &recv);
    /* A rooted routine without a send side (Bcast) has one buffer, the
     * receive side of its description: what the others receive is what the
     * root sends. */
    const struct sg_routine_info *info = &sg_routines[c->routine];
    if (info->rooted && info->send == SG_SIDE_NONE && (c->root == rank || c->root == MPI_ROOT)) {
        send = recv;
        recv = (struct sg_call_side){0};
    }
    *sent = side_bytes(&send, rank);
    *received = side_bytes(&recv, rank);
}

static int routine_is_test(const char *routine)
{
    return routine[4] == 'T' && strncmp(routine, "MPI_Test", 8) == 0;
}

/* The changed performance variables after call `index`, as one line. */
struct pvar_line {
    char text[1024];
    size_t length;
};

static void add_pvar(const char *name, const char *value, void *arg)
{
    struct pvar_line *line = arg;
    size_t room = sizeof line->text - line->length;
    int n = snprintf(line->text + line->length, room, " %s=%s", name, value);
    if (n > 0 && (size_t)n < room)
        line->length += (size_t)n;
}

/* Performance variables are read after a call when a millisecond passed
 * since their last reading (a reading costs more than a small call: a
 * communicator's variable is read per peer). */
static void read_pvars_locked(uint64_t index, uint64_t now)
{
    if (trace.pvar_read_at != 0 && now - trace.pvar_read_at < trace.pvar_period)
        return;
    trace.pvar_read_at = now;
    struct pvar_line line;
    int head = snprintf(line.text, sizeof line.text, "pvar %llu", (unsigned long long)index);
    line.length = (size_t)head;
    sg_mpit_read_changed(add_pvar, &line);
    if (line.length > (size_t)head)
        append_string_locked(SG_RECORD_TEXT, 0, line.text, line.length);
}

static void add_event(const char *name, double time, void *arg)
{
    const uint64_t *index = arg;
    char text[256];
    int n = snprintf(text, sizeof text, "event %llu %s t=%.9f", (unsigned long long)*index, name,
                     time);
    if (n > 0 && (size_t)n < sizeof text)
        append_string_locked(SG_RECORD_TEXT, 0, text, (size_t)n);
}

/* Its comm line; the call records name it by the line's number. */
static void describe_comm_locked(struct sg_comm_identity *identity)
{
    char text[1200];
    identity->traced = ++trace.comms;
    int n = snprintf(text, sizeof text, "comm %016llx size %d members %s",
                     (unsigned long long)identity->id, identity->size,
                     identity->members[0] ? identity->members : "-");
    if (identity->parent)
        n += snprintf(text + n, sizeof text - (size_t)n, " parent=%016llx",
                      (unsigned long long)identity->parent);
    append_string_locked(SG_RECORD_TEXT, 0, text, (size_t)n);
}

void sg_trace_call(const struct sg_trace_call *t)
{
    const struct sg_observed_call *call = t->call;
    struct sg_comm_identity *identity = t->identity;
    if (routine_is_test(call->routine) && completing.done == 0)
        return;
    completing.done = 0;
    /* the optional words, by their bit (records.h) */
    uint64_t field[SG_CALL_OPTIONAL_COUNT];
    uint32_t has = 0;
    size_t words = sizeof(struct sg_call_record) / sizeof(uint64_t);
#define PUT(NAME, value) \
    (field[SG_CALL_BIT_##NAME] = (uint64_t)(value), has |= SG_CALL_HAS(NAME), words++)
    uint64_t duration = t->end - t->start;
    if (duration >= UINT32_MAX)
        PUT(END, t->end);
    if (call->kind == SG_WATCH_COLLECTIVE)
        PUT(NUMBER, t->number);
    if (call->root != SG_WATCH_NONE && call->root >= 0)
        PUT(ROOT, sg_comm_world_rank(identity, call->root));
    int sends = call->dest != SG_WATCH_NONE, receives = call->source != SG_WATCH_NONE;
    int peer = -1;
    if (sends && call->dest != MPI_PROC_NULL) {
        PUT(PEER, peer = sg_comm_world_rank(identity, call->dest));
        PUT(TAG, call->dest_tag);
    }
    if (receives && call->source != MPI_PROC_NULL) {
        int source = call->source == MPI_ANY_SOURCE ? -1 : sg_comm_world_rank(identity, call->source);
        int tag = call->source_tag == MPI_ANY_TAG ? -1 : call->source_tag;
        if (sends) { /* Sendrecv: the receive side apart */
            PUT(SOURCE, source);
            PUT(SOURCE_TAG, tag);
        } else {
            PUT(PEER, peer = source);
            PUT(TAG, tag);
        }
    }
    if ((sends || receives) && call->count >= 0 && call->type != MPI_DATATYPE_NULL) {
        PUT(COUNT, call->count);
        PUT(BYTES, type_bytes(call->type, call->count));
    }
    if (call->collective != NULL) {
        int64_t sent, received;
        collective_bytes(call->collective, identity, &sent, &received);
        PUT(SENT, sent);
        PUT(RECEIVED, received);
    }
    if (t->has_signature)
        PUT(SIGNATURE, t->signature);
    if (t->subs > 0)
        PUT(SUBS, t->subs);
    struct tracked posted = {0};
    if (call->request != NULL && *call->request != MPI_REQUEST_NULL) {
        posted = (struct tracked){.handle = handle_bits(*call->request), .index = t->index,
                                  .receive = receives, .source = peer};
        if (receives && call->source == MPI_ANY_SOURCE && identity != NULL) {
            const int *world = identity->remote ? identity->remote : identity->local;
            posted.world_size = identity->remote ? identity->remote_size : identity->local_size;
            posted.world = malloc((size_t)posted.world_size * sizeof *posted.world);
            if (posted.world != NULL)
                memcpy(posted.world, world, (size_t)posted.world_size * sizeof *posted.world);
        }
    }

    lock();
    if (trace.data == NULL) { /* not tracing (any more) */
        unlock();
        free(posted.world);
        return;
    }
    if (t->index != trace.last_index + 1) /* a Test that completed nothing, or threads */
        PUT(INDEX, t->index);
    if (posted.handle != 0) {
        posted.request = ++trace.next_request;
        if (track_locked(posted) == 0)
            PUT(REQUEST, posted.request);
        else
            free(posted.world);
    }
#undef PUT
    if (identity != NULL && !identity->traced)
        describe_comm_locked(identity);
    struct sg_call_record head = {
        .start = t->start, .duration = duration < UINT32_MAX ? (uint32_t)duration : UINT32_MAX,
        .comm = identity ? identity->traced : 0, .routine = name_id_locked(call->routine),
        .did = name_id_locked(t->did), .why = name_id_locked(t->why)};
    uint64_t *to = room_locked(SG_RECORD_CALL, words, has);
    if (to != NULL) {
        memcpy(to, &head, sizeof head);
        to += sizeof head / sizeof *to;
        for (uint32_t bits = has; bits != 0; bits &= bits - 1)
            *to++ = field[__builtin_ctz(bits)];
        trace.calls++;
        trace.last_index = t->index;
    }
    if (subs.index == t->index) {
        for (int j = 0; j < subs.count; j++) {
            const struct sub *s = &subs.items[j];
            uint16_t routine = name_id_locked(s->routine); /* before the room: a NAME record */
            uint64_t *sub = room_locked(SG_RECORD_SUB, 5, 0);
            if (sub != NULL) {
                sub[0] = t->index, sub[1] = (uint64_t)s->j, sub[2] = routine;
                sub[3] = s->start, sub[4] = j + 1 < subs.count ? s[1].start : t->end;
            }
        }
        subs.count = 0;
    }
    if (trace.pvars)
        read_pvars_locked(t->index, t->end);
    if (trace.events) {
        uint64_t index = t->index;
        sg_mpit_drain_events(add_event, &index);
    }
    unlock();
}

void sg_trace_stop(void)
{
    lock();
    if (trace.data == NULL) {
        unlock();
        return;
    }
    char tail[128];
    if (trace.lost > 0) {
        int n = snprintf(tail, sizeof tail, "lost %llu", (unsigned long long)trace.lost);
        append_string_locked(SG_RECORD_TEXT, 0, tail, (size_t)n);
    }
    uint64_t now = sg_realtime_ns();
    int n = snprintf(tail, sizeof tail, "end %llu %llu.%09llu", (unsigned long long)trace.calls,
                     (unsigned long long)(now / 1000000000u),
                     (unsigned long long)(now % 1000000000u));
    append_string_locked(SG_RECORD_TEXT, 0, tail, (size_t)n);
    flush_locked();
    if (trace.fd >= 0)
        close(trace.fd);
    trace.fd = -1;
    free(trace.data);
    trace.data = NULL;
    unlock();
    sg_mpit_stop();
}
