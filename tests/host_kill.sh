#!/usr/bin/env bash
# Usage: host_kill.sh HOSTS NP PROGRAM     (PROGRAM: tests/kill_victim.c)
#
# tests/kill_test.sh on emulated hosts: starts "$OSHRUN --hosts HOSTS -np NP PROGRAM <tag>",
# waits until every PE has printed "ready PE <n> pid <pid>", checks that the PEs live in HOSTS
# different hosts (UTS namespaces), then SIGKILLs one PE on a host other than PE 0's. Passes if
#   - the launcher ends within KILL_TEST_SECONDS (default 30; its exit status does not matter),
#   - every process of the run is gone within 10 s after: the PEs (found by <tag>) and the
#     launcher's other descendants (agents, proxies/daemons) on every host,
#   - no process is left in any host's mount namespace (so each host's private /dev/shm and
#     /tmp are freed), and nothing the run created is left in this machine's /dev/shm.
# The PE's printed pid is its pid inside its host's PID namespace: the victim is found from
# outside by its rank (PMI_RANK under MPICH, OMPI_COMM_WORLD_RANK under Open MPI) in its
# environment, and checked against that pid (the last NSpid field). Exit status 77 (skip)
# when the machine cannot make namespaces.
set -u
. "$(dirname "$0")/expect_failure.sh"

[ $# -eq 3 ] || { echo "usage: $0 HOSTS NP PROGRAM" >&2; exit 2; }
hosts=$1 np=$2 prog=$3
: "${OSHRUN:?OSHRUN must name the launcher}"
[ "$hosts" -ge 2 ] && [ "$np" -ge "$hosts" ] || { echo "host_kill: needs 2 <= HOSTS <= NP" >&2; exit 2; }
limit=${KILL_TEST_SECONDS:-30}
tag="nodeshm-tag-$$-$RANDOM$RANDOM"
out=$(mktemp) before=$(mktemp)
launcher=
log() { echo "host_kill: $*"; }
cleanup() {
  [ -n "$launcher" ] && kill -9 "$launcher" 2>/dev/null
  ef_kill_tagged "$tag"
  rm -f "$out" "$before"
}
trap cleanup EXIT
fail=0

# pids of the PEs of this run (the tag is on their command lines), as seen from here
pe_pids() { pgrep -f -- "$tag" | while read -r p; do [ "$p" != "$launcher" ] && echo "$p"; done; }
rank_of() { tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null |
              sed -n 's/^\(PMI_RANK\|OMPI_COMM_WORLD_RANK\)=\([0-9]*\)$/\2/p' | head -1; }
descendants() {
  local p c
  for p in "$@"; do
    for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do echo "$c"; descendants "$c"; done
  done
}

ef_shm_snapshot >"$before"
start=$(ef_now)
log "starting: $OSHRUN --hosts $hosts -np $np $prog $tag"
"$OSHRUN" --hosts "$hosts" -np "$np" "$prog" "$tag" >"$out" 2>&1 &
launcher=$!

for ((i = 0; i < 600; i++)); do
  [ "$(grep -c '^ready PE ' "$out")" -ge "$np" ] && break
  kill -0 "$launcher" 2>/dev/null || break
  sleep 0.1
done
if ! kill -0 "$launcher" 2>/dev/null; then
  wait "$launcher"; rc=$?; launcher=
  if [ "$rc" -eq 77 ]; then cat "$out"; exit 77; fi
fi
if [ "$(grep -c '^ready PE ' "$out")" -lt "$np" ]; then
  log "FAIL: not all $np PEs got ready within 60 s"
  cat "$out"
  exit 1
fi

# where each PE runs: its rank, UTS and mount namespaces
declare -A pid_of uts_of
mnts=
for p in $(pe_pids); do
  r=$(rank_of "$p")
  [ -n "$r" ] || continue
  pid_of[$r]=$p
  uts_of[$r]=$(readlink "/proc/$p/ns/uts")
  mnts="$mnts $(readlink "/proc/$p/ns/mnt")"
done
nuts=$(printf '%s\n' "${uts_of[@]}" | sort -u | grep -c .)
log "PEs found: ${#pid_of[@]} of $np, in $nuts hosts (UTS namespaces; this one: $(readlink /proc/self/ns/uts))"
if [ "${#pid_of[@]}" -ne "$np" ] || [ "$nuts" -ne "$hosts" ] ||
   printf '%s\n' "${uts_of[@]}" | grep -qxF "$(readlink /proc/self/ns/uts)"; then
  log "FAIL: the PEs do not run on $hosts emulated hosts"
  cat "$out"
  exit 1
fi
mnts=$(printf '%s\n' $mnts | sort -u)

# the victim: a PE on another host than PE 0's
victim_pe=
for ((pe = np - 1; pe > 0; pe--)); do
  [ "${uts_of[$pe]}" != "${uts_of[0]}" ] && { victim_pe=$pe; break; }
done
victim=${pid_of[$victim_pe]}
inner=$(sed -n "s/^ready PE $victim_pe pid \([0-9]*\)\$/\1/p" "$out" | head -1)
nspid=$(awk '/^NSpid:/ { print $NF }' "/proc/$victim/status" 2>/dev/null)
if [ -z "$inner" ] || [ "$inner" != "$nspid" ]; then
  log "FAIL: PE $victim_pe: pid $victim here is '$nspid' in its host, but the PE printed '$inner'"
  cat "$out"
  exit 1
fi
family=$(descendants "$launcher" | sort -u)
log "all $np PEs ready; kill -9 PE $victim_pe (pid $victim here, $inner on its host)"
ef_kill_and_wait "$victim" "PE $victim_pe" "$limit" || fail=1
echo "----- output -----"
cat "$out"
echo "------------------"

if ! ef_wait_no_procs "$tag" 10 >"$out.procs"; then
  log "FAIL: PEs of the run are left:"
  cat "$out.procs"
  fail=1
fi
rm -f "$out.procs"
for ((i = 0; i < 100; i++)); do
  left=
  for p in $family; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
  [ -z "$left" ] && break
  sleep 0.1
done
if [ -n "$left" ]; then
  log "FAIL: processes the launcher started are left:"
  for p in $left; do echo "  $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-150)"; done
  fail=1
fi
# Processes a host starts while it is torn down (after the family above was taken) must be gone
# within seconds too: look for up to 10 s.
for ((i = 0; i < 100; i++)); do
  in_ns=
  for p in /proc/[0-9]*; do
    m=$(readlink "$p/ns/mnt" 2>/dev/null) || continue
    grep -qxF -- "$m" <<<"$mnts" && in_ns="$in_ns ${p#/proc/}"
  done
  [ -z "$in_ns" ] && break
  sleep 0.1
done
if [ -n "$in_ns" ]; then
  log "FAIL: processes left in the hosts' mount namespaces (their /dev/shm lives on):$in_ns"
  fail=1
else
  log "no process left in the $(grep -c . <<<"$mnts") hosts' mount namespaces: their /dev/shm and /tmp are gone"
fi
ef_check_shm "$before" "$start" || fail=1
[ "$fail" -eq 0 ] && log "PASS"
exit "$fail"
