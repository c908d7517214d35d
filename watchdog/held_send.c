/* Potential deadlocks (paper 001): a cycle of standard sends that
 * completes only because the MPI buffers them. MPI-CHECK makes each send
 * wait for a handshake with its receive; here the send itself waits: a
 * small MPI_Send (whose span of memory is at most SG_WATCH_HELD_MAX, where
 * an MPI may buffer it) is made as MPI_Issend of a copy of its data (at the
 * same places in a buffer of that span) and waited for, so the rank stays in MPI_Send until the receive takes it --
 * as a synchronous send, which the standard allows a standard send to be.
 * If that takes past the limit (and the helper has seen it: a cycle is
 * told as a potential deadlock), the send goes on as if buffered: the
 * request is freed, the copy stays for the MPI to read, and this rank
 * holds no more sends (one wait of the limit per rank at most) -- unless
 * a rank is telling a hang and will end the job (action abort), which the
 * send then waits for. The data
 * and the matching are the call's own: the copy has the same datatype
 * over the same span, the envelope is the same. Larger sends go to
 * PMPI_Send: the MPIs send them synchronously anyway (rendezvous), and a
 * cycle of them is an actual deadlock, seen as such. */
#include "record.h"

#include <stdlib.h>
#include <time.h>

#define SG_WATCH_HELD_MAX 65536

static atomic_int holding = 1;

/* The span of memory count elements of type cover: from buf + *first,
 * 0 when it cannot be held. */
static size_t span_of(int count, MPI_Datatype type, MPI_Aint *first)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    if (count <= 0 || PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS ||
        true_extent > SG_WATCH_HELD_MAX || extent > SG_WATCH_HELD_MAX ||
        extent < -SG_WATCH_HELD_MAX || count > SG_WATCH_HELD_MAX)
        return 0;
    MPI_Aint step = (MPI_Aint)(count - 1) * extent;
    *first = true_lb + (step < 0 ? step : 0);
    MPI_Aint end = true_lb + true_extent + (step > 0 ? step : 0);
    return end - *first <= SG_WATCH_HELD_MAX ? (size_t)(end - *first) : 0;
}

/* A send to the sending rank itself is not held: its receive comes later
 * on the same thread, so a held one would only wait out the limit. */
static int to_itself(MPI_Comm comm, int dest)
{
    int inter = 1, rank = -1;
    return PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter &&
           PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == dest;
}

/* The call's data into `to`, at the same places (to + its layout): packed
 * and unpacked, so only the datatype's own bytes are read, never its gaps
 * (which need not be the caller's memory). */
static int copy_data(const void *buf, int count, MPI_Datatype type, MPI_Comm comm, void *to)
{
    int size, packed_at = 0, unpacked_at = 0;
    int err = PMPI_Pack_size(count, type, comm, &size);
    char *packed = err == MPI_SUCCESS ? malloc(size > 0 ? (size_t)size : 1) : NULL;
    if (packed == NULL)
        return err != MPI_SUCCESS ? err : MPI_ERR_NO_MEM;
    err = PMPI_Pack(buf, count, type, packed, size, &packed_at, comm);
    if (err == MPI_SUCCESS)
        err = PMPI_Unpack(packed, size, &unpacked_at, to, count, type, comm);
    free(packed);
    return err;
}

int sg_watch_send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                  MPI_Comm comm)
{
    MPI_Aint first = 0;
    size_t span = 0;
    char *copy = NULL;
    if (!atomic_load_explicit(&sg_watching, memory_order_relaxed) ||
        !atomic_load_explicit(&holding, memory_order_relaxed) || dest == MPI_PROC_NULL ||
        to_itself(comm, dest) || (span = span_of(count, type, &first)) == 0 ||
        (copy = malloc(span)) == NULL)
        return PMPI_Send(buf, count, type, dest, tag, comm);
    int err = copy_data(buf, count, type, comm, copy - first);
    MPI_Request request;
    if (err == MPI_SUCCESS)
        err = PMPI_Issend(copy - first, count, type, dest, tag, comm, &request);
    if (err != MPI_SUCCESS) {
        free(copy);
        return err;
    }
    sg_watch_held();
    double until = sg_watch_now() + sg_watch_hold_seconds();
    for (int polls = 0;; polls++) {
        int done = 0;
        err = PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS || done)
            break;
        if (polls > 1000 && sg_watch_now() > until) {
            if (sg_watch_ending()) { /* the job ends: nothing goes on */
                nanosleep(&(struct timespec){0, 1000000}, NULL);
                continue;
            }
            atomic_store(&holding, 0);
            PMPI_Request_free(&request); /* completes when received; the copy stays */
            return MPI_SUCCESS;
        }
        if (polls > 100) /* another rank may need this core to post its receive */
            nanosleep(&(struct timespec){0, 20000}, NULL);
    }
    free(copy);
    return err;
}
