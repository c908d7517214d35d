/* The collective checks: see collective_check.h.
 *
 * Each rank reduces what it passed to six 64-bit words, and one Allreduce
 * (an op of its own: MAX on four words, OR on one, SUM on one) tells every
 * rank whether all agree:
 *   - the call: a hash of the routine, root, op and (where the standard
 *     wants it on every rank or none) the use of MPI_IN_PLACE; as x and ~x,
 *     so MAX of both gives max and ~min, equal when every rank has the
 *     same. (The exchanges on a communicator meet in the order of its
 *     calls, so the k-th call of every rank is judged together: its number
 *     is the same on all, and only told.)
 *   - of a routine whose blocks are all alike (no counts per rank), the
 *     type signature of every block this rank sends or receives, the same
 *     way: every block of every rank must have one signature;
 *   - flags: MPI_IN_PLACE where the standard does not allow it; an
 *     argument that MPI itself reports (a negative count), which leaves
 *     the call to MPI;
 *   - of a routine with counts per rank (the v-routines, Reduce_scatter),
 *     the sum of a hash of each block this rank sends, (sender, receiver,
 *     signature), less the same of each block it receives: 0 when every
 *     block sent meets a receive of its signature (up to 2^-64).
 * On a mismatch every rank gathers its facts to rank 0, which names the
 * ranks and what they disagree on (check_report.c). */
#include "collective_check.h"

#include "check_report.h"
#include "private_comm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { SLOT_CALL, SLOT_CALL_NOT, SLOT_BLOCK, SLOT_BLOCK_NOT, SLOT_FLAGS, SLOT_PAIRS, SLOTS };

/* One call's check: its words, and its facts for a diagnosis. */
struct record {
    struct sg_check_facts facts;
    uint64_t mine[SLOTS];
    struct record *next;
};

/* Records exchanged together, in the order of their calls. */
struct batch {
    struct record *first;
    int count;
    uint64_t *mine, *all; /* count x SLOTS words each */
    MPI_Request request;  /* of a batch still in flight */
    struct batch *next;
};

/* What the checks keep on a communicator: their private copy of it (made
 * by MPI_Comm_idup on its first call, which nothing waits for before a
 * blocking call), the number of collective calls made on it, the I-forms'
 * records not yet exchanged, and the batches in flight. */
struct comm_checks {
    MPI_Comm comm, copy;
    MPI_Request copying;
    uint64_t calls;
    struct record *queued, *queued_last;
    int queued_count;
    struct batch *flying, *flying_last;
    struct comm_checks *prev_live, *next_live; /* every comm_checks, for MPI_Finalize */
};

/* I-form records past this many on a communicator go out in one
 * non-blocking exchange (where the copy is ready), judged at the next
 * blocking call: an I-form never waits for the other ranks. */
#define QUEUED_MAX 64

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct comm_checks *live;

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* ---- the exchange ---------------------------------------------------------- */

/* Over records of SLOTS words: their datatype, record_type, keeps an
 * MPI that cuts a long reduction into pieces from cutting a record. */
static void combine(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (int k = 0; k < *len * SLOTS; k += SLOTS) {
        for (int i = SLOT_CALL; i <= SLOT_BLOCK_NOT; i++)
            b[k + i] = a[k + i] > b[k + i] ? a[k + i] : b[k + i];
        b[k + SLOT_FLAGS] |= a[k + SLOT_FLAGS];
        b[k + SLOT_PAIRS] += a[k + SLOT_PAIRS];
    }
}

static MPI_Op combine_op = MPI_OP_NULL;
static MPI_Datatype record_type = MPI_DATATYPE_NULL;
static pthread_once_t combine_once = PTHREAD_ONCE_INIT;

static void create_combine(void)
{
    if (PMPI_Type_contiguous(SLOTS, MPI_UINT64_T, &record_type) != MPI_SUCCESS ||
        PMPI_Type_commit(&record_type) != MPI_SUCCESS ||
        PMPI_Op_create(combine, 1, &combine_op) != MPI_SUCCESS)
        combine_op = MPI_OP_NULL;
}

/* ---- what this rank passed ------------------------------------------------- */

