/* libsg_forward.so: interposition alone, the floor under libscaleguard.so's
 * hot path. Preloaded in its place, each of the 32 collectives calls its
 * PMPI_* function with the application's arguments, as the layer's wrapper
 * does for a routine that nothing can trigger (sg_passes)
 * (scripts/bench-protect.sh, case `floor`). */
#include "collective.h"

static int forward(struct sg_call *c) { return sg_call_invoke(&sg_pmpi, c); }

#define SG_WRAPPER_HANDLER forward
#define SG_WRAPPER_PASSES_AT_ENTRY(call) 1
#define SG_WRAPPER_PASSES(call) 1
SG_COLLECTIVES(SG_DEFINE_PASSING_WRAPPER)
