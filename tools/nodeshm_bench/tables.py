"""Tables of rows and who wins: per (program, test) one column per mechanism, the fastest
competitor and its margin; plain text or Markdown; the map's matrix; the summary sentences."""
from .rows import REFERENCES, groups, is_bandwidth, pivot
from .text import fmt_bytes, fmt_num


def winner(cells):
    """(best mechanism, its row, next best / best time) among the competitors of one key"""
    comp = sorted((r["median_us"], m) for m, r in cells.items()
                  if m not in REFERENCES and r["median_us"] > 0)
    if len(comp) < 2:
        return None, None, None
    return comp[0][1], cells[comp[0][1]], comp[1][0] / comp[0][0]


def table(rs, full=False, markdown=False):
    """Lines of one (program, test) table: size, param, one column per mechanism (us or MB/s),
    the winner and its margin (next best time / best time)."""
    keys, mechs, cell = pivot(rs)
    test = rs[0]["test"]
    bw = is_bandwidth(test)
    unit = "MB/s" if bw else "us"
    show_param = any(p != "0" for _, p in keys)
    head = ["bytes"] + (["param"] if show_param else []) + ["%s %s" % (m, unit) for m in mechs]
    head += ["winner", "margin"]
    body = []
    for k in keys:
        line = [fmt_bytes(k[0])] + ([k[1]] if show_param else [])
        for m in mechs:
            r = cell[k].get(m)
            if not r:
                line.append("-")
                continue
            v = r["mbps"] if bw else r["median_us"]
            txt = fmt_num(v)
            if full:
                lo, hi = ((k[0] / r["max_us"], k[0] / r["min_us"]) if bw and r["min_us"] > 0
                          else (r["min_us"], r["max_us"]))
                txt += " [%s..%s]" % (fmt_num(lo), fmt_num(hi))
            line.append(txt)
        w, _, margin = winner(cell[k])
        line += [w or "-", ("%.2fx" % margin) if margin else "-"]
        body.append(line)
    if markdown:
        out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        out += ["| " + " | ".join(l) + " |" for l in body]
        return out
    widths = [max(len(str(c)) for c in col) for col in zip(head, *body)]
    fmt = lambda l: "  ".join(str(c).rjust(w) for c, w in zip(l, widths))
    return [fmt(head)] + [fmt(l) for l in body]


def matrix(rs):
    """map_*: MB/s as a matrix, row = source CPU, column = destination CPU"""
    cells = {}
    for r in rs:
        s, d = (int(x) for x in r["param"].split("-"))
        cells[(s, d)] = r["mbps"]
    srcs, dsts = sorted({s for s, _ in cells}), sorted({d for _, d in cells})
    head = ["src\\dst"] + [str(d) for d in dsts]
    body = [[str(s)] + [fmt_num(cells[(s, d)]) if (s, d) in cells else "-" for d in dsts]
            for s in srcs]
    widths = [max(len(c) for c in col) for col in zip(head, *body)]
    return ["  ".join(c.rjust(w) for c, w in zip(l, widths)) for l in [head] + body]


def print_tables(rows, full, title_prefix=""):
    for (prog, test), rs in groups(rows).items():
        hosts = rs[0].get("hosts")
        print("\n# %s%s / %s (%d PEs%s)" % (title_prefix, prog, test, rs[0]["pes"],
                                           " on %d emulated hosts" % hosts if hosts else ""))
        if test.startswith("map_") and not full:
            print("# %s buffer, MB/s; row = source CPU, column = destination CPU" %
                  fmt_bytes(rs[0]["bytes"]))
            lines = matrix(rs)
        else:
            lines = table(rs, full)
        for line in lines:
            print(line)


def wins_summary(rows):
    """Per (program, test): which competitor wins over which sizes, as sentences."""
    out = []
    for (prog, test), rs in groups(rows).items():
        keys, mechs, cell = pivot(rs)
        spans = []  # [mechanism, first key, last key, min margin, max margin]
        for k in keys:
            w, _, margin = winner(cell[k])
            if not w:
                continue
            if spans and spans[-1][0] == w:
                s = spans[-1]
                s[2], s[3], s[4] = k, min(s[3], margin), max(s[4], margin)
            else:
                spans.append([w, k, k, margin, margin])
        if not spans:
            continue

        def where(a, b):
            """a key range: sizes, with the param (pairs, block size, CPU pair) when it has one"""
            def one(k):
                return fmt_bytes(k[0]) + " B" + ("" if k[1] == "0" else " [%s]" % k[1])
            if a == b:
                return one(a)
            if a[1] == b[1]:
                return "%s..%s B%s" % (fmt_bytes(a[0]), fmt_bytes(b[0]),
                                       "" if a[1] == "0" else " [%s]" % a[1])
            if a[0] == b[0]:
                return "%s B [%s..%s]" % (fmt_bytes(a[0]), a[1], b[1])
            return "%s..%s" % (one(a), one(b))

        parts = ["%s at %s (%.2f-%.2fx)" % (w, where(a, b), lo, hi)
                 if "%.2f" % lo != "%.2f" % hi else "%s at %s (%.2fx)" % (w, where(a, b), lo)
                 for w, a, b, lo, hi in spans]
        out.append("%s / %s: %s" % (prog, test, "; ".join(parts)))
    return out
