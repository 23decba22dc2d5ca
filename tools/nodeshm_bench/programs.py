"""The subcommands that run the benchmark programs of bench/ (they print the CSV contract):
which programs each runs, with how many PEs and what environment, and what each prints on its
own (tables, or --csv / --json; the map's heatmaps)."""
import os

from . import config, plots, tuning
from .machine import np_cores, np_pairs, topology_text
from .runners import Run, find_exe, program_args, run_program, speaks_csv
from .subcommand import Subcommand
from .text import note

# --cold (a rotation of buffers >= 2 x LLC, bench/bench_util.h): the programs that have one
COLD_SUBCOMMANDS = ("p2p", "pairs", "dt")

# subcommand -> the programs it runs: (label, executable candidates, default PE count)
PROGRAMS = {
    "map": [("map", ["nodeshm-bench-map"], np_cores)],
    "pairs": [("pairs", ["nodeshm-bench-pairs"], np_pairs)],
    "p2p": [("p2p", ["nodeshm-bench-p2p"], lambda t: 2)],
    "coll": [("coll-shmem", ["nodeshm-bench-coll"], np_cores),
             ("coll-mpi", ["nodeshm-bench-mpi_osu"], np_cores)],
    # dt-multi: P/2 pairs at once (-p), where there are at least 4 PEs
    "dt": [("dt", ["nodeshm-bench-dt"], lambda t: 2),
           ("dt-multi", ["nodeshm-bench-dt"], np_pairs)],
    "seed-gather": [("seed-gather", ["nodeshm-bench-mpi_seed_gather",
                                     "nodeshm-bench-seed_gather"], np_cores)],
    "seed-alltoall": [("seed-alltoall", ["nodeshm-bench-seed_alltoall",
                                         "nodeshm-bench-mpi_seed_alltoall"], np_cores)],
}
DESCRIPTIONS = {
    "map": "core-to-core copy bandwidth matrix, hot and cold buffers (heatmap PNG)",
    "pairs": "N concurrent pairs: shared mapping vs CMA (vs XPMEM)",
    "p2p": "latency, bandwidth, bidirectional bandwidth: nodeshm put/get, MPI send/recv and RMA, "
           "CMA, memcpy; between pseudo-nodes (NODESHM_PES_PER_NODE=1) also rma_put/rma_get: "
           "nodeshm beside MPI_Put/MPI_Get on its own window (large sizes: -m 1M:64M)",
    "coll": "collectives of both faces (OpenSHMEM, libnodeshm_mpi) beside the MPI library's",
    "dt": "strided transfers by block size: shared memory non-pipelined and pipelined, CMA, "
          "XPMEM, MPI_Type_vector; one pair, and P/2 pairs at once (dt-multi, P >= 4)",
    "seed-gather": "seed scenario: node-shared data vs MPI_Gather",
    "seed-alltoall": "seed scenario: alltoall",
}


