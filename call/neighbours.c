/* A communicator's neighbours: see neighbours.h. */
#include "neighbours.h"

#include <stdint.h>
#include <stdlib.h>

#include "comm_cache.h"

struct held {
    struct sg_neighbours n;
    int ranks[]; /* sources, then destinations */
};

static int delete_neighbours(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    free(value);
    return MPI_SUCCESS;
}

static struct held *held_of(int in, int out)
{
    struct held *h = malloc(sizeof *h + (size_t)(in + out + 1) * sizeof *h->ranks);
    if (h != NULL)
        h->n = (struct sg_neighbours){.in = in, .out = out, .most = in > out ? in : out,
                                      .sources = h->ranks, .destinations = h->ranks + in};
    return h;
}

/* Each dimension's -1 then +1 neighbour, both ways alike. */
static struct held *cartesian(MPI_Comm comm)
{
    int dims;
    if (PMPI_Cartdim_get(comm, &dims) != MPI_SUCCESS)
        return NULL;
    struct held *h = held_of(2 * dims, 2 * dims);
    for (int d = 0; h != NULL && d < dims; d++) {
        int *in = h->ranks + 2 * d, *out = h->ranks + 2 * dims + 2 * d;
        if (PMPI_Cart_shift(comm, d, 1, &in[0], &in[1]) != MPI_SUCCESS) {
            free(h);
            return NULL;
        }
        out[0] = in[0];
        out[1] = in[1];
    }
    return h;
}

/* The same neighbours both ways; every rank holds the whole graph, so the
 * most any rank has is known here. */
static struct held *graph(MPI_Comm comm)
{
    int rank, degree, nodes, edges;
    if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS ||
        PMPI_Graph_neighbors_count(comm, rank, &degree) != MPI_SUCCESS ||
        PMPI_Graphdims_get(comm, &nodes, &edges) != MPI_SUCCESS)
        return NULL;
    struct held *h = held_of(degree, degree);
    int *index = malloc((size_t)(nodes + 1) * sizeof *index);
    int *all = malloc((size_t)(edges + 1) * sizeof *all);
    int ok = h != NULL && index != NULL && all != NULL &&
             PMPI_Graph_neighbors(comm, rank, degree, h->ranks) == MPI_SUCCESS &&
             PMPI_Graph_get(comm, nodes, edges, index, all) == MPI_SUCCESS;
    for (int i = 0; ok && i < degree; i++)
        h->ranks[degree + i] = h->ranks[i];
    for (int i = 0; ok && i < nodes; i++) {
        int of_node = index[i] - (i > 0 ? index[i - 1] : 0);
        h->n.most = of_node > h->n.most ? of_node : h->n.most;
    }
    free(index);
    free(all);
    if (!ok) {
        free(h);
        return NULL;
    }
    return h;
}

static struct held *distributed_graph(MPI_Comm comm)
{
    int in, out, weighted;
    if (PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted) != MPI_SUCCESS)
        return NULL;
    struct held *h = held_of(in, out);
    int *weights = weighted ? malloc((size_t)(in + out + 1) * sizeof *weights) : NULL;
    int ok = h != NULL && (!weighted || weights != NULL) &&
             PMPI_Dist_graph_neighbors(comm, in, h->ranks, weighted ? weights : MPI_UNWEIGHTED,
                                       out, h->ranks + in,
                                       weighted ? weights + in : MPI_UNWEIGHTED) == MPI_SUCCESS;
    free(weights);
    /* every rank takes part, also one that failed above */
    int mine = h != NULL ? h->n.most : 0, most = 0;
    ok = PMPI_Allreduce(&mine, &most, 1, MPI_INT, MPI_MAX, comm) == MPI_SUCCESS && ok;
    if (!ok) {
        free(h);
        return NULL;
    }
    h->n.most = most;
    return h;
}

static atomic_int keyval = MPI_KEYVAL_INVALID;

const struct sg_neighbours *sg_comm_neighbours(MPI_Comm comm)
{
    int k, found = 0, kind;
    void *cached;
    if (sg_cache_keyval(&keyval, delete_neighbours, &k) != MPI_SUCCESS ||
        PMPI_Comm_get_attr(comm, k, &cached, &found) != MPI_SUCCESS)
        return NULL;
    if (found)
        return &((struct held *)cached)->n;
    if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS)
        return NULL;
    struct held *h = kind == MPI_CART         ? cartesian(comm)
                     : kind == MPI_GRAPH      ? graph(comm)
                     : kind == MPI_DIST_GRAPH ? distributed_graph(comm)
                                              : NULL;
    if (h == NULL || PMPI_Comm_set_attr(comm, k, h) != MPI_SUCCESS) {
        free(h);
        return NULL;
    }
    return &h->n;
}
