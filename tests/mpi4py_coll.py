"""mpi4py under LD_PRELOAD=libnodeshm_mpi.so: a Python MPI program is accelerated without
rebuilding anything.  Run as

    oshrun -np N env LD_PRELOAD=libnodeshm_mpi.so python mpi4py_coll.py [--expect mpich|openmpi]

Allreduce (sum, max, several types and sizes), Bcast from every root, Gather to every root and
Barrier on fresh random data (seed printed by rank 0; NODESHM_TEST_SEED replays), buffers from
the array module (no numpy needed); every result checked against values computed here.  Proves
that the interposer ran the calls (nodeshm_mpi_accelerated() > 0, through ctypes) and that
mpi4py uses the MPI it was meant to (MPI.Get_library_version(), --expect).  Exit status 77 if
mpi4py is missing (the test is then skipped)."""
import array
import ctypes
import os
import random
import sys
import time

try:
    from mpi4py import MPI
except ImportError as e:  # no mpi4py in this Python: skipped, not failed
    print("mpi4py_coll: SKIP: cannot import mpi4py (%s)" % e)
    sys.exit(77)

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
failures = 0
checks = 0


def check(cond, what):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        if failures <= 10:
            sys.stderr.write("rank %d: check failed: %s\n" % (rank, what))


lib = MPI.Get_library_version()
expect = sys.argv[sys.argv.index("--expect") + 1] if "--expect" in sys.argv else None
if expect:
    name = {"mpich": "MPICH", "openmpi": "Open MPI"}.get(expect, expect)
    check(name in lib, "mpi4py uses %r, expected %s" % (lib.splitlines()[0], name))

try:
    accelerated = ctypes.CDLL(None).nodeshm_mpi_accelerated
    accelerated.restype = ctypes.c_long
except AttributeError:
    accelerated = None
check(accelerated is not None, "nodeshm_mpi_accelerated not found: is libnodeshm_mpi.so preloaded?")

seed = None
if rank == 0:
    env = os.environ.get("NODESHM_TEST_SEED")
    seed = int(env, 0) if env else (int(time.time()) ^ (os.getpid() << 20))
    print("seed %d (replay with NODESHM_TEST_SEED=%d)" % (seed, seed))
    print("mpi4py %s over %s" % (sys.modules["mpi4py"].__version__, lib.splitlines()[0].strip()))
    sys.stdout.flush()
seed = comm.bcast(seed, root=0)


def stream(r, k):
    """Rank r's values for test k: any rank can recompute them."""
    return random.Random((seed * 1000003 + r) * 131 + k)


# Allreduce: sums of integers are exact; max for doubles.  Sizes across the interposer's
# thresholds (bytes: 8 .. 256 KiB, odd counts too).
k = 0
for count in (1, 7, 100, 1001, 4096, 32769):
    for code, mpitype, op in (("l", MPI.LONG, MPI.SUM), ("i", MPI.INT, MPI.SUM), ("d", MPI.DOUBLE, MPI.MAX)):
        k += 1
        mine = stream(rank, k)
        send = array.array(code, [(mine.randrange(-10**6, 10**6) if code != "d" else mine.uniform(-1e9, 1e9))
                                  for _ in range(count)])
        recv = array.array(code, bytes(len(send) * send.itemsize))
        comm.Allreduce([send, mpitype], [recv, mpitype], op=op)
        expect_vals = None
        for r in range(size):
            g = stream(r, k)
            v = [(g.randrange(-10**6, 10**6) if code != "d" else g.uniform(-1e9, 1e9)) for _ in range(count)]
            if expect_vals is None:
                expect_vals = v
            elif op == MPI.SUM:
                expect_vals = [a + b for a, b in zip(expect_vals, v)]
            else:
                expect_vals = [max(a, b) for a, b in zip(expect_vals, v)]
        check(list(recv) == expect_vals, "Allreduce %s count %d %s" % (code, count, "sum" if op == MPI.SUM else "max"))

# Bcast from every root, several sizes
for root in range(size):
    for count in (3, 1000, 20000):
        k += 1
        g = stream(root, k)
        want = array.array("d", [g.random() for _ in range(count)])
        buf = array.array("d", want) if rank == root else array.array("d", bytes(8 * count))
        comm.Bcast([buf, MPI.DOUBLE], root=root)
        check(buf == want, "Bcast root %d count %d" % (root, count))

# Gather to every root
for root in range(size):
    for count in (1, 333, 4000):
        k += 1
        g = stream(rank, k)
        send = array.array("q", [g.getrandbits(62) for _ in range(count)])
        recv = array.array("q", bytes(8 * count * size)) if rank == root else None
        comm.Gather([send, MPI.INT64_T], [recv, MPI.INT64_T] if rank == root else None, root=root)
        if rank == root:
            want = []
            for r in range(size):
                gr = stream(r, k)
                want += [gr.getrandbits(62) for _ in range(count)]
            check(list(recv) == want, "Gather root %d count %d" % (root, count))

# Barrier: nobody leaves before everybody arrived.  The others send to rank 0 only after
# barrier `it`; rank 0 dawdles before entering it and must not see any such message yet.
for it in range(20):
    if rank == 0:
        time.sleep(0.002)
        check(not comm.Iprobe(source=MPI.ANY_SOURCE, tag=100 + it), "a rank left Barrier %d early" % it)
    comm.Barrier()
    if rank != 0:
        comm.send(it, dest=0, tag=100 + it)
    else:
        for _ in range(size - 1):
            check(comm.recv(source=MPI.ANY_SOURCE, tag=100 + it) == it, "message after Barrier %d" % it)

n_acc = accelerated() if accelerated else 0
if size > 1:
    check(n_acc > 0, "the interposer ran no collective itself (nodeshm_mpi_accelerated() = %d)" % n_acc)
total = comm.allreduce(failures, op=MPI.SUM)
all_checks = comm.allreduce(checks, op=MPI.SUM)
acc = comm.allreduce(n_acc, op=MPI.SUM)
if rank == 0:
    print("mpi4py_coll: %d ranks: %d checks, %d calls run by nodeshm: %s"
          % (size, all_checks, acc, "PASS" if total == 0 else "FAIL (%d failed)" % total))
sys.exit(1 if total else 0)
