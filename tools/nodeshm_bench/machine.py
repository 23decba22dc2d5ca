"""The machine and the MPI the benchmarks run on: cores, sockets, NUMA nodes and caches (hwloc
when present, else /sys), the MPI behind oshrun, and the default PE counts drawn from them."""
import os
import re
import shutil
import subprocess
from xml.etree import ElementTree

from . import config
from .text import fmt_bytes


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def _size_text(text):
    """'32K' / '4096K' / '2M' (sysfs cache sizes) -> bytes"""
    m = re.match(r"^(\d+)\s*([KMG]?)", text or "")
    if not m:
        return None
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


def hwloc_caches():
    """Data and unified cache sizes by level ({"L1d": bytes, "L2": ..., "L3": ...}) from hwloc's
    XML topology (the first cache of each level: the one over the first core), {} without hwloc."""
    ls = shutil.which("lstopo-no-graphics") or shutil.which("hwloc-ls")
    if not ls:
        return {}
    try:
        out = subprocess.run([ls, "--of", "xml", "-"], capture_output=True, text=True, timeout=20)
        root = ElementTree.fromstring(out.stdout) if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, ElementTree.ParseError):
        return {}
    caches = {}
    for obj in root.iter("object") if root is not None else ():
        m = re.match(r"L(\d)Cache$", obj.get("type", ""))
        kind = obj.get("cache_type", "0")  # 0 unified, 1 data, 2 instruction
        size = int(obj.get("cache_size", "0") or 0)
        if m and kind != "2" and size:
            caches.setdefault("L%s%s" % (m.group(1), "d" if kind == "1" else ""), size)
    return caches


def topology():
    """Cores, NUMA nodes, sockets (hwloc-calc), caches (lstopo's XML): hwloc when present, else
    /sys."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    t = {"source": "sysfs", "cpus_usable": len(cpus) or (os.cpu_count() or 1),
         "cpus_online": os.cpu_count() or 1, "cpu_list": cpus}
    pkgs, cores = set(), set()
    for c in cpus:
        base = "/sys/devices/system/cpu/cpu%d/topology/" % c
        p, k = _read(base + "physical_package_id"), _read(base + "core_id")
        if p is not None:
            pkgs.add(p)
            cores.add((p, k))
    t["sockets"] = len(pkgs) or 1
    t["cores"] = len(cores) or t["cpus_usable"]
    try:
        t["numa_nodes"] = len([d for d in os.listdir("/sys/devices/system/node")
                               if re.match(r"node\d+$", d)]) or 1
    except OSError:
        t["numa_nodes"] = 1
    caches = {}
    cdir = "/sys/devices/system/cpu/cpu%d/cache" % (cpus[0] if cpus else 0)
    try:
        for idx in sorted(os.listdir(cdir)):
            if not idx.startswith("index"):
                continue
            level, kind = _read(os.path.join(cdir, idx, "level")), _read(os.path.join(cdir, idx, "type"))
            size = _size_text(_read(os.path.join(cdir, idx, "size")))
            if level and size and kind != "Instruction":
                caches["L%s%s" % (level, "d" if kind == "Data" else "")] = size
    except OSError:
        pass
    t["caches"] = caches
    hw_caches = hwloc_caches()
    t["caches_source"] = "hwloc" if hw_caches else "sysfs"
    if hw_caches:
        t["caches"], t["source"] = hw_caches, "hwloc"
    calc = shutil.which("hwloc-calc")
    if calc:
        got = {}
        for kind, key in (("core", "cores"), ("package", "sockets"), ("numanode", "numa_nodes")):
            try:
                out = subprocess.run([calc, "--number-of", kind, "all"], capture_output=True,
                                     text=True, timeout=20)
                if out.returncode == 0 and out.stdout.strip().isdigit():
                    got[key] = int(out.stdout.strip())
            except (OSError, subprocess.SubprocessError):
                pass
        if got:
            t.update(got)
            t["source"] = "hwloc"
    return t


def topology_text(t):
    caches = ", ".join("%s %s" % (k, fmt_bytes(v)) for k, v in sorted(t["caches"].items()))
    return ("%d CPUs usable (%d online), %d cores, %d socket(s), %d NUMA node(s); caches: %s "
            "[from %s]" % (t["cpus_usable"], t["cpus_online"], t["cores"], t["sockets"],
                           t["numa_nodes"], caches or "unknown", t["source"]))


def mpi_description():
    """The MPI behind oshrun: its flavor line and mpiexec --version's first line."""
    flavor, mpiexec = "unknown", None
    try:
        with open(config.OSHRUN) as f:
            text = f.read()
        m = re.search(r"^flavor='([^']*)'", text, re.M)
        flavor = m.group(1) if m else flavor
        m = re.search(r"^mpiexec='([^']*)'", text, re.M)
        mpiexec = m.group(1) if m else None
    except OSError:
        pass
    version = ""
    if mpiexec:
        try:
            out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30)
            text = out.stdout + out.stderr
            m = re.search(r"^\s*Version:\s*(\S+)", text, re.M)  # MPICH's Hydra
            lines = [l.strip() for l in text.splitlines() if l.strip()]
            version = ("MPICH %s" % m.group(1)) if m else (lines[0] if lines else "")
        except (OSError, subprocess.SubprocessError):
            pass
    return flavor, version


# default PE counts of the programs (runners.Run.np), from topology()
def np_cores(t):
    return max(2, t["cpus_usable"])


def np_pairs(t):
    return max(2, t["cpus_usable"] - t["cpus_usable"] % 2)
