/* The scaling-problem detectors of the paper (Table VIII) and the Table IX
 * classifier. Pure C11, no MPI: every quantity is a plain integer, and every
 * product is computed without overflow (s*n*P can exceed 2^64). */
#ifndef SCALEGUARD_DETECTORS_H
#define SCALEGUARD_DETECTORS_H

#include <stddef.h>
#include <stdint.h>

/* ---- Class D: corrupted displacement arrays ------------------------------ */

enum sg_displs_status {
    SG_DISPLS_INTACT,        /* no negative entry and no descent: use as is */
    SG_DISPLS_RECOVERED,     /* wrapped; the intended layout was recovered  */
    SG_DISPLS_UNRECOVERABLE, /* suspicious, but no plausible layout: leave it */
};

struct sg_displs_report {
    enum sg_displs_status status;
    size_t index;       /* first entry that is corrupted or implausible */
    const char *reason; /* static text for UNRECOVERABLE, else NULL */
};

/* One cheap pass: does any entry with a non-zero count lie below zero or
 * below the previous entry with a non-zero count? Blocks of zero elements
 * move no data, so their displacements are ignored throughout. */
static inline int sg_displs_suspicious(const int *counts, const int *displs, size_t n)
{
    int previous = 0; /* the first non-empty block may start anywhere >= 0 */
    for (size_t i = 0; i < n; i++) {
        if (counts[i] == 0)
            continue;
        if (displs[i] < previous)
            return 1;
        previous = displs[i];
    }
    return 0;
}

/* Classify `displs` and, unless UNRECOVERABLE, write the intended 64-bit
 * displacements to `intended` (n entries; zero-count entries are copied
 * unchanged). A layout is accepted only if, in the recovered form, every
 * non-empty block starts at or after the end of the previous one and the gap
 * between them stays below 2^31, which no wrapped int can fake. */
struct sg_displs_report sg_displs_recover(const int *counts, const int *displs, size_t n,
                                          int64_t *intended);

/* The same where block i spans spans[i] units from its displacement rather
 * than counts[i] (Alltoallw: displacements in bytes, each block counts[i]
 * elements of its own datatype, so spans[i] = counts[i] times that type's
 * extent); counts[i] == 0 still marks an empty block. A block of 2^32
 * units or more cannot be told from a wrap: UNRECOVERABLE. */
struct sg_displs_report sg_displs_recover_spans(const int *counts, const int64_t *spans,
                                                const int *displs, size_t n, int64_t *intended);

/* ---- Class G: the global buffer is too large ---------------------------- */

enum sg_trigger { SG_TRIGGER_SNP, SG_TRIGGER_NP, SG_TRIGGER_SN, SG_TRIGGER_N };

/* "snP", "nP", "sn", "n"; the parse returns -1 for anything else. */
const char *sg_trigger_name(enum sg_trigger trigger);
int sg_trigger_parse(const char *text, enum sg_trigger *trigger);

/* The quantity the trigger form measures, saturated at UINT64_MAX. */
uint64_t sg_trigger_value(enum sg_trigger trigger, uint64_t s, uint64_t n, uint64_t procs);

/* Detector G: the trigger value exceeds the bound. */
int sg_trigger_exceeds(enum sg_trigger trigger, uint64_t s, uint64_t n, uint64_t procs,
                       uint64_t bound);

/* Whether the form scales with the datatype size s: W2 (big datatypes) only
 * helps against forms that do not (n, nP). */
int sg_trigger_depends_on_type_size(enum sg_trigger trigger);

/* The largest n that does not trigger at (s, P): what a workaround may put in
 * one sub-call. 0 when even n = 1 triggers. n exceeds it exactly where
 * sg_trigger_exceeds says so (which needs no division). */
uint64_t sg_trigger_max_count(enum sg_trigger trigger, uint64_t s, uint64_t procs,
                              uint64_t bound);

/* The largest P that does not trigger at (s, n): how many processes (the
 * root included) W1-A may put in one sub-call. UINT64_MAX when P does not
 * matter (forms sn and n under the bound, n or s of 0, or a bound of
 * UINT64_MAX); 0 when even P = 1 triggers. */
