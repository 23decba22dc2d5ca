"""How the driver writes: notes on stderr, byte counts and numbers as text, and back."""
import re
import sys


def note(msg):
    sys.stderr.write("nodeshm-bench: %s\n" % msg)
    sys.stderr.flush()


def fmt_bytes(n):
    n = int(n)
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return "%d%s" % (n >> shift, unit)
    return str(n)


def fmt_num(v):
    if v >= 1000:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    return "%.3f" % v


def plain_bytes(text):
    """'64k' -> '65536': every program takes plain bytes, not all take suffixes"""
    m = re.match(r"^\s*(\d+)\s*([kKmMgG]?)[bB]?\s*$", text)
    if not m:
        raise ValueError("not a byte count: %r" % text)
    return str(int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[m.group(2).lower()])


def size_range(text):
    """-m [min:]max with plain byte counts"""
    parts = text.split(":")
    if len(parts) > 2:
        raise ValueError("expected [min:]max: %r" % text)
    return ":".join(plain_bytes(p) for p in parts)
