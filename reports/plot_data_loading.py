"""Data loading against training, per GPU, as nodes grow: what the input pipeline can deliver
(storage share, decode, PCIe), what the GPU consumes when it never waits, and what it achieved.
Drawn when the cluster size varies and the scenario reads real data."""

from report_style import Skip, log2_gpu_axis, new_figure, plain_log_y, record, save, title


def plot_data_loading(data, out_dir):
    if not data.has_gpu_axis():
        raise Skip("the cluster size does not vary")
    if not any((r.get("data_rate_per_gpu") or 0) > 0 for r in data.ok):
        raise Skip("synthetic data: no input pipeline to compare (data.synthetic: true)")
    groups = data.groups(data.ok, exclude=data.gpu_keys())
    fig, (ax,) = new_figure(9.5, 5.5)
    series = []
    nodes = [r["nodes"] for r in data.ok]
    for i, (label, rows) in enumerate(groups):
        rows = sorted(rows, key=lambda r: (r["nodes"], r["point"]))
        colour = "C%d" % (i % 10)
        prefix = (label + ": ") if label else ""
        x = [r["nodes"] for r in rows]
        lines = [
            ("data pipeline can deliver", [r["data_rate_per_gpu"] for r in rows], "o-"),
            ("training consumes", [r["train_rate_per_gpu"] for r in rows], "s--"),
            ("achieved", [r["samples_per_second"] / r["gpus"] for r in rows], "^:"),
        ]
        for name, values, style in lines:
            ax.plot(x, values, style, color=colour, label=prefix + name)
            series.append((prefix + name, len(rows), name))
    log2_gpu_axis(ax, nodes, "nodes")
    plain_log_y(ax)
    ax.set_ylabel("samples/s per GPU")
    sample_bytes = {r.get("data_sample_bytes") for r in data.ok}
    if len(sample_bytes) == 1 and (next(iter(sample_bytes)) or 0) > 0:
        scale = next(iter(sample_bytes)) / 1e6
        right = ax.secondary_yaxis("right", functions=(lambda v: v * scale, lambda v: v / scale))
        right.set_ylabel("MB/s per GPU read from storage")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    plot_title = title(data, "data loading vs training, per GPU")
    ax.set_title(plot_title, fontsize=10)
    file = save(fig, out_dir, "data_loading.png")
    return record("data_loading", file, plot_title, series,
                  "When the pipeline's rate falls below what training consumes, GPUs wait for "
                  "data: the achieved rate follows the lower of the two.")
