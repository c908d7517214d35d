/* A trace file (FORMAT.md) to its text form: the header's lines, then a
 * line per record, numbered from 1. No MPI: scaleguard-trace links it. */
#ifndef SCALEGUARD_TRACE_DECODE_H
#define SCALEGUARD_TRACE_DECODE_H

#include <stddef.h>

enum sg_decoded {
    SG_DECODED_ERROR = -1, /* `why` says what, at `line` (0: the file as a whole) */
    SG_DECODED_ALL = 0,    /* every record, to the file's end */
    SG_DECODED_CUT = 1,    /* the file ends inside a record (its job was killed as it wrote) */
};

struct sg_decode_problem {
    long line;
    char why[200];
};

/* Calls line(arg, number, text, length) for each line of the file's text
 * form (text NUL-terminated, without '\n'; the callee may change it); a
 * non-NULL return is what is wrong with that line, and ends the decoding
 * with SG_DECODED_ERROR. */
enum sg_decoded sg_trace_decode(const char *path,
                                const char *(*line)(void *arg, long number, char *text,
                                                    size_t length),
                                void *arg, struct sg_decode_problem *problem);

#endif
