#!/usr/bin/env bash
# Every page kind laid out by headless Chromium in a 1280 px window: no
# table may be wider than its scrolling box (a column hidden behind a
# scrollbar), the page must give the screen's width to its content rather
# than to margins, and chart text must show at 12 px or more. Pages: a
# failing replay (timeline, model's answer), a failing campaign, the variant
# catalogue and a sweep. A copy of each page
# gets a probe script that writes what it measured into the DOM Chromium dumps;
# the pages themselves carry no script. Exits 77 (skipped) without chromium.
# Usage: check-page-width.sh QDT
set -euo pipefail
qdt=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "chromium is not installed (reports/screenshot.sh installs it): skipped" >&2; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failing=$here/scenarios/regress/cache-trust-local-hit-false-duplicate-after-window.json

set +e  # failing runs exit 1 by design; the pages are checked below
"$qdt" replay "$failing" --variant trust-local-hit --html "$out/replay.html" --quiet >/dev/null 2>&1
"$qdt" check --variant skip-probe --seeds 6 --jobs 2 --max-shrinks 2 --out "$out/failures" --html "$out/check.html" \
  --quiet >/dev/null 2>&1
"$qdt" mutants --seeds 20 --profile default --variant skip-probe --variant stamp-before-lock --variant purge-below-floor \
  --out "$out/mutants" --report "$out/mutants" --quiet >/dev/null 2>&1
"$qdt" explore "$here/scenarios/sweeps/cache-budget.json" --jobs 2 --out "$out/sweep" >/dev/null 2>&1
set -e

probe='<script>
const clipped = [...document.querySelectorAll(".scroll")].filter(d => d.scrollWidth > d.clientWidth + 1)
  .map(d => [...d.querySelectorAll("th")].map(t => t.textContent).join("|"));
document.body.setAttribute("data-clipped", JSON.stringify(clipped));
document.body.setAttribute("data-main", String(document.querySelector("main").clientWidth));
let smallest = 1000;  // the smallest chart text as shown: its size in the SVG times the scale of its SVG
for (const svg of document.querySelectorAll("figure svg")) {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  for (const t of svg.querySelectorAll("text")) smallest = Math.min(smallest, parseFloat(getComputedStyle(t).fontSize) * scale);
}
document.body.setAttribute("data-font", smallest.toFixed(1));
</script>'
status=0
for page in replay.html check.html mutants.html sweep/cache-budget.html; do
  [ -s "$out/$page" ] || { echo "FAIL: $page was not written" >&2; status=1; continue; }
  probed=$out/probed-$(basename "$page")
  python3 -c 'import sys; s = open(sys.argv[1]).read(); open(sys.argv[2], "w").write(s.replace("</body>", sys.argv[3] + "</body>"))' \
    "$out/$page" "$probed" "$probe"
  profile=$(mktemp -d -p "$out")
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
    --proxy-server=127.0.0.1:9 --window-size=1280,900 --dump-dom "file://$probed" >"$out/dom" 2>/dev/null
  python3 - "$page" "$out/dom" <<'EOF' || status=1
import html, json, re, sys
page, dom = sys.argv[1], open(sys.argv[2]).read()
body = re.search(r'<body data-clipped="([^"]*)" data-main="(\d+)" data-font="([\d.]+)"', dom)
if not body:
    sys.exit(f"FAIL: {page}: the probe did not run")
clipped, main, font = json.loads(html.unescape(body.group(1))), int(body.group(2)), float(body.group(3))
if font < 12:
    sys.exit(f"FAIL: {page}: chart text is shown at {font} px at 1280 px; 12 px is the least that reads")
if clipped:
    sys.exit(f"FAIL: {page}: at 1280 px these tables are clipped behind a scrollbar: {clipped}")
# 1280 less a scrollbar and the body's padding on both sides.
if main < 1180:
    sys.exit(f"FAIL: {page}: the content is {main} px wide in a 1280 px window; the rest is margin")
print(f"ok {page}: no table clipped, content {main} px wide, chart text at least {font} px")
EOF
done
exit "$status"
