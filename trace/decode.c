/* The text form of a trace file (decode.h, FORMAT.md): the header's lines
 * as they are, then each record (records.h) as its line, times dated by the
 * file's clock records. */
#include "decode.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "records.h"

#define NAMES 65536 /* ids: 16 bits */
#define LONGEST_NAME 255

struct decoder {
    const unsigned char *data;
    size_t size;
    const char *(*line)(void *, long, char *, size_t);
    void *arg;
    struct sg_decode_problem *problem;
    long number;
    /* ticks to CLOCK_REALTIME: ns = base_ns + (ticks - base_ticks) * rate */
    uint64_t base_ticks, base_ns;
    long double rate;
    const char **names; /* by id */
    uint64_t *comms;    /* the comm lines' ids, by number - 1 */
    size_t comm_count, comm_capacity;
    uint64_t last_index; /* of the last call record */
};

static enum sg_decoded fail(struct decoder *d, long line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    d->problem->line = line;
    vsnprintf(d->problem->why, sizeof d->problem->why, format, args);
    va_end(args);
    return SG_DECODED_ERROR;
}

/* Hands a line over; -1 when the callee found it wrong. */
static int deliver(struct decoder *d, char *text, size_t length)
{
    const char *why = d->line(d->arg, ++d->number, text, length);
    if (why == NULL)
        return 0;
    fail(d, d->number, "%s", why);
    return -1;
}

/* Nanoseconds as seconds with 9 decimals (a negative count as 0). */
static char *put_ns(char *p, long double ns)
{
    uint64_t whole = ns < 0 ? 0 : (uint64_t)(ns + 0.5L);
    return p + sprintf(p, "%" PRIu64 ".%09" PRIu64, whole / 1000000000u, whole % 1000000000u);
}

static char *put_seconds(char *p, const struct decoder *d, uint64_t ticks)
{
    return put_ns(p, (long double)d->base_ns +
                         ((long double)ticks - (long double)d->base_ticks) * d->rate);
}

static char *put_duration(char *p, const struct decoder *d, uint64_t start, uint64_t end)
{
    return put_ns(p, end > start ? (long double)(end - start) * d->rate : 0);
}

static const char *name_of(const struct decoder *d, uint64_t id)
{
    return id < NAMES && d->names[id] != NULL ? d->names[id] : NULL;
}

static const char *const optional_keys[] = {
#define SG_CALL_KEY(NAME, key) key,
    SG_CALL_OPTIONAL(SG_CALL_KEY)
#undef SG_CALL_KEY
};

/* A comm line: its id, by the line's number (call records name it so). */
static const char *comm_seen(struct decoder *d, const char *text)
{
    uint64_t id;
    if (sscanf(text, "comm %" SCNx64, &id) != 1)
        return "a comm line without its id";
    if (d->comm_count == d->comm_capacity) {
        size_t capacity = d->comm_capacity ? 2 * d->comm_capacity : 64;
        uint64_t *grown = realloc(d->comms, capacity * sizeof *grown);
        if (grown == NULL)
            return "out of memory";
        d->comms = grown;
        d->comm_capacity = capacity;
    }
    d->comms[d->comm_count++] = id;
    return NULL;
}

/* A call record's line into `text` (room for 32 bytes a word and three
 * names). Returns NULL, or what is wrong. */
static const char *call_line(struct decoder *d, uint32_t bits, const uint64_t *words,
                             size_t count, char *text)
{
    struct sg_call_record r;
    size_t fixed = sizeof r / sizeof(uint64_t);
    if ((bits >> SG_CALL_OPTIONAL_COUNT) != 0 || count != fixed + (size_t)__builtin_popcount(bits))
        return "a call record of another length than its fields";
    memcpy(&r, words, sizeof r);
    const char *routine = name_of(d, r.routine), *did = name_of(d, r.did),
               *why = name_of(d, r.why);
    if (routine == NULL || (r.did && did == NULL) || (r.why && why == NULL))
        return "a call record naming what no name record named";
    if (r.comm > d->comm_count)
        return "a call record on a communicator no comm line described";
    uint64_t value[SG_CALL_OPTIONAL_COUNT];
    const uint64_t *next = words + fixed;
    for (int bit = 0; bit < SG_CALL_OPTIONAL_COUNT; bit++)
        value[bit] = bits >> bit & 1 ? *next++ : 0;
    uint64_t index = bits & SG_CALL_HAS(INDEX) ? value[SG_CALL_BIT_INDEX] : d->last_index + 1;
    uint64_t end = bits & SG_CALL_HAS(END) ? value[SG_CALL_BIT_END] : r.start + r.duration;
    d->last_index = index;
    char *p = text + sprintf(text, "call %" PRIu64 " %s comm=%016" PRIx64 " t=", index, routine,
                             r.comm ? d->comms[r.comm - 1] : 0);
    p = put_seconds(p, d, r.start);
    p = put_duration(p + sprintf(p, " d="), d, r.start, end);
    for (int bit = 0; bit < SG_CALL_OPTIONAL_COUNT; bit++) {
        if (bit == SG_CALL_BIT_SUBS) { /* the decision, before its sub-calls' count */
            if (did != NULL)
                p += sprintf(p, " did=%s", did);
            if (why != NULL)
                p += sprintf(p, " why=%s", why);
        }
        if (!(bits >> bit & 1) || optional_keys[bit] == NULL)
            continue;
        if (bit == SG_CALL_BIT_SIGNATURE)
            p += sprintf(p, "%s%016" PRIx64, optional_keys[bit], value[bit]);
        else
            p += sprintf(p, "%s%" PRId64, optional_keys[bit], (int64_t)value[bit]);
    }
    return NULL;
}

