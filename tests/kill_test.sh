#!/usr/bin/env bash
# Usage: kill_test.sh NP PROGRAM     (PROGRAM: tests/kill_victim.c)
#
# Starts "$OSHRUN -np NP PROGRAM <tag>", waits until every PE has printed "ready PE <n> pid
# <pid>", then SIGKILLs one non-zero PE by its PID.  Passes if the whole job (the launcher)
# ends within KILL_TEST_SECONDS (default 30; its exit status does not matter), no process of
# the run is left, and nothing it created is left in /dev/shm (the rules of expect_failure.sh,
# whose helpers this sources: a private /dev/shm where possible, EXPECT_FAILURE_SHM_IGNORE).
set -u
. "$(dirname "$0")/expect_failure.sh"

[ $# -eq 2 ] || { echo "usage: $0 NP PROGRAM" >&2; exit 2; }
np=$1 prog=$2
: "${OSHRUN:?OSHRUN must name the launcher}"
[ "$np" -ge 2 ] || { echo "kill_test: needs at least 2 PEs" >&2; exit 2; }
ef_enter_private_shm "$0" "$@"
[ "${EF_PRIVATE_SHM:-}" = inside ] && echo "kill_test: /dev/shm is a private tmpfs for this run"
limit=${KILL_TEST_SECONDS:-30}
tag="nodeshm-tag-$$-$RANDOM$RANDOM"
out=$(mktemp) before=$(mktemp)
launcher=
cleanup() {
  [ -n "$launcher" ] && kill -9 "$launcher" 2>/dev/null
  ef_kill_tagged "$tag"
  rm -f "$out" "$before"
}
trap cleanup EXIT
log() { echo "kill_test: $*"; }
fail=0

ef_shm_snapshot >"$before"
start=$(ef_now)
log "starting: $OSHRUN -np $np $prog $tag"
"$OSHRUN" -np "$np" "$prog" "$tag" >"$out" 2>&1 &
launcher=$!

# every PE ready?
for ((i = 0; i < 600; i++)); do
  [ "$(grep -c '^ready PE ' "$out")" -ge "$np" ] && break
  kill -0 "$launcher" 2>/dev/null || break
  sleep 0.1
done
if [ "$(grep -c '^ready PE ' "$out")" -lt "$np" ]; then
  log "FAIL: not all $np PEs got ready within 60 s"
  cat "$out"
  exit 1
fi

victim_pe=$((1 + RANDOM % (np - 1)))
victim=$(sed -n "s/^ready PE $victim_pe pid \([0-9]*\)\$/\1/p" "$out" | head -1)
if [ -z "$victim" ] || ! tr '\0' ' ' <"/proc/$victim/cmdline" 2>/dev/null | grep -qF -- "$tag"; then
  log "FAIL: PE $victim_pe's pid '$victim' is not a process of this run"
  cat "$out"
  exit 1
fi
log "all $np PEs ready; kill -9 PE $victim_pe (pid $victim)"
ef_kill_and_wait "$victim" "PE $victim_pe" "$limit" || fail=1
echo "----- output -----"
cat "$out"
echo "------------------"

if ! ef_wait_no_procs "$tag" 10 >"$out.procs"; then
  log "FAIL: processes of the run are left:"
  cat "$out.procs"
  fail=1
fi
rm -f "$out.procs"
ef_check_shm "$before" "$start" || fail=1
[ "$fail" -eq 0 ] && log "PASS"
exit "$fail"
