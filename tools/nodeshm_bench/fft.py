"""nodeshm-bench fft: the distributed 3D FFT (nodeshm-fft, fft/) per remap strategy beside
FFTW's own MPI transform, over grids and rank counts.  Each run of nodeshm-fft --json is one
grid at one rank count; its rows join the report as tests fft_np<N> (forward+backward pair) and
fft_remap_np<N> (the time in remaps), with the grid as the parameter and its bytes as the size."""
import json
import os

from . import config
from .machine import np_cores
from .plots import load_matplotlib
from .runners import Run, host_tag, launch
from .subcommand import Subcommand
from .text import note

DEFAULT_GRIDS = "64x64x64,128x128x128"
QUICK_GRIDS = "16x16x16,32x32x32"


def find_fft():
    """nodeshm-fft sits beside nodeshm-bench (<build>/bin, the install tree's bin)."""
    for d in (os.path.dirname(config.LAUNCHER), config.BENCH_DIR):
        p = os.path.join(d, "nodeshm-fft")
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def grid_points(grid):
    x, y, z = (int(v) for v in grid.split("x"))
    return x * y * z


def to_rows(result, np_, ppn):
    """nodeshm-fft's JSON as rows of the CSV contract (rows.py)."""
    tag = "_np%d" % np_ + ("_ppn%d" % ppn if ppn else "")
    grid = "x".join(str(v) for v in result["grid"])
    es = 16 if result["precision"] == "double" else 8
    rows = []
    for r in result["rows"]:
        if "pair_s" not in r:
            continue
        times = [("fft" + tag, r["pair_s"])]
        if "remap_s" in r:
            times.append(("fft_remap" + tag, r["remap_s"]))
        for test, seconds in times:
            us = seconds * 1e6
            rows.append({"test": test, "mechanism": r["strategy"], "bytes": grid_points(grid) * es,
                         "param": grid, "pes": np_, "median_us": us, "min_us": us, "max_us": us,
                         "mbps": 0.0, "program": "fft"})
    return rows


def run_all(grids, ranks, iterations, precision, strategy, ppn, env, timeout, verbose, progress=""):
    exe = find_fft()
    runs = []
    for np_ in ranks:
        for grid in grids:
            e = dict(env)
            if ppn:
                e["NODESHM_PES_PER_NODE"] = str(ppn)
            run = Run("fft", exe or "nodeshm-fft", np_,
                      ["--grid", grid, "--iterations", str(iterations), "--precision", precision,
                       "--strategy", strategy, "--json"], e)
            run.result = None
            runs.append(run)
            if not exe:
                run.why = "nodeshm-fft is not built (FFTW missing? see cmake's output): skipped"
                note("fft: %s" % run.why)
                continue
            if progress:
                note("%s fft %s on %d ranks" % (progress, grid, np_))
            out = launch(run, [], timeout, verbose)
            if out is None:
                note("fft: %s" % run.why)
                continue
            try:
                run.result = json.loads(out)
            except ValueError as e:
                run.status, run.why = "failed", "nodeshm-fft --json printed no JSON: %s" % e
                continue
            run.rows = host_tag(run, to_rows(run.result, np_, ppn))
            run.status, run.why = "ok", "%d rows in %.1fs" % (len(run.rows), run.seconds)
    return runs


def summary_lines(runs, markdown=False):
    """Per grid and rank count: the node strategy's remap against mpi-p2p's and, between nodes,
    against the node strategy forced to one message per pair of ranks (node-pairs; nodeshm-fft
    times it there), the best strategy against FFTW-MPI, and the largest error of any strategy."""
    head = ["grid", "ranks", "node remap vs mpi-p2p", "vs node-pairs", "best", "best vs fftw-mpi",
            "max error"]
    body = []
    for run in runs:
        res = run.result
        if not res:
            continue
        by = {r["strategy"]: r for r in res["rows"] if "pair_s" in r}
        ours = {k: v for k, v in by.items() if k != "fftw-mpi"}
        if not ours:
            continue
        best = min(ours, key=lambda k: ours[k]["pair_s"])
        node, p2p = by.get("node"), by.get("mpi-p2p")
        ratio, pairs = (("%.2fx" % (other["remap_s"] / node["remap_s"])
                         if node and other and node.get("remap_s") else "-")
                        for other in (p2p, by.get("node-pairs")))
        vs = ("%.2fx" % (by["fftw-mpi"]["pair_s"] / ours[best]["pair_s"]) if "fftw-mpi" in by else
              "-")
        err = max(r["error"] for r in ours.values())
        ppn = run.env.get("NODESHM_PES_PER_NODE")
        body.append(["x".join(map(str, res["grid"])),
                     str(res["ranks"]) + (" (%s/node)" % ppn if ppn else ""), ratio, pairs, best, vs,
                     "%.1e" % err])
    if markdown:
        return (["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"] +
                ["| " + " | ".join(l) + " |" for l in body])
    widths = [max(len(c) for c in col) for col in zip(head, *body)]
    return ["  ".join(c.rjust(w) for c, w in zip(l, widths)) for l in [head] + body]


def ranks_default(topo):
    """2, and twice the usable CPUs (at most 8): the oversubscribed case is the real one here."""
    return sorted({2, min(8, 2 * np_cores(topo))})


