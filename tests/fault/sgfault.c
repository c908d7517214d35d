/* libsgfault.so: a test preload that makes chosen MPI collectives fail the
 * way a real scaling bug does once a trigger is exceeded (README.md here).
 *
 * It defines both MPI_* and PMPI_* for the 32 collectives, so the sub-calls a
 * PMPI layer above it (libscaleguard.so) issues are checked as well, and
 * forwards to the next definition in lookup order (the MPI library). */
#include "collective.h"
#include "detectors.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum fault_kind {
    FAULT_CRASH,
    FAULT_HANG,
    FAULT_MPI_ERROR,
    FAULT_WRONG_DATA,
    FAULT_OOM,
    FAULT_SLOW,
    FAULT_BUSY,
    FAULT_LONE_MPI_ERROR
};
static const char *const kind_names[] = {"crash", "hang", "mpi-error", "wrong-data",
                                         "oom",   "slow", "busy",      "lone-mpi-error"};

/* What a performance cliff costs per call past the trigger. */
static const struct timespec slow_pause = {.tv_sec = 0, .tv_nsec = 200000000};

/* Busy this thread until it has had `cpu` of CPU time: a cliff that needs
 * the CPU, which other work on the machine stretches. */
static void spin_for_cpu(const struct timespec *cpu)
{
    struct timespec start, now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
    double wanted = (double)cpu->tv_sec + (double)cpu->tv_nsec * 1e-9;
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    while ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) * 1e-9 <
           wanted);
}

/* What decides at an (s, P) that SCALEGUARD_FAULT_X does not list. */
enum fault_fallback { FALLBACK_NONE, FALLBACK_G, FALLBACK_DISPLS };

enum fault_verdict { VERDICT_SKIP, VERDICT_PASS, VERDICT_FAULT };

#define FAULT_MAX_X_POINTS 64

struct fault_x_point {
    uint64_t s, procs, n;
};

struct fault_config {
    struct sg_entry_points next; /* the real collectives */
    unsigned char faulty[SG_ROUTINE_COUNT];
    enum fault_fallback fallback;
    enum sg_trigger trigger;
    uint64_t bound;
    struct fault_x_point x[FAULT_MAX_X_POINTS];
    size_t x_count;
    enum fault_kind kind;
    int log;
    int across; /* SCALEGUARD_FAULT_ACROSS: only calls spanning hosts fault */
    /* SCALEGUARD_FAULT_UNLESS=NAME=VALUE: a call made while the MPI's
     * control variable NAME holds VALUE does not fail (one algorithm of
     * the MPI's is free of the bug: what W4 takes) */
    char unless_name[96];
    int unless_value;
    MPI_T_cvar_handle unless_handle;
    atomic_uint_least64_t calls, checked, faults;
};

static struct fault_config config;
static pthread_once_t config_once = PTHREAD_ONCE_INIT, unless_once = PTHREAD_ONCE_INIT;

/* ---- Configuration ------------------------------------------------------ */

static _Noreturn void bad_config(const char *variable, const char *value, const char *problem)
{
    fprintf(stderr, "sgfault: bad %s=\"%s\": %s\n", variable, value, problem);
    exit(2);
}

/* An unsigned decimal of `length` characters, no sign, no blanks. */
static int parse_u64(const char *text, size_t length, uint64_t *out)
{
    uint64_t value = 0;
    if (length == 0)
        return -1;
    for (size_t i = 0; i < length; i++) {
        if (text[i] < '0' || text[i] > '9' || value > (UINT64_MAX - 9) / 10)
            return -1;
        value = value * 10 + (uint64_t)(text[i] - '0');
    }
    *out = value;
    return 0;
}

static void parse_routines(const char *text)
{
    const char *variable = "SCALEGUARD_FAULT_ROUTINES";
    for (const char *token = text;; token++) {
        size_t length = strcspn(token, ",");
        int routine = sg_routine_by_name_length(token, length);
        if (routine < 0)
            bad_config(variable, text,
                       "expected a comma list of collectives such as MPI_Scatter,MPI_Iscatter");
        config.faulty[routine] = 1;
        token += length;
        if (*token == '\0')
            break;
    }
}

