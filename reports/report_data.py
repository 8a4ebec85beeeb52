"""What a report draws from: the rows of a sweep's results.csv (or a single `ddpsim simulate`
folder's results.json), the swept axes, and how to group rows into series.

Swept axes come from sweep.json when present; otherwise they are the CSV columns between
`status` and `scenario_name` (docs/results-csv.md), with values in order of appearance.
"""

import csv
import json
import os

# Keys whose values change the GPU count: the x axis of scaling plots, never a series.
GPU_KEYS = ("cluster.nodes", "cluster.gpus_per_node", "cluster")
# Keys that change how gradients are synchronised: bars of the strategy comparison.
STRATEGY_KEYS = ("sync.strategy", "sync.algorithm", "sync.ps.servers", "sync.ps.placement",
                 "sync.ps.mode", "sync.local_sgd.period", "sync")
BUCKET_KEY = "sync.bucket_cap"

NUMERIC = {
    "point", "nodes", "gpus_per_node", "gpus", "nic_count", "nic_bandwidth_bytes_per_s",
    "batch_per_gpu", "gradient_accumulation", "ps_servers", "bucket_cap_bytes",
    "compute_efficiency", "data_sample_bytes", "global_batch", "iteration_time_s",
    "samples_per_second", "single_gpu_samples_per_second", "scaling_efficiency", "data_wait_s",
    "forward_s", "backward_s", "exposed_comm_s", "optimizer_s", "comm_time_s", "comm_share",
    "exposed_comm_share", "data_rate_per_gpu", "train_rate_per_gpu", "memory_total_bytes",
    "memory_capacity_bytes", "buckets", "bytes_intra_node", "bytes_pcie", "bytes_nic",
    "bytes_fabric", "bytes_storage", "bytes_sent_per_step",
}


class ReportInputError(Exception):
    """The folder is not something a report can be drawn from; the message says why."""


class SweepData:
    def __init__(self, source_dir, rows, axes, manifest):
        self.source_dir = source_dir
        self.rows = rows                  # every row, point order, numbers as floats
        self.ok = [r for r in rows if r["status"] == "ok"]
        self.axes = axes                  # [(key, [value texts in sweep order])]
        self.manifest = manifest or {}
        first = rows[0] if rows else {}
        self.scenario = self.manifest.get("scenario_name") or first.get("scenario_name", "?")
        self.model = self.manifest.get("model") or first.get("model_name", "?")

    # -------------------------------------------------------------- axes

    def axis_keys(self):
        return [key for key, _ in self.axes]

    def varied(self, key):
        """True when `key` is swept over two or more values."""
        return any(k == key and len(values) > 1 for k, values in self.axes)

    def gpu_keys(self):
        return [k for k in self.axis_keys() if k in GPU_KEYS or k.startswith("cluster.nodes")]

    def has_gpu_axis(self):
        return len({r["gpus"] for r in self.ok}) > 1

    def axis_values(self, key):
        for k, values in self.axes:
            if k == key:
                return values
        return []

    # -------------------------------------------------------------- grouping

    def groups(self, rows, exclude):
        """Rows split by the values of the swept keys not in `exclude`, in sweep order.
        Returns [(label, rows)]; the label names those values ("" when nothing else varies)."""
        keys = [k for k in self.axis_keys() if k not in exclude and len(self.axis_values(k)) > 1]
        out = {}
        for row in rows:
            tag = tuple(row.get(k, "") for k in keys)
            out.setdefault(tag, []).append(row)
        return [(self.label(keys, tag), members) for tag, members in out.items()]

    def label(self, keys, values):
        if list(keys) == ["cluster.gpus_per_node"]:
            return "%s GPUs/node" % values[0]
        return ", ".join("%s=%s" % (short_key(k, self.axis_keys()), v)
                         for k, v in zip(keys, values))

    def point_label(self, row):
        keys = [k for k in self.axis_keys() if len(self.axis_values(k)) > 1]
        if not keys:
            return "%d GPUs" % row["gpus"]
        return "\n".join("%s=%s" % (short_key(k, self.axis_keys()), row.get(k, "")) for k in keys)

    # -------------------------------------------------------------- descriptions

    def compute_description(self):
        """Which compute model and profile the numbers came from, for every plot's title."""
        modes = {(r.get("compute_mode", ""), r.get("compute_profile", ""),
                  r.get("compute_efficiency", "")) for r in self.rows}
        if len(modes) > 1:
            return "compute model and profile vary per point (see results.csv)"
        if not modes:
            return ""
        mode, profile, efficiency = modes.pop()
        if mode == "profile" or profile:
            return "profile: %s" % os.path.basename(profile or "?")
        if mode == "measured":
            step = self.manifest.get("compute", {}).get("step_time_s")
            return "profile: none, measured single-GPU step%s" % (
                " %.4g s" % step if step else "")
        if mode == "roofline":
            return "profile: none, roofline at %.0f %% of peak" % (100 * float(efficiency or 0))
        return "compute: %s" % mode


