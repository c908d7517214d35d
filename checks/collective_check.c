/* The collective checks: see collective_check.h.
 *
 * Each rank reduces what it passed to six 64-bit words, and an Iallreduce
 * of a chunk of calls' words (an op of its own: MAX on four words, OR on
 * one, SUM on one) tells every rank whether all agree on each call:
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
 *     block sent meets a receive of its signature (up to 2^-64); of
 *     Alltoallw each block's signature in its own datatype.
 * On a mismatch every rank sends its facts to rank 0, which names the
 * ranks and what they disagree on (check_report.c). */
#include "collective_check.h"

#include "check_report.h"
#include "observe.h"
#include "private_comm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

enum { SLOT_CALL, SLOT_CALL_NOT, SLOT_BLOCK, SLOT_BLOCK_NOT, SLOT_FLAGS, SLOT_PAIRS, SLOTS };

/* One call's check: its facts for a diagnosis, and its words, which are
 * its row of the chunk's exchange. */
struct record {
    struct sg_check_facts facts;
    uint64_t *mine;
};

/* The records of `batch` consecutive calls on a communicator (the k-th
 * chunk holds calls k * batch + 1 ...), exchanged in one Iallreduce once
 * the last of them is made: every rank cuts its calls alike, whatever they
 * are (a blocking call on one rank against an I-form on another included),
 * so the exchanges meet in order. */
struct chunk {
    uint64_t first_call;
    int filled;
    MPI_Request request; /* MPI_REQUEST_NULL until started */
    int started;
    uint64_t *mine, *all;   /* batch x SLOTS words each */
    struct chunk *next;
    struct record records[]; /* batch of them */
};

/* What the checks keep on a communicator: their private copy of it (made
 * by MPI_Comm_idup on its first call, waited for where a call may wait),
 * the number of collective calls made on it, the chunk being filled and
 * the chunks made, started or not, not yet judged. */
struct comm_checks {
    MPI_Comm comm, copy;
    MPI_Request copying;
    uint64_t calls;
    struct chunk *filling, *made, *made_last;
    struct comm_checks *prev_live, *next_live; /* every comm_checks, for MPI_Finalize */
};

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct comm_checks *live;
static struct sg_check_options options = {SG_CHECK_ABORT, 1};

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
    uint64_t v = sg_signature_mix(sig.hash ^ sg_signature_mix(sig.count));
    if (v > mine[SLOT_BLOCK])
        mine[SLOT_BLOCK] = v;
    if (~v > mine[SLOT_BLOCK_NOT])
        mine[SLOT_BLOCK_NOT] = ~v;
}

static uint64_t pair_hash(int sender, int receiver, struct sg_signature sig)
{
    uint64_t from = sg_signature_mix(sig.hash + (uint64_t)sender * UINT64_C(0x9e3779b97f4a7c15));
    return sg_signature_mix(from ^ (sig.count + ((uint64_t)receiver << 32)));
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

/* The same for block j of a side: of a W side (Alltoallw) in the block's
 * own datatype. */
static int peer_block_signature(const struct sg_call_side *s, const struct sg_check_side *side,
                                int j, int64_t count, struct sg_signature *sig)
{
    if (s->layout != SG_SIDE_W || count <= 0)
        return block_signature(side, count, sig);
    struct sg_signature element;
    if (sg_type_signature(s->types[j], &element) != MPI_SUCCESS)
        return -1;
    *sig = sg_signature_repeat(element, (uint64_t)count);
    return 0;
}

/* The side's count towards (or from) peer j. */
static int64_t count_for(const struct sg_call_side *s, int j, int rank)
{
    switch (s->layout) {
    case SG_SIDE_SINGLE: return sg_single_count(s, rank);
    case SG_SIDE_V:
    case SG_SIDE_W:
    case SG_SIDE_PACKED: return sg_counts_given(s->counts) ? sg_count_at(s->counts, j) : s->count;
    default: return s->count;
    }
}

static void describe_side(const struct sg_call_side *s, struct sg_check_side *out, int rank)
{
    out->present = s->layout != SG_SIDE_NONE;
    if (!out->present)
        return;
    out->type = s->type;
    out->own_types = s->layout == SG_SIDE_W;
    out->per_peer = s->layout == SG_SIDE_V || s->layout == SG_SIDE_W ||
                    (s->layout == SG_SIDE_PACKED && sg_counts_given(s->counts));
    out->count = out->per_peer ? -1 : count_for(s, rank, rank);
}

/* c's sides on this rank as the checks read them, and its facts but the
 * signatures. */
static void sides_of(const struct sg_call *c, uint64_t call_number, int procs, int rank,
                     struct sg_call_side *send, struct sg_call_side *recv,
                     struct sg_check_facts *facts)
{
    const struct sg_routine_info *info = &sg_routines[c->routine];
    int is_root = !info->rooted || c->root == rank;
    sg_call_sides(c, is_root, procs, send, recv);
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
            send->count = count_for(recv, rank, rank);
            send->counts = (struct sg_counts){0};
        }
    }
    describe_side(send, &facts->send, rank);
    describe_side(recv, &facts->recv, rank);
    /* counts per rank somewhere in the call, if not on this rank's sides */
    facts->pairs = info->irregular || /* V or W sides */
                   (info->send == SG_SIDE_PACKED && sg_counts_given(c->recvcounts));
}

