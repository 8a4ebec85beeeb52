"""Timeline: one measured optimizer step as a Gantt chart, one row per GPU and lane (compute
stream, communication stream, data loader), from a point's recorded trace. The same step is in
the point's Chrome trace (points/<id>.trace.json), which opens in Perfetto.

More than MAX_GPUS traced GPUs (a 1,024-GPU point traces the first GPU of 64 nodes) would make a
chart thousands of pixels tall: the nodes are then cut into at most MAX_GROUPS contiguous groups
and each group shows the lanes of its slowest traced GPU (the one whose step ends last), labelled
with the group's nodes and how many traced GPUs it stands for."""

from matplotlib.patches import Patch

from report_data import point_trace
from report_style import Skip, new_figure, record, save, title

LANES = ["compute", "comm", "data"]
MAX_GPUS = 8     # traced GPUs drawn one by one; above, one row group per node group
MAX_GROUPS = 8
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
    # The chart starts where the first marker does: the loader reads a step's batches steps
    # ahead, and drawing those reads would stretch the axis to several steps. Work begun before
    # is cut at the step's start (the Chrome trace has it whole).
    markers = [e for e in events if e["lane"] == "step"]
    events = [e for e in events if e["lane"] != "step"]
    if not events:
        raise Skip("point %d has no recorded trace (it ran with --trace-gpus none)" % row["point"])
    start = min(e["start_s"] for e in (markers or events))
    cut = sum(1 for e in events if e["start_s"] < start)
    events = [dict(e, start_s=max(e["start_s"], start)) for e in events if e["end_s"] > start]
    gpus, names = shown_gpus(events, row.get("gpus_per_node") or 1, row.get("nodes") or 1)
    rows = []  # (gpu, lane) in display order
    for gpu in gpus:
        for lane in LANES + sorted({e["lane"] for e in events} - set(LANES)):
            if any(e["gpu"] == gpu and e["lane"] == lane for e in events):
                rows.append((gpu, lane))
    fig, (ax,) = new_figure(13, 0.32 * len(rows) + 2.5)
    used = []
    spans, drawn_slices = summarise(events, rows, start)
    for (y, kind), bars in spans.items():
        if kind not in used:
            used.append(kind)
        # One collection per lane and kind: a 1,024-GPU FSDP step has tens of thousands of
        # slices, and one matplotlib call per slice took 88 s to draw.
        ax.broken_barh(bars, (y - 0.4, 0.8), facecolors=kind[1], edgecolor="white",
                       linewidth=0.3 if len(bars) < 200 else 0)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(["%s %s" % (names[g], lane) for g, lane in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("time since the step began (ms)")
    ax.grid(True, axis="x", alpha=0.3)
    used.sort(key=KINDS.index)
    ax.legend(handles=[Patch(color=k[1], label=k[0]) for k in used], fontsize=7,
              loc="upper left", bbox_to_anchor=(1.0, 1.0))
    traced = len({e["gpu"] for e in events})
    what = "one step on %d GPUs (point %d: %s)" % (
        row["gpus"], row["point"], data.point_label(row).replace("\n", ", "))
    if len(gpus) < traced:
        what += ", slowest traced GPU of %d node groups" % len(gpus)
    plot_title = title(data, what)
    ax.set_title(plot_title, fontsize=10)
    file = save(fig, out_dir, "timeline.png")
    series = [("GPU %d %s" % r, sum(1 for e in events if (e["gpu"], e["lane"]) == r), "lane")
              for r in rows]
    slices = sum(1 for e in events if (e["gpu"], e["lane"]) in set(rows))
    caption = ("One measured optimizer step of the traced GPUs (by default the first of each "
               "node and the slowest): compute stream, gradient all-reduce / push-pull stream "
               "and data loader.")
    if cut:
        caption += (" Loader work begun before the step (reads run steps ahead) is cut at the "
                    "step's start.")
    if len(gpus) < traced:
        caption += (" %d GPUs were traced; to keep the chart readable each of %d node groups "
                    "shows its slowest traced GPU (the one whose step ends last). Every traced "
                    "GPU is in the Chrome trace." % (traced, len(gpus)))
    if drawn_slices < slices:
        caption += (" Slices of one kind closer than %g %% of the step are drawn as one bar "
                    "(%d slices as %d bars); the Chrome trace has each." % (
                        100 * MERGE_FRACTION, slices, drawn_slices))
    return record("timeline", file, plot_title, series, caption, point=row["point"],
                  point_id=row.get("point_id", ""), chrome_trace=chrome, traced_gpus=traced,
                  groups=len(gpus) if len(gpus) < traced else 0, slices=slices,
                  bars=drawn_slices)


# Slices of one kind on one lane closer than this share of the drawn step merge into one bar:
# under a pixel of a 13-inch chart, so the picture is the same and the drawing stays fast.
MERGE_FRACTION = 0.0005


def summarise(events, rows, start):
    """{(row index, kind): [(start ms, width ms)]}, neighbouring slices of a kind closer than
    MERGE_FRACTION of the step merged; and how many bars that leaves."""
    index = {r: y for y, r in enumerate(rows)}
    end = max((e["end_s"] for e in events), default=start)
    gap = MERGE_FRACTION * 1e3 * max(end - start, 1e-12)
    found = {}
    for e in events:
        y = index.get((e["gpu"], e["lane"]))
        if y is None:
            continue
        found.setdefault((y, _kind(e["lane"], e["name"])), []).append(
            (1e3 * (e["start_s"] - start), 1e3 * (e["end_s"] - start)))
    spans, bars = {}, 0
    for key in sorted(found, key=lambda k: (k[0], KINDS.index(k[1]))):
        merged = []
        for a, b in sorted(found[key]):
            if merged and a - merged[-1][1] <= gap:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        spans[key] = [(a, b - a) for a, b in merged]
        bars += len(merged)
    return spans, bars


def shown_gpus(events, gpus_per_node, nodes_total):
    """(GPUs drawn, their row labels): every traced GPU up to MAX_GPUS, else the slowest traced
    GPU of each of at most MAX_GROUPS contiguous node groups. A group stands for the nodes from
    its first traced node to the next group's (the last to the cluster's last node): the nodes
    the default selection skips between them belong to it."""
    traced = sorted({e["gpu"] for e in events})
    if len(traced) <= MAX_GPUS:
        return traced, {g: "GPU %d" % g for g in traced}
    end = {}
    for e in events:
        end[e["gpu"]] = max(end.get(e["gpu"], e["end_s"]), e["end_s"])
    nodes = sorted({g // gpus_per_node for g in traced})
    size = -(-len(nodes) // MAX_GROUPS)  # ceiling: at most MAX_GROUPS groups
    shown, names = [], {}
    for i in range(0, len(nodes), size):
        group = set(nodes[i:i + size])
        members = [g for g in traced if g // gpus_per_node in group]
        slowest = max(members, key=lambda g: (end[g], -g))
        first = min(group)
        last = nodes[i + size] - 1 if i + size < len(nodes) else max(max(group), nodes_total - 1)
        span = "node %d" % first if first == last else "nodes %d-%d" % (first, last)
        shown.append(slowest)
        names[slowest] = "%s: GPU %d (slowest of %d traced)" % (span, slowest, len(members))
    return shown, names