def short_key(key, all_keys):
    """`cluster.nodes` -> `nodes` unless another swept key ends the same way."""
    tail = key.rsplit(".", 1)[-1]
    clash = [k for k in all_keys if k != key and k.rsplit(".", 1)[-1] == tail]
    return key if clash else tail


def _number(text):
    if text in ("", None):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _typed(row):
    out = dict(row)
    for key in NUMERIC:
        if key in out:
            out[key] = _number(out[key])
    for key in ("point", "gpus", "nodes", "gpus_per_node", "ps_servers"):
        if out.get(key) is not None:
            out[key] = int(out[key])
    return out


def load_sweep(out_dir):
    csv_path = os.path.join(out_dir, "results.csv")
    if not os.path.isfile(csv_path):
        if os.path.isfile(os.path.join(out_dir, "results.json")):
            return load_single_run(out_dir)
        raise ReportInputError("%s: no results.csv (a `ddpsim sweep` folder) nor results.json "
                               "(a `ddpsim simulate` folder)" % out_dir)
    with open(csv_path, newline="") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        rows = [_typed(r) for r in reader]
    for needed in ("point", "status", "scenario_name", "gpus"):
        if needed not in header:
            raise ReportInputError("%s: not a ddpsim results.csv (no '%s' column)"
                                   % (csv_path, needed))
    if not rows:
        raise ReportInputError("%s: no points yet" % csv_path)
    manifest = None
    manifest_path = os.path.join(out_dir, "sweep.json")
    if os.path.isfile(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
    if manifest and manifest.get("axes"):
        axes = [(a["key"], list(a["values"])) for a in manifest["axes"]]
    else:
        swept = header[header.index("status") + 1:header.index("scenario_name")]
        axes = []
        for key in swept:
            values = []
            for r in rows:
                if r[key] not in values:
                    values.append(r[key])
            axes.append((key, values))
    rows.sort(key=lambda r: r["point"])
    return SweepData(out_dir, rows, axes, manifest)


def load_single_run(out_dir):
    """A `ddpsim simulate` folder as a one-point sweep (breakdown and timeline only)."""
    with open(os.path.join(out_dir, "results.json")) as f:
        doc = json.load(f)
    r, s = doc["result"], doc["scenario"]
    b = r["breakdown"]
    row = {
        "point": 0, "point_id": "", "status": "ok", "scenario_name": s["name"],
        "model_name": r["model"], "nodes": r["nodes"], "gpus": r["gpus"],
        "gpus_per_node": s["cluster"]["gpus_per_node"],
        "strategy": s["sync"]["strategy"], "algorithm": s["sync"]["algorithm"],
        "ps_servers": s["sync"]["ps"]["servers"], "ps_placement": s["sync"]["ps"]["placement"],
        "bucket_cap_bytes": s["sync"]["bucket_cap_bytes"],
        "compute_mode": s["compute"]["mode"], "compute_profile": s["compute"]["profile"],
        "compute_efficiency": s["compute"]["efficiency"],
        "data_sample_bytes": s["data"]["sample_bytes"],
        "iteration_time_s": r["iteration_time_s"], "samples_per_second": r["samples_per_second"],
        "single_gpu_samples_per_second": r["single_gpu_samples_per_second"],
        "scaling_efficiency": r["scaling_efficiency"],
        "data_wait_s": b["data_wait_s"], "forward_s": b["forward_s"],
        "backward_s": b["backward_s"], "exposed_comm_s": b["exposed_comm_s"],
        "optimizer_s": b["optimizer_s"], "comm_share": r["comm_share"],
        "exposed_comm_share": r["exposed_comm_share"], "bottleneck": r["bottleneck"],
        "data_rate_per_gpu": r["data_rate_per_gpu"], "train_rate_per_gpu": r["train_rate_per_gpu"],
        "_trace": r.get("trace", []), "_chrome_trace": os.path.join(out_dir, "trace.json"),
    }
    manifest = {"scenario_name": s["name"], "model": r["model"],
                "compute": {"step_time_s": s["compute"]["step_time_s"]}}
    return SweepData(out_dir, [row], [], manifest)


def point_trace(data, row):
    """(trace events, path of the Chrome trace or None) of one point."""
    if "_trace" in row:
        return row["_trace"], row.get("_chrome_trace")
    path = os.path.join(data.source_dir, "points", "%s.json" % row["point_id"])
    if not os.path.isfile(path):
        return [], None
    with open(path) as f:
        doc = json.load(f)
    chrome = os.path.join(data.source_dir, "points", "%s.trace.json" % row["point_id"])
    return doc["result"].get("trace", []), chrome if os.path.isfile(chrome) else None
