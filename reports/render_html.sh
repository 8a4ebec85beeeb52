#!/usr/bin/env bash
# Renders a report.html to a PNG screenshot in headless Chromium (Debian package `chromium`), to
# check what a reader of the page sees without opening a browser.
#
#   reports/render_html.sh out/scaling-resnet50/report/report.html [screenshot.png] [WIDTHxHEIGHT]
#
# Default screenshot: next to the page, report-screenshot.png; default window 1400x16000, tall
# enough for a whole report page. Chromium's --screenshot captures the window, not the page, so
# the window is taken taller than the page and the empty rows below the page's last content are
# cut off (with Debian's python3-pil where /usr/bin/python3 imports it): the PNG is the whole page.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 REPORT.html [SCREENSHOT.png] [WIDTHxHEIGHT]" >&2
  exit 2
fi
page=$(realpath "$1")
shot=$(realpath -m "${2:-$(dirname "$page")/report-screenshot.png}")
size=${3:-1400x16000}
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
if /usr/bin/python3 -c 'import PIL' 2>/dev/null; then
  /usr/bin/python3 - "$shot" <<'PY'
import sys
from PIL import Image, ImageChops
path = sys.argv[1]
image = Image.open(path).convert("RGB")
background = Image.new("RGB", image.size, image.getpixel((image.width - 1, image.height - 1)))
box = ImageChops.difference(image, background).getbbox()
if box:
    bottom = min(image.height, box[3] + 24)  # keep a small margin below the last content
    if bottom < image.height:
        image.crop((0, 0, image.width, bottom)).save(path, optimize=True)
    elif image.height > 1000:
        print(f"warning: the page may be taller than the {image.height}-pixel window; "
              "give a taller WIDTHxHEIGHT", file=sys.stderr)
PY
fi
echo "$shot"
