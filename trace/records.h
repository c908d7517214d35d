/* The records of a trace file after its header (FORMAT.md): what the
 * recorder (recorder.c) appends, as it is in memory, and the decoder
 * (decode.c) turns into the text form. Each record is a head and `words`
 * 64-bit words in the writer's byte order (the header's `records` line
 * names it). */
#ifndef SCALEGUARD_TRACE_RECORDS_H
#define SCALEGUARD_TRACE_RECORDS_H

#include <stdint.h>

#define SG_TRACE_VERSION 2

enum sg_record_type {
    SG_RECORD_CLOCK = 1, /* ticks, CLOCK_REALTIME ns: the pair that dates ticks */
    SG_RECORD_NAME,      /* bits: an id; words: its name, NUL-padded */
    SG_RECORD_TEXT,      /* words: a line of the text form, NUL-padded */
    SG_RECORD_CALL,      /* bits: SG_CALL_HAS_*; words: below */
    SG_RECORD_SUB,       /* index, j, routine's name id, start ticks, end ticks */
    SG_RECORD_DONE,      /* bits: SG_DONE_*; request, index, ticks, source, tag, bytes */
};

struct sg_record_head {
    uint16_t type, words;
    uint32_t bits;
};

/* A call record: these words, then one word per bit set in its head's
 * bits, in the bits' order. Its index is the file's previous call record's
 * plus one (the first: 1), unless it has an INDEX word (after a Test that
 * completed nothing, which has no record, or calls from threads at once). */
struct sg_call_record {
    uint64_t start;    /* ticks */
    uint32_t duration; /* ticks; UINT32_MAX: as long or longer (its END word) */
    uint32_t comm;     /* its communicator's comm line: the first is 1, ...; 0: none */
    uint16_t routine, did, why, unused; /* name ids (0: none) */
};

/* The optional words: NAME, and the key of its text form's field (NULL:
 * none, the word serves the line's fixed fields). */
#define SG_CALL_OPTIONAL(X)       \
    X(INDEX, NULL)                \
    X(END, NULL)                  \
    X(NUMBER, " n=")              \
    X(ROOT, " root=")             \
    X(PEER, " peer=")             \
    X(TAG, " tag=")               \
    X(SOURCE, " source=")         \
    X(SOURCE_TAG, " source_tag=") \
    X(COUNT, " count=")           \
    X(BYTES, " bytes=")           \
    X(SENT, " sent=")             \
    X(RECEIVED, " received=")     \
    X(SIGNATURE, " sig=")         \
    X(SUBS, " subs=")             \
    X(REQUEST, " req=")

enum {
#define SG_CALL_BIT(NAME, key) SG_CALL_BIT_##NAME,
    SG_CALL_OPTIONAL(SG_CALL_BIT)
#undef SG_CALL_BIT
    SG_CALL_OPTIONAL_COUNT
};
#define SG_CALL_HAS(NAME) (1u << SG_CALL_BIT_##NAME)

#define SG_DONE_STATUS 1u    /* source, tag and bytes hold a receive's status */
#define SG_DONE_CANCELLED 2u

#endif
