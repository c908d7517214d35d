/* libsg_forward.so: interposition alone, the floor under libscaleguard.so's
 * hot path. Preloaded in its place, each of the 26 collectives packs its
 * arguments into a struct sg_call and calls PMPI through the table, as the
 * layer does when nothing can trigger, without looking at them
 * (scripts/bench-protect.sh, case `floor`). */
#include "collective.h"

static int forward(struct sg_call *c) { return sg_call_invoke(&sg_pmpi, c); }

#define SG_WRAPPER_HANDLER forward
SG_COLLECTIVES(SG_DEFINE_WRAPPER)
