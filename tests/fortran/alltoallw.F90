! One MPI_ALLTOALLW of 3000 INTEGERs per block, through the Fortran
! interface chosen when compiling (-DSG_MPIF_H, -DSG_USE_MPI or
! -DSG_USE_MPI_F08, as gatherv.F90). Each block has a datatype of its own:
! the block for (from) an even rank as 3000 x MPI_INTEGER, for (from) an odd
! one as 1500 pairs of INTEGERs (a contiguous type), at byte displacements.
! The first argument picks the call:
!   blocking     MPI_ALLTOALLW
!   in-place     MPI_ALLTOALLW with MPI_IN_PLACE
!   nonblocking  MPI_IALLTOALLW, then MPI_WAIT
! Every rank checks every element it receives; all exit with status 3 when
! one is wrong (2 on bad usage or an MPI error code).
program alltoallw
#include "interface.h"
  integer, parameter :: n = 3000
#if defined(SG_USE_MPI_F08)
  type(MPI_Request) :: request
  type(MPI_Datatype) :: pair
  type(MPI_Datatype), allocatable :: types(:)
#else
  integer :: request, pair
  integer, allocatable :: types(:)
#endif
  integer :: ierr, rank, procs, k, i, bad, worst
  integer, allocatable, asynchronous :: sendbuf(:), recvbuf(:)
  integer, allocatable :: counts(:), displs(:)
  character(len=16) :: mode

  call get_command_argument(1, mode)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, procs, ierr)
  call MPI_Type_contiguous(2, MPI_INTEGER, pair, ierr)
  call MPI_Type_commit(pair, ierr)

  allocate(sendbuf(n * procs), recvbuf(n * procs), counts(procs), displs(procs), types(procs))
  do k = 0, procs - 1
    if (mod(k, 2) == 0) then
      counts(k + 1) = n
      types(k + 1) = MPI_INTEGER
    else
      counts(k + 1) = n / 2
      types(k + 1) = pair
    end if
    displs(k + 1) = k * n * 4 ! bytes: INTEGER is 4 bytes here
  end do
  sendbuf = [((w(rank, k, i), i = 1, n), k = 0, procs - 1)]
  recvbuf = -1

  select case (mode)
  case ('blocking')
    call MPI_Alltoallw(sendbuf, counts, displs, types, recvbuf, counts, displs, types, &
                       MPI_COMM_WORLD, ierr)
  case ('in-place')
    recvbuf = sendbuf
    call MPI_Alltoallw(MPI_IN_PLACE, counts, displs, types, recvbuf, counts, displs, types, &
                       MPI_COMM_WORLD, ierr)
  case ('nonblocking')
    call MPI_Ialltoallw(sendbuf, counts, displs, types, recvbuf, counts, displs, types, &
                        MPI_COMM_WORLD, request, ierr)
    if (ierr == MPI_SUCCESS) call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
  case default
    write (0, '(3a)') 'usage: alltoallw blocking|in-place|nonblocking (not "', trim(mode), '")'
    error stop 2
  end select
  if (ierr /= MPI_SUCCESS) then
    write (0, '(a,i0,a,i0)') 'alltoallw: rank ', rank, ': MPI error ', ierr
    error stop 2
  end if

  bad = 0
  do k = 0, procs - 1
    do i = 1, n
      if (recvbuf(k * n + i) /= w(k, rank, i)) then
        if (bad == 0) write (0, '(a,i0,a,i0,a,i0,a,i0,a,i0)') 'alltoallw: rank ', rank, &
          ': wrong data from rank ', k, ' element ', i, ': ', recvbuf(k * n + i), &
          ' instead of ', w(k, rank, i)
        bad = bad + 1
      end if
    end do
  end do
  call MPI_Allreduce(bad, worst, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call MPI_Type_free(pair, ierr)
  call MPI_Finalize(ierr)
  if (worst /= 0) error stop 3
  if (rank == 0) write (*, '(a,i0,a)') 'alltoallw: ', procs * procs * n, ' elements checked'

contains

  ! element i of the block rank `from` sends to rank `to`
  pure integer function w(from, to, i)
    integer, intent(in) :: from, to, i
    w = 100000 * (from + 1) + 10000 * (to + 1) + i
  end function

end program
