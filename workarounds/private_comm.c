/* The private copy of a communicator: see private_comm.h. */
#include "private_comm.h"

#include <stdlib.h>

/* MPI_COMM_WORLD's copy, once made (at MPI_Init where a routine's rules
 * need it): the hot path's look-up without an attribute query. */
static _Atomic(MPI_Comm) world_copy = MPI_COMM_NULL;

static int delete_copy(MPI_Comm parent, int keyval, void *value, void *extra)
{
    (void)keyval;
    (void)extra;
    /* Open MPI deletes MPI_COMM_WORLD's attributes when MPI_Finalized
     * already says 1: no MPI call then, MPI reclaims the communicator. */
    int finalized = 0;
    PMPI_Finalized(&finalized);
    MPI_Comm *copy = value;
    if (parent == MPI_COMM_WORLD)
        atomic_store(&world_copy, MPI_COMM_NULL);
    if (!finalized)
        PMPI_Comm_free(copy);
    free(copy);
    return MPI_SUCCESS;
}

static atomic_int keyval = MPI_KEYVAL_INVALID;

int sg_private_comm(MPI_Comm parent, MPI_Comm *copy)
{
    if (parent == MPI_COMM_WORLD && (*copy = atomic_load(&world_copy)) != MPI_COMM_NULL)
        return MPI_SUCCESS;
    int k, found = 0;
    MPI_Comm *cached;
    int err = sg_cache_keyval(&keyval, delete_copy, &k);
    if (err == MPI_SUCCESS)
        err = PMPI_Comm_get_attr(parent, k, &cached, &found);
    if (err != MPI_SUCCESS)
        return err;
    if (found) {
        *copy = *cached;
        return MPI_SUCCESS;
    }
    if ((cached = malloc(sizeof *cached)) == NULL)
        return MPI_ERR_NO_MEM;
    /* MPI_Comm_create over the whole group, not MPI_Comm_dup: no attribute
     * of the application's is copied (and no copy callback runs). */
    MPI_Group group;
    err = PMPI_Comm_group(parent, &group);
    if (err == MPI_SUCCESS) {
        err = PMPI_Comm_create(parent, group, cached);
        PMPI_Group_free(&group);
    }
    if (err == MPI_SUCCESS && (err = PMPI_Comm_set_attr(parent, k, cached)) != MPI_SUCCESS)
        PMPI_Comm_free(cached);
    if (err != MPI_SUCCESS) {
        free(cached);
        return err;
    }
    *copy = *cached;
    if (parent == MPI_COMM_WORLD)
        atomic_store(&world_copy, *copy);
    return MPI_SUCCESS;
}
