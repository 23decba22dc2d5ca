"""The command line: the common options, one argparse subcommand per entry of SUBCOMMANDS,
the checks every subcommand shares, then the subcommand's run."""
import argparse
import os
import sys

from . import config, registry
from .machine import topology, topology_text
from .plots import reexec_for_matplotlib
from .report import Report
from .text import note, size_range

# in --help order: the benchmarks (registry.py), then the report that runs them as a suite
SUBCOMMANDS = registry.BENCHMARKS + [Report()]


def common_options():
    """The options every subcommand with `common` takes (subcommand.py)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-n", "-np", type=int, metavar="N", help="PEs / ranks (default: per "
                        "subcommand, from the CPU count)")
    common.add_argument("-m", metavar="[MIN:]MAX", help="message sizes in bytes (k/m/g)")
    common.add_argument("-i", type=int, metavar="ITERS", help="iterations per repetition")
    common.add_argument("-x", type=int, metavar="WARMUP", help="warm-up iterations")
    common.add_argument("-f", action="store_true", help="full statistics: min and max columns")
    out = common.add_mutually_exclusive_group()
    out.add_argument("--csv", action="store_true", help="CSV rows on stdout (contract + program)")
    out.add_argument("--json", action="store_true", help="JSON on stdout")
    common.add_argument("--quick", action="store_true",
                        help="tiny sizes, few iterations (NODESHM_BENCH_QUICK=1): for tests")
    common.add_argument("-q", "--quiet", action="store_true", help="hide the programs' progress")
    common.add_argument("--timeout", type=int, default=600, help="seconds per program (600)")
    common.add_argument("--hosts", type=int, metavar="K", help="run every program on K emulated "
                        "hosts of this machine (oshrun --hosts K: MPI sees K nodes, TCP between "
                        "them); rows are tests <test>_hosts<K>, never mixed with one-node ones")
    return common


def parser():
    common = common_options()
    p = argparse.ArgumentParser(prog="nodeshm-bench", description="nodeshm benchmarks: each "
                                "subcommand runs benchmark programs with oshrun and compares the "
                                "mechanisms of one run.")
    p.add_argument("--version", action="version", version="nodeshm-bench %s" % config.VERSION)
    sub = p.add_subparsers(dest="cmd", metavar="SUBCOMMAND")
    sub.required = True
    for s in SUBCOMMANDS:
        sp = sub.add_parser(s.name, parents=[common] if s.common else [], help=s.help)
        s.add_arguments(sp)
    return p


def main(argv):
    p = parser()
    a = p.parse_args(argv)
    if getattr(a, "n", None) is not None and a.n < 1:
        p.error("-n must be >= 1")
    if getattr(a, "m", None):
        try:
            size_range(a.m)
        except ValueError as e:
            p.error("-m: %s" % e)
    if getattr(a, "hosts", None) is not None:
        if a.hosts < 1:
            p.error("--hosts must be >= 1")
        if a.cmd == "report":  # its tuning.conf is one node's thresholds
            p.error("--hosts: not with report (its tuning file is for one node); run the "
                    "subcommands with --hosts")
        config.HOSTS = a.hosts
    s = next(s for s in SUBCOMMANDS if s.name == a.cmd)
    if s.plots:
        reexec_for_matplotlib()
    if not os.access(config.OSHRUN, os.X_OK):
        note("no launcher at %s (set NODESHM_OSHRUN)" % config.OSHRUN)
        return 2
    topo = topology()
    note(topology_text(topo))
    return s.run(a, topo)


def entry(argv):
    """The launcher's call: main's status as the exit status."""
    try:
        sys.exit(main(argv))
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
