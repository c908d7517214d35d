/* The watchdog's state files and diagnosis (watchdog/watch_state.c): ranges
 * of ranks, a file's round trip and its errors, and the cause named for
 * each kind of hang from made-up states of every rank. */
#include "check.h"
#include "ranges.h"
#include "watch_state.h"

#include <stdlib.h>

#define NOW 1000.0
#define WORLD 0xabcdu

/* Rank r in kind `kind` since 3 s before NOW, on MPI_COMM_WORLD of
 * `procs` ranks (collectives: call `call`). */
static struct sg_watch_view state(int r, int procs, enum sg_watch_kind kind, const char *routine,
                                  uint64_t call)
{
    struct sg_watch_view v = {.rank = r, .pid = 100 + r, .kind = kind, .comm = WORLD,
                              .comm_size = procs, .call = call, .root = SG_WATCH_NONE,
                              .dest = SG_WATCH_NONE, .source = SG_WATCH_NONE, .since = NOW - 3,
                              .serial = 7};
    snprintf(v.host, sizeof v.host, "node%d", r / 2);
    snprintf(v.routine, sizeof v.routine, "%s", routine);
    snprintf(v.members, sizeof v.members, "0-%d", procs - 1);
    return v;
}

static struct sg_watch_view sending(int r, int procs, const char *routine, int dest, int tag)
{
    struct sg_watch_view v = state(r, procs, SG_WATCH_SEND, routine, 0);
    v.dest = dest;
    v.dest_tag = tag;
    return v;
}

static struct sg_watch_view receiving(int r, int procs, int source, int tag)
{
    struct sg_watch_view v = state(r, procs, SG_WATCH_RECV, "MPI_Recv", 0);
    v.source = source;
    v.source_tag = tag;
    return v;
}

static char report[16384];

static const char *diagnose(const struct sg_watch_view *views, int procs, int reporter)
{
    int n = sg_watch_diagnose(views, procs, reporter, NOW, 2, report, sizeof report);
    CHECK(n > 0 && (size_t)n < sizeof report);
    return report;
}

#define CHECK_SAYS(text, part)                                                             \
    do {                                                                                   \
        if (strstr((text), (part)) == NULL) {                                              \
            check_failures++;                                                              \
            fprintf(stderr, "%s:%d: the report does not say \"%s\":\n%s", __FILE__, __LINE__, \
                    (part), (text));                                                       \
        }                                                                                  \
    } while (0)

static void ranges(void)
{
    char out[64];
    int ranks[] = {0, 1, 2, 3, 8, 10, 11};
    CHECK(sg_ranges_format(ranks, 7, out, sizeof out) == 7);
    CHECK_STR(out, "0-3,8,10-11");
    CHECK(sg_ranges_contain(out, 2) && sg_ranges_contain(out, 8) && sg_ranges_contain(out, 11));
    CHECK(!sg_ranges_contain(out, 4) && !sg_ranges_contain(out, 9) && !sg_ranges_contain(out, 12));
    CHECK(sg_ranges_format(ranks, 7, out, 8) == 5); /* the whole runs that fit */
    CHECK_STR(out, "0-3,8");
    CHECK(sg_ranges_format(ranks, 7, out, 3) == 0 && out[0] == '\0');
    int unordered[] = {5, 6, 2, 3}; /* a communicator's order: runs as they come */
    CHECK(sg_ranges_format(unordered, 4, out, sizeof out) == 4);
    CHECK_STR(out, "5-6,2-3");
    CHECK(!sg_ranges_contain("", 0) && !sg_ranges_contain("x", 0));
}

static void round_trip(void)
{
    struct sg_watch_view v = sending(3, 4, "MPI_Send", 1, 9), back;
    v.held = 1;
    v.last_comm = WORLD;
    v.last_call = 5;
    snprintf(v.last_routine, sizeof v.last_routine, "MPI_Bcast");
    snprintf(v.sub, sizeof v.sub, "W1-B, sub-call 2: MPI_Gatherv");
    char text[2048], error[128];
    int n = sg_watch_format(&v, text, sizeof text);
    CHECK(n > 0 && (size_t)n < sizeof text);
    CHECK(sg_watch_parse(text, &back, error, sizeof error) == 0);
    CHECK(back.rank == 3 && back.pid == 103 && back.kind == SG_WATCH_SEND && back.dest == 1 &&
          back.dest_tag == 9 && back.source == SG_WATCH_NONE && back.held == 1 &&
          back.comm == WORLD && back.comm_size == 4 && back.last_call == 5 &&
          back.since == v.since && back.serial == 7);
    CHECK_STR(back.host, "node1");
    CHECK_STR(back.members, "0-3");
    CHECK_STR(back.sub, "W1-B, sub-call 2: MPI_Gatherv");
    CHECK_STR(back.last_routine, "MPI_Bcast");

    /* errors name the line */
    CHECK(sg_watch_parse("rank 1\nkind sideways\n", &back, error, sizeof error) == -1);
    CHECK_STR(error, "line 2: bad value in 'kind sideways'");
    CHECK(sg_watch_parse("rank 1\ncolour blue\n", &back, error, sizeof error) == -1);
    CHECK_STR(error, "line 2: unknown key in 'colour blue'");
    CHECK(sg_watch_parse("rank 1\n", &back, error, sizeof error) == -1);
    CHECK_STR(error, "incomplete (ended before every key was given)");
    CHECK(sg_watch_parse("rank\n", &back, error, sizeof error) == -1);
    CHECK_STR(error, "line 1: no value");
}

