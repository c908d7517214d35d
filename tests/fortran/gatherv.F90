! One MPI_GATHERV of 3000 INTEGERs from each rank, through the Fortran
! interface chosen when compiling: -DSG_MPIF_H (include 'mpif.h'),
! -DSG_USE_MPI (use mpi) or -DSG_USE_MPI_F08 (use mpi_f08). The first
! argument picks the call:
!   blocking     MPI_GATHERV to rank 0
!   in-place     MPI_GATHERV to the last rank, which passes MPI_IN_PLACE
!   nonblocking  MPI_IGATHERV to rank 0, then MPI_WAIT
! MPI starts with MPI_INIT_THREAD in the nonblocking case, MPI_INIT else: the
! layer must see both, where the ranks agree on their bounds.
! The root checks every element; all ranks exit with status 3 when one is
! wrong (2 on bad usage or an MPI error code).
program gatherv
#include "interface.h"
  integer, parameter :: n = 3000
#if defined(SG_USE_MPI_F08)
  type(MPI_Request) :: request
#else
  integer :: request
#endif
  integer :: ierr, rank, procs, root, r, i, bad, provided
  integer, allocatable, asynchronous :: sendbuf(:), recvbuf(:)
  integer, allocatable :: counts(:), displs(:)
  character(len=16) :: mode

  call get_command_argument(1, mode)
  if (mode == 'nonblocking') then
    call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  else
    call MPI_Init(ierr)
  end if
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, procs, ierr)

  allocate(sendbuf(n), recvbuf(n * procs), counts(procs), displs(procs))
  sendbuf = [(expected(rank, i), i = 1, n)]
  counts = n
  displs = [(r * n, r = 0, procs - 1)]
  recvbuf = -1
  root = 0
  if (mode == 'in-place') root = procs - 1

  select case (mode)
  case ('blocking')
    call MPI_Gatherv(sendbuf, n, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, root, &
                     MPI_COMM_WORLD, ierr)
  case ('in-place')
    if (rank == root) then
      recvbuf(displs(root + 1) + 1:displs(root + 1) + n) = sendbuf
      call MPI_Gatherv(MPI_IN_PLACE, n, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, &
                       root, MPI_COMM_WORLD, ierr)
    else
      call MPI_Gatherv(sendbuf, n, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, root, &
                       MPI_COMM_WORLD, ierr)
    end if
  case ('nonblocking')
    call MPI_Igatherv(sendbuf, n, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, root, &
                      MPI_COMM_WORLD, request, ierr)
    if (ierr == MPI_SUCCESS) call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
  case default
    write (0, '(3a)') 'usage: gatherv blocking|in-place|nonblocking (not "', trim(mode), '")'
    error stop 2
  end select
  if (ierr /= MPI_SUCCESS) then
    write (0, '(a,i0,a,i0)') 'gatherv: rank ', rank, ': MPI error ', ierr
    error stop 2
  end if

  bad = 0
  if (rank == root) then
    do r = 0, procs - 1
      do i = 1, n
        if (recvbuf(displs(r + 1) + i) /= expected(r, i)) then
          if (bad == 0) write (0, '(a,i0,a,i0,a,i0,a,i0)') 'gatherv: wrong data from rank ', r, &
            ' element ', i, ': ', recvbuf(displs(r + 1) + i), ' instead of ', expected(r, i)
          bad = bad + 1
        end if
      end do
    end do
  end if
  call MPI_Bcast(bad, 1, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (bad /= 0) then
    if (rank == root) write (0, '(a,i0,a)') 'gatherv: ', bad, ' wrong elements'
    error stop 3
  end if
  if (rank == root) write (*, '(a,i0,a)') 'gatherv: ', procs * n, ' elements checked'

contains

  pure integer function expected(from, element)
    integer, intent(in) :: from, element
    expected = 100000 * (from + 1) + element
  end function

end program
