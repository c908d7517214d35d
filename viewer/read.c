/* Reading a trace directory (trace/FORMAT.md) into the model, with a clear
 * message for what does not fit: file and line (of its text form, as
 * `scaleguard-trace --text` prints it). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "model.h"

static void tell(const char *path, long line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    if (line > 0)
        fprintf(stderr, "scaleguard-trace: %s:%ld: ", path, line);
    else
        fprintf(stderr, "scaleguard-trace: %s: ", path);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
}

static int grow(void **items, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity)
        return 0;
    size_t more = *capacity ? 2 * *capacity : 256;
    void *grown = realloc(*items, more * size);
    if (grown == NULL)
        return -1;
    *items = grown;
    *capacity = more;
    return 0;
}

static int whole_integer(const char *text, int64_t *value)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE)
        return -1;
    *value = v;
    return 0;
}

static int whole_number(const char *text, double *value)
{
    char *end;
    *value = strtod(text, &end);
    return end == text || *end != '\0' ? -1 : 0;
}

/* A time as the text form writes it (seconds, up to 9 decimals), exactly:
 * in nanoseconds. */
static int whole_ns(const char *text, int64_t *ns)
{
    const char *point = strchr(text, '.');
    size_t decimals = point ? strlen(point + 1) : 0;
    int64_t seconds, fraction = 0;
    char whole[24];
    size_t digits = point ? (size_t)(point - text) : strlen(text);
    if (digits == 0 || digits >= sizeof whole || decimals > 9 ||
        strspn(text, "0123456789") != digits ||
        (point && strspn(point + 1, "0123456789") != decimals))
        return -1;
    memcpy(whole, text, digits);
    whole[digits] = '\0';
    if (whole_integer(whole, &seconds) != 0 || seconds > INT64_MAX / 1000000000 - 1)
        return -1;
    for (size_t i = 0; i < 9; i++)
        fraction = 10 * fraction + (i < decimals ? point[1 + i] - '0' : 0);
    *ns = seconds * 1000000000 + fraction;
    return 0;
}

static int hex_id(const char *text, uint64_t *value)
{
    char *end;
    if (strlen(text) != 16)
        return -1;
    *value = strtoull(text, &end, 16);
    return *end != '\0' ? -1 : 0;
}

/* One `key=value` field of a call line into the call. Returns 0, or -1
 * with what is wrong in `why`. */
static int call_field(struct call *c, char *field, const char **why)
{
    char *value = strchr(field, '=');
    if (value == NULL) {
        *why = "a field without '='";
        return -1;
    }
    *value++ = '\0';
    static const struct {
        const char *key;
        size_t offset;
    } integers[] = {
        {"n", offsetof(struct call, number)},       {"root", offsetof(struct call, root)},
        {"peer", offsetof(struct call, peer)},      {"tag", offsetof(struct call, tag)},
        {"source", offsetof(struct call, source)},  {"source_tag", offsetof(struct call, source_tag)},
        {"count", offsetof(struct call, count)},    {"bytes", offsetof(struct call, bytes)},
        {"sent", offsetof(struct call, sent)},      {"received", offsetof(struct call, received)},
        {"subs", offsetof(struct call, subs)},      {"req", offsetof(struct call, request)},
    };
    for (size_t i = 0; i < sizeof integers / sizeof integers[0]; i++)
        if (strcmp(field, integers[i].key) == 0) {
            *why = "a field whose value is not an integer";
            return whole_integer(value, (int64_t *)((char *)c + integers[i].offset));
        }
    *why = "a field whose value is not a number";
    if (strcmp(field, "t") == 0)
        return whole_number(value, &c->start) || whole_ns(value, &c->start_ns);
    if (strcmp(field, "d") == 0)
        return whole_number(value, &c->duration) || whole_ns(value, &c->duration_ns);
    *why = "a comm= or sig= that is not 16 hex digits";
    uint64_t hash;
    if (strcmp(field, "comm") == 0)
        return hex_id(value, &c->comm);
    if (strcmp(field, "sig") == 0) {
        if (hex_id(value, &hash) != 0)
            return -1;
        snprintf(c->signature, sizeof c->signature, "%s", value);
        return 0;
    }
    if (strcmp(field, "did") == 0)
        snprintf(c->did, sizeof c->did, "%s", value);
    else if (strcmp(field, "why") == 0)
        snprintf(c->why, sizeof c->why, "%s", value);
    return 0; /* a key this reader does not know: later versions' */
}

