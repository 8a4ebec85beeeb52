"""Link utilisation of one sweep point as a heat map: one row per node, one column per kind of
link inside a node (the busiest link of that kind in the node), and the links outside the nodes
(leaf uplinks, parameter-server NICs, shared storage) as bars beside it. Utilisation is the
share of a link's capacity used over the measured steps: bytes / (bandwidth x time)."""

import numpy as np

from plot_timeline import choose_point
from report_data import point_links
from report_style import Skip, new_figure, record, save, title

MAX_ROWS = 64  # rows drawn; a larger cluster's nodes are grouped, each row the group's busiest
# Busiest cell below this share of capacity: the heat map would be uniformly pale, so it says why
# (latency, not bandwidth, sets the communication time).
PALE = 0.10


def _rows(nodes):
    """[(first node, last node)] per row: one node each up to MAX_ROWS, else contiguous groups
    of equal size (the last may be smaller), so every node is in exactly one row."""
    size = max(1, -(-nodes // MAX_ROWS))  # ceiling
    return [(first, min(first + size, nodes) - 1) for first in range(0, nodes, size)]


def _row_label(group):
    first, last = group
    return "node %d" % first if first == last else "nodes %d-%d" % (first, last)


def plot_links(data, out_dir, wanted=None):
    row = choose_point(data, wanted)
    links = point_links(data, row)
    if not links:
        raise Skip("point %d has no link measurements (a result written before ddpsim measured "
                   "links: run the sweep again)" % row["point"])
    groups, per_node = links["heat_map"]["groups"], links["heat_map"]["per_node"]
    columns = [c for c in range(len(groups))
               if any(r[c] is not None and r[c] > 0 for r in per_node)]
    fabric = [f for f in links["fabric"] if f["bytes_per_step"] > 0]
    if not columns and not fabric:
        raise Skip("no link carried bytes at point %d (one GPU, synthetic data)" % row["point"])
    nodes = _rows(len(per_node))
    if not columns:
        # No link inside a node carried bytes (a run bound by a shared store, one GPU per node
        # reading it): an all-zero heat map would say nothing, the bars say it all.
        fig, (bars,) = new_figure(8, 2.2 + 0.28 * min(len(fabric), 24))
        _fabric_bars(bars, fabric)
    else:
        fig = _heat_map(groups, per_node, columns, nodes, fabric)
    busiest_cell = max([max((v or 0) for v in r) for r in per_node] +
                       [f["utilisation"] for f in fabric], default=0)
    latency = None
    if busiest_cell < PALE:
        latency = ("No link is more than %.1f %% busy over the step: bandwidth does not bind "
                   "here, so the pale map is the answer; the communication time is set by the "
                   "calls' latency (NCCL's per-call and per-hop latency, docs/transports.md)%s."
                   % (100 * busiest_cell,
                      ", and the step waits for it (%s)" % row["bottleneck"]
                      if row.get("bottleneck") == "communication-bound" else ""))
    what = "link utilisation on %d GPUs (point %d: %s)" % (
        row["gpus"], row["point"], data.point_label(row).replace("\n", ", "))
    if latency:
        what += " - latency binds: no link above %.1f %% busy" % (100 * busiest_cell)
    plot_title = title(data, what)
    fig.suptitle(plot_title, fontsize=10)
    file = save(fig, out_dir, "link_heatmap.png", rect=(0, 0, 1, 0.93))
    series = [(groups[c], len(nodes), "node links") for c in columns]
    grouped = columns and len(nodes) < len(per_node)
    series += [(f["name"], 1, "fabric link") for f in fabric]
    busiest = links["busiest"][0] if links.get("busiest") else None
    caption = ("Share of each link's capacity used over the measured steps (bytes / (bandwidth "
               "x time)); a cell is the busiest link of that kind in the node.")
    if not columns:
        caption = ("Share of each link's capacity used over the measured steps (bytes / "
                   "(bandwidth x time)); no link inside a node carried bytes, so only the links "
                   "outside the nodes are drawn.")
    if grouped:
        caption += (" %d nodes in %d rows: each row is a group of %d consecutive nodes and shows "
                    "the busiest of them." % (len(per_node), len(nodes),
                                              nodes[0][1] - nodes[0][0] + 1))
    if busiest:
        caption += " Busiest: %s at %.1f %%." % (busiest["name"], 100 * busiest["utilisation"])
    if latency:
        caption += " " + latency
    return record("link_heatmap", file, plot_title, series, caption, point=row["point"],
                  point_id=row.get("point_id", ""), nodes=len(nodes) if columns else 0,
                  row_labels=[_row_label(g) for g in nodes] if columns else [],
                  latency_bound=latency is not None, busiest_utilisation=busiest_cell)


def _fabric_bars(bars, fabric):
    shown = sorted(fabric, key=lambda f: -f["utilisation"])[:24]
    drawn = bars.barh(range(len(shown)), [100 * f["utilisation"] for f in shown], color="#c44e52")
    bars.bar_label(drawn, labels=["%.1f %%" % (100 * f["utilisation"]) for f in shown],
                   fontsize=7, padding=2)
    bars.set_yticks(range(len(shown)))
    bars.set_yticklabels([f["name"] for f in shown], fontsize=7)
    bars.set_ylim(max(len(shown), 8) - 0.5, -0.5)  # top down; a few links keep thin bars
    bars.set_xlim(0, 112)  # room for the label of a full link
    bars.set_xlabel("utilisation over the step (%)")
    bars.set_title("links outside the nodes", fontsize=9)
    bars.grid(True, axis="x", alpha=0.3)


def _heat_map(groups, per_node, columns, nodes, fabric):
    grid = np.array([[100 * max((per_node[n][c] or 0) for n in range(first, last + 1))
                      for c in columns] for first, last in nodes])
    width = 3.5 + 0.75 * max(len(columns), 1) + (4.5 if fabric else 0)
    # Up to 24 rows at a readable 0.28 inch; more share 6.7 inches (every k-th labelled), so 64
    # nodes make a chart a screen tall, not two.
    fig, axes = new_figure(width, 2.2 + min(0.28 * len(nodes), 6.7), ncols=2 if fabric else 1)
    ax = axes[0]
    image = ax.imshow(grid, cmap="magma_r",
                      vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(columns)))
    ax.set_xticklabels([groups[c] for c in columns], rotation=40, ha="right", fontsize=8)
    every = -(-len(nodes) // 24)  # ceiling
    ax.set_yticks(range(0, len(nodes), every))
    ax.set_yticklabels([_row_label(g) for g in nodes[::every]], fontsize=7)
    if len(nodes) * max(len(columns), 1) <= 16 * 12:
        for y in range(len(nodes)):
            for x in range(len(columns)):
                v = grid[y, x]
                ax.text(x, y, "%.0f" % v if v >= 1 else ("<1" if v > 0 else "0"),
                        ha="center", va="center", fontsize=7,
                        color="white" if v > 55 else "black")
    fig.colorbar(image, ax=ax, label="utilisation over the step (%)", fraction=0.05)
    if fabric:
        _fabric_bars(axes[1], fabric)
    return fig
