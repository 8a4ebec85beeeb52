#!/usr/bin/env bash
# Renders a report.html to a PNG screenshot in headless Chromium (Debian package `chromium`), to
# check what a reader of the page sees without opening a browser.
#
#   reports/render_html.sh out/scaling-resnet50/report/report.html [screenshot.png] [WIDTHxHEIGHT]
#
# Default screenshot: next to the page, report-screenshot.png; default window 1400x6000.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 REPORT.html [SCREENSHOT.png] [WIDTHxHEIGHT]" >&2
  exit 2
fi
page=$(realpath "$1")
shot=$(realpath -m "${2:-$(dirname "$page")/report-screenshot.png}")
size=${3:-1400x6000}
[ -f "$page" ] || { echo "error: $1: no such file" >&2; exit 2; }
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "error: headless Chromium not found; install the Debian package: apt-get install chromium" >&2
  exit 1
fi
# A throwaway profile: no first-run state, nothing left in $HOME.
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
  --user-data-dir="$profile" --window-size="${size/x/,}" --screenshot="$shot" \
  "file://$page" >/dev/null 2>&1
[ -s "$shot" ] || { echo "error: Chromium wrote no screenshot" >&2; exit 1; }
echo "$shot"
