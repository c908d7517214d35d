/* Fuzz the bounds INI loader: whatever the bytes, it must not crash or leak,
 * and what it accepts must satisfy the schema the protection layer relies on. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ignore(void *context, const char *message)
{
    (void)context;
    (void)message;
}

static void check_platform(const struct sg_platform *p)
{
    if (strnlen(p->mpi_library, sizeof p->mpi_library) == sizeof p->mpi_library ||
        strnlen(p->hostname, sizeof p->hostname) == sizeof p->hostname ||
        strnlen(p->measured, sizeof p->measured) == sizeof p->measured)
        abort(); /* unterminated */
    if (p->launcher[0] && strcmp(p->launcher, "local") != 0 && strcmp(p->launcher, "slurm") != 0)
        abort();
    if (p->cvars_digest[0] &&
        (strlen(p->cvars_digest) != 16 || strspn(p->cvars_digest, "0123456789abcdef") != 16))
        abort();
}

/* [cvars]: valid names, values that fit, none twice, in file order. */
static void check_cvars(const struct sg_bounds *b)
{
    for (size_t i = 0; i < b->cvar_count; i++) {
        const struct sg_cvar *c = &b->cvars[i];
        if (!sg_cvar_name_valid(c->name) || strnlen(c->value, sizeof c->value) == sizeof c->value)
            abort();
        for (size_t j = 0; j < i; j++)
            if (strcmp(b->cvars[j].name, c->name) == 0 || b->cvars[j].line >= c->line)
                abort();
    }
}

/* "" (absent), or digits, then optionally '.' and 1 to 9 digits */
static void check_seconds(const char *seconds)
{
    size_t whole = strspn(seconds, "0123456789");
    const char *fraction = seconds[whole] == '.' ? seconds + whole + 1 : NULL;
    size_t digits = fraction ? strspn(fraction, "0123456789") : 0;
    if (seconds[0] == '\0')
        return;
    if (whole == 0 || (fraction ? digits < 1 || digits > 9 || fraction[digits] : seconds[whole]))
        abort();
}

static void check_entry(const struct sg_bound_entry *e)
{
    if ((unsigned)e->routine >= SG_ROUTINE_COUNT || e->ordinal < 1 || e->line < 1)
        abort();
    if (e->failure > SG_FAILURE_SLOW || e->workaround > SG_WORKAROUND_NONE)
        abort();
    if ((e->inplace != 0 && e->inplace != 1) ||
        (e->inplace && (e->routine == SG_MPI_Bcast || e->routine == SG_MPI_Ibcast)))
        abort(); /* Bcast has no in-place form */
    check_seconds(e->safe_seconds);
    check_seconds(e->fail_seconds);
    if (e->nodes == 0 || (e->procs && e->nodes > e->procs))
        abort(); /* 1 when absent; a node holds one rank or more */
    switch (e->cls) {
    case SG_CLASS_D:
        if (!sg_routines[e->routine].irregular || e->bound != 0)
            abort();
        break;
    case SG_CLASS_G:
        if (e->bound == 0 || e->trigger > SG_TRIGGER_N)
            abort();
        if (e->type_size && e->procs &&
            sg_trigger_value(e->trigger, e->type_size, e->safe_count, e->procs) > e->bound)
            abort(); /* the safe count itself would trigger */
        break;
    case SG_CLASS_X:
        if (e->bound == 0 || e->type_size == 0 || e->procs == 0 || e->trigger != SG_TRIGGER_N ||
            e->safe_count > e->bound)
            abort();
        break;
    default: abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sg_bounds bounds;
    char error[256] = "";
    if (sg_bounds_load_text((const char *)data, size, "fuzz.ini", &bounds, ignore, NULL, error,
                            sizeof error) != 0) {
        if (bounds.entries != NULL || bounds.count != 0 || bounds.cvars != NULL ||
            bounds.cvar_count != 0 || error[0] == '\0')
            abort(); /* a failure leaves the bounds empty and says why */
        return 0;
    }
    check_platform(&bounds.platform);
    check_cvars(&bounds);
    for (size_t i = 0; i < bounds.count; i++) {
        const struct sg_bound_entry *e = &bounds.entries[i];
        check_entry(e);
        if (i > 0 && e->line <= bounds.entries[i - 1].line)
            abort(); /* entries keep file order */
        for (size_t j = 0; j < i; j++)
            if (bounds.entries[j].routine == e->routine && bounds.entries[j].ordinal == e->ordinal)
                abort(); /* duplicate sections are refused */
    }
    sg_bounds_free(&bounds);
    return 0;
}