/* The rank at the other end of block j of a side: j, or a neighbourhood
 * collective's neighbour (neighbours.h; MPI_PROC_NULL: a block nothing
 * moves). */
static int peer_of(const struct sg_call *c, int d, int j)
{
    if (!sg_routines[c->routine].neighbours)
        return j;
    const struct sg_neighbours *n = sg_comm_neighbours(c->comm);
    return n == NULL ? MPI_PROC_NULL : d == 0 ? n->destinations[j] : n->sources[j];
}

/* The sum over this rank's blocks of a routine with counts per rank (or
 * per neighbour): each sent block's hash less each received one's; each
 * block also into to[peer] / from[peer] where those are not NULL. -1: a
 * negative count. */
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
        int end = !all ? c->root + 1 : info->neighbours ? sides[d]->blocks : procs;
        for (int j = all ? 0 : c->root; j < end; j++) {
            struct sg_signature sig;
            int peer = peer_of(c, d, j);
            if ((skip_self && j == rank) || peer == MPI_PROC_NULL)
                continue;
            int64_t count = count_for(sides[d], j, rank);
            if (peer_block_signature(sides[d], described[d], j, count, &sig) != 0)
                return -1;
            uint64_t h = d == 0 ? pair_hash(rank, peer, sig) : pair_hash(peer, rank, sig);
            *sum += d == 0 ? h : -h;
            if (blocks[d] != NULL)
                blocks[d][peer] = (struct sg_check_block){count, sig.hash, sig.count};
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
    sides_of(c, call_number, procs, rank, &send, &recv, facts);
    /* MPI_IN_PLACE on every rank or on none (routines.h: in_place_alike). */
    int every_rank_alike = info->in_place_alike;
    uint64_t how = (uint64_t)(uint32_t)facts->root << 8 | (uint64_t)facts->op;
    mine[SLOT_CALL] = sg_signature_mix(sg_signature_mix((uint64_t)c->routine + 1) ^ how) ^
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
        /* a W side has a datatype per block, measured in pair_sum */
        if (sides[d]->present && sides[d]->type != MPI_DATATYPE_NULL &&
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

/* The record of no call (number `call`), `why` (SG_CHECK_NO_CALL where a
 * chunk is cut short, or SG_CHECK_FINALIZED / SG_CHECK_FREED where the rank
 * makes no more calls on the communicator): no call's record matches it. */
static void no_call(struct record *r, uint64_t call, int why)
{
    r->facts = (struct sg_check_facts){.routine = why, .call = call};
    r->mine[SLOT_CALL] = sg_signature_mix(UINT64_MAX - (uint64_t)-why);
    r->mine[SLOT_CALL_NOT] = ~r->mine[SLOT_CALL];
    r->mine[SLOT_BLOCK] = r->mine[SLOT_BLOCK_NOT] = r->mine[SLOT_PAIRS] = 0;
    r->mine[SLOT_FLAGS] = why == SG_CHECK_NO_CALL ? 0 : SG_CHECK_LAST;
}

static void free_chunk(struct chunk *k)
{
    free(k->mine);
    free(k);
}

/* Start the exchanges of the chunks made, in order, where the copy is
 * there (`wait`: waiting for it). */
static void start_made(struct comm_checks *cc, int wait)
{
    for (struct chunk *k = cc->made; k != NULL; k = k->next) {
        if (k->started)
            continue;
        if (!copy_ready(cc, wait))
            return;
        k->started = 1;
        if (PMPI_Iallreduce(k->mine, k->all, k->filled, record_type, combine_op, cc->copy,
                            &k->request) != MPI_SUCCESS)
            k->filled = 0; /* MPI's own failure, which it reports: nothing to judge */
    }
}

/* The chunk being filled, complete (filled up with records of no call
 * where it is cut short, at MPI_Comm_free or MPI_Finalize): made, and its
 * exchange started where the copy is there (`wait`: waiting for it). */
static void make(struct comm_checks *cc, int wait)
{
    struct chunk *k = cc->filling;
    cc->filling = NULL;
    for (; k->filled < (int)options.batch; k->filled++)
        no_call(&k->records[k->filled], k->first_call + (uint64_t)k->filled, SG_CHECK_NO_CALL);
    if (cc->made_last)
        cc->made_last->next = k;
    else
        cc->made = k;
    cc->made_last = k;
    start_made(cc, wait);
}

/* The record of the next call (number cc->calls + 1, which the caller
 * counts) in the chunk being filled; NULL: no memory (the checks of this
 * rank then stop matching its ranks', as any collective call out of
 * memory). */
static struct record *next_record(struct comm_checks *cc)
{
    if (cc->filling == NULL) {
        size_t batch = options.batch;
        struct chunk *k = malloc(sizeof *k + batch * sizeof *k->records);
        uint64_t *words = malloc(2 * batch * SLOTS * sizeof *words);
        if (k == NULL || words == NULL) {
            free(k);
            free(words);
            return NULL;
        }
        *k = (struct chunk){cc->calls + 1, 0, MPI_REQUEST_NULL, 0, words,
                            words + batch * SLOTS, NULL};
        for (size_t i = 0; i < batch; i++)
            k->records[i].mine = words + i * SLOTS;
        cc->filling = k;
    }
    return &cc->filling->records[cc->filling->filled++];
}

/* Judge the oldest chunk made once its exchange is done (`wait`: waiting
 * for it). Every rank learns the same; each record on which the ranks
 * disagree is diagnosed (check_report.c). `last` is the blocking call
 * number `last_call` (or NULL), whose counts are still there, for naming
 * the pair of blocks that differ. Returns 0 where it judged none, 2 where
 * the chunk holds some rank's last records on the communicator (no
 * exchange of that rank follows), else 1. */
static int judge_oldest(struct comm_checks *cc, const struct sg_call *last, uint64_t last_call,
                        int wait)
{
    struct chunk *k = cc->made;
    int done = 1;
    if (k == NULL || !k->started ||
        (k->request != MPI_REQUEST_NULL &&
         (wait ? PMPI_Wait(&k->request, MPI_STATUS_IGNORE)
               : PMPI_Test(&k->request, &done, MPI_STATUS_IGNORE)) != MPI_SUCCESS) ||
        !done)
        return 0;
    cc->made = k->next;
    if (cc->made == NULL)
        cc->made_last = NULL;
    int last_ones = 0;
    for (int i = 0; i < k->filled; i++)
        last_ones |= (k->all[(size_t)i * SLOTS + SLOT_FLAGS] & SG_CHECK_LAST) != 0;
    for (int i = 0; i < k->filled; i++) {
        const uint64_t *all = k->all + (size_t)i * SLOTS;
        if (agreed(all))
            continue;
        struct record *r = &k->records[i];
        const struct sg_call *c = r->facts.call == last_call && r->facts.pairs ? last : NULL;
        int procs, rank;
        struct sg_check_block *blocks = NULL;
        if (c != NULL && sg_comm_size_rank(c->comm, &procs, &rank) == MPI_SUCCESS &&
            procs <= SG_CHECK_PAIRS_NAMED_MAX &&
            (blocks = malloc(2 * (size_t)procs * sizeof *blocks)) != NULL) {
            struct sg_call_side send, recv;
            struct sg_check_facts again;
            uint64_t sum;
            for (int j = 0; j < 2 * procs; j++)
                blocks[j].count = -1;
            sides_of(c, r->facts.call, procs, rank, &send, &recv, &again);
            again.send.type_signature = r->facts.send.type_signature;
            again.recv.type_signature = r->facts.recv.type_signature;
            pair_sum(c, &send, &recv, &again, rank, procs, &sum, blocks, blocks + procs);
        }
        sg_check_report(cc->copy, cc->comm, &r->facts, all[SLOT_FLAGS], blocks,
                        blocks ? procs : 0, options.action);
        free(blocks);
    }
    free_chunk(k);
    return last_ones ? 2 : 1;
}

/* At MPI_Comm_free and MPI_Finalize (`why`): the chunk being filled cut
 * short, then one of records that say the rank makes no more calls on the
 * communicator (make_last_chunk); then every chunk judged, in order, up to
 * the first that holds some rank's last records (judge_to_the_end). Where
 * all made the same calls that is this last one, on every rank; a rank
 * that made fewer calls has its last chunk meet another's calls (which
 * their blocking call is waiting for), one with more meets the others'
 * last ones. */
static void make_last_chunk(struct comm_checks *cc, int why)
{
    if (cc->filling != NULL)
        make(cc, 1);
    for (unsigned i = 0; i < options.batch; i++) {
        struct record *r = next_record(cc);
        if (r != NULL)
            no_call(r, ++cc->calls, why);
    }
    if (cc->filling != NULL)
        make(cc, 1);
}

static void judge_to_the_end(struct comm_checks *cc)
{
    while (judge_oldest(cc, NULL, 0, 1) == 1)
        ;
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

/* The communicator is freed: its MPI_Comm_free judged everything where it
 * went through the layer (sg_check_comm_free); else (Open MPI's Fortran
 * MPI_COMM_FREE calls PMPI_Comm_free) what was exchanged is judged here.
 * At MPI_Finalize (Open MPI deletes MPI_COMM_WORLD's attributes then) MPI
 * reclaims the copy. */
static int delete_checks(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)key, (void)extra;
    struct comm_checks *cc = value;
    int finalized = 0;
    PMPI_Finalized(&finalized);
    if (!finalized) {
        while (judge_oldest(cc, NULL, 0, 1))
            ;
        for (struct chunk *k = cc->made, *next; k != NULL; k = next) {
            next = k->next;
            free_chunk(k);
        }
        if (cc->filling != NULL)
            free_chunk(cc->filling);
        if (copy_ready(cc, 1))
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

/* ---- the calls ------------------------------------------------------------------ */

int sg_check_prepare_world(const struct sg_check_options *o)
{
    struct comm_checks *cc;
    options = *o;
    if (options.batch < 1)
        options.batch = 1;
    pthread_once(&combine_once, create_combine);
    int err = comm_checks_of(MPI_COMM_WORLD, &cc);
    if (err == MPI_SUCCESS && !copy_ready(cc, 1))
        err = MPI_ERR_INTERN;
    return err;
}

int sg_check_collective(const struct sg_call *c)
{
    int inter = 0, procs, rank, err;
    if ((err = sg_comm_test_inter(c->comm, &inter)) != MPI_SUCCESS || inter)
        return err; /* intercommunicators are not checked */
    struct comm_checks *cc;
    if (combine_op == MPI_OP_NULL ||
        (err = sg_comm_size_rank(c->comm, &procs, &rank)) != MPI_SUCCESS ||
        (err = comm_checks_of(c->comm, &cc)) != MPI_SUCCESS)
        return err;
    struct record *r = next_record(cc);
    if (r == NULL)
        return MPI_ERR_NO_MEM;
    if ((err = measure(c, ++cc->calls, procs, rank, r->mine, &r->facts)) != MPI_SUCCESS)
        no_call(r, cc->calls, SG_CHECK_NO_CALL); /* MPI reports it; its record keeps the line */
    else if (r->facts.send.present || r->facts.recv.present) /* for the trace */
        sg_observe_signature(
            (r->facts.send.present ? &r->facts.send : &r->facts.recv)->type_signature.hash);
    int blocking = c->request == NULL;
    if (cc->filling->filled == (int)options.batch)
        make(cc, blocking);
    else if (!blocking)
        start_made(cc, 0); /* those whose copy was not there yet */
    /* A blocking call waits for what was exchanged before it reaches MPI;
     * an I-form judges only what is done. */
    while (judge_oldest(cc, blocking ? c : NULL, cc->calls, blocking))
        ;
    return err;
}

void sg_check_comm_free(MPI_Comm comm)
{
    int k = atomic_load(&keyval), found = 0;
    struct comm_checks *cc;
    if (k != MPI_KEYVAL_INVALID && comm != MPI_COMM_NULL &&
        PMPI_Comm_get_attr(comm, k, &cc, &found) == MPI_SUCCESS && found) {
        make_last_chunk(cc, SG_CHECK_FREED);
        judge_to_the_end(cc);
    }
}

void sg_check_finish_all(void)
{
    /* Every communicator's last chunk started before any is waited for:
     * the ranks may know their communicators in other orders. */
    pthread_mutex_lock(&live_lock);
    struct comm_checks *all = live;
    pthread_mutex_unlock(&live_lock);
    for (struct comm_checks *cc = all; cc != NULL; cc = cc->next_live)
        make_last_chunk(cc, SG_CHECK_FINALIZED);
    for (struct comm_checks *cc = all; cc != NULL; cc = cc->next_live)
        judge_to_the_end(cc);
    sg_check_report_finish();
    /* the exchange's own handles: MPICH counts a datatype left at
     * MPI_Finalize as leaked, on every rank */
    if (combine_op != MPI_OP_NULL)
        PMPI_Op_free(&combine_op);
    if (record_type != MPI_DATATYPE_NULL)
        PMPI_Type_free(&record_type);
}
