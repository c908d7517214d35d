/* The bounds INI's section-wise writer (sg_bounds_replace, bounds.h): the
 * new file is validated by the loader (bounds.c) before it replaces the old
 * one. */
#include "bounds.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bounds_text.h"
#include "safe_file.h"

struct text {
    char *data;
    size_t length, capacity;
    int failed;
};

static void append(struct text *t, const char *data, size_t length)
{
    if (t->failed)
        return;
    if (length > t->capacity - t->length) {
        size_t wanted = t->capacity ? t->capacity : 256;
        while (wanted - t->length < length) {
            if (wanted > SIZE_MAX / 2) {
                t->failed = 1;
                return;
            }
            wanted *= 2;
        }
        char *grown = realloc(t->data, wanted);
        if (!grown) {
            t->failed = 1;
            return;
        }
        t->data = grown;
        t->capacity = wanted;
    }
    memcpy(t->data + t->length, data, length);
    t->length += length;
}

static void append_string(struct text *t, const char *s) { append(t, s, strlen(s)); }

/* Reads the whole file; a missing one reads as empty with *mode 0. */
static int read_whole(const char *path, struct text *content, mode_t *mode, char *reason,
                      size_t reason_size)
{
    *mode = 0;
    struct stat status;
    int fd = sg_bounds_open_file(path, &status, reason, reason_size);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    *mode = status.st_mode & 07777;
    char chunk[4096];
    for (;;) {
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            char why[128];
            sg_bounds_describe_errno(errno, why, sizeof why);
            snprintf(reason, reason_size, "cannot read: %s", why);
            close(fd);
            return -1;
        }
        if (got == 0)
            break;
        append(content, chunk, (size_t)got);
        if (content->length > SG_BOUNDS_MAX_BYTES) { /* it grew since fstat */
            snprintf(reason, reason_size, "larger than %u MiB: not a bounds INI",
                     SG_BOUNDS_MAX_BYTES >> 20);
            close(fd);
            return -1;
        }
    }
    close(fd);
    if (content->failed) {
        snprintf(reason, reason_size, "out of memory");
        return -1;
    }
    return 0;
}

static int write_all(int fd, const char *data, size_t length)
{
    while (length > 0) {
        ssize_t written = write(fd, data, length);
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0)
            return -1;
        data += written;
        length -= (size_t)written;
    }
    return 0;
}

/* Writes `content` next to `path` and renames it over `path`, safely
 * (files/safe_file.h): a symbolic link `path` (made by this user or root)
 * stays, and the file it points to is replaced in that file's directory. */
static int write_atomically(const char *path, const struct text *content, mode_t mode,
                            char *reason, size_t reason_size)
{
    char target[PATH_MAX], name[256], why[200];
    struct sg_safe_file file;
    int dir = -1;
    if (sg_safe_resolve(path, target, sizeof target, reason, reason_size) != 0)
        return -1;
    if ((dir = sg_safe_parent(target, name, sizeof name, why, sizeof why)) < 0 ||
        sg_safe_begin(dir, name, 0666, &file, why, sizeof why) != 0) {
        int linked = strcmp(target, path) != 0;
        if (snprintf(reason, reason_size, "%s%s%s", linked ? target : "", linked ? " " : "",
                     why) >= (int)reason_size)
            sg_bounds_describe_errno(ENAMETOOLONG, reason, reason_size);
        if (dir >= 0)
            close(dir);
        return -1;
    }
    /* new files get the umask's mode; a replaced one keeps its own */
    int failed = write_all(file.fd, content->data, content->length) != 0 ||
                 (mode && fchmod(file.fd, mode) != 0) || fsync(file.fd) != 0;
    if (failed) {
        sg_bounds_describe_errno(errno, reason, reason_size);
        sg_safe_abandon(&file, 0);
    } else if (sg_safe_commit(&file, reason, reason_size) != 0)
        failed = 1;
    else if (close(file.fd) != 0) {
        failed = 1;
        sg_bounds_describe_errno(errno, reason, reason_size);
    }
    close(dir);
    return failed ? -1 : 0;
}

static int is_section_of(const char *name, size_t length, const char *section)
{
    size_t section_length = strlen(section);
    if (length < section_length || memcmp(name, section, section_length) != 0)
        return 0;
    if (length == section_length)
        return 1;
    if (name[section_length] != '#' || length == section_length + 1)
        return 0;
    for (size_t i = section_length + 1; i < length; i++)
        if (name[i] < '0' || name[i] > '9')
            return 0;
    return 1;
}

