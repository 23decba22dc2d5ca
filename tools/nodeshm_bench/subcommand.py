"""What a subcommand is: `nodeshm-bench NAME [options]` on its own, and an entry of `report`'s
suite.  cli.py builds the command line from registry.BENCHMARKS (then `report`); report.py runs
its suite's entries through the same objects.

A new one (say fft.py, which runs a program of its own): subclass Subcommand, set name and
help, add its options in add_arguments, measure and print in run, and in suite_runs return the
runners.Run records of its part of the report (their rows, in the CSV contract's shape,
join the report's tables, plots, summary and results files; what the rows cannot carry goes in
report_section).  Then add an instance to registry.BENCHMARKS and an entry to
report.report_suite.  runners.launch runs a program under oshrun and returns its stdout."""
import sys

from .rows import rows_csv, rows_json
from .tables import print_tables


class Subcommand:
    name = ""       # nodeshm-bench NAME
    help = ""       # its line in nodeshm-bench --help
    common = True   # takes the common options (cli.common_options: -n -m -i -x -f --csv --json
                    # --quick -q --timeout)
    plots = False   # draws: the driver re-executes itself first with the project's venv python
                    # when this one has no matplotlib

    def add_arguments(self, parser):
        """Options of its own, on its argparse parser."""

    def run(self, a, topo):
        """nodeshm-bench NAME: measures and prints (tables, or --csv / --json); returns the exit
        status.  a: the parsed arguments; topo: machine.topology()."""
        raise NotImplementedError

    def suite_runs(self, a, topo, env, extra_args, progress):
        """Its entry of report's suite: a, report's arguments (a.cold: the entry's --cold);
        env, environment for its programs; extra_args, {program label: [arguments]}; progress,
        the prefix of its progress note.  Returns a list of runners.Run."""
        raise NotImplementedError

    def report_section(self, runs, outdir):
        """Markdown lines for report.md after the result tables, from what suite_runs returned
        (outdir: where the report and its plots go).  None by default."""
        return []

    def print_runs(self, a, topo, runs, intro, after=()):
        """What `run` prints: JSON (--json), CSV rows (--csv), or the intro lines, the tables,
        the after lines and a note per run that did not end well.  Returns the exit status."""
        rows = [r for run in runs for r in run.rows]
        if a.json:
            print(rows_json(self.name, runs, topo))
        elif a.csv:
            sys.stdout.write(rows_csv(rows))
        else:
            for line in intro:
                print(line)
            print_tables(rows, getattr(a, "f", False))
            for line in after:
                print(line)
            for r in runs:
                if r.status != "ok":
                    print("# note: %s %s: %s" % (r.label, r.status, r.why))
        return 1 if any(r.status == "failed" for r in runs) else 0
