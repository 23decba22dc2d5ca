"""The tuning file `report` writes (the thresholds the library reads: src/core/tuning.h):
libnodeshm_mpi's NODESHM_MPI_<OP>_MAX/_MIN from a coll run with the thresholds raised, and the
OpenSHMEM collectives' NODESHM_COLL_EAGER_MAX from runs of its own (run_coll_eager)."""
import datetime
import math
import platform
import re

from .machine import np_cores, topology_text
from .rows import groups, pivot
from .runners import Run, find_exe, run_program
from .text import fmt_bytes, note

# NODESHM_COLL_EAGER_MAX (src/core/coll/team/turns.c): `report` runs the OpenSHMEM broadcast, collect and
# alltoall with every contribution staged (eager, EAGER_ALL) and with none (rendezvous, 0) over
# EAGER_SIZES and keeps the largest size up to which eager is at least as fast (>= KEEP_RATIO)
EAGER_OPS = ("bcast", "collect", "alltoall")
EAGER_ALL = 65536  # NODESHM_COLL_STAGE_BYTES: the most the library accepts
EAGER_SIZES = "256:65536"  # 1K..64K asked; from 256 B so that "eager loses at 1K" is measured too
EAGER_ROUNDS = 3  # runs of each setting, alternating: one run's noise does not decide
# the thresholds `report` derives: NODESHM_MPI_<OP>_MAX, largest size with nodeshm >= 0.95x
KEEP_RATIO = 0.95
RAISED = "1073741824"  # 1 GiB: every size takes the nodeshm path
# ... except alltoall(v): their shared matrix has a fixed stride of one threshold per block, so
# a 1 GiB threshold cannot be mapped and they would fall back to the MPI library at every size
# (measuring it against itself).  They are measured up to A2A_RAISED, with room made for it.
A2A_OPS = ("alltoall", "alltoallv")
A2A_RAISED = 65536
# ops that also take a lower bound NODESHM_MPI_<OP>_MIN (NSM_OP_MINS in src/mpi/nsmpi_config.h):
# for them the tuning is a window [MIN, MAX]
MPI_MIN_OPS = {"bcast", "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv", "reduce"}
MPI_SIZED_OPS = ["bcast", "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv",
                 "reduce", "allreduce", "reduce_scatter_block", "alltoall", "alltoallv"]


def raised_env(np_):
    """The environment of a coll-mpi run with libnodeshm_mpi's thresholds raised
    (coll --raise-thresholds, and `report`, which derives the thresholds from that run)."""
    env = {}
    for op in MPI_SIZED_OPS:
        env["NODESHM_MPI_%s_MAX" % op.upper()] = \
            str(A2A_RAISED) if op in A2A_OPS else RAISED
        env["NODESHM_MPI_%s_MIN" % op.upper()] = "0"
    env["NODESHM_MPI_STAGE_MAX"] = str(2 * np_ * np_ * A2A_RAISED)
    return env


def thresholds(rows):
    """NODESHM_MPI_<OP>_MAX: going up from the smallest measured size, the largest size up to
    which libnodeshm_mpi's op still takes at most 1/0.95 of the MPI library's time (ratio
    mpi_lib / nodeshm >= 0.95 at that size and every smaller one), from a run with the
    thresholds raised; 0 (off) when it loses at the smallest size.  A MAX switches the op on for
    every size below it, so a later win above a loss cannot be used; the reason says where.
    Returns {name: (value, why, ratios)}."""
    out = {}
    for (prog, test), rs in groups(rows).items():
        if prog != "coll-mpi" or test not in MPI_SIZED_OPS:
            continue
        keys, _, cell = pivot(rs)
        sizes, best, lost_below = [], 0, []
        for k in keys:
            c = cell[k]
            if "mpi_lib" not in c or "nodeshm" not in c or c["nodeshm"]["median_us"] <= 0:
                continue
            ratio = c["mpi_lib"]["median_us"] / c["nodeshm"]["median_us"]
            sizes.append((k[0], ratio))
        if not sizes:
            continue
        sizes.sort()
        if test in MPI_MIN_OPS:
            # a window: the longest run of consecutive sizes that keep up (the larger on ties)
            runs, cur = [], []
            for b, ratio in sizes:
                if ratio >= KEEP_RATIO:
                    cur.append(b)
                elif cur:
                    runs.append(cur)
                    cur = []
            if cur:
                runs.append(cur)
            if runs:
                run = max(runs, key=lambda r: (len(r), r[-1]))
                lo = 0 if run[0] == sizes[0][0] else run[0]
                best = run[-1]
                others = [b for r in runs if r is not run for b in r]
                why = "nodeshm >= %.2fx of the MPI library from %s B to %s B" % (
                    KEEP_RATIO, fmt_bytes(run[0]), fmt_bytes(best))
                if others:
                    why += "; also at %s B (outside the window)" % ", ".join(map(fmt_bytes, others))
            else:
                lo, why = 0, "nodeshm below %.2fx of the MPI library at every size: off" % KEEP_RATIO
            ratios = " ".join("%s:%.2f" % (fmt_bytes(b), r) for b, r in sizes)
            out["NODESHM_MPI_%s_MIN" % test.upper()] = (lo, "lower end of the window: see its _MAX",
                                                        ratios)
            out["NODESHM_MPI_%s_MAX" % test.upper()] = (best, why, ratios)
            continue
        if test in A2A_OPS:  # above A2A_RAISED both columns were the MPI library
            sizes = [(b, r) for b, r in sizes if b <= A2A_RAISED]
        for b, ratio in sizes:
            if ratio < KEEP_RATIO:
                break
            best = b
        wins_above = [b for b, ratio in sizes if ratio >= KEEP_RATIO and b > best]
        why = ("nodeshm >= %.2fx of the MPI library up to %s B" % (KEEP_RATIO, fmt_bytes(best))
               if best else "nodeshm below %.2fx of the MPI library at %s B: off" % (
                   KEEP_RATIO, fmt_bytes(sizes[0][0])))
        if wins_above:
            why += "; it keeps up again at %s B (unused: a MAX covers every smaller size)" % \
                ", ".join(fmt_bytes(b) for b in wins_above)
        ratios = " ".join("%s:%.2f" % (fmt_bytes(b), r) for b, r in sizes)
        out["NODESHM_MPI_%s_MAX" % test.upper()] = (best, why, ratios)
    return out


