/* The running MPI against a bounds INI (compare.h). */
#include "compare.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "library.h"
#include "read_cvars.h"

static int tool_started;

/* The library's first line against the measured one (the tester cuts it at
 * 150 characters: a longer one matches by its start). */
static int library_differs(const char *measured, char now[MPI_MAX_LIBRARY_VERSION_STRING])
{
    if (!measured[0])
        return 0;
    sg_mpi_library_line(now);
    if (!now[0])
        return 0;
    size_t cut = strlen(measured);
    return cut >= 150 ? strncmp(now, measured, cut) != 0 : strcmp(now, measured) != 0;
}

struct listing {
    char *text;
    size_t size, used;
    int listed, limit;
    const char *separator;
};

__attribute__((format(printf, 2, 3))) static void append(struct listing *l, const char *format,
                                                           ...)
{
    va_list args;
    va_start(args, format);
    if (l->used + 1 < l->size)
        l->used += (size_t)vsnprintf(l->text + l->used, l->size - l->used, format, args);
    va_end(args);
    if (l->used >= l->size)
        l->used = l->size - 1;
}

static void differ(const char *name, const char *was, const char *now, void *arg)
{
    struct listing *l = arg;
    if (l->listed++ >= l->limit)
        return;
    append(l, "%s%s ", l->used > 0 ? l->separator : "", name);
    if (was == NULL)
        append(l, "is %s, not in the file", now);
    else if (now == NULL)
        append(l, "was %s, not in this MPI", was);
    else
        append(l, "was %s, is %s", was, now);
}

int sg_fingerprint_compare(const struct sg_bounds *bounds, int listed, const char *separator,
                           char *message, size_t size)
{
    struct listing l = {message, size, 0, 0, listed, separator};
    message[0] = '\0';
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    int differing = 0;
    if (library_differs(bounds->platform.mpi_library, library)) {
        append(&l, "the library was \"%s\", is \"%s\"", bounds->platform.mpi_library, library);
        differing++;
    }
    if (bounds->cvar_count == 0)
        return differing;
    int provided;
    if (!tool_started) {
        if (MPI_T_init_thread(MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
            snprintf(message, size, "the MPI tool interface did not start (MPI_T_init_thread)");
            return -1;
        }
        tool_started = 1;
    }
    struct sg_cvars_read now;
    char why[128];
    if (sg_cvars_read(&now, why, sizeof why) != 0) {
        snprintf(message, size, "the control variables could not be read: %s", why);
        return -1;
    }
    /* Another library's variables mostly differ: the library is what matters, so
     * they are only counted after it where they are more than `listed`. */
    if (differing) {
        struct listing count_only = l;
        count_only.limit = 0;
        if (sg_cvars_compare(bounds->cvars, bounds->cvar_count, now.cvars, now.count, differ,
                             &count_only) > (size_t)listed)
            l.limit = 0;
    }
    size_t cvars = sg_cvars_compare(bounds->cvars, bounds->cvar_count, now.cvars, now.count,
                                    differ, &l);
    if (l.limit == 0 && cvars)
        append(&l, "%s%zu control variable%s differ%s too", separator, cvars,
               cvars == 1 ? "" : "s", cvars == 1 ? "s" : "");
    else if (cvars > (size_t)listed)
        append(&l, "%sand %zu more", separator, cvars - (size_t)listed);
    free(now.cvars);
    return differing + (int)cvars;
}

void sg_fingerprint_stop(void)
{
    if (tool_started)
        MPI_T_finalize();
    tool_started = 0;
}
