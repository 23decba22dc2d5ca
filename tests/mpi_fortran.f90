! libnodeshm_mpi from Fortran: the collectives a Fortran program calls (mpif.h or `use mpi`)
! reach the interposer and give the right values.  Built twice from this file: with `use mpi`
! and, with NODESHM_MPIFH defined, with include 'mpif.h' (tests/mpi_fortran.cmake).
!
! Every rank derives its data from the seed (NODESHM_TEST_SEED replays, rank 0's value wins),
! its rank and the element index, so every rank computes every expected value itself.  Runs on
! MPI_COMM_WORLD and on a reversed split of it (handles other than MPI_COMM_WORLD).  Besides the
! older collectives: Scan, Exscan, Reduce_scatter, Alltoallw (datatype arrays with a derived
! type) and the 12 non-blocking ops, completed in every way Fortran can (Wait, Waitall with and
! without statuses, Waitany, Waitsome, Test, Testall, Testany, Testsome, Request_get_status),
! several outstanding with point-to-point requests, in rank-dependent orders.
!
!   --expect-accel   the interposer must be there and have run calls (at 1 rank it runs none),
!                    and each of those newer ops exactly as many as this program expects: every
!                    call on a communicator of 2+ ranks on one node (the windows are set wide
!                    enough by tests/mpi_fortran.cmake), none on pseudo-nodes
!                    (NODESHM_PES_PER_NODE below the size: they are one-node ops or off between
!                    nodes by default)
!   --expect-none    it must have run none (NODESHM_MPI_DISABLE=all, or not loaded)
! nodeshm_mpi_accelerated is looked up with dlsym, so one program serves linked, LD_PRELOAD
! and plain runs.  Rank 0 prints "... PASS" or "... FAIL"; the exit status is 1 on failure.
program mpi_fortran
#ifdef NODESHM_MPIFH
  use, intrinsic :: iso_c_binding
  implicit none
  include 'mpif.h'
  character(len=*), parameter :: prog = "mpi_fortran_mpifh"
#else
  use mpi
  use, intrinsic :: iso_c_binding
  implicit none
  character(len=*), parameter :: prog = "mpi_fortran"
#endif
  interface
    function dlsym(handle, name) bind(C, name="dlsym")
      import :: c_ptr, c_funptr, c_char
      type(c_ptr), value :: handle
      character(kind=c_char) :: name(*)
      type(c_funptr) :: dlsym
    end function
    function accelerated_iface() bind(C)
      import :: c_long
      integer(c_long) :: accelerated_iface
    end function
    function accelerated_op_iface(op) bind(C)
      import :: c_long, c_char
      character(kind=c_char) :: op(*)
      integer(c_long) :: accelerated_op_iface
    end function
    integer(c_int) function usleep(us) bind(C, name="usleep")
      import :: c_int
      integer(c_int), value :: us
    end function
  end interface
  ! the newer ops, by their names in nodeshm_mpi_accelerated_op, and the calls each must have run
  integer, parameter :: K_SCAN = 1, K_EXSCAN = 2, K_RSCAT = 3, K_A2AW = 4, K_IBARRIER = 5, &
    K_IBCAST = 6, K_IALLREDUCE = 7, K_IREDUCE = 8, K_IGATHER = 9, K_IGATHERV = 10, K_ISCATTER = 11, &
    K_ISCATTERV = 12, K_IALLGATHER = 13, K_IALLGATHERV = 14, K_IALLTOALL = 15, K_IALLTOALLV = 16, NOPS = 16
  character(len=*), parameter :: opnames(NOPS) = [character(len=14) :: "scan", "exscan", &
    "reduce_scatter", "alltoallw", "ibarrier", "ibcast", "iallreduce", "ireduce", "igather", &
    "igatherv", "iscatter", "iscatterv", "iallgather", "iallgatherv", "ialltoall", "ialltoallv"]
  integer :: want(NOPS) = 0
  logical :: onenode
  integer(c_long) :: got
  procedure(accelerated_op_iface), pointer :: accelerated_op => null()
  integer(8), parameter :: MODULUS = 2147483647_8
  integer, parameter :: GUARD = -123456789
  integer :: ierr, wrank, wsize, expect, i, rev
  integer :: fails = 0, checks = 0, printed = 0
  integer :: tot(2), loc(2)
  integer(8) :: seed
  integer(c_long) :: n_accel, max_accel
  character(len=64) :: arg
  type(c_funptr) :: fp
  procedure(accelerated_iface), pointer :: accelerated => null()

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, wrank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, wsize, ierr)
  expect = 0
  do i = 1, command_argument_count()
    call get_command_argument(i, arg)
    if (arg == "--expect-accel") expect = 1
    if (arg == "--expect-none") expect = -1
  end do

  seed = 0
  if (wrank == 0) then
    call get_environment_variable("NODESHM_TEST_SEED", arg, status=i)
    if (i == 0) then
      read (arg, *) seed
    else
      call system_clock(seed)
    end if
    seed = modulo(seed, MODULUS)
    print '(a, ": ", i0, " ranks, seed ", i0, " (replay with NODESHM_TEST_SEED=", i0, ")")', &
      prog, wsize, seed, seed
  end if
  call MPI_Bcast(seed, 1, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
  ! pseudo-nodes: the communicators span nodes
  call get_environment_variable("NODESHM_PES_PER_NODE", arg, status=i)
  onenode = .true.
  if (i == 0 .and. len_trim(arg) > 0) then
    read (arg, *) i
    onenode = i <= 0 .or. i >= wsize
  end if

  ! the blocking collectives first: a non-blocking op on a communicator no collective has set
  ! up yet goes to the MPI library (README)
  call test_comm(MPI_COMM_WORLD, "world")
  call test_newer(MPI_COMM_WORLD, "world")
  call MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, rev, ierr)
  call test_comm(rev, "reversed")
  call test_newer(rev, "reversed")
  do i = 1, 8
    call test_nb(MPI_COMM_WORLD, "world", i)
    call test_nb(rev, "reversed", i)
  end do
  call MPI_Comm_free(rev, ierr)
  call test_barrier(MPI_COMM_WORLD)

  n_accel = 0
  fp = dlsym(c_null_ptr, "nodeshm_mpi_accelerated" // c_null_char) ! RTLD_DEFAULT
  if (c_associated(fp)) then
    call c_f_procpointer(fp, accelerated)
    n_accel = accelerated()
  end if
  call MPI_Allreduce(n_accel, max_accel, 1, MPI_INTEGER8, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (expect == 1) then
    call check(c_associated(fp), "nodeshm_mpi_accelerated not found: the interposer is not loaded")
    call check(max_accel > 0 .or. wsize == 1, "the interposer accelerated no call")
  else if (expect == -1) then
    call check(max_accel == 0, "the interposer accelerated calls it should have left to MPI")
    want = 0
  end if
  ! per op: a total that other ops could make up proves nothing
  fp = dlsym(c_null_ptr, "nodeshm_mpi_accelerated_op" // c_null_char)
  if (c_associated(fp) .and. expect /= 0) then
    call c_f_procpointer(fp, accelerated_op)
    do i = 1, NOPS
      got = accelerated_op(trim(opnames(i)) // c_null_char)
      write (arg, '(i0, " calls, expected ", i0)') got, want(i)
      call check(got == want(i), "Fortran MPI_" // trim(opnames(i)) // " accelerated " // trim(arg))
    end do
  end if

  loc = [fails, checks]
  call MPI_Allreduce(loc, tot, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (wrank == 0) then
    print '(a, ": ", i0, " ranks: ", i0, " checks, ", i0, " failed, ", i0, &
      & " calls accelerated on the busiest rank: ", a)', prog, wsize, tot(2), tot(1), max_accel, &
      merge("PASS", "FAIL", tot(1) == 0 .and. tot(2) > 0)
  end if
  call MPI_Finalize(ierr)
  if (tot(1) /= 0 .or. tot(2) == 0) stop 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    checks = checks + 1
    if (ok) return
    fails = fails + 1
    printed = printed + 1
    if (printed <= 20) print '(a, ": rank ", i0, ": check failed: ", a)', prog, wrank, what
  end subroutine

  ! Element i of rank r's stream `tag`: a few steps of a Park-Miller generator from the seed.
  integer(8) function raw(r, i, tag)
    integer, intent(in) :: r, i, tag
    raw = modulo(seed + 1000003_8 * r + 7919_8 * i + 104729_8 * tag, MODULUS)
    raw = modulo(48271_8 * raw + 12345_8, MODULUS)
    raw = modulo(48271_8 * raw + 12345_8, MODULUS)
    raw = modulo(48271_8 * raw + 12345_8, MODULUS)
  end function

  integer function ival(r, i, tag)
    integer, intent(in) :: r, i, tag
    ival = int(modulo(raw(r, i, tag), 2001_8)) - 1000
  end function

  ! integers in a double: sums are exact whatever order the ranks' values are added in
  double precision function dval(r, i, tag)
    integer, intent(in) :: r, i, tag
    dval = dble(modulo(raw(r, i, tag), 200001_8) - 100000_8) * 4.0d0
  end function

  character(len=160) function what(op, cname, n, extra)
    character(len=*), intent(in) :: op, cname
    integer, intent(in) :: n, extra
    write (what, '(a, " on ", a, ", count ", i0, ", root/variant ", i0, ": wrong values or guard")') &
      op, cname, n, extra
  end function

  subroutine test_comm(comm, cname)
    integer, intent(in) :: comm
    character(len=*), intent(in) :: cname
    integer :: crank, csize, ierr, ni, n, r, root, k, i, j, tag
    integer, parameter :: counts(6) = [0, 1, 7, 1001, 8191, 40001]
    integer, parameter :: blocks(4) = [1, 3, 17, 1500]
    integer, allocatable :: is(:), ir(:), ie(:)
    double precision, allocatable :: ds(:), dr(:), de(:)
    logical :: ok

    call MPI_Comm_rank(comm, crank, ierr)
    call MPI_Comm_size(comm, csize, ierr)

    ! ---- MPI_Allreduce: sum and max, integer and double precision, in place
    do ni = 1, size(counts)
      n = counts(ni)
      allocate(is(n), ir(n + 1), ie(n), ds(n), dr(n + 1), de(n))
      is = [(ival(crank, i, ni), i = 1, n)]
      ds = [(dval(crank, i, ni), i = 1, n)]
      ! integer sum
      ir = GUARD
      call MPI_Allreduce(is, ir, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      ie = [(sum([(ival(r, i, ni), r = 0, csize - 1)]), i = 1, n)]
      call check(ierr == MPI_SUCCESS .and. all(ir(1:n) == ie) .and. ir(n + 1) == GUARD, &
                 trim(what("MPI_Allreduce(MPI_INTEGER, MPI_SUM)", cname, n, 0)))
      ! integer max
      ir = GUARD
      call MPI_Allreduce(is, ir, n, MPI_INTEGER, MPI_MAX, comm, ierr)
      ie = [(maxval([(ival(r, i, ni), r = 0, csize - 1)]), i = 1, n)]
      call check(ierr == MPI_SUCCESS .and. all(ir(1:n) == ie) .and. ir(n + 1) == GUARD, &
                 trim(what("MPI_Allreduce(MPI_INTEGER, MPI_MAX)", cname, n, 0)))
      ! integer sum in place
      ir(1:n) = is
      call MPI_Allreduce(MPI_IN_PLACE, ir, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      ie = [(sum([(ival(r, i, ni), r = 0, csize - 1)]), i = 1, n)]
      call check(ierr == MPI_SUCCESS .and. all(ir(1:n) == ie) .and. ir(n + 1) == GUARD, &
                 trim(what("MPI_Allreduce(MPI_IN_PLACE, MPI_INTEGER, MPI_SUM)", cname, n, 0)))
      ! double sum
      dr = -1.5d0
      call MPI_Allreduce(ds, dr, n, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
      de = [(sum([(dval(r, i, ni), r = 0, csize - 1)]), i = 1, n)]
      call check(ierr == MPI_SUCCESS .and. all(dr(1:n) == de) .and. dr(n + 1) == -1.5d0, &
                 trim(what("MPI_Allreduce(MPI_DOUBLE_PRECISION, MPI_SUM)", cname, n, 0)))
      ! double max
      dr = -1.5d0
      call MPI_Allreduce(ds, dr, n, MPI_DOUBLE_PRECISION, MPI_MAX, comm, ierr)
      de = [(maxval([(dval(r, i, ni), r = 0, csize - 1)]), i = 1, n)]
      call check(ierr == MPI_SUCCESS .and. all(dr(1:n) == de) .and. dr(n + 1) == -1.5d0, &
                 trim(what("MPI_Allreduce(MPI_DOUBLE_PRECISION, MPI_MAX)", cname, n, 0)))
      deallocate(is, ir, ie, ds, dr, de)
    end do

    ! ---- MPI_Bcast from every root, integer and double precision
    do root = 0, csize - 1
      do ni = 1, 4
        n = counts(ni + 1) + mod(ni, 2) ! 2, 7, 1002, 8191
        tag = 100 + root * 10 + ni
        allocate(ir(n + 1), dr(n + 1))
        ir = GUARD
        dr = -1.5d0
        if (crank == root) then
          ir(1:n) = [(ival(root, i, tag), i = 1, n)]
          dr(1:n) = [(dval(root, i, tag), i = 1, n)]
        end if
        call MPI_Bcast(ir, n, MPI_INTEGER, root, comm, ierr)
        call check(ierr == MPI_SUCCESS .and. all(ir(1:n) == [(ival(root, i, tag), i = 1, n)]) &
                   .and. ir(n + 1) == GUARD, trim(what("MPI_Bcast(MPI_INTEGER)", cname, n, root)))
        call MPI_Bcast(dr, n, MPI_DOUBLE_PRECISION, root, comm, ierr)
        call check(ierr == MPI_SUCCESS .and. all(dr(1:n) == [(dval(root, i, tag), i = 1, n)]) &
                   .and. dr(n + 1) == -1.5d0, &
                   trim(what("MPI_Bcast(MPI_DOUBLE_PRECISION)", cname, n, root)))
        deallocate(ir, dr)
      end do
    end do

    ! ---- MPI_Gather to the first and the last crank
    do ni = 1, size(blocks)
      k = blocks(ni)
      do j = 0, 1
        root = j * (csize - 1)
        tag = 200 + ni
        allocate(is(k), ir(k * csize + 1))
        is = [(ival(crank, i, tag), i = 1, k)]
        ir = GUARD
        call MPI_Gather(is, k, MPI_INTEGER, ir, k, MPI_INTEGER, root, comm, ierr)
        ok = ierr == MPI_SUCCESS .and. ir(k * csize + 1) == GUARD
        if (crank == root) then
          do r = 0, csize - 1
            ok = ok .and. all(ir(r * k + 1:r * k + k) == [(ival(r, i, tag), i = 1, k)])
          end do
        end if
        call check(ok, trim(what("MPI_Gather(MPI_INTEGER)", cname, k, root)))
        deallocate(is, ir)
      end do
    end do

    ! ---- MPI_Allgather, and in place (each crank's block already in the receive buffer)
    do ni = 1, size(blocks)
      k = blocks(ni)
      tag = 300 + ni
      allocate(is(k), ir(k * csize + 1), ie(k * csize))
      is = [(ival(crank, i, tag), i = 1, k)]
      do r = 0, csize - 1
        ie(r * k + 1:r * k + k) = [(ival(r, i, tag), i = 1, k)]
      end do
      ir = GUARD
      call MPI_Allgather(is, k, MPI_INTEGER, ir, k, MPI_INTEGER, comm, ierr)
      call check(ierr == MPI_SUCCESS .and. all(ir(1:k * csize) == ie) .and. ir(k * csize + 1) == GUARD, &
                 trim(what("MPI_Allgather(MPI_INTEGER)", cname, k, 0)))
      ir = GUARD
      ir(crank * k + 1:crank * k + k) = is
      call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ir, k, MPI_INTEGER, comm, ierr)
      call check(ierr == MPI_SUCCESS .and. all(ir(1:k * csize) == ie) .and. ir(k * csize + 1) == GUARD, &
                 trim(what("MPI_Allgather(MPI_IN_PLACE, MPI_INTEGER)", cname, k, 1)))
      deallocate(is, ir, ie)
    end do

    ! ---- MPI_Alltoall: block j of crank r goes to crank j
    do ni = 1, size(blocks)
      k = blocks(ni)
      tag = 400 + ni
      allocate(is(k * csize), ir(k * csize + 1), ie(k * csize))
      is = [(ival(crank, i, tag), i = 1, k * csize)]
      do r = 0, csize - 1
        ie(r * k + 1:r * k + k) = [(ival(r, crank * k + i, tag), i = 1, k)]
      end do
      ir = GUARD
      call MPI_Alltoall(is, k, MPI_INTEGER, ir, k, MPI_INTEGER, comm, ierr)
      call check(ierr == MPI_SUCCESS .and. all(ir(1:k * csize) == ie) .and. ir(k * csize + 1) == GUARD, &
                 trim(what("MPI_Alltoall(MPI_INTEGER)", cname, k, 0)))
      deallocate(is, ir, ie)
    end do
  end subroutine

  ! One more call of op k that must run in the interposer when the communicator has 2+ ranks on
  ! one node (the newer ops' windows are wide open in the one-node runs).
  subroutine counted(k, csize)
    integer, intent(in) :: k, csize
    if (onenode .and. csize > 1) want(k) = want(k) + 1
  end subroutine

  ! Elements in alltoallw's block from crank i to crank j (even: a pair of integers is a unit).
  integer function wcount(i, j, k)
    integer, intent(in) :: i, j, k
    wcount = 2 * (1 + mod(3 * i + 5 * j + k, 4) * k)
  end function

  ! ---- Scan, Exscan, Reduce_scatter, Alltoallw
  subroutine test_newer(comm, cname)
    integer, intent(in) :: comm
    character(len=*), intent(in) :: cname
    integer :: crank, csize, ierr, ni, n, r, i, j, k, tag, off, pair2, total
    integer, parameter :: counts(3) = [1, 7, 1001], scales(3) = [1, 5, 200]
    integer, allocatable :: is(:), ir(:), ie(:), rc(:), sc(:), sd(:), rd(:), st(:), rt(:)
    double precision, allocatable :: ds(:), dr(:), de(:)
    logical :: ok

    call MPI_Comm_rank(comm, crank, ierr)
    call MPI_Comm_size(comm, csize, ierr)
    do ni = 1, size(counts)
      n = counts(ni)
      tag = 500 + ni
      allocate(is(n), ir(n + 1), ie(n), ds(n), dr(n + 1), de(n))
      is = [(ival(crank, i, tag), i = 1, n)]
      ds = [(dval(crank, i, tag), i = 1, n)]
      ! inclusive: ranks 0..crank
      ir = GUARD
      call MPI_Scan(is, ir, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      call counted(K_SCAN, csize)
      ie = [(sum([(ival(r, i, tag), r = 0, crank)]), i = 1, n)]
      call check(ierr == MPI_SUCCESS .and. all(ir(1:n) == ie) .and. ir(n + 1) == GUARD, &
                 trim(what("MPI_Scan(MPI_INTEGER, MPI_SUM)", cname, n, 0)))
      dr = -1.5d0
      call MPI_Scan(ds, dr, n, MPI_DOUBLE_PRECISION, MPI_MAX, comm, ierr)
      call counted(K_SCAN, csize)
      de = [(maxval([(dval(r, i, tag), r = 0, crank)]), i = 1, n)]
      call check(ierr == MPI_SUCCESS .and. all(dr(1:n) == de) .and. dr(n + 1) == -1.5d0, &
                 trim(what("MPI_Scan(MPI_DOUBLE_PRECISION, MPI_MAX)", cname, n, 0)))
      ir(1:n) = is
      call MPI_Scan(MPI_IN_PLACE, ir, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      call counted(K_SCAN, csize)
      ie = [(sum([(ival(r, i, tag), r = 0, crank)]), i = 1, n)]
      call check(ierr == MPI_SUCCESS .and. all(ir(1:n) == ie) .and. ir(n + 1) == GUARD, &
                 trim(what("MPI_Scan(MPI_IN_PLACE, MPI_INTEGER, MPI_SUM)", cname, n, 0)))
      ! exclusive: ranks 0..crank-1; crank 0's result is undefined, its guard is not
      ir = GUARD
      call MPI_Exscan(is, ir, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      call counted(K_EXSCAN, csize)
      ok = ierr == MPI_SUCCESS .and. ir(n + 1) == GUARD
      if (crank > 0) ok = ok .and. all(ir(1:n) == [(sum([(ival(r, i, tag), r = 0, crank - 1)]), i = 1, n)])
      call check(ok, trim(what("MPI_Exscan(MPI_INTEGER, MPI_SUM)", cname, n, 0)))
      ! in place, rank 0's buffer keeps nothing defined either
      ir(1:n) = is
      call MPI_Exscan(MPI_IN_PLACE, ir, n, MPI_INTEGER, MPI_SUM, comm, ierr)
      call counted(K_EXSCAN, csize)
      ok = ierr == MPI_SUCCESS .and. ir(n + 1) == GUARD
      if (crank > 0) ok = ok .and. all(ir(1:n) == [(sum([(ival(r, i, tag), r = 0, crank - 1)]), i = 1, n)])
      call check(ok, trim(what("MPI_Exscan(MPI_IN_PLACE, MPI_INTEGER, MPI_SUM)", cname, n, 1)))
      deallocate(is, ir, ie, ds, dr, de)
    end do

    ! Reduce_scatter: irregular blocks, crank r gets rc(r) elements of the reduced vector
    do k = 1, 3
      tag = 600 + k
      allocate(rc(0:csize - 1))
      rc = [(mod(7 * r + k, 5) + (k - 1) * 150, r = 0, csize - 1)]
      total = sum(rc)
      off = sum(rc(0:crank - 1))
      n = rc(crank)
      allocate(is(total), ir(n + 1), ds(total), dr(n + 1))
      is = [(ival(crank, i, tag), i = 1, total)]
      ds = [(dval(crank, i, tag), i = 1, total)]
      ir = GUARD
      call MPI_Reduce_scatter(is, ir, rc, MPI_INTEGER, MPI_SUM, comm, ierr)
      if (total > 0) call counted(K_RSCAT, csize)
      call check(ierr == MPI_SUCCESS .and. ir(n + 1) == GUARD .and. &
                 all(ir(1:n) == [(sum([(ival(r, off + i, tag), r = 0, csize - 1)]), i = 1, n)]), &
                 trim(what("MPI_Reduce_scatter(MPI_INTEGER, MPI_SUM)", cname, total, k)))
      dr = -1.5d0
      call MPI_Reduce_scatter(ds, dr, rc, MPI_DOUBLE_PRECISION, MPI_MAX, comm, ierr)
      if (total > 0) call counted(K_RSCAT, csize)
      call check(ierr == MPI_SUCCESS .and. dr(n + 1) == -1.5d0 .and. &
                 all(dr(1:n) == [(maxval([(dval(r, off + i, tag), r = 0, csize - 1)]), i = 1, n)]), &
                 trim(what("MPI_Reduce_scatter(MPI_DOUBLE_PRECISION, MPI_MAX)", cname, total, k)))
      deallocate(rc, is, ir, ds, dr)
    end do

    ! Alltoallw: byte displacements, a datatype per pair: the even pairs send MPI_INTEGERs into
    ! pairs of them (a derived type), the odd ones the other way round; received blocks with a
    ! guard between them
    call MPI_Type_contiguous(2, MPI_INTEGER, pair2, ierr)
    call MPI_Type_commit(pair2, ierr)
    do ni = 1, 3
      k = scales(ni) ! blocks of up to 2 + 6k elements
      tag = 700 + ni
      allocate(sc(0:csize - 1), sd(0:csize - 1), st(0:csize - 1), rc(0:csize - 1), rd(0:csize - 1), &
               rt(0:csize - 1))
      off = 0
      do j = 0, csize - 1
        sd(j) = 4 * off
        off = off + wcount(crank, j, k)
        st(j) = merge(MPI_INTEGER, pair2, mod(crank + j, 2) == 0)
        sc(j) = merge(wcount(crank, j, k), wcount(crank, j, k) / 2, mod(crank + j, 2) == 0)
      end do
      allocate(is(off))
      is = [(ival(crank, i, tag), i = 1, off)]
      off = 0
      do r = 0, csize - 1
        rd(r) = 4 * off
        off = off + wcount(r, crank, k) + 1
        rt(r) = merge(pair2, MPI_INTEGER, mod(crank + r, 2) == 0)
        rc(r) = merge(wcount(r, crank, k) / 2, wcount(r, crank, k), mod(crank + r, 2) == 0)
      end do
      allocate(ir(off))
      ir = GUARD
      call MPI_Alltoallw(is, sc, sd, st, ir, rc, rd, rt, comm, ierr)
      call counted(K_A2AW, csize)
      ok = ierr == MPI_SUCCESS
      do r = 0, csize - 1
        ! r's block for me starts after its blocks for cranks 0..crank-1
        off = sum([(wcount(r, j, k), j = 0, crank - 1)])
        n = wcount(r, crank, k)
        ok = ok .and. all(ir(rd(r) / 4 + 1:rd(r) / 4 + n) == [(ival(r, off + i, tag), i = 1, n)]) &
                .and. ir(rd(r) / 4 + n + 1) == GUARD
      end do
      call check(ok, trim(what("MPI_Alltoallw(MPI_INTEGER, pairs)", cname, k, 0)))
      deallocate(sc, sd, st, rc, rd, rt, is, ir)
    end do
    call MPI_Type_free(pair2, ierr)
  end subroutine

  ! ---- the non-blocking ops: 13 started (iallreduce twice, once in place) with a point-to-point
  ! ring exchange, completed in the way `how` picks, every value checked after.  Sizes above and
  ! below the small ring's (4 KiB), so some rounds hold more ops than the buffers.
  subroutine test_nb(comm, cname, how)
    integer, intent(in) :: comm, how
    character(len=*), intent(in) :: cname
    integer, parameter :: NR = 15, sizes(8) = [5, 1500, 37, 700, 1, 1200, 64, 900]
    integer :: crank, csize, ierr, n, r, i, j, k, tag, root, idx, outc, left, right, off
    integer :: reqs(NR), seen(NR), idxs(NR), status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, NR)
    integer, allocatable :: bc(:), ars(:), arr(:), arp(:), rds(:), rdr(:), gs(:), gr(:), gvs(:), gvr(:), &
      gvc(:), gvd(:), ss(:), sr(:), svs(:), svr(:), ags(:), agr(:), avs(:), avr(:), as(:), ar(:), &
      vs(:), vr(:), vsc(:), vsd(:), vrc(:), vrd(:), ps(:), pr(:)
    logical :: flag, ok

    call MPI_Comm_rank(comm, crank, ierr)
    call MPI_Comm_size(comm, csize, ierr)
    n = sizes(how)
    tag = 1000 * how
    root = mod(how, csize)
    left = mod(crank + csize - 1, csize)
    right = mod(crank + 1, csize)
    reqs = MPI_REQUEST_NULL
    ! v-forms: crank r's block has gvc(r) elements (some empty), gaps of 1 between blocks
    allocate(gvc(0:csize - 1), gvd(0:csize - 1))
    gvc = [(mod(r + how, 3) * n, r = 0, csize - 1)]
    gvd = [(sum(gvc(0:r - 1)) + r, r = 0, csize - 1)]
    off = sum(gvc) + csize

    allocate(bc(n + 1))
    bc = GUARD
    if (crank == root) bc(1:n) = [(ival(root, i, tag + 1), i = 1, n)]
    call MPI_Ibarrier(comm, reqs(1), ierr)
    call counted(K_IBARRIER, csize)
    call MPI_Ibcast(bc, n, MPI_INTEGER, root, comm, reqs(2), ierr)
    call counted(K_IBCAST, csize)
    allocate(ars(n), arr(n + 1), arp(n + 1))
    ars = [(ival(crank, i, tag + 2), i = 1, n)]
    arr = GUARD
    call MPI_Iallreduce(ars, arr, n, MPI_INTEGER, MPI_SUM, comm, reqs(3), ierr)
    call counted(K_IALLREDUCE, csize)
    arp = GUARD
    arp(1:n) = ars
    call MPI_Iallreduce(MPI_IN_PLACE, arp, n, MPI_INTEGER, MPI_MAX, comm, reqs(4), ierr)
    call counted(K_IALLREDUCE, csize)
    allocate(rds(n), rdr(n + 1))
    rds = [(ival(crank, i, tag + 4), i = 1, n)]
    rdr = GUARD
    call MPI_Ireduce(rds, rdr, n, MPI_INTEGER, MPI_SUM, root, comm, reqs(5), ierr)
    call counted(K_IREDUCE, csize)
    allocate(gs(n), gr(n * csize + 1))
    gs = [(ival(crank, i, tag + 5), i = 1, n)]
    gr = GUARD
    call MPI_Igather(gs, n, MPI_INTEGER, gr, n, MPI_INTEGER, root, comm, reqs(6), ierr)
    call counted(K_IGATHER, csize)
    allocate(gvs(max(gvc(crank), 1)), gvr(off + 1))
    gvs = [(ival(crank, i, tag + 6), i = 1, size(gvs))]
    gvr = GUARD
    call MPI_Igatherv(gvs, gvc(crank), MPI_INTEGER, gvr, gvc, gvd, MPI_INTEGER, root, comm, reqs(7), ierr)
    call counted(K_IGATHERV, csize)
    allocate(ss(n * csize), sr(n + 1))
    ss = [(ival(crank, i, tag + 7), i = 1, n * csize)]
    sr = GUARD
    call MPI_Iscatter(ss, n, MPI_INTEGER, sr, n, MPI_INTEGER, root, comm, reqs(8), ierr)
    call counted(K_ISCATTER, csize)
    allocate(svs(off), svr(gvc(crank) + 1))
    svs = [(ival(crank, i, tag + 8), i = 1, off)]
    svr = GUARD
    call MPI_Iscatterv(svs, gvc, gvd, MPI_INTEGER, svr, gvc(crank), MPI_INTEGER, root, comm, reqs(9), ierr)
    call counted(K_ISCATTERV, csize)
    allocate(ags(n), agr(n * csize + 1))
    ags = [(ival(crank, i, tag + 9), i = 1, n)]
    agr = GUARD
    call MPI_Iallgather(ags, n, MPI_INTEGER, agr, n, MPI_INTEGER, comm, reqs(10), ierr)
    call counted(K_IALLGATHER, csize)
    allocate(avs(max(gvc(crank), 1)), avr(off + 1))
    avs = [(ival(crank, i, tag + 10), i = 1, size(avs))]
    avr = GUARD
    call MPI_Iallgatherv(avs, gvc(crank), MPI_INTEGER, avr, gvc, gvd, MPI_INTEGER, comm, reqs(11), ierr)
    call counted(K_IALLGATHERV, csize)
    allocate(as(n * csize), ar(n * csize + 1))
    as = [(ival(crank, i, tag + 11), i = 1, n * csize)]
    ar = GUARD
    call MPI_Ialltoall(as, n, MPI_INTEGER, ar, n, MPI_INTEGER, comm, reqs(12), ierr)
    call counted(K_IALLTOALL, csize)
    ! alltoallv: crank i sends mod(i + 2j + how, 3) * n elements to crank j, gaps of 1
    allocate(vsc(0:csize - 1), vsd(0:csize - 1), vrc(0:csize - 1), vrd(0:csize - 1))
    vsc = [(mod(crank + 2 * j + how, 3) * n, j = 0, csize - 1)]
    vsd = [(sum(vsc(0:j - 1)), j = 0, csize - 1)]
    vrc = [(mod(r + 2 * crank + how, 3) * n, r = 0, csize - 1)]
    vrd = [(sum(vrc(0:r - 1)) + r, r = 0, csize - 1)]
    allocate(vs(max(sum(vsc), 1)), vr(sum(vrc) + csize + 1))
    vs = [(ival(crank, i, tag + 12), i = 1, size(vs))]
    vr = GUARD
    call MPI_Ialltoallv(vs, vsc, vsd, MPI_INTEGER, vr, vrc, vrd, MPI_INTEGER, comm, reqs(13), ierr)
    call counted(K_IALLTOALLV, csize)
    allocate(ps(n), pr(n + 1))
    ps = [(ival(crank, i, tag + 13), i = 1, n)]
    pr = GUARD
    call MPI_Irecv(pr, n, MPI_INTEGER, left, 77, comm, reqs(14), ierr)
    call MPI_Isend(ps, n, MPI_INTEGER, right, 77, comm, reqs(15), ierr)

    ! complete them
    seen = 0
    ok = .true.
    select case (how)
    case (1) ! Waitall with statuses: the receive's says who sent
      call MPI_Waitall(NR, reqs, statuses, ierr)
      ok = ierr == MPI_SUCCESS .and. statuses(MPI_SOURCE, 14) == left .and. statuses(MPI_TAG, 14) == 77
      seen = 1
    case (2) ! Waitall, MPI_STATUSES_IGNORE
      call MPI_Waitall(NR, reqs, MPI_STATUSES_IGNORE, ierr)
      ok = ierr == MPI_SUCCESS
      seen = 1
    case (3) ! Testall until done
      flag = .false.
      do while (.not. flag)
        call MPI_Testall(NR, reqs, flag, MPI_STATUSES_IGNORE, ierr)
        ok = ok .and. ierr == MPI_SUCCESS
      end do
      seen = 1
    case (4) ! Waitany one by one, 1-based indices (NR calls: MPICH 4.0's own binding returns
      ! MPI_UNDEFINED + 1 once none is left, pmodels/mpich#6402, fixed in 4.1)
      do k = 1, NR
        call MPI_Waitany(NR, reqs, idx, status, ierr)
        ok = ok .and. ierr == MPI_SUCCESS
        if (ierr /= MPI_SUCCESS) exit
        ok = ok .and. idx >= 1 .and. idx <= NR
        if (.not. ok) exit
        seen(idx) = seen(idx) + 1
        if (idx == 14) ok = ok .and. status(MPI_SOURCE) == left
      end do
    case (5) ! Waitsome
      do
        call MPI_Waitsome(NR, reqs, outc, idxs, statuses, ierr)
        ok = ok .and. ierr == MPI_SUCCESS
        if (outc == MPI_UNDEFINED .or. ierr /= MPI_SUCCESS) exit
        ok = ok .and. outc >= 1 .and. all(idxs(1:outc) >= 1) .and. all(idxs(1:outc) <= NR)
        if (.not. ok) exit
        do k = 1, outc
          seen(idxs(k)) = seen(idxs(k)) + 1
          if (idxs(k) == 14) ok = ok .and. statuses(MPI_SOURCE, k) == left
        end do
      end do
    case (6) ! Testany, then Testsome, in turns, until each request was seen (as for case 4)
      do i = 1, 1000000000
        if (all(seen > 0)) exit
        if (mod(i, 2) == 1) then
          call MPI_Testany(NR, reqs, idx, flag, status, ierr)
          if (flag) then
            ok = ok .and. idx >= 1 .and. idx <= NR
            if (.not. ok) exit
            seen(idx) = seen(idx) + 1
          end if
        else
          call MPI_Testsome(NR, reqs, outc, idxs, MPI_STATUSES_IGNORE, ierr)
          if (outc == MPI_UNDEFINED) exit
          ok = ok .and. all(idxs(1:outc) >= 1) .and. all(idxs(1:outc) <= NR)
          if (.not. ok) exit
          seen(idxs(1:outc)) = seen(idxs(1:outc)) + 1
        end if
        ok = ok .and. ierr == MPI_SUCCESS
      end do
    case (7) ! Wait one by one, odd cranks from the last: ranks wait in different orders
      do k = 1, NR
        i = merge(NR + 1 - k, k, mod(crank, 2) == 1)
        call MPI_Wait(reqs(i), status, ierr)
        ok = ok .and. ierr == MPI_SUCCESS
        seen(i) = 1
        if (i == 14) ok = ok .and. status(MPI_SOURCE) == left
      end do
    case default ! Test until done, and Request_get_status first, one by one in crank-shifted order
      do k = 1, NR
        i = mod(k - 1 + crank, NR) + 1
        flag = .false.
        do while (.not. flag) ! a status: Open MPI 4.1's Fortran binding ignores the request
          call MPI_Request_get_status(reqs(i), flag, status, ierr) ! with MPI_STATUS_IGNORE
        end do
        ok = ok .and. ierr == MPI_SUCCESS .and. reqs(i) /= MPI_REQUEST_NULL
        flag = .false.
        do while (.not. flag)
          call MPI_Test(reqs(i), flag, MPI_STATUS_IGNORE, ierr)
          ok = ok .and. ierr == MPI_SUCCESS
        end do
        seen(i) = 1
      end do
    end select
    write (arg, '("completion ", i0, ", every request once, MPI_REQUEST_NULL after")') how
    call check(ok .and. all(seen == 1) .and. all(reqs == MPI_REQUEST_NULL), trim(what(trim(arg), cname, n, how)))

    ! the values
    call check(all(bc(1:n) == [(ival(root, i, tag + 1), i = 1, n)]) .and. bc(n + 1) == GUARD, &
               trim(what("MPI_Ibcast(MPI_INTEGER)", cname, n, root)))
    call check(all(arr(1:n) == [(sum([(ival(r, i, tag + 2), r = 0, csize - 1)]), i = 1, n)]) .and. &
               arr(n + 1) == GUARD, trim(what("MPI_Iallreduce(MPI_INTEGER, MPI_SUM)", cname, n, 0)))
    call check(all(arp(1:n) == [(maxval([(ival(r, i, tag + 2), r = 0, csize - 1)]), i = 1, n)]) .and. &
               arp(n + 1) == GUARD, trim(what("MPI_Iallreduce(MPI_IN_PLACE, MPI_INTEGER, MPI_MAX)", cname, n, 0)))
    ok = rdr(n + 1) == GUARD
    if (crank == root) ok = ok .and. all(rdr(1:n) == [(sum([(ival(r, i, tag + 4), r = 0, csize - 1)]), i = 1, n)])
    call check(ok, trim(what("MPI_Ireduce(MPI_INTEGER, MPI_SUM)", cname, n, root)))
    ok = gr(n * csize + 1) == GUARD
    if (crank == root) then
      do r = 0, csize - 1
        ok = ok .and. all(gr(r * n + 1:r * n + n) == [(ival(r, i, tag + 5), i = 1, n)])
      end do
    end if
    call check(ok, trim(what("MPI_Igather(MPI_INTEGER)", cname, n, root)))
    ! igatherv: blocks in place, gaps untouched
    ok = gvr(off + 1) == GUARD
    if (crank == root) then
      do r = 0, csize - 1
        ok = ok .and. all(gvr(gvd(r) + 1:gvd(r) + gvc(r)) == [(ival(r, i, tag + 6), i = 1, gvc(r))]) &
                .and. gvr(gvd(r) + gvc(r) + 1) == GUARD
      end do
    end if
    call check(ok, trim(what("MPI_Igatherv(MPI_INTEGER)", cname, n, root)))
    call check(all(sr(1:n) == [(ival(root, crank * n + i, tag + 7), i = 1, n)]) .and. sr(n + 1) == GUARD, &
               trim(what("MPI_Iscatter(MPI_INTEGER)", cname, n, root)))
    call check(all(svr(1:gvc(crank)) == [(ival(root, gvd(crank) + i, tag + 8), i = 1, gvc(crank))]) .and. &
               svr(gvc(crank) + 1) == GUARD, trim(what("MPI_Iscatterv(MPI_INTEGER)", cname, n, root)))
    ok = agr(n * csize + 1) == GUARD
    do r = 0, csize - 1
      ok = ok .and. all(agr(r * n + 1:r * n + n) == [(ival(r, i, tag + 9), i = 1, n)])
    end do
    call check(ok, trim(what("MPI_Iallgather(MPI_INTEGER)", cname, n, 0)))
    ok = avr(off + 1) == GUARD
    do r = 0, csize - 1
      ok = ok .and. all(avr(gvd(r) + 1:gvd(r) + gvc(r)) == [(ival(r, i, tag + 10), i = 1, gvc(r))]) &
              .and. avr(gvd(r) + gvc(r) + 1) == GUARD
    end do
    call check(ok, trim(what("MPI_Iallgatherv(MPI_INTEGER)", cname, n, 0)))
    ok = ar(n * csize + 1) == GUARD
    do r = 0, csize - 1
      ok = ok .and. all(ar(r * n + 1:r * n + n) == [(ival(r, crank * n + i, tag + 11), i = 1, n)])
    end do
    call check(ok, trim(what("MPI_Ialltoall(MPI_INTEGER)", cname, n, 0)))
    ! ialltoallv: r's block for me starts after its blocks for cranks 0..crank-1
    ok = vr(size(vr)) == GUARD
    do r = 0, csize - 1
      j = sum([(mod(r + 2 * k + how, 3) * n, k = 0, crank - 1)])
      ok = ok .and. all(vr(vrd(r) + 1:vrd(r) + vrc(r)) == [(ival(r, j + i, tag + 12), i = 1, vrc(r))]) &
              .and. vr(vrd(r) + vrc(r) + 1) == GUARD
    end do
    call check(ok, trim(what("MPI_Ialltoallv(MPI_INTEGER)", cname, n, 0)))
    call check(all(pr(1:n) == [(ival(left, i, tag + 13), i = 1, n)]) .and. pr(n + 1) == GUARD, &
               trim(what("MPI_Irecv beside them", cname, n, 0)))
    deallocate(bc, ars, arr, arp, rds, rdr, gs, gr, gvs, gvr, gvc, gvd, ss, sr, svs, svr, ags, agr, avs, avr, &
               as, ar, vs, vr, vsc, vsd, vrc, vrd, ps, pr)
  end subroutine

  ! A late crank stores a flag in a shared window just before it enters MPI_Barrier; everyone must
  ! see it after leaving.  A barrier that does not wait fails this (the late crank sleeps 20 ms
  ! first); load cannot make a correct barrier fail it.  Needs every crank on one machine.
  subroutine test_barrier(comm)
    integer, intent(in) :: comm
    integer :: crank, csize, shm, shm_size, win, disp_unit, ierr, late, round, seen, i
    integer(kind=MPI_ADDRESS_KIND) :: bytes, base
    integer, pointer, volatile :: flags(:)
    double precision :: t0

    call MPI_Comm_rank(comm, crank, ierr)
    call MPI_Comm_size(comm, csize, ierr)
    call MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, crank, MPI_INFO_NULL, shm, ierr)
    call MPI_Comm_size(shm, shm_size, ierr)
    if (shm_size == csize) then
      bytes = 0
      if (crank == 0) bytes = 4_MPI_ADDRESS_KIND * csize
      call MPI_Win_allocate_shared(bytes, 4, MPI_INFO_NULL, shm, base, win, ierr)
      call MPI_Win_shared_query(win, 0, bytes, disp_unit, base, ierr)
      call c_f_pointer(transfer(base, c_null_ptr), flags, [csize])
      call MPI_Win_lock_all(MPI_MODE_NOCHECK, win, ierr)
      if (crank == 0) flags = 0
      call MPI_Win_sync(win, ierr)
      call MPI_Barrier(comm, ierr)
      round = 0
      late = 0
      do while (late < csize)
        round = round + 1
        call MPI_Barrier(comm, ierr)
        if (crank == late) then
          t0 = MPI_Wtime()
          do while (MPI_Wtime() - t0 < 0.02d0)
            i = usleep(1000)
          end do
          flags(late + 1) = round
          call MPI_Win_sync(win, ierr)
        end if
        call MPI_Barrier(comm, ierr)
        call MPI_Win_sync(win, ierr)
        seen = flags(late + 1)
        call check(ierr == MPI_SUCCESS .and. seen == round, &
                   "MPI_Barrier returned before the late crank (20 ms) arrived")
        late = late + merge(csize - 1, 1, csize > 2)
      end do
      call MPI_Win_unlock_all(win, ierr)
      call MPI_Win_free(win, ierr)
    end if
    call MPI_Comm_free(shm, ierr)
    do i = 1, 50
      call MPI_Barrier(comm, ierr)
    end do
  end subroutine
end program
