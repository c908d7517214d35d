/* W4: see w4.h. */
#include "w4.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms.h"
#include "workaround.h"

/* One variable of an entry's avoid_with, as found at the start. */
struct setting {
    int index; /* the variable's */
    MPI_T_cvar_handle handle;
    int wanted;
    int per_call; /* written around the call; else it holds `wanted` already */
};

/* Each entry with avoid_with; `ready` 1 where W4 can run its calls. */
struct avoid {
    const struct sg_bound_entry *entry;
    struct setting settings[SG_AVOID_MAX];
    int ready;
    char settings_text[SG_AVOID_MAX * (SG_CVAR_NAME_MAX + 12)];
    char why[512]; /* why not ready, and what would make it */
};

static struct avoid *avoids;
static size_t avoid_count;
static int started; /* the tool interface, by sg_w4_start */

/* Writes of a variable that calls on several threads share: the first
 * call's write saves the value to restore, the last one restores it. */
static pthread_mutex_t writes = PTHREAD_MUTEX_INITIALIZER;
struct written {
    int index, users, saved;
};
static struct written *written;
static size_t written_count;

/* Entry e's avoid_with as found at the start, or NULL. */
static struct avoid *found_for(const struct sg_bound_entry *e)
{
    for (size_t i = 0; i < avoid_count; i++)
        if (avoids[i].entry == e)
            return &avoids[i];
    return NULL;
}

/* The same where W4 can run it. */
static struct avoid *avoid_of(const struct sg_bound_entry *e)
{
    struct avoid *a = found_for(e);
    return a != NULL && a->ready ? a : NULL;
}

/* Whether the environment holds every "NAME=VALUE" of `settings` (blanks
 * between). */
static int in_environment(const char *settings)
{
    const char *at = settings;
    while (*at) {
        size_t length = strcspn(at, " "), name = strcspn(at, "=");
        char variable[256];
        if (name >= length || name >= sizeof variable)
            return 0;
        memcpy(variable, at, name);
        variable[name] = '\0';
        const char *value = getenv(variable);
        if (value == NULL || strlen(value) != length - name - 1 ||
            strncmp(value, at + name + 1, length - name - 1) != 0)
            return 0;
        at += length + strspn(at + length, " ");
    }
    return 1;
}

/* The variable `cvar` of entry `a`: found, an integer not bound to an
 * object, and either written through MPI_T for each call (tried once here,
 * by writing back its value) or holding the wanted value since startup.
 * Returns 0, or -1 with a->why set. */
static int find(struct avoid *a, const struct sg_cvar *cvar, struct setting *s)
{
    int index, verbosity, bind, scope, count, value, wanted = atoi(cvar->value);
    char environment[256], needed[64];
    MPI_Datatype type;
    MPI_T_enum enumtype;
    if (MPI_T_cvar_get_index(cvar->name, &index) != MPI_SUCCESS) {
        snprintf(a->why, sizeof a->why, "this MPI has no control variable %s", cvar->name);
        return -1;
    }
    if (MPI_T_cvar_get_info(index, NULL, NULL, &verbosity, &type, &enumtype, NULL, NULL, &bind,
                            &scope) != MPI_SUCCESS ||
        type != MPI_INT || bind != MPI_T_BIND_NO_OBJECT ||
        MPI_T_cvar_handle_alloc(index, NULL, &s->handle, &count) != MPI_SUCCESS) {
        snprintf(a->why, sizeof a->why, "%s is not an integer control variable of the whole "
                 "process", cvar->name);
        return -1;
    }
    s->index = index;
    s->wanted = wanted;
    char values[128];
    if (!sg_cvar_value_offered(cvar->name, wanted, values, sizeof values)) {
        snprintf(a->why, sizeof a->why, "this MPI takes only %s for %s, not %s (a call with it "
                 "could fail in the MPI)", values, cvar->name, cvar->value);
        return -1;
    }
    if (MPI_T_cvar_read(s->handle, &value) != MPI_SUCCESS) {
        snprintf(a->why, sizeof a->why, "%s cannot be read", cvar->name);
        return -1;
    }
    int per_call = sg_cvar_per_call(cvar->name, cvar->value, environment, sizeof environment,
                                    needed, sizeof needed);
    if (per_call && scope != MPI_T_SCOPE_CONSTANT && scope != MPI_T_SCOPE_READONLY &&
        MPI_T_cvar_write(s->handle, &value) == MPI_SUCCESS) {
        s->per_call = value != wanted;
        return 0;
    }
    int needed_on = 1, needed_index;
    MPI_T_cvar_handle needed_handle;
    if (needed[0] != '\0') {
        needed_on = 0;
        if (MPI_T_cvar_get_index(needed, &needed_index) == MPI_SUCCESS &&
            MPI_T_cvar_handle_alloc(needed_index, NULL, &needed_handle, &count) == MPI_SUCCESS) {
            /* a boolean: MPI_INT in MPICH, C_BOOL (one byte) in Open MPI */
            int on = 0;
            if (MPI_T_cvar_read(needed_handle, &on) == MPI_SUCCESS)
                needed_on = (on & 0xff) != 0;
            MPI_T_cvar_handle_free(&needed_handle);
        }
    }
    if (value == wanted && needed_on) {
        s->per_call = 0;
        return 0;
    }
    if (!per_call && in_environment(environment))
        snprintf(a->why, sizeof a->why, "the job was started with %s, but this MPI holds "
                 "%s=%d%s%s", environment, cvar->name, value, needed_on ? "" : " and 0 for ",
                 needed_on ? "" : needed);
    else if (!per_call)
        snprintf(a->why, sizeof a->why, "this MPI reads %s only at startup (or when a "
                 "communicator is made), not during a call; start the job with %s for every "
                 "call to use it", cvar->name, environment);
    else
        snprintf(a->why, sizeof a->why, "%s cannot be written during a call here", cvar->name);
    return -1;
}