static void parse_x_points(const char *text)
{
    const char *variable = "SCALEGUARD_FAULT_X";
    const char *expected = "expected a comma list of s:P:n points (unsigned decimals, s and P > 0)";
    for (const char *token = text;; token++) {
        size_t length = strcspn(token, ",");
        uint64_t field[3];
        const char *start = token;
        for (int i = 0; i < 3; i++) {
            size_t part = strcspn(start, i < 2 ? ":," : ",");
            if (start + part > token + length || parse_u64(start, part, &field[i]) != 0 ||
                (i < 2 && start[part] != ':'))
                bad_config(variable, text, expected);
            start += part + 1;
        }
        if (field[0] == 0 || field[1] == 0)
            bad_config(variable, text, expected);
        if (config.x_count == FAULT_MAX_X_POINTS)
            bad_config(variable, text, "more than 64 points");
        config.x[config.x_count++] = (struct fault_x_point){field[0], field[1], field[2]};
        token += length;
        if (*token == '\0')
            break;
    }
}

static void print_summary(void)
{
    fprintf(stderr, "sgfault: %" PRIuLEAST64 " calls, %" PRIuLEAST64 " checked, %" PRIuLEAST64
                    " faults\n",
            atomic_load(&config.calls), atomic_load(&config.checked),
            atomic_load(&config.faults));
}

static void config_load(void)
{
    const char *missing = NULL;
    if (sg_entry_points_next(&config.next, &missing) != 0) {
        fprintf(stderr, "sgfault: %s is not defined after libsgfault.so (is MPI linked?)\n",
                missing);
        exit(2);
    }

    const char *log = getenv("SCALEGUARD_FAULT_LOG");
    if (log != NULL && strcmp(log, "") != 0 && strcmp(log, "0") != 0) {
        if (strcmp(log, "1") != 0)
            bad_config("SCALEGUARD_FAULT_LOG", log, "expected 1 or 0");
        config.log = 1;
        atexit(print_summary);
    }

    const char *routines = getenv("SCALEGUARD_FAULT_ROUTINES");
    if (routines == NULL || routines[0] == '\0')
        return; /* pure pass-through */
    /* A bug of one node only (its network path): elsewhere pure pass-through. */
    const char *host = getenv("SCALEGUARD_FAULT_HOST");
    char here[256] = "";
    if (host != NULL && host[0] != '\0' &&
        (gethostname(here, sizeof here - 1) != 0 || strcmp(here, host) != 0))
        return;
    parse_routines(routines);

    const char *across = getenv("SCALEGUARD_FAULT_ACROSS");
    if (across != NULL && strcmp(across, "") != 0 && strcmp(across, "0") != 0) {
        if (strcmp(across, "1") != 0)
            bad_config("SCALEGUARD_FAULT_ACROSS", across, "expected 1 or 0");
        config.across = 1;
    }

    const char *kind = getenv("SCALEGUARD_FAULT_KIND");
    config.kind = FAULT_CRASH;
    if (kind != NULL) {
        size_t k = 0;
        while (k < sizeof kind_names / sizeof *kind_names && strcmp(kind, kind_names[k]) != 0)
            k++;
        if (k == sizeof kind_names / sizeof *kind_names)
            bad_config("SCALEGUARD_FAULT_KIND", kind,
                       "expected crash, hang, mpi-error, wrong-data, oom, slow, busy or "
                       "lone-mpi-error");
        config.kind = (enum fault_kind)k;
    }

    const char *unless = getenv("SCALEGUARD_FAULT_UNLESS");
    if (unless != NULL && unless[0] != '\0') {
        const char *equals = strchr(unless, '=');
        char *end = NULL;
        if (equals == NULL || equals == unless ||
            (size_t)(equals - unless) >= sizeof config.unless_name)
            bad_config("SCALEGUARD_FAULT_UNLESS", unless, "expected NAME=VALUE (an integer)");
        long value = strtol(equals + 1, &end, 10);
        if (end == equals + 1 || *end != '\0' || value != (int)value)
            bad_config("SCALEGUARD_FAULT_UNLESS", unless, "expected NAME=VALUE (an integer)");
        memcpy(config.unless_name, unless, (size_t)(equals - unless));
        config.unless_value = (int)value;
    }

    const char *x = getenv("SCALEGUARD_FAULT_X");
    if (x != NULL)
        parse_x_points(x);

    const char *trigger = getenv("SCALEGUARD_FAULT_TRIGGER");
    if (trigger == NULL) {
        if (config.x_count == 0)
            bad_config("SCALEGUARD_FAULT_TRIGGER", "",
                       "required (snP, nP, sn, n or displs) unless SCALEGUARD_FAULT_X is set");
        return;
    }
    if (strcmp(trigger, "displs") == 0) {
        config.fallback = FALLBACK_DISPLS;
        return;
    }
    if (sg_trigger_parse(trigger, &config.trigger) != 0)
        bad_config("SCALEGUARD_FAULT_TRIGGER", trigger, "expected snP, nP, sn, n or displs");
    const char *bound = getenv("SCALEGUARD_FAULT_BOUND");
    if (bound == NULL || parse_u64(bound, strlen(bound), &config.bound) != 0)
        bad_config("SCALEGUARD_FAULT_BOUND", bound ? bound : "",
                   "expected an unsigned decimal (required with this trigger)");
    config.fallback = FALLBACK_G;
}

