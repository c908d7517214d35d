/* What the bounds INI's loader (bounds.c) and its section-wise writer
 * (bounds_replace.c) share: the schema's keys, the lines as inih sees
 * them, the opening of a file, the messages. Private to configs/. */
#ifndef SCALEGUARD_BOUNDS_TEXT_H
#define SCALEGUARD_BOUNDS_TEXT_H

#include <stddef.h>
#include <sys/stat.h>

/* No bounds INI comes near this (the shipped ones hold 20 KB): a larger
 * file is the wrong one, and every rank would read it at MPI_Init. */
#define SG_BOUNDS_MAX_BYTES (16u << 20)

enum entry_key {
    KEY_CLASS,
    KEY_TRIGGER,
    KEY_BOUND,
    KEY_TYPE_SIZE,
    KEY_PROCS,
    KEY_SAFE_COUNT,
    KEY_DELTA,
    KEY_FAILURE,
    KEY_WORKAROUND,
    KEY_INPLACE,
    KEY_SAFE_SECONDS,
    KEY_FAIL_SECONDS,
    KEY_AVOID_WITH,
    KEY_AVOID_CHECKED,
    KEY_AVOID_SECONDS,
    KEY_WORKAROUND_SECONDS,
    KEY_NODES,
    KEY_COUNT
};
extern const char *const sg_bounds_entry_keys[KEY_COUNT];

enum platform_key {
    PKEY_MPI_LIBRARY,
    PKEY_HOSTNAME,
    PKEY_MEASURED,
    PKEY_LAUNCHER,
    PKEY_CVARS_RULE,
    PKEY_CVARS_DIGEST,
    PKEY_COUNT
};
extern const char *const sg_bounds_platform_keys[PKEY_COUNT];
_Static_assert((int)PKEY_COUNT <= (int)KEY_COUNT, "key_line[] holds the platform keys too");

/* The index of `name` in names[0..count), or -1. */
int sg_bounds_name_index(const char *const *names, size_t count, const char *name);

enum line_kind { LINE_BLANK, LINE_HEADER, LINE_KEY, LINE_BAD_HEADER, LINE_BAD };

/* `line` has its leading whitespace removed. A blank line is also a comment;
 * for a header, *name_length is the length of the name after the '['. */
enum line_kind sg_bounds_line_kind(const char *line, size_t *name_length);

/* Whether `line` starts with a UTF-8 byte order mark. */
int sg_bounds_has_bom(const char *line);

/* strerror_r's words for `error`. */
void sg_bounds_describe_errno(int error, char *buffer, size_t size);

/* "name:line: message" (or "name: message" for line 0) into `error`. */
void sg_bounds_report(char *error, size_t error_size, const char *name, unsigned line,
                      const char *message);

/* Opens a bounds INI to read: a regular file of at most
 * SG_BOUNDS_MAX_BYTES. Returns the descriptor, or -1 with errno kept and
 * the message in `message`. */
int sg_bounds_open_file(const char *path, struct stat *info, char *message,
                        size_t message_size);

#endif
