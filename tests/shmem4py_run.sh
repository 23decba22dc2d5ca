#!/usr/bin/env bash
# Usage: shmem4py_run.sh build|suite NP|smoke NP   (run by ctest: tests/shmem4py.cmake)
#
#   build     tools/shmem4py.sh on this build dir: shmem4py from PyPI into $NODESHM_BUILD_DIR/py,
#             compiled with its oshcc (once; later runs find it up to date)
#   suite NP  shmem4py's own test suite (unittest, from the same sdist) at NP PEs: oshrun -np NP
#             python -m unittest discover, in a scratch directory
#   smoke NP  tests/shmem4py_smoke.py at NP PEs
#
# Exit 77 (skipped) with one line "shmem4py: SKIP: <why>" when shmem4py cannot be built here
# (no PyPI, no python3-venv, no Python.h, ...) or NODESHM_SHMEM4PY=0; a build that fails against
# nodeshm's headers or library is a failure, not a skip.
# Environment (set by nodeshm_add_script_test): OSHRUN, NODESHM_BUILD_DIR, NODESHM_SOURCE_DIR.
set -uo pipefail

what=${1:-} np=${2:-}
: "${OSHRUN:?}" "${NODESHM_BUILD_DIR:?}" "${NODESHM_SOURCE_DIR:?}"
if [ "${NODESHM_SHMEM4PY:-1}" = 0 ]; then
  echo "shmem4py: SKIP: NODESHM_SHMEM4PY=0"
  exit 77
fi

start=$(date +%s)
python=$("$NODESHM_SOURCE_DIR/tools/shmem4py.sh" "$NODESHM_BUILD_DIR")
status=$?
if [ $status -ne 0 ]; then
  [ $status = 77 ] && echo "$python"   # the script's one SKIP line
  exit $status
fi
if [ "$what" = build ]; then
  echo "shmem4py: built for $NODESHM_BUILD_DIR in $(( $(date +%s) - start )) s: $python"
  exit 0
fi

case $np in ''|*[!0-9]*) echo "usage: $0 build|suite NP|smoke NP" >&2; exit 2 ;; esac
venv=$(dirname "$(dirname "$python")")
case $what in
  suite)
    # unittest writes its result ("Ran 110 tests", "OK" / "FAILED (failures=...)") per PE on
    # stderr; its exit status, through oshrun, is the verdict.  A scratch cwd keeps shmem4py's
    # tests from finding stray modules and from leaving files in the build tree.
    work=$(mktemp -d "${TMPDIR:-/tmp}/shmem4py-suite.XXXXXX") || exit 1
    trap 'rm -rf "$work"' EXIT
    cp -r "$venv/shmem4py-tests/test" "$work/" || exit 1
    cd "$work" || exit 1
    "$OSHRUN" -np "$np" "$python" -m unittest discover -s test
    status=$?
    echo "shmem4py suite: $np PEs: exit status $status: $([ $status = 0 ] && echo PASS || echo FAIL)"
    exit $status ;;
  smoke)
    exec "$OSHRUN" -np "$np" "$python" "$NODESHM_SOURCE_DIR/tests/shmem4py_smoke.py" ;;
  *) echo "usage: $0 build|suite NP|smoke NP" >&2; exit 2 ;;
esac
