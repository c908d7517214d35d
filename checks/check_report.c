/* The diagnosis of a mismatch: see check_report.h. Off the hot path: only
 * a call whose ranks disagree comes here. */
#include "check_report.h"

#include "comm_identity.h"
#include "ranges.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SG_CHECK_OPS(X)                                                                            \
    X(MPI_MAX) X(MPI_MIN) X(MPI_SUM) X(MPI_PROD) X(MPI_LAND) X(MPI_BAND) X(MPI_LOR) X(MPI_BOR)   \
    X(MPI_LXOR) X(MPI_BXOR) X(MPI_MINLOC) X(MPI_MAXLOC) X(MPI_REPLACE) X(MPI_NO_OP)

int sg_check_op_index(MPI_Op op)
{
    int index = 1;
#define SG_OP_MATCH(O)                                                                             \
    if (op == O)                                                                                   \
        return index;                                                                              \
    index++;
    SG_CHECK_OPS(SG_OP_MATCH)
#undef SG_OP_MATCH
    return op == MPI_OP_NULL ? 0 : SG_CHECK_USER_OP;
}

static const char *op_name(int index)
{
    static const char *const names[] = {
#define SG_OP_NAME(O) #O,
        SG_CHECK_OPS(SG_OP_NAME)
#undef SG_OP_NAME
    };
    if (index >= 1 && index <= (int)(sizeof names / sizeof *names))
        return names[index - 1];
    return index == 0 ? "MPI_OP_NULL" : "a user-defined op";
}

/* ---- the message ------------------------------------------------------------- */

#define VALUE_LENGTH 600
#define BLOCKS_LENGTH (MPI_MAX_OBJECT_NAME + 100)
#define MESSAGE_LENGTH 4096
#define GROUPS_NAMED 8

