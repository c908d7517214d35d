/* Detectors G and X (paper Table VIII) with saturating arithmetic. */
#include "detectors.h"

#include <string.h>

static const char *const trigger_names[] = {
    [SG_TRIGGER_SNP] = "snP", [SG_TRIGGER_NP] = "nP", [SG_TRIGGER_SN] = "sn", [SG_TRIGGER_N] = "n"};

const char *sg_trigger_name(enum sg_trigger trigger) { return trigger_names[trigger]; }

int sg_trigger_parse(const char *text, enum sg_trigger *trigger)
{
    for (int t = SG_TRIGGER_SNP; t <= SG_TRIGGER_N; t++)
        if (strcmp(text, trigger_names[t]) == 0) {
            *trigger = (enum sg_trigger)t;
            return 0;
        }
    return -1;
}

static uint64_t saturating_product(uint64_t a, uint64_t b)
{
    uint64_t product;
    return __builtin_mul_overflow(a, b, &product) ? UINT64_MAX : product;
}

/* The factor the trigger form multiplies n by: s*P, P, s or 1. */
static uint64_t trigger_factor(enum sg_trigger trigger, uint64_t s, uint64_t procs)
{
    switch (trigger) {
    case SG_TRIGGER_SNP: return saturating_product(s, procs);
    case SG_TRIGGER_NP: return procs;
    case SG_TRIGGER_SN: return s;
    case SG_TRIGGER_N: break;
    }
    return 1;
}

uint64_t sg_trigger_value(enum sg_trigger trigger, uint64_t s, uint64_t n, uint64_t procs)
{
    return saturating_product(trigger_factor(trigger, s, procs), n);
}

int sg_trigger_exceeds(enum sg_trigger trigger, uint64_t s, uint64_t n, uint64_t procs,
                       uint64_t bound)
{
    /* A saturated value is larger than any bound below UINT64_MAX; a bound of
     * UINT64_MAX itself cannot be exceeded, which is the intent of "no bound". */
    return sg_trigger_value(trigger, s, n, procs) > bound;
}

int sg_trigger_depends_on_type_size(enum sg_trigger trigger)
{
    return trigger == SG_TRIGGER_SNP || trigger == SG_TRIGGER_SN;
}

uint64_t sg_trigger_max_count(enum sg_trigger trigger, uint64_t s, uint64_t procs,
                              uint64_t bound)
{
    uint64_t factor = trigger_factor(trigger, s, procs);
    if (factor == 0 || bound == UINT64_MAX)
        return UINT64_MAX; /* s or P of 0, or no bound: nothing to exceed */
    /* A saturated factor is a lower estimate of the real one: even n = 1
     * exceeds the bound. */
    return factor == UINT64_MAX ? 0 : bound / factor;
}

uint64_t sg_trigger_max_procs(enum sg_trigger trigger, uint64_t s, uint64_t n, uint64_t bound)
{
    if (bound == UINT64_MAX)
        return UINT64_MAX; /* a saturated value never exceeds it */
    if (trigger == SG_TRIGGER_SN || trigger == SG_TRIGGER_N)
        return sg_trigger_exceeds(trigger, s, n, 1, bound) ? 0 : UINT64_MAX;
    /* snP and nP: the value is P times s*n (resp. n) */
    uint64_t per_process = trigger == SG_TRIGGER_SNP ? saturating_product(s, n) : n;
    if (per_process == 0)
        return UINT64_MAX;
    return per_process == UINT64_MAX ? 0 : bound / per_process;
}

uint64_t sg_x_effective_bound(uint64_t bound, uint64_t measured_s, uint64_t measured_procs,
                              uint64_t s, uint64_t procs, int *exact)
{
    if (exact)
        *exact = s == measured_s && procs == measured_procs;
    unsigned __int128 effective = bound;
    if (s > measured_s)
        effective = effective * measured_s / s;
    if (procs > measured_procs)
        effective = effective * measured_procs / procs;
    return (uint64_t)effective; /* never above `bound`, so it fits */
}

int sg_x_exceeds(uint64_t bound, uint64_t measured_s, uint64_t measured_procs, uint64_t s,
                 uint64_t n, uint64_t procs)
{
    return n > sg_x_effective_bound(bound, measured_s, measured_procs, s, procs, NULL);
}