static int read_call(struct trace *t, int rank, char *rest, const char **why)
{
    if (grow((void **)&t->calls, &t->call_capacity, t->call_count, sizeof *t->calls) != 0) {
        *why = "out of memory";
        return -1;
    }
    struct call *c = &t->calls[t->call_count];
    *c = (struct call){.rank = rank, .comm = 0, .start = -1, .duration = -1, .completed = -1,
                       .completed_source = NONE, .completed_tag = NONE};
    int64_t *optional[] = {&c->number, &c->root,  &c->peer,  &c->tag,      &c->source,
                           &c->source_tag, &c->count, &c->bytes, &c->sent, &c->received,
                           &c->subs,   &c->request};
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
        *optional[i] = NONE;
    *why = "expected 'call INDEX ROUTINE key=value...'";
    char *routine = strchr(rest, ' ');
    if (routine == NULL)
        return -1;
    *routine++ = '\0';
    char *fields = strchr(routine, ' ');
    if (fields != NULL)
        *fields++ = '\0';
    if (whole_integer(rest, &c->index) != 0 || strncmp(routine, "MPI_", 4) != 0 ||
        strlen(routine) >= sizeof c->routine)
        return -1;
    snprintf(c->routine, sizeof c->routine, "%s", routine);
    c->fields = strdup(fields ? fields : "");
    for (char *field = fields ? strtok(fields, " ") : NULL; field != NULL;
         field = strtok(NULL, " "))
        if (call_field(c, field, why) != 0) {
            free(c->fields);
            return -1;
        }
    if (c->start < 0 || c->duration < 0) {
        free(c->fields);
        *why = "a call without its t= and d=";
        return -1;
    }
    t->call_count++;
    return 0;
}

static int read_sub(struct trace *t, int rank, char *rest, const char **why)
{
    *why = "expected 'sub INDEX J ROUTINE t=T d=D'";
    if (grow((void **)&t->subs, &t->sub_capacity, t->sub_count, sizeof *t->subs) != 0)
        return -1;
    struct sub *s = &t->subs[t->sub_count];
    char *index = strtok(rest, " "), *j = strtok(NULL, " "), *routine = strtok(NULL, " ");
    char *start = strtok(NULL, " "), *duration = strtok(NULL, " ");
    *s = (struct sub){.rank = rank};
    if (duration == NULL || whole_integer(index, &s->index) || whole_integer(j, &s->j) ||
        strncmp(start, "t=", 2) || strncmp(duration, "d=", 2) ||
        whole_number(start + 2, &s->start) || whole_number(duration + 2, &s->duration) ||
        strlen(routine) >= sizeof s->routine)
        return -1;
    snprintf(s->routine, sizeof s->routine, "%s", routine);
    t->sub_count++;
    return 0;
}

/* `done Q I t=T [source=W] [tag=G] [bytes=B] [cancelled=1]`: the completion
 * of this rank's call I, read since its call (written before the done line). */
static int read_done(struct trace *t, int rank, char *rest, const char **why)
{
    *why = "expected 'done REQUEST INDEX t=T [source=W] [tag=G] [bytes=B] [cancelled=1]'";
    int64_t request, index, completed_ns;
    char *request_word = strtok(rest, " "), *index_word = strtok(NULL, " ");
    char *time = strtok(NULL, " ");
    double completed;
    if (time == NULL || whole_integer(request_word, &request) ||
        whole_integer(index_word, &index) || strncmp(time, "t=", 2) ||
        whole_number(time + 2, &completed) || whole_ns(time + 2, &completed_ns))
        return -1;
    struct call *c = NULL;
    for (size_t i = t->call_count; i-- > 0 && t->calls[i].rank == rank;)
        if (t->calls[i].index == index) {
            c = &t->calls[i];
            break;
        }
    if (c == NULL)
        return 0; /* its call was not recorded (a lost record) */
    c->completed = completed;
    c->completed_ns = completed_ns;
    for (char *field = strtok(NULL, " "); field != NULL; field = strtok(NULL, " ")) {
        int64_t cancelled = 0;
        int64_t *value = strncmp(field, "source=", 7) == 0      ? &c->completed_source
                         : strncmp(field, "tag=", 4) == 0       ? &c->completed_tag
                         : strncmp(field, "bytes=", 6) == 0     ? &c->completed_bytes
                         : strncmp(field, "cancelled=", 10) == 0 ? &cancelled
                                                                 : NULL;
        if (value != NULL && whole_integer(strchr(field, '=') + 1, value) != 0)
            return -1;
        c->cancelled |= cancelled != 0;
    }
    return 0;
}

