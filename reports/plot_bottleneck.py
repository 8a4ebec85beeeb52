"""Bottleneck map: a heat map over two swept keys, each cell coloured by the point's bottleneck
label and annotated with its throughput. Further swept keys give one panel per combination."""

from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

from report_data import short_key
from report_style import BOTTLENECKS, Skip, new_figure, rate_text, record, save, title

MAX_PANELS = 6


def _choose_axes(data):
    varied = [k for k in data.axis_keys() if len(data.axis_values(k)) > 1]
    if len(varied) < 2:
        raise Skip("needs two swept keys with two or more values each")
    gpu = [k for k in varied if k in data.gpu_keys()]
    x = gpu[0] if gpu else varied[1]
    y = next(k for k in varied if k != x)
    return x, y, [k for k in varied if k not in (x, y)]


def plot_bottleneck(data, out_dir):
    x_key, y_key, rest = _choose_axes(data)
    xs, ys = data.axis_values(x_key), data.axis_values(y_key)
    panels = data.groups(data.rows, exclude=[x_key, y_key])
    shown = panels[:MAX_PANELS]
    fig, axes = new_figure(min(6.5 * len(shown) + 2, 22), 0.55 * len(ys) + 3.5, ncols=len(shown))
    names = [b[0] for b in BOTTLENECKS]
    cmap = ListedColormap([b[2] for b in BOTTLENECKS] + ["#ffffff"])
    cells = 0
    seen = set()
    for ax, (label, rows) in zip(axes, shown):
        grid = [[len(names)] * len(xs) for _ in ys]  # index into cmap; white = no result
        for r in rows:
            i, j = ys.index(r[y_key]), xs.index(r[x_key])
            if r["status"] == "ok":
                grid[i][j] = names.index(r["bottleneck"]) if r["bottleneck"] in names else len(names)
                seen.add(r["bottleneck"])
                short = dict((b[0], b[1]) for b in BOTTLENECKS).get(r["bottleneck"], "?")
                text = "%s\n%s/s" % (short, rate_text(r["samples_per_second"]))
            else:
                text = "failed"
            ax.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="white" if r["status"] == "ok" else "black")
            cells += 1
        ax.imshow(grid, cmap=cmap, vmin=0, vmax=len(names), aspect="auto")
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels(xs, fontsize=8)
        ax.set_yticks(range(len(ys)))
        ax.set_yticklabels(ys, fontsize=8)
        # White lines between cells, so equal neighbours still read as separate points.
        ax.set_xticks([j - 0.5 for j in range(1, len(xs))], minor=True)
        ax.set_yticks([i - 0.5 for i in range(1, len(ys))], minor=True)
        ax.grid(which="minor", color="white", linewidth=2)
        ax.tick_params(which="minor", length=0)
        ax.set_xlabel(x_key)
        ax.set_ylabel(y_key)
        if label:
            ax.set_title(label, fontsize=9)
    handles = [Patch(color=c, label=n) for n, _, c in BOTTLENECKS if n in seen]
    fig.legend(handles=handles, loc="center right", fontsize=8, title="bottleneck",
               title_fontsize=8)
    note = "" if len(panels) <= MAX_PANELS else " (first %d of %d panels)" % (MAX_PANELS, len(panels))
    plot_title = title(data, "bottleneck over %s x %s%s" % (short_key(x_key, data.axis_keys()),
                                                           short_key(y_key, data.axis_keys()),
                                                           note))
    fig.suptitle(plot_title, fontsize=10)
    file = save(fig, out_dir, "bottleneck_map.png", rect=(0, 0, 0.78, 1))
    series = [(n, sum(1 for r in data.ok if r["bottleneck"] == n), "label")
              for n, _, _ in BOTTLENECKS if n in seen]
    return record("bottleneck_map", file, plot_title, series,
                  "Each cell is one point: its colour is the bottleneck label (compute-bound, "
                  "communication-bound, data-loading-bound or memory-infeasible), its text the "
                  "throughput in samples/s.", cells=cells, panels=len(shown),
                  x_key=x_key, y_key=y_key)