def run_coll_eager(a, topo, env, progress=""):
    """NODESHM_COLL_EAGER_MAX: the OpenSHMEM broadcast, collect and alltoall over EAGER_SIZES,
    with every contribution staged (NODESHM_COLL_EAGER_MAX=EAGER_ALL) and with none (=0).  The
    setting is read at shmem_init, so these are separate runs, EAGER_ROUNDS of each, alternating;
    per point the median of the runs' medians (min of mins, max of maxes).  The nodeshm rows
    become mechanisms nodeshm_eager and nodeshm_rendezvous of one run labelled coll-eager (the
    MPI rows, a yardstick inside each run, are left out)."""
    exe = find_exe(["nodeshm-bench-coll"])
    np_ = a.n if a.n else np_cores(topo)
    args = ["-m", EAGER_SIZES, "-o", ",".join(EAGER_OPS)] + \
        (["-i", str(a.i)] if a.i is not None else []) + (["-x", str(a.x)] if a.x is not None else [])
    e = dict(env)
    if a.quick:
        e["NODESHM_BENCH_QUICK"] = "1"
    merged = Run("coll-eager", exe or "nodeshm-bench-coll", np_, args, e)
    if not exe:
        merged.why = "nodeshm-bench-coll is not built: skipped"
        return [merged]
    samples = {}  # (test, bytes, mechanism) -> rows of the rounds
    rounds = 2 if a.quick else EAGER_ROUNDS  # quick: still more than one, to merge
    for rnd in range(1, rounds + 1):
        for mech, value in (("nodeshm_eager", EAGER_ALL), ("nodeshm_rendezvous", 0)):
            run = Run("coll-eager", exe, np_, args, dict(e, NODESHM_COLL_EAGER_MAX=str(value)))
            if progress:
                note("%s coll-eager %d/%d (NODESHM_COLL_EAGER_MAX=%d)" % (progress, rnd, rounds,
                                                                         value))
            run_program(run, a.timeout, not a.quiet)
            merged.seconds += run.seconds
            merged.stderr += run.stderr
            if run.status != "ok":
                run.why = "NODESHM_COLL_EAGER_MAX=%d: %s" % (value, run.why)
                return [run]
            for r in run.rows:
                if r["mechanism"] == "nodeshm":
                    samples.setdefault((r["test"], r["bytes"], mech), []).append(r)
    for (test, b, mech), rs in samples.items():
        med = sorted(r["median_us"] for r in rs)[len(rs) // 2]
        merged.rows.append(dict(rs[0], mechanism=mech, median_us=med,
                                min_us=min(r["min_us"] for r in rs),
                                max_us=max(r["max_us"] for r in rs),
                                mbps=round(b / med, 2) if med > 0 else 0))
    merged.env["NODESHM_COLL_EAGER_MAX"] = "%d/0" % EAGER_ALL
    merged.status = "ok"
    merged.why = "%d rows: median of %d runs with NODESHM_COLL_EAGER_MAX=%d and %d with 0, " \
        "alternating, in %.1fs" % (len(merged.rows), rounds, EAGER_ALL, rounds, merged.seconds)
    return [merged]


def eager_threshold(rows):
    """NODESHM_COLL_EAGER_MAX from the coll-eager rows: per size, the ratio rendezvous time /
    eager time of each op and their geometric mean; going up from the smallest size, the
    largest size up to which the mean stays >= KEEP_RATIO (eager at least as fast, within the
    tolerance the MPI thresholds use: these are medians from separate runs).  Returns
    {name: (value, why, ratios)} or {} when not measured."""
    cell = {}
    for r in rows:
        if r["program"] == "coll-eager" and r["median_us"] > 0:
            cell.setdefault(r["bytes"], {}).setdefault(r["test"], {})[r["mechanism"]] = r["median_us"]
    per_size = []
    for b in sorted(cell):
        ops = {t: m["nodeshm_rendezvous"] / m["nodeshm_eager"] for t, m in cell[b].items()
               if "nodeshm_rendezvous" in m and "nodeshm_eager" in m}
        if ops:
            gm = 1.0
            for v in ops.values():
                gm *= v
            per_size.append((b, gm ** (1.0 / len(ops)), ops))
    if not per_size:
        return {}
    best = None
    for b, gm, _ in per_size:
        if gm < KEEP_RATIO:
            break
        best = b
    lost = next((b for b, gm, _ in per_size if gm < KEEP_RATIO), None)
    if best is None:  # eager loses at the smallest size: stay below it (smaller: not measured)
        value = per_size[0][0] // 2
        why = "eager slower already at %s B, the smallest size measured: %d keeps it below" % (
            fmt_bytes(per_size[0][0]), value)
    else:
        value = best
        why = "eager at least as fast as rendezvous (ratio >= %.2f) up to %s B%s" % (
            KEEP_RATIO, fmt_bytes(best), (" (slower at %s B)" % fmt_bytes(lost)) if lost else
            " (the largest size measured)")
    ratios = "; ".join("%s: %.2f [%s]" % (fmt_bytes(b), gm, " ".join(
        "%s %.2f" % (t, ops[t]) for t in EAGER_OPS if t in ops)) for b, gm, ops in per_size)
    return {"NODESHM_COLL_EAGER_MAX": (value, why, ratios)}


# auto may pick these (the shmem-* strategies need shmem_init and every PE in the plan)
FFT_AUTO_CANDIDATES = ("mpi-p2p", "mpi-alltoallv", "node")


def fft_strategy(rows):
    """NODESHM_FFT_STRATEGY: the strategy nodeshm-fft's auto uses, the one whose forward+backward
    pairs took the least time in geometric mean over the grids and rank counts measured (tests
    fft_np<N>).  {} when nothing was measured."""
    logs = {}
    for r in rows:
        if r["program"] == "fft" and re.match(r"fft_np\d+$", r["test"]) and \
                r["mechanism"] in FFT_AUTO_CANDIDATES and r["median_us"] > 0:
            logs.setdefault(r["mechanism"], {})[(r["test"], r["param"])] = math.log(r["median_us"])
    if not logs:
        return {}
    keys = set.intersection(*(set(v) for v in logs.values()))
    if not keys:
        return {}
    mean = {m: sum(v[k] for k in keys) / len(keys) for m, v in logs.items()}
    best = min(mean, key=mean.get)
    ratios = ", ".join("%s %.2fx" % (m, math.exp(mean[m] - mean[best])) for m in sorted(mean))
    why = "nodeshm-fft's auto: the fastest forward+backward pairs over %d grid/rank points" % len(keys)
    return {"NODESHM_FFT_STRATEGY": (best, why, ratios)}


def tuning_text(th, topo, flavor, mpi_version, pes):
    lines = ["# nodeshm tuning file: written by `nodeshm-bench report` on %s, %s" % (
        platform.node(), datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")),
        "# machine: %s" % topology_text(topo),
        "# MPI: %s %s, %s ranks" % (flavor, mpi_version, pes),
        "# Read by libnodeshm and libnodeshm_mpi from NODESHM_TUNING=<this file> or",
        "# ${XDG_CONFIG_HOME:-~/.config}/nodeshm/tuning.conf; the environment wins over it.",
        "# NODESHM_MPI_<OP>_MAX: largest message size (bytes) for the node-aware path: going up from",
        "# the smallest size, the last at which it still takes <= 1/%.2f of the MPI library's time" % KEEP_RATIO,
        "# (0: off); with NODESHM_MPI_<OP>_MIN (ops that have one), the window where it does.",
        "# NODESHM_COLL_EAGER_MAX: OpenSHMEM broadcast/collect/alltoall stage contributions up to",
        "# this size (eager) and let peers read the source above it (rendezvous)."]
    if not th:
        lines.append("# (no thresholds measured: the MPI benchmark did not run; see report.md)")
    for name, (value, why, ratios) in sorted(th.items()):
        if name.endswith("_MIN"):  # the comment above its MAX line explains the window
            lines.append("%s=%d" % (name, value))
            continue
        if name == "NODESHM_FFT_STRATEGY":
            lines.append("# %s; time / the best's (geometric mean): %s" % (why, ratios))
            lines.append("%s=%s" % (name, value))
            continue
        if name == "NODESHM_COLL_EAGER_MAX":
            lines.append("# %s; ratio (rendezvous time / eager time, geometric mean [per op]) per "
                         "size: %s" % (why, ratios))
        else:
            lines.append("# %s; ratio (MPI library time / nodeshm time) per size: %s" % (why, ratios))
        lines.append("%s=%d" % (name, value))
    return "\n".join(lines) + "\n"
