/* The bounds INI's loader: inih plus the schema checks of
 * configs/example.ini (the section-wise writer is bounds_replace.c). No
 * global mutable state: everything lives in
 * a struct loader on the caller's stack, so loads may run in any thread. */
#include "bounds.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bounds_text.h"

static const char *const failure_names[] = {
    [SG_FAILURE_UNKNOWN] = "unknown",     [SG_FAILURE_CRASH] = "crash",
    [SG_FAILURE_HANG] = "hang",           [SG_FAILURE_MPI_ERROR] = "mpi-error",
    [SG_FAILURE_OOM] = "oom",             [SG_FAILURE_WRONG_DATA] = "wrong-data",
    [SG_FAILURE_SLOW] = "slow",
};
#define FAILURE_COUNT (sizeof failure_names / sizeof failure_names[0])

static const char *const workaround_names[] = {
    [SG_WORKAROUND_AUTO] = "auto",
#define SG_WORKAROUND_NAME(id, name) [SG_WORKAROUND_##id] = name,
    SG_WORKAROUND_LIST(SG_WORKAROUND_NAME)
#undef SG_WORKAROUND_NAME
    [SG_WORKAROUND_NONE] = "none",
};
#define WORKAROUND_COUNT (sizeof workaround_names / sizeof workaround_names[0])

const char *sg_failure_name(enum sg_failure failure)
{
    return (size_t)failure < FAILURE_COUNT ? failure_names[failure] : "unknown";
}

const char *sg_workaround_name(enum sg_workaround workaround)
{
    return (size_t)workaround < WORKAROUND_COUNT ? workaround_names[workaround] : "unknown";
}

const char *const sg_bounds_entry_keys[KEY_COUNT] = {
    "class",      "trigger", "bound",      "type_size", "procs",        "safe_count",
    "delta",      "failure", "workaround", "inplace",   "safe_seconds", "fail_seconds",
    "avoid_with", "avoid_checked", "avoid_seconds", "workaround_seconds", "nodes",
};

const char *const sg_bounds_platform_keys[PKEY_COUNT] = {
    "mpi_library", "hostname", "measured", "launcher", "cvars_rule", "cvars_digest"};

int sg_bounds_name_index(const char *const *names, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return (int)i;
    return -1;
}

/* ---- Lines as inih sees them --------------------------------------------- */

/* inih's own scan: stop at one of `chars` or at a ';' after whitespace. */
static const char *find_chars_or_comment(const char *s, const char *chars)
{
    int was_space = 0;
    while (*s && !strchr(chars, *s) && !(was_space && *s == ';')) {
        was_space = isspace((unsigned char)*s);
        s++;
    }
    return s;
}

/* `line` has its leading whitespace removed. A blank line is also a comment;
 * for a header, *name_length is the length of the name after the '['. */
enum line_kind sg_bounds_line_kind(const char *line, size_t *name_length)
{
    if (*line == '\0' || *line == ';' || *line == '#')
        return LINE_BLANK;
    if (*line == '[') {
        const char *end = find_chars_or_comment(line + 1, "]");
        if (*end != ']')
            return LINE_BAD_HEADER;
        *name_length = (size_t)(end - line - 1);
        return LINE_HEADER;
    }
    const char *end = find_chars_or_comment(line, "=:");
    return *end ? LINE_KEY : LINE_BAD;
}

int sg_bounds_has_bom(const char *line)
{
    return (unsigned char)line[0] == 0xEF && (unsigned char)line[1] == 0xBB &&
           (unsigned char)line[2] == 0xBF;
}

/* ---- Loader --------------------------------------------------------------- */

enum section_kind {
    SECTION_NONE,
    SECTION_PLATFORM,
    SECTION_CHECKS,
    SECTION_CVARS,
    SECTION_ROUTINE,
    SECTION_IGNORED
};

struct header {
    int routine;
    unsigned ordinal, line;
};

struct loader {
    const char *name;
    FILE *file;
    size_t file_bytes;
    const char *text;
    size_t length, position;
    int read_errno;
    unsigned line;

    enum section_kind kind;
    unsigned key_line[KEY_COUNT]; /* where each key of the open section was, 0 if absent */
    int bad_value;                /* some value of the open section was rejected */
    int bad_line;                 /* some line of it could not be read (too long, NUL) */
    struct sg_bound_entry entry;  /* the open routine section */
    unsigned platform_line, checks_line, cvars_line, cvars_digest_line;

    struct sg_bounds result;
    size_t capacity, cvar_capacity;
    struct header *headers; /* every routine header, for the duplicate check */
    size_t header_count, header_capacity;

    sg_bounds_warn_fn *warn;
    void *warn_context;

    int failed;
    unsigned error_line; /* 0: the message names no line */
    char error[256];
};

/* The error on the earliest line wins, whenever it is found. */
__attribute__((format(printf, 3, 4))) static void fail(struct loader *ld, unsigned line,
                                                        const char *format, ...)
{
    if (ld->failed && line >= ld->error_line)
        return;
    ld->failed = 1;
    ld->error_line = line;
    va_list args;
    va_start(args, format);
    vsnprintf(ld->error, sizeof ld->error, format, args);
    va_end(args);
}

