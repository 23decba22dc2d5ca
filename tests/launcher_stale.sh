#!/usr/bin/env bash
# Usage: launcher_stale.sh PROGRAM   (tests/smoke.c)
# A killed Open MPI launcher leaves its rendezvous directory, named after its pid, in $TMPDIR;
# a later launcher given the same pid refused to start (exit 213). This plants such a
# directory for the pid oshrun will have (sh's, kept through exec) in a private TMPDIR and
# checks that oshrun still runs the job, leaves the planted files alone and nothing else behind.
set -u
: "${OSHRUN:?OSHRUN must name the launcher}"
prog=$1
tmp=$(mktemp -d) out=$(mktemp)
trap 'rm -rf "$tmp" "$out"' EXIT
host=$(uname -n)
TMPDIR=$tmp sh -c '
  for d in "$TMPDIR/ompi.$$" "$TMPDIR/ompi.$1.$(id -u)/pid.$$"; do
    mkdir -p "$d"
    # what a launcher writes there (URI, version, pid, uid:gid, time), for a pid that is gone
    printf "prterun-%s-%s@0.0;tcp4://127.0.0.1:1\n5.0.0\n%s\n0:0\nnow\n" "$1" $$ $$ > "$d/pmix.$1.tool.$$"
    printf "stale\n" > "$d/pmix.$1.tool"
  done
  exec "$OSHRUN" -np 2 "$2"' launcher_stale "$host" "$prog" >"$out" 2>&1
rc=$?
cat "$out"
fail=0
[ "$rc" -eq 0 ] || { echo "launcher_stale: FAIL: exit status $rc"; fail=1; }
for pe in 0 1; do
  grep -q "^PE $pe/2 bad=0\$" "$out" || { echo "launcher_stale: FAIL: no 'PE $pe/2 bad=0' line"; fail=1; }
done
planted=$(find "$tmp" -type f -name 'pmix.*' | wc -l)
[ "$planted" -eq 4 ] || { echo "launcher_stale: FAIL: $planted of the 4 planted files are left"; fail=1; }
others=$(find "$tmp" -mindepth 1 ! -path "$tmp/ompi.*" | wc -l)
[ "$others" -eq 0 ] || { echo "launcher_stale: FAIL: left in TMPDIR:"; find "$tmp" ! -path "$tmp/ompi.*"; fail=1; }
[ "$fail" -eq 0 ] && echo "launcher_stale: PASS"
exit "$fail"