static void add_block(uint64_t *mine, struct sg_signature sig)
{
    uint64_t v = mix(sig.hash ^ mix(sig.count));
    if (v > mine[SLOT_BLOCK])
        mine[SLOT_BLOCK] = v;
    if (~v > mine[SLOT_BLOCK_NOT])
        mine[SLOT_BLOCK_NOT] = ~v;
}

static uint64_t pair_hash(int sender, int receiver, struct sg_signature sig)
{
    return mix(mix(sig.hash + (uint64_t)sender * UINT64_C(0x9e3779b97f4a7c15)) ^
               (sig.count + ((uint64_t)receiver << 32)));
}

/* `count` x the side's datatype, or the flag that MPI reports the call. */
static int block_signature(const struct sg_check_side *side, int64_t count,
                           struct sg_signature *sig)
{
    if (count < 0)
        return -1;
    *sig = sg_signature_repeat(side->type_signature, (uint64_t)count);
    return 0;
}

/* The side's count towards (or from) peer j. */
static int64_t count_for(const struct sg_call_side *s, int j, int rank)
{
    switch (s->layout) {
    case SG_SIDE_SINGLE: return sg_single_count(s, rank);
    case SG_SIDE_V:
    case SG_SIDE_PACKED: return s->counts ? s->counts[j] : s->count;
    default: return s->count;
    }
}

static void describe_side(const struct sg_call_side *s, struct sg_check_side *out, int rank)
{
    out->present = s->layout != SG_SIDE_NONE;
    if (!out->present)
        return;
    out->type = s->type;
    out->per_peer = s->layout == SG_SIDE_V || (s->layout == SG_SIDE_PACKED && s->counts);
    out->count = out->per_peer ? -1 : count_for(s, rank, rank);
}

/* c's sides on this rank as the checks read them, and its facts but the
 * signatures. */
static void sides_of(const struct sg_call *c, uint64_t call_number, int rank,
                     struct sg_call_side *send, struct sg_call_side *recv,
                     struct sg_check_facts *facts)
{
    const struct sg_routine_info *info = &sg_routines[c->routine];
    int is_root = !info->rooted || c->root == rank;
    sg_call_sides(c, is_root, send, recv);
    *facts = (struct sg_check_facts){.routine = (int32_t)c->routine,
                                     .root = info->rooted ? c->root : -1,
                                     .op = info->reduction ? sg_check_op_index(c->op) : 0,
                                     .call = call_number,
                                     .send_in_place = c->sendbuf == MPI_IN_PLACE,
                                     .recv_in_place = c->recvbuf == MPI_IN_PLACE};
    /* MPI_IN_PLACE where the standard allows none (Bcast), on the side that
     * never takes it, or off the root of a rooted routine; not where the
     * buffer is not significant (a receive buffer off the root) */
    int may_send = info->in_place_side == SG_IN_PLACE_SEND && is_root;
    int may_recv = info->in_place_side == SG_IN_PLACE_RECV && is_root;
    int significant_send = info->send != SG_SIDE_NONE &&
                           (!info->rooted || is_root || info->send == SG_SIDE_SINGLE);
    int significant_recv = !info->rooted || is_root || info->recv == SG_SIDE_SINGLE;
    facts->misused = (facts->send_in_place && significant_send && !may_send) ||
                     (facts->recv_in_place && significant_recv && !may_recv);
    /* In place without a root, the send side is the receive side's data as
     * the send layout reads it (Allgatherv: recvcounts[rank] to every
     * rank; Alltoallv: recvcounts[j] to rank j). */
    if (!info->rooted && facts->send_in_place && !info->reduction && !facts->misused) {
        *send = *recv;
        send->layout = info->send;
        if (send->layout == SG_SIDE_SINGLE) {
            send->count = (int)count_for(recv, rank, rank);
            send->counts = NULL;
        }
    }
    describe_side(send, &facts->send, rank);
    describe_side(recv, &facts->recv, rank);
    /* counts per rank somewhere in the call, if not on this rank's sides */
    facts->pairs = info->send == SG_SIDE_V || info->recv == SG_SIDE_V ||
                   (info->send == SG_SIDE_PACKED && c->recvcounts != NULL);
}

