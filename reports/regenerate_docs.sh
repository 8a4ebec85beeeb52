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
for name in scaling-resnet50 bucket-sweep-bert; do
  echo "== $name"
  "$ddpsim" sweep "scenarios/$name.yaml" -o "out/$name" -j "$(nproc)"
  "$ddpsim" report "out/$name"
  rm -rf "docs/images/$name"
  mkdir -p "docs/images/$name"
  cp "out/$name"/report/*.png "docs/images/$name/"
  if command -v chromium >/dev/null || command -v chromium-browser >/dev/null; then
    reports/render_html.sh "out/$name/report/report.html" \
      "docs/images/$name/report-screenshot.png"
  fi
done
echo "== validation"
"$ddpsim" validate -o out/validation -j "$(nproc)" >/dev/null
cp out/validation/validation.png docs/images/validation.png
