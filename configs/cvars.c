/* Control variables as a bounds INI holds them (cvars.h). */
#include "cvars.h"

#include <stdlib.h>
#include <string.h>

int sg_cvar_name_valid(const char *name)
{
    size_t length = strlen(name);
    return length > 0 && length < SG_CVAR_NAME_MAX &&
           strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") ==
               length;
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(const struct sg_cvar *const *)a)->name,
                  (*(const struct sg_cvar *const *)b)->name);
}

/* Pointers to them, in the order of their names; NULL when out of memory. */
static const struct sg_cvar **sorted(const struct sg_cvar *cvars, size_t count)
{
    const struct sg_cvar **order = malloc((count ? count : 1) * sizeof *order);
    if (order == NULL)
        return NULL;
    for (size_t i = 0; i < count; i++)
        order[i] = &cvars[i];
    qsort(order, count, sizeof *order, by_name);
    return order;
}

static uint64_t fnv(uint64_t h, const char *text)
{
    for (; *text; text++)
        h = (h ^ (unsigned char)*text) * UINT64_C(1099511628211);
    return h;
}

uint64_t sg_cvars_digest(const struct sg_cvar *cvars, size_t count)
{
    const struct sg_cvar **order = sorted(cvars, count);
    if (order == NULL)
        return 0;
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < count; i++)
        h = fnv(fnv(fnv(fnv(h, order[i]->name), "="), order[i]->value), "\n");
    free(order);
    return h;
}

size_t sg_cvars_compare(const struct sg_cvar *was, size_t was_count, const struct sg_cvar *now,
                        size_t now_count,
                        void (*differ)(const char *name, const char *was, const char *now,
                                       void *arg),
                        void *arg)
{
    const struct sg_cvar **a = sorted(was, was_count), **b = sorted(now, now_count);
    size_t i = 0, j = 0, differing = 0;
    while (a != NULL && b != NULL && (i < was_count || j < now_count)) {
        int order = i == was_count ? 1 : j == now_count ? -1 : strcmp(a[i]->name, b[j]->name);
        if (order < 0) {
            differ(a[i]->name, a[i]->value, NULL, arg);
            differing++, i++;
        } else if (order > 0) {
            differ(b[j]->name, NULL, b[j]->value, arg);
            differing++, j++;
        } else {
            if (strcmp(a[i]->value, b[j]->value) != 0) {
                differ(a[i]->name, a[i]->value, b[j]->value, arg);
                differing++;
            }
            i++, j++;
        }
    }
    free(a);
    free(b);
    return differing;
}
