/* The control variables of the fingerprint, read from the running MPI
 * (read_cvars.h). */
#include "read_cvars.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The category holding each MPI's collectives' variables (read_cvars.h). */
static const struct {
    const char *category, *rule;
} rules[] = {
    {"COLLECTIVE", "MPI_T category COLLECTIVE, without *_verbose"},
    {"ompi_coll", "MPI_T category ompi_coll and its subcategories, without *_verbose"},
};

static int category_named(const char *wanted)
{
    int count = 0;
    if (MPI_T_category_get_num(&count) != MPI_SUCCESS)
        return -1;
    for (int c = 0; c < count; c++) {
        char name[256];
        int name_length = sizeof name, desc_length = 0, cvars, pvars, categories;
        if (MPI_T_category_get_info(c, name, &name_length, NULL, &desc_length, &cvars, &pvars,
                                    &categories) == MPI_SUCCESS &&
            strcmp(name, wanted) == 0)
            return c;
    }
    return -1;
}

/* Marks the variables of category `c` and its subcategories in `chosen`
 * (`visited`: categories already seen; Open MPI lists one twice). */
static void choose(int c, char *chosen, int cvar_count, char *visited, int category_count)
{
    char name[256];
    int name_length = sizeof name, desc_length = 0, cvars = 0, pvars = 0, categories = 0;
    if (c < 0 || c >= category_count || visited[c] ||
        MPI_T_category_get_info(c, name, &name_length, NULL, &desc_length, &cvars, &pvars,
                                &categories) != MPI_SUCCESS)
        return;
    visited[c] = 1;
    int *indices = malloc((size_t)(cvars > categories ? cvars : categories) * sizeof *indices + 1);
    if (indices == NULL)
        return;
    if (cvars > 0 && MPI_T_category_get_cvars(c, cvars, indices) == MPI_SUCCESS)
        for (int i = 0; i < cvars; i++)
            if (indices[i] >= 0 && indices[i] < cvar_count)
                chosen[indices[i]] = 1;
    if (categories > 0 && MPI_T_category_get_categories(c, categories, indices) == MPI_SUCCESS)
        for (int i = 0; i < categories; i++) /* each call has its own `indices` */
            choose(indices[i], chosen, cvar_count, visited, category_count);
    free(indices);
}

/* Text that reads back unchanged from an INI line: no control character,
 * no ';', no blanks at either end; cut to fit. */
static void as_ini_value(char *out, size_t size, const char *text)
{
    while (*text == ' ' || *text == '\t')
        text++;
    size_t n = 0;
    for (; text[n] && n + 1 < size; n++)
        out[n] = (unsigned char)text[n] < 0x20 || text[n] == 0x7f ? '?'
                 : text[n] == ';'                                ? ':'
                                                                 : text[n];
    while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\t'))
        n--;
    out[n] = '\0';
}

/* Variable `index` as text into `value`; -1 where it is left out. */
static int read_value(int index, MPI_Datatype type, char *value, size_t size)
{
    MPI_T_cvar_handle handle;
    int elements = 0;
    if (MPI_T_cvar_handle_alloc(index, NULL, &handle, &elements) != MPI_SUCCESS)
        return -1;
    int status = -1;
    union {
        int i;
        unsigned u;
        unsigned long ul;
        unsigned long long ull;
        MPI_Count c;
        double d;
        char text[4096];
    } v;
    memset(&v, 0, sizeof v);
    int is_string = type == MPI_CHAR;
    if ((is_string ? elements < (int)sizeof v.text : elements == 1) &&
        MPI_T_cvar_read(handle, &v) == MPI_SUCCESS) {
        char text[64];
        status = 0;
        if (is_string) {
            v.text[sizeof v.text - 1] = '\0';
            as_ini_value(value, size, v.text);
        } else {
            if (type == MPI_INT)
                snprintf(text, sizeof text, "%d", v.i);
            else if (type == MPI_UNSIGNED)
                snprintf(text, sizeof text, "%u", v.u);
            else if (type == MPI_UNSIGNED_LONG)
                snprintf(text, sizeof text, "%lu", v.ul);
            else if (type == MPI_UNSIGNED_LONG_LONG)
                snprintf(text, sizeof text, "%llu", v.ull);
            else if (type == MPI_COUNT)
                snprintf(text, sizeof text, "%lld", (long long)v.c);
            else if (type == MPI_DOUBLE)
                snprintf(text, sizeof text, "%.17g", v.d);
            else if (type == MPI_C_BOOL) /* Open MPI's booleans */
                snprintf(text, sizeof text, "%d", v.text[0] != 0);
            else
                status = -1;
            if (status == 0)
                as_ini_value(value, size, text);
        }
    }
    MPI_T_cvar_handle_free(&handle);
    return status;
}

static int ends_with(const char *text, const char *tail)
{
    size_t n = strlen(text), m = strlen(tail);
    return n >= m && strcmp(text + n - m, tail) == 0;
}

int sg_cvars_read(struct sg_cvars_read *out, char *why, size_t why_size)
{
    *out = (struct sg_cvars_read){0};
    int category = -1, category_count = 0, cvar_count = 0;
    size_t r = 0;
    for (; r < sizeof rules / sizeof *rules && category < 0; r++)
        category = category_named(rules[r].category);
    if (category < 0) {
        snprintf(out->rule, sizeof out->rule,
                 "none: the MPI has no MPI_T category COLLECTIVE or ompi_coll");
        return 0;
    }
    snprintf(out->rule, sizeof out->rule, "%s", rules[r - 1].rule);
    if (MPI_T_category_get_num(&category_count) != MPI_SUCCESS ||
        MPI_T_cvar_get_num(&cvar_count) != MPI_SUCCESS) {
        snprintf(why, why_size, "MPI_T_category_get_num or MPI_T_cvar_get_num failed");
        return -1;
    }
    char *chosen = calloc((size_t)cvar_count + 1, 1), *visited = calloc((size_t)category_count + 1, 1);
    out->cvars = calloc((size_t)cvar_count + 1, sizeof *out->cvars);
    if (chosen == NULL || visited == NULL || out->cvars == NULL) {
        free(chosen), free(visited), free(out->cvars);
        out->cvars = NULL;
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    choose(category, chosen, cvar_count, visited, category_count);
    for (int i = 0; i < cvar_count; i++) {
        char name[256];
        int name_length = sizeof name, desc_length = 0, verbosity, bind, scope;
        MPI_Datatype type;
        MPI_T_enum enumtype;
        struct sg_cvar *c = &out->cvars[out->count];
        if (!chosen[i] ||
            MPI_T_cvar_get_info(i, name, &name_length, &verbosity, &type, &enumtype, NULL,
                                &desc_length, &bind, &scope) != MPI_SUCCESS ||
            bind != MPI_T_BIND_NO_OBJECT || ends_with(name, "_verbose") ||
            !sg_cvar_name_valid(name))
            continue;
        if (read_value(i, type, c->value, sizeof c->value) != 0)
            continue;
        snprintf(c->name, sizeof c->name, "%s", name);
        out->count++;
    }
    free(chosen);
    free(visited);
    return 0;
}
