#!/usr/bin/env bash
# Usage: host_pinning.sh   (oshrun --hosts: each emulated host's processes on CPUs of their own)
# 2 hosts x 2 PEs: the PEs of one host share one CPU list, the two hosts' lists are disjoint
# where the machine has 2 CPUs or more; with NSHOST_PIN=0 every PE may use every CPU.
set -u
: "${OSHRUN:?OSHRUN must name the launcher}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
report() { # the PEs' "hostname cpulist" lines, sorted
  "$OSHRUN" --hosts 2 -np 4 sh -c 'l=$(taskset -pc $$); echo "$(hostname) ${l##*: }"' >"$out" 2>&1
  local rc=$?
  [ "$rc" -eq 77 ] && exit 77 # no emulated hosts here
  [ "$rc" -eq 0 ] || { echo "host_pinning: FAIL: oshrun exited $rc"; cat "$out"; exit 1; }
  sort "$out"
}
command -v taskset >/dev/null || { echo "host_pinning: no taskset here"; exit 77; }
all=$(taskset -pc $$); all=${all##*: }
fail=0
lines=$(report)
echo "$lines"
a=$(echo "$lines" | awk '$1 == "nshost-2" {print $2}' | sort -u)
b=$(echo "$lines" | awk '$1 == "nshost-3" {print $2}' | sort -u)
[ "$(echo "$a" | wc -l)" -eq 1 ] && [ "$(echo "$b" | wc -l)" -eq 1 ] && [ -n "$a" ] && [ -n "$b" ] ||
  { echo "host_pinning: FAIL: a host's PEs do not share one CPU list"; fail=1; }
if [ "$(nproc)" -ge 2 ] && [ "$a" = "$b" ]; then
  echo "host_pinning: FAIL: both hosts on CPUs $a"; fail=1
fi
lines=$(NSHOST_PIN=0 report)
echo "$lines"
[ "$(echo "$lines" | awk -v all="$all" '$2 != all' | wc -l)" -eq 0 ] ||
  { echo "host_pinning: FAIL: NSHOST_PIN=0 still pinned (all: $all)"; fail=1; }
[ "$fail" -eq 0 ] && echo "host_pinning: PASS"
exit "$fail"