static int read_comm(struct trace *t, char *rest, const char **why)
{
    *why = "expected 'comm ID size N members RANGES [parent=ID]'";
    char *id = strtok(rest, " "), *size_word = strtok(NULL, " "), *size = strtok(NULL, " ");
    char *members_word = strtok(NULL, " "), *members = strtok(NULL, " ");
    uint64_t value, parent = 0;
    int64_t n;
    if (members == NULL || hex_id(id, &value) || strcmp(size_word, "size") ||
        whole_integer(size, &n) || n < 0 || n > INT_MAX || strcmp(members_word, "members") ||
        strlen(members) >= sizeof t->comms->members)
        return -1;
    for (char *field = strtok(NULL, " "); field != NULL; field = strtok(NULL, " "))
        if (strncmp(field, "parent=", 7) == 0 && hex_id(field + 7, &parent) != 0)
            return -1;
    for (size_t i = 0; i < t->comm_count; i++)
        if (t->comms[i].id == value)
            return 0; /* every member describes it */
    if (grow((void **)&t->comms, &t->comm_capacity, t->comm_count, sizeof *t->comms) != 0)
        return -1;
    struct comm *c = &t->comms[t->comm_count++];
    c->id = value;
    c->parent = parent;
    c->size = (int)n;
    snprintf(c->members, sizeof c->members, "%s", members);
    return 0;
}

/* Reading one rank's file: what its lines have told so far. */
struct reading {
    struct trace *t;
    int rank;
    int ended;
};

/* One line of the file's text form (decode.h): NULL, or what is wrong. */
static const char *read_line(void *arg, long number, char *text, size_t length)
{
    struct reading *r = arg;
    struct trace *t = r->t;
    struct rank_file *f = &t->files[r->rank];
    const char *why = NULL, *problem;
    char *space = strchr(text, ' ');
    char *rest = space ? space + 1 : text + length;
    size_t word = space ? (size_t)(space - text) : length;
    if (number == 1) {
        /* the version, which the decoder checked */
    } else if (number == 2) {
        char job[128], host[64];
        int rank, size;
        if (sscanf(text, "job %127s rank %d size %d host %63s", job, &rank, &size, host) != 4 ||
            rank != r->rank || size < 1)
            why = "expected 'job NAME rank R size P host HOST ...' with the rank of its file's "
                  "name";
        else {
            snprintf(f->job, sizeof f->job, "%s", job);
            snprintf(f->host, sizeof f->host, "%s", host);
            f->size = size;
        }
    } else if (r->ended) {
        why = "a record after the end line";
    } else if (word == 3 && strncmp(text, "mpi", 3) == 0) {
        if (r->rank == 0)
            snprintf(t->mpi, sizeof t->mpi, "%s", rest);
    } else if (word == 5 && strncmp(text, "start", 5) == 0) {
    } else if (word == 4 && strncmp(text, "call", 4) == 0) {
        if (read_call(t, r->rank, rest, &problem) == 0)
            f->calls++;
        else
            why = problem;
    } else if (word == 3 && strncmp(text, "sub", 3) == 0) {
        if (read_sub(t, r->rank, rest, &problem) != 0)
            why = problem;
    } else if (word == 4 && strncmp(text, "comm", 4) == 0) {
        if (read_comm(t, rest, &problem) != 0)
            why = problem;
    } else if (word == 4 && strncmp(text, "done", 4) == 0) {
        if (read_done(t, r->rank, rest, &problem) != 0)
            why = problem;
    } else if (word == 4 && strncmp(text, "pvar", 4) == 0) {
        f->pvars++;
    } else if (word == 5 && strncmp(text, "event", 5) == 0) {
        f->events++;
    } else if (word == 4 && strncmp(text, "lost", 4) == 0) {
        int64_t n;
        if (whole_integer(rest, &n) != 0)
            why = "expected 'lost N'";
        else
            f->lost += n;
    } else if (word == 3 && strncmp(text, "end", 3) == 0) {
        int64_t calls;
        char *count = strtok(rest, " ");
        if (count == NULL || whole_integer(count, &calls) != 0)
            why = "expected 'end CALLS T'";
        else if (calls != f->calls)
            why = "the end line counts other calls than the file holds";
        else
            r->ended = 1;
    } else {
        why = "not a line of the trace format (comm, call, sub, done, pvar, event, lost, end)";
    }
    return why;
}

/* One rank's file. Returns 0, or -1 (told). */
static int read_file(struct trace *t, int rank, int strict)
{
    struct rank_file *f = &t->files[rank];
    struct reading reading = {t, rank, 0};
    struct sg_decode_problem problem;
    enum sg_decoded decoded = sg_trace_decode(f->path, read_line, &reading, &problem);
    if (decoded == SG_DECODED_ERROR) {
        tell(f->path, problem.line, "%s", problem.why);
        return -1;
    }
    f->whole = reading.ended && decoded == SG_DECODED_ALL;
    if (!f->whole) {
        tell(f->path, 0, "%s: %" PRId64 " calls read; its last records were lost (rank %d "
                         "did not reach MPI_Finalize, or its file was cut)",
             strict ? "error" : "warning", f->calls, rank);
        if (strict)
            return -1;
    }
    return 0;
}