/* Splits "key=value" (blanks around either allowed) and checks that the line
 * "key = value" reads back as exactly this key and value. Returns NULL or
 * what is wrong. */
static const char *split_pair(const char *pair, const char *const *names, size_t count,
                              char *key, size_t key_size, const char **value,
                              size_t *value_length)
{
    const char *equals = strchr(pair, '=');
    if (!equals)
        return "not KEY=VALUE";
    const char *key_end = equals;
    while (key_end > pair && isspace((unsigned char)key_end[-1]))
        key_end--;
    while (pair < key_end && isspace((unsigned char)*pair))
        pair++;
    size_t key_length = (size_t)(key_end - pair);
    if (key_length >= key_size)
        return "unknown key";
    memcpy(key, pair, key_length);
    key[key_length] = '\0';
    if (names ? sg_bounds_name_index(names, count, key) < 0 : !sg_cvar_name_valid(key))
        return "unknown key";

    const char *v = equals + 1, *end;
    while (isspace((unsigned char)*v))
        v++;
    end = v + strlen(v);
    while (end > v && isspace((unsigned char)end[-1]))
        end--;
    for (const char *p = v; p < end; p++) {
        if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7F)
            return "control character in the value";
        if (*p == ';' && (p == v || isspace((unsigned char)p[-1])))
            return "the value holds ' ;', which would start a comment";
    }
    *value = v;
    *value_length = (size_t)(end - v);
    return NULL;
}

/* The keys a section may hold: a list, or (names NULL) any control
 * variable's name ([cvars]). */
struct schema {
    const char *const *names;
    size_t count;
};

static int append_sections(struct text *out, const char *section, const char *const *const *keys,
                           size_t entry_count, struct schema schema, char *reason,
                           size_t reason_size)
{
    for (size_t k = 0; k < entry_count; k++) {
        char header[64];
        if (k == 0)
            snprintf(header, sizeof header, "[%s]\n", section);
        else
            snprintf(header, sizeof header, "\n[%s#%zu]\n", section, k + 1);
        append_string(out, header);
        for (const char *const *pair = keys[k]; pair && *pair; pair++) {
            char key[SG_CVAR_NAME_MAX];
            const char *value;
            size_t value_length;
            const char *bad = split_pair(*pair, schema.names, schema.count, key, sizeof key,
                                         &value, &value_length);
            if (bad) {
                snprintf(reason, reason_size, "bad entry '%.60s' for [%s]: %s", *pair, section,
                         bad);
                return -1;
            }
            append_string(out, key);
            append_string(out, " = ");
            append(out, value, value_length);
            append_string(out, "\n");
        }
    }
    return 0;
}

struct line_info {
    size_t start, end; /* byte range, the '\n' included */
    enum line_kind kind;
    int empty;   /* nothing but whitespace */
    int removed; /* for a header: it is one of `section`'s */
};

/* Which lines go: a removed section runs from its header to the next header
 * (or the end), except for the comment and blank lines just above that next
 * header, which belong to it. Only where that block is all blank and the next
 * header goes too (or the file ends) does the block go with the section, so
 * that blank separators do not pile up over repeated replacements. */
static void mark_removed(struct line_info *lines, size_t count)
{
    for (size_t n = 0; n < count; n++) {
        if (lines[n].kind != LINE_HEADER || !lines[n].removed)
            continue;
        size_t next = n + 1;
        while (next < count && lines[next].kind != LINE_HEADER)
            next++;
        size_t stop = next;
        int block_is_blank = 1;
        while (stop > n + 1 && lines[stop - 1].kind == LINE_BLANK) {
            block_is_blank &= lines[stop - 1].empty;
            stop--;
        }
        if (block_is_blank && (next == count || lines[next].removed))
            stop = next;
        for (size_t m = n + 1; m < stop; m++)
            lines[m].removed = 1;
        n = next - 1;
    }
}