__attribute__((format(printf, 3, 4))) static void warn(struct loader *ld, unsigned line,
                                                        const char *format, ...)
{
    if (!ld->warn)
        return;
    char text[256], message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    snprintf(message, sizeof message, "%s:%u: %s", ld->name, line, text);
    ld->warn(ld->warn_context, message);
}

void sg_bounds_describe_errno(int error, char *buffer, size_t size)
{
    if (strerror_r(error, buffer, size) != 0)
        snprintf(buffer, size, "error %d", error);
}

static void entry_label(const struct sg_bound_entry *entry, char *buffer, size_t size)
{
    if (entry->ordinal > 1)
        snprintf(buffer, size, "[%s#%u]", sg_routines[entry->routine].name, entry->ordinal);
    else
        snprintf(buffer, size, "[%s]", sg_routines[entry->routine].name);
}

/* `array` with room for one more than `count` elements (grown when full),
 * or NULL after the loader's "out of memory" (`array` then stays valid). */
static void *room_for_one(struct loader *ld, void *array, size_t count, size_t *capacity,
                          size_t element_size)
{
    if (count < *capacity)
        return array;
    size_t wanted = *capacity ? *capacity * 2 : 16;
    void *grown = realloc(array, wanted * element_size);
    if (grown)
        *capacity = wanted;
    else
        fail(ld, 0, "out of memory");
    return grown;
}

/* W4's keys: avoid_with on an entry with a bound, with what the tester
 * checked it up to, which must lie past the bound's first failure. */
static void validate_avoid(struct loader *ld, const char *label)
{
    const struct sg_bound_entry *e = &ld->entry;
    const unsigned *seen = ld->key_line;
    if (!seen[KEY_AVOID_WITH]) {
        if (e->workaround == SG_WORKAROUND_W4)
            fail(ld, seen[KEY_WORKAROUND], "section %s: workaround W4 needs avoid_with", label);
        for (int k = KEY_AVOID_CHECKED; k <= KEY_WORKAROUND_SECONDS; k++)
            if (seen[k])
                fail(ld, seen[k], "section %s: %s needs avoid_with", label,
                     sg_bounds_entry_keys[k]);
        return;
    }
    if (!sg_classes[e->cls].bounded)
        fail(ld, seen[KEY_AVOID_WITH],
             "section %s: class %s takes no avoid_with (W4 needs a bound)", label,
             sg_class_name(e->cls));
    else if (!seen[KEY_AVOID_CHECKED])
        fail(ld, e->line, "section %s: avoid_with needs avoid_checked (the largest n checked "
                          "with it)", label);
    else if (!seen[KEY_SAFE_COUNT] || !seen[KEY_TYPE_SIZE] || !seen[KEY_PROCS])
        fail(ld, seen[KEY_AVOID_WITH], "section %s: avoid_with needs safe_count, type_size and "
                                       "procs (where it was checked)", label);
    else if (e->avoid_checked <= e->safe_count)
        fail(ld, seen[KEY_AVOID_CHECKED],
             "avoid_checked %" PRIu64 " is not past safe_count %" PRIu64, e->avoid_checked,
             e->safe_count);
}

static void validate_entry(struct loader *ld)
{
    struct sg_bound_entry *e = &ld->entry;
    const unsigned *seen = ld->key_line;
    char label[64];
    entry_label(e, label, sizeof label);

    /* A line that could not be read may have held any key: it is reported. */
    if (ld->bad_line)
        return;
    if (!seen[KEY_CLASS])
        fail(ld, e->line, "section %s has no class", label);
    /* The checks below need the values; a rejected one is reported already. */
    if (!seen[KEY_CLASS] || ld->bad_value)
        return;
    if (seen[KEY_NODES] && seen[KEY_PROCS] && e->nodes > e->procs)
        fail(ld, seen[KEY_NODES],
             "nodes %" PRIu64 " exceeds procs %" PRIu64 " (each node held one rank or more)",
             e->nodes, e->procs);
    /* What an entry needs follows from its class's row (detectors.h). */
    const struct sg_class_info *cls = &sg_classes[e->cls];
    if (cls->from_displs) { /* D: the call's own arrays tell, with no bound */
        if (!sg_routines[e->routine].irregular)
            fail(ld, seen[KEY_CLASS], "class %s applies only to the v-routines, not to %s",
                 cls->name, sg_routines[e->routine].name);
        if (seen[KEY_TRIGGER])
            warn(ld, seen[KEY_TRIGGER], "class %s takes no trigger (ignored)", cls->name);
        if (seen[KEY_BOUND])
            warn(ld, seen[KEY_BOUND], "class %s takes no bound (ignored)", cls->name);
        e->trigger = SG_TRIGGER_SNP;
        e->bound = 0;
    } else if (cls->scales) { /* G: a bound in any trigger's form, at every s and P */
        if (!seen[KEY_TRIGGER])
            fail(ld, e->line, "section %s: class %s needs a trigger", label, cls->name);
        if (!seen[KEY_BOUND])
            fail(ld, e->line, "section %s: class %s needs a bound", label, cls->name);
        if (seen[KEY_TRIGGER] && seen[KEY_BOUND] && seen[KEY_SAFE_COUNT] && seen[KEY_TYPE_SIZE] &&
            seen[KEY_PROCS]) {
            uint64_t value = sg_trigger_value(e->trigger, e->type_size, e->safe_count, e->procs);
            if (value > e->bound)
                fail(ld, seen[KEY_SAFE_COUNT],
                     "safe_count %" PRIu64 " already exceeds the bound (%s = %" PRIu64
                     " > %" PRIu64 ")",
                     e->safe_count, sg_trigger_name(e->trigger), value, e->bound);
        }
    } else { /* X: a bound in n, measured at one s and P */
        if (seen[KEY_TRIGGER] && e->trigger != SG_TRIGGER_N)
            fail(ld, seen[KEY_TRIGGER], "class %s takes only trigger = n", cls->name);
        e->trigger = SG_TRIGGER_N;
        if (!seen[KEY_BOUND])
            fail(ld, e->line, "section %s: class %s needs a bound", label, cls->name);
        if (!seen[KEY_TYPE_SIZE])
            fail(ld, e->line, "section %s: class %s needs type_size (the s it was measured at)",
                 label, cls->name);
        if (!seen[KEY_PROCS])
            fail(ld, e->line, "section %s: class %s needs procs (the P it was measured at)", label,
                 cls->name);
        if (seen[KEY_BOUND] && seen[KEY_SAFE_COUNT] && e->safe_count > e->bound)
            fail(ld, seen[KEY_SAFE_COUNT],
                 "safe_count %" PRIu64 " already exceeds the bound (n = %" PRIu64 " > %" PRIu64 ")",
                 e->safe_count, e->safe_count, e->bound);
    }
    validate_avoid(ld, label);
}

