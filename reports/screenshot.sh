#!/usr/bin/env bash
# Renders a qdt HTML report as a person would see it: headless Chromium takes
# a screenshot of the page. Installs Debian's chromium on first use (root).
#   reports/screenshot.sh FILE.html OUT.png [WIDTHxHEIGHT]
# WIDTHxHEIGHT is the window (default 1280x2000, a wide screen; 412x2400 is a
# phone). Only the first HEIGHT pixels of a long page are captured. The page
# is opened from the file system with the network switched off, so a report
# that needed anything from outside would show it missing.
set -euo pipefail
if [ $# -lt 2 ] || [ "$1" = "--help" ] || [ "$1" = "-h" ]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
  [ $# -ge 2 ] && exit 0 || exit 2
fi
page=$1
out=$2
size=${3:-1280x2000}
[ -f "$page" ] || { echo "error: $page: no such file" >&2; exit 2; }
[[ "$size" =~ ^[0-9]{2,5}x[0-9]{2,5}$ ]] || { echo "error: window size '$size' is not WIDTHxHEIGHT" >&2; exit 2; }
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "installing chromium (Debian package, once)..." >&2
  if [ "$(id -u)" != 0 ]; then echo "error: chromium is missing and installing it needs root" >&2; exit 2; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
  browser=$(command -v chromium)
fi
abs=$(cd "$(dirname "$page")" && pwd)/$(basename "$page")
# A file URL with the path percent-encoded: "#", "?" or "%" in a name stay part of it.
url=$(python3 -c 'import pathlib, sys; print(pathlib.Path(sys.argv[1]).as_uri())' "$abs")
mkdir -p "$(dirname "$out")"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# --proxy-server to nowhere: no network, so nothing external can load.
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
  --proxy-server=127.0.0.1:9 --window-size="${size/x/,}" --screenshot="$(realpath -m "$out")" "$url" \
  >/dev/null 2>"$profile/log" || { cat "$profile/log" >&2; exit 1; }
[ -s "$out" ] || { echo "error: chromium wrote no screenshot" >&2; cat "$profile/log" >&2; exit 1; }
echo "$out ($size) from $page"