/* The sum over this rank's blocks of a routine with counts per rank: each
 * sent block's hash less each received one's; each block also into
 * to[j] / from[j] where those are not NULL. -1: a negative count. */
static int pair_sum(const struct sg_call *c, const struct sg_call_side *send,
                    const struct sg_call_side *recv, const struct sg_check_facts *facts,
                    int rank, int procs, uint64_t *sum, struct sg_check_block *to,
                    struct sg_check_block *from)
{
    const struct sg_routine_info *info = &sg_routines[c->routine];
    /* The root in place: its own block neither leaves nor arrives. */
    int skip_self = info->rooted && (facts->send_in_place || facts->recv_in_place);
    const struct sg_call_side *sides[2] = {send, recv};
    const struct sg_check_side *described[2] = {&facts->send, &facts->recv};
    struct sg_check_block *blocks[2] = {to, from};
    *sum = 0;
    for (int d = 0; d < 2; d++) {
        if (!described[d]->present)
            continue;
        /* a rooted routine's SINGLE side meets the root's alone */
        int all = !info->rooted || sides[d]->layout != SG_SIDE_SINGLE;
        for (int j = all ? 0 : c->root; j < (all ? procs : c->root + 1); j++) {
            struct sg_signature sig;
            if (skip_self && j == rank)
                continue;
            int64_t count = count_for(sides[d], j, rank);
            if (block_signature(described[d], count, &sig) != 0)
                return -1;
            uint64_t h = d == 0 ? pair_hash(rank, j, sig) : pair_hash(j, rank, sig);
            *sum += d == 0 ? h : -h;
            if (blocks[d] != NULL)
                blocks[d][j] = (struct sg_check_block){count, sig.hash, sig.count};
        }
    }
    return 0;
}

/* The words of c on this rank, and its facts for a diagnosis. */
static int measure(const struct sg_call *c, uint64_t call_number, int procs, int rank,
                   uint64_t *mine, struct sg_check_facts *facts)
{
    const struct sg_routine_info *info = &sg_routines[c->routine];
    struct sg_call_side send, recv;
    sides_of(c, call_number, rank, &send, &recv, facts);
    /* Of a routine without a root, MPI_IN_PLACE on every rank or on none. */
    int every_rank_alike = info->in_place && !info->rooted;
    mine[SLOT_CALL] = mix(mix((uint64_t)c->routine + 1) ^
                          ((uint64_t)(uint32_t)facts->root << 8 | (uint64_t)facts->op)) ^
                      (uint64_t)(every_rank_alike && facts->send_in_place);
    mine[SLOT_CALL_NOT] = ~mine[SLOT_CALL];
    mine[SLOT_BLOCK] = mine[SLOT_BLOCK_NOT] = mine[SLOT_FLAGS] = mine[SLOT_PAIRS] = 0;
    if (facts->misused) {
        mine[SLOT_FLAGS] |= SG_CHECK_MISUSED;
        return MPI_SUCCESS;
    }
    struct sg_check_side *sides[2] = {&facts->send, &facts->recv};
    for (int d = 0; d < 2; d++) {
        int err;
        if (sides[d]->present &&
            (err = sg_type_signature(sides[d]->type, &sides[d]->type_signature)) != MPI_SUCCESS)
            return err;
        /* just measured: a predefined type is in this thread's table now */
        sides[d]->predefined = sides[d]->present && sg_type_met_predefined(sides[d]->type);
    }
    if (facts->pairs) {
        if (pair_sum(c, &send, &recv, facts, rank, procs, &mine[SLOT_PAIRS], NULL, NULL) != 0)
            mine[SLOT_FLAGS] |= SG_CHECK_MPI_REPORTS;
        return MPI_SUCCESS;
    }
    for (int d = 0; d < 2; d++) {
        struct sg_signature sig;
        if (!sides[d]->present)
            continue;
        if (block_signature(sides[d], sides[d]->count, &sig) == 0)
            add_block(mine, sig);
        else
            mine[SLOT_FLAGS] |= SG_CHECK_MPI_REPORTS;
    }
    return MPI_SUCCESS;
}

