/* The MPI tool interface module of the trace (trace/mpit.c) against the MPI
 * it is built with, on 2 ranks: what it finds and what it reports after real
 * traffic, per MPI, as found on this machine.
 *
 * Open MPI 4.1.4 (the ob1 PML): the variables include the ob1 queue lengths
 * of MPI_COMM_WORLD, summed over the peers. Rank 1 posts a receive
 * (pml_ob1_posted_recvq_length 1, then 0 once matched); rank 0 sends three
 * messages rank 1 has no receive for yet, of 8 B, 4 KiB and 1 MiB (eager and
 * rendezvous: one queued message each), and a barrier later they are all in
 * rank 1's pml_ob1_unexpected_msgq_length (3), which each receive takes one
 * off (2, 1, 0). After collectives and a last barrier, both queues are empty
 * on both ranks.
 * MPICH 4.0.2: it exports no performance variable; nothing is found nor
 * reported.
 * Both: no MPI_T event types; where mpi.h is MPI 4 (MPICH), the MPI itself
 * says 0; where it is older (Open MPI), the module does not ask (the
 * mpit_events_symbols test reads its object file). */
#include "mpit.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNEXPECTED "pml_ob1_unexpected_msgq_length"
#define POSTED "pml_ob1_posted_recvq_length"

static int rank, failures;

