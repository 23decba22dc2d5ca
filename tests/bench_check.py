#!/usr/bin/env python3
"""Shape and sanity checks of nodeshm-bench output (tests/bench.cmake): columns present,
numbers positive and ordered (min <= median <= max), JSON valid, the report's files written.
Timing values are never compared with each other: the machine is shared and noisy.

  bench_check.py json SUBCOMMAND FILE   the --json document of one subcommand
  bench_check.py csv FILE               the --csv output
  bench_check.py table SUBCOMMAND FILE  the human tables
  bench_check.py report DIR PLOTS       report.md, results.csv/json, tuning.conf; PLOTS: yes/no
  bench_check.py tuning FILE            prints the NAME=VALUE settings of a tuning file
  bench_check.py cold SUBCOMMAND FILE   the --json document of `SUBCOMMAND --cold`: only
                                        <test>_cold tests, the expected ones and mechanisms
  bench_check.py hosts SUBCOMMAND K FILE  the --json document of `SUBCOMMAND --hosts K`: every
                                        run on K hosts, only <test>_hosts<K> tests (each row
                                        hosts K), the expected ones and mechanisms
Exit status 0 when every check passed; each failure is printed."""
import csv
import json
import os
import re
import shutil
import sys

FIELDS = "test,mechanism,bytes,param,pes,median_us,min_us,max_us,mbps".split(",")
failures = []
checks = 0


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        failures.append(msg)
        if len(failures) <= 20:
            print("FAIL: " + msg)


def check_row(r, where):
    for f in FIELDS + ["program"]:
        check(f in r, "%s: column %s missing: %r" % (where, f, r))
    if any(f not in r for f in FIELDS):
        return
    try:
        b, pes = int(r["bytes"]), int(r["pes"])
        med, lo, hi, mbps = (float(r[k]) for k in ("median_us", "min_us", "max_us", "mbps"))
    except (TypeError, ValueError):
        check(False, "%s: a number is not a number: %r" % (where, r))
        return
    check(r["test"] and r["mechanism"], "%s: empty test or mechanism: %r" % (where, r))
    check(b >= 0 and pes >= 1, "%s: bytes < 0 or pes < 1: %r" % (where, r))
    check(lo > 0 and med > 0 and hi > 0, "%s: times not positive: %r" % (where, r))
    check(lo <= med <= hi, "%s: not min <= median <= max: %r" % (where, r))
    check(mbps >= 0, "%s: negative MB/s: %r" % (where, r))
    if b > 0 and mbps > 0 and med > 0:
        check(abs(mbps - b / med) <= 0.02 * (b / med) + 0.01, "%s: mbps != bytes/median: %r" % (where, r))
    check(r["param"] != "", "%s: empty param: %r" % (where, r))


# what each subcommand must produce when its programs speak the CSV contract
EXPECT = {
    "p2p": {"latency": {"nodeshm_put", "nodeshm_get", "mpi_put", "mpi_get", "mpi_send", "memcpy"},
            "bandwidth": {"nodeshm_put", "mpi_put", "mpi_send", "memcpy"},
            "bibw": {"nodeshm_put", "mpi_put", "mpi_send"},
            "pingpong": {"cacheline", "nodeshm_put_signal", "mpi_send"},
            "barrier": {"nodeshm_barrier", "mpi_barrier"}},
    "map": {"map_hot": {"memcpy"}, "map_cold": {"memcpy"}},
}
MUST_RUN = {"p2p", "map"}  # ours: always built, always CSV
# --cold: the tests each subcommand must produce (and nothing hot)
EXPECT_COLD = {
    "p2p": {"latency_cold": {"nodeshm_put", "nodeshm_get", "mpi_put", "mpi_get", "mpi_send",
                             "memcpy"},
            "bandwidth_cold": {"nodeshm_put", "mpi_put", "mpi_send", "memcpy"},
            "bibw_cold": {"nodeshm_put", "mpi_put", "mpi_send"}},
    "pairs": {"pairs_cold": {"memcpy", "shm"}},
    "dt": {"dt_cold": {"shm_np", "shm_p", "mpi_send"}},
}


