! nodeshm example (Fortran twin of replicated_table.c): one copy per node of a read-only lookup
! table, plus MPI collectives that libnodeshm_mpi accelerates when it is linked (or
! LD_PRELOADed).  The sum is checked: it prints a line about the sum only if it is right.
!
!   oshrun -np 4 examples/replicated_table_f
program replicated_table
  use mpi
  use nodeshm
  use, intrinsic :: iso_c_binding, only: c_ptr, c_double, c_size_t, c_null_ptr, c_f_pointer
  implicit none
  integer, parameter :: n = 100000
  integer :: ierr, rank, nranks, node, node_rank, i, r
  integer(c_size_t) :: my_bytes
  type(c_ptr) :: h
  real(c_double), pointer :: table(:)
  double precision :: local, total, expected

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)

  ! only node rank 0 contributes bytes: the node holds a single table
  ierr = nodeshm_comm_split_node(MPI_COMM_WORLD, node) ! my node's ranks, as nodeshm counts them
  call MPI_Comm_rank(node, node_rank, ierr)
  call MPI_Comm_free(node, ierr)

  my_bytes = 0
  if (node_rank == 0) my_bytes = int(n, c_size_t) * 8
  ierr = nodeshm_shared_alloc(MPI_COMM_WORLD, my_bytes, h)
  if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  call c_f_pointer(nodeshm_shared_node_base(h, c_null_ptr), table, [n])
  if (node_rank == 0) table = [(dble(i - 1) * 0.5d0, i = 1, n)]
  ierr = nodeshm_shared_sync(h) ! the table is complete for every rank of the node

  local = 0
  do i = rank + 1, n, 7
    local = local + table(i)
  end do
  call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr) ! node-aware
  expected = 0 ! what the ranks read together, summed here alone: exact (halves below 2**52)
  do r = 0, nranks - 1
    do i = r + 1, n, 7
      expected = expected + dble(i - 1) * 0.5d0
    end do
  end do
  if (rank == 0 .and. total == expected) print '("replicated_table_f: sum ", f0.1, ", ", i0, &
    & " collective calls run by nodeshm")', total, nodeshm_mpi_accelerated()
  if (total /= expected) print '("replicated_table_f: rank ", i0, ": wrong sum ", f0.1, &
    & ", expected ", f0.1)', rank, total, expected
  ierr = nodeshm_shared_sync(h) ! nobody reads the table any more
  ierr = nodeshm_shared_free(h)
  call MPI_Finalize(ierr)
  if (total /= expected) stop 1
end program
