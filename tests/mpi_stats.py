#!/usr/bin/env python3
"""Checks a NODESHM_MPI_STATS report against what tests/mpi_stats.c says it must be.

Usage: mpi_stats.py REPORT EXPECT
  REPORT: the report (CSV when it ends in .csv, else the text tables, anywhere in the file, as
          on stderr); EXPECT: mpi_stats.c's "op,field,value" lines, summed over ranks.
Every counter of every op is compared exactly: calls, accelerated, empty, handed, each reason
column, bytes; an op with calls has time > 0, accelerated time > 0 exactly where calls were
accelerated, one rank's fewest and most calls = calls / ranks.  Before comparing, the checker
proves it can fail: each expected value changed by one must make the comparison fail."""
import csv
import sys

REASONS = ["disabled", "below_min", "above_max", "stage", "datatype", "reduce_op", "inter", "alone", "nodes",
           "setup", "large_count", "fortran", "args", "library"]
COUNTERS = ["calls", "accelerated", "empty", "bytes"] + REASONS


def parse_csv(path):
    ops = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            op = row.pop("op")
            ops[op] = {k: (float(v) if "time" in k else int(v)) for k, v in row.items()}
    return ops


def parse_text(path):
    lines = open(path).read().splitlines()
    ops, i = {}, 0
    while i < len(lines) and not lines[i].startswith("nodeshm_mpi stats:"):
        i += 1
    if i == len(lines):
        raise SystemExit("mpi_stats.py: FAIL: no 'nodeshm_mpi stats:' line in %s" % path)
    head = lines[i + 1].split()
    if head[:6] != ["op", "calls", "accelerated", "empty", "handed", "bytes"]:
        raise SystemExit("mpi_stats.py: FAIL: unexpected header: %s" % lines[i + 1])
    i += 2
    while i < len(lines) and lines[i] and not lines[i].startswith("handed to"):
        w = lines[i].split()
        if len(w) != 10:
            raise SystemExit("mpi_stats.py: FAIL: bad row: %s" % lines[i])
        cmin, cmax = w[8].split("-")
        tmin, tmax = w[9].split("-")
        ops[w[0]] = dict(calls=int(w[1]), accelerated=int(w[2]), empty=int(w[3]), handed=int(w[4]),
                         bytes=int(w[5]), time_ms=float(w[6]), accel_time_ms=float(w[7]), calls_min=int(cmin),
                         calls_max=int(cmax), time_min_ms=float(tmin), time_max_ms=float(tmax))
        ops[w[0]].update({r: 0 for r in REASONS})
        i += 1
    if i < len(lines) and lines[i].startswith("handed to"):
        cols = lines[i + 1].split()
        if cols[0] != "op" or any(c not in REASONS for c in cols[1:]):
            raise SystemExit("mpi_stats.py: FAIL: bad reason header: %s" % lines[i + 1])
        i += 2
        while i < len(lines) and lines[i] and not lines[i].startswith("  "):
            w = lines[i].split()
            if w[0] not in ops or len(w) != len(cols):
                raise SystemExit("mpi_stats.py: FAIL: bad reason row: %s" % lines[i])
            for c, v in zip(cols[1:], w[1:]):
                ops[w[0]][c] = int(v)
            i += 1
    return ops


def compare(report, expect, ranks):
    """The list of differences (empty: all as expected)."""
    bad = []
    for op, want in expect.items():
        got = report.get(op)
        if got is None:
            if want["calls"]:
                bad.append("%s: no row, expected %d calls" % (op, want["calls"]))
            continue
        for k in COUNTERS:
            if got.get(k, 0) != want.get(k, 0):
                bad.append("%s: %s = %s, expected %s" % (op, k, got.get(k, 0), want.get(k, 0)))
        handed = sum(want.get(r, 0) for r in REASONS)
        if got["handed"] != handed:
            bad.append("%s: handed = %d, expected %d" % (op, got["handed"], handed))
        if got["calls"] != got["accelerated"] + got["empty"] + got["handed"]:
            bad.append("%s: calls %d != accelerated + empty + handed" % (op, got["calls"]))
        if (got["accel_time_ms"] > 0) != (want["accelerated"] > 0):
            bad.append("%s: accelerated time %g ms with %d accelerated calls" % (op, got["accel_time_ms"],
                                                                                 want["accelerated"]))
        if want["calls"] and not got["time_ms"] > 0:
            bad.append("%s: time %g ms for %d calls" % (op, got["time_ms"], want["calls"]))
        if got["time_ms"] + 1e-6 < got["accel_time_ms"]:
            bad.append("%s: time %g ms < accelerated time %g ms" % (op, got["time_ms"], got["accel_time_ms"]))
        per_rank = want["calls"] // ranks
        if (got["calls_min"], got["calls_max"]) != (per_rank, per_rank):
            bad.append("%s: one rank's calls %d-%d, expected %d" % (op, got["calls_min"], got["calls_max"], per_rank))
        if want["calls"] and not 0 < got["time_min_ms"] <= got["time_max_ms"]:
            bad.append("%s: one rank's time %g-%g ms" % (op, got["time_min_ms"], got["time_max_ms"]))
    for op in report:
        if op not in expect:
            bad.append("%s: a row for an op the program never called" % op)
    return bad


def main():
    report_path, expect_path = sys.argv[1:3]
    expect, ranks = {}, 0
    for line in open(expect_path):
        words = line.strip().split(",")
        if words[0] == "ranks":
            ranks = int(words[1])
            continue
        op, field, value = words
        expect.setdefault(op, {})[field] = int(value)
    report = parse_csv(report_path) if report_path.endswith(".csv") else parse_text(report_path)
    if report_path.endswith(".csv"):  # every op has a row there: those never called have zeros
        report = {op: v for op, v in report.items() if v["calls"] or any(v[k] for k in COUNTERS)}
    bad = compare(report, expect, ranks)
    # the comparison must fail when any one expected counter is off by one
    blind = []
    for op, want in expect.items():
        for k in want:
            if k not in COUNTERS:
                continue
            want[k] += 1
            if not compare(report, expect, ranks):
                blind.append("%s.%s" % (op, k))
            want[k] -= 1
    if blind:
        bad.append("the check cannot see a wrong " + ", ".join(blind))
    for b in bad:
        print("mpi_stats.py: FAIL: " + b)
    if bad:
        print(open(report_path).read())
        sys.exit(1)
    print("mpi_stats.py: %d ranks, %d ops, every counter as expected: PASS" % (ranks, len(expect)))


main()