def check_rows_expected(sub, rows):
    want = EXPECT.get(sub)
    if not want:
        return
    for test, mechs in want.items():
        got = {r["mechanism"] for r in rows if r["test"] == test}
        check(mechs <= got, "%s: test %s lacks mechanisms %s" % (sub, test, sorted(mechs - got)))
    if sub == "map":
        for test in ("map_hot", "map_cold"):
            pairs = {r["param"] for r in rows if r["test"] == test}
            cpus = {p.split("-")[0] for p in pairs} | {p.split("-")[1] for p in pairs if "-" in p}
            check(all(re.match(r"^\d+-\d+$", p) for p in pairs), "map: param not src-dst: %s" % pairs)
            check(len(pairs) == len(cpus) ** 2 and pairs, "map %s: not every pair of %s: %s" %
                  (test, sorted(cpus), sorted(pairs)))
    if sub == "p2p":
        sizes = sorted({r["bytes"] for r in rows if r["test"] == "latency"})
        check(len(sizes) >= 3, "p2p: fewer than 3 sizes: %s" % sizes)


def check_cold(sub, path):
    doc = check_json(sub, path, expect=False)
    if not doc:
        return
    rows = doc.get("rows", [])
    check(rows, "%s: no rows" % path)
    hot = sorted({r["test"] for r in rows if not r["test"].endswith("_cold")})
    check(not hot, "%s: --cold run has tests not named *_cold: %s" % (path, hot))
    for test, mechs in EXPECT_COLD[sub].items():
        got = {r["mechanism"] for r in rows if r["test"] == test}
        check(mechs <= got, "%s: %s lacks mechanisms %s" % (path, test, sorted(mechs - got)))
    for run in doc.get("runs", []):
        check("--cold" in run.get("args", []), "%s: run %s without --cold: %s" % (
            path, run.get("program"), run.get("args")))


# --hosts K with 1 PE per host (p2p: PE 1 on another host): the between-node tables too
EXPECT_HOSTS = {
    "p2p": {"rma_put": {"nodeshm_put", "mpi_put", "memcpy"},
            "rma_get": {"nodeshm_get", "mpi_get", "memcpy"},
            "rma_signal": {"nodeshm_put_signal", "mpi_put_signal"},
            "rma_amo": {"nodeshm_fetch_add", "mpi_fetch_and_op", "nodeshm_add", "mpi_accumulate"},
            "pingpong": {"nodeshm_put_signal", "mpi_send"}},
    "coll": {"fcollect": {"nodeshm", "mpi_lib"}, "alltoall": {"nodeshm", "mpi_lib"},
             "allgather": {"nodeshm", "mpi_lib"}, "team_sync": {"nodeshm", "mpi_lib"}},
}


def check_hosts(sub, k, path):
    doc = check_json(sub, path, expect=False)
    if not doc:
        return
    rows, suffix = doc.get("rows", []), "_hosts%d" % k
    check(rows, "%s: no rows" % path)
    bad = sorted({r["test"] for r in rows if not r["test"].endswith(suffix) or r.get("hosts") != k})
    check(not bad, "%s: --hosts %d rows without %s / hosts %d: %s" % (path, k, suffix, k, bad))
    for run in doc.get("runs", []):
        check(run.get("hosts") == k and run.get("status") == "ok",
              "%s: run %s: hosts %s, %s: %s" % (path, run.get("program"), run.get("hosts"),
                                                run.get("status"), run.get("note")))
    for test, mechs in EXPECT_HOSTS.get(sub, {}).items():
        got = {r["mechanism"] for r in rows if r["test"] == test + suffix}
        check(mechs <= got, "%s: %s lacks mechanisms %s" % (path, test + suffix, sorted(mechs - got)))


