! MPI_SCATTER_INIT of 3000 INTEGERs per rank from the root P - 1, through
! the interface chosen when compiling (-DSG_MPIF_H, -DSG_USE_MPI or
! -DSG_USE_MPI_F08, as gatherv.F90): started twice by MPI_START with new
! data, completed by MPI_WAIT, every rank checking every element of its
! block after each start, then freed by MPI_REQUEST_FREE; then the same
! for an MPI_BARRIER_INIT. Exits with status 3 when an element is wrong or
! a call fails.
program persistent
#include "interface.h"
  integer, parameter :: n = 3000
#if defined(SG_USE_MPI_F08)
  type(MPI_Request) :: request
#else
  integer :: request
#endif
  integer :: ierr, rank, procs, i, start, bad
  integer, allocatable, asynchronous :: send(:)
  integer, asynchronous :: got(n)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, procs, ierr)
  allocate (send(n * procs))
  bad = 0
  call MPI_Scatter_init(send, n, MPI_INTEGER, got, n, MPI_INTEGER, procs - 1, MPI_COMM_WORLD, &
                        MPI_INFO_NULL, request, ierr)
  if (ierr /= MPI_SUCCESS) bad = bad + 1
  do start = 1, 2
    ! element i of block r: r n + i + 1000000 start
    send = [(i + 1000000 * start, i = 1, n * procs)]
    got = -1
    call MPI_Start(request, ierr)
    if (ierr /= MPI_SUCCESS) bad = bad + 1
    call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
    if (ierr /= MPI_SUCCESS) bad = bad + 1
    do i = 1, n
      if (got(i) /= rank * n + i + 1000000 * start) bad = bad + 1
    end do
  end do
  call MPI_Request_free(request, ierr)
  call MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, request, ierr)
  if (ierr /= MPI_SUCCESS) bad = bad + 1
  do start = 1, 2
    call MPI_Start(request, ierr)
    if (ierr /= MPI_SUCCESS) bad = bad + 1
    call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
    if (ierr /= MPI_SUCCESS) bad = bad + 1
  end do
  call MPI_Request_free(request, ierr)
  call MPI_Finalize(ierr)
  if (bad /= 0) then
    write (0, '(a,i0,a,i0,a)') 'persistent: rank ', rank, ': ', bad, ' errors or wrong elements'
    error stop 3
  end if
  if (rank == 0) write (*, '(a,i0,a)') 'persistent: MPI_Scatter_init started twice, every ' // &
    'element checked on ', procs, ' ranks'
end program