static void cycles(void)
{
    /* Ssend around a ring of 3: an actual deadlock, named from rank 1 */
    struct sg_watch_view ring[3];
    for (int r = 0; r < 3; r++)
        ring[r] = sending(r, 3, "MPI_Ssend", (r + 1) % 3, 7);
    CHECK_SAYS(diagnose(ring, 3, 1), "cause: deadlock, a cycle of blocking calls: rank 1 "
                                     "(MPI_Ssend) waits for rank 2 (MPI_Ssend), which waits for "
                                     "rank 0 (MPI_Ssend), which waits for rank 1\n");
    CHECK_SAYS(report, "rank 1 has been in MPI_Ssend for 3.0 s (limit 2 s)");
    CHECK_SAYS(report, "  rank 2 (node1, pid 102) is in MPI_Ssend to rank 0 tag 7 on "
                       "communicator 000000000000abcd (3 ranks: 0-2), for 3.0 s\n");
    /* held standard sends: potential */
    for (int r = 0; r < 3; r++) {
        ring[r] = sending(r, 3, "MPI_Send", (r + 1) % 3, 7);
        ring[r].held = 1;
    }
    CHECK_SAYS(diagnose(ring, 3, 0), "cause: potential deadlock");
    CHECK_SAYS(report, "the watchdog lets the held sends go on as if buffered\n");
    /* unheld standard sends: actual, not buffered */
    for (int r = 0; r < 3; r++)
        ring[r].held = 0;
    CHECK_SAYS(diagnose(ring, 3, 0), "its standard sends were not buffered by the MPI\n");
    /* a matching receive breaks the cycle: rank 1 receives what rank 0
     * sends (any tag), rank 2 sends to rank 0, which does not receive */
    ring[1] = receiving(1, 3, 0, SG_WATCH_ANY);
    CHECK(strstr(diagnose(ring, 3, 2), "cycle") == NULL);
    /* receives from each other */
    struct sg_watch_view pair[2] = {receiving(0, 2, 1, 3), receiving(1, 2, 0, 3)};
    CHECK_SAYS(diagnose(pair, 2, 0), "rank 0 (MPI_Recv) waits for rank 1 (MPI_Recv), which waits "
                                     "for rank 0\n");
    /* a receive from any rank waits for no one known */
    pair[0] = receiving(0, 2, SG_WATCH_ANY, 3);
    pair[1] = state(1, 2, SG_WATCH_OUTSIDE, "", 0);
    CHECK_SAYS(diagnose(pair, 2, 0), "cause: not found in the states: no rank it waits for is "
                                     "known to be elsewhere\n");
}

