"""What CMake configures, in one place: where the benchmark programs and oshrun are, the project's
venv python (matplotlib for the plots), the version, and the launcher that was run.

The generated launcher (tools/nodeshm-bench.in -> <build>/bin/nodeshm-bench and the install
tree's bin) calls configure() before anything else; the other modules read these names from
here at run time (config.OSHRUN, not a copy).  NODESHM_BENCH_DIR and NODESHM_OSHRUN in the
environment win over the configured paths."""
import os

BENCH_DIR = ""    # the benchmark programs (<build>/bench, <libexecdir>/nodeshm)
OSHRUN = ""       # the launcher they run under
VENV_PYTHON = ""  # .deps/py/bin/python (tools/bootstrap-py.sh): has matplotlib
VERSION = ""      # PROJECT_VERSION
LAUNCHER = ""     # the nodeshm-bench script itself: what a re-execution runs
HOSTS = 0         # --hosts K: every program runs on K emulated hosts (oshrun --hosts K); 0: one


def configure(bench_dir, oshrun, venv_python, version, launcher):
    global BENCH_DIR, OSHRUN, VENV_PYTHON, VERSION, LAUNCHER
    BENCH_DIR = os.environ.get("NODESHM_BENCH_DIR") or bench_dir
    OSHRUN = os.environ.get("NODESHM_OSHRUN") or oshrun
    VENV_PYTHON, VERSION, LAUNCHER = venv_python, version, os.path.abspath(launcher)