def check_json(sub, path, expect=True):
    with open(path) as f:
        try:
            doc = json.load(f)
        except ValueError as e:
            check(False, "%s: invalid JSON: %s" % (path, e))
            return None
    for k in ("tool", "subcommand", "topology", "runs", "rows"):
        check(k in doc, "%s: key %s missing" % (path, k))
    check(doc.get("subcommand") == sub, "%s: subcommand %r, not %r" % (path, doc.get("subcommand"), sub))
    topo = doc.get("topology", {})
    for k in ("cpus_usable", "cores", "numa_nodes", "sockets", "caches", "source"):
        check(k in topo, "%s: topology.%s missing" % (path, k))
    check(topo.get("cpus_usable", 0) >= 1, "%s: no CPUs in the topology" % path)
    check(all(isinstance(v, int) and v > 0 for v in topo.get("caches", {}).values()),
          "%s: cache sizes %s" % (path, topo.get("caches")))
    if shutil.which("lstopo-no-graphics") or shutil.which("hwloc-ls"):
        check(topo.get("source") == "hwloc" and topo.get("caches_source") == "hwloc"
              and topo.get("caches"),
              "%s: hwloc is installed, yet the topology is from %s, caches %s from %s"
              % (path, topo.get("source"), topo.get("caches"), topo.get("caches_source")))
    runs = doc.get("runs", [])
    check(runs, "%s: no runs" % path)
    for run in runs:
        st = run.get("status")
        check(st in ("ok", "skipped"), "%s: run %s %s: %s" % (path, run.get("program"), st, run.get("note")))
        if st == "ok":
            check(run.get("rows", 0) > 0, "%s: run %s ok without rows" % (path, run.get("program")))
        if run.get("program") in MUST_RUN:
            check(st == "ok", "%s: %s must run: %s" % (path, run.get("program"), run.get("note")))
        if st == "skipped":
            print("note: %s skipped: %s" % (run.get("program"), run.get("note")))
    rows = doc.get("rows", [])
    for i, r in enumerate(rows):
        check_row(r, "%s row %d" % (path, i))
    check(sum(run.get("rows", 0) for run in runs) == len(rows), "%s: row counts disagree" % path)
    if sub != "report" and expect:
        check_rows_expected(sub, rows)
    if sub in ("map", "pairs") and any(r.get("status") == "ok" for r in runs):  # they pin
        check(any(l.startswith("nodeshm-bench-%s: pinning: PE 0 -> CPU " % sub)
                  for l in doc.get("pinning", [])),
              "%s: the pinning is not reported: %s" % (path, doc.get("pinning")))
    return doc


def check_csv(path):
    with open(path) as f:
        lines = f.read().splitlines()
    check(lines and lines[0] == ",".join(FIELDS + ["program"]), "%s: bad header %r" %
          (path, lines[:1]))
    rows = list(csv.DictReader(lines))
    check(rows, "%s: no rows" % path)
    for i, r in enumerate(rows):
        check(None not in r and len(r) == len(FIELDS) + 1, "%s row %d: field count: %r" % (path, i, r))
        check_row(r, "%s row %d" % (path, i))
    return rows


def check_table(sub, path):
    with open(path) as f:
        text = f.read()
    check("# nodeshm-bench %s" % sub in text, "%s: title missing" % path)
    if sub == "map":
        check(re.search(r"src\\dst", text), "%s: no matrix" % path)
        check("map_hot" in text and "map_cold" in text, "%s: hot or cold missing" % path)
    else:
        check(re.search(r"\bwinner\b.*\bmargin\b", text), "%s: no winner/margin columns" % path)
        for line in text.splitlines():
            m = re.search(r"(\d+\.\d+)x\s*$", line)
            if m:
                check(float(m.group(1)) >= 1.0, "%s: margin below 1: %s" % (path, line))


def tuning_settings(path):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            body = line.split("#", 1)[0].strip()
            if not body:
                continue
            m = re.match(r"^(NODESHM_[A-Z0-9_]+)=(\d+|[a-z][a-z0-9-]*)$", body)
            check(m, "%s line %d: not NODESHM_NAME=bytes (or =word): %r" % (path, n, line))
            if m:
                out.append((m.group(1), m.group(2)))
    return out