/* ---- The decision -------------------------------------------------------- */

/* Detector D on the displacement arrays this rank holds: 1 suspicious,
 * 0 intact, -1 when the rank holds none (non-roots of Gatherv/Scatterv). */
static int displs_suspicious_here(const struct sg_call *c, const struct sg_shape *shape)
{
    struct sg_call_side send, recv;
    int procs;
    if (PMPI_Comm_size(c->comm, &procs) != MPI_SUCCESS)
        return -1;
    sg_call_sides(c, shape->is_root, procs, &send, &recv);
    /* V and W sides (Alltoallw's displacements count bytes), of P blocks or
     * a neighbourhood's */
    int send_v = send.layout == SG_SIDE_V || send.layout == SG_SIDE_W;
    int recv_v = recv.layout == SG_SIDE_V || recv.layout == SG_SIDE_W;
    if (!send_v && !recv_v)
        return -1;
    /* int displacements only: MPI_Aint ones (a large-count form's,
     * Neighbor_alltoallw's) cannot wrap */
    return (recv_v && recv.displs.of_int &&
            sg_displs_suspicious(recv.counts.of_int, recv.displs.of_int, (size_t)recv.blocks)) ||
           (send_v && send.displs.of_int &&
            sg_displs_suspicious(send.counts.of_int, send.displs.of_int, (size_t)send.blocks));
}

static enum fault_verdict judge(const struct sg_call *c, const struct sg_shape *shape, char *why,
                                size_t size)
{
    for (size_t i = 0; i < config.x_count; i++) {
        const struct fault_x_point *point = &config.x[i];
        if (point->s != shape->s || point->procs != shape->procs)
            continue;
        int exceeds = shape->n > point->n;
        snprintf(why, size, "%s X bound %" PRIu64, exceeds ? "exceeds" : "within", point->n);
        return exceeds ? VERDICT_FAULT : VERDICT_PASS;
    }
    switch (config.fallback) {
    case FALLBACK_DISPLS: {
        int suspicious = displs_suspicious_here(c, shape);
        if (suspicious < 0)
            return VERDICT_SKIP;
        snprintf(why, size, "has %s displs", suspicious ? "suspicious" : "intact");
        return suspicious ? VERDICT_FAULT : VERDICT_PASS;
    }
    case FALLBACK_G: {
        /* A rank that sees only part of the counts sees a lower bound of
         * n: if that exceeds, the call does. */
        int exceeds = sg_trigger_exceeds(config.trigger, shape->s, shape->n, shape->procs,
                                         config.bound);
        snprintf(why, size, "%s %s bound %" PRIu64, exceeds ? "exceeds" : "within",
                 sg_trigger_name(config.trigger), config.bound);
        return exceeds ? VERDICT_FAULT : VERDICT_PASS;
    }
    case FALLBACK_NONE: break;
    }
    return VERDICT_SKIP;
}

