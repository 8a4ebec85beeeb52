"""What a report draws from: the rows of a sweep's results.csv (or a single `ddpsim simulate`
folder's results.json), the swept axes, and how to group rows into series.

Swept axes come from sweep.json when present; otherwise they are the CSV columns between
`status` and `scenario_name` (docs/results-csv.md), with values in order of appearance.
"""

import csv
import io
import json
import math
import os
import stat
import time

# Keys whose values change the GPU count: the x axis of scaling plots, never a series.
GPU_KEYS = ("cluster.nodes", "cluster.gpus_per_node", "cluster")
# Keys that change how gradients are synchronised: bars of the strategy comparison.
STRATEGY_KEYS = ("sync.strategy", "sync.algorithm", "sync.ps.servers", "sync.ps.placement",
                 "sync.ps.mode", "sync.local_sgd.period", "sync.schedule", "sync.fusion", "sync")
BUCKET_KEY = "sync.bucket_cap"

NUMERIC = {
    "point", "nodes", "gpus_per_node", "gpus", "nic_count", "nic_bandwidth_bytes_per_s",
    "batch_per_gpu", "gradient_accumulation", "ps_servers", "bucket_cap_bytes", "gradient_bytes",
    "compute_efficiency", "data_sample_bytes", "global_batch", "iteration_time_s",
    "samples_per_second", "single_gpu_samples_per_second", "scaling_efficiency", "data_wait_s",
    "forward_s", "backward_s", "exposed_comm_s", "straggler_wait_s", "optimizer_s", "comm_time_s",
    "comm_share", "exposed_comm_share", "straggler_share", "data_rate_per_gpu", "train_rate_per_gpu", "memory_total_bytes",
    "tokens_per_second", "tokens_per_second_per_gpu", "model_flops_per_token", "mfu", "hfu",
    "memory_capacity_bytes", "buckets", "bytes_intra_node", "bytes_pcie", "bytes_nic",
    "bytes_fabric", "bytes_storage", "bytes_host", "bytes_sent_per_step",
}
# `sweep --uncertainty` (docs/results-csv.md): p10/p50/p90 of three figures over the draws.
BAND_FIGURES = ("samples_per_second", "iteration_time_s", "exposed_comm_share")
BAND_COLUMNS = tuple("%s_%s" % (f, p) for f in BAND_FIGURES for p in ("p10", "p50", "p90"))
NUMERIC |= set(BAND_COLUMNS) | {"uncertainty_draws"}


# What the plots read: a results.csv without one of these is not one ddpsim wrote.
REQUIRED = (
    "point", "point_id", "status", "scenario_name", "model_name", "nodes", "gpus_per_node",
    "gpus", "strategy", "algorithm", "ps_servers", "ps_placement", "bucket_cap_bytes",
    "compute_mode", "compute_efficiency", "compute_profile", "data_sample_bytes",
    "iteration_time_s", "samples_per_second", "single_gpu_samples_per_second",
    "scaling_efficiency", "data_wait_s", "forward_s", "backward_s", "exposed_comm_s",
    "optimizer_s", "comm_share", "exposed_comm_share", "bottleneck", "data_rate_per_gpu",
    "train_rate_per_gpu",
)
# Numbers an `ok` row may leave empty: without a single-GPU run (--no-baseline) there is none.
MAY_BE_EMPTY = {"single_gpu_samples_per_second", "scaling_efficiency", "tokens_per_second",
                "tokens_per_second_per_gpu", "model_flops_per_token", "mfu", "hfu"}
# What the report reads at most: a million-point results.csv, or one point's JSON.
MAX_CSV_BYTES = 2 << 30
MAX_JSON_BYTES = 256 << 20


class ReportInputError(Exception):
    """The folder is not something a report can be drawn from; the message says why."""


def read_regular(path, what, max_bytes):
    """The text of `path`, which must be a regular UTF-8 file of at most `max_bytes`: a named
    pipe would block open(), a device or a huge file would never end."""
    try:
        info = os.stat(path)
    except OSError as e:
        raise ReportInputError("%s: cannot read the %s: %s" % (path, what, e.strerror))
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISSOCK, "a socket"))
    for test, kind in kinds:
        if test(info.st_mode):
            raise ReportInputError("%s: cannot read the %s: it is %s, not a regular file"
                                   % (path, what, kind))
    if info.st_size > max_bytes:
        raise ReportInputError("%s: cannot read the %s: it is %d bytes, more than the %d a %s "
                               "may be" % (path, what, info.st_size, max_bytes, what))
    with open(path, "rb") as f:
        raw = f.read(max_bytes + 1)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise ReportInputError("%s:%d: the %s is not UTF-8 text" % (path, line, what))


