"""The plots: one PNG per (program, test) with matplotlib (a heatmap for the map, else the
metric against size per mechanism); without matplotlib, none, said once."""
import os
import re
import sys

from . import config
from .rows import REFERENCES, groups, is_bandwidth, pivot
from .text import fmt_bytes, note


def load_matplotlib():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except Exception as e:  # ImportError, or a broken backend
        note("matplotlib is not available (%s): no plots.  `make bench` installs it into "
             ".deps/py (tools/bootstrap-py.sh); or: pip install matplotlib" % e)
        return None


def plot_group(plt, prog, test, rs, outdir):
    """One PNG per (program, test): a heatmap for map_*, else the metric against size per
    mechanism (and param), or bars when there is a single size."""
    keys, mechs, cell = pivot(rs)
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", "%s_%s.png" % (prog, test))
    path = os.path.join(outdir, name)
    bw = is_bandwidth(test)
    ylabel = "MB/s (higher is better)" if bw else "time per operation, us (lower is better)"
    fig, ax = plt.subplots(figsize=(7, 4.5))
    if test.startswith("map_"):
        pairs = [p for _, p in keys]
        srcs = sorted({int(p.split("-")[0]) for p in pairs})
        dsts = sorted({int(p.split("-")[1]) for p in pairs})
        grid = [[0.0] * len(dsts) for _ in srcs]
        for (b, p) in keys:
            s, d = (int(x) for x in p.split("-"))
            r = next(iter(cell[(b, p)].values()))
            grid[srcs.index(s)][dsts.index(d)] = r["mbps"]
        im = ax.imshow(grid, cmap="viridis", origin="upper")
        ax.set_xticks(range(len(dsts)))
        ax.set_xticklabels(dsts)
        ax.set_yticks(range(len(srcs)))
        ax.set_yticklabels(srcs)
        ax.set_xlabel("destination CPU (first touched the buffer)")
        ax.set_ylabel("source CPU")
        for i in range(len(srcs)):
            for j in range(len(dsts)):
                ax.text(j, i, "%.0f" % grid[i][j], ha="center", va="center", color="w", fontsize=8)
        fig.colorbar(im, ax=ax, label="MB/s")
        ax.set_title("%s: %s buffer copies, MB/s" % (test, fmt_bytes(keys[0][0])))
    else:
        sizes = sorted({b for b, _ in keys})
        params = sorted({p for _, p in keys}, key=lambda p: (len(p), p))
        # a param that names its size (fft: the grid) makes no series of its own
        one = len(keys) == len(sizes)
        if len(sizes) > 1:
            for m in mechs:
                for p in [None] if one else params:
                    pts = [(b, cell[k][m]) for k in sorted(keys) for b in [k[0]]
                           if (one or k[1] == p) and m in cell[k]]
                    if not pts:
                        continue
                    xs = [max(b, 1) for b, _ in pts]
                    ys = [r["mbps"] if bw else r["median_us"] for _, r in pts]
                    label = m if one or len(params) == 1 else "%s (%s)" % (m, p)
                    ax.plot(xs, ys, marker="o", ms=3, label=label,
                            linestyle="--" if m in REFERENCES else "-")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("bytes")
        else:
            labels, vals = [], []
            for k in keys:
                for m in mechs:
                    if m in cell[k]:
                        r = cell[k][m]
                        labels.append(m if len(keys) == 1 else "%s %s" % (m, k[1]))
                        vals.append(r["mbps"] if bw else r["median_us"])
            ax.bar(range(len(vals)), vals)
            ax.set_xticks(range(len(vals)))
            ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(ylabel)
        ax.set_title("%s / %s, %d PEs" % (prog, test, rs[0]["pes"]))
        if len(sizes) > 1:
            ax.legend(fontsize=7)
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return name


def plot_all(rows, outdir, only_tests=None):
    plt = load_matplotlib()
    if not plt:
        return {}, False
    made = {}
    for (prog, test), rs in groups(rows).items():
        if only_tests and test not in only_tests:
            continue
        try:
            made[(prog, test)] = plot_group(plt, prog, test, rs, outdir)
        except Exception as e:  # a plot must not lose the measurements
            note("plot %s/%s failed: %s" % (prog, test, e))
    return made, True


def reexec_for_matplotlib():
    """Plots need matplotlib; the project's venv has it when this python does not: run the
    launcher again with that one (once)."""
    if os.environ.get("NODESHM_BENCH_REEXEC"):
        return
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    py = os.environ.get("NODESHM_BENCH_PYTHON") or config.VENV_PYTHON
    # (a venv's python is a symlink to the system's: compare environments, not binaries)
    if py and not py.startswith("@") and os.access(py, os.X_OK) and \
            os.path.abspath(os.path.join(os.path.dirname(py), "..")) != os.path.abspath(sys.prefix):
        os.environ["NODESHM_BENCH_REEXEC"] = "1"
        os.execv(py, [py, config.LAUNCHER] + sys.argv[1:])
