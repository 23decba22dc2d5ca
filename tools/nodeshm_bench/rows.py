"""The rows: the CSV contract the benchmark programs print (bench/bench_util.h), checked and
parsed; grouped into tables; written back for machines (CSV, JSON)."""
import csv
import datetime
import io
import json
import platform
import re

from . import config

HEADER = "test,mechanism,bytes,param,pes,median_us,min_us,max_us,mbps"
FIELDS = HEADER.split(",")
# reference points, not competitors: shown in the tables, left out of "who wins"
REFERENCES = {"memcpy", "cacheline", "compute"}
# tests whose natural unit is MB/s (the others: microseconds per operation); their --cold
# variants ("<test>_cold") and emulated-hosts ones ("<test>_hosts<K>") too
BANDWIDTH_TESTS = {"bandwidth", "bibw", "map_hot", "map_cold", "pairs", "pairs_spread"}


def is_bandwidth(test):
    return re.sub(r"(_cold)?(_hosts\d+)?$", "", test) in BANDWIDTH_TESTS


def parse_rows(text, label):
    """Checks the contract (exactly one header line, then rows) and returns the rows."""
    lines = [l for l in text.splitlines() if l.strip()]
    if not lines:
        raise ValueError("no output on stdout")
    if lines[0].strip() != HEADER:
        raise ValueError("first line is not the CSV header: %r" % lines[0][:120])
    rows = []
    for n, line in enumerate(csv.reader(io.StringIO("\n".join(lines[1:]))), 2):
        if len(line) != len(FIELDS):
            raise ValueError("line %d has %d fields, not %d: %r" % (n, len(line), len(FIELDS), line))
        r = dict(zip(FIELDS, line))
        try:
            r["bytes"] = int(r["bytes"])
            r["pes"] = int(r["pes"])
            for k in ("median_us", "min_us", "max_us", "mbps"):
                r[k] = float(r[k])
        except ValueError:
            raise ValueError("line %d: a number is not a number: %r" % (n, line))
        if not (r["min_us"] <= r["median_us"] <= r["max_us"]):
            raise ValueError("line %d: min <= median <= max does not hold: %r" % (n, line))
        r["program"] = label
        rows.append(r)
    return rows


def groups(rows):
    """(program, test) -> rows, in first-seen order"""
    out = {}
    for r in rows:
        out.setdefault((r["program"], r["test"]), []).append(r)
    return out


def pivot(rs):
    """keys (bytes, param) and mechanisms in first-seen order; cell -> row"""
    keys, mechs, cell = [], [], {}
    for r in rs:
        k = (r["bytes"], r["param"])
        if k not in cell:
            keys.append(k)
            cell[k] = {}
        if r["mechanism"] not in mechs:
            mechs.append(r["mechanism"])
        cell[k][r["mechanism"]] = r
    return keys, mechs, cell


def rows_csv(rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(FIELDS + ["program"])
    for r in rows:
        w.writerow([r[f] for f in FIELDS] + [r["program"]])
    return buf.getvalue()


def rows_json(sub, runs, topo, extra=None):
    doc = {"tool": "nodeshm-bench", "version": config.VERSION, "subcommand": sub,
           "host": platform.node(),
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "topology": topo, "runs": [r.as_dict() for r in runs],
           "pinning": [l for r in runs for l in r.stderr if "pinning:" in l],
           "rows": [r for run in runs for r in run.rows]}
    doc.update(extra or {})
    return json.dumps(doc, indent=1)
