#!/usr/bin/env bash
# Names from input files render as text on every page and run nothing: a
# scenario whose queue, partition, key, name and description carry
# backquotes, $(...), @macros, <script>, quotes, newlines and NUL is rendered
# with replay --html and --report, swept by explore (as its base scenario),
# and a shard summary carrying them is merged into a campaign page
# (check --merge --html). Each hostile string would touch a marker file if any
# renderer handed it to gnuplot's command line or a shell; the check wants no
# marker, every page and inline SVG parsed by real parsers, no <script> or
# event handler, and the names present as text.
# Usage: check-hostile-names.sh QDT
set -uo pipefail
qdt=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL $*" >&2; [ -f "$tmp/stderr" ] && head -c 3000 "$tmp/stderr" >&2; exit 1; }
command -v gnuplot >/dev/null || fail "gnuplot is not installed (scripts/install-deps.sh installs gnuplot-nox)"
marker=$tmp/ran

python3 - "$tmp" "$marker" <<'PY'
import json, sys
d, marker = sys.argv[1], sys.argv[2]
def hostile(tag):
    return f"{tag}`touch {marker}`$(touch {marker})@x\"'<script>alert(1)</script>&amp;\n\u0000|*_\u202e\u2028\u2066\x1b[31m[l](javascript:x)"
q, p = hostile("q"), hostile("p")
scenario = {
    "name": hostile("name"),
    "description": hostile("description"),
    "seed": 1,
    "world": {"brokers": 1, "storage": {"path": ":memory:"}},
    "queues": {q: {"dedupWindowSeconds": 60}},
    "steps": [
        {"id": "push", "op": "push", "items": [{"queue": q, "partition": p, "transactionId": hostile("t"), "data": {"n": 1}}]},
        {"id": "again", "op": "push", "items": [{"queue": q, "partition": p, "transactionId": hostile("t"), "data": {"n": 1}}]},
        {"op": "advance", "seconds": 61},
        {"id": "read", "op": "read", "queue": q, "partition": p},
    ],
    # Wrong on purpose: the page then shows a failing step and the model's answer.
    "expect": {"again": [{"status": "queued"}]},
}
json.dump(scenario, open(d + "/hostile.json", "w"))
sweep = {"name": "hostile-sweep", "description": hostile("sweep"),
         "base": {"scenario": "hostile.json"},
         "vary": {"world.cache.budget_bytes": [256, 1048576], "steps.3.partition": [hostile("knob1"), hostile("knob2")]},
         "seeds": 2, "metrics": ["items"]}
json.dump(sweep, open(d + "/sweep.json", "w"))
PY

# Exit 1: the scenario runs and its (wrong) expectation fails; never 2 or a signal.
"$qdt" replay "$tmp/hostile.json" --html "$tmp/replay.html" --report "$tmp/replay.md" --quiet >"$tmp/stdout" 2>"$tmp/stderr"
code=$?
[ $code -eq 1 ] || fail "replay --html: exit $code, expected 1"
# The failing push's state view renders its hostile partition too.
grep -q "State at the failing steps" "$tmp/replay.html" || fail "replay --html: no state view of the failing step"
"$qdt" explore "$tmp/sweep.json" --out "$tmp/sweep" >"$tmp/stdout" 2>"$tmp/stderr"
code=$?
[ $code -le 1 ] || fail "explore: exit $code"

# A shard summary from another machine, its strings replaced by hostile ones.
"$qdt" check --seeds 3 --profile default --json --quiet >"$tmp/shard.json" 2>"$tmp/stderr" || fail "check --json"
python3 - "$tmp" "$marker" <<'PY'
import json, sys
d, marker = sys.argv[1], sys.argv[2]
s = json.load(open(d + "/shard.json"))
h = f"`touch {marker}`$(touch {marker})<script>alert(1)</script>\n\u0000"
s["seeds_run"] = s["seeds_run"] + 1
s["failed"] = s.get("failed", 0) + 1
s["seed_hashes"].append("default 999999 " + "00" * 16)
s["failures"].append({"profile": "default", "seed": 999999, "property": h, "detail": h,
                      "replay": "qdt replay " + h, "file": h})
json.dump(s, open(d + "/shard-hostile.json", "w"))
PY
"$qdt" check --merge "$tmp/shard-hostile.json" --html "$tmp/campaign.html" --quiet >"$tmp/stdout" 2>"$tmp/stderr"
code=$?
[ $code -eq 1 ] || fail "check --merge --html: exit $code, expected 1 (a failure merged)"

[ -e "$marker" ] && fail "a hostile name ran a command"

pages=("$tmp/replay.html" "$tmp/sweep/hostile-sweep.html" "$tmp/campaign.html")
python3 - "${pages[@]}" <<'PY' || exit 1
import html.parser, re, sys, xml.etree.ElementTree as ET
bad = False
for path in sys.argv[1:]:
    page = open(path, encoding="utf-8").read()
    class P(html.parser.HTMLParser):
        def __init__(self):
            super().__init__(); self.tags = []
        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)
            for k, v in attrs:
                if k.startswith("on"): raise SystemExit(f"FAIL {path}: event handler {k}")
    p = P(); p.feed(page); p.close()
    if "script" in p.tags: print(f"FAIL {path}: a <script> element"); bad = True
    if "<script>" in page: print(f"FAIL {path}: an unescaped <script>"); bad = True
    if "\x00" in page: print(f"FAIL {path}: a NUL byte"); bad = True
    for svg in re.findall(r"<svg.*?</svg>", page, re.S):
        try: ET.fromstring(svg)
        except ET.ParseError as e: print(f"FAIL {path}: an SVG does not parse: {e}"); bad = True
    if "&lt;script&gt;" not in page and "&lt;script>" not in page:
        print(f"FAIL {path}: the hostile name is not on the page as text"); bad = True
    print(f"ok {path.rsplit('/', 1)[-1]}: parses, {len(re.findall('<svg', page))} charts, names as text")
sys.exit(1 if bad else 0)
PY
# The charts were drawn (a name that broke the gnuplot script would leave none).
for page in "$tmp/replay.html" "$tmp/sweep/hostile-sweep.html"; do
  grep -q '<svg' "$page" || fail "$page: no chart ($(grep -o 'gnuplot[^<]\{0,160\}' "$page" | head -1))"
done
grep -q '`touch' "$tmp/replay.md" || fail "replay.md lacks the hostile name as text"
# A Markdown table row stays one row: no raw newline or unescaped | from a name.
python3 - "$tmp/replay.md" <<'PY' || exit 1
import sys
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith("|") and not line.rstrip("\n").endswith("|"):
        sys.exit(f"FAIL replay.md: a table row broken by a name: {line[:120]!r}")
print("ok replay.md: table rows intact")
PY
# No bidirectional control, line separator or terminal escape from a name
# reaches a page, a report or the terminal raw (reports/display_text.h).
python3 - "${pages[@]}" "$tmp/replay.md" "$tmp/sweep/hostile-sweep.md" "$tmp/stdout" <<'PY' || exit 1
import re, sys
hidden = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
bad = False
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8", errors="replace").read()
    m = hidden.search(text)
    if m: print(f"FAIL {path}: a raw U+{ord(m.group()):04X} at {m.start()}"); bad = True
    else: print(f"ok {path.rsplit('/', 1)[-1]}: no raw control or bidirectional character")
sys.exit(1 if bad else 0)
PY
echo "ok: nothing ran"