/* The variable of SCALEGUARD_FAULT_UNLESS, through MPI_T (after MPI_Init;
 * never stopped: the process ends with it). */
static void find_unless(void)
{
    int provided, index, count;
    const char *variable = "SCALEGUARD_FAULT_UNLESS";
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        bad_config(variable, config.unless_name, "the MPI tool interface did not start");
    if (MPI_T_cvar_get_index(config.unless_name, &index) != MPI_SUCCESS ||
        MPI_T_cvar_handle_alloc(index, NULL, &config.unless_handle, &count) != MPI_SUCCESS ||
        count != 1)
        bad_config(variable, config.unless_name, "not a control variable of this MPI");
}

static int spared(void)
{
    if (config.unless_name[0] == '\0')
        return 0;
    pthread_once(&unless_once, find_unless);
    int value = 0;
    return MPI_T_cvar_read(config.unless_handle, &value) == MPI_SUCCESS &&
           value == config.unless_value;
}

/* Whether the ranks of comm run on more than one host (as gethostname says,
 * as the bench reports them): collective over comm, which every rank
 * enters here as it enters the collective itself. */
static int spans_hosts(MPI_Comm comm)
{
    char here[256] = "";
    gethostname(here, sizeof here - 1);
    uint64_t hash = 14695981039346656037u; /* FNV-1a */
    for (const char *p = here; *p != '\0'; p++)
        hash = (hash ^ (unsigned char)*p) * 1099511628211u;
    uint64_t mine[2] = {hash, ~hash}, most[2]; /* the largest hash and ~the smallest */
    if (PMPI_Allreduce(mine, most, 2, MPI_UINT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        return 0;
    return most[0] != ~most[1];
}

/* ---- The faults ---------------------------------------------------------- */

/* The real call, completed: non-blocking forms are waited on and hand back
 * MPI_REQUEST_NULL, so a fault can follow once the data has arrived. A
 * persistent form (`_init`) is faulted at its `_init`, which moves no
 * data: its request is made and kept (MPI_Start would run it). */
static int invoke_to_completion(const struct sg_call *c)
{
    int err = sg_call_invoke(&config.next, c);
    if (err != MPI_SUCCESS || c->request == NULL || sg_is_persistent(c->routine))
        return err;
    err = PMPI_Wait(c->request, MPI_STATUS_IGNORE);
    *c->request = MPI_REQUEST_NULL;
    return err;
}

/* An error of a class of its own whose text is MPICH's "Out of memory"
 * (MPIR_Igather_intra_sched_binomial's), which a launcher reading the log
 * takes for an out-of-memory job. (A code added to the predefined
 * MPI_ERR_NO_MEM gets MPICH 4.0.2's class text and a stale error stack.) */
static int out_of_memory_code(void)
{
    static int code = MPI_ERR_OTHER;
    static int added;
    if (!added && PMPI_Add_error_class(&code) == MPI_SUCCESS)
        PMPI_Add_error_string(code, "Out of memory (sgfault: lone-mpi-error)");
    added = 1;
    return code;
}

/* An error as the MPI library would raise it: through the communicator's
 * error handler unless that is MPI_ERRORS_RETURN. */
static int raise_mpi_error(MPI_Comm comm, int error)
{
    MPI_Errhandler handler;
    if (PMPI_Comm_get_errhandler(comm, &handler) != MPI_SUCCESS)
        return error;
    int returns = handler == MPI_ERRORS_RETURN;
    PMPI_Errhandler_free(&handler);
    if (returns)
        return error;
    int err = PMPI_Comm_call_errhandler(comm, error);
    return err != MPI_SUCCESS ? err : error;
}

/* Index (in elements of the receive type) of the first block this rank
 * received from another rank, or -1: a V side's, or a REGULAR side's blocks
 * of `count` elements. `own` is skipped (in-place data was not received). */
static MPI_Aint first_block(const struct sg_call_side *side, int procs, int own)
{
    int v = sg_counts_given(side->counts);
    for (int i = 0; i < procs; i++) {
        MPI_Count n = v ? sg_count_at(side->counts, i) : side->count;
        if (n > 0 && i != own)
            return v ? sg_displ_at(side->displs, i) : (MPI_Aint)i * side->count;
    }
    return -1;
}

/* Flip the first byte of the data this rank received (nothing if none). */
static void corrupt_received(const struct sg_call *c)
{
    int procs, rank;
    if (PMPI_Comm_size(c->comm, &procs) != MPI_SUCCESS ||
        PMPI_Comm_rank(c->comm, &rank) != MPI_SUCCESS)
        return;
    int is_root = c->root == rank;
    int own = c->sendbuf == MPI_IN_PLACE ? rank : -1;
    /* the first block this rank receives from another: its result, or the
     * first block of its REGULAR or V receive side (not the root's own
     * Bcast buffer, nor a block of its own given in place) */
    struct sg_call_side send, recv;
    sg_call_sides(c, is_root, procs, &send, &recv);
    MPI_Aint block = -1;
    if (recv.layout == SG_SIDE_SINGLE && !(is_root && sg_routines[c->routine].send == SG_SIDE_NONE))
        block = sg_single_count(&recv, rank) > 0 ? 0 : -1;
    else if (recv.layout == SG_SIDE_REGULAR || recv.layout == SG_SIDE_V)
        block = first_block(&recv, recv.blocks, own);
    MPI_Datatype type = c->recvtype;
    MPI_Aint lb, extent, true_lb, true_extent;
    if (recv.layout == SG_SIDE_W) { /* a byte displacement, and the block's own datatype */
        for (int i = 0; i < recv.blocks && block < 0; i++)
            if (sg_count_at(recv.counts, i) > 0 && i != own) {
                block = sg_displ_at(recv.displs, i);
                type = recv.types[i];
            }
    }
    if (block < 0 || PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS ||
        true_extent <= 0)
        return;
    if (recv.layout == SG_SIDE_W)
        extent = 1;
    /* Integer arithmetic: the buffer may be MPI_BOTTOM. */
    uintptr_t address = (uintptr_t)c->recvbuf + (uintptr_t)(block * extent + true_lb);
    *(unsigned char *)address ^= 0xFF;
}

static _Noreturn void crash(void)
{
    raise(SIGSEGV);
    /* A handler (the MPI's or the application's) returned: die the default way. */
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
    abort();
}

/* What a kernel OOM kill looks like: memory grows, then SIGKILL. */
static _Noreturn void exhaust_memory(void)
{
    const size_t step = (size_t)64 << 20;
    void *chain = NULL; /* keeps every block reachable */
    for (;;) {
        void **block = malloc(step);
        if (block == NULL)
            break;
        volatile unsigned char *bytes = (volatile unsigned char *)block;
        for (size_t i = 0; i < step; i += 4096)
            bytes[i] = 1; /* commit every page */
        *block = chain;
        chain = block;
    }
    raise(SIGKILL);
    abort();
}

static int inject(const struct sg_call *c)
{
    int err;
    switch (config.kind) {
    case FAULT_CRASH: crash();
    case FAULT_HANG:
        for (;;)
            sleep(1);
    case FAULT_MPI_ERROR:
        /* The real call first, so that no peer is left waiting (a failed
         * `_init` hands back no request) */
        err = invoke_to_completion(c);
        if (err == MPI_SUCCESS && sg_is_persistent(c->routine))
            err = PMPI_Request_free(c->request);
        return err != MPI_SUCCESS ? err : raise_mpi_error(c->comm, MPI_ERR_OTHER);
    case FAULT_WRONG_DATA:
        err = invoke_to_completion(c);
        if (err == MPI_SUCCESS)
            corrupt_received(c);
        return err;
    case FAULT_OOM: exhaust_memory();
    case FAULT_SLOW:
        err = invoke_to_completion(c);
        nanosleep(&slow_pause, NULL);
        return err;
    case FAULT_BUSY:
        err = invoke_to_completion(c);
        spin_for_cpu(&slow_pause);
        return err;
    case FAULT_LONE_MPI_ERROR: {
        /* The last rank returns an error without entering the call (out of
         * memory, as MPICH's schedule did); its peers enter it and wait. */
        int procs, rank;
        if (PMPI_Comm_size(c->comm, &procs) == MPI_SUCCESS &&
            PMPI_Comm_rank(c->comm, &rank) == MPI_SUCCESS && rank == procs - 1)
            return raise_mpi_error(c->comm, out_of_memory_code());
        return invoke_to_completion(c);
    }
    }
    return MPI_ERR_INTERN;
}

static void report(const struct sg_call *c, const struct sg_shape *shape, const char *why,
                   const char *outcome)
{
    /* What a single send side passes, as element count and size: where a
     * workaround sends this rank's message in bigger elements, the size its
     * receivers must match (W2's Allgatherv). */
    char sends[64] = "";
    struct sg_call_side send, recv;
    int procs;
    if (PMPI_Comm_size(c->comm, &procs) != MPI_SUCCESS)
        return;
    sg_call_sides(c, shape->is_root, procs, &send, &recv);
    int size;
    if (send.layout == SG_SIDE_SINGLE && !send.in_place &&
        PMPI_Type_size(send.type, &size) == MPI_SUCCESS)
        snprintf(sends, sizeof sends, " (sends %lld x %d B)",
                 (long long)sg_single_count(&send, shape->rank), size);
    char line[320];
    snprintf(line, sizeof line, "sgfault: %s n=%" PRIu64 " s=%" PRIu64 " P=%" PRIu64 " %s: %s%s\n",
             sg_routines[c->routine].name, shape->n, shape->s, shape->procs, why, outcome, sends);
    fputs(line, stderr); /* one write: lines of several ranks do not interleave */
}

static int fault_handle(const struct sg_call *c)
{
    pthread_once(&config_once, config_load);
    atomic_fetch_add(&config.calls, 1);
    if (!config.faulty[c->routine])
        return sg_call_invoke(&config.next, c);

    int inter;
    struct sg_shape shape;
    /* On an invalid communicator the real call reports the error. */
    if (PMPI_Comm_test_inter(c->comm, &inter) != MPI_SUCCESS || inter ||
        sg_call_shape(c, &shape) != MPI_SUCCESS)
        return sg_call_invoke(&config.next, c);
    if (config.across && !spans_hosts(c->comm))
        return sg_call_invoke(&config.next, c);
    shape.n = shape.count; /* a fault of the MPI: n and s as it sees them */
    shape.s = shape.size;

    char why[96];
    enum fault_verdict verdict = judge(c, &shape, why, sizeof why);
    if (verdict == VERDICT_SKIP)
        return sg_call_invoke(&config.next, c);
    atomic_fetch_add(&config.checked, 1);
    if (verdict == VERDICT_PASS) {
        if (config.log)
            report(c, &shape, why, "pass");
        return sg_call_invoke(&config.next, c);
    }
    if (spared()) {
        char outcome[160];
        snprintf(outcome, sizeof outcome, "spared (%s=%d)", config.unless_name,
                 config.unless_value);
        report(c, &shape, why, outcome);
        return sg_call_invoke(&config.next, c);
    }
    atomic_fetch_add(&config.faults, 1);
    report(c, &shape, why, kind_names[config.kind]);
    return inject(c);
}

#define SG_WRAPPER_HANDLER fault_handle
SG_COLLECTIVES(SG_DEFINE_WRAPPER)
SG_COLLECTIVES(SG_DEFINE_PMPI_WRAPPER)
