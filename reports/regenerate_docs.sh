#!/usr/bin/env bash
# Regenerates the report images committed under docs/images/ from the two bundled sweeps:
# runs each sweep into out/<name>, draws its report, copies the PNGs to docs/images/<name>/ and,
# when headless Chromium is installed, a screenshot of the rendered report.html; then the
# validation plot (docs/images/validation.png) from `ddpsim validate`.
#
#   reports/regenerate_docs.sh            # uses build/sim/ddpsim; DDPSIM=path overrides
set -euo pipefail
cd "$(dirname "$0")/.."
ddpsim=${DDPSIM:-build/sim/ddpsim}
[ -x "$ddpsim" ] || { echo "error: $ddpsim not built (see README: build first)" >&2; exit 1; }
# The point the timeline and the link heat map show: bucket-sweep-bert's default (its 256-GPU
# point) traces 33 GPUs; point 6 (8 nodes, 25 MiB buckets) keeps both legible in README.
declare -A point=([bucket-sweep-bert]=6)
for name in scaling-resnet50 bucket-sweep-bert; do
  echo "== $name"
  "$ddpsim" sweep "scenarios/$name.yaml" -o "out/$name" -j "$(nproc)"
  "$ddpsim" report "out/$name" ${point[$name]:+--point "${point[$name]}"}
  rm -rf "docs/images/$name"
  mkdir -p "docs/images/$name"
  cp "out/$name"/report/*.png "docs/images/$name/"
  if command -v chromium >/dev/null || command -v chromium-browser >/dev/null; then
    reports/render_html.sh "out/$name/report/report.html" \
      "docs/images/$name/report-screenshot.png"
  fi
done
# README's close-up of the timeline and the heat map: the part of the page between the
# bottleneck map's caption and the heat map's caption (pixel rows of the 1400-wide screenshot).
if [ -f docs/images/bucket-sweep-bert/report-screenshot.png ]; then
  /usr/bin/python3 - <<'PY'
from PIL import Image
path = "docs/images/bucket-sweep-bert/"
image = Image.open(path + "report-screenshot.png").convert("RGB")
image.crop((0, 3348, 1400, 4720)).save(path + "report-timeline-heatmap.png", optimize=True)
PY
fi
# The whole page as a reviewer sees it, at both ends: one 8-GPU node (data-loading.yaml) here,
# and the scaling sweep's page above, whose timeline is its 1,024-GPU point (summarised per node
# group). Screenshots quantised to 128 colours to keep the PNGs small.
if command -v chromium >/dev/null || command -v chromium-browser >/dev/null; then
  "$ddpsim" simulate scenarios/data-loading.yaml -o out/report-8-gpus >/dev/null
  "$ddpsim" report out/report-8-gpus >/dev/null
  reports/render_html.sh out/report-8-gpus/report/report.html docs/images/report-8-gpus.png
  /usr/bin/python3 - <<'PY'
import glob
from PIL import Image
for path in ["docs/images/report-8-gpus.png"] + glob.glob("docs/images/*/report-*.png"):
    Image.open(path).convert("RGB").quantize(colors=128).save(path, optimize=True)
PY
fi
echo "== validation"
"$ddpsim" validate -o out/validation -j "$(nproc)" >/dev/null
cp out/validation/validation.png docs/images/validation.png
