/* synthetic-trace DIR RANKS ROUNDS: a trace directory of RANKS ranks in the
 * binary format the recorder writes (trace/FORMAT.md, trace/records.h), made
 * without MPI, so that scaleguard-trace and its page can be measured and
 * tested at more ranks than run here. Each rank, per round: MPI_Irecv from
 * both neighbours of a ring, MPI_Isend of 8 KiB to the next rank and of
 * 4 KiB to the previous one, MPI_Waitall completing the four (done records
 * with their receives' status), an MPI_Allreduce (did=plain); every tenth
 * round also an MPI_Bcast from rank 0 (did=plain) and an MPI_Gatherv to
 * rank 0 that W1-B ran in two sub-calls. Times are CLOCK_REALTIME
 * nanoseconds (`records ... ns`), a round 1 ms, each rank late by its own
 * few microseconds. The files are made new (an existing one is an error). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "records.h"

#define START_NS UINT64_C(1800000000000000000) /* 2027-01-15: a fixed epoch time */
#define ROUND_NS 1000000
#define COMM_ID UINT64_C(0x5eed000000000001)

enum name { ISEND = 1, IRECV, WAITALL, ALLREDUCE, BCAST, GATHERV, PLAIN, W1B, NAMES };
static const char *const names[NAMES] = {
    [ISEND] = "MPI_Isend", [IRECV] = "MPI_Irecv", [WAITALL] = "MPI_Waitall",
    [ALLREDUCE] = "MPI_Allreduce", [BCAST] = "MPI_Bcast", [GATHERV] = "MPI_Gatherv",
    [PLAIN] = "plain", [W1B] = "W1-B"};

/* The rank's records, built in memory and written at once. */
struct out {
    uint64_t *words;
    size_t used, capacity;
};

static void put(struct out *o, uint64_t word)
{
    if (o->used == o->capacity) {
        o->capacity = o->capacity ? 2 * o->capacity : 4096;
        o->words = realloc(o->words, o->capacity * sizeof *o->words);
        if (o->words == NULL) {
            fputs("synthetic-trace: out of memory\n", stderr);
            exit(1);
        }
    }
    o->words[o->used++] = word;
}

static void head(struct out *o, uint16_t type, size_t words, uint32_t bits)
{
    struct sg_record_head h = {type, (uint16_t)words, bits};
    uint64_t word;
    memcpy(&word, &h, sizeof word);
    put(o, word);
}

static void string_record(struct out *o, uint16_t type, uint32_t bits, const char *text)
{
    size_t length = strlen(text), words = length / 8 + 1;
    head(o, type, words, bits);
    uint64_t word[64] = {0};
    memcpy(word, text, length);
    for (size_t i = 0; i < words; i++)
        put(o, word[i]);
}

static void clock_record(struct out *o, uint64_t ns)
{
    head(o, SG_RECORD_CLOCK, 2, 0);
    put(o, ns);
    put(o, ns);
}

/* A call record: its fixed words, then the optional ones given as
 * (bit, value) pairs in the bits' order. */
static uint64_t calls;

static void call_record(struct out *o, uint64_t start, uint64_t duration, enum name routine,
                        enum name did, int optional, const uint64_t (*fields)[2])
{
    uint32_t bits = 0;
    for (int i = 0; i < optional; i++)
        bits |= 1u << fields[i][0];
    head(o, SG_RECORD_CALL, sizeof(struct sg_call_record) / 8 + (size_t)optional, bits);
    struct sg_call_record r = {.start = start, .duration = (uint32_t)duration, .comm = 1,
                               .routine = (uint16_t)routine, .did = (uint16_t)did};
    if (routine == WAITALL)
        r.comm = 0;
    uint64_t fixed[sizeof r / 8];
    memcpy(fixed, &r, sizeof r);
    for (size_t i = 0; i < sizeof r / 8; i++)
        put(o, fixed[i]);
    for (int i = 0; i < optional; i++)
        put(o, fields[i][1]);
    calls++;
}

#define B(NAME) SG_CALL_BIT_##NAME

