/* The control variables of a bounds INI's [cvars]: the MPI's settings of
 * its collectives' algorithms where the bounds were measured (the platform
 * fingerprint; fingerprint/ reads them from a running MPI). Their digest,
 * and how two sets differ. No MPI here. */
#ifndef SCALEGUARD_CVARS_H
#define SCALEGUARD_CVARS_H

#include <stddef.h>
#include <stdint.h>

/* A control variable and its value as text (fingerprint/read_cvars.h). A line
 * "name = value" fits an INI line. */
#define SG_CVAR_NAME_MAX 96
#define SG_CVAR_VALUE_MAX 96
struct sg_cvar {
    char name[SG_CVAR_NAME_MAX];
    char value[SG_CVAR_VALUE_MAX];
    unsigned line; /* in its INI; 0 for one read from an MPI */
};

/* Whether `name` can be a control variable's name here: 1 to
 * SG_CVAR_NAME_MAX - 1 of A-Z a-z 0-9 _ . - */
int sg_cvar_name_valid(const char *name);

/* FNV-1a (64 bits) of "name=value\n" for each, in the order of their names
 * (the order given does not matter); 0 when out of memory. */
uint64_t sg_cvars_digest(const struct sg_cvar *cvars, size_t count);

/* Calls differ(name, was, now, arg) for each variable whose value differs
 * between `was` and `now`, in the order of the names: was NULL where only
 * `now` has it, now NULL where only `was` has it. Returns how many differ
 * (0, calling nothing, when out of memory). */
size_t sg_cvars_compare(const struct sg_cvar *was, size_t was_count, const struct sg_cvar *now,
                        size_t now_count,
                        void (*differ)(const char *name, const char *was, const char *now,
                                       void *arg),
                        void *arg);

#endif
