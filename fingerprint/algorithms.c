/* A collective's algorithms through MPI_T (algorithms.h). */
#include "algorithms.h"

#include <ctype.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "library.h"

/* The name without "MPI_", in upper or lower case. */
static void routine_word(enum sg_routine routine, int upper, char *out, size_t size)
{
    const char *name = sg_routines[routine].name + 4;
    size_t n = 0;
    for (; name[n] && n + 1 < size; n++)
        out[n] = (char)(upper ? toupper((unsigned char)name[n]) : tolower((unsigned char)name[n]));
    out[n] = '\0';
}

static void add(struct sg_algorithms *out, int value, const char *name, size_t length)
{
    if (out->count == SG_ALGORITHMS_MAX)
        return;
    out->items[out->count].value = value;
    snprintf(out->items[out->count].name, sizeof out->items[0].name, "%.*s", (int)length, name);
    out->count++;
}

/* MPICH: "nb - Force nonblocking algorithm": the value runs the routine's
 * I-form, whose own algorithm variable then chooses. The last item added
 * gets it when its text, [text, end), says so. */
static void mark_nonblocking(struct sg_algorithms *out, const char *text, const char *end)
{
    static const char word[] = "nonblocking";
    if (text == NULL || out->count == 0)
        return;
    for (const char *at = text; at + sizeof word - 1 <= end; at++)
        if (strncmp(at, word, sizeof word - 1) == 0) {
            out->items[out->count - 1].runs_nonblocking = 1;
            return;
        }
}

/* MPICH: the items of the description, "... auto - ... binomial - ..."; the
 * generator joined its lines, so a name is the letters, digits and '_'
 * just before " - ", after the end of the previous item's text (a name
 * may run into that text's last word: it is only a label). */
static void mpich_items(const char *description, struct sg_algorithms *out)
{
    int item = 0;
    const char *text = NULL; /* the previous item's text, after its " - " */
    for (const char *dash = strstr(description, " - "); dash; dash = strstr(dash + 3, " - ")) {
        const char *start = dash;
        while (start > description && start[-1] == ' ')
            start--;
        const char *end = start;
        while (start > description && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
            start--;
        mark_nonblocking(out, text, start);
        if (item > 0) /* 0: auto, the MPI's own choice */
            add(out, item, start, (size_t)(end - start));
        text = dash + 3;
        item++;
    }
    mark_nonblocking(out, text, text ? text + strlen(text) : NULL);
}

/* The values of variable `name` (index `index`) as MPI_T describes them:
 * its enumeration, or the items of its description. */
static void values_of(int index, const char *name, struct sg_algorithms *out)
{
    char info_name[256], description[8192];
    int name_length = sizeof info_name, desc_length = sizeof description, verbosity, bind, scope;
    MPI_Datatype type;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    if (MPI_T_cvar_get_info(index, info_name, &name_length, &verbosity, &type, &enumtype,
                            description, &desc_length, &bind, &scope) != MPI_SUCCESS)
        return;
    snprintf(out->cvar, sizeof out->cvar, "%s", name);
    if (enumtype == MPI_T_ENUM_NULL) {
        mpich_items(description, out);
        return;
    }
    int items = 0;
    char enum_name[256];
    int enum_name_length = sizeof enum_name;
    if (MPI_T_enum_get_info(enumtype, &items, enum_name, &enum_name_length) != MPI_SUCCESS)
        return;
    for (int i = 0; i < items; i++) {
        char item[256];
        int item_length = sizeof item, value;
        if (MPI_T_enum_get_item(enumtype, i, &value, item, &item_length) == MPI_SUCCESS &&
            value != 0)
            add(out, value, item, strlen(item));
    }
}

void sg_algorithms_of(enum sg_routine routine, struct sg_algorithms *out)
{
    memset(out, 0, sizeof *out);
    char word[32], name[96];
    int index;
    routine_word(routine, 1, word, sizeof word);
    snprintf(name, sizeof name, "MPIR_CVAR_%s_INTRA_ALGORITHM", word);
    if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS) {
        routine_word(routine, 0, word, sizeof word);
        snprintf(name, sizeof name, "coll_%s_%s_algorithm",
                 sg_is_nonblocking(routine) ? "libnbc" : "tuned", word);
        if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS)
            return;
    }
    values_of(index, name, out);
}

