"""Timeline: one measured optimizer step as a Gantt chart, one row per GPU and lane (compute
stream, communication stream, data loader), from a point's recorded trace. The same step is in
the point's Chrome trace (points/<id>.trace.json), which opens in Perfetto."""

from matplotlib.patches import Patch

from report_data import point_trace
from report_style import Skip, new_figure, record, save, title

LANES = ["compute", "comm", "data"]
KINDS = [  # (legend, colour, test on (lane, event name))
    ("forward", "#4c72b0", lambda lane, n: lane == "compute" and n.startswith("forward")),
    ("backward", "#55a868", lambda lane, n: lane == "compute" and n.startswith("backward")),
    ("optimizer", "#8172b2", lambda lane, n: lane == "compute" and n.startswith("optimizer")),
    ("waiting for gradients", "#c44e52", lambda lane, n: lane == "compute" and "gradient" in n),
    ("waiting for data", "#9e9e9e", lambda lane, n: lane == "compute" and "data" in n),
    ("communication", "#dd8452", lambda lane, n: lane == "comm"),
    ("data loading", "#937860", lambda lane, n: lane == "data"),
    ("other", "#cccccc", lambda lane, n: True),
]


def _kind(lane, name):
    return next(k for k in KINDS if k[2](lane, name))


def choose_point(data, wanted):
    """The row named by --point (index or point_id), else the one with the most GPUs."""
    if wanted:
        for r in data.ok:
            if str(r["point"]) == wanted or r.get("point_id") == wanted:
                return r
        raise Skip("--point %s is not a finished point of this sweep" % wanted)
    if not data.ok:
        raise Skip("no point finished")
    return max(data.ok, key=lambda r: (r["gpus"], r["point"]))


def plot_timeline(data, out_dir, wanted=None):
    row = choose_point(data, wanted)
    events, chrome = point_trace(data, row)
    # The ProfilerStep#N markers span the whole step: the Chrome trace has them, the chart not.
    events = [e for e in events if e["lane"] != "step"]
    if not events:
        raise Skip("point %d has no recorded trace (it ran with --trace-gpus none)" % row["point"])
    start = min(e["start_s"] for e in events)
    rows = []  # (gpu, lane) in display order
    for gpu in sorted({e["gpu"] for e in events}):
        for lane in LANES + sorted({e["lane"] for e in events} - set(LANES)):
            if any(e["gpu"] == gpu and e["lane"] == lane for e in events):
                rows.append((gpu, lane))
    fig, (ax,) = new_figure(13, 0.32 * len(rows) + 2.5)
    used = []
    for y, (gpu, lane) in enumerate(rows):
        for e in events:
            if e["gpu"] != gpu or e["lane"] != lane:
                continue
            kind = _kind(lane, e["name"])
            if kind not in used:
                used.append(kind)
            ax.broken_barh([(1e3 * (e["start_s"] - start), 1e3 * (e["end_s"] - e["start_s"]))],
                           (y - 0.4, 0.8), facecolors=kind[1], edgecolor="white", linewidth=0.3)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(["GPU %d %s" % r for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("time since the step began (ms)")
    ax.grid(True, axis="x", alpha=0.3)
    used.sort(key=KINDS.index)
    ax.legend(handles=[Patch(color=k[1], label=k[0]) for k in used], fontsize=7,
              loc="upper left", bbox_to_anchor=(1.0, 1.0))
    what = "one step on %d GPUs (point %d: %s)" % (
        row["gpus"], row["point"], data.point_label(row).replace("\n", ", "))
    plot_title = title(data, what)
    ax.set_title(plot_title, fontsize=10)
    file = save(fig, out_dir, "timeline.png")
    series = [("GPU %d %s" % r, sum(1 for e in events if (e["gpu"], e["lane"]) == r), "lane")
              for r in rows]
    return record("timeline", file, plot_title, series,
                  "One measured optimizer step of the traced GPUs (by default the first of each node "
                  "and the slowest): compute stream, gradient "
                  "all-reduce / push-pull stream and data loader.", point=row["point"],
                  point_id=row.get("point_id", ""), chrome_trace=chrome)
