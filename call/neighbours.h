/* The neighbours of a communicator's virtual topology (MPI 4.0, 7.6): whose
 * blocks the sides of a neighbourhood collective hold (routines.h, the rows'
 * `blocks`), found once per communicator and cached on it as an attribute,
 * freed with it. Only the rows of NEIGHBOURS look: the other routines never
 * ask. */
#ifndef SCALEGUARD_NEIGHBOURS_H
#define SCALEGUARD_NEIGHBOURS_H

#include <mpi.h>

struct sg_neighbours {
    int in, out;        /* the receive side's blocks (in-neighbours), the send side's */
    /* The most blocks any rank of the communicator holds on a side, the
     * same on every rank: a neighbourhood's P (README, "The bounds INI").
     * A Cartesian topology's ranks all have 2 per dimension (an
     * MPI_PROC_NULL neighbour included), a graph's ranks each see the
     * whole graph; a distributed graph's ranks learn it in one Allreduce
     * of one int, on the first call that asks. */
    int most;
    const int *sources, *destinations; /* in and out ranks, in the MPI's order */
};

/* The neighbours of intracommunicator `comm`, or NULL where it has no
 * virtual topology (the MPI reports the call) or its neighbours could not
 * be read. The first call on a communicator with a distributed graph is
 * collective over it (every rank asks on the same call: the rooms that
 * read a neighbourhood collective do so on every rank alike). */
const struct sg_neighbours *sg_comm_neighbours(MPI_Comm comm);

#endif
