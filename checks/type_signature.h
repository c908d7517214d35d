/* The type signature of an MPI datatype as a hash tuple (signature.h). */
#ifndef SCALEGUARD_TYPE_SIGNATURE_H
#define SCALEGUARD_TYPE_SIGNATURE_H

#include "signature.h"

#include <mpi.h>

/* `type`'s signature: each predefined datatype a basic one of its own (the
 * pairs such as MPI_FLOAT_INT two), a derived one decoded once and cached
 * on it. The same on every rank for the same signature, whatever the
 * datatype's layout. Returns an MPI error code. */
int sg_type_signature(MPI_Datatype type, struct sg_signature *sig);

#endif
