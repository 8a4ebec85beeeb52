"""report.html: every plot drawn for a sweep, with captions, what was swept, the plots that were
not drawn and why, the points as a table, and links to results.csv and the timeline's trace."""

import html
import os


def _rel(path, base):
    return os.path.relpath(path, base).replace(os.sep, "/")


def efficiency_text(row):
    """Scaling efficiency as shown; without a single-GPU run (--no-baseline) there is none."""
    if row.get("scaling_efficiency") is None or not row.get("single_gpu_samples_per_second"):
        return "not computed"
    return "%.1f %%" % (100 * row["scaling_efficiency"])


def headline_rate(row):
    """A point's headline samples/s: with a band, its median (p50 of the draws x the model's
    error, docs/model-error.md), else the nominal run's figure."""
    p50 = row.get("samples_per_second_p50")
    return row["samples_per_second"] if p50 is None else p50


def _points_table(data, limit=100):
    keys = [k for k in data.axis_keys() if len(data.axis_values(k)) > 1]
    bands = data.band_draws() is not None
    head = ["point"] + keys + ["GPUs", "samples/s"] + (["p10 - p90"] if bands else []) + [
        "efficiency", "step (ms)", "comm", "exposed", "bottleneck"]
    lines = ["<tr>%s</tr>" % "".join("<th>%s</th>" % html.escape(h) for h in head)]
    for r in data.rows[:limit]:
        cells = [str(r["point"])] + [str(r.get(k, "")) for k in keys] + [str(r["gpus"])]
        if r["status"] == "ok":
            cells += ["%.1f" % headline_rate(r)]
            if bands:
                cells += ["%.1f - %.1f" % (r["samples_per_second_p10"],
                                           r["samples_per_second_p90"])]
            cells += [efficiency_text(r),
                      "%.2f" % (1e3 * r["iteration_time_s"]),
                      "%.1f %%" % (100 * r["comm_share"]),
                      "%.1f %%" % (100 * r["exposed_comm_share"]), r["bottleneck"]]
        else:
            cells += [""] * (6 if bands else 5) + ["failed: " + r.get("error", "")]
        lines.append("<tr>%s</tr>" % "".join("<td>%s</td>" % html.escape(c) for c in cells))
    more = "" if len(data.rows) <= limit else "<p>... %d more points in results.csv</p>" % (
        len(data.rows) - limit)
    return "<table>%s</table>%s" % ("\n".join(lines), more)


def best_rule(data):
    """How the best point was chosen, in words."""
    if data.is_scaling_sweep():
        return ("the largest size with a scaling efficiency of at least %g %% (--min-efficiency)"
                % (100 * data.min_efficiency))
    return "highest throughput"


def best_text(data):
    best = data.best_point()
    if best is None:
        if data.ok and data.is_scaling_sweep():
            top = max(data.ok, key=lambda r: (r["scaling_efficiency"], -r["point"]))
            return ("none: no point reaches %g %% scaling efficiency (the most efficient, point "
                    "%d on %d GPUs, reaches %s)" % (100 * data.min_efficiency, top["point"],
                                                    top["gpus"], efficiency_text(top)))
        return "none: no point finished"
    where = data.point_label(best).replace("\n", ", ")
    text = "point %d (%s): %s samples/s" % (best["point"], where,
                                            "{:,.0f}".format(headline_rate(best)))
    if best.get("tokens_per_second"):
        text += ", %s tokens/s, MFU %.1f %%" % ("{:,.0f}".format(best["tokens_per_second"]),
                                                100 * best["mfu"])
    if efficiency_text(best) != "not computed":
        text += ", scaling efficiency " + efficiency_text(best)
    return text + ", " + best["bottleneck"]


def band_facts(data):
    """With bands: what they are and, for the best point, where its throughput lies; with a
    simulate --uncertainty result, the input that moves it most and what to measure."""
    if data.band_draws() is None:
        return []
    best = data.best_point() or max(data.ok, key=lambda r: (r["samples_per_second"],
                                                           -r["point"]))
    where = " (shaded in the scaling and strategy plots)" if len(data.ok) > 1 else ""
    facts = [("Band", "%s%s; best point: p10 %s - p90 %s samples/s" % (data.band_label(), where,
                                "{:,.0f}".format(best["samples_per_second_p10"]),
                                "{:,.0f}".format(best["samples_per_second_p90"])))]
    influences = best.get("_influences") or []
    if influences:
        top = influences[0]
        facts.append(("Top influence", "%s (%s): %s - %s samples/s at its low and high end; "
                      "measure: %s" % (top.get("label", top.get("input", "?")),
                                       top.get("input", "?"),
                                       "{:,.0f}".format(top["samples_per_second_low"]),
                                       "{:,.0f}".format(top["samples_per_second_high"]),
                                       top.get("measure", "?"))))
    return facts


