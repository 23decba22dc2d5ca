#!/usr/bin/env bash
# Usage: tools/bootstrap-py.sh
# Makes .deps/py, a Python venv with matplotlib from PyPI, for nodeshm-bench's plots, and prints
# its python.  Run by `make bench`.
#
# Why a venv of our own: nodeshm-bench itself needs only the standard library, but a report
# without plots is half a report, and a fresh machine rarely has matplotlib; pip into the
# system python is refused on current distributions (PEP 668, "externally managed") and apt
# needs root.  The MPI wheels come from PyPI the same way (tools/bootstrap-mpi.sh).  The driver
# re-executes itself with this python when its own lacks matplotlib.
#
# Best effort: without network or python3-venv it prints why and exits 1; `make bench` then
# runs the report without plots (the driver says so) instead of failing.
# Idempotent: a stamp written last marks a complete install; an interrupted one is redone.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
venv=$root/.deps/py
stamp=$venv/.nodeshm-ok
# Override e.g. NODESHM_PY_SPEC='matplotlib==3.9.2' to pin a version.
spec=${NODESHM_PY_SPEC:-matplotlib}

mkdir -p "$root/.deps"
exec 9>"$root/.deps/py.lock" # concurrent make runs
command -v flock >/dev/null && flock 9

if [ ! -f "$stamp" ] || ! "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
  echo "bootstrap-py: installing '$spec' into $venv (plots for nodeshm-bench)" >&2
  rm -rf "$venv"
  if ! python3 -m venv "$venv" >&2; then
    echo "bootstrap-py: 'python3 -m venv' failed (Debian: apt-get install python3-venv): no plots" >&2
    rm -rf "$venv"
    exit 1
  fi
  if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
       "$spec" >&2 || ! "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
    echo "bootstrap-py: could not install $spec from PyPI: no plots" >&2
    rm -rf "$venv"
    exit 1
  fi
  echo "$spec" >"$stamp"
fi
echo "$venv/bin/python"