static void close_section(struct loader *ld)
{
    if (ld->kind == SECTION_ROUTINE) {
        validate_entry(ld);
        struct sg_bound_entry *entries = room_for_one(ld, ld->result.entries, ld->result.count,
                                                      &ld->capacity, sizeof *entries);
        if (entries) {
            ld->result.entries = entries;
            entries[ld->result.count++] = ld->entry;
        }
    }
    ld->kind = SECTION_NONE;
}

/* "#k" after a routine name: k >= 2, plain decimal, no leading zero. */
static int parse_ordinal(const char *text, size_t length, unsigned *ordinal)
{
    unsigned value = 0;
    if (length == 0 || text[0] == '0')
        return -1;
    for (size_t i = 0; i < length; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        unsigned digit = (unsigned)(text[i] - '0');
        if (value > (UINT_MAX - digit) / 10)
            return -1;
        value = value * 10 + digit;
    }
    *ordinal = value;
    return 0;
}

/* Edits from a to b, letters compared without case (Levenshtein). */
static size_t edit_distance(const char *a, size_t a_length, const char *b)
{
    size_t b_length = strlen(b), row[64];
    if (a_length >= 64 || b_length >= 64)
        return SIZE_MAX;
    for (size_t j = 0; j <= b_length; j++)
        row[j] = j;
    for (size_t i = 1; i <= a_length; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b_length; j++) {
            size_t above = row[j];
            int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            size_t best = diagonal + !same;
            if (above + 1 < best)
                best = above + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    return row[b_length];
}

/* The section an unknown name most likely meant (a case or a typo of up to
 * two letters), or NULL. */
static const char *close_section_name(const char *name, size_t length)
{
    static const char *const others[] = {"platform", "checks", "cvars"};
    const char *best = NULL;
    size_t best_distance = 3;
    for (int i = 0; i < SG_ROUTINE_COUNT + 3; i++) {
        const char *known = i < SG_ROUTINE_COUNT ? sg_routines[i].name
                                                 : others[i - SG_ROUTINE_COUNT];
        size_t distance = edit_distance(name, length, known);
        if (distance < best_distance) {
            best = known;
            best_distance = distance;
        }
    }
    return best;
}

static void open_section(struct loader *ld, const char *name, size_t length)
{
    close_section(ld);
    memset(ld->key_line, 0, sizeof ld->key_line);
    ld->bad_value = 0;
    ld->bad_line = 0;
    ld->kind = SECTION_IGNORED;

    if (length == 8 && memcmp(name, "platform", 8) == 0) {
        if (ld->platform_line)
            fail(ld, ld->line, "duplicate section [platform] (first at line %u)",
                 ld->platform_line);
        else
            ld->platform_line = ld->line;
        ld->kind = SECTION_PLATFORM;
        return;
    }

    if (length == 5 && memcmp(name, "cvars", 5) == 0) {
        if (ld->cvars_line)
            fail(ld, ld->line, "duplicate section [cvars] (first at line %u)", ld->cvars_line);
        else
            ld->cvars_line = ld->line;
        ld->kind = SECTION_CVARS;
        return;
    }

    if (length == 6 && memcmp(name, "checks", 6) == 0) {
        if (ld->checks_line)
            fail(ld, ld->line, "duplicate section [checks] (first at line %u)", ld->checks_line);
        else
            ld->checks_line = ld->line;
        ld->kind = SECTION_CHECKS;
        return;
    }

    const char *hash = memchr(name, '#', length);
    size_t base_length = hash ? (size_t)(hash - name) : length;
    int routine = sg_routine_by_name_length(name, base_length);
    if (routine < 0) {
        const char *close = close_section_name(name, base_length);
        char hint[96] = "";
        if (close)
            snprintf(hint, sizeof hint, ": did you mean [%s%.*s]?", close,
                     (int)(length - base_length < 16 ? length - base_length : 16),
                     name + base_length);
        warn(ld, ld->line, "unknown section [%.*s] (ignored with its keys%s)",
             (int)(length < 64 ? length : 64), name, hint);
        if (ld->result.unknown_sections++ == 0)
            ld->result.first_unknown_section = ld->line;
        return;
    }
    unsigned ordinal = 1;
    if (hash) {
        size_t digits = length - base_length - 1;
        if (parse_ordinal(hash + 1, digits, &ordinal) != 0 || ordinal < 2) {
            fail(ld, ld->line,
                 "bad entry number in [%.*s]: the first entry is [%s], the next [%s#2], ...",
                 (int)(length < 64 ? length : 64), name, sg_routines[routine].name,
                 sg_routines[routine].name);
            return;
        }
    }

    struct header *headers = room_for_one(ld, ld->headers, ld->header_count,
                                          &ld->header_capacity, sizeof *headers);
    if (!headers)
        return;
    ld->headers = headers;
    ld->headers[ld->header_count++] = (struct header){routine, ordinal, ld->line};

    ld->kind = SECTION_ROUTINE;
    ld->entry = (struct sg_bound_entry){
        .routine = (enum sg_routine)routine,
        .ordinal = ordinal,
        .line = ld->line,
        .failure = SG_FAILURE_UNKNOWN,
        .workaround = SG_WORKAROUND_AUTO,
        .nodes = 1,
    };
}

static int source_getc(struct loader *ld)
{
    if (ld->file) {
        int c = getc(ld->file);
        if (c == EOF && ferror(ld->file) && !ld->read_errno)
            ld->read_errno = errno ? errno : EIO;
        if (c != EOF && ld->file_bytes++ == SG_BOUNDS_MAX_BYTES) { /* it grew since fstat */
            fail(ld, 0, "larger than %u MiB: not a bounds INI", SG_BOUNDS_MAX_BYTES >> 20);
            return EOF;
        }
        return c;
    }
    return ld->position < ld->length ? (unsigned char)ld->text[ld->position++] : EOF;
}

/* inih's fgets-style reader. Besides reading it counts lines, opens sections
 * (inih does not tell the handler about them), rejects overlong lines instead
 * of letting inih split them, and strips leading whitespace so that inih
 * never treats a line as the continuation of the previous value. */
static char *read_line(char *buffer, int size, void *stream)
{
    struct loader *ld = stream;
    size_t length = 0, limit = size > 1 ? (size_t)size - 1 : 0;
    int nul = 0, too_long = 0;

    if (limit == 0)
        return NULL;
    int c = source_getc(ld);
    if (c == EOF)
        return NULL;
    ld->line++;
    for (; c != EOF && c != '\n'; c = source_getc(ld)) {
        if (c == '\0')
            nul = 1;
        if (length < limit)
            buffer[length++] = (char)c;
        else
            too_long = 1;
    }
    buffer[length] = '\0';
    if (nul || too_long) {
        ld->bad_line = 1;
        if (nul)
            fail(ld, ld->line, "NUL byte in the line");
        else
            fail(ld, ld->line, "line too long (more than %zu characters)", limit);
        buffer[0] = '\0';
        return buffer;
    }

    /* inih skips a BOM on line 1 itself; keep it there, but strip what follows. */
    size_t keep = ld->line == 1 && sg_bounds_has_bom(buffer) ? 3 : 0;
    size_t skip = keep;
    while (isspace((unsigned char)buffer[skip]))
        skip++;
    memmove(buffer + keep, buffer + skip, length - skip + 1);

    const char *line = buffer + keep;
    size_t name_length = 0;
    switch (sg_bounds_line_kind(line, &name_length)) {
    case LINE_HEADER:
        open_section(ld, line + 1, name_length);
        break;
    case LINE_BAD_HEADER:
        fail(ld, ld->line, "section header without a closing ']'");
        break;
    case LINE_BAD:
        fail(ld, ld->line, "expected 'key = value', '[section]' or a comment");
        break;
    case LINE_BLANK:
    case LINE_KEY:
        break;
    }
    return buffer;
}

static int parse_number(struct loader *ld, const char *key, const char *value, int positive,
                        uint64_t *number)
{
    uint64_t result = 0;
    if (value[0] == '-') {
        fail(ld, ld->line, "negative number for %s: '%.40s'", key, value);
        return -1;
    }
    if (value[0] == '\0') {
        fail(ld, ld->line, "bad number for %s: the value is empty", key);
        return -1;
    }
    for (const char *p = value; *p; p++) {
        if (*p < '0' || *p > '9') {
            fail(ld, ld->line, "bad number for %s: '%.40s' (plain decimal digits only)", key,
                 value);
            return -1;
        }
        unsigned digit = (unsigned)(*p - '0');
        if (result > (UINT64_MAX - digit) / 10) {
            fail(ld, ld->line, "bad number for %s: '%.40s' exceeds %" PRIu64, key, value,
                 UINT64_MAX);
            return -1;
        }
        result = result * 10 + digit;
    }
    if (positive && result == 0) {
        fail(ld, ld->line, "%s must be > 0", key);
        return -1;
    }
    *number = result;
    return 0;
}

/* Seconds as the tester writes them: 1 to 20 digits, then optionally '.'
 * and 1 to 9 digits. Kept as written, so that they read back unchanged. */
static int parse_seconds(struct loader *ld, const char *key, const char *value, char *seconds,
                         size_t size)
{
    if (value[0] == '-') {
        fail(ld, ld->line, "negative seconds for %s: '%.40s'", key, value);
        return -1;
    }
    size_t whole = strspn(value, "0123456789");
    const char *end = value + whole;
    size_t fraction = *end == '.' ? strspn(end + 1, "0123456789") : 0;
    if (*end == '.')
        end += 1 + fraction;
    if (whole < 1 || whole > 20 || *end != '\0' ||
        (value[whole] == '.' && (fraction < 1 || fraction > 9))) {
        fail(ld, ld->line,
             "bad seconds for %s: '%.40s' (plain decimal: digits, then at most 9 after a '.')",
             key, value);
        return -1;
    }
    snprintf(seconds, size, "%s", value); /* at most 30 characters */
    return 0;
}

/* avoid_with = NAME=VALUE [NAME=VALUE ...] (blanks or commas between):
 * W4's control variables, each
 * value a decimal integer (what the algorithm variables take), at most
 * SG_AVOID_MAX, each name once. */
static int parse_avoid(struct loader *ld, const char *value, struct sg_bound_entry *e)
{
    const char *expected = "(NAME=VALUE, up to 4 separated by blanks or commas; VALUE an "
                           "integer)";
    const char *at = value;
    for (;;) {
        at += strspn(at, " \t,");
        if (*at == '\0')
            break;
        size_t length = strcspn(at, " \t,"), name = strcspn(at, "=");
        if (e->avoid_count == SG_AVOID_MAX) {
            fail(ld, ld->line, "avoid_with sets more than %d control variables", SG_AVOID_MAX);
            return -1;
        }
        struct sg_cvar *cvar = &e->avoid[e->avoid_count];
        const char *number = at + name + 1;
        size_t digits = length - name - 1, sign = *number == '-';
        if (name >= length || name >= sizeof cvar->name || digits <= sign || digits > 10 ||
            strspn(number + sign, "0123456789") != digits - sign) {
            fail(ld, ld->line, "bad avoid_with item '%.*s' %s", (int)(length < 60 ? length : 60),
                 at, expected);
            return -1;
        }
        memcpy(cvar->name, at, name);
        cvar->name[name] = '\0';
        memcpy(cvar->value, number, digits);
        cvar->value[digits] = '\0';
        cvar->line = ld->line;
        if (!sg_cvar_name_valid(cvar->name) ||
            strtoll(cvar->value, NULL, 10) != (int)strtoll(cvar->value, NULL, 10)) {
            fail(ld, ld->line, "bad avoid_with item '%.*s' %s", (int)(length < 60 ? length : 60),
                 at, expected);
            return -1;
        }
        for (unsigned i = 0; i < e->avoid_count; i++)
            if (strcmp(e->avoid[i].name, cvar->name) == 0) {
                fail(ld, ld->line, "avoid_with sets %s twice", cvar->name);
                return -1;
            }
        e->avoid_count++;
        at += length;
    }
    if (e->avoid_count == 0) {
        fail(ld, ld->line, "avoid_with is empty %s", expected);
        return -1;
    }
    return 0;
}

static void entry_key(struct loader *ld, const char *key, const char *value)
{
    struct sg_bound_entry *e = &ld->entry;
    char label[64];
    entry_label(e, label, sizeof label);
    int k = sg_bounds_name_index(sg_bounds_entry_keys, KEY_COUNT, key);
    if (k < 0) {
        warn(ld, ld->line, "unknown key '%.40s' in %s (ignored)", key, label);
        return;
    }
    if (ld->key_line[k]) {
        fail(ld, ld->line, "duplicate key '%s' in %s (first at line %u)", key, label,
             ld->key_line[k]);
        return;
    }
    ld->key_line[k] = ld->line;

    int index, status = 0;
    switch ((enum entry_key)k) {
    case KEY_CLASS:
        status = sg_class_parse(value, &e->cls);
        if (status != 0)
            fail(ld, ld->line, "unknown class '%.40s' (D, G or X)", value);
        break;
    case KEY_TRIGGER:
        status = sg_trigger_parse(value, &e->trigger);
        if (status != 0)
            fail(ld, ld->line, "unknown trigger '%.40s' (snP, nP, sn or n)", value);
        break;
    case KEY_BOUND: status = parse_number(ld, key, value, 1, &e->bound); break;
    case KEY_TYPE_SIZE: status = parse_number(ld, key, value, 1, &e->type_size); break;
    case KEY_PROCS: status = parse_number(ld, key, value, 1, &e->procs); break;
    case KEY_NODES: status = parse_number(ld, key, value, 1, &e->nodes); break;
    case KEY_SAFE_COUNT: status = parse_number(ld, key, value, 0, &e->safe_count); break;
    case KEY_DELTA: status = parse_number(ld, key, value, 0, &e->delta); break;
    case KEY_FAILURE:
        /* "unknown" means absent; it is no value to write. */
        index = sg_bounds_name_index(failure_names + 1, FAILURE_COUNT - 1, value);
        if (index < 0) {
            status = -1;
            fail(ld, ld->line,
                 "unknown failure '%.40s' (crash, hang, mpi-error, oom, wrong-data or slow)",
                 value);
        } else {
            e->failure = (enum sg_failure)(index + 1);
        }
        break;
    case KEY_WORKAROUND:
        index = sg_bounds_name_index(workaround_names, WORKAROUND_COUNT, value);
        if (index < 0) {
            status = -1;
            fail(ld, ld->line, "unknown workaround '%.40s' (auto, W1-A, W1-B, W2, W3, W4 or none)",
                 value);
        } else {
            e->workaround = (enum sg_workaround)index;
        }
        break;
    case KEY_INPLACE:
        e->inplace = strcmp(value, "yes") == 0;
        if (!e->inplace && strcmp(value, "no") != 0) {
            status = -1;
            fail(ld, ld->line, "inplace must be yes or no, not '%.40s'", value);
        } else if (e->inplace && !sg_routines[e->routine].in_place) {
            status = -1;
            fail(ld, ld->line, "%s has no in-place form: inplace = yes is not allowed",
                 sg_routines[e->routine].name);
        }
        break;
    case KEY_SAFE_SECONDS:
        status = parse_seconds(ld, key, value, e->safe_seconds, sizeof e->safe_seconds);
        break;
    case KEY_FAIL_SECONDS:
        status = parse_seconds(ld, key, value, e->fail_seconds, sizeof e->fail_seconds);
        break;
    case KEY_AVOID_WITH: status = parse_avoid(ld, value, e); break;
    case KEY_AVOID_CHECKED: status = parse_number(ld, key, value, 1, &e->avoid_checked); break;
    case KEY_AVOID_SECONDS:
        status = parse_seconds(ld, key, value, e->avoid_seconds, sizeof e->avoid_seconds);
        break;
    case KEY_WORKAROUND_SECONDS:
        status = parse_seconds(ld, key, value, e->workaround_seconds,
                               sizeof e->workaround_seconds);
        break;
    case KEY_COUNT: break;
    }
    if (status != 0)
        ld->bad_value = 1;
}

/* Copy with truncation, never splitting a UTF-8 sequence. */
static void copy_text(char *destination, size_t size, const char *source)
{
    size_t length = strlen(source);
    if (length >= size) {
        length = size - 1;
        while (length > 0 && ((unsigned char)source[length] & 0xC0) == 0x80)
            length--;
    }
    memcpy(destination, source, length);
    destination[length] = '\0';
}

static void platform_key(struct loader *ld, const char *key, const char *value)
{
    struct sg_platform *platform = &ld->result.platform;
    int k = sg_bounds_name_index(sg_bounds_platform_keys, PKEY_COUNT, key);
    if (k < 0) {
        warn(ld, ld->line, "unknown key '%.40s' in [platform] (ignored)", key);
        return;
    }
    if (ld->key_line[k]) {
        fail(ld, ld->line, "duplicate key '%s' in [platform] (first at line %u)", key,
             ld->key_line[k]);
        return;
    }
    ld->key_line[k] = ld->line;
    switch ((enum platform_key)k) {
    case PKEY_MPI_LIBRARY:
        copy_text(platform->mpi_library, sizeof platform->mpi_library, value);
        break;
    case PKEY_HOSTNAME: copy_text(platform->hostname, sizeof platform->hostname, value); break;
    case PKEY_MEASURED: copy_text(platform->measured, sizeof platform->measured, value); break;
    case PKEY_LAUNCHER:
        if (strcmp(value, "local") != 0 && strcmp(value, "slurm") != 0)
            fail(ld, ld->line, "launcher must be local or slurm, not '%.40s'", value);
        else
            copy_text(platform->launcher, sizeof platform->launcher, value);
        break;
    case PKEY_CVARS_RULE:
        copy_text(platform->cvars_rule, sizeof platform->cvars_rule, value);
        break;
    case PKEY_CVARS_DIGEST:
        if (strlen(value) != 16 || strspn(value, "0123456789abcdef") != 16)
            fail(ld, ld->line, "cvars_digest must be 16 hex digits (0-9, a-f), not '%.40s'",
                 value);
        else {
            copy_text(platform->cvars_digest, sizeof platform->cvars_digest, value);
            ld->cvars_digest_line = ld->line;
        }
        break;
    case PKEY_COUNT: break;
    }
}

/* One key of [checks]: collectives = yes | no, action = abort | warn,
 * batch = 1 ... 1024 (checks/collective_check.h). */
static void checks_key(struct loader *ld, const char *key, const char *value)
{
    struct sg_checks_config *checks = &ld->result.checks;
    static const char *const keys[] = {"collectives", "action", "batch"};
    static const char *const values[][2] = {{"no", "yes"}, {"abort", "warn"}};
    unsigned *lines[] = {&checks->collectives_line, &checks->action_line, &checks->batch_line};
    int k = sg_bounds_name_index(keys, 3, key);
    if (k < 0) {
        warn(ld, ld->line, "unknown key '%.40s' in [checks] (ignored)", key);
        return;
    }
    if (*lines[k]) {
        fail(ld, ld->line, "duplicate key '%s' in [checks] (first at line %u)", key, *lines[k]);
        return;
    }
    if (k == 2) {
        uint64_t batch;
        if (parse_number(ld, key, value, 1, &batch) != 0)
            return;
        if (batch > 1024) {
            fail(ld, ld->line, "batch must be from 1 to 1024, not %" PRIu64, batch);
            return;
        }
        checks->batch = (unsigned)batch;
    } else {
        int v = sg_bounds_name_index(values[k], 2, value);
        if (v < 0) {
            fail(ld, ld->line, "%s must be %s or %s, not '%.40s'", key, values[k][1],
                 values[k][0], value);
            return;
        }
        *(k == 0 ? &checks->collectives : &checks->warn) = v;
    }
    *lines[k] = ld->line;
}

/* One line of [cvars]: a control variable's name and value. */
static void cvar_key(struct loader *ld, const char *key, const char *value)
{
    if (!sg_cvar_name_valid(key)) {
        fail(ld, ld->line, "'%.40s' is not a control variable's name (A-Z a-z 0-9 _ . -, at "
                           "most %d)", key, SG_CVAR_NAME_MAX - 1);
        return;
    }
    if (strlen(value) >= SG_CVAR_VALUE_MAX) {
        fail(ld, ld->line, "the value of %s is longer than %d characters", key,
             SG_CVAR_VALUE_MAX - 1);
        return;
    }
    struct sg_bounds *b = &ld->result;
    for (size_t i = 0; i < b->cvar_count; i++)
        if (strcmp(b->cvars[i].name, key) == 0) {
            fail(ld, ld->line, "duplicate control variable '%s' in [cvars] (first at line %u)",
                 key, b->cvars[i].line);
            return;
        }
    struct sg_cvar *cvars = room_for_one(ld, b->cvars, b->cvar_count, &ld->cvar_capacity,
                                         sizeof *cvars);
    if (!cvars)
        return;
    b->cvars = cvars;
    struct sg_cvar *c = &b->cvars[b->cvar_count++];
    snprintf(c->name, sizeof c->name, "%s", key);
    snprintf(c->value, sizeof c->value, "%s", value);
    c->line = ld->line;
}

/* A digest in [platform] that its [cvars] no longer give: warned. */
static void check_cvars_digest(struct loader *ld)
{
    const struct sg_platform *p = &ld->result.platform;
    if (!p->cvars_digest[0])
        return;
    char digest[17];
    snprintf(digest, sizeof digest, "%016" PRIx64,
             sg_cvars_digest(ld->result.cvars, ld->result.cvar_count));
    if (strcmp(digest, p->cvars_digest) != 0)
        warn(ld, ld->cvars_digest_line,
             "cvars_digest %s is not the digest of the %zu values in [cvars] (%s): were they "
             "edited? The layer compares the values", p->cvars_digest, ld->result.cvar_count,
             digest);
}

static int on_key(void *user, const char *section, const char *key, const char *value)
{
    struct loader *ld = user;
    (void)section; /* read_line tracks sections, with their lines */
    switch (ld->kind) {
    case SECTION_NONE: warn(ld, ld->line, "key '%.40s' outside any section (ignored)", key); break;
    case SECTION_PLATFORM: platform_key(ld, key, value); break;
    case SECTION_CHECKS: checks_key(ld, key, value); break;
    case SECTION_CVARS: cvar_key(ld, key, value); break;
    case SECTION_ROUTINE: entry_key(ld, key, value); break;
    case SECTION_IGNORED: break;
    }
    return 1; /* errors are kept in the loader, with better messages than inih's */
}

static int compare_headers(const void *a, const void *b)
{
    const struct header *x = a, *y = b;
    if (x->routine != y->routine)
        return x->routine < y->routine ? -1 : 1;
    if (x->ordinal != y->ordinal)
        return x->ordinal < y->ordinal ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

static void check_duplicates(struct loader *ld)
{
    if (ld->header_count < 2)
        return;
    qsort(ld->headers, ld->header_count, sizeof *ld->headers, compare_headers);
    for (size_t i = 1; i < ld->header_count; i++) {
        const struct header *first = &ld->headers[i - 1], *again = &ld->headers[i];
        if (first->routine != again->routine || first->ordinal != again->ordinal)
            continue;
        if (again->ordinal > 1)
            fail(ld, again->line, "duplicate section [%s#%u] (first at line %u)",
                 sg_routines[again->routine].name, again->ordinal, first->line);
        else
            fail(ld, again->line, "duplicate section [%s] (first at line %u)",
                 sg_routines[again->routine].name, first->line);
    }
}

void sg_bounds_report(char *error, size_t error_size, const char *name, unsigned line,
                   const char *message)
{
    if (!error || error_size == 0)
        return;
    if (line)
        snprintf(error, error_size, "%s:%u: %s", name, line, message);
    else
        snprintf(error, error_size, "%s: %s", name, message);
}

static int load(struct loader *ld, struct sg_bounds *bounds, char *error, size_t error_size)
{
    int status = ini_parse_stream(read_line, ld, on_key, ld);
    close_section(ld);
    if (status > 0)
        fail(ld, (unsigned)status, "syntax error");
    else if (status < 0)
        fail(ld, 0, "out of memory");
    if (ld->read_errno) {
        char reason[128];
        sg_bounds_describe_errno(ld->read_errno, reason, sizeof reason);
        fail(ld, 0, "read error: %s", reason);
    }
    check_duplicates(ld);
    free(ld->headers);
    if (!ld->failed)
        check_cvars_digest(ld);

    if (ld->failed) {
        free(ld->result.entries);
        free(ld->result.cvars);
        sg_bounds_report(error, error_size, ld->name, ld->error_line, ld->error);
        return -1;
    }
    *bounds = ld->result;
    return 0;
}

static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "of another kind";
}

/* Opens a bounds INI to read: a regular file of at most
 * SG_BOUNDS_MAX_BYTES. O_NONBLOCK: opening a FIFO must not wait for a
 * writer (it is then refused, as is anything else that is not a regular
 * file, such as /dev/zero, whose reading would never end). Returns the
 * descriptor, or -1 with errno kept and the message in `message`. */
int sg_bounds_open_file(const char *path, struct stat *info, char *message,
                            size_t message_size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 || fstat(fd, info) != 0) {
        int saved = errno;
        char reason[128];
        sg_bounds_describe_errno(saved, reason, sizeof reason);
        if (fd >= 0)
            close(fd);
        snprintf(message, message_size, "cannot open: %s", reason);
        errno = saved;
        return -1;
    }
    if (!S_ISREG(info->st_mode))
        snprintf(message, message_size, "not a regular file (%s): a bounds INI is a file",
                 file_kind(info->st_mode));
    else if ((uintmax_t)info->st_size > SG_BOUNDS_MAX_BYTES)
        snprintf(message, message_size, "larger than %u MiB: not a bounds INI",
                 SG_BOUNDS_MAX_BYTES >> 20);
    else
        return fd;
    close(fd);
    errno = EINVAL;
    return -1;
}