def read_json(path, what):
    text = read_regular(path, what, MAX_JSON_BYTES)
    try:
        return json.loads(text)
    except ValueError as e:
        raise ReportInputError("%s:%d: the %s is not valid JSON (%s): was it cut short?"
                               % (path, getattr(e, "lineno", 0), what,
                                  getattr(e, "msg", str(e))))


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
        self.min_efficiency = 0.9  # the report's --min-efficiency: a scaling sweep's best point

    # -------------------------------------------------------------- axes

    def axis_keys(self):
        return [key for key, _ in self.axes]

    def varied(self, key):
        """True when `key` is swept over two or more values."""
        return any(k == key and len(values) > 1 for k, values in self.axes)

    def gpu_keys(self):
        return [k for k in self.axis_keys() if k in GPU_KEYS or k.startswith("cluster.nodes")]

    def band_draws(self):
        """The draws behind the band columns when every finished point has its band (a sweep
        run with --uncertainty, or a simulate --uncertainty folder), else None."""
        draws = {r.get("uncertainty_draws") for r in self.ok}
        if not self.ok or None in draws or any(
                r.get("samples_per_second_p10") is None for r in self.ok):
            return None
        return int(max(draws))

    def band_label(self):
        return "p10-p90 over %d draws of the defaults x the measured model error" % \
            self.band_draws()

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

    def cluster_description(self):
        """"8 nodes x 8 a100-sxm-40gb (64 GPUs)", with ranges where a sweep varies them."""
        rows = self.ok or self.rows
        if not rows:
            return "?"

        def span(key, fmt="%s"):
            values = sorted({r.get(key) for r in rows if r.get(key) not in (None, "")})
            if not values:
                return "?"
            if len(values) == 1:
                return fmt % values[0]
            return (fmt % values[0]) + "-" + (fmt % values[-1])

        gpus_names = sorted({r.get("gpu_name", "") for r in rows} - {""})
        gpu = gpus_names[0] if len(gpus_names) == 1 else (
            "GPU kinds vary" if gpus_names else "GPUs")
        nodes = span("nodes")
        return "%s node%s x %s %s (%s GPUs)" % (
            nodes, "" if nodes == "1" else "s", span("gpus_per_node"), gpu, span("gpus"))

    def swept_description(self):
        """"swept nodes 1-128 (6 values), bucket_cap 1MiB-100MiB (4 values)"; "" for one run."""
        keys = [(k, v) for k, v in self.axes if len(v) > 1]
        if not keys:
            return ""
        return "swept " + ", ".join(
            "%s %s-%s (%d values)" % (short_key(k, self.axis_keys()), v[0], v[-1], len(v))
            for k, v in keys)

    def subject(self):
        """"vgg16 on 1-32 nodes x 8 a100-sxm-40gb (8-256 GPUs), swept nodes 1-32 (6 values)":
        what a report is about, from the results themselves."""
        models = sorted({r.get("model_name", "") for r in self.rows} - {""}) or [self.model]
        model = models[0] if len(models) == 1 else "models " + ", ".join(models)
        swept = self.swept_description()
        return "%s on %s%s" % (model, self.cluster_description(), ", " + swept if swept else "")

    def is_scaling_sweep(self):
        """The GPU count varies and every point has its scaling efficiency."""
        return self.has_gpu_axis() and all(
            r.get("scaling_efficiency") is not None and r.get("single_gpu_samples_per_second")
            for r in self.ok)

    def best_point(self, min_efficiency=None):
        """A scaling sweep's best point is the largest size (most GPUs, then the highest
        throughput) whose scaling efficiency is at least `min_efficiency` (a fraction; None: the
        report's --min-efficiency); None when no point reaches it. Other sweeps: the finished
        point with the highest throughput, or None."""
        if self.is_scaling_sweep():
            floor = self.min_efficiency if min_efficiency is None else min_efficiency
            above = [r for r in self.ok if r["scaling_efficiency"] >= floor - 1e-12]
            return max(above, key=lambda r: (r["gpus"], r["samples_per_second"], -r["point"]),
                       default=None)
        return max(self.ok, key=lambda r: (r["samples_per_second"], -r["point"]), default=None)

    def version(self):
        """"0.1.0 (commit 356574f843bc)": the ddpsim that computed the points (each recorded
        with its results); several when a resumed or merged sweep mixes them."""
        def text(r):
            version, commit = r.get("ddpsim_version", ""), r.get("source_commit", "")
            if not version:
                return ""
            dirty = "-dirty" if commit.endswith("-dirty") else ""
            return version + (" (commit %s%s)" % (commit[:12], dirty) if commit else "")
        versions = sorted({text(r) for r in self.rows} - {""})
        return ", ".join(versions) if versions else "unknown"

    def results_date(self):
        """The day the results were written (UTC), from SOURCE_DATE_EPOCH when set (the
        reproducible-builds convention, for byte-identical reports), else from the results
        file's modification time: the same results folder gives the same page."""
        epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
        if epoch.isdigit():
            stamp = int(epoch)
        else:
            name = "results.csv" if os.path.isfile(
                os.path.join(self.source_dir, "results.csv")) else "results.json"
            try:
                stamp = int(os.stat(os.path.join(self.source_dir, name)).st_mtime)
            except OSError:
                return "unknown"
        return time.strftime("%Y-%m-%d", time.gmtime(stamp))

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
    for key in ("point", "gpus", "nodes", "gpus_per_node", "ps_servers", "uncertainty_draws"):
        if out.get(key) is not None:
            out[key] = int(out[key])
    return out


