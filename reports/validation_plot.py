#!/usr/bin/python3
"""Predicted-vs-measured plots of `ddpsim validate`.

    /usr/bin/python3 reports/validation_plot.py OUTDIR/validation.csv OUTDIR/validation.png

Reads validation.csv (rows with status ok) and draws, for each metric in the unit it was
published in (throughput in img/s, seq/s or tokens/s, iteration time in s, scaling efficiency
in %, bus bandwidth in GB/s), its own panel of predicted against measured with the y = x line
and the +-10 % band: one axis shared by all metrics would span seven decades and squeeze the
band to a hairline. Below them, every case's signed error per group. Every group the rows hold
is drawn (validate's six, the user's --measured points as `local`, and any other as it comes).
Prints one line per panel (metric, unit, axis scale and range, cases within 10 %, the points
drawn per group). Runs under Debian's
/usr/bin/python3, the interpreter that has python3-matplotlib. Exit codes: 0 drawn, 1 no
predicted case, 2 a damaged validation.csv (file:line).
"""
import csv
import io
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GROUP_COLOURS = {  # validate's groups in its report order (sim/validation/validation_case.cpp)
    "scaling": "#1f77b4",
    "bucket-size": "#ff7f0e",
    "data-loading": "#2ca02c",
    "collectives": "#d62728",
    "sharding": "#9467bd",
    "local": "#e377c2",  # the user's own --measured points
}
OTHER_COLOURS = ["#8c564b", "#7f7f7f", "#bcbd22", "#17becf"]


def groups_of(rows):
    """Every group the rows hold: the known ones in validate's order, then any other as it comes.
    A panel's title counts every row, so every row's group must be drawn."""
    present = []
    for r in rows:
        if r["group"] not in present:
            present.append(r["group"])
    known = [g for g in GROUP_COLOURS if g in present]
    return known + [g for g in present if g not in GROUP_COLOURS]


def colour(group, groups):
    if group in GROUP_COLOURS:
        return GROUP_COLOURS[group]
    others = [g for g in groups if g not in GROUP_COLOURS]
    return OTHER_COLOURS[others.index(group) % len(OTHER_COLOURS)]
METRIC_NAMES = {
    "throughput": "throughput",
    "iteration_time": "iteration time",
    "scaling_efficiency": "scaling efficiency",
    "busbw": "bus bandwidth",
}


class BadCsv(Exception):
    pass


def read_rows(path):
    """The ok rows, each checked: a damaged file is one file:line message, not a traceback."""
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    reader = csv.DictReader(io.StringIO(text, newline=""))
    rows = []
    for row in reader:
        where = "%s:%d" % (path, reader.line_num)
        if None in row or None in row.values():
            raise BadCsv("%s: the row has a different number of fields than the header" % where)
        if row["status"] != "ok":
            continue
        try:
            for key in ("measured", "predicted", "error_pct"):
                row[key] = float(row[key])
                if not math.isfinite(row[key]):
                    raise ValueError
        except ValueError:
            raise BadCsv("%s: measured, predicted and error_pct must be finite numbers" % where)
        rows.append(row)
    return rows


def panels(rows):
    """[(metric, unit, rows)] in a stable order: metrics as listed above, units as they come."""
    out = {}
    for r in rows:
        out.setdefault((r["metric"], r["unit"]), []).append(r)
    order = list(METRIC_NAMES)
    return [(m, u, out[(m, u)]) for m, u in
            sorted(out, key=lambda k: (order.index(k[0]) if k[0] in order else len(order), k[1]))]