#define CHECK(condition, ...)                                                                  \
    do {                                                                                       \
        if (!(condition)) {                                                                    \
            fprintf(stderr, "mpit_probe: rank %d: line %d: ", rank, __LINE__);                 \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

/* The last value reported for each variable, and what the last read reported. */
struct reported {
    int count;
    char names[64][128];
    char values[64][32];
    int reports;                /* by the last read */
    char last_read_text[1024];  /* the last read's reports, for messages */
};

static void remember(const char *name, const char *value, void *arg)
{
    struct reported *r = arg;
    r->reports++;
    size_t used = strlen(r->last_read_text);
    snprintf(r->last_read_text + used, sizeof r->last_read_text - used, " %s=%s", name, value);
    CHECK(value[0] != '\0' && strpbrk(value, " \t\n") == NULL, "value \"%s\" of %s", value, name);
    int i = 0;
    while (i < r->count && strcmp(r->names[i], name) != 0)
        i++;
    if (i == r->count) {
        if (r->count == 64)
            return;
        snprintf(r->names[r->count++], sizeof r->names[0], "%s", name);
    }
    snprintf(r->values[i], sizeof r->values[0], "%s", value);
}

static void read_changed(struct reported *r)
{
    r->reports = 0;
    r->last_read_text[0] = '\0';
    sg_mpit_read_changed(remember, r);
}

/* The value last reported for `name`: "0" when never (the first read
 * reports every variable that is not zero). */
static const char *value_of(const struct reported *r, const char *name)
{
    for (int i = 0; i < r->count; i++)
        if (strcmp(r->names[i], name) == 0)
            return r->values[i];
    return "0";
}

static void expect_value(const struct reported *r, const char *name, const char *value,
                         const char *when)
{
    CHECK(strcmp(value_of(r, name), value) == 0, "%s: %s is %s, expected %s (last read:%s)",
          when, name, value_of(r, name), value, r->last_read_text);
}

static void count_event(const char *name, double time, void *arg)
{
    (void)name, (void)time;
    ++*(int *)arg;
}

/* Point-to-point and collective traffic, with a read after each step;
 * the ob1 queue lengths checked where this MPI has them. */
static void traffic(struct reported *r, int has_ob1_queues)
{
    static char sent[3][1 << 20], received[3][1 << 20], posted_into[100];
    const int sizes[3] = {8, 4096, 1 << 20};
    MPI_Request posted = MPI_REQUEST_NULL, sends[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                                                       MPI_REQUEST_NULL};
    if (rank == 1) {
        MPI_Irecv(posted_into, 100, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &posted);
        read_changed(r);
        if (has_ob1_queues)
            expect_value(r, POSTED, "1", "after MPI_Irecv");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Send(posted_into, 100, MPI_CHAR, 1, 100, MPI_COMM_WORLD);
        /* nonblocking: the larger ones wait for rank 1's receives */
        for (int tag = 0; tag < 3; tag++)
            MPI_Isend(sent[tag], sizes[tag], MPI_CHAR, 1, tag, MPI_COMM_WORLD, &sends[tag]);
    } else {
        MPI_Wait(&posted, MPI_STATUS_IGNORE);
        read_changed(r);
        if (has_ob1_queues)
            expect_value(r, POSTED, "0", "after MPI_Wait");
    }
    /* ob1 matches a peer's messages in order: the barrier's message from
     * rank 0 comes after the three sends, which are then all queued. */
    MPI_Barrier(MPI_COMM_WORLD);
    read_changed(r);
    if (rank == 1) {
        if (has_ob1_queues)
            expect_value(r, UNEXPECTED, "3", "after the barrier following 3 sends");
        const char *left[3] = {"2", "1", "0"};
        for (int tag = 0; tag < 3; tag++) {
            MPI_Status status;
            int bytes;
            MPI_Recv(received[tag], sizes[tag], MPI_CHAR, 0, tag, MPI_COMM_WORLD, &status);
            MPI_Get_count(&status, MPI_CHAR, &bytes);
            CHECK(bytes == sizes[tag], "received %d bytes with tag %d, sent %d", bytes, tag,
                  sizes[tag]);
            read_changed(r);
            if (has_ob1_queues) {
                CHECK(r->reports > 0, "no variable reported changed after receiving %d bytes",
                      sizes[tag]);
                expect_value(r, UNEXPECTED, left[tag], "after a receive");
            }
        }
    } else {
        MPI_Status statuses[3]; /* not MPI_STATUSES_IGNORE: gcc 12 misreads MPICH's annotation */
        MPI_Waitall(3, sends, statuses);
    }
    double local[1024], sums[1024];
    for (int i = 0; i < 1024; i++)
        local[i] = rank + i;
    MPI_Allreduce(local, sums, 1024, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sums[1023] == 2 * 1023 + 1, "MPI_Allreduce: %g", sums[1023]);
    read_changed(r);
    MPI_Bcast(sent[0], 65536, MPI_CHAR, 0, MPI_COMM_WORLD);
    read_changed(r);
    MPI_Barrier(MPI_COMM_WORLD);
    /* The ends read one rank at a time, the other blocked in a receive of
     * a token: a peer that went on would queue its next message here. */
    int token = 0;
    if (rank == 1)
        MPI_Recv(&token, 1, MPI_INT, 0, 900, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    read_changed(r);
    if (has_ob1_queues) {
        expect_value(r, UNEXPECTED, "0", "at the end");
        expect_value(r, POSTED, "0", "at the end");
    }
    if (rank == 0) {
        MPI_Send(&token, 1, MPI_INT, 1, 900, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 1, 901, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else
        MPI_Send(&token, 1, MPI_INT, 0, 901, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run on 2 ranks, not %d", size);

    /* What the MPI says itself, through a tool interface of the probe's own. */
    int provided, exported = -1;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
    MPI_T_pvar_get_num(&exported);

    int found = sg_mpit_start();
    CHECK(sg_mpit_pvars_exported() == exported, "sg_mpit_pvars_exported() %d, the MPI says %d",
          sg_mpit_pvars_exported(), exported);
    struct reported r = {.count = 0};
#if defined(OPEN_MPI)
    CHECK(found > 0, "Open MPI: sg_mpit_start() %d, expected some variables", found);
    read_changed(&r);
    traffic(&r, 1);
    CHECK(rank != 1 || r.count > 0, "rank 1 saw no variable change");
#elif defined(MPICH_VERSION)
    CHECK(exported == 0, "MPICH as built here exports no performance variable; this one %d",
          exported);
    CHECK(found == 0, "MPICH: sg_mpit_start() %d, expected 0", found);
    read_changed(&r);
    traffic(&r, 0);
    CHECK(r.count == 0, "MPICH: %d variables reported changed, expected none", r.count);
#else
#error "ScaleGuard is built for MPICH or Open MPI"
#endif

    int event_types = sg_mpit_events_start();
    CHECK(event_types == 0, "sg_mpit_events_start() %d, expected 0", event_types);
#if MPI_VERSION >= 4
    int mpi_event_types = -1;
    MPI_T_event_get_num(&mpi_event_types);
    CHECK(mpi_event_types == 0, "MPI_T_event_get_num says %d event types, expected 0",
          mpi_event_types);
    const char *events_path = "MPI_T_event_get_num";
#else
    const char *events_path = "mpi.h predates MPI 4, not asked";
#endif
    MPI_Barrier(MPI_COMM_WORLD);
    int drained = 0;
    sg_mpit_drain_events(count_event, &drained);
    CHECK(drained == 0, "%d events drained, expected none", drained);

    sg_mpit_stop();
    read_changed(&r);
    CHECK(r.reports == 0, "%d variables reported after sg_mpit_stop", r.reports);
    MPI_T_finalize();

    if (rank == 1) {
        printf("mpit_probe: MPI %d.%d, %d performance variables exported, %d read; changed on "
               "rank 1:", MPI_VERSION, MPI_SUBVERSION, exported, found);
        for (int i = 0; i < r.count; i++)
            printf(" %s", r.names[i]);
        printf("%s; event types: %d (%s)\n", r.count == 0 ? " none" : "", event_types,
               events_path);
    }
    int all_failures;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all_failures == 0 ? 0 : 1;
}
