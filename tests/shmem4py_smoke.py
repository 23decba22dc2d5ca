"""shmem4py (PyPI's OpenSHMEM bindings, built against nodeshm by tools/shmem4py.sh) on numpy
arrays.  Run as

    oshrun -np N BUILD/py/bin/python shmem4py_smoke.py

Fresh random data (seed printed by PE 0; NODESHM_TEST_SEED replays): every PE can recompute any
other PE's data from the seed, so each result is checked against values computed here.  Covers
put/get (blocking, strided, non-blocking, with a context), put-with-signal and signal_wait_until,
shmem.ptr (direct loads from a node peer's array), atomics (fetch-add, fetch-inc, compare-swap,
with every PE hitting one target), broadcast from a random root, fcollect, collect with sizes
varying per PE, alltoall, sum/max/min reductions, and teams (split_strided into even and odd PEs,
with a reduction and a sync on each, translate_pe, TEAM_SHARED).  Exit status 77 when shmem4py is
not importable (the test is then skipped)."""
import os
import sys
import time

try:
    import numpy as np
    from shmem4py import shmem
except ImportError as e:  # not built here: skipped, not failed
    print("shmem4py_smoke: SKIP: cannot import shmem4py (%s)" % e)
    sys.exit(77)

mype, npes = shmem.my_pe(), shmem.n_pes()
failures = checks = 0


def check(cond, what):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        if failures <= 10:
            sys.stderr.write("PE %d: check failed: %s\n" % (mype, what))


# the nodeshm of this build, not another OpenSHMEM
check(shmem.VENDOR_STRING.startswith("nodeshm"), "vendor %r" % shmem.VENDOR_STRING)

# One seed for all PEs: PE 0's, broadcast (which is itself checked: every PE gets the same value).
seedbuf = shmem.zeros(1, dtype="i8")
seedsrc = shmem.zeros(1, dtype="i8")
if mype == 0:
    seedsrc[0] = int(os.environ.get("NODESHM_TEST_SEED") or (time.time_ns() ^ os.getpid()) % 2**31)
shmem.barrier_all()
shmem.broadcast(seedbuf, seedsrc, 0)
if mype == 0:  # OpenSHMEM 1.5 (team) broadcast also writes the root's target
    print("shmem4py_smoke: seed %d (NODESHM_TEST_SEED replays)" % seedbuf[0], flush=True)
seed = int(seedbuf[0])
allseeds = shmem.zeros(npes, dtype="i8")
shmem.fcollect(allseeds, seedbuf)
check(np.all(allseeds == seed), "broadcast seed: PEs got %s" % allseeds.tolist())


def data(pe, n=1000, dtype="f8", tag=0):
    """PE pe's random data for step tag: any PE can compute it."""
    rng = np.random.default_rng([seed, pe, tag])
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(n).astype(dtype)
    return rng.integers(-2**20, 2**20, n).astype(dtype)


nxpe, prpe = (mype + 1) % npes, (mype - 1) % npes
n = 1000

# ---- put, get: blocking, strided, non-blocking, on a context --------------------------------
src = shmem.array(data(mype, n, tag=1))
dst = shmem.full(n, np.nan)
shmem.barrier_all()
shmem.put(dst, src, nxpe)
shmem.barrier_all()
check(np.array_equal(dst, data(prpe, n, tag=1)), "put from PE %d" % prpe)

got = np.empty(n)
shmem.get(got, src, nxpe)
check(np.array_equal(got, data(nxpe, n, tag=1)), "get from PE %d" % nxpe)

idst = shmem.full(2 * n, -1, dtype="i4")
isrc = data(mype, n, "i4", tag=2)
shmem.barrier_all()
shmem.iput(idst, isrc, nxpe, tst=2, sst=1, size=n)
shmem.barrier_all()
check(np.array_equal(idst[0::2], data(prpe, n, "i4", tag=2)) and np.all(idst[1::2] == -1),
      "iput (stride 2) from PE %d" % prpe)