static int agreed(const uint64_t *all)
{
    if (all[SLOT_FLAGS] & SG_CHECK_MISUSED)
        return 0;
    if (all[SLOT_FLAGS] & SG_CHECK_MPI_REPORTS)
        return 1; /* the call goes to MPI as it is, which reports it */
    /* no rank with a block of its own: both words 0 (a block's are never) */
    int no_blocks = all[SLOT_BLOCK] == 0 && all[SLOT_BLOCK_NOT] == 0;
    return all[SLOT_CALL] == ~all[SLOT_CALL_NOT] &&
           (no_blocks || all[SLOT_BLOCK] == ~all[SLOT_BLOCK_NOT]) && all[SLOT_PAIRS] == 0;
}

/* ---- the communicator's state ---------------------------------------------- */

static enum sg_check_action action_in_force = SG_CHECK_ABORT;

/* Whether the copy is there (waiting for it where `wait`). */
static int copy_ready(struct comm_checks *cc, int wait)
{
    int done = 1;
    if (cc->copying != MPI_REQUEST_NULL &&
        (wait ? PMPI_Wait(&cc->copying, MPI_STATUS_IGNORE)
              : PMPI_Test(&cc->copying, &done, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
        return 0;
    return done && cc->copy != MPI_COMM_NULL;
}

static void free_records(struct record *r)
{
    for (struct record *next; r != NULL; r = next) {
        next = r->next;
        free(r);
    }
}

static void free_batch(struct batch *b)
{
    free_records(b->first);
    free(b->mine);
    free(b);
}

/* The queued records as one batch, their exchange started (`nonblocking`)
 * or done. NULL: nothing queued, or no memory (the records are dropped, and
 * this rank's exchange is missing, as any collective call out of memory). */
static struct batch *exchange(struct comm_checks *cc, int nonblocking)
{
    struct record *first = cc->queued;
    int count = cc->queued_count;
    if (count == 0)
        return NULL;
    cc->queued = cc->queued_last = NULL;
    cc->queued_count = 0;
    struct batch *b = malloc(sizeof *b);
    uint64_t *words = malloc(2 * (size_t)count * SLOTS * sizeof *words);
    if (b != NULL)
        *b = (struct batch){first, count, words, words + (size_t)count * SLOTS,
                            MPI_REQUEST_NULL, NULL};
    if (b == NULL || words == NULL) {
        if (b != NULL)
            free_batch(b);
        else
            free_records(first);
        free(words);
        return NULL;
    }
    int i = 0;
    for (struct record *r = first; r != NULL; r = r->next, i++)
        memcpy(b->mine + (size_t)i * SLOTS, r->mine, sizeof r->mine);
    int err = nonblocking ? PMPI_Iallreduce(b->mine, b->all, count, record_type, combine_op,
                                            cc->copy, &b->request)
                          : PMPI_Allreduce(b->mine, b->all, count, record_type, combine_op,
                                           cc->copy);
    if (err != MPI_SUCCESS)
        b->count = 0; /* MPI's own failure, which it reports: nothing to judge */
    return b;
}

/* Judge a batch once exchanged: every rank learns the same, and on a
 * mismatch all join its diagnosis (`diagnose`), or rank 0 says only which
 * call (at MPI_Finalize, where the communicators' order may differ per
 * rank). `last` is the call of the batch's last record where it is a
 * blocking one whose counts are still there, for naming the pair of blocks
 * that differ; else NULL. */
static void judge(struct comm_checks *cc, struct batch *b, const struct sg_call *last,
                  int diagnose, enum sg_check_action action)
{
    if (b->request != MPI_REQUEST_NULL &&
        PMPI_Wait(&b->request, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        b->count = 0;
    int i = 0;
    for (struct record *r = b->first; i < b->count; r = r->next, i++) {
        const uint64_t *all = b->all + (size_t)i * SLOTS;
        if (agreed(all))
            continue;
        if (!diagnose) {
            sg_check_tell_unexamined(cc->copy, cc->comm, &r->facts, action);
            continue;
        }
        const struct sg_call *c = r->next == NULL ? last : NULL;
        int procs, rank;
        struct sg_check_block *blocks = NULL;
        if (c != NULL && r->facts.pairs &&
            sg_comm_size_rank(c->comm, &procs, &rank) == MPI_SUCCESS &&
            procs <= SG_CHECK_PAIRS_NAMED_MAX &&
            (blocks = malloc(2 * (size_t)procs * sizeof *blocks)) != NULL) {
            struct sg_call_side send, recv;
            struct sg_check_facts again;
            uint64_t sum;
            for (int j = 0; j < 2 * procs; j++)
                blocks[j].count = -1;
            sides_of(c, r->facts.call, rank, &send, &recv, &again);
            again.send.type_signature = r->facts.send.type_signature;
            again.recv.type_signature = r->facts.recv.type_signature;
            pair_sum(c, &send, &recv, &again, rank, procs, &sum, blocks, blocks + procs);
        }
        sg_check_report(cc->copy, cc->comm, &r->facts, all[SLOT_FLAGS], blocks, action);
        free(blocks);
    }
    free_batch(b);
}

static void queue(struct comm_checks *cc, struct record *r)
{
    if (cc->queued_last)
        cc->queued_last->next = r;
    else
        cc->queued = r;
    cc->queued_last = r;
    cc->queued_count++;
}

/* The queued records out in one non-blocking exchange. */
static void fly(struct comm_checks *cc)
{
    struct batch *b = exchange(cc, 1);
    if (b == NULL)
        return;
    if (cc->flying_last)
        cc->flying_last->next = b;
    else
        cc->flying = b;
    cc->flying_last = b;
}

static void judge_flying(struct comm_checks *cc, int diagnose, enum sg_check_action action)
{
    while (cc->flying != NULL) {
        struct batch *b = cc->flying;
        cc->flying = b->next;
        judge(cc, b, NULL, diagnose, action);
    }
    cc->flying_last = NULL;
}

/* Judge everything of cc at a point every rank reaches in the same order
 * of calls on it (a blocking call, its MPI_Comm_free, MPI_Finalize for
 * MPI_COMM_WORLD): the batches in flight, then the queued records with
 * `record` (this call's, NULL for none) in one blocking exchange. */
static void judge_all(struct comm_checks *cc, struct record *record, const struct sg_call *c,
                      enum sg_check_action action)
{
    if (!copy_ready(cc, 1)) {
        free(record);
        return;
    }
    judge_flying(cc, 1, action);
    if (record != NULL)
        queue(cc, record);
    struct batch *b = exchange(cc, 0);
    if (b != NULL)
        judge(cc, b, c, 1, action);
}

static void forget(struct comm_checks *cc)
{
    pthread_mutex_lock(&live_lock);
    if (cc->prev_live)
        cc->prev_live->next_live = cc->next_live;
    else
        live = cc->next_live;
    if (cc->next_live)
        cc->next_live->prev_live = cc->prev_live;
    pthread_mutex_unlock(&live_lock);
}

static atomic_int keyval = MPI_KEYVAL_INVALID;
static struct comm_checks *_Atomic world_checks;

/* The communicator is freed: what is still open is judged (its
 * MPI_Comm_free judged it already where it went through the layer, which
 * matters for MPICH: it deletes the attributes of a communicator with an
 * operation pending, the copy's MPI_Comm_idup, when that completes, inside
 * whatever MPI call completes it). At MPI_Finalize (Open MPI deletes
 * MPI_COMM_WORLD's attributes then) MPI reclaims the copy. */
static int delete_checks(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)key, (void)extra;
    struct comm_checks *cc = value;
    int finalized = 0;
    PMPI_Finalized(&finalized);
    if (!finalized) {
        judge_all(cc, NULL, NULL, action_in_force);
        if (cc->copy != MPI_COMM_NULL)
            PMPI_Comm_free(&cc->copy);
    }
    if (comm == MPI_COMM_WORLD)
        atomic_store(&world_checks, NULL);
    forget(cc);
    free(cc);
    return MPI_SUCCESS;
}

/* The checks' state on comm, made on the communicator's first checked call:
 * its copy's MPI_Comm_idup starts there. */
static int comm_checks_of(MPI_Comm comm, struct comm_checks **out)
{
    if (comm == MPI_COMM_WORLD && (*out = atomic_load(&world_checks)) != NULL)
        return MPI_SUCCESS;
    int k, found = 0, err = sg_cache_keyval(&keyval, delete_checks, &k);
    if (err == MPI_SUCCESS)
        err = PMPI_Comm_get_attr(comm, k, out, &found);
    if (err != MPI_SUCCESS || found)
        return err;
    struct comm_checks *cc = calloc(1, sizeof *cc);
    if (cc == NULL)
        return MPI_ERR_NO_MEM;
    cc->comm = comm;
    cc->copy = MPI_COMM_NULL;
    if ((err = PMPI_Comm_idup(comm, &cc->copy, &cc->copying)) == MPI_SUCCESS &&
        (err = PMPI_Comm_set_attr(comm, k, cc)) != MPI_SUCCESS) {
        PMPI_Wait(&cc->copying, MPI_STATUS_IGNORE);
        PMPI_Comm_free(&cc->copy);
    }
    if (err != MPI_SUCCESS) {
        free(cc);
        return err;
    }
    pthread_mutex_lock(&live_lock);
    cc->next_live = live;
    if (live)
        live->prev_live = cc;
    live = cc;
    pthread_mutex_unlock(&live_lock);
    if (comm == MPI_COMM_WORLD)
        atomic_store(&world_checks, cc);
    *out = cc;
    return MPI_SUCCESS;
}

/* ---- the call ------------------------------------------------------------------ */

int sg_check_prepare_world(void)
{
    struct comm_checks *cc;
    pthread_once(&combine_once, create_combine);
    int err = comm_checks_of(MPI_COMM_WORLD, &cc);
    if (err == MPI_SUCCESS && !copy_ready(cc, 1))
        err = MPI_ERR_INTERN;
    return err;
}

int sg_check_collective(const struct sg_call *c, enum sg_check_action action)
{
    action_in_force = action;
    int inter = 0, procs, rank, err;
    if ((err = sg_comm_test_inter(c->comm, &inter)) != MPI_SUCCESS || inter)
        return err; /* intercommunicators are not checked */
    pthread_once(&combine_once, create_combine);
    struct comm_checks *cc;
    if (combine_op == MPI_OP_NULL ||
        (err = sg_comm_size_rank(c->comm, &procs, &rank)) != MPI_SUCCESS ||
        (err = comm_checks_of(c->comm, &cc)) != MPI_SUCCESS)
        return err;
    struct record *r = malloc(sizeof *r);
    if (r == NULL)
        return MPI_ERR_NO_MEM;
    r->next = NULL;
    if ((err = measure(c, ++cc->calls, procs, rank, r->mine, &r->facts)) != MPI_SUCCESS) {
        free(r);
        return err;
    }
    if (c->request == NULL) {
        judge_all(cc, r, c, action);
        return MPI_SUCCESS;
    }
    queue(cc, r);
    if (cc->queued_count >= QUEUED_MAX && copy_ready(cc, 0))
        fly(cc);
    return MPI_SUCCESS;
}

void sg_check_comm_free(MPI_Comm comm)
{
    int k = atomic_load(&keyval), found = 0;
    struct comm_checks *cc;
    if (k != MPI_KEYVAL_INVALID && comm != MPI_COMM_NULL &&
        PMPI_Comm_get_attr(comm, k, &cc, &found) == MPI_SUCCESS && found)
        judge_all(cc, NULL, NULL, action_in_force);
}

void sg_check_finish_all(enum sg_check_action action)
{
    /* MPI_COMM_WORLD's in full: every rank comes here first. The others'
     * exchanges, started together, in whatever order this rank knows them,
     * since that may differ per rank; a mismatch there is only told. */
    struct comm_checks *world = atomic_load(&world_checks);
    if (world != NULL)
        judge_all(world, NULL, NULL, action);
    pthread_mutex_lock(&live_lock);
    struct comm_checks *all = live;
    pthread_mutex_unlock(&live_lock);
    for (struct comm_checks *cc = all; cc != NULL; cc = cc->next_live)
        if (cc != world && copy_ready(cc, 1))
            fly(cc);
    for (struct comm_checks *cc = all; cc != NULL; cc = cc->next_live)
        if (cc != world)
            judge_flying(cc, 0, action);
}