class Fft(Subcommand):
    name = "fft"
    help = ("distributed 3D FFT (nodeshm-fft): forward+backward pairs and remap times per remap "
            "strategy beside FFTW-MPI, over grids and rank counts")
    common = False

    def add_arguments(self, parser):
        parser.add_argument("--grids", default=DEFAULT_GRIDS, metavar="G,G",
                            help="grids NXxNYxNZ (default %s)" % DEFAULT_GRIDS)
        parser.add_argument("-n", "--ranks", metavar="N,N", help="rank counts (default 2 and "
                            "2 x cores, at most 8)")
        parser.add_argument("--iterations", type=int, default=10, help="pairs timed per run (10)")
        parser.add_argument("--precision", choices=["double", "single"], default="double")
        parser.add_argument("--strategy", default="all", help="one strategy, or all (default)")
        parser.add_argument("--pes-per-node", type=int, metavar="K", help="pseudo-nodes of K "
                            "ranks (NODESHM_PES_PER_NODE)")
        out = parser.add_mutually_exclusive_group()
        out.add_argument("--csv", action="store_true", help="CSV rows on stdout")
        out.add_argument("--json", action="store_true", help="JSON on stdout")
        parser.add_argument("--quick", action="store_true", help="grids %s, 3 iterations: for "
                            "tests" % QUICK_GRIDS)
        parser.add_argument("-q", "--quiet", action="store_true", help="hide progress")
        parser.add_argument("--timeout", type=int, default=600, help="seconds per run (600)")

    def run(self, a, topo):
        try:
            ranks = ([int(v) for v in a.ranks.split(",")] if a.ranks else ranks_default(topo))
            grids = (QUICK_GRIDS if a.quick else a.grids).split(",")
            for g in grids:
                if len(g.split("x")) != 3 or grid_points(g) < 1:
                    raise ValueError("grid %r (accepted: NXxNYxNZ)" % g)
            if min(ranks) < 1:
                raise ValueError("rank count below 1")
        except ValueError as e:
            note("fft: %s" % e)
            return 2
        runs = run_all(grids, ranks, 3 if a.quick else a.iterations, a.precision, a.strategy,
                       a.pes_per_node, {}, a.timeout, not a.quiet)
        return self.print_runs(a, topo, runs, [
            "# nodeshm-bench fft: %s" % self.help,
            "# times in us: medians of forward+backward pairs (fft_np<N>) and of the time in "
            "remaps (fft_remap_np<N>), slowest rank"], [""] + summary_lines(runs))

    def suite_runs(self, a, topo, env, extra_args, progress):
        grids = QUICK_GRIDS if a.quick or env.get("NODESHM_BENCH_QUICK") else DEFAULT_GRIDS
        return run_all(grids.split(","), ranks_default(topo), 3 if a.quick else 10, "double",
                       "all", None, env, a.timeout, not a.quiet, progress)

    def report_section(self, runs, outdir):
        lines = summary_lines(runs, markdown=True)
        if len(lines) <= 2:
            return []
        png = plot_summary(runs, outdir)
        return ["", "### Distributed 3D FFT (nodeshm-fft)", "",
                "Forward+backward pairs per remap strategy beside FFTW's own MPI transform "
                "(tables fft_np<N>, fft_remap_np<N> above). Node remap vs mpi-p2p: the time in "
                "remaps of LAMMPS' point-to-point remap over the node strategy's; best vs "
                "fftw-mpi: FFTW-MPI's pair time over the fastest strategy's.", ""] + (
                    ["![nodeshm-fft vs FFTW-MPI](%s)" % png, ""] if png else []) + lines + [""]


def run_key(run):
    """'64x64x64, 4 ranks' (and ', 2 per node' in pseudo-nodes)"""
    res = run.result
    ppn = run.env.get("NODESHM_PES_PER_NODE")
    return "%s\n%d ranks%s" % ("x".join(map(str, res["grid"])), res["ranks"],
                                ", %s/node" % ppn if ppn else "")


def plot_summary(runs, outdir):
    """fft_summary.png: per grid and rank count, each strategy's forward+backward pair as a
    speed-up over FFTW-MPI's (bars above 1: faster than FFTW-MPI) and its remaps' speed-up over
    mpi-p2p's.  None without matplotlib or measurements."""
    done = [r for r in runs if r.result and any(x.get("strategy") == "fftw-mpi" and "pair_s" in x
                                                 for x in r.result["rows"])]
    if not done:
        return None
    plt = load_matplotlib()
    if not plt:
        return None
    strategies = []
    for r in done:
        for x in r.result["rows"]:
            if "remap_s" in x and x["strategy"] not in strategies:
                strategies.append(x["strategy"])
    fig, axes = plt.subplots(2, 1, figsize=(max(7, 1.1 * len(done) + 2), 7.5), sharex=True)
    width = 0.8 / max(1, len(strategies))
    for i, s in enumerate(strategies):
        pair, remap = [], []
        for r in done:
            by = {x["strategy"]: x for x in r.result["rows"] if "pair_s" in x}
            pair.append(by["fftw-mpi"]["pair_s"] / by[s]["pair_s"] if s in by else 0)
            ok = s in by and "mpi-p2p" in by and by[s].get("remap_s")
            remap.append(by["mpi-p2p"]["remap_s"] / by[s]["remap_s"] if ok else 0)
        xs = [k + (i - (len(strategies) - 1) / 2) * width for k in range(len(done))]
        axes[0].bar(xs, pair, width, label=s)
        axes[1].bar(xs, remap, width, label=s)
    for ax, what in zip(axes, ["pair: FFTW-MPI's time / strategy's", "remaps: mpi-p2p's time / "
                                                                      "strategy's"]):
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_ylabel(what + "\n(higher is faster)", fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_title("nodeshm-fft: speed-up per remap strategy (medians, same run)")
    axes[0].legend(fontsize=7, ncol=4)
    axes[1].set_xticks(range(len(done)))
    axes[1].set_xticklabels([run_key(r) for r in done], fontsize=7)
    fig.tight_layout()
    name = "fft_summary.png"
    fig.savefig(os.path.join(outdir, name), dpi=90)
    plt.close(fig)
    return name
