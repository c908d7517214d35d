/* The MPI tool interface (MPI_T) for the trace: the performance variables
 * worth reading after each traced call (`pvar` records) and the MPI 4 events
 * (`event` records, FORMAT.md). Called after MPI_Init and before MPI_Finalize,
 * by one thread at a time.
 *
 * The variables read: those bound to no object or to a communicator (a handle
 * on MPI_COMM_WORLD), of an integer type (MPI_UNSIGNED, MPI_UNSIGNED_LONG,
 * MPI_UNSIGNED_LONG_LONG, MPI_INT, MPI_COUNT) or MPI_DOUBLE, holding one
 * value, or, a communicator's, one value per rank of it, which are summed
 * (Open MPI's ob1 queue lengths: messages queued from all peers in
 * MPI_COMM_WORLD; a read of one costs a step per rank). Open MPI 4.1's
 * mtl_psm2_* variables are never read: their handle allocation crashes unless
 * the PSM2 transport is the one in use. */
#ifndef SCALEGUARD_MPIT_H
#define SCALEGUARD_MPIT_H

/* Starts the tool interface and a performance variable session, finds the
 * variables above and starts those that are not continuous. Returns how many
 * (0 is a normal answer), or -1 when the tool interface cannot start (then
 * the other functions do nothing). */
int sg_mpit_start(void);

/* Reads them all and calls changed(name, value, arg) for each whose value
 * differs from the last read (the first read: each that is not zero). value:
 * an integer, or a decimal with 6 places, without spaces. No allocation. */
void sg_mpit_read_changed(void (*changed)(const char *name, const char *value, void *arg),
                          void *arg);

/* The number of MPI_T event types the MPI exports: 0 without calling the MPI
 * where its mpi.h predates MPI 4 (MPI_VERSION < 4). Registers a callback for
 * each bound to no object, which queues the event with the time it was
 * delivered (seconds since the Epoch, CLOCK_REALTIME); drained in order by
 * sg_mpit_drain_events. After sg_mpit_start. */
int sg_mpit_events_start(void);
void sg_mpit_drain_events(void (*event)(const char *name, double time, void *arg), void *arg);

/* Frees the handles, registrations and session; MPI_T_finalize. */
void sg_mpit_stop(void);

/* How many performance variables the MPI exported at sg_mpit_start, before
 * the choice above (0 when it did not start). */
int sg_mpit_pvars_exported(void);

#endif