nsrc = shmem.array(data(mype, n, "i8", tag=3))
ndst = shmem.zeros(n, dtype="i8")
shmem.barrier_all()
with shmem.Ctx.create() as ctx:
    shmem.put_nbi(ndst, nsrc, prpe, ctx=ctx)
    ctx.quiet()
shmem.barrier_all()
check(np.array_equal(ndst, data(nxpe, n, "i8", tag=3)), "put_nbi on a context from PE %d" % nxpe)
gnbi = np.zeros(n, dtype="i8")
shmem.get_nbi(gnbi, nsrc, prpe)
shmem.quiet()
check(np.array_equal(gnbi, data(prpe, n, "i8", tag=3)), "get_nbi from PE %d" % prpe)

# ---- put with signal ---------------------------------------------------------------------------
sig = shmem.new_signal()
sdst = shmem.zeros(n, dtype="f4")
shmem.barrier_all()
shmem.put_signal(sdst, data(mype, n, "f4", tag=4), nxpe, sig, 1, shmem.SIGNAL_ADD)
value = shmem.signal_wait_until(sig, shmem.CMP_GE, 1)
check(value == 1, "signal value %d, expected 1" % value)
check(np.array_equal(sdst, data(prpe, n, "f4", tag=4)), "put_signal data from PE %d" % prpe)
shmem.barrier_all()
shmem.del_signal(sig)