static const char *sub_line(const struct decoder *d, const uint64_t *w, size_t count, char *text)
{
    const char *routine = count == 5 ? name_of(d, w[2]) : NULL;
    if (routine == NULL)
        return "a sub record that is not 'index, j, routine, start, end'";
    char *p = text + sprintf(text, "sub %" PRIu64 " %" PRIu64 " %s t=", w[0], w[1], routine);
    p = put_seconds(p, d, w[3]);
    put_duration(p + sprintf(p, " d="), d, w[3], w[4]);
    return NULL;
}

static const char *done_line(const struct decoder *d, uint32_t bits, const uint64_t *w,
                             size_t count, char *text)
{
    if (count != 6)
        return "a done record that is not 'request, index, time, source, tag, bytes'";
    char *p = text + sprintf(text, "done %" PRIu64 " %" PRIu64 " t=", w[0], w[1]);
    p = put_seconds(p, d, w[2]);
    if (bits & SG_DONE_STATUS) {
        if ((int64_t)w[3] >= 0)
            p += sprintf(p, " source=%" PRId64, (int64_t)w[3]);
        p += sprintf(p, " tag=%" PRId64 " bytes=%" PRId64, (int64_t)w[4], (int64_t)w[5]);
    }
    if (bits & SG_DONE_CANCELLED)
        sprintf(p, " cancelled=1");
    return NULL;
}

/* A string record's text: its words up to the first NUL. */
static size_t string_of(const uint64_t *words, size_t count, const char **text)
{
    *text = (const char *)words;
    return strnlen(*text, count * sizeof *words);
}

/* The first and the last clock records date the ticks: a straight line
 * through them (a counter at a constant rate). Returns -1 when the records
 * hold calls but too few clocks for a rate (the file is not a trace's). */
static int date_ticks(struct decoder *d, size_t start, int ticks_are_ns)
{
    uint64_t first[2] = {0, 0}, last[2] = {0, 0};
    int clocks = 0;
    for (size_t at = start; at + 8 <= d->size;) {
        struct sg_record_head head;
        memcpy(&head, d->data + at, sizeof head);
        size_t end = at + 8 + 8 * (size_t)head.words;
        if (end > d->size)
            break;
        if (head.type == SG_RECORD_CLOCK && head.words == 2) {
            memcpy(clocks++ ? last : first, d->data + at + 8, sizeof first);
            if (clocks == 1)
                memcpy(last, first, sizeof last);
        }
        at = end;
    }
    d->base_ticks = first[0], d->base_ns = first[1];
    if (ticks_are_ns)
        d->rate = 1;
    else if (last[0] > first[0])
        d->rate = ((long double)last[1] - (long double)first[1]) / (long double)(last[0] - first[0]);
    else
        d->rate = 0; /* one clock: no call can have been written (each flush dates its own) */
    return clocks > 0 ? 0 : -1;
}

static char *read_whole(const char *path, size_t *size, struct decoder *d)
{
    FILE *in = fopen(path, "rb");
    struct stat st;
    char *data = NULL;
    if (in == NULL || fstat(fileno(in), &st) != 0) {
        fail(d, 0, "cannot read it (%s)", strerror(errno));
    } else if ((data = malloc((size_t)st.st_size + 8)) == NULL) { /* room to align the records */
        fail(d, 0, "out of memory for its %lld bytes", (long long)st.st_size);
    } else if (fread(data, 1, (size_t)st.st_size, in) != (size_t)st.st_size) {
        fail(d, 0, "cannot read it (%s)", ferror(in) ? strerror(errno) : "it shrank");
        free(data);
        data = NULL;
    } else {
        data[st.st_size] = '\0';
        *size = (size_t)st.st_size;
    }
    if (in != NULL)
        fclose(in);
    return data;
}

