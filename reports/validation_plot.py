#!/usr/bin/python3
"""Predicted-vs-measured scatter plot of `ddpsim validate`.

    /usr/bin/python3 reports/validation_plot.py OUTDIR/validation.csv OUTDIR/validation.png

Reads validation.csv (rows with status ok) and plots each case's predicted against its
measured value, both in the unit the measurement was published in, on log axes (the values
span 0.1 s to 1e5 img/s), coloured by group, with the y = x line and a +-10 % band. Runs under
Debian's /usr/bin/python3, the interpreter that has python3-matplotlib.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GROUP_COLOURS = {
    "scaling": "#1f77b4",
    "bucket-size": "#ff7f0e",
    "data-loading": "#2ca02c",
    "collectives": "#d62728",
}


def main(argv):
    if len(argv) != 3:
        print("usage: validation_plot.py validation.csv validation.png", file=sys.stderr)
        return 2
    with open(argv[1], newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ok"]
    if not rows:
        print("no predicted cases in " + argv[1], file=sys.stderr)
        return 1

    fig, (ax, err_ax) = plt.subplots(1, 2, figsize=(13, 6.5),
                                     gridspec_kw={"width_ratios": [1, 1.1]})
    lo, hi = float("inf"), 0.0
    groups = [g for g in GROUP_COLOURS if any(r["group"] == g for r in rows)]
    for group in groups:
        colour = GROUP_COLOURS[group]
        xs = [float(r["measured"]) for r in rows if r["group"] == group]
        ys = [float(r["predicted"]) for r in rows if r["group"] == group]
        lo, hi = min(lo, *xs, *ys), max(hi, *xs, *ys)
        ax.scatter(xs, ys, s=28, color=colour, alpha=0.8, edgecolors="black", linewidths=0.4,
                   label=f"{group} ({len(xs)})")
    lo, hi = lo / 1.5, hi * 1.5
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=1, label="y = x")
    ax.fill_between([lo, hi], [lo * 0.9, hi * 0.9], [lo * 1.1, hi * 1.1], color="grey",
                    alpha=0.2, label="±10 %")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.set_xlabel("measured (published unit: img/s, seq/s, tokens/s, s, %, GB/s)")
    ax.set_ylabel("predicted by ddpsim (same unit)")
    errors = sorted(abs(float(r["error_pct"])) for r in rows)
    n = len(errors)
    median = errors[n // 2] if n % 2 else 0.5 * (errors[n // 2 - 1] + errors[n // 2])
    ax.set_title(f"predicted vs measured: {n} cases, median |error| {median:.1f} %")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left")

    # The same cases as signed error, one column per group: the scatter's decades hide them.
    for i, group in enumerate(groups):
        errs = sorted(float(r["error_pct"]) for r in rows if r["group"] == group)
        xs = [i + (j / max(1, len(errs) - 1) - 0.5) * 0.6 for j in range(len(errs))]
        err_ax.scatter(xs, errs, s=22, color=GROUP_COLOURS[group], alpha=0.8,
                       edgecolors="black", linewidths=0.4)
    for level, style in ((10, "--"), (30, ":")):
        for sign in (1, -1):
            err_ax.axhline(sign * level, color="black", linestyle=style, linewidth=0.8)
    err_ax.axhline(0, color="black", linewidth=1)
    err_ax.set_xticks(range(len(groups)))
    err_ax.set_xticklabels(groups)
    err_ax.set_ylabel("signed error, % ((predicted - measured) / measured)")
    err_ax.set_title("error per case (dashed ±10 %, dotted ±30 %)")
    err_ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