static int by_rank_and_index(const void *a, const void *b)
{
    const struct call *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    return (x->index > y->index) - (x->index < y->index);
}

static int sub_order(const void *a, const void *b)
{
    const struct sub *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    if (x->index != y->index)
        return (x->index > y->index) - (x->index < y->index);
    return (x->j > y->j) - (x->j < y->j);
}

int trace_read(const char *dir, int strict, struct trace *t)
{
    *t = (struct trace){0};
    DIR *d = opendir(dir);
    if (d == NULL) {
        tell(dir, 0, "cannot open the directory (%s)", strerror(errno));
        return -1;
    }
    int highest = -1, count = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int rank, used = 0;
        if (sscanf(e->d_name, "rank-%d.sgtrace%n", &rank, &used) == 1 &&
            e->d_name[used] == '\0' && rank >= 0) {
            count++;
            highest = rank > highest ? rank : highest;
        }
    }
    closedir(d);
    if (count == 0) {
        tell(dir, 0, "no rank files (rank-N.sgtrace): not a trace directory");
        return -1;
    }
    t->files = calloc((size_t)highest + 1, sizeof *t->files);
    if (t->files == NULL)
        return -1;
    t->procs = highest + 1;
    for (int r = 0; r <= highest; r++)
        snprintf(t->files[r].path, sizeof t->files[r].path, "%s/rank-%d.sgtrace", dir, r);
    for (int r = 0; r <= highest; r++) {
        FILE *probe = fopen(t->files[r].path, "r");
        if (probe == NULL) {
            tell(dir, 0, "rank %d's file is missing (rank-0 to rank-%d expected)", r, highest);
            return -1;
        }
        fclose(probe);
        if (read_file(t, r, strict) != 0)
            return -1;
    }
    for (int r = 0; r <= highest; r++) {
        const struct rank_file *f = &t->files[r], *first = &t->files[0];
        if (strcmp(f->job, first->job) != 0 || f->size != first->size) {
            tell(dir, 0, "a mixed directory: %s is of job %s (%d ranks), %s of job %s (%d ranks)",
                 f->path, f->job, f->size, first->path, first->job, first->size);
            return -1;
        }
    }
    if (t->files[0].size != t->procs) {
        tell(dir, 0, "the job had %d ranks, the directory holds rank files up to rank-%d",
             t->files[0].size, highest);
        return -1;
    }
    if (t->call_count > 0)
        qsort(t->calls, t->call_count, sizeof *t->calls, by_rank_and_index);
    if (t->sub_count > 0)
        qsort(t->subs, t->sub_count, sizeof *t->subs, sub_order);
    t->first_start = t->call_count ? t->calls[0].start : 0;
    size_t s = 0;
    for (size_t i = 0; i < t->call_count; i++) {
        struct call *c = &t->calls[i];
        t->first_start = c->start < t->first_start ? c->start : t->first_start;
        while (s < t->sub_count && sub_order(&t->subs[s], &(struct sub){.rank = c->rank,
                                                                         .index = c->index}) < 0)
            s++;
        c->first_sub = s;
        while (s + c->sub_count < t->sub_count && t->subs[s + c->sub_count].rank == c->rank &&
               t->subs[s + c->sub_count].index == c->index)
            c->sub_count++;
    }
    return 0;
}

void trace_free(struct trace *t)
{
    for (size_t i = 0; i < t->call_count; i++)
        free(t->calls[i].fields);
    free(t->calls);
    free(t->subs);
    free(t->comms);
    free(t->files);
}

int routine_sends(const char *routine)
{
    static const char *const sends[] = {"MPI_Send",  "MPI_Ssend",  "MPI_Rsend",
                                        "MPI_Bsend", "MPI_Isend",  "MPI_Issend",
                                        "MPI_Irsend", "MPI_Ibsend", "MPI_Sendrecv",
                                        "MPI_Sendrecv_replace"};
    for (size_t i = 0; i < sizeof sends / sizeof sends[0]; i++)
        if (strcmp(routine, sends[i]) == 0)
            return 1;
    return 0;
}

int routine_family(const char *routine, char *family, size_t size)
{
    const char *name = strncmp(routine, "MPI_", 4) == 0 ? routine + 4 : routine;
    int nonblocking = name[0] == 'I' && islower((unsigned char)name[1]);
    name += nonblocking;
    size_t length = strlen(name);
    if (length > 2 && strcmp(name + length - 2, "_c") == 0)
        length -= 2;
    int persistent = length > 5 && strncmp(name + length - 5, "_init", 5) == 0;
    length -= persistent ? 5 : 0;
    if (size == 0)
        return persistent;
    length = length < size - 1 ? length : size - 1;
    memcpy(family, name, length);
    family[length] = '\0';
    family[0] = (char)toupper((unsigned char)family[0]);
    return persistent;
}