def draw_metric(ax, metric, unit, rows):
    """One panel; returns its line for stdout: metric, unit, axis range, cases within 10 %."""
    values = [r["measured"] for r in rows] + [r["predicted"] for r in rows]
    lo, hi = min(values), max(values)
    log = lo > 0 and hi / lo > 10
    if log:
        lo, hi = lo / 1.3, hi * 1.3
    else:
        pad = 0.15 * max(hi - lo, 0.1 * abs(hi))
        lo, hi = lo - pad, hi + pad
    groups = groups_of(rows)
    drawn = []
    for group in groups:
        members = [r for r in rows if r["group"] == group]
        if members:
            drawn.append("%s %d" % (group, len(members)))
            ax.scatter([r["measured"] for r in members], [r["predicted"] for r in members], s=30,
                       color=colour(group, groups), alpha=0.85, edgecolors="black", linewidths=0.4, zorder=3,
                       label="%s (%d)" % (group, len(members)))
    line = [lo, hi]
    ax.plot(line, line, color="black", linewidth=1, label="y = x")
    ax.fill_between(line, [v * 0.9 for v in line], [v * 1.1 for v in line], color="grey",
                    alpha=0.25, label="±10 %")
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal", adjustable="box")
    name = METRIC_NAMES.get(metric, metric)
    ax.set_xlabel("measured %s (%s)" % (name, unit))
    ax.set_ylabel("predicted (%s)" % unit)
    within = sum(1 for r in rows if abs(r["error_pct"]) <= 10)
    ax.set_title("%s, %s: %d cases, %d within ±10 %%" % (name, unit, len(rows), within),
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    return "panel %-18s %-8s %-6s axis %.4g to %.4g: %d cases, %d within ±10 %%; drawn: %s" % (
        metric, unit, "log" if log else "linear", lo, hi, len(rows), within, ", ".join(drawn))


def draw_errors(ax, rows):
    groups = groups_of(rows)
    for i, group in enumerate(groups):
        errs = sorted(r["error_pct"] for r in rows if r["group"] == group)
        # Spread over +-0.3 around the group's tick; a lone case sits on it.
        xs = [i + (j / (len(errs) - 1) - 0.5) * 0.6 if len(errs) > 1 else i
              for j in range(len(errs))]
        ax.scatter(xs, errs, s=22, color=colour(group, groups), alpha=0.8, edgecolors="black",
                   linewidths=0.4)
    for level, style in ((10, "--"), (30, ":")):
        for sign in (1, -1):
            ax.axhline(sign * level, color="black", linestyle=style, linewidth=0.8)
    ax.axhline(0, color="black", linewidth=1)
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(["%s (%d)" % (g, sum(1 for r in rows if r["group"] == g)) for g in groups])
    ax.set_ylabel("signed error, %\n(predicted - measured) / measured")
    errors = sorted(abs(r["error_pct"]) for r in rows)
    n = len(errors)
    median = errors[n // 2] if n % 2 else 0.5 * (errors[n // 2 - 1] + errors[n // 2])
    ax.set_title("every case's error per group (dashed ±10 %%, dotted ±30 %%): %d cases, "
                 "median |error| %.1f %%" % (n, median), fontsize=10)
    ax.grid(True, axis="y", alpha=0.3)


def main(argv):
    if len(argv) != 3:
        print("usage: validation_plot.py validation.csv validation.png", file=sys.stderr)
        return 2
    try:
        rows = read_rows(argv[1])
    except (BadCsv, OSError, UnicodeDecodeError, csv.Error, KeyError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    if not rows:
        print("no predicted cases in " + argv[1], file=sys.stderr)
        return 1
    metric_panels = panels(rows)
    columns = 3
    grid_rows = (len(metric_panels) + columns - 1) // columns
    fig = plt.figure(figsize=(15, 4.6 * grid_rows + 4.2))
    grid = fig.add_gridspec(grid_rows + 1, columns, height_ratios=[4.6] * grid_rows + [4.2])
    for i, (metric, unit, members) in enumerate(metric_panels):
        print(draw_metric(fig.add_subplot(grid[i // columns, i % columns]), metric, unit, members))
    draw_errors(fig.add_subplot(grid[grid_rows, :]), rows)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