uint64_t sg_trigger_max_procs(enum sg_trigger trigger, uint64_t s, uint64_t n, uint64_t bound);

/* ---- Class X: no general form ------------------------------------------- */

/* A Class X bound holds n <= bound at the (s, P) it was measured at. At any
 * other (s, P) nothing is known, so the policy is the conservative one: the
 * bound is the smallest that any of the four Class G forms through the
 * measured point would allow, i.e.
 *     bound * min(1, s_x/s) * min(1, P_x/P)   (rounded down).
 * Larger s or P shrink the bound in proportion; smaller s or P never grow it.
 * `exact` tells the caller whether (s, P) is the measured point (so it can
 * warn when it is not). */
uint64_t sg_x_effective_bound(uint64_t bound, uint64_t measured_s, uint64_t measured_procs,
                              uint64_t s, uint64_t procs, int *exact);
int sg_x_exceeds(uint64_t bound, uint64_t measured_s, uint64_t measured_procs, uint64_t s,
                 uint64_t n, uint64_t procs);

/* ---- Table IX: classify a problem found at (s, P) ----------------------- */

/* What verification found at (s, 2P) or (2s, P), relative to n_s at (s, P). */
enum sg_verdict {
    SG_VERDICT_HALF,    /* passes at n_s/2, fails at (n_s+delta)/2 */
    SG_VERDICT_SAME,    /* passes at n_s, fails at n_s+delta */
    SG_VERDICT_NEITHER, /* anything else */
};

const char *sg_verdict_name(enum sg_verdict verdict);

/* The verdict from the four verification runs, in the paper's order: first
 * the half pair, then the same pair. */
enum sg_verdict sg_verdict_from_runs(int passes_at_half, int fails_above_half, int passes_at_safe,
                                     int fails_above_safe);

/* The verdict for a safe bound measured there directly (tests, reports). */
enum sg_verdict sg_verdict_from_bound(uint64_t safe_count, uint64_t delta,
                                      uint64_t measured_safe_count);

/* The classes of scaling problems, ROW(NAME, bounded, scales, from_displs)
 * each; what every user asks of a class it reads from its row:
 *   bounded      an entry of the class has a bound the tester measured, which
 *                a call's n, s and P are judged against (G, X); without one
 *                (D) the call's own arrays tell
 *   scales       its bound, in its trigger's form, holds at every s and P (G:
 *                the layer may cut a call's n or its groups' P under it);
 *                otherwise it holds at the s and P it was measured at only
 *                (X: applied elsewhere in its most restrictive form)
 *   from_displs  it is found in a call's displacement arrays, which wrapped
 *                past int (D): this rank's own facts, with no bound
 * A class is one row; the INI's `class = NAME` and the layer's summary
 * columns follow. */
#define SG_CLASS_LIST(ROW)                                                                     \
    ROW(D, 0, 0, 1)                                                                            \
    ROW(G, 1, 1, 0)                                                                            \
    ROW(X, 1, 0, 0)

enum sg_class {
#define SG_CLASS_ENUM(name, ...) SG_CLASS_##name,
    SG_CLASS_LIST(SG_CLASS_ENUM)
#undef SG_CLASS_ENUM
    SG_CLASS_COUNT
};

struct sg_class_info {
    const char *name; /* "D" */
    unsigned char bounded, scales, from_displs;
};

extern const struct sg_class_info sg_classes[]; /* SG_CLASS_COUNT rows */

const char *sg_class_name(enum sg_class cls);
int sg_class_parse(const char *text, enum sg_class *cls);

struct sg_classification {
    enum sg_class cls;       /* G or X */
    enum sg_trigger trigger; /* G: the form; X: SG_TRIGGER_N */
    uint64_t bound;          /* B_h: bytes for snP/sn, elements for nP/n */
};

/* Table IX: n_s found at (s, P), then the verdicts at (s, 2P) and (2s, P). */
struct sg_classification sg_classify(uint64_t safe_count, uint64_t s, uint64_t procs,
                                     enum sg_verdict at_double_procs,
                                     enum sg_verdict at_double_type_size);

#endif