int sg_bounds_load(const char *path, struct sg_bounds *bounds, sg_bounds_warn_fn *warn,
                   void *warn_context, char *error, size_t error_size)
{
    if (!bounds) {
        sg_bounds_report(error, error_size, path ? path : "(null)", 0, "no bounds to load into");
        return -1;
    }
    memset(bounds, 0, sizeof *bounds);
    if (!path) {
        sg_bounds_report(error, error_size, "(null)", 0, "no file name");
        return -1;
    }
    char message[192];
    struct stat info;
    int fd = sg_bounds_open_file(path, &info, message, sizeof message);
    FILE *file = fd < 0 ? NULL : fdopen(fd, "r");
    if (!file) {
        if (fd >= 0) {
            char reason[128];
            sg_bounds_describe_errno(errno, reason, sizeof reason);
            snprintf(message, sizeof message, "cannot open: %s", reason);
            close(fd);
        }
        sg_bounds_report(error, error_size, path, 0, message);
        return -1;
    }
    struct loader ld = {.name = path, .file = file, .warn = warn, .warn_context = warn_context};
    int status = load(&ld, bounds, error, error_size);
    fclose(file);
    return status;
}

int sg_bounds_load_text(const char *text, size_t length, const char *name,
                        struct sg_bounds *bounds, sg_bounds_warn_fn *warn, void *warn_context,
                        char *error, size_t error_size)
{
    if (!name)
        name = "(text)";
    if (!bounds) {
        sg_bounds_report(error, error_size, name, 0, "no bounds to load into");
        return -1;
    }
    memset(bounds, 0, sizeof *bounds);
    if (!text && length) {
        sg_bounds_report(error, error_size, name, 0, "no text");
        return -1;
    }
    struct loader ld = {
        .name = name, .text = text, .length = length, .warn = warn, .warn_context = warn_context};
    return load(&ld, bounds, error, error_size);
}

void sg_bounds_free(struct sg_bounds *bounds)
{
    if (!bounds)
        return;
    free(bounds->entries);
    free(bounds->cvars);
    memset(bounds, 0, sizeof *bounds);
}

int sg_bounds_empty(const struct sg_bounds *bounds)
{
    const struct sg_platform *p = &bounds->platform;
    const struct sg_checks_config *c = &bounds->checks;
    return bounds->count == 0 && bounds->cvar_count == 0 && !c->collectives_line &&
           !c->action_line && !c->batch_line && !p->mpi_library[0] && !p->hostname[0] &&
           !p->measured[0] && !p->launcher[0] && !p->cvars_rule[0] && !p->cvars_digest[0];
}
