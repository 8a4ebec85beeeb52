"""Iteration breakdown: one stacked bar per configuration (data wait, forward, backward, exposed
communication, waiting for a slower GPU, optimizer), mean over GPUs, in milliseconds per
optimizer step. The legend sits outside the axes, where it cannot cover a bar."""

from report_style import COMPONENTS, Skip, new_figure, record, save, title

MAX_BARS = 48
NUMBERS = {5: "five", 6: "six", 7: "seven"}


def plot_breakdown(data, out_dir):
    rows = data.ok[:MAX_BARS]
    if not rows:
        raise Skip("no point finished")
    width = min(18, max(7, 0.6 * len(rows) + 3))
    fig, (ax,) = new_figure(width, 5.5)
    x = list(range(len(rows)))
    bottom = [0.0] * len(rows)
    series = []
    for column, name, colour in COMPONENTS:
        values = [1e3 * (r[column] or 0) for r in rows]
        ax.bar(x, values, bottom=bottom, color=colour, label=name, width=0.7)
        bottom = [b + v for b, v in zip(bottom, values)]
        series.append((name, len(rows), "component"))
    ax.set_xticks(x)
    labels = [data.point_label(r) for r in rows]
    long_labels = len(rows) > 10 or max(len(s) for s in labels) > 14
    ax.set_xticklabels(labels, fontsize=7, rotation=60 if long_labels else 0,
                       ha="right" if long_labels else "center")
    ax.set_ylabel("time per optimizer step (ms)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    ax.set_ylim(bottom=0)
    ax.grid(True, axis="y", alpha=0.3)
    note = "" if len(data.ok) <= MAX_BARS else " (first %d of %d points)" % (MAX_BARS, len(data.ok))
    plot_title = title(data, "iteration breakdown per configuration" + note)
    ax.set_title(plot_title, fontsize=10)
    file = save(fig, out_dir, "breakdown.png")
    return record("breakdown", file, plot_title, series,
                  "Where one optimizer step goes, averaged over GPUs: the %s parts (%s) add up "
                  "to the iteration time." % (NUMBERS.get(len(COMPONENTS), len(COMPONENTS)),
                                              ", ".join(name for _, name, _ in COMPONENTS)),
                  bars=len(rows))
