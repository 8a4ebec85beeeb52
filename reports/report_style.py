"""Shared look of every plot: titles that name the scenario and the compute profile, fixed
colours per breakdown component and bottleneck label, and the record each plot leaves in
plots.json (what was drawn, with how many series) so tests can check the data behind it."""

import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
from matplotlib.ticker import FuncFormatter  # noqa: E402

COMPONENTS = [  # (CSV column, legend, colour): the iteration breakdown, bottom to top
    ("data_wait_s", "data wait", "#9e9e9e"),
    ("forward_s", "forward", "#4c72b0"),
    ("backward_s", "backward", "#55a868"),
    ("exposed_comm_s", "exposed communication", "#c44e52"),
    ("straggler_wait_s", "waiting for a slower GPU", "#ccb974"),
    ("optimizer_s", "optimizer", "#8172b2"),
]

BOTTLENECKS = [  # (label, short text, colour)
    ("compute-bound", "compute", "#55a868"),
    ("communication-bound", "comm", "#c44e52"),
    ("straggler-bound", "straggler", "#ccb974"),
    ("data-loading-bound", "data", "#dd8452"),
    ("memory-infeasible", "memory", "#4d4d4d"),
]


def rate_text(value):
    """12345.6 -> "12.3k": short enough for a heat-map cell."""
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= limit:
            return "%.3g%s" % (value / limit, suffix)
    return "%.3g" % value


def title(data, what):
    """What the plot shows, then what the sweep is about: the model, the cluster (with the ranges
    the sweep spans) and what was swept, never the scenario file's name (a scenario named for
    4 nodes may be swept over 128)."""
    return "%s\n%s; %s" % (what, data.subject(), data.compute_description())


def plain_log_y(ax):
    """Log y axis labelled 200, 500, 1k, 2k rather than 2x10^2: decades plus their 2x and 5x."""

    def label(v, _):
        mantissa = v / 10 ** math.floor(math.log10(v)) if v > 0 else 0
        return rate_text(v) if round(mantissa) in (1, 2, 5) else ""

    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(label))
    ax.yaxis.set_minor_formatter(FuncFormatter(label))


def log2_gpu_axis(ax, values, label="GPUs"):
    ax.set_xscale("log", base=2)
    ticks = sorted(set(values))
    ax.set_xticks(ticks)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    ax.set_xlabel(label)


def new_figure(width=9.0, height=5.0, ncols=1):
    fig, axes = plt.subplots(1, ncols, figsize=(width, height), squeeze=False)
    return fig, list(axes[0])


def save(fig, out_dir, name, rect=None):
    fig.tight_layout(rect=rect)
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return name


def record(kind, file, plot_title, series, caption, **extra):
    """A plots.json entry. `series` is [(name, number of points, role)]."""
    entry = {
        "kind": kind,
        "file": file,
        "title": plot_title,
        "caption": caption,
        "series": [{"name": n, "points": p, "role": r} for n, p, r in series],
    }
    entry.update(extra)
    return entry


class Skip(Exception):
    """A plot the sweep's keys do not make meaningful; the message says why."""