# ---- shmem.ptr: a node peer's array by loads ---------------------------------------------------
# One node, cut into pseudo-nodes of k consecutive PEs by NODESHM_PES_PER_NODE=k (then the
# calls between pseudo-nodes take the MPI path, and shmem.ptr to them is None).
ppn = int(os.environ.get("NODESHM_PES_PER_NODE") or npes)
node_of = [p // ppn for p in range(npes)]
view = shmem.ptr(src, nxpe)
if node_of[nxpe] == node_of[mype]:
    check(view is not None and np.array_equal(view, data(nxpe, n, tag=1)),
          "shmem.ptr view of PE %d" % nxpe)
else:
    check(view is None, "shmem.ptr to PE %d on another (pseudo-)node is not None" % nxpe)

# ---- atomics: every PE on one target ----------------------------------------------------------
counter = shmem.zeros(1, dtype="i8")
ticket = shmem.zeros(1, dtype="i8")
owner = shmem.full(1, -1, dtype="i4")
adds = [int(data(p, 1, "i8", tag=5)[0]) for p in range(npes)]
shmem.barrier_all()
old = shmem.atomic_fetch_add(counter, adds[mype], 0)
t = shmem.atomic_fetch_inc(ticket, npes - 1)
won = shmem.atomic_compare_swap(owner, -1, mype, npes // 2)
shmem.barrier_all()
tickets = shmem.zeros(npes, dtype="i8")
tk = shmem.array([t], dtype="i8")
shmem.fcollect(tickets, tk)
check(sorted(tickets.tolist()) == list(range(npes)), "fetch_inc tickets %s" % tickets.tolist())
if mype == 0:
    check(counter[0] == sum(adds), "fetch_add total %d, expected %d" % (counter[0], sum(adds)))
fetched = shmem.atomic_fetch(owner, npes // 2)
check(0 <= fetched < npes and (won == -1) == (fetched == mype),
      "compare_swap: got %d, owner %d" % (won, fetched))
check(shmem.atomic_fetch(counter, 0) == sum(adds), "atomic_fetch of the total")

# ---- collectives ----------------------------------------------------------------------------------
root = int(np.random.default_rng([seed, 99]).integers(npes))
bsrc = shmem.array(data(mype, n, "i8", tag=6))
bdst = shmem.zeros(n, dtype="i8")
shmem.barrier_all()
shmem.broadcast(bdst, bsrc, root)
check(np.array_equal(bdst, data(root, n, "i8", tag=6)), "broadcast from root %d" % root)

m = 37
fsrc = shmem.array(data(mype, m, "f8", tag=7))
fdst = shmem.zeros(m * npes)
shmem.fcollect(fdst, fsrc)
check(np.array_equal(fdst, np.concatenate([data(p, m, "f8", tag=7) for p in range(npes)])),
      "fcollect")

sizes = [1 + (p * 7 + seed) % 11 for p in range(npes)]
csrc = shmem.array(data(mype, sizes[mype], "i4", tag=8))
cdst = shmem.zeros(sum(sizes), dtype="i4")
shmem.collect(cdst, csrc, size=sizes[mype])
check(np.array_equal(cdst, np.concatenate([data(p, sizes[p], "i4", tag=8) for p in range(npes)])),
      "collect with sizes %s" % sizes)

k = 5
asrc = shmem.array(data(mype, k * npes, "i8", tag=9))
adst = shmem.zeros(k * npes, dtype="i8")
shmem.alltoall(adst, asrc, size=k)
want = np.concatenate([data(p, k * npes, "i8", tag=9)[mype * k:(mype + 1) * k] for p in range(npes)])
check(np.array_equal(adst, want), "alltoall")

everyone = [data(p, n, "i8", tag=10) for p in range(npes)]
rsrc = shmem.array(everyone[mype])
rdst = shmem.zeros(n, dtype="i8")
for op, ref in (("sum", np.sum), ("max", np.max), ("min", np.min)):
    shmem.reduce(rdst, rsrc, op)
    check(np.array_equal(rdst, ref(everyone, axis=0)), "%s_reduce (i8)" % op)
dsrc = shmem.array(data(mype, n, "f8", tag=11))
ddst = shmem.zeros(n)
shmem.sum_reduce(ddst, dsrc)
check(np.allclose(ddst, np.sum([data(p, n, "f8", tag=11) for p in range(npes)], axis=0)),
      "sum_reduce (f8)")

# ---- teams ------------------------------------------------------------------------------------------
world = shmem.TEAM_WORLD
check(world.n_pes() == npes and world.my_pe() == mype, "TEAM_WORLD")
shared = node_of.count(node_of[mype])
check(shmem.TEAM_SHARED.n_pes() == shared, "TEAM_SHARED has %d PEs, expected %d"
      % (shmem.TEAM_SHARED.n_pes(), shared))
parity = mype % 2
evens = world.split_strided(0, 2, (npes + 1) // 2)
odds = world.split_strided(1, 2, npes // 2) if npes > 1 else shmem.Team()
mine = evens if parity == 0 else odds
other = odds if parity == 0 else evens
check(bool(mine) and not other, "membership: in %s team only" % ("even", "odd")[parity])
members = list(range(parity, npes, 2))
check(mine.n_pes() == len(members) and mine.my_pe() == mype // 2,
      "team of %s: n_pes %d my_pe %d" % (members, mine.n_pes(), mine.my_pe()))
check(mine.translate_pe(mine.my_pe(), world) == mype, "translate_pe to world")
tsrc = shmem.array(data(mype, n, "i8", tag=12))
tdst = shmem.zeros(n, dtype="i8")
shmem.barrier_all()
shmem.reduce(tdst, tsrc, "sum", team=mine)
check(np.array_equal(tdst, np.sum([data(p, n, "i8", tag=12) for p in members], axis=0)),
      "sum_reduce over team %s" % members)
mine.sync()
shmem.barrier_all()
evens.destroy()
odds.destroy()

# ---- verdict -------------------------------------------------------------------------------------
bad = shmem.array([failures], dtype="i8")
allbad = shmem.zeros(1, dtype="i8")
shmem.barrier_all()
shmem.sum_reduce(allbad, bad)
total = int(allbad[0]) if failures == 0 else max(failures, int(allbad[0]))
if mype == 0:
    print("shmem4py_smoke: %d PEs: %d checks per PE, %d failed: %s"
          % (npes, checks, total, "PASS" if total == 0 else "FAIL"), flush=True)
sys.exit(0 if total == 0 else 1)
