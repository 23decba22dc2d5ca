"""`nodeshm-bench report`: the default suite, sized for the machine and a time budget, then
report.md with plots, results.csv/json, tuning.conf and the summary on stdout."""
import argparse
import datetime
import os
import platform
import shutil
import sys
import time

from . import registry
from .machine import mpi_description, topology_text
from .plots import plot_all
from .rows import groups, rows_csv, rows_json
from .subcommand import Subcommand
from .tables import table, wins_summary
from .text import note
from .tuning import (EAGER_ROUNDS, EAGER_SIZES, KEEP_RATIO, eager_threshold, fft_strategy,
                     thresholds, tuning_text)

# The default suite: (subcommand, program label -> extra args, env, cold, repetitions), each
# subcommand a name in registry.BY_NAME, run by its suite_runs (subcommand.py).  Sized so
# that the whole suite stays under 5 minutes on 2 cores; past a time budget the rest runs in
# quick mode.  Repetitions (NODESHM_BENCH_REPS) per program: more where a repetition is cheap
# (see README.md's benchmark section for the measured times).
# `coll` also measures NODESHM_COLL_EAGER_MAX (programs.Coll, tuning.run_coll_eager).  The cold entries (--cold, one
# p2p size and one dt buffer) run only with a quarter of the time budget left, and the
# programs keep their rings within the memory budget (bench_cold_bytes).
def report_suite(topo):
    return [
        ("map", {}, {}, False, 9),
        ("p2p", {"p2p": ["-m", "1:1048576"]}, {}, False, 11),
        ("pairs", {}, {}, False, 15),
        ("coll", {"coll-mpi": ["-m", "8:1048576"]}, {}, False, 11),
        ("dt", {}, {}, False, 11),  # its handoffs cost the most when the machine is loaded
        ("seed-gather", {}, {}, False, 15),
        ("seed-alltoall", {}, {}, False, 15),
        ("fft", {}, {}, False, 11),
        ("p2p", {"p2p": ["-m", "1048576:1048576"]}, {}, True, 11),
        ("dt", {"dt": ["-m", "1024:1048576"]}, {}, True, 11),
    ]


def reps_text(runs, user_reps):
    """'map 5, p2p 7, ...': the repetitions each run that measured used"""
    return ", ".join("%s %s" % (r.label + (" --cold" if "--cold" in r.args else ""),
                                r.env.get("NODESHM_BENCH_REPS", user_reps or "?"))
                     for r in runs if r.status == "ok")


def run_suite(a, topo, suite, t0):
    """Runs the suite's entries through their subcommands (registry.BY_NAME) within a.budget
    seconds from t0; returns (runs, [(subcommand, its runs)], cold entries left out)."""
    budget = a.budget
    runs, parts = [], []
    base_env = {}
    user_reps = os.environ.get("NODESHM_BENCH_REPS")  # the user's wins over the suite's
    cold_skipped = []
    for i, (sub, extra_args, env, cold, reps) in enumerate(suite, 1):
        e = dict(base_env)
        e.update(env)
        if not user_reps:
            e["NODESHM_BENCH_REPS"] = "3" if a.quick else str(reps)
        late = not a.quick and time.time() - t0 > budget
        progress = "[%d/%d, %.0fs]" % (i, len(suite), time.time() - t0)
        # the cold points are extra: only with a quarter of the budget left (each takes 10-30 s)
        if cold and not a.quick and time.time() - t0 > 0.75 * budget:
            note("over the %ds budget: the cold %s point is left out" % (budget, sub))
            cold_skipped.append(sub)
            continue
        if late:
            e["NODESHM_BENCH_QUICK"] = "1"
            note("over the %ds budget: %s runs in quick mode" % (budget, sub))
        # the suite's sizes are for a real run; quick and -m win (but the cold points keep their
        # one size: cheap in quick mode too, where a sweep of cold rings is not)
        if a.m or (a.quick and not cold):
            extra_args = {}
        sa = argparse.Namespace(**vars(a))
        sa.cold = cold
        rs = registry.BY_NAME[sub].suite_runs(sa, topo, e, extra_args, progress)
        for r in rs:
            if late:
                r.why += " (quick mode: over the time budget)"
            if cold:
                r.why += " (--cold)"
        runs += rs
        parts.append((registry.BY_NAME[sub], rs))
    return runs, parts, cold_skipped