static void append(char *out, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void append(char *out, const char *format, ...)
{
    size_t used = strlen(out);
    va_list args;
    va_start(args, format);
    vsnprintf(out + used, MESSAGE_LENGTH - used, format, args);
    va_end(args);
}

/* "ranks 0,2-3 A; rank 1 B": the ranks grouped by value, in the order of
 * each group's first rank; ranks whose value is "" left out. */
static void append_groups(char *out, char (*values)[VALUE_LENGTH], int procs)
{
    int groups = 0, *same = malloc((size_t)procs * sizeof *same);
    for (int r = 0; r < procs; r++) {
        int first = values[r][0] != '\0';
        for (int q = 0; q < r && first; q++)
            first = strcmp(values[q], values[r]) != 0;
        if (!first)
            continue;
        if (++groups > GROUPS_NAMED) {
            append(out, "; and more");
            break;
        }
        int members = 0;
        char ranks[256];
        for (int q = r; q < procs && same != NULL; q++)
            if (strcmp(values[q], values[r]) == 0)
                same[members++] = q;
        if (sg_ranges_format(same, members, ranks, sizeof ranks - 4) < members)
            strcat(ranks, ",...");
        append(out, "%srank%s %s %s", groups > 1 ? "; " : "", members > 1 ? "s" : "", ranks,
               values[r]);
    }
    free(same);
}

/* "2 x MPI_INT (2 basic elements)"; of a side with a datatype per block
 * (Alltoallw, `own_types`) the block's datatype is not named */
static void describe_blocks(char *out, size_t size, int64_t count, const char *type,
                            uint64_t elements, uint64_t hash, int predefined, int own_types)
{
    if (own_types)
        snprintf(out, size, "%" PRId64 " x its own datatype for the block (%" PRIu64
                 " basic element%s, signature %08" PRIx64 ")",
                 count, elements, elements == 1 ? "" : "s", hash >> 32);
    else if (predefined)
        snprintf(out, size, "%" PRId64 " x %s (%" PRIu64 " basic element%s)", count, type,
                 elements, elements == 1 ? "" : "s");
    else
        snprintf(out, size, "%" PRId64 " x a derived datatype (%" PRIu64
                 " basic element%s, signature %08" PRIx64 ")",
                 count, elements, elements == 1 ? "" : "s", hash >> 32);
}

static void describe_side(char *out, size_t size, const char *verb,
                          const struct sg_check_side *s)
{
    struct sg_signature sig = sg_signature_repeat(s->type_signature, (uint64_t)s->count);
    char blocks[BLOCKS_LENGTH];
    describe_blocks(blocks, sizeof blocks, s->count, s->type_name, sig.count, sig.hash,
                    s->predefined, s->own_types);
    snprintf(out, size, "%s %s", verb, blocks);
}

/* A rank's call as the diagnosis names it: its routine, or none. */
static const char *call_name(const struct sg_check_facts *f)
{
    switch (f->routine) {
    case SG_CHECK_NO_CALL: return "no call (it made fewer calls on it)";
    case SG_CHECK_NO_ANSWER: return "no answer (not judging this call yet: in another call?)";
    case SG_CHECK_FINALIZED: return "no call: in MPI_Finalize";
    case SG_CHECK_FREED: return "no call: in MPI_Comm_free of it";
    default: return sg_routines[f->routine].name;
    }
}

static int differs(const struct sg_check_facts *all, int procs, size_t offset, size_t size)
{
    const char *first = (const char *)&all[0] + offset;
    for (int r = 1; r < procs; r++)
        if (memcmp((const char *)&all[r] + offset, first, size) != 0)
            return 1;
    return 0;
}

/* Rank 0: what the ranks disagree on, the first difference in the order a
 * reader needs it (a different routine makes the rest moot). */
static void compose(char *out, const struct sg_check_facts *all, int procs,
                    const struct sg_check_block *blocks, uint64_t flags)
{
    char(*values)[VALUE_LENGTH] = calloc((size_t)procs, sizeof *values);
    if (values == NULL) {
        append(out, "the ranks disagree (no memory to say on what)");
        return;
    }
    const struct sg_routine_info *info = &sg_routines[all[0].routine < 0 ? 0 : all[0].routine];
#define DIFFERS(field) differs(all, procs, offsetof(struct sg_check_facts, field), \
                               sizeof all[0].field)
    if (DIFFERS(routine)) {
        for (int r = 0; r < procs; r++)
            snprintf(values[r], VALUE_LENGTH, "%s", call_name(&all[r]));
        append(out, "the ranks call different collectives: ");
    } else if (DIFFERS(root)) {
        for (int r = 0; r < procs; r++)
            snprintf(values[r], VALUE_LENGTH, "root %d", (int)all[r].root);
        append(out, "the ranks name different roots: ");
    } else if (DIFFERS(op)) {
        for (int r = 0; r < procs; r++)
            snprintf(values[r], VALUE_LENGTH, "%s", op_name(all[r].op));
        append(out, "the ranks pass different ops: ");
    } else if (flags & SG_CHECK_MISUSED) {
        for (int r = 0; r < procs; r++)
            if (all[r].misused)
                snprintf(values[r], VALUE_LENGTH, "%s",
                         info->in_place_side == SG_IN_PLACE_NONE
                             ? "passing MPI_IN_PLACE, which this routine never takes"
                         : info->rooted && r != all[r].root
                             ? "passing MPI_IN_PLACE off the root, where only the root may"
                             : "passing MPI_IN_PLACE for the buffer that never takes it");
        append(out, "MPI_IN_PLACE where the standard does not allow it: ");
    } else if (info->in_place_alike && DIFFERS(send_in_place)) {
        for (int r = 0; r < procs; r++)
            snprintf(values[r], VALUE_LENGTH, "%s",
                     all[r].send_in_place ? "passing MPI_IN_PLACE" : "not");
        append(out, "MPI_IN_PLACE on some ranks only (all or none): ");
    } else if (!all[0].pairs) {
        for (int r = 0; r < procs; r++) {
            char send[BLOCKS_LENGTH + 10] = "", recv[BLOCKS_LENGTH + 10] = "";
            if (all[r].send.present)
                describe_side(send, sizeof send, "sending", &all[r].send);
            if (all[r].recv.present) /* Bcast's one buffer is its receive side */
                describe_side(recv, sizeof recv,
                              info->send == SG_SIDE_NONE ? "with" : "receiving", &all[r].recv);
            snprintf(values[r], VALUE_LENGTH, "%s%s%s", send,
                     *send && *recv ? " and " : "", recv);
        }
        append(out, "the type signatures differ: ");
    } else {
        free(values);
        values = NULL;
        append(out, "the type signatures of a block and its receive differ: ");
        int found = 0;
        for (int i = 0; blocks != NULL && i < procs; i++)
            for (int j = 0; j < procs; j++) {
                const struct sg_check_block *sent = &blocks[(size_t)i * 2 * procs + j];
                const struct sg_check_block *got =
                    &blocks[(size_t)j * 2 * procs + (size_t)procs + i];
                if (!all[i].blocks_known || !all[j].blocks_known || sent->count < 0 ||
                    got->count < 0 ||
                    (sent->hash == got->hash && sent->elements == got->elements))
                    continue;
                if (found++ == 0) {
                    char a[BLOCKS_LENGTH], b[BLOCKS_LENGTH];
                    describe_blocks(a, sizeof a, sent->count, all[i].send.type_name,
                                    sent->elements, sent->hash, all[i].send.predefined,
                                    all[i].send.own_types);
                    describe_blocks(b, sizeof b, got->count, all[j].recv.type_name,
                                    got->elements, got->hash, all[j].recv.predefined,
                                    all[j].recv.own_types);
                    append(out, "rank %d sends %s to rank %d, which receives %s from it", i, a,
                           j, b);
                }
            }
        if (found > 1)
            append(out, " (and %d more pair%s)", found - 1, found > 2 ? "s" : "");
        if (found == 0)
            append(out, "which pair is not known (the counts of an I-form are not kept)");
    }
#undef DIFFERS
    if (values != NULL)
        append_groups(out, values, procs);
    free(values);
}

