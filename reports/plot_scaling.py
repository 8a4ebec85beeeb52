"""Scaling: throughput against GPUs with the ideal linear line, scaling efficiency, and the
communication share (total and exposed) as GPUs grow. Drawn when the GPU count varies."""

from report_style import Skip, log2_gpu_axis, new_figure, plain_log_y, record, save, title


def _series(data):
    if not data.has_gpu_axis():
        raise Skip("the GPU count does not vary (sweep cluster.nodes or cluster.gpus_per_node)")
    return [(label, sorted(rows, key=lambda r: (r["gpus"], r["point"])))
            for label, rows in data.groups(data.ok, exclude=data.gpu_keys())]


def plot_scaling(data, out_dir):
    groups = _series(data)
    with_baseline = all(r["single_gpu_samples_per_second"] for r in data.ok)
    fig, (ax, ax_eff) = new_figure(13, 5, ncols=2)
    series = []
    ideals = []  # single-GPU rates already drawn as an ideal line
    baselines = []
    for _, rows in groups:
        one = rows[0]["single_gpu_samples_per_second"] or 0
        if not any(abs(one - seen) <= 1e-9 * seen for seen in baselines):
            baselines.append(one)
    all_gpus = [r["gpus"] for r in data.ok]
    draws = data.band_draws()
    bands = []  # what each shaded band spans, for plots.json
    for i, (label, rows) in enumerate(groups):
        colour = "C%d" % (i % 10)
        name = label or "simulated"
        gpus = [r["gpus"] for r in rows]
        # Banded, the line is each point's headline: the median of the distribution whose
        # p10-p90 is shaded (the nominal run's figure lies outside it when defaults are one-sided).
        headline = "samples_per_second_p50" if draws else "samples_per_second"
        ax.plot(gpus, [r[headline] for r in rows], "o-", color=colour, label=name)
        series.append((name, len(rows), "measured"))
        if draws:
            band = {"name": name, "gpus": gpus,
                    "p10": [r["samples_per_second_p10"] for r in rows],
                    "p50": [r["samples_per_second_p50"] for r in rows],
                    "p90": [r["samples_per_second_p90"] for r in rows]}
            band_name = data.band_label() + ("" if len(groups) == 1 else ", " + name)
            ax.fill_between(gpus, band["p10"], band["p90"], color=colour, alpha=0.2, lw=0,
                            label=band_name)
            series.append((band_name, len(rows), "band"))
            bands.append(band)
        if with_baseline:
            one = rows[0]["single_gpu_samples_per_second"]
            if not any(abs(one - seen) <= 1e-9 * seen for seen in ideals):
                ideals.append(one)
                ideal_name = "ideal (linear)" if len(baselines) == 1 else "ideal, %s" % name
                span = [min(all_gpus), max(all_gpus)]
                ax.plot(span, [g * one for g in span], "--",
                        color="grey" if len(baselines) == 1 else colour, alpha=0.7,
                        label=ideal_name)
                series.append((ideal_name, 2, "ideal"))
            ax_eff.plot(gpus, [100 * r["scaling_efficiency"] for r in rows], "o-",
                        color=colour, label=name)
    log2_gpu_axis(ax, all_gpus)
    plain_log_y(ax)
    ax.set_ylabel("throughput (samples/s)")
    ax.set_title("throughput")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    log2_gpu_axis(ax_eff, all_gpus)
    ax_eff.set_ylabel("scaling efficiency (% of linear)")
    ax_eff.set_ylim(0, 105)
    ax_eff.axhline(100, color="grey", lw=0.8, ls=":")
    ax_eff.set_title("scaling efficiency" if with_baseline
                     else "scaling efficiency (not computed: run without --no-baseline)")
    if not with_baseline:
        # No single-GPU run, no efficiency: an empty panel says so rather than showing 0 %.
        ax_eff.set_xlim(ax.get_xlim())
        ax_eff.text(0.5, 0.5, "not computed\n(the sweep ran with --no-baseline)",
                    transform=ax_eff.transAxes, ha="center", va="center", fontsize=12,
                    color="grey")
    ax_eff.grid(True, alpha=0.3)
    if with_baseline and len(groups) > 1:
        ax_eff.legend(fontsize=8)
    plot_title = title(data, "throughput and scaling efficiency")
    fig.suptitle(plot_title, fontsize=10)
    file = save(fig, out_dir, "scaling.png")
    caption = ("Samples per second against GPUs (log 2 axis); dashed: the single-GPU rate "
               "times the GPU count. Right: throughput as a share of that ideal.")
    extra = {}
    if draws:
        caption += (" Shaded: %s (the same draws at every point; docs/assumptions.md)."
                    % data.band_label())
        extra = {"band": data.band_label(), "bands": bands}
    return record("scaling", file, plot_title, series, caption,
                  efficiency="drawn" if with_baseline else "not computed", **extra)


def plot_comm_share(data, out_dir):
    groups = _series(data)
    fig, (ax,) = new_figure(9, 5)
    series = []
    all_gpus = [r["gpus"] for r in data.ok]
    for i, (label, rows) in enumerate(groups):
        colour = "C%d" % (i % 10)
        prefix = (label + ": ") if label else ""
        gpus = [r["gpus"] for r in rows]
        ax.plot(gpus, [100 * r["comm_share"] for r in rows], "o-", color=colour,
                label=prefix + "total")
        ax.plot(gpus, [100 * r["exposed_comm_share"] for r in rows], "s--", color=colour,
                label=prefix + "exposed")
        series += [(prefix + "total", len(rows), "total"), (prefix + "exposed", len(rows), "exposed")]
    log2_gpu_axis(ax, all_gpus)
    ax.set_ylabel("share of the iteration time (%)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    plot_title = title(data, "communication share")
    ax.set_title(plot_title, fontsize=10)
    file = save(fig, out_dir, "comm_share.png")
    return record("comm_share", file, plot_title, series,
                  "Total: time a GPU's synchronisation stream is busy. Exposed: the part not "
                  "hidden under backward, which the step waits for.")