uint64_t sg_w4_start(const struct sg_bounds *bounds)
{
    size_t with = 0;
    for (size_t i = 0; i < bounds->count; i++)
        with += bounds->entries[i].avoid_count > 0;
    if (with == 0)
        return 0;
    int provided;
    if (!started && MPI_T_init_thread(MPI_THREAD_SERIALIZED, &provided) == MPI_SUCCESS)
        started = 1;
    avoids = calloc(with, sizeof *avoids);
    written = calloc(with * SG_AVOID_MAX, sizeof *written);
    if (avoids == NULL || written == NULL) {
        free(avoids);
        free(written);
        avoids = NULL;
        written = NULL;
        return 1;
    }
    uint64_t digest = 1469598103934665603u;
    for (size_t i = 0; i < bounds->count; i++) {
        const struct sg_bound_entry *e = &bounds->entries[i];
        if (e->avoid_count == 0)
            continue;
        struct avoid *a = &avoids[avoid_count++];
        a->entry = e;
        a->ready = started;
        if (!started)
            snprintf(a->why, sizeof a->why, "the MPI tool interface did not start");
        size_t used = 0;
        for (unsigned k = 0; k < e->avoid_count; k++) {
            used += (size_t)snprintf(a->settings_text + used, sizeof a->settings_text - used,
                                     "%s%s=%s", k ? " " : "", e->avoid[k].name, e->avoid[k].value);
            if (a->ready && find(a, &e->avoid[k], &a->settings[k]) != 0)
                a->ready = 0;
        }
        digest = (digest ^ (i << 1 | (uint64_t)a->ready)) * 1099511628211u;
    }
    return digest;
}

void sg_w4_settle(int agreed, int tells, const char *path, void (*tell)(const char *message))
{
    for (size_t i = 0; i < avoid_count; i++) {
        struct avoid *a = &avoids[i];
        const struct sg_bound_entry *e = a->entry;
        char message[2048];
        if (!agreed && a->ready) {
            a->ready = 0;
            snprintf(a->why, sizeof a->why,
                     "the ranks do not all find its variables settable (their environments "
                     "differ)");
        }
        if (a->ready || !tells)
            continue;
        snprintf(message, sizeof message,
                 "%s: W4 (avoid_with = %s, %s:%u) cannot run: %s; its calls past the bound "
                 "take another workaround, if any",
                 sg_routines[e->routine].name, a->settings_text, path, e->avoid[0].line, a->why);
        tell(message);
    }
}

int sg_w4_applies(const struct sg_bound_entry *e, const struct sg_shape *sh)
{
    if (e == NULL || avoid_of(e) == NULL || sh->procs != e->procs)
        return 0;
    if (!sg_classes[e->cls].scales) /* checked at the measured s and P only */
        return sh->s == e->type_size && sh->n <= e->avoid_checked;
    return sg_trigger_value(e->trigger, sh->s, sh->n, sh->procs) <=
           sg_trigger_value(e->trigger, e->type_size, e->avoid_checked, e->procs);
}

const char *sg_w4_settings(const struct sg_bound_entry *e)
{
    const struct avoid *a = found_for(e);
    return a != NULL ? a->settings_text : "";
}

static struct written *written_of(int index)
{
    for (size_t i = 0; i < written_count; i++)
        if (written[i].index == index)
            return &written[i];
    written[written_count] = (struct written){index, 0, 0};
    return &written[written_count++];
}

/* Restore the first `count` per-call variables of `a`: the last user of
 * each writes back what the first found. */
static void restore(struct avoid *a, unsigned count)
{
    for (unsigned k = 0; k < count; k++) {
        struct setting *s = &a->settings[k];
        if (!s->per_call)
            continue;
        struct written *w = written_of(s->index);
        if (--w->users == 0)
            MPI_T_cvar_write(s->handle, &w->saved);
    }
}

