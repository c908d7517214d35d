/* Configuration, logging and statistics of libscaleguard.so. Nothing here
 * may abort the application: a bad configuration is reported once and the
 * layer goes on with Class D protection only. */
#include "compare.h"
#include "layer.h"
#include "pending.h"
#include "scratch.h"
#include "w4.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct sg_layer layer;
static pthread_once_t layer_once = PTHREAD_ONCE_INIT;

static int world_rank(void)
{
    int initialized = 0, finalized = 0, rank = 0;
    PMPI_Initialized(&initialized);
    PMPI_Finalized(&finalized);
    if (initialized && !finalized)
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

static void warn_on_rank0(void *context, const char *message)
{
    (void)context;
    if (world_rank() == 0)
        sg_log(SG_LOG_WARN, NULL, "%s", message);
}

/* Whether some entry of `rules` has a bound, the smallest bound, and on
 * how many spreads the entries were measured. */
static void summarise(struct sg_rules *rules)
{
    rules->bounded = 0;
    rules->quiet_reach = UINT64_MAX;
    rules->spreads = 0;
    for (size_t i = 0; i < rules->count; i++) {
        const struct sg_bound_entry *e = rules->entries[i];
        if (sg_classes[e->cls].bounded) {
            rules->bounded = 1;
            if (e->bound < rules->quiet_reach)
                rules->quiet_reach = e->bound;
        }
        size_t first = 0; /* the first entry of its spread */
        while (rules->entries[first]->nodes != e->nodes)
            first++;
        rules->spreads += first == i;
    }
}

static uint64_t distance(uint64_t nodes, int spread)
{
    return nodes > (uint64_t)spread ? nodes - (uint64_t)spread : (uint64_t)spread - nodes;
}

void sg_rules_at_spread(const struct sg_rules *rules, int spread, struct sg_rules *at,
                        const struct sg_bound_entry **room)
{
    if (rules->spreads <= 1 || spread <= 0) {
        *at = *rules;
        return;
    }
    uint64_t nearest = UINT64_MAX;
    for (size_t i = 0; i < rules->count; i++)
        if (distance(rules->entries[i]->nodes, spread) < nearest)
            nearest = distance(rules->entries[i]->nodes, spread);
    size_t count = 0;
    for (size_t i = 0; i < rules->count; i++) /* in file order, as every rule set */
        if (distance(rules->entries[i]->nodes, spread) == nearest)
            room[count++] = rules->entries[i];
    *at = (struct sg_rules){.entries = room, .count = count};
    summarise(at);
}

/* FNV-1a over every field of the rules that a decision reads, routine by
 * routine in file order (not the measurement's notes: n_s, delta, failure,
 * seconds, lines); the same for every process that loaded the same bounds. */
static uint64_t fingerprint(const struct sg_rule_set *set)
{
    uint64_t h = 1469598103934665603u;
#define SG_MIX(value)                      \
    do {                                   \
        h ^= (uint64_t)(value);            \
        h *= 1099511628211u;               \
    } while (0)
    for (int r = 0; r < SG_ROUTINE_COUNT; r++) {
        SG_MIX(set->all[r].count);
        for (size_t i = 0; i < set->all[r].count; i++) {
            const struct sg_bound_entry *e = set->all[r].entries[i];
            SG_MIX(e->cls);
            SG_MIX(e->trigger);
            SG_MIX(e->bound);
            SG_MIX(e->type_size);
            SG_MIX(e->procs);
            SG_MIX(e->nodes);
            SG_MIX(e->workaround);
            SG_MIX(e->inplace);
            SG_MIX(e->avoid_checked);
            for (unsigned k = 0; k < e->avoid_count; k++)
                for (const char *c = e->avoid[k].name; *c; c++)
                    SG_MIX(*c);
            for (unsigned k = 0; k < e->avoid_count; k++)
                SG_MIX(atoi(e->avoid[k].value));
            SG_MIX(strtod(e->avoid_seconds, NULL) < strtod(e->workaround_seconds, NULL));
        }
    }
#undef SG_MIX
    return h;
}

/* The collective checks: off by default; [checks] of the INI (collectives =
 * yes, action = warn, batch = N) where SCALEGUARD_CHECK (collectives |
 * none), SCALEGUARD_CHECK_ACTION (abort | warn) and SCALEGUARD_CHECK_BATCH
 * (1 to SG_CHECK_BATCH_MAX) do not say. A value not understood counts as
 * unset, and is told once the INI is read (tell_checks_fallbacks), with
 * what is used instead. Returns which of the three variables were set with
 * a value understood (bits 1, 2, 4). */
static struct {
    const char *check, *action, *batch;
} checks_not_understood;

static unsigned load_checks(void)
{
    const char *check = getenv("SCALEGUARD_CHECK");
    const char *action = getenv("SCALEGUARD_CHECK_ACTION");
    const char *batch = getenv("SCALEGUARD_CHECK_BATCH");
    unsigned set = 0;
    layer.checks_loaded = (struct sg_checks_setting){0, {SG_CHECK_ABORT, 1}};
    if (check && *check) {
        if (strcmp(check, "collectives") == 0 || strcmp(check, "none") == 0) {
            layer.checks_loaded.collectives = strcmp(check, "collectives") == 0;
            set |= 1;
        } else {
            checks_not_understood.check = check;
        }
    }
    if (action && *action) {
        if (strcmp(action, "abort") == 0 || strcmp(action, "warn") == 0) {
            layer.checks_loaded.options.action =
                strcmp(action, "warn") == 0 ? SG_CHECK_WARN : SG_CHECK_ABORT;
            set |= 2;
        } else {
            checks_not_understood.action = action;
        }
    }
    if (batch && *batch) {
        char *end;
        unsigned long n = strtoul(batch, &end, 10);
        if (*end == '\0' && n >= 1 && n <= SG_CHECK_BATCH_MAX && batch[0] >= '0' &&
            batch[0] <= '9') {
            layer.checks_loaded.options.batch = (unsigned)n;
            set |= 4;
        } else {
            checks_not_understood.batch = batch;
        }
    }
    return set;
}

/* Where a setting of the checks came from: "the default" or the INI's line. */
static void checks_source(unsigned ini_line, char *text, size_t size)
{
    if (ini_line)
        snprintf(text, size, "%s:%u, [checks]", getenv("SCALEGUARD_CONFIG"), ini_line);
    else
        snprintf(text, size, "the default");
}

static void tell_checks_fallbacks(void)
{
    if (world_rank() != 0)
        return;
    const struct sg_checks_config *ini = &layer.bounds.checks;
    const struct sg_checks_setting *used = &layer.checks_loaded;
    char from[320];
    if (checks_not_understood.check) {
        checks_source(ini->collectives_line, from, sizeof from);
        sg_log(SG_LOG_WARN, NULL, "SCALEGUARD_CHECK=%s is not collectives or none; using %s (%s)",
               checks_not_understood.check, used->collectives ? "collectives" : "none", from);
    }
    if (checks_not_understood.action) {
        checks_source(ini->action_line, from, sizeof from);
        sg_log(SG_LOG_WARN, NULL, "SCALEGUARD_CHECK_ACTION=%s is not abort or warn; using %s (%s)",
               checks_not_understood.action,
               used->options.action == SG_CHECK_WARN ? "warn" : "abort", from);
    }
    if (checks_not_understood.batch) {
        checks_source(ini->batch_line, from, sizeof from);
        sg_log(SG_LOG_WARN, NULL,
               "SCALEGUARD_CHECK_BATCH=%s is not a number from 1 to %d; using %u (%s)",
               checks_not_understood.batch, SG_CHECK_BATCH_MAX, used->options.batch, from);
    }
}

/* The watchdog: off unless SCALEGUARD_WATCHDOG gives a number of seconds
 * (none: off); SCALEGUARD_WATCHDOG_ACTION report (the default) or abort. A
 * value not understood is told, and the default taken: no watchdog, report. */
static void load_watchdog(void)
{
    const char *limit = getenv("SCALEGUARD_WATCHDOG");
    const char *action = getenv("SCALEGUARD_WATCHDOG_ACTION");
    layer.watchdog_loaded = (struct sg_watchdog_setting){0, SG_WATCH_REPORT};
    if (limit && *limit && strcmp(limit, "none") != 0) {
        char *end;
        double seconds = strtod(limit, &end);
        if (*end == '\0' && seconds >= 0.1 && seconds <= 1e6)
            layer.watchdog_loaded.seconds = seconds;
        else if (world_rank() == 0)
            sg_log(SG_LOG_WARN, NULL,
                   "SCALEGUARD_WATCHDOG=%s is not a number of seconds from 0.1 to 1e6, or none; "
                   "no watchdog (the default)", limit);
    }
    if (action && *action && strcmp(action, "report") != 0) {
        if (strcmp(action, "abort") == 0)
            layer.watchdog_loaded.action = SG_WATCH_ABORT;
        else if (world_rank() == 0)
            sg_log(SG_LOG_WARN, NULL,
                   "SCALEGUARD_WATCHDOG_ACTION=%s is not report or abort; using report (the "
                   "default)", action);
    }
}

/* The trace: off unless SCALEGUARD_TRACE names a directory (none: off). */
static void load_trace(void)
{
    const char *dir = getenv("SCALEGUARD_TRACE");
    layer.trace_loaded.on = 0;
    if (dir == NULL || *dir == '\0' || strcmp(dir, "none") == 0)
        return;
    if (strlen(dir) >= sizeof layer.trace_loaded.dir) {
        if (world_rank() == 0)
            sg_log(SG_LOG_WARN, NULL, "SCALEGUARD_TRACE names a directory of more than %zu "
                                      "characters; no trace (the default)",
                   sizeof layer.trace_loaded.dir - 1);
        return;
    }
    layer.trace_loaded.on = 1;
    snprintf(layer.trace_loaded.dir, sizeof layer.trace_loaded.dir, "%s", dir);
}

static void checks_from_ini(const struct sg_checks_config *ini, unsigned set_by_environment)
{
    if (!(set_by_environment & 1) && ini->collectives_line)
        layer.checks_loaded.collectives = ini->collectives;
    if (!(set_by_environment & 2) && ini->action_line)
        layer.checks_loaded.options.action = ini->warn ? SG_CHECK_WARN : SG_CHECK_ABORT;
    if (!(set_by_environment & 4) && ini->batch_line)
        layer.checks_loaded.options.batch = ini->batch;
}

/* SCALEGUARD_LOG's level (warn where unset); 0 in *known where it names none. */
static enum sg_log_level wanted_log_level(const char *level, int *known)
{
    static const char *const names[] = {"quiet", "warn", "info", "debug"};
    *known = 1;
    if (level == NULL || *level == '\0')
        return SG_LOG_WARN;
    for (int i = 0; i < 4; i++)
        if (strcmp(level, names[i]) == 0)
            return (enum sg_log_level)i;
    *known = 0;
    return SG_LOG_WARN;
}

static void load_layer(void)
{
    const char *level = getenv("SCALEGUARD_LOG");
    int known;
    layer.log_level = wanted_log_level(level, &known);
    if (!known && world_rank() == 0)
        sg_log(SG_LOG_WARN, NULL, "SCALEGUARD_LOG=%s is not quiet|warn|info|debug; using warn "
               "(the default)", level);

    unsigned checks_set = load_checks();
    load_watchdog();
    load_trace();
    layer.fingerprint = fingerprint(&layer.loaded); /* no rules, until some load */
    const char *path = getenv("SCALEGUARD_CONFIG");
    if (path == NULL || *path == '\0') {
        snprintf(layer.source, sizeof layer.source, "no SCALEGUARD_CONFIG");
        if (world_rank() == 0)
            sg_log(SG_LOG_INFO, NULL, "no SCALEGUARD_CONFIG: Class D protection only");
        return;
    }
    char error[512];
    if (sg_bounds_load(path, &layer.bounds, warn_on_rank0, NULL, error, sizeof error) != 0) {
        snprintf(layer.source, sizeof layer.source, "%s", error);
        if (world_rank() == 0)
            sg_log(SG_LOG_WARN, NULL, "%s; going on with Class D protection only", error);
        return;
    }
    if (sg_bounds_empty(&layer.bounds) && world_rank() == 0)
        sg_log(SG_LOG_WARN, NULL, "%s holds nothing the layer uses (no routine entry, [checks], "
                                  "[platform] or [cvars]); Class D protection only", path);
    checks_from_ini(&layer.bounds.checks, checks_set);
    /* Two arrays of pointers in one, grouped by routine, each group in file
     * order: every entry, then only those for calls not in place. */
    layer.index = calloc(layer.bounds.count ? 2 * layer.bounds.count : 1, sizeof *layer.index);
    if (layer.index == NULL) {
        sg_bounds_free(&layer.bounds);
        snprintf(layer.source, sizeof layer.source, "%s: out of memory", path);
        sg_log(SG_LOG_WARN, NULL, "out of memory loading %s; Class D protection only", path);
        return;
    }
    const struct sg_bound_entry **next = layer.index;
    for (int r = 0; r < SG_ROUTINE_COUNT; r++) {
        layer.loaded.all[r].entries = next;
        for (size_t i = 0; i < layer.bounds.count; i++)
            if (layer.bounds.entries[i].routine == (enum sg_routine)r)
                *next++ = &layer.bounds.entries[i];
        layer.loaded.all[r].count = (size_t)(next - layer.loaded.all[r].entries);
        summarise(&layer.loaded.all[r]);
    }
    for (int r = 0; r < SG_ROUTINE_COUNT; r++) {
        layer.loaded.not_in_place[r].entries = next;
        for (size_t i = 0; i < layer.bounds.count; i++) {
            const struct sg_bound_entry *e = &layer.bounds.entries[i];
            int in_place_only = e->inplace && sg_routines[e->routine].in_place_alike;
            if (e->routine == (enum sg_routine)r && !in_place_only)
                *next++ = e;
        }
        layer.loaded.not_in_place[r].count =
            (size_t)(next - layer.loaded.not_in_place[r].entries);
        summarise(&layer.loaded.not_in_place[r]);
    }
    layer.fingerprint = fingerprint(&layer.loaded);
    snprintf(layer.source, sizeof layer.source, "%s: %zu bound entries (digest %016" PRIx64 ")",
             path, layer.bounds.count, layer.fingerprint);
    if (!sg_init_seen) {
        if (world_rank() == 0)
            sg_log(SG_LOG_WARN, NULL,
                   "the bounds of %s are not applied: MPI was initialised past the layer, so "
                   "the ranks could not agree on them; Class D protection only", path);
        return;
    }
    layer.path = path;
}

static atomic_bool layer_loaded; /* the hot path's test, before pthread_once's call */

static void load_layer_once(void)
{
    load_layer();
    tell_checks_fallbacks();
    if (!sg_init_seen && layer.checks_loaded.collectives && world_rank() == 0)
        sg_log(SG_LOG_WARN, NULL, "the collective checks are not on: MPI was initialised past "
                                  "the layer, so the ranks could not agree to run them");
    if (!sg_init_seen && layer.watchdog_loaded.seconds > 0 && world_rank() == 0)
        sg_log(SG_LOG_WARN, NULL, "the watchdog is not on: MPI was initialised past the layer, "
                                  "so the ranks could not agree to run it");
    if (!sg_init_seen && layer.trace_loaded.on && world_rank() == 0)
        sg_log(SG_LOG_WARN, NULL, "the trace is not on: MPI was initialised past the layer, "
                                  "so the ranks could not agree to run it");
    atomic_store_explicit(&layer_loaded, 1, memory_order_release);
}

void sg_layer_off(void)
{
    int known;
    layer.log_level = wanted_log_level(getenv("SCALEGUARD_LOG"), &known);
    atomic_store_explicit(&layer_loaded, 1, memory_order_release);
}

const struct sg_layer *sg_layer(void)
{
    if (!atomic_load_explicit(&layer_loaded, memory_order_acquire))
        pthread_once(&layer_once, load_layer_once);
    return &layer;
}

atomic_uchar sg_passes[SG_ROUTINE_COUNT];

void sg_layer_apply(int agreed, unsigned settings_agreed)
{
    static const struct sg_rule_set class_d_only;
    layer.rules = agreed ? layer.loaded : class_d_only;
    layer.checks = settings_agreed & SG_AGREED_CHECKS
                       ? layer.checks_loaded
                       : (struct sg_checks_setting){0, {SG_CHECK_ABORT, 1}};
    layer.watchdog = settings_agreed & SG_AGREED_WATCHDOG
                         ? layer.watchdog_loaded
                         : (struct sg_watchdog_setting){0, SG_WATCH_REPORT};
    if (settings_agreed & SG_AGREED_TRACE)
        layer.trace = layer.trace_loaded;
    else
        layer.trace.on = 0;
    for (int r = 0; r < SG_ROUTINE_COUNT; r++) { /* what nothing_can_trigger passes at once */
        int irregular = sg_routines[r].irregular;
        enum sg_pass pass;
        /* the summary counts every call; the checks, the watchdog and the
         * trace see every call */
        if (layer.log_level >= SG_LOG_INFO || layer.checks.collectives ||
            layer.watchdog.seconds > 0 || layer.trace.on)
            pass = SG_PASS_NEVER;
        else if (sg_persistent_agrees((enum sg_routine)r, &layer.rules))
            pass = SG_PASS_NEVER; /* every rank's `_init` takes part in the agreement */
        else if (layer.rules.all[r].bounded)
            pass = irregular ? SG_PASS_NEVER : SG_PASS_REPEATS;
        else
            pass = irregular ? SG_PASS_UNWRAPPED : SG_PASS_ALWAYS;
        atomic_store_explicit(&sg_passes[r], (unsigned char)pass, memory_order_relaxed);
    }
}

void sg_log(enum sg_log_level level, atomic_flag *once, const char *format, ...)
{
    if (level > layer.log_level)
        return;
    if (once && atomic_flag_test_and_set(once))
        return;
    char line[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    fprintf(stderr, "scaleguard: %s\n", line);
}

SG_THREAD_LOCAL int sg_fortran_caller;

/* ---- Statistics --------------------------------------------------------- */

static atomic_ulong calls[SG_ROUTINE_COUNT];
static atomic_ulong triggers[SG_ROUTINE_COUNT][SG_CLASS_COUNT]; /* by class (sg_classes) */
static atomic_ulong outcomes[SG_ROUTINE_COUNT][SG_OUTCOME_COUNT];

void sg_count(enum sg_routine routine, int triggered_class, enum sg_outcome outcome)
{
    atomic_fetch_add_explicit(&calls[routine], 1, memory_order_relaxed);
    if (triggered_class >= 0)
        atomic_fetch_add_explicit(&triggers[routine][triggered_class], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&outcomes[routine][outcome], 1, memory_order_relaxed);
}

/* Rank 0's summary: at info every routine it called, at warn (where each
 * reason for leaving a call alone is reported only once) the routines with
 * calls left as they are, and how many. */
/* "W1-A/W1-B/W2/W3/W4": the summary's columns between plain and left-alone. */
#define SG_WORKAROUND_COLUMN(id, name) "/" name
static const char *const workaround_columns = &(SG_WORKAROUND_LIST(SG_WORKAROUND_COLUMN))[1];
#undef SG_WORKAROUND_COLUMN
/* "D/G/X": the summary's trigger columns, one per class. */
#define SG_CLASS_COLUMN(name, ...) "/" #name
static const char *const class_columns = &(SG_CLASS_LIST(SG_CLASS_COLUMN))[1];
#undef SG_CLASS_COLUMN

/* The collective checks judge what is open on a communicator before it
 * goes (checks/collective_check.h). */
SG_FORWARDED_ENTRY(MPI_Comm_free)
int SG_ENTRY(MPI_Comm_free)(MPI_Comm *comm)
{
    if (layer.checks.collectives && comm != NULL)
        sg_check_comm_free(*comm);
    return PMPI_Comm_free(comm);
}

SG_FORWARDED_ENTRY(MPI_Finalize)
int SG_ENTRY(MPI_Finalize)(void)
{
    sg_observe_finalizing(); /* the watchdog's state; the trace's end, before MPI_T's */
    sg_fingerprint_stop();   /* MPI_T, after the trace's use of it */
    sg_w4_stop();
    sg_pending_finish_all(); /* requests the caller freed before they completed */
    if (layer.checks.collectives)
        sg_check_finish_all(); /* what is still open, on every communicator */
    sg_scratch_release_all();
    enum sg_log_level level = sg_layer()->log_level;
    if (level >= SG_LOG_WARN && world_rank() == 0) {
        int header = 0;
        for (int r = 0; r < SG_ROUTINE_COUNT; r++) {
            unsigned long n = atomic_load(&calls[r]);
            unsigned long left = atomic_load(&outcomes[r][SG_OUTCOME_LEFT_ALONE]);
            if (n == 0 || (level < SG_LOG_INFO && left == 0))
                continue;
            if (level < SG_LOG_INFO) {
                sg_log(SG_LOG_WARN, NULL, "summary (rank 0): %s: %lu %s", sg_routines[r].name,
                       left, left == 1 ? "call left as it is" : "calls left as they are");
                continue;
            }
            if (!header++)
                sg_log(SG_LOG_INFO, NULL,
                       "summary (rank 0): routine calls triggers(%s) plain/%s/left-alone",
                       class_columns, workaround_columns);
            char triggered[SG_CLASS_COUNT * 24] = "", handled[8 * 24] = "";
            for (int k = 0, at = 0; k < SG_CLASS_COUNT && at < (int)sizeof triggered; k++)
                at += snprintf(triggered + at, sizeof triggered - (size_t)at, "%s%lu",
                               k ? "/" : "", atomic_load(&triggers[r][k]));
            for (int o = 0, at = 0; o < SG_OUTCOME_COUNT && at < (int)sizeof handled; o++)
                at += snprintf(handled + at, sizeof handled - (size_t)at, "%s%lu",
                               o ? "/" : "", atomic_load(&outcomes[r][o]));
            sg_log(SG_LOG_INFO, NULL, "  %-26s %lu %s %s", sg_routines[r].name, n, triggered,
                   handled);
        }
    }
    int err = PMPI_Finalize();
    sg_observe_stop();
    return err;
}
