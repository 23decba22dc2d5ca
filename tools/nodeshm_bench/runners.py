"""Running one benchmark program: oshrun [--hosts K] -np N PROGRAM FLAGS ARGS, its stderr passed
through and kept, its stdout checked against the CSV contract (rows.py); a Run records what ran
and how."""
import os
import subprocess
import sys
import threading
import time

from . import config
from .rows import HEADER, parse_rows
from .text import note, size_range


class Run:
    """One program run: what ran, how it ended, the rows it printed."""

    def __init__(self, label, exe, np_, args, env):
        self.label, self.exe, self.np, self.args, self.env = label, exe, np_, args, env
        self.hosts = config.HOSTS  # emulated hosts (--hosts K), 0: one node
        self.rows, self.status, self.why, self.seconds, self.stderr = [], "skipped", "", 0.0, []

    def as_dict(self):
        return {"program": self.label, "executable": self.exe, "np": self.np,
                "hosts": self.hosts, "args": self.args, "env": self.env, "status": self.status,
                "note": self.why,
                "seconds": round(self.seconds, 2), "rows": len(self.rows)}


def find_exe(names):
    for n in names:
        p = os.path.join(config.BENCH_DIR, n)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def speaks_csv(exe):
    """The contract's header is compiled into every program that prints CSV rows."""
    try:
        with open(exe, "rb") as f:
            return HEADER.encode() in f.read()
    except OSError:
        return False


def host_tag(run, rows):
    """Rows of a run on emulated hosts: test <test>_hosts<K> and a hosts field, so they never
    share a table, a plot or a threshold with one-node rows (as <test>_cold with hot ones)."""
    if run.hosts:
        for r in rows:
            r["test"] = "%s_hosts%d" % (r["test"], run.hosts)
            r["hosts"] = run.hosts
    return rows


def launch(run, flags, timeout, verbose):
    """Launches oshrun [--hosts K] -np N exe FLAGS ARGS; stderr (the program's progress) passes
    through and is kept for the report (pinning lines).  Returns the program's stdout, or None
    when it could not start, timed out or failed (run.status and run.why say so)."""
    hosts = ["--hosts", str(run.hosts)] if run.hosts else []
    cmd = [config.OSHRUN] + hosts + ["-np", str(run.np), run.exe] + list(flags) + run.args
    env = dict(os.environ)
    env.update(run.env)
    envtxt = " ".join("%s=%s" % kv for kv in sorted(run.env.items()))
    note("%s: %s%s" % (run.label, envtxt + " " if envtxt else "", " ".join(cmd)))
    t0 = time.time()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env)
    except OSError as e:
        run.status, run.why = "failed", "cannot start %s: %s" % (cmd[0], e)
        return None

    def pump():
        for line in proc.stderr:
            run.stderr.append(line.rstrip("\n"))
            if verbose:
                sys.stderr.write("  " + line)
                sys.stderr.flush()

    # stdout and stderr each by its own thread (communicate() would read stderr too, and the
    # lines it took -- progress, pinning -- would be lost to the report)
    chunks = []
    th = threading.Thread(target=pump, daemon=True)
    to = threading.Thread(target=lambda: chunks.append(proc.stdout.read()), daemon=True)
    th.start()
    to.start()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        run.status, run.why = "failed", "timed out after %ds" % timeout
    to.join(5)
    th.join(5)
    out = "".join(chunks)
    run.seconds = time.time() - t0
    if run.status == "failed":
        return None
    if proc.returncode != 0:
        run.status = "failed"
        tail = " | ".join(run.stderr[-3:])
        run.why = "exit status %d%s" % (proc.returncode, (": " + tail) if tail else "")
        return None
    return out


def run_program(run, timeout, verbose):
    """Runs a program that speaks the CSV contract (--csv) and keeps its rows in run.rows."""
    out = launch(run, ["--csv"], timeout, verbose)
    if out is None:
        return run
    first = next((l for l in out.splitlines() if l.strip()), "")
    if first.strip() != HEADER and not first.startswith("test,"):
        # a program that has not learnt --csv yet prints its human tables: a note, not a failure
        run.status, run.why = "skipped", "no CSV header on stdout (--csv not supported yet?): %r" % first[:80]
        return run
    try:
        run.rows = host_tag(run, parse_rows(out, run.label))
    except ValueError as e:
        run.status, run.why = "failed", "output breaks the CSV contract: %s" % e
        return run
    run.status = "ok"
    run.why = "%d rows in %.1fs" % (len(run.rows), run.seconds)
    return run


def program_args(a):
    """The contract flags that pass through to the programs."""
    out = []
    if a.m:
        out += ["-m", size_range(a.m)]
    if a.i is not None:
        out += ["-i", str(a.i)]
    if a.x is not None:
        out += ["-x", str(a.x)]
    if getattr(a, "cold", False):
        out += ["--cold"]
    return out
