! MPI_Scatter and MPI_Iscatter from mpi_f08 with INTEGER(MPI_COUNT_KIND)
! counts: the large-count forms (MPI-4), which MPICH 4.0.2's mpi_f08
! binds (mpi_scatter_f08ts_large_) to the C MPI_Scatter_c and
! MPI_Iscatter_c, which a C PMPI layer intercepts. The root, the last
! rank, scatters n INTEGERs to each rank, the I-form in place at the root;
! every rank checks every element of its block and exits with status 3
! when one is wrong; no other collective is called.
program large_count
  use mpi_f08
  integer(kind=MPI_COUNT_KIND), parameter :: n = 5
  type(MPI_Request) :: request
  integer :: ierr, rank, procs, root, i, r, bad
  integer, allocatable :: all(:)
  ! mine: written by the non-blocking call after it returns
  integer, asynchronous :: mine(n)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, procs, ierr)
  root = procs - 1
  bad = 0
  allocate(all(n * procs))
  all = [((1000 * r + i, i = 1, int(n)), r = 0, procs - 1)]

  mine = -1
  call MPI_Scatter(all, n, MPI_INTEGER, mine, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call check('MPI_Scatter (large count)')
  mine = -1
  if (rank == root) then
    call MPI_Iscatter(all, n, MPI_INTEGER, MPI_IN_PLACE, n, MPI_INTEGER, root, &
                      MPI_COMM_WORLD, request, ierr)
    mine = all(int(n) * rank + 1:int(n) * (rank + 1))
  else
    call MPI_Iscatter(all, n, MPI_INTEGER, mine, n, MPI_INTEGER, root, MPI_COMM_WORLD, &
                      request, ierr)
  end if
  if (ierr == MPI_SUCCESS) call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
  call check('MPI_Iscatter (large count)')

  call MPI_Finalize(ierr)
  if (bad /= 0) error stop 3
  if (rank == 0) write (*, '(a,i0,a)') 'large_count: 2 large-count scatters checked on ', &
                                       procs, ' ranks'

contains

  subroutine check(what)
    character(len=*), intent(in) :: what
    integer :: k
    if (ierr /= MPI_SUCCESS) then
      write (*, '(a,a,i0)') what, ': ierr ', ierr
      bad = bad + 1
    end if
    do k = 1, int(n)
      if (mine(k) /= 1000 * rank + k) then
        write (*, '(a,a,i0,a,i0)') what, ': rank ', rank, ' element ', k
        bad = bad + 1
      end if
    end do
  end subroutine

end program