def read_results_csv(csv_path):
    """(header, rows) of a sweep's results.csv, every row checked before anything is drawn: a
    damaged file is one `file:line: message`, never a traceback nor half a report."""
    text = read_regular(csv_path, "results.csv", MAX_CSV_BYTES)
    if not text:
        raise ReportInputError("%s:1: empty file: expected a header row" % csv_path)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    records = []
    start = 1
    try:
        for record in reader:
            records.append((start, record))
            start = reader.line_num + 1
    except csv.Error as e:
        raise ReportInputError("%s:%d: malformed CSV: %s" % (csv_path, start, e))
    if not text.endswith("\n"):
        raise ReportInputError("%s:%d: the last row has no line end (the file was cut short)"
                               % (csv_path, records[-1][0]))
    header = records[0][1]
    for needed in REQUIRED:
        if needed not in header:
            raise ReportInputError("%s:1: not a ddpsim results.csv (no '%s' column)"
                                   % (csv_path, needed))
    if len(set(header)) != len(header):
        raise ReportInputError("%s:1: a column name appears twice in the header" % csv_path)
    rows, seen = [], set()
    for line, record in records[1:]:
        if len(record) != len(header):
            raise ReportInputError("%s:%d: row has %d fields, the header has %d"
                                   % (csv_path, line, len(record), len(header)))
        row = dict(zip(header, record))
        status = row["status"]
        if status not in ("ok", "failed"):
            raise ReportInputError("%s:%d: status '%s': expected ok or failed"
                                   % (csv_path, line, status))
        for key in ("point", "gpus"):
            if not row[key].isdigit():
                raise ReportInputError("%s:%d: %s '%s': expected a whole number"
                                       % (csv_path, line, key, row[key]))
        if row["point"] in seen:
            raise ReportInputError("%s:%d: point %s appears twice" % (csv_path, line, row["point"]))
        seen.add(row["point"])
        for key in sorted(NUMERIC & set(header)):
            value = row[key]
            if value == "" and (status != "ok" or key in MAY_BE_EMPTY):
                continue
            number = _number(value)
            if number is None or not math.isfinite(number):
                raise ReportInputError("%s:%d: %s '%s': expected a finite number"
                                       % (csv_path, line, key, value))
        rows.append(_typed(row))
    return header, rows


