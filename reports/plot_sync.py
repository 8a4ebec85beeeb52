"""Gradient synchronisation choices: iteration time against the DDP bucket cap (per cluster
size), and parameter servers against all-reduce algorithms as grouped bars."""

from report_data import BUCKET_KEY, STRATEGY_KEYS
from report_style import Skip, new_figure, rate_text, record, save, title

MIB = 1024.0 * 1024.0


def _group_label(data, label, rows, exclude):
    """Series named by cluster size when that is all that tells them apart."""
    others = [k for k in data.axis_keys() if k not in exclude and len(data.axis_values(k)) > 1]
    if others and all(k in data.gpu_keys() for k in others):
        return "%d GPUs" % rows[0]["gpus"]
    return label or "simulated"


def plot_bucket_size(data, out_dir):
    if not data.varied(BUCKET_KEY):
        raise Skip("sync.bucket_cap is not swept")
    groups = data.groups(data.ok, exclude=[BUCKET_KEY])
    fig, (ax, ax_exposed) = new_figure(13, 5, ncols=2)
    series = []
    caps = sorted({r["bucket_cap_bytes"] / MIB for r in data.ok})
    for i, (label, rows) in enumerate(groups):
        rows = sorted(rows, key=lambda r: r["bucket_cap_bytes"])
        name = _group_label(data, label, rows, [BUCKET_KEY])
        cap = [r["bucket_cap_bytes"] / MIB for r in rows]
        ax.plot(cap, [1e3 * r["iteration_time_s"] for r in rows], "o-", color="C%d" % (i % 10),
                label=name)
        ax_exposed.plot(cap, [1e3 * r["exposed_comm_s"] for r in rows], "o-",
                        color="C%d" % (i % 10), label=name)
        series.append((name, len(rows), "measured"))
    for a, ylabel in ((ax, "iteration time (ms)"), (ax_exposed, "exposed communication (ms)")):
        a.set_xscale("log", base=2)
        a.set_xticks(caps)
        a.set_xticklabels(["%g" % c for c in caps])
        a.minorticks_off()
        a.set_xlabel("bucket cap (MiB)")
        a.set_ylabel(ylabel)
        a.set_ylim(bottom=0)
        a.grid(True, alpha=0.3)
        a.legend(fontsize=8)
    ax.set_title("iteration time")
    ax_exposed.set_title("communication not hidden under backward")
    plot_title = title(data, "DDP bucket size")
    fig.suptitle(plot_title, fontsize=10)
    file = save(fig, out_dir, "bucket_size.png")
    return record("bucket_size", file, plot_title, series,
                  "Small buckets start reducing early but pay the per-message latency many "
                  "times; large ones leave the last bucket's reduction exposed after backward.")


def sync_label(row):
    if row.get("strategy") == "ps":
        return "PS x%d %s" % (row.get("ps_servers") or 0, row.get("ps_placement", ""))
    if row.get("strategy") == "local-sgd":
        return "local SGD"
    return "all-reduce %s" % row.get("algorithm", "")


def plot_strategy(data, out_dir):
    if not any(data.varied(k) for k in STRATEGY_KEYS):
        raise Skip("no synchronisation strategy key is swept (sync.strategy, sync.algorithm, "
                   "sync.ps.servers, ...)")
    labels = []
    for r in data.ok:
        if sync_label(r) not in labels:
            labels.append(sync_label(r))
    groups = data.groups(data.ok, exclude=STRATEGY_KEYS)
    fig, (ax,) = new_figure(max(8, 1.2 * len(groups) * len(labels) / 2 + 4), 5.5)
    width = 0.8 / len(labels)
    series = []
    draws = data.band_draws()
    bands = []  # what each shaded band spans, for plots.json
    for j, strategy in enumerate(labels):
        xs, ys, lows, highs = [], [], [], []
        for g, (_, rows) in enumerate(groups):
            match = [r for r in rows if sync_label(r) == strategy]
            if match:
                xs.append(g - 0.4 + width * (j + 0.5))
                # Banded, each bar is its headline: the median inside the shaded p10-p90.
                ys.append(match[0]["samples_per_second_p50" if draws else "samples_per_second"])
                if draws:
                    lows.append(match[0]["samples_per_second_p10"])
                    highs.append(match[0]["samples_per_second_p90"])
        bars = ax.bar(xs, ys, width=width, color="C%d" % (j % 10), label=strategy)
        ax.bar_label(bars, labels=[rate_text(y) for y in ys], fontsize=7, padding=2)
        series.append((strategy, len(xs), "strategy"))
        if draws:
            # One shaded span per bar, over the bar's width: where its p10-p90 lies.
            for k, (x, low, high) in enumerate(zip(xs, lows, highs)):
                ax.fill_between([x - width / 2, x + width / 2], low, high, color="black",
                                alpha=0.2, lw=0,
                                label=data.band_label() if j == 0 and k == 0 else None)
            bands.append({"name": strategy, "p10": lows, "p90": highs})
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([_group_label(data, label, rows, STRATEGY_KEYS) for label, rows in groups],
                       fontsize=8)
    ax.set_ylabel("throughput (samples/s)")
    # Bars start at zero: their heights compare as ratios only from there. Headroom for labels.
    ax.set_ylim(0, 1.12 * max((max(r["samples_per_second"], r.get("samples_per_second_p90") or 0)
                               for r in data.ok), default=1))
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    plot_title = title(data, "synchronisation strategies")
    ax.set_title(plot_title, fontsize=10)
    file = save(fig, out_dir, "strategy.png")
    caption = ("Throughput of each synchronisation strategy (parameter servers per server "
               "count and placement, all-reduce per algorithm), grouped by the other swept "
               "values.")
    extra = {}
    if draws:
        caption += " Shaded: %s, the same draws for every bar." % data.band_label()
        series.append((data.band_label(), sum(len(b["p10"]) for b in bands), "band"))
        extra = {"band": data.band_label(), "bands": bands}
    return record("strategy", file, plot_title, series, caption, groups=len(groups), **extra)
