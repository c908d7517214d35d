/* Table IX of the paper (corrected in DESIGN.md): classify a problem from its
 * safe bound at (s, P) and two verifications at (s, 2P) and (2s, P). */
#include "detectors.h"

#include <string.h>

static const char *const verdict_names[] = {
    [SG_VERDICT_HALF] = "half", [SG_VERDICT_SAME] = "same", [SG_VERDICT_NEITHER] = "neither"};

const char *sg_verdict_name(enum sg_verdict verdict) { return verdict_names[verdict]; }

enum sg_verdict sg_verdict_from_runs(int passes_at_half, int fails_above_half, int passes_at_safe,
                                     int fails_above_safe)
{
    if (passes_at_half && fails_above_half)
        return SG_VERDICT_HALF;
    if (passes_at_safe && fails_above_safe)
        return SG_VERDICT_SAME;
    return SG_VERDICT_NEITHER;
}

enum sg_verdict sg_verdict_from_bound(uint64_t safe_count, uint64_t delta,
                                      uint64_t measured_safe_count)
{
    /* The runs the tester makes, answered by a known bound m: a run at n
     * passes exactly when n <= m. */
    uint64_t m = measured_safe_count;
    uint64_t half = safe_count / 2;
    /* (n_s + delta) / 2 without overflow */
    uint64_t above_half = safe_count / 2 + delta / 2 + (safe_count % 2 + delta % 2) / 2;
    uint64_t above_safe = safe_count > UINT64_MAX - delta ? UINT64_MAX : safe_count + delta;
    return sg_verdict_from_runs(half <= m, above_half > m, safe_count <= m, above_safe > m);
}

const struct sg_class_info sg_classes[] = {
#define SG_CLASS_ROW(name, bounded, scales, from_displs) {#name, bounded, scales, from_displs},
    SG_CLASS_LIST(SG_CLASS_ROW)
#undef SG_CLASS_ROW
};
_Static_assert(sizeof sg_classes / sizeof *sg_classes == SG_CLASS_COUNT, "one row per class");

const char *sg_class_name(enum sg_class cls) { return sg_classes[cls].name; }

int sg_class_parse(const char *text, enum sg_class *cls)
{
    for (int c = 0; c < SG_CLASS_COUNT; c++)
        if (strcmp(text, sg_classes[c].name) == 0) {
            *cls = (enum sg_class)c;
            return 0;
        }
    return -1;
}

struct sg_classification sg_classify(uint64_t safe_count, uint64_t s, uint64_t procs,
                                     enum sg_verdict at_double_procs,
                                     enum sg_verdict at_double_type_size)
{
    struct sg_classification result = {SG_CLASS_X, SG_TRIGGER_N, safe_count};
    if (at_double_procs == SG_VERDICT_NEITHER || at_double_type_size == SG_VERDICT_NEITHER)
        return result;

    /* Halving when P doubles means P is in the form, likewise for s. */
    int with_procs = at_double_procs == SG_VERDICT_HALF;
    int with_size = at_double_type_size == SG_VERDICT_HALF;
    result.cls = SG_CLASS_G;
    result.trigger = with_procs ? (with_size ? SG_TRIGGER_SNP : SG_TRIGGER_NP)
                                : (with_size ? SG_TRIGGER_SN : SG_TRIGGER_N);
    /* B_h is the trigger value at the safe bound: the largest that passed. */
    result.bound = sg_trigger_value(result.trigger, s, safe_count, procs);
    return result;
}
