/* The bounds INI: read with inih, checked against the schema of
 * configs/example.ini, and rewritten one routine at a time.
 *
 * Nothing here aborts or exits: every failure comes back as a return value
 * and a message that names the file and the line. */
#ifndef SCALEGUARD_BOUNDS_H
#define SCALEGUARD_BOUNDS_H

#include <stddef.h>
#include <stdint.h>

#include "cvars.h"
#include "detectors.h"
#include "routines.h"

enum sg_failure {
    SG_FAILURE_UNKNOWN, /* key absent */
    SG_FAILURE_CRASH,
    SG_FAILURE_HANG,
    SG_FAILURE_MPI_ERROR,
    SG_FAILURE_OOM,
    SG_FAILURE_WRONG_DATA,
    SG_FAILURE_SLOW, /* a performance cliff: time per byte jumped more than 10x */
};

/* The workarounds, X(ID, "INI name") each: the names an entry may give
 * (`workaround = NAME`, besides auto and none), the layer's outcomes in its
 * summary and its plans follow from this list (protect/: layer.h, plan.h;
 * what runs each: its row of operations, workarounds/workaround.h, in
 * `auto`'s order in protect.c). */
#define SG_WORKAROUND_LIST(X) \
    X(W1A, "W1-A") X(W1B, "W1-B") X(W2, "W2") X(W3, "W3") X(W4, "W4")

enum sg_workaround {
    SG_WORKAROUND_AUTO,
#define SG_WORKAROUND_ENUM(id, name) SG_WORKAROUND_##id,
    SG_WORKAROUND_LIST(SG_WORKAROUND_ENUM)
#undef SG_WORKAROUND_ENUM
    SG_WORKAROUND_NONE,
};

const char *sg_failure_name(enum sg_failure failure);       /* "crash", ..., "unknown" */
const char *sg_workaround_name(enum sg_workaround workaround); /* "auto", "W1-A", ... */

/* Control variables one avoid_with may set. */
#define SG_AVOID_MAX 4

/* One [MPI_Name] or [MPI_Name#k] section. Optional numbers are 0 when absent. */
struct sg_bound_entry {
    enum sg_routine routine;
    unsigned ordinal;        /* 1 for [MPI_Name], k for [MPI_Name#k] */
    unsigned line;           /* line of the section header */
    enum sg_class cls;
    enum sg_trigger trigger; /* X: SG_TRIGGER_N; D: unused */
    uint64_t bound;          /* G, X: required, > 0; D: 0 */
    uint64_t type_size;      /* s the bound was measured at */
    uint64_t procs;          /* P the bound was measured at */
    uint64_t safe_count;     /* n_s */
    uint64_t delta;          /* the search step */
    enum sg_failure failure;
    enum sg_workaround workaround;
    int inplace;             /* 1: measured on the MPI_IN_PLACE form (example.ini) */
    char safe_seconds[32];   /* one call at safe_count, as written; "" when absent */
    char fail_seconds[32];   /* one call at safe_count + delta, as written; "" when absent */
    /* W4 (G and X): control variables that choose another algorithm of the
     * MPI's, with which the tester checked every byte of the call from
     * safe_count + delta up to avoid_checked (n, as safe_count), one call at
     * safe_count + delta taking avoid_seconds; workaround_seconds is what
     * the layer's other workarounds took there ("" when not measured). */
    struct sg_cvar avoid[SG_AVOID_MAX];
    unsigned avoid_count;
    uint64_t avoid_checked;
    char avoid_seconds[32];
    char workaround_seconds[32];
    /* The nodes the P ranks were spread over when it was measured: 1 where
     * absent (protect/layer.h, sg_rules_at_spread: which entries judge a
     * call on a communicator of another spread). */
    uint64_t nodes;
};

struct sg_platform {
    char mpi_library[256];
    char hostname[256];
    char measured[64];
    char launcher[16];      /* "local" or "slurm"; empty when absent */
    char cvars_rule[128];   /* which control variables [cvars] holds (fingerprint/) */
    char cvars_digest[17];  /* sg_cvars_digest of them, 16 hex digits; "" when absent */
};

/* [checks]: the layer's collective checks, for every job that loads the
 * file (SCALEGUARD_CHECK and SCALEGUARD_CHECK_ACTION override it). A key's
 * line is 0 where it is absent. */
struct sg_checks_config {
    int collectives; /* collectives = yes | no */
    int warn;        /* action = warn | abort */
    unsigned batch;  /* batch = 1 ... 1024 */
    unsigned collectives_line, action_line, batch_line;
};

struct sg_bounds {
    struct sg_platform platform;
    struct sg_checks_config checks;
    struct sg_bound_entry *entries; /* in file order */
    size_t count;
    struct sg_cvar *cvars; /* [cvars], in file order */
    size_t cvar_count;
    /* Sections of no known name, ignored with their keys (warned: a typo
     * such as [MPI_bcast] leaves that routine without an entry). */
    unsigned unknown_sections;
    unsigned first_unknown_section; /* its line; 0: none */
};

/* Called once per warning (unknown key or section), with "file:line: text". */
typedef void sg_bounds_warn_fn(void *context, const char *message);

/* Load `path` into `bounds` (which is reset first). On error returns -1,
 * writes "file:line: what is wrong" to `error` and leaves `bounds` empty.
 * `warn` may be NULL. "Reset" means overwritten, not freed: call
 * sg_bounds_free before loading into a `bounds` that holds entries. When a
 * file has several errors, the one on the earliest line is reported. */
int sg_bounds_load(const char *path, struct sg_bounds *bounds, sg_bounds_warn_fn *warn,
                   void *warn_context, char *error, size_t error_size);

/* The same for text in memory; `name` stands for the file in messages. */
int sg_bounds_load_text(const char *text, size_t length, const char *name,
                        struct sg_bounds *bounds, sg_bounds_warn_fn *warn, void *warn_context,
                        char *error, size_t error_size);

void sg_bounds_free(struct sg_bounds *bounds);

/* Whether the file loaded says nothing: no routine entry, no [checks] key,
 * no [platform] key, no [cvars] (only comments, or unknown sections). */
int sg_bounds_empty(const struct sg_bounds *bounds);

/* Replace every section of `section` (a routine name such as "MPI_Scatter",
 * whose entries [MPI_Scatter], [MPI_Scatter#2], ... all go, "platform" or
 * "cvars", whose keys are any control variables' names)
 * by `entry_count` new sections, the k-th named [section#k] (the first plain
 * [section]), holding `keys[k]` as "key = value" lines, `NULL`-terminated.
 * Each string of `keys[k]` is "key=value" (blanks around '=' allowed); the
 * key must be one of the schema's and the value must read back unchanged.
 * Every other line of the file, comments included, stays as it was; the new
 * sections take the place of the first old one, or go at the end. A missing
 * file is created. The result is validated with sg_bounds_load_text before it
 * replaces the file (atomically, by rename); if it is invalid nothing is
 * written and -1 is returned with the reason in `error`. entry_count 0 just
 * removes the routine. */
int sg_bounds_replace(const char *path, const char *section, const char *const *const *keys,
                      size_t entry_count, char *error, size_t error_size);

#endif