static int build(const struct text *old, const char *section, const char *const *const *keys,
                 size_t entry_count, struct schema schema, struct text *out, char *reason,
                 size_t reason_size)
{
    size_t count = 0, longest = 0;
    for (size_t i = 0, line_start = 0; i < old->length; i++)
        if (old->data[i] == '\n' || i + 1 == old->length) {
            count++;
            if (i + 1 - line_start > longest)
                longest = i + 1 - line_start;
            line_start = i + 1;
        }
    struct line_info *lines = calloc(count ? count : 1, sizeof *lines);
    char *copy = malloc(longest + 1);
    if (!lines || !copy) {
        free(lines);
        free(copy);
        snprintf(reason, reason_size, "out of memory");
        return -1;
    }

    size_t start = 0, first_removed = count;
    for (size_t n = 0; n < count; n++) {
        const char *newline = memchr(old->data + start, '\n', old->length - start);
        size_t stop = newline ? (size_t)(newline - old->data) + 1 : old->length;
        lines[n].start = start;
        lines[n].end = stop;
        memcpy(copy, old->data + start, stop - start);
        copy[stop - start] = '\0';
        char *line = copy + (n == 0 && sg_bounds_has_bom(copy) ? 3 : 0);
        while (isspace((unsigned char)*line))
            line++;
        size_t name_length = 0;
        lines[n].kind = sg_bounds_line_kind(line, &name_length);
        lines[n].empty = *line == '\0';
        lines[n].removed =
            lines[n].kind == LINE_HEADER && is_section_of(line + 1, name_length, section);
        if (lines[n].removed && first_removed == count)
            first_removed = n;
        start = stop;
    }
    mark_removed(lines, count);

    int status = 0;
    for (size_t n = 0; n < count && status == 0; n++) {
        if (n == 0 && first_removed == 0 && old->length >= 3 && sg_bounds_has_bom(old->data))
            append(out, old->data, 3); /* the BOM stays first */
        if (n == first_removed)
            status = append_sections(out, section, keys, entry_count, schema, reason,
                                     reason_size);
        if (!lines[n].removed)
            append(out, old->data + lines[n].start, lines[n].end - lines[n].start);
    }
    if (status == 0 && first_removed == count && entry_count > 0) {
        if (count > 0 && old->data[old->length - 1] != '\n')
            append_string(out, "\n");
        if (count > 0 && !lines[count - 1].empty)
            append_string(out, "\n");
        status = append_sections(out, section, keys, entry_count, schema, reason,
                                 reason_size);
    }
    free(lines);
    free(copy);
    if (status == 0 && out->failed) {
        snprintf(reason, reason_size, "out of memory");
        status = -1;
    }
    return status;
}

int sg_bounds_replace(const char *path, const char *section, const char *const *const *keys,
                      size_t entry_count, char *error, size_t error_size)
{
    char reason[256] = "";
    if (!path || !section) {
        sg_bounds_report(error, error_size, path ? path : "(null)", 0, "no file or section given");
        return -1;
    }
    int is_platform = strcmp(section, "platform") == 0, is_cvars = strcmp(section, "cvars") == 0;
    struct schema schema = is_platform ? (struct schema){sg_bounds_platform_keys, PKEY_COUNT}
                           : is_cvars  ? (struct schema){NULL, 0}
                                       : (struct schema){sg_bounds_entry_keys, KEY_COUNT};
    if (!is_platform && !is_cvars && sg_routine_by_name(section) < 0) {
        snprintf(reason, sizeof reason,
                 "unknown section '%.60s' (an MPI routine, platform or cvars)", section);
        sg_bounds_report(error, error_size, path, 0, reason);
        return -1;
    }
    if ((is_platform || is_cvars) && entry_count > 1) {
        snprintf(reason, sizeof reason, "there is only one [%s]", section);
        sg_bounds_report(error, error_size, path, 0, reason);
        return -1;
    }
    if (entry_count > 0 && !keys) {
        sg_bounds_report(error, error_size, path, 0, "no keys given");
        return -1;
    }

    struct text old = {0}, out = {0};
    mode_t mode;
    int status = read_whole(path, &old, &mode, reason, sizeof reason);
    if (status != 0)
        sg_bounds_report(error, error_size, path, 0, reason);
    if (status == 0) {
        status = build(&old, section, keys, entry_count, schema, &out, reason, sizeof reason);
        if (status != 0)
            sg_bounds_report(error, error_size, path, 0, reason);
    }
    if (status == 0) {
        struct sg_bounds check;
        char invalid[512];
        status = sg_bounds_load_text(out.data, out.length, path, &check, NULL, NULL, invalid,
                                     sizeof invalid);
        sg_bounds_free(&check);
        if (status != 0 && error && error_size)
            snprintf(error, error_size, "%s (the result would be invalid; file left unchanged)",
                     invalid);
    }
    if (status == 0) {
        status = write_atomically(path, &out, mode, reason, sizeof reason);
        if (status != 0) {
            char message[320];
            snprintf(message, sizeof message, "cannot write: %s", reason);
            sg_bounds_report(error, error_size, path, 0, message);
        }
    }
    free(old.data);
    free(out.data);
    return status;
}