/* ---- the exchange and the action --------------------------------------------- */

static void name_type(struct sg_check_side *s)
{
    int length = 0;
    s->type_name[0] = '\0';
    if (s->present && s->predefined &&
        PMPI_Type_get_name(s->type, s->type_name, &length) != MPI_SUCCESS)
        s->type_name[0] = '\0';
}

static void tell(const char *message, enum sg_check_action action)
{
    fprintf(stderr, "scaleguard: %s; %s\n", message,
            action == SG_CHECK_ABORT
                ? "aborting the job (SCALEGUARD_CHECK_ACTION=warn only warns)"
                : "going on as SCALEGUARD_CHECK_ACTION=warn asks: what the call does now "
                  "is up to the MPI");
    fflush(stderr);
}

static void abort_job(void)
{
    /* the message through the launcher's forwarding of standard error
     * first, which an abort at once cuts short (seen with MPICH's hydra) */
    nanosleep(&(struct timespec){0, 500 * 1000 * 1000}, NULL);
    PMPI_Abort(MPI_COMM_WORLD, SG_CHECK_ABORT_CODE);
}

/* ": world ranks 1,3" for a communicator other than MPI_COMM_WORLD (the
 * ranks the message names are the communicator's). */
static void world_ranks(MPI_Comm comm, char *out, size_t size)
{
    const struct sg_comm_identity *identity =
        comm == MPI_COMM_WORLD ? NULL : sg_comm_identity(comm);
    *out = '\0';
    if (identity == NULL || size < 32)
        return;
    int n = snprintf(out, size, ": world rank%s ", identity->local_size > 1 ? "s" : "");
    if (sg_ranges_format(identity->local, identity->local_size, out + n, size - (size_t)n - 4) <
        identity->local_size)
        strcat(out, ",...");
}

/* The first mismatch this process tells. */
static atomic_flag told = ATOMIC_FLAG_INIT;

/* How long rank 0 waits for the other ranks' facts, and they for its
 * abort. A rank judges a call when it makes a later one on the
 * communicator (or frees it, or finalises), so one still in another call
 * does not answer: the message then says so. */
#define ANSWER_SECONDS 2.0
#define ABORT_SECONDS 5.0

