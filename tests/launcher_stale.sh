#!/usr/bin/env bash
# Usage: launcher_stale.sh PROGRAM [HOSTS]   (tests/smoke.c)
# A killed Open MPI launcher leaves its rendezvous directory, named after its pid, in $TMPDIR;
# a later launcher given the same pid refused to start (exit 213). This plants such directories
# in a private TMPDIR and checks that oshrun still runs the job, leaves the planted files alone
# and nothing else behind.
#   no HOSTS: one directory, for the pid oshrun will have (bash's, kept through exec).
#   HOSTS K (oshrun --hosts K): the launcher is nshost-agent's child, its pid unknown here, so
#   one for each of the next 2000 pids but oshrun's (planted with builtins: no pid used up).
set -u
: "${OSHRUN:?OSHRUN must name the launcher}"
prog=$1 hosts=${2:-}
tmp=$(mktemp -d) out=$(mktemp)
trap 'rm -rf "$tmp" "$out"' EXIT
host=$(uname -n)
TMPDIR=$tmp bash -c '
  host=$1 prog=$2 hosts=$3
  # what a launcher writes there (URI, version, pid, uid:gid, time), for a pid that is gone
  plant() { # DIR PID
    printf "prterun-%s-%s@0.0;tcp4://127.0.0.1:1\n5.0.0\n%s\n0:0\nnow\n" "$host" "$2" "$2" \
      > "$1/pmix.$host.tool.$2"
    printf "stale\n" > "$1/pmix.$host.tool"
  }
  if [ -z "$hosts" ]; then
    for d in "$TMPDIR/ompi.$$" "$TMPDIR/ompi.$host.$(id -u)/pid.$$"; do
      mkdir -p "$d" && plant "$d" $$
    done
    exec "$OSHRUN" -np 2 "$prog"
  fi
  dirs=()
  for ((p = $$ + 1; p <= $$ + 2000; p++)); do dirs+=("$TMPDIR/ompi.$p"); done
  mkdir "${dirs[@]}" || exit 1
  for ((p = $$ + 1; p <= $$ + 2000; p++)); do plant "$TMPDIR/ompi.$p" "$p"; done
  exec "$OSHRUN" --hosts "$hosts" -np 2 "$prog"' launcher_stale "$host" "$prog" "$hosts" >"$out" 2>&1
rc=$?
cat "$out"
[ "$rc" -eq 77 ] && [ -n "$hosts" ] && exit 77 # no emulated hosts on this machine
fail=0
[ "$rc" -eq 0 ] || { echo "launcher_stale: FAIL: exit status $rc"; fail=1; }
for pe in 0 1; do
  grep -q "^PE $pe/2 bad=0\$" "$out" || { echo "launcher_stale: FAIL: no 'PE $pe/2 bad=0' line"; fail=1; }
done
want=$([ -z "$hosts" ] && echo 4 || echo 4000)
planted=$(find "$tmp" -type f -name 'pmix.*' | wc -l)
[ "$planted" -eq "$want" ] || { echo "launcher_stale: FAIL: $planted of the $want planted files are left"; fail=1; }
others=$(find "$tmp" -mindepth 1 ! -path "$tmp/ompi.*" | wc -l)
[ "$others" -eq 0 ] || { echo "launcher_stale: FAIL: left in TMPDIR:"; find "$tmp" -mindepth 1 ! -path "$tmp/ompi.*"; fail=1; }
[ "$fail" -eq 0 ] && echo "launcher_stale: PASS"
exit "$fail"
