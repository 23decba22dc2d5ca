#!/usr/bin/env bash
# Usage: mpi_stats.sh NP PROGRAM WHERE   (PROGRAM: tests/mpi_stats.c linked with libnodeshm_mpi)
#
# Runs PROGRAM with NODESHM_MPI_STATS and checks the report with tests/mpi_stats.py against the
# calls PROGRAM made.  WHERE: stderr (NODESHM_MPI_STATS=1), text (=a file), csv (=a .csv file).
set -u
NP=$1 PROG=$2 WHERE=$3
HERE=$(cd "$(dirname "$0")" && pwd)
: "${OSHRUN:?OSHRUN must name the launcher}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/none # a tuning file of the user's own must not leak in
unset NODESHM_TUNING
case $WHERE in
  stderr) stats=1 report=$tmp/err ;;
  text) stats=$tmp/report.txt report=$stats ;;
  csv) stats=$tmp/report.csv report=$stats ;;
  *) echo "mpi_stats.sh: WHERE is stderr, text or csv, not '$WHERE'"; exit 2 ;;
esac
# stdout and stderr apart: the launcher forwards each stream on its own, so rank 0's printf
# can land inside the report's lines when both go to one file (seen in CI).
NODESHM_MPI_STATS=$stats "$OSHRUN" -np "$NP" "$PROG" "$tmp/expect" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out" "$tmp/err"
if [ $rc -ne 0 ]; then
  echo "mpi_stats.sh: FAIL: the program exited with $rc"
  exit 1
fi
[ "$WHERE" = stderr ] || cat "$report"
"${PYTHON3:-python3}" "$HERE/mpi_stats.py" "$report" "$tmp/expect" || exit 1
echo "mpi_stats.sh: $NP ranks, $WHERE: PASS"
