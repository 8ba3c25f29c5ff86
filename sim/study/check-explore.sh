#!/usr/bin/env bash
# qdt explore end to end on a tiny sweep (sim/testdata/sweeps/tiny.json):
# runs it with --jobs 1 and --jobs 2 into temp folders, requires identical
# JSON but for wall_s, and checks with real parsers that the JSON has every
# point, the Markdown a table per metric, and that the HTML page (html.parser)
# and every inline SVG (xml.etree.ElementTree) parse, with no script and no
# external reference; then that without gnuplot the page says so and keeps
# the tables. Usage: check-explore.sh QDT
set -euo pipefail
qdt=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
sweep=$here/sim/testdata/sweeps/tiny.json
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v gnuplot >/dev/null || { echo "gnuplot is not installed (scripts/install-deps.sh installs gnuplot-nox)" >&2; exit 1; }
QDT_COMMIT=0123abc "$qdt" explore "$sweep" --out "$out/one" --quiet
"$qdt" explore "$sweep" --out "$out/two" --jobs 2 2>"$out/progress"
grep -q '^\[8/8\]' "$out/progress" || { echo "FAIL: no done/total progress on stderr" >&2; cat "$out/progress" >&2; exit 1; }
QDT_GNUPLOT=/nonexistent/gnuplot "$qdt" explore "$sweep" --out "$out/nognuplot" --quiet >/dev/null
python3 - "$out" <<'PY'
import html.parser, json, re, sys, xml.etree.ElementTree as ET
out = sys.argv[1]
one = json.load(open(f"{out}/one/tiny.json"))
two = json.load(open(f"{out}/two/tiny.json"))
assert one.get("commit") == "0123abc", "QDT_COMMIT is recorded"
for d, name in ((one, "one"), (two, "two")):
    assert isinstance(d.pop("wall_s"), (int, float))
    assert d.pop("command").endswith(f"tiny.json --out {out}/{name}"), "the command regenerates the files where they are"
one.pop("commit")
assert one == two, "the JSON differs between --jobs 1 and --jobs 2"
metrics = ["sidecar_rows_scanned", "cache.vouched", "virtual_duration_ms"]
assert [m["name"] for m in one["metrics"]] == metrics
assert len(one["points"]) == 4 and one["runs"] == 8, one["runs"]
seen = set()
for p in one["points"]:
    seen.add((p["knobs"]["world.cache.budget_bytes"], p["knobs"]["queues.*.dedupWindowSeconds"]))
    assert p["runs"] == 2 and p["seeds"] == [1, 2]
    for m in metrics:
        a, raw = p["metrics"][m], p["raw"][m]
        assert len(raw) == 2 and a["min"] == min(raw) and a["max"] == max(raw), (m, a, raw)
        assert abs(a["mean"] - sum(raw) / 2) <= 1e-5 * max(1, abs(sum(raw) / 2)), "the mean, to 6 significant digits"
assert seen == {(2048, 60), (2048, 3600), (1048576, 60), (1048576, 3600)}, seen

md = open(f"{out}/one/tiny.md").read()
for m in metrics:
    assert re.search(rf"^## {re.escape(m)} \(", md, re.M), f"no table for {m}"
# A knob's path is escaped for Markdown (its * would open emphasis).
assert md.count("| point | queues.\\*.dedupWindowSeconds | world.cache.budget_bytes | mean | min | max | failures |") == 3
assert len([l for l in md.splitlines() if re.match(r"^\| \d+ \|", l)]) == 12

page = open(f"{out}/one/tiny.html").read()
class Check(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.tags = []
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            assert not (k in ("src", "href") and v and re.match(r"(https?:)?//", v)), f"external reference {k}={v}"
c = Check(); c.feed(page); c.close()
assert "script" not in c.tags and "link" not in c.tags and "img" not in c.tags, "not self-contained"
assert c.tags.count("table") == 3 and "title" in c.tags and "meta" in c.tags
svgs = re.findall(r"<svg\b.*?</svg>", page, re.S)
assert len(svgs) == 6, f"{len(svgs)} charts, expected 2 knobs x 3 metrics"
for svg in svgs:
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    texts = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
    assert " by " in texts, "a chart without its title"
assert page.count("<figcaption>") == 6
assert "0123abc" in page
# The tables carry the JSON's numbers.
p0 = one["points"][0]
assert f"<td>{json.dumps(p0['metrics']['sidecar_rows_scanned']['mean'])}</td>" in page

bare = open(f"{out}/nognuplot/tiny.html").read()
assert "gnuplot is not installed" in bare and "<svg" not in bare and bare.count("<table>") == 3
print(f"tiny sweep: {len(one['points'])} points, {one['runs']} runs, {len(svgs)} charts parse; identical for --jobs 1 and 2")
PY

# --variant runs every point against a design variant, over the file's: the
# tiny sweep passes on the reference and fails (exit 1, still written) under
# trust-local-hit; an unknown variant is bad usage and writes nothing.
code=0
"$qdt" explore "$sweep" --out "$out/variant" --variant trust-local-hit --quiet >/dev/null || code=$?
[ $code -eq 1 ] || { echo "FAIL: --variant trust-local-hit exited $code, expected 1" >&2; exit 1; }
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['variant']=='trust-local-hit' and d['failures']>0 and '--variant trust-local-hit' in d['command'], d['variant']" "$out/variant/tiny.json"
code=0
"$qdt" explore "$sweep" --out "$out/badvariant" --variant nope --quiet >/dev/null 2>&1 || code=$?
[ $code -eq 2 ] && [ ! -e "$out/badvariant" ] || { echo "FAIL: --variant nope exited $code or wrote files" >&2; exit 1; }
echo "explore --variant: caught under trust-local-hit, unknown names exit 2"
