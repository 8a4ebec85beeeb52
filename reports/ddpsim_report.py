#!/usr/bin/python3
"""Draws the report of a `ddpsim sweep` output folder (or of one `ddpsim simulate` folder):
PNG plots, plots.json (each plot's file and series, for tests and tools) and report.html.

    /usr/bin/python3 reports/ddpsim_report.py OUTDIR [-o REPORTDIR] [--point N]

`ddpsim report OUTDIR` runs this with Debian's /usr/bin/python3, the interpreter that imports
python3-matplotlib. Only the plots the swept keys make meaningful are drawn; plots.json and the
page list the others with the reason. Exit codes: 0 drawn, 1 matplotlib missing, 2 bad input.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    import matplotlib  # noqa: F401
except ImportError:
    sys.stderr.write(
        "error: %s cannot import matplotlib. Reports need Debian's python3-matplotlib "
        "(apt-get install python3-matplotlib) and its interpreter /usr/bin/python3.\n"
        % sys.executable)
    sys.exit(1)

from plot_bottleneck import plot_bottleneck  # noqa: E402
from plot_breakdown import plot_breakdown  # noqa: E402
from plot_data_loading import plot_data_loading  # noqa: E402
from plot_links import plot_links  # noqa: E402
from plot_scaling import plot_comm_share, plot_scaling  # noqa: E402
from plot_sync import plot_bucket_size, plot_strategy  # noqa: E402
from plot_timeline import plot_timeline  # noqa: E402
from report_data import ReportInputError, load_sweep  # noqa: E402
from report_html import write_html  # noqa: E402
from report_style import Skip  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", help="output folder of ddpsim sweep (or simulate)")
    parser.add_argument("-o", "--out", help="report folder (default OUTDIR/report)")
    parser.add_argument("--point",
                        help="point (index or point_id) shown in the timeline and link heat map")
    parser.add_argument("--min-efficiency", default="90",
                        help="a scaling sweep's best point is the largest size whose scaling "
                             "efficiency is at least this many percent (default 90)")
    args = parser.parse_args()
    try:
        min_efficiency = float(args.min_efficiency)
        if not 0 < min_efficiency <= 100:
            raise ValueError
    except ValueError:
        sys.stderr.write("error: --min-efficiency %s: expected a percentage above 0 and at most "
                         "100, e.g. 90\n" % args.min_efficiency)
        return 2
    final_dir = args.out or os.path.join(args.outdir, "report")
    try:
        data = load_sweep(args.outdir)
        data.min_efficiency = min_efficiency / 100
        if os.path.exists(final_dir) and not os.path.isdir(final_dir):
            raise ReportInputError("%s: cannot write the report here: not a folder" % final_dir)
        os.makedirs(final_dir, exist_ok=True)
        # Everything is drawn in a scratch folder beside the report (same depth, so relative
        # links hold) and moved in only when complete: a failure leaves no half report.
        work_dir = tempfile.mkdtemp(prefix=".report-",
                                    dir=os.path.dirname(os.path.abspath(final_dir)))
    except ReportInputError as e:
        sys.stderr.write("error: %s\n" % e)
        return 2
    except OSError as e:
        sys.stderr.write("error: %s: cannot write the report: %s\n" % (final_dir, e.strerror))
        return 2
    try:
        plots, skipped, page = draw(data, work_dir, args.point)
    except ReportInputError as e:
        shutil.rmtree(work_dir, ignore_errors=True)
        sys.stderr.write("error: %s\n" % e)
        return 2
    except BaseException:
        shutil.rmtree(work_dir, ignore_errors=True)
        raise
    for kind in KINDS:
        stale = os.path.join(final_dir, kind + ".png")
        if os.path.exists(stale):
            os.remove(stale)  # a plot this sweep no longer makes must not linger
    for name in sorted(os.listdir(work_dir)):
        os.replace(os.path.join(work_dir, name), os.path.join(final_dir, name))
    os.rmdir(work_dir)
    for p in plots:
        print("%-15s %s" % (p["kind"], os.path.join(final_dir, p["file"])))
    for s in skipped:
        print("%-15s not drawn: %s" % (s["kind"], s["reason"]))
    print("report          %s" % os.path.join(final_dir, os.path.basename(page)))
    return 0


KINDS = ["scaling", "breakdown", "comm_share", "bucket_size", "strategy", "data_loading",
         "bottleneck_map", "timeline", "link_heatmap"]


def draw(data, report_dir, point):
    """Draws every plot, plots.json and report.html into `report_dir`; returns (plots drawn,
    plots skipped with why, the page)."""

    plots, skipped = [], []
    makers = [
        ("scaling", plot_scaling),
        ("breakdown", plot_breakdown),
        ("comm_share", plot_comm_share),
        ("bucket_size", plot_bucket_size),
        ("strategy", plot_strategy),
        ("data_loading", plot_data_loading),
        ("bottleneck_map", plot_bottleneck),
        ("timeline", lambda d, o: plot_timeline(d, o, point)),
        ("link_heatmap", lambda d, o: plot_links(d, o, point)),
    ]
    assert [kind for kind, _ in makers] == KINDS
    for kind, make in makers:
        try:
            plots.append(make(data, report_dir))
        except Skip as why:
            skipped.append({"kind": kind, "reason": str(why)})
    best = data.best_point()
    manifest = {"scenario": data.scenario, "subject": data.subject(), "model": data.model,
                "best_point": best["point"] if best else None,
                "best_point_rule": ("largest size at or above %g %% scaling efficiency"
                                    % (100 * data.min_efficiency)) if data.is_scaling_sweep()
                else "highest throughput",
                "compute": data.compute_description(), "points": len(data.rows),
                "ok_points": len(data.ok), "plots": plots, "skipped": skipped}
    with open(os.path.join(report_dir, "plots.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    page = write_html(data, report_dir, plots, skipped)
    return plots, skipped, page


if __name__ == "__main__":
    sys.exit(main())
