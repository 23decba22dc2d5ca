#!/usr/bin/env bash
# Usage: mpi_fault.sh NP PROGRAM [ARGS...]     (PROGRAM: tests/mpi_fault_victim.c, or
#                                               "env LD_PRELOAD=libnodeshm_mpi.so victim")
#
# A rank of an interposed MPI program killed with SIGKILL in the middle of node-shared
# collectives.  Starts "$OSHRUN -np NP PROGRAM ARGS... <tag>", waits until every rank has printed
# "ready PE <n> pid <pid>", lets them run collectives a moment, then SIGKILLs one non-zero rank
# by its PID.  Passes if the whole job (the launcher) ends within MPI_FAULT_SECONDS (default 30)
# with a NONZERO exit status, no process of the run is left, and nothing it created is left in
# /dev/shm: neither the interposer's MPI_Win_allocate_shared windows nor the MPI's own segments
# (the rules and helpers of expect_failure.sh: a private /dev/shm where possible,
# EXPECT_FAILURE_SHM_IGNORE).  The survivors wait on the dead rank's flags in shared memory, so
# only the launcher can end them: this checks that it does.
set -u
. "$(dirname "$0")/expect_failure.sh"

[ $# -ge 2 ] || { echo "usage: $0 NP PROGRAM [ARGS...]" >&2; exit 2; }
np=$1
shift
: "${OSHRUN:?OSHRUN must name the launcher}"
[ "$np" -ge 2 ] || { echo "mpi_fault: needs at least 2 ranks" >&2; exit 2; }
ef_enter_private_shm "$0" "$np" "$@"
[ "${EF_PRIVATE_SHM:-}" = inside ] && echo "mpi_fault: /dev/shm is a private tmpfs for this run"
limit=${MPI_FAULT_SECONDS:-30}
tag="nodeshm-tag-$$-$RANDOM$RANDOM"
out=$(mktemp) before=$(mktemp)
launcher=
cleanup() {
  [ -n "$launcher" ] && kill -9 "$launcher" 2>/dev/null
  ef_kill_tagged "$tag"
  rm -f "$out" "$before"
}
trap cleanup EXIT
log() { echo "mpi_fault: $*"; }
fail=0

ef_shm_snapshot >"$before"
start=$(ef_now)
log "starting: $OSHRUN -np $np $* $tag"
"$OSHRUN" -np "$np" "$@" "$tag" >"$out" 2>&1 &
launcher=$!

for ((i = 0; i < 600; i++)); do
  [ "$(grep -c '^ready PE ' "$out")" -ge "$np" ] && break
  kill -0 "$launcher" 2>/dev/null || break
  sleep 0.1
done
if [ "$(grep -c '^ready PE ' "$out")" -lt "$np" ]; then
  log "FAIL: not all $np ranks got ready within 60 s"
  cat "$out"
  exit 1
fi
sleep 0.5 # collectives under way, the shared windows in use
if ! kill -0 "$launcher" 2>/dev/null; then
  log "FAIL: the job ended by itself before the kill"
  cat "$out"
  exit 1
fi

victim_pe=$((1 + RANDOM % (np - 1)))
victim=$(sed -n "s/^ready PE $victim_pe pid \([0-9]*\)\$/\1/p" "$out" | head -1)
if [ -z "$victim" ] || ! tr '\0' ' ' <"/proc/$victim/cmdline" 2>/dev/null | grep -qF -- "$tag"; then
  log "FAIL: rank $victim_pe's pid '$victim' is not a process of this run"
  cat "$out"
  exit 1
fi
shm_during=$(ls /dev/shm 2>/dev/null | tr '\n' ' ')
log "all $np ranks ready; /dev/shm holds: ${shm_during:-nothing}"
log "kill -9 rank $victim_pe (pid $victim)"
if ef_kill_and_wait "$victim" "rank $victim_pe" "$limit"; then
  if [ "$ef_rc" -eq 0 ]; then
    log "FAIL: exit status 0 after a rank was killed"
    fail=1
  fi
else
  fail=1
fi
echo "----- output (last lines) -----"
tail -n 20 "$out"
echo "-------------------------------"

if ! ef_wait_no_procs "$tag" 10 >"$out.procs"; then
  log "FAIL: processes of the run are left:"
  cat "$out.procs"
  fail=1
fi
rm -f "$out.procs"
ef_check_shm "$before" "$start" || fail=1
[ "$fail" -eq 0 ] && log "PASS"
exit "$fail"
