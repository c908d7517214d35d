! The prefix reductions from Fortran, each called once with small INTEGER
! data (MPI_SUM), through the interface chosen when compiling (-DSG_MPIF_H,
! -DSG_USE_MPI or -DSG_USE_MPI_F08, as gatherv.F90): MPI_Scan, MPI_Iscan in
! place, MPI_Exscan in place on the odd ranks only (each rank chooses for
! itself), MPI_Iexscan. Every rank checks every element of its result but
! Exscan's at rank 0, which MPI leaves undefined, and exits with status 3
! when one is wrong; no other collective is called, so that a PMPI layer's
! count of calls is exactly one per routine.
program prefixes
#include "interface.h"
  integer, parameter :: n = 5
#if defined(SG_USE_MPI_F08)
  type(MPI_Request) :: request
#else
  integer :: request
#endif
  integer :: ierr, rank, procs, i, bad
  ! got: written by the non-blocking calls after they return
  integer, asynchronous :: got(n)
  integer :: mine(n), upto(n), before(n)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, procs, ierr)
  bad = 0
  ! what this rank contributes, and the sums over ranks 0..rank and 0..rank-1
  mine = [(1000 * (rank + 1) + i, i = 1, n)]
  upto = [(1000 * (rank + 1) * (rank + 2) / 2 + (rank + 1) * i, i = 1, n)]
  before = [(1000 * rank * (rank + 1) / 2 + rank * i, i = 1, n)]

  got = -1
  call MPI_Scan(mine, got, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check('MPI_Scan', got, upto)
  got = mine
  call MPI_Iscan(MPI_IN_PLACE, got, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, ierr)
  call complete()
  call check('MPI_Iscan', got, upto)
  if (mod(rank, 2) == 1) then
    got = mine
    call MPI_Exscan(MPI_IN_PLACE, got, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  else
    got = -1
    call MPI_Exscan(mine, got, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  end if
  if (rank > 0) call check('MPI_Exscan', got, before)
  got = -1
  call MPI_Iexscan(mine, got, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, request, ierr)
  call complete()
  if (rank > 0) call check('MPI_Iexscan', got, before)

  call MPI_Finalize(ierr)
  if (bad /= 0) error stop 3
  if (rank == 0) write (*, '(a,i0,a)') 'scan: 4 prefix reductions checked on ', procs, ' ranks'

contains

  subroutine complete()
    if (ierr == MPI_SUCCESS) call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
  end subroutine

  ! ierr of the call just made, and the data it delivered
  subroutine check(routine, actual, expected)
    character(len=*), intent(in) :: routine
    integer, intent(in) :: actual(:), expected(:)
    integer :: e
    if (ierr /= MPI_SUCCESS) then
      write (0, '(a,i0,3a,i0)') 'scan: rank ', rank, ': ', routine, ': MPI error ', ierr
      bad = bad + 1
      return
    end if
    do e = 1, size(expected)
      if (actual(e) /= expected(e)) then
        write (0, '(a,i0,3a,i0,a,i0,a,i0)') 'scan: rank ', rank, ': ', routine, ': element ', &
          e, ' is ', actual(e), ' instead of ', expected(e)
        bad = bad + 1
        return
      end if
    end do
  end subroutine

end program