def check_report(d, plots):
    md = os.path.join(d, "report.md")
    check(os.path.isfile(md), "%s missing" % md)
    text = open(md).read() if os.path.isfile(md) else ""
    for h in ("# nodeshm benchmark report", "## Summary: who wins where", "## Thresholds",
              "## Runs", "## Results"):
        check(h in text, "report.md: section %r missing" % h)
    check_csv(os.path.join(d, "results.csv"))
    doc = check_json("report", os.path.join(d, "results.json"))
    if doc:
        check("thresholds" in doc and "summary" in doc, "results.json: thresholds/summary missing")
    settings = tuning_settings(os.path.join(d, "tuning.conf"))
    check(settings, "tuning.conf: no settings (the MPI benchmark must have run)")
    check(any(n.startswith("NODESHM_MPI_") and n.endswith("_MAX") for n, _ in settings),
          "tuning.conf: no NODESHM_MPI_<OP>_MAX")
    rows = doc.get("rows", []) if doc else []
    progs = {r["program"] for r in rows}
    if "coll-shmem" in progs:  # `coll` ran: the eager switch of the OpenSHMEM collectives too
        for op in ("bcast", "collect", "alltoall"):
            mechs = {r["mechanism"] for r in rows if r["program"] == "coll-eager" and r["test"] == op}
            check(mechs == {"nodeshm_eager", "nodeshm_rendezvous"},
                  "coll-eager %s: mechanisms %s, not eager and rendezvous" % (op, sorted(mechs)))
        eager = [int(v) for n, v in settings if n == "NODESHM_COLL_EAGER_MAX"]
        check(len(eager) == 1 and 0 <= eager[0] <= 65536,
              "tuning.conf: NODESHM_COLL_EAGER_MAX missing or out of 0..64K: %s" % eager)
        check(re.search(r"^# .*rendezvous time / eager time.*\nNODESHM_COLL_EAGER_MAX=\d+$",
                        open(os.path.join(d, "tuning.conf")).read(), re.M),
              "tuning.conf: NODESHM_COLL_EAGER_MAX without its ratios comment")
    if "p2p" in progs:  # the report's cold point, beside the hot sweep (never in one table)
        tests = {r["test"] for r in rows if r["program"] == "p2p"}
        check({"latency", "latency_cold", "bandwidth_cold"} <= tests,
              "report: p2p hot and cold tests expected: %s" % sorted(tests))
    check(re.search(r"repetitions per point \(NODESHM_BENCH_REPS\): [\w-]+ \d+", text),
          "report.md: repetitions not stated")
    pngs = [f for f in os.listdir(d) if f.endswith(".png")]
    if plots == "yes":
        check(len(pngs) >= 3, "%s: %d PNGs, expected plots" % (d, len(pngs)))
        for p in pngs:
            with open(os.path.join(d, p), "rb") as f:
                check(f.read(8) == b"\x89PNG\r\n\x1a\n", "%s: not a PNG" % p)
            check("](%s)" % p in text, "report.md does not show %s" % p)
        check(any(p.startswith("map_map_hot") for p in pngs), "no map heatmap PNG")
    else:
        check(not pngs and "No plots: matplotlib is not available" in text,
              "no matplotlib: report.md must say so (and have no PNGs)")


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    mode = argv[0]
    if mode == "json":
        check_json(argv[1], argv[2])
    elif mode == "csv":
        check_csv(argv[1])
    elif mode == "table":
        check_table(argv[1], argv[2])
    elif mode == "report":
        check_report(argv[1], argv[2])
    elif mode == "cold":
        check_cold(argv[1], argv[2])
    elif mode == "hosts":
        check_hosts(argv[1], int(argv[2]), argv[3])
    elif mode == "tuning":
        for n, v in tuning_settings(argv[1]):
            print("%s=%s" % (n, v))
    else:
        print(__doc__)
        return 2
    if mode != "tuning":
        print("bench_check %s: %d checks, %d failed" % (mode, checks, len(failures)))
    return 1 if failures or checks == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