/* Set the per-call variables of `a`; on a failure, none stays set. */
static int set(struct avoid *a)
{
    int err = MPI_SUCCESS;
    unsigned k = 0;
    for (; k < a->entry->avoid_count && err == MPI_SUCCESS; k++) {
        struct setting *s = &a->settings[k];
        if (!s->per_call)
            continue;
        struct written *w = written_of(s->index);
        /* a variable not read is not counted: restore must not write it */
        if (w->users == 0 && (err = MPI_T_cvar_read(s->handle, &w->saved)) != MPI_SUCCESS)
            break;
        if (w->users++ == 0)
            err = MPI_T_cvar_write(s->handle, &s->wanted);
    }
    if (err != MPI_SUCCESS)
        restore(a, k);
    return err;
}

/* A write fails here only if the MPI changed its mind since sg_w4_start
 * wrote the same variable: then this rank makes the plain call, and the
 * others may not. */
int sg_w4(struct sg_runner *runner, const struct sg_call *c, const struct sg_bound_entry *e)
{
    struct avoid *a = avoid_of(e);
    if (a == NULL)
        return -1;
    pthread_mutex_lock(&writes);
    int err = set(a);
    pthread_mutex_unlock(&writes);
    if (err != MPI_SUCCESS)
        return -1;
    struct sg_call call = *c;
    err = sg_run(runner, &call);
    pthread_mutex_lock(&writes);
    restore(a, e->avoid_count);
    pthread_mutex_unlock(&writes);
    return err;
}

void sg_w4_stop(void)
{
    for (size_t i = 0; i < avoid_count; i++)
        for (unsigned k = 0; k < avoids[i].entry->avoid_count; k++)
            if (avoids[i].settings[k].handle != MPI_T_CVAR_HANDLE_NULL)
                MPI_T_cvar_handle_free(&avoids[i].settings[k].handle);
    free(avoids);
    free(written);
    avoids = NULL;
    written = NULL;
    avoid_count = written_count = 0;
    if (started)
        MPI_T_finalize();
    started = 0;
}

/* ---- W4's row (workaround.h) ---------------------------------------------- */

/* The entry that triggered names another algorithm of the MPI's, and the
 * call lies where the tester checked it (w4.h); only where every rank sees
 * the whole call, so that all set the variables alike. `auto` takes it
 * first where the tester measured it faster than the other workarounds
 * (avoid_seconds < workaround_seconds), else when no other applies. */
static int w4_applies(const struct sg_choice *ch)
{
    return sg_routines[ch->c->routine].knows == SG_KNOWS_ALL &&
           sg_w4_applies(ch->v->entry, ch->sh);
}

static int w4_measured_faster(const struct sg_choice *ch)
{
    const struct sg_bound_entry *e = ch->v->entry;
    return e != NULL && e->avoid_seconds[0] != '\0' && e->workaround_seconds[0] != '\0' &&
           strtod(e->avoid_seconds, NULL) < strtod(e->workaround_seconds, NULL);
}

static enum sg_unavailable w4_unavailable(const struct sg_choice *ch, char *why, size_t size)
{
    const struct sg_bound_entry *e = ch->v->entry;
    const char *words = e == NULL || e->avoid_count == 0 ? "the entry has no avoid_with"
                        : sg_routines[ch->c->routine].knows != SG_KNOWS_ALL
                            ? "its ranks do not all see the whole call"
                        : ch->sh->procs != e->procs ? "it was checked at another P"
                                                    : "the call lies past what was checked, "
                                                      "or its variables cannot be set (said at "
                                                      "MPI_Init)";
    snprintf(why, size, "n=%" PRIu64 ", s=%" PRIu64 ", P=%d: %s", ch->sh->n, ch->sh->s,
             (int)ch->sh->procs, words);
    return SG_UNAVAILABLE_CANNOT_APPLY;
}

static int run_w4(struct sg_runner *runner, const struct sg_call *c, const struct sg_run_with *r)
{
    return sg_w4(runner, c, r->v->entry);
}

static void refused_w4(char *words, size_t size, const struct sg_call *c,
                       const struct sg_run_with *r)
{
    (void)c;
    (void)r;
    snprintf(words, size, "could not set its control variables");
}

static void how_w4(char *how, size_t size, const struct sg_call *c, const struct sg_run_with *r)
{
    (void)c;
    snprintf(how, size, "W4 (%s)", sg_w4_settings(r->v->entry));
}

const struct sg_workaround_op sg_w4_op = {
    .name = SG_WORKAROUND_W4, .kind = SG_PLAN_W4, .first = w4_measured_faster,
    .applies = w4_applies, .plan = sg_one_call_plan, .unavailable = w4_unavailable,
    .run = run_w4, .refused = refused_w4, .how = how_w4};