def markdown(a, topo, mpi, runs, parts, cold_skipped, seconds, summary, tuning, plots, have_plt,
             outdir):
    """report.md's lines.  mpi: (flavor, version); seconds: the suite's time; summary: who wins
    (tables.wins_summary); tuning: tuning.conf's text; plots: (program, test) -> PNG file."""
    flavor, mpi_version = mpi
    user_reps = os.environ.get("NODESHM_BENCH_REPS")
    rows = [r for run in runs for r in run.rows]
    md = ["# nodeshm benchmark report", "",
          "- host: %s, %s UTC" % (platform.node(),
                                  datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")),
          "- machine: %s" % topology_text(topo),
          "- MPI: %s (%s)" % (mpi_version or "?", flavor),
          "- mode: %s; repetitions per point (NODESHM_BENCH_REPS): %s (nodeshm-bench-coll: at "
          "most 5 from 256 KiB); total %.0f s" % (
              "quick (tiny sizes, few iterations: a smoke test, not a measurement)" if a.quick
              else "default suite", reps_text(runs, user_reps), seconds),
          "- statistics: warm-up first; median, min and max over repetitions of the slowest "
          "rank's time; mechanisms of one table measured in the same run (interleaved where the "
          "program does so): compare ratios, not absolute numbers, on a shared machine.",
          "- pinning: `map` and `pairs` pin (PE k to the k-th CPU of the launcher's mask); the "
          "other programs leave placement to the launcher (oshrun).",
          "- cold caches: tests named `*_cold` ran with --cold (each operation on the next buffer "
          "of a rotation >= 2 x the last-level cache, capped by the memory budget: %s)%s." % (
              "; ".join(sorted({l.split("--cold: ", 1)[1] for r in runs for l in r.stderr
                                if "--cold: " in l and "ring(s)" in l})) or "not run",
              ("; left out (over the time budget): " + ", ".join(cold_skipped)) if cold_skipped
              else ""),
          "- NODESHM_COLL_EAGER_MAX: `coll-eager` compares separate runs of nodeshm-bench-coll "
          "(the setting is read at shmem_init), %d of each setting, alternating, not interleaved "
          "repetitions of one: noisier than the other tables." % EAGER_ROUNDS, ""]
    pin = [l for r in runs for l in r.stderr if "pinning:" in l]
    if pin:
        md += ["- %s %s" % (l.split(":", 1)[0], l.split("pinning: ", 1)[-1]) for l in pin] + [""]
    md += ["## Summary: who wins where", ""]
    md += ["- " + s for s in summary] or ["- (no comparisons measured)"]
    md += ["", "## Thresholds (tuning.conf)", "",
           "Measured with libnodeshm_mpi's thresholds raised (NODESHM_MPI_<OP>_MAX=1 GiB): the "
           "largest size at which the node-aware op is still >= %.2fx of the MPI library; "
           "NODESHM_COLL_EAGER_MAX from `coll-eager` (OpenSHMEM broadcast, collect, alltoall, "
           "eager vs rendezvous, %s B)." % (KEEP_RATIO, EAGER_SIZES.replace(":", "..")),
           "Use them with `export NODESHM_TUNING=%s` or copy the file to "
           "`${XDG_CONFIG_HOME:-~/.config}/nodeshm/tuning.conf` (`nodeshm-bench report --install`)."
           % os.path.join(outdir, "tuning.conf"), "", "```", tuning.rstrip(), "```", "",
           "## Runs", "", "| program | PEs | repetitions | status | note |", "|---|---|---|---|---|"]
    md += ["| %s | %s | %s | %s | %s |" % (r.label, r.np, r.env.get("NODESHM_BENCH_REPS", user_reps),
                                          r.status, r.why.replace("|", "/")) for r in runs]
    if not have_plt:
        md += ["", "_No plots: matplotlib is not available to this Python (`make bench` installs "
               "it into .deps/py with tools/bootstrap-py.sh)._"]
    md += ["", "## Results", ""]
    for (prog, test), rs in groups(rows).items():
        md += ["### %s / %s (%d PEs)" % (prog, test, rs[0]["pes"]), ""]
        if (prog, test) in plots:
            md += ["![%s %s](%s)" % (prog, test, plots[(prog, test)]), ""]
        md += table(rs, full=True, markdown=True) + [""]
    for sub, rs in parts:
        md += sub.report_section(rs, outdir)
    return md


def print_summary(topo, mpi, runs, seconds, summary, th, plots, outdir):
    """The summary on stdout (without --csv / --json)."""
    flavor, mpi_version = mpi
    user_reps = os.environ.get("NODESHM_BENCH_REPS")
    print("nodeshm-bench report: %s" % topology_text(topo))
    print("MPI: %s (%s)" % (mpi_version or "?", flavor))
    print("Suite: %.0f s; repetitions per point: %s" % (seconds, reps_text(runs, user_reps)))
    print("\nWho wins where (ratio: next best time / winner's time):")
    for s in summary:
        print("  " + s)
    print("\nThresholds (%s):" % os.path.join(outdir, "tuning.conf"))
    for name, (value, why, _) in sorted(th.items()):
        print("  %s=%s   (%s)" % (name, value, why))
    if not th:
        print("  none measured (the MPI benchmark did not run)")
    skipped = [r for r in runs if r.status != "ok"]
    for r in skipped:
        print("  note: %s %s: %s" % (r.label, r.status, r.why))
    print("\nReport: %s (%d plots), results.csv, results.json, tuning.conf in %s" % (
        os.path.join(outdir, "report.md"), len(plots), outdir))
    print("Use the thresholds: export NODESHM_TUNING=%s" % os.path.join(outdir, "tuning.conf"))


def cmd_report(a, topo):
    outdir = os.path.abspath(a.dir)
    os.makedirs(outdir, exist_ok=True)
    mpi = mpi_description()
    t0 = time.time()
    a.raise_thresholds = True
    suite = report_suite(topo)
    if a.only:
        want = [w.strip() for w in a.only.split(",") if w.strip()]
        unknown = [w for w in want if w not in registry.BY_NAME]
        if unknown:
            note("--only: unknown subcommand(s) %s (known: %s)" % (", ".join(unknown),
                                                                   ", ".join(registry.BY_NAME)))
            return 2
        suite = [entry for entry in suite if entry[0] in want]
    runs, parts, cold_skipped = run_suite(a, topo, suite, t0)
    rows = [r for run in runs for r in run.rows]
    th = thresholds(rows)
    th.update(eager_threshold(rows))
    th.update(fft_strategy(rows))
    pes = sorted({r["pes"] for r in rows if r["program"] == "coll-mpi"})
    tuning = tuning_text(th, topo, mpi[0], mpi[1], ",".join(map(str, pes)) or "?")
    with open(os.path.join(outdir, "tuning.conf"), "w") as f:
        f.write(tuning)
    with open(os.path.join(outdir, "results.csv"), "w") as f:
        f.write(rows_csv(rows))
    summary = wins_summary(rows)
    with open(os.path.join(outdir, "results.json"), "w") as f:
        f.write(rows_json("report", runs, topo, {
            "mpi": {"flavor": mpi[0], "version": mpi[1]}, "summary": summary,
            "thresholds": {k: v[0] for k, v in th.items()}}))
    plots, have_plt = plot_all(rows, outdir)
    md = markdown(a, topo, mpi, runs, parts, cold_skipped, time.time() - t0, summary, tuning,
                  plots, have_plt, outdir)
    with open(os.path.join(outdir, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")

    if a.install:
        conf = os.path.join(os.environ.get("XDG_CONFIG_HOME") or
                            os.path.join(os.path.expanduser("~"), ".config"), "nodeshm")
        os.makedirs(conf, exist_ok=True)
        shutil.copyfile(os.path.join(outdir, "tuning.conf"), os.path.join(conf, "tuning.conf"))
        note("installed %s" % os.path.join(conf, "tuning.conf"))

    if a.json:
        print(rows_json("report", runs, topo, {"summary": summary,
                                                "thresholds": {k: v[0] for k, v in th.items()}}))
    elif a.csv:
        sys.stdout.write(rows_csv(rows))
    else:
        print_summary(topo, mpi, runs, time.time() - t0, summary, th, plots, outdir)
    return 1 if any(r.status == "failed" for r in runs) else 0


class Report(Subcommand):
    name = "report"
    help = "default suite: report.md, PNG plots, results.csv/json, tuning.conf, summary"
    plots = True

    def add_arguments(self, parser):
        parser.add_argument("-o", "--dir", default="nodeshm-report", help="output dir (./nodeshm-report)")
        parser.add_argument("--budget", type=int, default=200,
                            help="seconds after which the rest of the suite runs in quick mode (200)")
        parser.add_argument("--only", metavar="SUB,SUB", help="run only these subcommands of the suite")
        parser.add_argument("--install", action="store_true", help="also copy tuning.conf to "
                            "${XDG_CONFIG_HOME:-~/.config}/nodeshm/tuning.conf")

    def run(self, a, topo):
        return cmd_report(a, topo)