/* What a rank sends rank 0: its facts, then its blocks where it knows them.
 * Kept until MPI_Finalize (the sends may outlive the call). */
struct answer {
    struct sg_check_facts facts;
    MPI_Request requests[2];
    struct answer *next;
    struct sg_check_block blocks[];
};
static struct answer *answers;
static pthread_mutex_t answers_lock = PTHREAD_MUTEX_INITIALIZER;

static int tag_of(uint64_t call) { return (int)(call % 16000) * 2 + 1; }

/* Rank 0: every rank's facts (and blocks, `every`: procs x 2 x procs), as
 * many as arrive within ANSWER_SECONDS; the others are marked. */
static void collect(MPI_Comm copy, int procs, const struct sg_check_facts *own,
                    const struct sg_check_block *own_blocks, struct sg_check_facts *all,
                    struct sg_check_block *every)
{
    int tag = tag_of(own->call);
    size_t row = 2 * (size_t)procs;
    MPI_Request *facts = malloc((size_t)procs * sizeof *facts);
    MPI_Request *blocks = malloc((size_t)procs * sizeof *blocks);
    all[0] = *own;
    if (every != NULL && own_blocks != NULL)
        memcpy(every, own_blocks, row * sizeof *every);
    for (int r = 0; r < procs; r++) {
        facts[r] = blocks[r] = MPI_REQUEST_NULL;
        if (r > 0) {
            all[r] = (struct sg_check_facts){.routine = SG_CHECK_NO_ANSWER, .call = own->call};
            PMPI_Irecv(&all[r], (int)sizeof *all, MPI_BYTE, r, tag, copy, &facts[r]);
        }
    }
    double until = PMPI_Wtime() + ANSWER_SECONDS;
    for (int waiting = procs - 1; waiting > 0 && PMPI_Wtime() < until;) {
        for (int r = 1; r < procs; r++) {
            int done = 0;
            if (facts[r] == MPI_REQUEST_NULL ||
                PMPI_Test(&facts[r], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || !done)
                continue;
            waiting--;
            if (all[r].blocks_known && every != NULL)
                PMPI_Irecv(every + (size_t)r * row, (int)(row * sizeof *every), MPI_BYTE, r,
                           tag + 1, copy, &blocks[r]);
            else
                all[r].blocks_known = 0;
        }
    }
    for (int r = 1; r < procs; r++) {
        if (facts[r] != MPI_REQUEST_NULL) { /* no answer: its receive withdrawn */
            PMPI_Cancel(&facts[r]);
            PMPI_Wait(&facts[r], MPI_STATUS_IGNORE);
            all[r] = (struct sg_check_facts){.routine = SG_CHECK_NO_ANSWER, .call = own->call};
        }
        if (blocks[r] != MPI_REQUEST_NULL) /* sent right after its facts */
            PMPI_Wait(&blocks[r], MPI_STATUS_IGNORE);
    }
    free(facts);
    free(blocks);
}

/* Another rank: its facts (and blocks) to rank 0, moved on for as long as
 * rank 0 waits for them (ANSWER_SECONDS), not waited for: between nodes an
 * MPI may send a message, or first connect to rank 0, only while the
 * sender is inside MPI, and a rank that aborts then sleeps outside it (Open
 * MPI over TCP: rank 0 heard nothing from a rank it had never talked to). */
static void answer(MPI_Comm copy, const struct sg_check_facts *facts,
                   const struct sg_check_block *blocks, int procs)
{
    size_t row = blocks ? 2 * (size_t)procs : 0;
    struct answer *a = malloc(sizeof *a + row * sizeof *a->blocks);
    if (a == NULL)
        return;
    a->facts = *facts;
    a->requests[0] = a->requests[1] = MPI_REQUEST_NULL;
    int tag = tag_of(facts->call);
    PMPI_Isend(&a->facts, (int)sizeof a->facts, MPI_BYTE, 0, tag, copy, &a->requests[0]);
    if (blocks != NULL) {
        memcpy(a->blocks, blocks, row * sizeof *blocks);
        PMPI_Isend(a->blocks, (int)(row * sizeof *blocks), MPI_BYTE, 0, tag + 1, copy,
                   &a->requests[1]);
    }
    double until = PMPI_Wtime() + ANSWER_SECONDS;
    int sent = 0;
    MPI_Status statuses[2]; /* (GCC reads MPICH's MPI_STATUSES_IGNORE as an empty array) */
    while (PMPI_Testall(2, a->requests, &sent, statuses) == MPI_SUCCESS && !sent &&
           PMPI_Wtime() < until)
        nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
    pthread_mutex_lock(&answers_lock);
    a->next = answers;
    answers = a;
    pthread_mutex_unlock(&answers_lock);
}

void sg_check_report(MPI_Comm copy, MPI_Comm comm, struct sg_check_facts *facts,
                     uint64_t flags, const struct sg_check_block *blocks, int block_procs,
                     enum sg_check_action action)
{
    int procs, rank;
    PMPI_Comm_size(copy, &procs);
    PMPI_Comm_rank(copy, &rank);
    name_type(&facts->send);
    name_type(&facts->recv);
    facts->blocks_known = blocks != NULL && block_procs == procs;
    if (rank != 0) {
        answer(copy, facts, facts->blocks_known ? blocks : NULL, procs);
        if (action == SG_CHECK_ABORT) { /* rank 0 tells and aborts, unless it cannot */
            double until = PMPI_Wtime() + ANSWER_SECONDS + ABORT_SECONDS;
            while (PMPI_Wtime() < until)
                nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
            char message[MESSAGE_LENGTH] = "";
            append(message, "collective check: %s, call %" PRIu64 " on a communicator of %d "
                            "ranks: its ranks disagree, and its rank 0 has not told on what "
                            "(this is its rank %d)",
                   call_name(facts), facts->call, procs, rank);
            tell(message, action);
            abort_job();
        }
        return;
    }
    struct sg_check_facts *all = malloc((size_t)procs * sizeof *all);
    int named = procs <= SG_CHECK_PAIRS_NAMED_MAX && facts->pairs;
    struct sg_check_block *every =
        named ? malloc(2 * (size_t)procs * (size_t)procs * sizeof *every) : NULL;
    if (all != NULL)
        collect(copy, procs, facts, facts->blocks_known ? blocks : NULL, all, every);
    if (!atomic_flag_test_and_set(&told)) {
        char *message = calloc(1, MESSAGE_LENGTH);
        char name[MPI_MAX_OBJECT_NAME] = "", members[160] = "";
        int length = 0, first = 0;
        PMPI_Comm_get_name(comm, name, &length);
        world_ranks(comm, members, sizeof members);
        while (all != NULL && first + 1 < procs && all[first].routine < 0)
            first++; /* the header names a rank's call */
        if (message != NULL && all != NULL) {
            append(message, "collective check: %s on %s%s (%d ranks%s), call %" PRIu64 " on it: ",
                   call_name(&all[first]), *name ? "" : "a communicator", name, procs, members,
                   facts->call);
            int with_blocks = every != NULL;
            for (int r = 0; r < procs; r++)
                with_blocks &= all[r].blocks_known;
            compose(message, all, procs, with_blocks ? every : NULL, flags);
        } else if (message != NULL) {
            append(message, "collective check: the ranks of a call on %s disagree (no memory "
                            "to say on what)", *name ? name : "a communicator");
        }
        tell(message ? message : "collective check: the ranks disagree", action);
        free(message);
    }
    free(every);
    free(all);
    if (action == SG_CHECK_ABORT)
        abort_job();
}

void sg_check_report_finish(void)
{
    pthread_mutex_lock(&answers_lock);
    for (struct answer *a = answers, *next; a != NULL; a = next) {
        next = a->next;
        for (int i = 0; i < 2; i++)
            if (a->requests[i] != MPI_REQUEST_NULL)
                PMPI_Request_free(&a->requests[i]);
        free(a);
    }
    answers = NULL;
    pthread_mutex_unlock(&answers_lock);
}
