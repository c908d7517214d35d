! Fortran callers under the watchdog, through the interface chosen when
! compiling (as gatherv.F90); the case is the first argument:
!   collectives  rank 1 in MPI_ALLREDUCE, the others in MPI_BARRIER (hangs)
!   ssend_cycle  every rank MPI_SSEND to the next, then receives (hangs)
!   exchange     a right ring exchange through every watched point-to-point
!                call (SEND, SSEND, RECV with and without a status, PROBE,
!                SENDRECV, SENDRECV_REPLACE) and ISEND/IRECV completed by
!                WAITALL, each value checked, then an IBARRIER completed
!                by WAIT; rank 0 prints "hang: exchange done"
program hang
#include "interface.h"
  integer :: ierr, rank, procs, next, prev, x, y, bad
  character(len=16) :: name
#if defined(SG_USE_MPI_F08)
  type(MPI_Status) :: status
  type(MPI_Request) :: requests(2)
#else
  integer :: status(MPI_STATUS_SIZE)
  integer :: requests(2)
#endif

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, procs, ierr)
  call get_command_argument(1, name)
  next = mod(rank + 1, procs)
  prev = mod(rank + procs - 1, procs)
  x = rank
  bad = 0
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  select case (trim(name))
  case ('collectives')
    if (rank == 1) then
      call MPI_Allreduce(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    else
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
    end if
  case ('ssend_cycle')
    call MPI_Ssend(x, 1, MPI_INTEGER, next, 7, MPI_COMM_WORLD, ierr)
    call MPI_Recv(y, 1, MPI_INTEGER, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  case ('exchange')
    ! even ranks send first, odd ranks receive first: no cycle
    if (mod(rank, 2) == 0) then
      call MPI_Send(x, 1, MPI_INTEGER, next, 1, MPI_COMM_WORLD, ierr)
      call MPI_Probe(prev, 2, MPI_COMM_WORLD, status, ierr)
      call MPI_Recv(y, 1, MPI_INTEGER, prev, 2, MPI_COMM_WORLD, status, ierr)
    else
      call MPI_Recv(y, 1, MPI_INTEGER, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Ssend(x, 1, MPI_INTEGER, next, 2, MPI_COMM_WORLD, ierr)
    end if
    if (y /= prev) bad = bad + 1
#if defined(SG_USE_MPI_F08)
    if (mod(rank, 2) == 0 .and. (status%MPI_SOURCE /= prev .or. status%MPI_TAG /= 2)) bad = bad + 1
#else
    if (mod(rank, 2) == 0 .and. (status(MPI_SOURCE) /= prev .or. status(MPI_TAG) /= 2)) bad = bad + 1
#endif
    y = -1
    call MPI_Sendrecv(x, 1, MPI_INTEGER, next, 3, y, 1, MPI_INTEGER, prev, 3, MPI_COMM_WORLD, &
                      status, ierr)
    if (y /= prev) bad = bad + 1
    y = x
    call MPI_Sendrecv_replace(y, 1, MPI_INTEGER, next, 4, prev, 4, MPI_COMM_WORLD, &
                              MPI_STATUS_IGNORE, ierr)
    if (y /= prev) bad = bad + 1
    y = -1
    call MPI_Irecv(y, 1, MPI_INTEGER, prev, 5, MPI_COMM_WORLD, requests(1), ierr)
    call MPI_Isend(x, 1, MPI_INTEGER, next, 5, MPI_COMM_WORLD, requests(2), ierr)
    call MPI_Waitall(2, requests, MPI_STATUSES_IGNORE, ierr)
    if (y /= prev) bad = bad + 1
    call MPI_Ibarrier(MPI_COMM_WORLD, requests(1), ierr)
    if (ierr /= MPI_SUCCESS) bad = bad + 1
    call MPI_Wait(requests(1), MPI_STATUS_IGNORE, ierr)
    call MPI_Allreduce(bad, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0 .and. y == 0) print '(a)', 'hang: exchange done'
  end select
  call MPI_Finalize(ierr)
end program hang