enum sg_decoded sg_trace_decode(const char *path,
                                const char *(*line)(void *, long, char *, size_t), void *arg,
                                struct sg_decode_problem *problem)
{
    struct decoder d = {.line = line, .arg = arg, .problem = problem};
    *problem = (struct sg_decode_problem){0};
    size_t size = 0;
    char *data = read_whole(path, &size, &d);
    if (data == NULL)
        return SG_DECODED_ERROR;
    d.data = (const unsigned char *)data;
    d.size = size;
    enum sg_decoded result = SG_DECODED_ALL;
    char version[32];
    snprintf(version, sizeof version, "scaleguard-trace %d", SG_TRACE_VERSION);
    /* the header: text lines up to `records ORDER CLOCK` */
    size_t at = 0;
    int ticks_are_ns = -1;
    while (ticks_are_ns < 0) {
        char *end = memchr(data + at, '\n', size - at);
        if (end == NULL) {
            result = d.number < 2 ? fail(&d, 0, "no header: not a trace, or written by a job "
                                                "that never started")
                                  : fail(&d, d.number + 1, "the header ends without its "
                                                           "'records' line");
            goto done;
        }
        *end = '\0';
        char *text = data + at;
        size_t length = (size_t)(end - text);
        at = (size_t)(end - data) + 1;
        if (d.number == 0 && strcmp(text, version) != 0) {
            result = fail(&d, 1, "not a trace of version %d (expected '%s')", SG_TRACE_VERSION,
                          version);
            goto done;
        }
        if (strncmp(text, "records ", 8) == 0) {
            const uint16_t order = 1;
            const char *ours = *(const char *)&order ? "little-endian" : "big-endian";
            char clock[16] = "";
            if (sscanf(text + 8, "%*s %15s", clock) != 1 || strncmp(text + 8, ours, strlen(ours)) ||
                (strcmp(clock, "tsc") && strcmp(clock, "ns"))) {
                result = fail(&d, d.number + 1, "expected 'records %s tsc|ns' (a trace written "
                                                "on a machine of this byte order)", ours);
                goto done;
            }
            ticks_are_ns = strcmp(clock, "ns") == 0;
        } else if (deliver(&d, text, length) != 0) {
            result = SG_DECODED_ERROR;
            goto done;
        }
    }
    size_t shift = (8 - at % 8) % 8; /* the records, moved to whole words of memory */
    memmove(data + at + shift, data + at, size - at);
    size += shift;
    at += shift;
    d.size = size;
    d.names = calloc(NAMES, sizeof *d.names);
    char *text = malloc(8 * (size_t)UINT16_MAX + 4096); /* the longest record's line */
    if (d.names == NULL || text == NULL) {
        result = fail(&d, 0, "out of memory");
    } else if (date_ticks(&d, at, ticks_are_ns) != 0 && at < size) {
        result = fail(&d, d.number + 1, "records without the clock record that starts them");
    } else {
        for (; result == SG_DECODED_ALL && at < size;) {
            struct sg_record_head head;
            if (at + 8 > size) {
                result = SG_DECODED_CUT;
                break;
            }
            memcpy(&head, data + at, sizeof head);
            const uint64_t *words = (const uint64_t *)(const void *)(data + at + 8);
            size_t count = head.words;
            if (at + 8 + 8 * count > size) {
                result = SG_DECODED_CUT;
                break;
            }
            at += 8 + 8 * count;
            const char *why = NULL, *string;
            size_t length;
            switch (head.type) {
            case SG_RECORD_CLOCK:
                break;
            case SG_RECORD_NAME:
                if (head.bits == 0 || head.bits >= NAMES || d.names[head.bits] != NULL ||
                    (length = string_of(words, count, &string)) == 0 || length > LONGEST_NAME)
                    why = "a name record that is not a new id and a name";
                else
                    d.names[head.bits] = strndup(string, length);
                break;
            case SG_RECORD_TEXT:
                length = string_of(words, count, &string);
                memcpy(text, string, length);
                text[length] = '\0';
                if (strncmp(text, "comm ", 5) == 0)
                    why = comm_seen(&d, text);
                if (why == NULL && deliver(&d, text, length) != 0)
                    result = SG_DECODED_ERROR;
                break;
            case SG_RECORD_CALL:
            case SG_RECORD_SUB:
            case SG_RECORD_DONE:
                why = head.type == SG_RECORD_CALL  ? call_line(&d, head.bits, words, count, text)
                      : head.type == SG_RECORD_SUB ? sub_line(&d, words, count, text)
                                                   : done_line(&d, head.bits, words, count, text);
                if (why == NULL && deliver(&d, text, strlen(text)) != 0)
                    result = SG_DECODED_ERROR;
                break;
            default:
                why = "not a record of the trace format";
                break;
            }
            if (why != NULL)
                result = fail(&d, d.number + 1, "%s (record type %u at byte %zu)", why,
                              (unsigned)head.type, at - 8 - 8 * count - shift);
        }
    }
    for (size_t i = 0; d.names != NULL && i < NAMES; i++)
        free((void *)d.names[i]);
    free(d.names);
    free(d.comms);
    free(text);
done:
    free(data);
    return result;
}
