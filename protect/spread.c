/* A communicator's spread: see spread.h. */
#include "spread.h"

#include <stdint.h>
#include <stdlib.h>

#include "private_comm.h"

/* Set at MPI_Init (sg_spread_prepare_world), read only after it: the nodes
 * of MPI_COMM_WORLD (0: not known), its size (a group member past it is of
 * another world) and, where there are several nodes, the node of each world
 * rank, numbered 0, 1, ... in the order of their first ranks. */
static int world_nodes, world_procs;
static int *node_of;

/* The world rank of the first rank on this rank's node. */
static int first_on_node(MPI_Comm node, int *first)
{
    MPI_Group node_group, world_group;
    int zero = 0, err = PMPI_Comm_group(node, &node_group);
    if (err != MPI_SUCCESS)
        return err;
    if ((err = PMPI_Comm_group(MPI_COMM_WORLD, &world_group)) == MPI_SUCCESS) {
        err = PMPI_Group_translate_ranks(node_group, 1, &zero, world_group, first);
        PMPI_Group_free(&world_group);
    }
    PMPI_Group_free(&node_group);
    return err;
}

int sg_spread_prepare_world(void)
{
    int rank, procs, first = -1;
    MPI_Comm node;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &procs);
    world_procs = procs;
    /* the key orders a node's ranks as in MPI_COMM_WORLD: its first rank
     * there is its rank 0 */
    int err = PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                                   &node);
    if (err == MPI_SUCCESS) {
        err = first_on_node(node, &first);
        PMPI_Comm_free(&node);
    }
    /* every rank takes part in the Allreduce, also one that failed above */
    int *firsts = malloc((size_t)procs * sizeof *firsts);
    int mine[2] = {err == MPI_SUCCESS && first == rank, err != MPI_SUCCESS || firsts == NULL};
    int sums[2];
    err = PMPI_Allreduce(mine, sums, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (err != MPI_SUCCESS || sums[1] > 0 || sums[0] <= 1) { /* failed, or one node */
        free(firsts);
        world_nodes = err == MPI_SUCCESS && sums[1] == 0 ? sums[0] : 0;
        return err;
    }
    err = PMPI_Allgather(&first, 1, MPI_INT, firsts, 1, MPI_INT, MPI_COMM_WORLD);
    if (err != MPI_SUCCESS) {
        free(firsts);
        return err;
    }
    /* A node's first rank comes before its others, so its number is known
     * when they are reached. The same table on every rank: the same answer. */
    int nodes = 0;
    for (int r = 0; r < procs; r++) {
        if (firsts[r] < 0 || firsts[r] > r) { /* not as MPI defines the split */
            free(firsts);
            return MPI_SUCCESS;
        }
        firsts[r] = firsts[r] == r ? nodes++ : firsts[firsts[r]];
    }
    node_of = firsts;
    world_nodes = nodes;
    return MPI_SUCCESS;
}

/* The nodes of the members of `group`, or 0 where one is not of
 * MPI_COMM_WORLD (its world knows its node, this one does not). */
static int nodes_of_group(MPI_Group group)
{
    MPI_Group world;
    int size, spread = 0;
    if (PMPI_Group_size(group, &size) != MPI_SUCCESS ||
        PMPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS)
        return 0;
    int *ranks = malloc((size_t)size * sizeof *ranks);
    int *in_world = malloc((size_t)size * sizeof *in_world);
    unsigned char *seen = calloc((size_t)world_nodes, 1);
    if (ranks != NULL && in_world != NULL && seen != NULL) {
        for (int i = 0; i < size; i++)
            ranks[i] = i;
        if (PMPI_Group_translate_ranks(group, size, ranks, world, in_world) == MPI_SUCCESS) {
            for (int i = 0; i < size; i++) {
                int w = in_world[i];
                if (w < 0 || w >= world_procs) { /* MPI_UNDEFINED: another world's */
                    spread = 0;
                    break;
                }
                int node = node_of != NULL ? node_of[w] : 0;
                spread += !seen[node];
                seen[node] = 1;
            }
        }
    }
    free(ranks);
    free(in_world);
    free(seen);
    PMPI_Group_free(&world);
    return spread;
}

static atomic_int keyval = MPI_KEYVAL_INVALID;

int sg_comm_spread(MPI_Comm comm)
{
    if (world_nodes == 0 || comm == MPI_COMM_WORLD)
        return world_nodes;
    if (comm == MPI_COMM_SELF)
        return 1;
    int inter = 0, k, found = 0;
    void *cached;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
        sg_cache_keyval(&keyval, MPI_COMM_NULL_DELETE_FN, &k) != MPI_SUCCESS ||
        PMPI_Comm_get_attr(comm, k, &cached, &found) != MPI_SUCCESS)
        return 0;
    if (found)
        return (int)(intptr_t)cached;
    MPI_Group group;
    if (PMPI_Comm_group(comm, &group) != MPI_SUCCESS)
        return 0;
    int spread = nodes_of_group(group);
    PMPI_Group_free(&group);
    PMPI_Comm_set_attr(comm, k, (void *)(intptr_t)spread); /* else found again next time */
    return spread;
}