def load_sweep(out_dir):
    if not os.path.isdir(out_dir):
        if os.path.exists(out_dir):
            raise ReportInputError("%s: not a folder: give the output folder of `ddpsim sweep` "
                                   "or `ddpsim simulate`" % out_dir)
        raise ReportInputError("%s: no such folder" % out_dir)
    csv_path = os.path.join(out_dir, "results.csv")
    if not os.path.lexists(csv_path):
        if os.path.lexists(os.path.join(out_dir, "results.json")):
            return load_single_run(out_dir)
        raise ReportInputError("%s: no results.csv (a `ddpsim sweep` folder) nor results.json "
                               "(a `ddpsim simulate` folder)" % out_dir)
    header, rows = read_results_csv(csv_path)
    if not rows:
        raise ReportInputError("%s: no points yet" % csv_path)
    manifest = None
    manifest_path = os.path.join(out_dir, "sweep.json")
    if os.path.lexists(manifest_path):
        manifest = read_json(manifest_path, "sweep manifest")
        if not isinstance(manifest, dict):
            raise ReportInputError("%s: not a sweep manifest (expected a JSON object)"
                                   % manifest_path)
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
    path = os.path.join(out_dir, "results.json")
    doc = read_json(path, "results.json")
    try:
        r, s = doc["result"], doc["scenario"]
        return _single_run(out_dir, r, s, doc.get("provenance"))
    except (KeyError, TypeError) as e:
        raise ReportInputError("%s: not a ddpsim results.json (no %s)" % (path, e))


def _single_run(out_dir, r, s, doc_provenance=None):
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
        "straggler_wait_s": b["straggler_wait_s"],
        "optimizer_s": b["optimizer_s"], "comm_share": r["comm_share"],
        "exposed_comm_share": r["exposed_comm_share"], "straggler_share": r["straggler_share"],
        "bottleneck": r["bottleneck"],
        "data_rate_per_gpu": r["data_rate_per_gpu"], "train_rate_per_gpu": r["train_rate_per_gpu"],
        "_trace": r.get("trace", []), "_chrome_trace": os.path.join(out_dir, "trace.json"),
        "_links": r.get("links"),
        "gpu_name": s["cluster"].get("gpu", {}).get("name", "") if isinstance(
            s["cluster"].get("gpu"), dict) else str(s["cluster"].get("gpu", "")),
        "ddpsim_version": (doc_provenance or {}).get("ddpsim_version", ""),
        "source_commit": (doc_provenance or {}).get("source_commit", ""),
    }
    llm = r.get("llm") or {}  # transformers only (docs/results-csv.md)
    for key in ("tokens_per_second", "tokens_per_second_per_gpu", "model_flops_per_token", "mfu",
                "hfu"):
        row[key] = llm.get(key)
    u = r.get("uncertainty")
    if u:  # simulate --uncertainty: the band and the inputs that move it most
        try:
            for figure, key in zip(BAND_FIGURES, ("samples_per_second", "iteration_time",
                                                  "exposed_comm_share")):
                for p in ("p10", "p50", "p90"):
                    row["%s_%s" % (figure, p)] = float(u[key][p])
            row["uncertainty_draws"] = int(u["samples"])
            row["_influences"] = list(u.get("influences", []))
        except (KeyError, TypeError, ValueError) as e:
            raise KeyError("result.uncertainty %s" % e)
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
    doc = read_json(path, "point file")
    chrome = os.path.join(data.source_dir, "points", "%s.trace.json" % row["point_id"])
    try:
        events = doc["result"].get("trace", [])
        for e in events:
            if not (isinstance(e["gpu"], int) and isinstance(e["lane"], str)
                    and isinstance(e["name"], str) and all(
                        isinstance(e[k], (int, float)) and math.isfinite(e[k])
                        for k in ("start_s", "end_s"))):
                raise TypeError("an event with wrong types")
    except (KeyError, TypeError, AttributeError) as e:
        raise ReportInputError("%s: not a ddpsim point file (its trace: %s)" % (path, e))
    return events, chrome if os.path.isfile(chrome) else None


def point_links(data, row):
    """The `links` section of one point's result (per-link utilisation), or None when the point
    has none (a point file written before ddpsim measured links)."""
    if "_links" in row:
        return row["_links"]
    path = os.path.join(data.source_dir, "points", "%s.json" % row["point_id"])
    if not os.path.isfile(path):
        return None
    doc = read_json(path, "point file")
    try:
        links = doc["result"].get("links")
        if links is not None:
            heat = links["heat_map"]
            if not (isinstance(heat["groups"], list) and all(
                    isinstance(r, list) and len(r) == len(heat["groups"]) and all(
                        v is None or (isinstance(v, (int, float)) and math.isfinite(v))
                        for v in r) for r in heat["per_node"])):
                raise TypeError("a heat map with wrong types")
            for f in links["fabric"]:
                if not (isinstance(f["name"], str) and isinstance(f["utilisation"], (int, float))):
                    raise TypeError("a fabric link with wrong types")
    except (KeyError, TypeError, AttributeError) as e:
        raise ReportInputError("%s: not a ddpsim point file (its links: %s)" % (path, e))
    return links
