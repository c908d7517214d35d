/* The attribute keys of the caches on communicators: see comm_cache.h. */
#include "comm_cache.h"

#include <stddef.h>

int sg_cache_keyval(atomic_int *slot, MPI_Comm_delete_attr_function *on_delete, int *out)
{
    int k = atomic_load(slot);
    if (k == MPI_KEYVAL_INVALID) {
        int err = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &k, NULL);
        if (err != MPI_SUCCESS)
            return err;
        int expected = MPI_KEYVAL_INVALID;
        if (!atomic_compare_exchange_strong(slot, &expected, k)) {
            PMPI_Comm_free_keyval(&k); /* another thread was first */
            k = expected;
        }
    }
    *out = k;
    return MPI_SUCCESS;
}
