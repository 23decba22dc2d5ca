"""The subcommands that measure, in `nodeshm-bench --help` order; `report` (report.py), which
runs them as its suite, comes after them.  A new subcommand: one more entry here (see
subcommand.py), e.g. `+ [fft.Fft()]`."""
from . import fft, programs

BENCHMARKS = programs.subcommands() + [fft.Fft()]
BY_NAME = {s.name: s for s in BENCHMARKS}