static int write_rank(const char *dir, int rank, int procs, int rounds)
{
    struct out o = {0};
    calls = 0;
    uint64_t late = (uint64_t)(rank * 7919 % 97) * 1000; /* this rank's lateness, ns */
    int next = (rank + 1) % procs, previous = (rank + procs - 1) % procs;
    clock_record(&o, START_NS);
    for (int n = 1; n < NAMES; n++)
        string_record(&o, SG_RECORD_NAME, (uint32_t)n, names[n]);
    char text[128];
    snprintf(text, sizeof text, "comm %016llx size %d members 0-%d", (unsigned long long)COMM_ID,
             procs, procs - 1);
    string_record(&o, SG_RECORD_TEXT, 0, text);
    uint64_t request = 0;
    int64_t collectives = 0;
    for (int round = 0; round < rounds; round++) {
        uint64_t t = START_NS + 100000 + (uint64_t)round * ROUND_NS + late;
        uint64_t first_request = request + 1, posted_at = calls + 1;
        const struct {
            enum name routine;
            int peer;
            int64_t bytes;
        } posts[4] = {{IRECV, previous, 8192}, {IRECV, next, 4096},
                      {ISEND, next, 8192}, {ISEND, previous, 4096}};
        for (int k = 0; k < 4; k++, t += 3000) {
            const uint64_t f[5][2] = {{B(PEER), (uint64_t)posts[k].peer},
                                      {B(TAG), (uint64_t)round},
                                      {B(COUNT), (uint64_t)posts[k].bytes / 8},
                                      {B(BYTES), (uint64_t)posts[k].bytes},
                                      {B(REQUEST), ++request}};
            call_record(&o, t, 2000, posts[k].routine, 0, 5, f);
        }
        /* the Waitall: the four requests complete at its end, each a done
         * record (the receives' with their status) before its record */
        uint64_t wait = 100000 + (uint64_t)(96000 - late) / 2;
        for (int k = 0; k < 4; k++) {
            head(&o, SG_RECORD_DONE, 6, posts[k].routine == IRECV ? SG_DONE_STATUS : 0);
            put(&o, first_request + (uint64_t)k);
            put(&o, posted_at + (uint64_t)k);
            put(&o, t + wait);
            put(&o, posts[k].routine == IRECV ? (uint64_t)posts[k].peer : (uint64_t)-1);
            put(&o, posts[k].routine == IRECV ? (uint64_t)round : 0);
            put(&o, posts[k].routine == IRECV ? (uint64_t)posts[k].bytes : 0);
        }
        call_record(&o, t, wait, WAITALL, 0, 0, NULL);
        t += wait + 200000;
        /* every rank leaves an Allreduce together: the early ones wait */
        uint64_t leave = START_NS + 100000 + (uint64_t)round * ROUND_NS + 520000 + 97000;
        const uint64_t a[3][2] = {{B(NUMBER), (uint64_t)++collectives}, {B(SENT), 8},
                                  {B(RECEIVED), 8}};
        call_record(&o, t, leave - t, ALLREDUCE, PLAIN, 3, a);
        if (round % 10 == 9) {
            t = leave + 20000;
            const uint64_t b[4][2] = {{B(NUMBER), (uint64_t)++collectives}, {B(ROOT), 0},
                                      {B(SENT), rank == 0 ? 65536u : 0},
                                      {B(RECEIVED), rank == 0 ? 0 : 65536u}};
            call_record(&o, t, 40000, BCAST, PLAIN, 4, b);
            t += 60000;
            const uint64_t g[5][2] = {{B(NUMBER), (uint64_t)++collectives}, {B(ROOT), 0},
                                      {B(SENT), 4096},
                                      {B(RECEIVED), rank == 0 ? 4096u * (uint64_t)procs : 0},
                                      {B(SUBS), 2}};
            call_record(&o, t, 80000, GATHERV, W1B, 5, g);
            for (uint64_t j = 1; j <= 2; j++) {
                head(&o, SG_RECORD_SUB, 5, 0);
                put(&o, calls);
                put(&o, j);
                put(&o, GATHERV);
                put(&o, t + 1000 + (j - 1) * 39000);
                put(&o, t + 1000 + j * 39000);
            }
        }
    }
    uint64_t end = START_NS + 200000 + (uint64_t)rounds * ROUND_NS;
    snprintf(text, sizeof text, "end %llu %llu.%09llu", (unsigned long long)calls,
             (unsigned long long)(end / 1000000000u), (unsigned long long)(end % 1000000000u));
    string_record(&o, SG_RECORD_TEXT, 0, text);
    clock_record(&o, end);

    char path[4096], header[512];
    snprintf(path, sizeof path, "%s/rank-%d.sgtrace", dir, rank);
    const uint16_t order = 1;
    int length = snprintf(header, sizeof header,
                          "scaleguard-trace %d\njob synthetic-%d rank %d size %d host synthetic "
                          "pid %d\nmpi synthetic (tests/viewer/synthetic-trace.c)\n"
                          "start %llu.%09llu\nrecords %s ns\n",
                          SG_TRACE_VERSION, procs, rank, procs, 1000 + rank,
                          (unsigned long long)(START_NS / 1000000000u),
                          (unsigned long long)(START_NS % 1000000000u),
                          *(const char *)&order ? "little-endian" : "big-endian");
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    FILE *file = fd >= 0 ? fdopen(fd, "w") : NULL;
    int failed = file == NULL || fwrite(header, 1, (size_t)length, file) != (size_t)length ||
                 fwrite(o.words, sizeof *o.words, o.used, file) != o.used;
    if (file != NULL && fclose(file) != 0)
        failed = 1;
    if (failed)
        fprintf(stderr, "synthetic-trace: cannot write %s (%s)\n", path, strerror(errno));
    free(o.words);
    return failed ? -1 : 0;
}

int main(int argc, char **argv)
{
    char *end1 = NULL, *end2 = NULL;
    long procs = argc == 4 ? strtol(argv[2], &end1, 10) : 0;
    long rounds = argc == 4 ? strtol(argv[3], &end2, 10) : 0;
    if (argc != 4 || *end1 || *end2 || procs < 2 || procs > 1000000 || rounds < 1 ||
        rounds > 100000) {
        fputs("usage: synthetic-trace DIR RANKS ROUNDS (RANKS from 2, ROUNDS from 1)\n", stderr);
        return 2;
    }
    if (mkdir(argv[1], 0700) != 0 && errno != EEXIST) {
        fprintf(stderr, "synthetic-trace: cannot make %s (%s)\n", argv[1], strerror(errno));
        return 1;
    }
    for (int rank = 0; rank < procs; rank++)
        if (write_rank(argv[1], rank, (int)procs, (int)rounds) != 0)
            return 1;
    printf("synthetic-trace: %ld ranks, %ld rounds: %s\n", procs, rounds, argv[1]);
    return 0;
}
