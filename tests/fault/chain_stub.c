/* A stand-in for libscaleguard.so in tests: a PMPI layer that forwards every
 * MPI_* collective to PMPI_*, linked with its own (exported) copy of
 * sg_collective as a real layer is. Preloaded before libsgfault.so it proves
 * that the sub-calls of a layer above reach the fault library, and that the
 * two copies of sg_collective do not resolve to each other. */
#include "collective.h"

static int forward(const struct sg_call *c) { return sg_call_invoke(&sg_pmpi, c); }

#define SG_WRAPPER_HANDLER forward
SG_COLLECTIVES(SG_DEFINE_WRAPPER)