static int has_ending(const char *text, const char *ending)
{
    size_t length = strlen(text), ending_length = strlen(ending);
    return length >= ending_length && strcmp(text + length - ending_length, ending) == 0;
}

int sg_cvar_value_offered(const char *name, int value, char *values, size_t size)
{
    struct sg_algorithms offered;
    int index;
    memset(&offered, 0, sizeof offered);
    snprintf(values, size, "%s", "");
    if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS)
        return 1;
    values_of(index, name, &offered);
    /* MPICH's description lists the values of its algorithm variables only. */
    int listed = offered.count > 0 && (strncmp(name, "MPIR_CVAR_", 10) != 0 ||
                                       has_ending(name, "_ALGORITHM"));
    if (!listed || value == 0)
        return 1;
    for (int i = 0; i < offered.count; i++)
        if (offered.items[i].value == value)
            return 1;
    /* "0-5, 7": 0 (the MPI's own choice) and the items, in ranges */
    size_t used = (size_t)snprintf(values, size, "0");
    int first = 0, last = 0;
    for (int i = 0; i <= offered.count && used < size; i++) {
        int next = i < offered.count ? offered.items[i].value : INT_MIN;
        if (next == last + 1) {
            last = next;
            continue;
        }
        if (last != first)
            used += (size_t)snprintf(values + used, size - used, "-%d", last);
        if (i < offered.count && used < size)
            used += (size_t)snprintf(values + used, size - used, ", %d", next);
        first = last = next;
    }
    return 0;
}

int sg_avoid_values_check(const struct sg_bounds *bounds, const char *path,
                          void (*report)(const char *message))
{
    int provided, refused = 0;
    size_t with = 0;
    for (size_t i = 0; i < bounds->count; i++)
        with += bounds->entries[i].avoid_count;
    if (with == 0 || MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return 0;
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    sg_mpi_library_line(library);
    for (char *c = library; *c; c++)
        *c = *c == '\t' ? ' ' : *c;
    for (size_t i = 0; i < bounds->count; i++) {
        const struct sg_bound_entry *e = &bounds->entries[i];
        for (unsigned k = 0; k < e->avoid_count; k++) {
            char values[128], message[1024];
            const struct sg_cvar *c = &e->avoid[k];
            if (sg_cvar_value_offered(c->name, atoi(c->value), values, sizeof values))
                continue;
            snprintf(message, sizeof message,
                     "%s:%u: avoid_with %s=%s: this MPI (%.120s) takes only %s for %s, so W4 "
                     "cannot run for %s's entry", path, c->line, c->name, c->value, library,
                     values, c->name, sg_routines[e->routine].name);
            report(message);
            refused++;
        }
    }
    MPI_T_finalize();
    return refused;
}

int sg_cvar_per_call(const char *name, const char *value, char *environment,
                     size_t environment_size, char *needed, size_t needed_size)
{
    static const char tuned[] = "coll_tuned_", dynamic[] = "coll_tuned_use_dynamic_rules";
    snprintf(needed, needed_size, "%s", "");
    if (strncmp(name, "MPIR_CVAR_", 10) == 0 || strncmp(name, "coll_libnbc_", 12) == 0)
        return 1;
    if (strncmp(name, tuned, sizeof tuned - 1) == 0) {
        snprintf(needed, needed_size, "%s", dynamic);
        snprintf(environment, environment_size, "OMPI_MCA_%s=1 OMPI_MCA_%s=%s", dynamic, name,
                 value);
    } else if (strncmp(name, "coll_", 5) == 0) {
        snprintf(environment, environment_size, "OMPI_MCA_%s=%s", name, value);
    } else {
        snprintf(environment, environment_size, "%s=%s", name, value);
    }
    return 0;
}