static void collectives(void)
{
    struct sg_watch_view four[4];
    for (int r = 0; r < 4; r++)
        four[r] = state(r, 4, SG_WATCH_COLLECTIVE, r == 1 ? "MPI_Allreduce" : "MPI_Barrier", 2);
    CHECK_SAYS(diagnose(four, 4, 0), "cause: ranks in different collectives on communicator "
                                     "000000000000abcd: ranks 0,2-3 in MPI_Barrier (call 2); "
                                     "rank 1 in MPI_Allreduce (call 2)\n");
    CHECK(strstr(report, "cycle") == NULL); /* told once, as collectives */
    /* the same routine, one call further: different collectives too */
    four[1] = state(1, 4, SG_WATCH_COLLECTIVE, "MPI_Barrier", 3);
    CHECK_SAYS(diagnose(four, 4, 0), "ranks 0,2-3 in MPI_Barrier (call 2); rank 1 in "
                                     "MPI_Barrier (call 3)\n");
    /* ranks elsewhere: computing, finished, gone, in a receive */
    for (int r = 0; r < 4; r++)
        four[r] = state(r, 4, SG_WATCH_COLLECTIVE, "MPI_Allreduce", 2);
    four[1] = state(1, 4, SG_WATCH_OUTSIDE, "", 0);
    four[1].last_comm = WORLD;
    four[1].last_call = 1;
    snprintf(four[1].last_routine, sizeof four[1].last_routine, "MPI_Barrier");
    four[2] = state(2, 4, SG_WATCH_MISSING, "", 0);
    four[3] = receiving(3, 4, 0, 4);
    CHECK_SAYS(diagnose(four, 4, 0), "cause: ranks 1-3 of its communicator are not in "
                                     "MPI_Allreduce (call 2): rank 1 is not in MPI, for 3.0 s, "
                                     "after MPI_Barrier (call 1) on it; rank 2 is gone (no state "
                                     "file: its MPI_Finalize returned, or it ended); rank 3 is "
                                     "in MPI_Recv from rank 0 tag 4 on communicator");
    /* rank 3's receive from rank 0, in the collective, closes a cycle */
    CHECK_SAYS(report, "cause: deadlock, a cycle of blocking calls: rank 0 (MPI_Allreduce) "
                       "waits for rank 3 (MPI_Recv), which waits for rank 0\n");
    /* everyone in it: inside the MPI */
    for (int r = 0; r < 4; r++)
        four[r] = state(r, 4, SG_WATCH_COLLECTIVE, "MPI_Allreduce", 2);
    CHECK_SAYS(diagnose(four, 4, 3), "cause: not found in the states: every member is in this "
                                     "call or has left it, so it waits inside the MPI");
    /* ranks that left the root's Gatherv already (their blocks sent) are
     * not what it waits for: the one that never came is */
    for (int r = 0; r < 4; r++) {
        four[r] = state(r, 4, r == 0 ? SG_WATCH_COLLECTIVE : SG_WATCH_OUTSIDE,
                        r == 0 ? "MPI_Gatherv" : "", r == 0 ? 2 : 0);
        four[r].last_comm = WORLD;
        four[r].last_call = r == 3 ? 1 : 2;
        snprintf(four[r].last_routine, sizeof four[r].last_routine, "%s",
                 r == 3 ? "MPI_Barrier" : "MPI_Gatherv");
    }
    CHECK_SAYS(diagnose(four, 4, 0), "cause: rank 3 of its communicator is not in MPI_Gatherv "
                                     "(call 2): rank 3 is not in MPI, for 3.0 s, after "
                                     "MPI_Barrier (call 1) on it\n");
    CHECK_SAYS(report, "ranks 1-2 of its communicator have left MPI_Gatherv (call 2) already\n");
    /* one that left it and now receives from the root makes no cycle with it */
    struct sg_watch_view gone_on = receiving(1, 4, 0, 4);
    gone_on.last_comm = WORLD;
    gone_on.last_call = 2;
    snprintf(gone_on.last_routine, sizeof gone_on.last_routine, "MPI_Gatherv");
    four[1] = gone_on;
    diagnose(four, 4, 0);
    CHECK(strstr(report, "cycle") == NULL);
    four[1].last_call = 1; /* not yet in it: then it is one */
    CHECK_SAYS(diagnose(four, 4, 0), "cause: deadlock, a cycle of blocking calls: rank 0 "
                                     "(MPI_Gatherv) waits for rank 1 (MPI_Recv)");
    four[1] = gone_on;
    /* every other rank left it: inside the MPI */
    four[3].last_call = 2;
    snprintf(four[3].last_routine, sizeof four[3].last_routine, "MPI_Gatherv");
    CHECK_SAYS(diagnose(four, 4, 0), "ranks 1-3 of its communicator have left MPI_Gatherv (call "
                                     "2) already\n");
    CHECK_SAYS(report, "cause: not found in the states: every member is in this call or has "
                       "left it");
}

static void chains(void)
{
    /* 0 waits for 1, which waits for 2, which computes */
    struct sg_watch_view three[3] = {receiving(0, 3, 1, 1), sending(1, 3, "MPI_Ssend", 2, 1),
                                     state(2, 3, SG_WATCH_OUTSIDE, "", 0)};
    CHECK_SAYS(diagnose(three, 3, 0), "cause: rank 0 waits for rank 1, which waits for rank 2, "
                                      "which is not in MPI, for 3.0 s\n");
}

int main(void)
{
    ranges();
    round_trip();
    cycles();
    collectives();
    chains();
    return check_exit();
}