def run_subcommand(name, a, topo, extra_env=None, extra_args=None, progress="", labels=None):
    """Runs the programs of subcommand NAME (PROGRAMS; only those of LABELS if given); returns
    their Runs."""
    runs = []
    for label, names, npf in PROGRAMS[name]:
        if labels is not None and label not in labels:
            continue
        exe = find_exe(names)
        np_ = a.n if a.n else npf(topo)
        env = {}
        if a.quick:
            env["NODESHM_BENCH_QUICK"] = "1"
        if label == "coll-mpi" and getattr(a, "raise_thresholds", False):
            env.update(tuning.raised_env(np_))
        if label == "map":
            # the cold buffer is symmetric: make room whatever the default heap is
            env.setdefault("SHMEM_SYMMETRIC_SIZE", "256M")
        env.update(extra_env or {})
        run = Run(label, exe or names[0], np_, program_args(a) + (extra_args or {}).get(label, []),
                  env)
        if label == "dt-multi":
            run.args = run.args + ["-p", str(np_ // 2)]
        if not exe:
            run.why = "%s is not built: skipped" % " / ".join(names)
        elif label == "dt-multi" and np_ < 4:
            run.why = "multi-pair needs >= 4 PEs (%d here; -n 4 oversubscribes): skipped" % np_
        elif not speaks_csv(exe):
            run.why = "%s does not print the CSV contract (--csv) yet: skipped" % os.path.basename(exe)
        else:
            if progress:
                note("%s %s" % (progress, label))
            run_program(run, a.timeout, not a.quiet)
        if run.status != "ok":
            note("%s: %s" % (label, run.why))
        runs.append(run)
    return runs


class Programs(Subcommand):
    """A subcommand that runs the programs PROGRAMS[name]."""

    def __init__(self, name):
        self.name, self.help = name, DESCRIPTIONS[name]

    def add_arguments(self, parser):
        if self.name in COLD_SUBCOMMANDS:
            parser.add_argument("--cold", action="store_true",
                                help="cold caches: each operation on the next buffer of a rotation "
                                ">= 2 x the last-level cache (capped by NODESHM_BENCH_COLD_BUDGET "
                                "bytes per PE, default 1G; the cap is reported); tests <test>_cold")

    def run(self, a, topo):
        runs = run_subcommand(self.name, a, topo, extra_args=self.extra_args(a), labels=self.labels(a))
        status = self.print_runs(a, topo, runs, [
            "# nodeshm-bench %s: %s" % (self.name, self.help), "# %s" % topology_text(topo),
            "# winner: fastest mechanism (memcpy/cacheline are references, not competitors); "
            "margin: next best time / winner's time"] +
            (["# on %d emulated hosts (oshrun --hosts %d): tests <test>_hosts%d" %
              ((config.HOSTS,) * 3)] if config.HOSTS else []))
        self.draw(a, [r for run in runs for r in run.rows])
        return status

    def draw(self, a, rows):
        """Plots of a run on its own: none but the map's."""

    def extra_args(self, a):
        """Per-program flags of this subcommand's own options ({label: [args]})."""
        return {}

    def labels(self, a):
        """The programs this run needs (None: all of the subcommand's)."""
        return None

    def suite_runs(self, a, topo, env, extra_args, progress):
        return run_subcommand(self.name, a, topo, env, extra_args, progress=progress)


class Map(Programs):
    plots = True

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--plots", metavar="DIR", help="where the heatmap PNGs go "
                            "(default: . with the tables; none with --csv/--json)")

    def draw(self, a, rows):
        if rows and (a.plots or not (a.csv or a.json)):
            a.plots = a.plots or "."
            os.makedirs(a.plots, exist_ok=True)
            made, _ = plots.plot_all(rows, a.plots, {"map_hot", "map_cold"})
            for f in made.values():
                note("heatmap %s" % os.path.join(a.plots, f))


class Coll(Programs):
    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--raise-thresholds", action="store_true",
                            help="NODESHM_MPI_<OP>_MAX=1 GiB: libnodeshm_mpi at every size")
        parser.add_argument("-d", "--imbalance", type=float, metavar="US",
                            help="libnodeshm_mpi's collectives with ranks arriving late: 0-US us "
                            "of compute before each call, the same in both columns (tests "
                            "<op>_imb<US>; bench/mpi_osu.c -d; the OpenSHMEM ones are not run)")

    def extra_args(self, a):
        if a.imbalance is None:
            return {}
        return {"coll-mpi": ["-d", "%g" % a.imbalance]}

    def labels(self, a):
        # the OpenSHMEM collectives have no imbalance mode: -d runs libnodeshm_mpi's only
        return None if a.imbalance is None else ["coll-mpi"]

    def suite_runs(self, a, topo, env, extra_args, progress):
        # the report also measures NODESHM_COLL_EAGER_MAX
        return super().suite_runs(a, topo, env, extra_args, progress) + \
            tuning.run_coll_eager(a, topo, env, progress)


def subcommands():
    """One per PROGRAMS entry, in its order."""
    kinds = {"map": Map, "coll": Coll}
    return [kinds.get(name, Programs)(name) for name in PROGRAMS]
