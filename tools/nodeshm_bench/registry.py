"""The subcommands that measure, in `nodeshm-bench --help` order; `report` (report.py), which
runs them as its suite, comes after them.  A new subcommand: one more entry here (see
subcommand.py), e.g. `+ [fft.Fft()]`."""
from . import programs

BENCHMARKS = programs.subcommands()
BY_NAME = {s.name: s for s in BENCHMARKS}