def _facts(data):
    """What a reviewer needs before the first chart: which cluster, model, the best point, the
    ddpsim that computed it and when the results were written."""
    facts = [("Cluster", data.cluster_description()),
             ("Model", "%s; %s" % (data.model, data.compute_description())),
             ("Swept", data.swept_description() or "nothing: a single run"),
             ("Best point", best_text(data) + " (" + best_rule(data) + ")")] + band_facts(data) + [
             ("Scenario file", data.scenario),
             ("ddpsim", data.version()),
             ("Results written", data.results_date())]
    return '<table class="facts">%s</table>' % "".join(
        "<tr><th>%s</th><td>%s</td></tr>" % (html.escape(k), html.escape(v)) for k, v in facts)


def write_html(data, report_dir, plots, skipped):
    axes = "".join("<li><code>%s</code>: %s</li>" % (html.escape(k), html.escape(", ".join(v)))
                   for k, v in data.axes) or "<li>a single run (no sweep)</li>"
    csv_path = os.path.join(data.source_dir, "results.csv")
    links = []
    if os.path.isfile(csv_path):
        links.append('<a href="%s">results.csv</a>' % _rel(csv_path, report_dir))
    figures = []
    for p in plots:
        extra = ""
        if p.get("chrome_trace"):
            extra = (' The same step as a Chrome trace: <a href="%s">%s</a> (open it in '
                     '<a href="https://ui.perfetto.dev">Perfetto</a>).'
                     % (_rel(p["chrome_trace"], report_dir), os.path.basename(p["chrome_trace"])))
        figures.append('<figure id="%s"><img src="%s" alt="%s"><figcaption>%s%s</figcaption>'
                       '</figure>' % (p["kind"], p["file"], html.escape(p["title"]),
                                      html.escape(p["caption"]), extra))
    not_drawn = "".join("<li><b>%s</b>: %s</li>" % (html.escape(s["kind"]),
                                                     html.escape(s["reason"])) for s in skipped)
    failed = sum(1 for r in data.rows if r["status"] != "ok")
    total = data.manifest.get("points", len(data.rows))
    page = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>ddpsim report: {subject}</title>
<style>
body {{ font-family: sans-serif; max-width: 1300px; margin: 1em auto; color: #222; }}
figure {{ margin: 1.5em 0; }} img {{ max-width: 100%; border: 1px solid #ddd; }}
figcaption {{ font-size: 0.9em; color: #555; }}
table {{ border-collapse: collapse; font-size: 0.85em; }}
td, th {{ border: 1px solid #ccc; padding: 2px 6px; text-align: right; }}
code {{ background: #f4f4f4; }}
table.facts {{ font-size: 1em; margin-bottom: 0.5em; }}
table.facts th {{ text-align: left; background: #f4f4f4; }}
table.facts td {{ text-align: left; }}
</style></head><body>
<h1>ddpsim report: {subject}</h1>
{facts}
<p>{done} of {total} points simulated{failed}. {links}</p>
<h2>Swept</h2><ul>{axes}</ul>
{figures}
<h2>Not drawn</h2><ul>{not_drawn}</ul>
<h2>Points</h2>
{table}
<p><small>Generated by <code>ddpsim report</code> (reports/ddpsim_report.py).</small></p>
</body></html>
""".format(subject=html.escape(data.subject()), model=html.escape(data.model),
           facts=_facts(data), done=len(data.ok), total=total,
           failed=(", %d failed" % failed) if failed else "", links=" ".join(links), axes=axes,
           figures="\n".join(figures), not_drawn=not_drawn or "<li>none</li>",
           table=_points_table(data))
    path = os.path.join(report_dir, "report.html")
    with open(path, "w") as f:
        f.write(page)
    return path
