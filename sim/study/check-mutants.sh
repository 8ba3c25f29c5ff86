#!/usr/bin/env bash
# qdt mutants end to end: --list names the whole catalogue of docs/semantics.md §7; a few
# variants are each caught, with a shrunk file that fails under the variant
# and passes on the reference; the results are the same for --jobs 1 and 2
# (wall times aside); the shipped variants come with their thresholds and
# threshold replay files; bad usage exits 2. Usage: check-mutants.sh QDT [SEEDS]
set -uo pipefail
qdt=$1
seeds=${2:-60}
variants=(skip-probe queue-scope last-wins fresh-id-on-duplicate)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# --list: every variant of docs/semantics.md §7 (and skip-probe), once, with a description.
"$qdt" mutants --list >"$out/list.txt" || fail "qdt mutants --list exited $?"
"$qdt" mutants --list --json >"$out/list.json" || fail "qdt mutants --list --json exited $?"
python3 - "$out/list.txt" "$out/list.json" <<'PY' || fail "--list"
import json, sys
spec = """skip-probe probe-outside-lock queue-scope bloom-filter watermark-off-by-one no-expire-before-verify
plain-set stale-window purge-below-floor last-wins fresh-id-on-duplicate trust-local-hit stamp-before-lock
span-hydration shipped-expiry shipped-meta-ttl no-window-guard sidecar-with-segment no-row-lock
bundle-unordered-locks keep-cache-on-reconnect merge-read-after-reset""".split()
rows = [l.split()[0] for l in open(sys.argv[1]).read().splitlines()[1:] if l and not l.startswith(" ")]
listed = json.load(open(sys.argv[2]))
assert sorted(rows) == sorted(spec), ("text", sorted(set(rows) ^ set(spec)))
assert [v["variant"] for v in listed] == rows, "text and JSON lists differ"
for v in listed:
    assert v["description"], v
    assert v["harmless"] == ("argument" in v), v
PY

args=(--seeds "$seeds" --json --quiet)
for v in "${variants[@]}"; do args+=(--variant "$v"); done
"$qdt" mutants "${args[@]}" --jobs 2 --out "$out/a" >"$out/a.json"
code=$?
[ $code -eq 0 ] || { cat "$out/a.json" >&2; fail "qdt mutants exited $code, expected 0 (every variant caught)"; }
python3 - "$out/a.json" "${variants[@]}" <<'PY' >"$out/caught.txt" || fail "report"
import json, os, sys
r = json.load(open(sys.argv[1]))
want = sys.argv[2:]
assert sorted(v["variant"] for v in r["variants"]) == sorted(want), r["variants"]
assert r["survivors"] == [] and r["holes"] == [], (r["survivors"], r["holes"])
for v in r["variants"]:
    assert v["caught"] and v["verdict"] == "caught", v
    assert 1 <= v["seeds_run"] <= v["seeds_total"], v
    assert v["property"] and v["profile"] in r["profiles"] and v["seed"] >= 1, v
    assert v["file_written"] and os.path.isfile(v["file"]) and v["steps"] >= 1, v
    assert v["replay"] == "qdt replay %s --variant %s" % (v["file"], v["variant"]), v
    print(v["variant"], v["file"], v["property"], v["seeds_run"], v["steps"])
PY
while read -r variant file property seeds_run steps; do
  "$qdt" replay "$file" --variant "$variant" --quiet >/dev/null
  [ $? -eq 1 ] || fail "$file does not fail under --variant $variant"
  "$qdt" replay "$file" --quiet >/dev/null || fail "$file fails on the reference implementation"
  echo "ok: $variant caught by $property within $seeds_run seeds, $steps steps, replays"
done <"$out/caught.txt"

# The same results for any --jobs: only wall times and the output folder differ.
"$qdt" mutants "${args[@]}" --jobs 1 --out "$out/b" >"$out/b.json" || fail "qdt mutants --jobs 1 exited $?"
python3 - "$out/a.json" "$out/b.json" "$out/a" "$out/b" <<'PY' || fail "--jobs 1 and --jobs 2 differ"
import json, sys
def norm(path, folder):
    r = json.load(open(path))
    text = json.dumps(r, sort_keys=True).replace(folder + "/", "OUT/").replace(folder, "OUT")
    r = json.loads(text)
    r.pop("wall_s")
    for v in r["variants"]: v.pop("wall_s")
    return r
a, b = norm(sys.argv[1], sys.argv[3]), norm(sys.argv[2], sys.argv[4])
assert a == b, (a, b)
PY
for v in "${variants[@]}"; do
  for f in "$out/a/$v"/*.json; do
    cmp -s "$f" "$out/b/$v/$(basename "$f")" || fail "shrunk files differ between --jobs 1 and 2: $f"
  done
done

# The shipped design's holes: with shipped-expiry and shipped-meta-ttl selected
# the report gives, per family setting, the threshold found by bisection, its
# run count and a replay file that fails under the variant and passes on the
# reference; the table prints the same.
holes=(--variant shipped-expiry --variant shipped-meta-ttl --seeds "$seeds" --quiet --jobs 2 --out "$out/h")
"$qdt" mutants "${holes[@]}" --json >"$out/h.json" || { cat "$out/h.json" >&2; fail "qdt mutants (shipped variants) exited $?"; }
python3 - "$out/h.json" <<'PY' >"$out/thresholds.txt" || fail "thresholds in the report"
import json, os, sys
r = json.load(open(sys.argv[1]))
got = {}
for v in r["variants"]:
    ts = v["thresholds"]
    assert ts, v["variant"]
    for t in ts:
        assert t["found"] == t["expect_found"] and t["evaluations"] >= 1, t
        got.setdefault(v["variant"], []).append(t)
        if not t["found"]:
            continue
        assert t["verified"] and t["file_written"] and os.path.isfile(t["file"]), t
        assert os.path.dirname(t["file"]) == os.path.join(r["out_dir"], v["variant"]), t
        assert t["replay"] == "qdt replay %s --variant %s" % (t["file"], v["variant"]), t
        print(v["variant"], t["file"], t["knob"], t["value"])
assert sorted(got) == ["shipped-expiry", "shipped-meta-ttl"], got
assert len(got["shipped-expiry"]) == 4 and len(got["shipped-meta-ttl"]) == 2, got
PY
while read -r variant file knob value; do
  "$qdt" replay "$file" --variant "$variant" --quiet >/dev/null
  [ $? -eq 1 ] || fail "threshold file $file does not fail under --variant $variant"
  "$qdt" replay "$file" --quiet >/dev/null || fail "threshold file $file fails on the reference implementation"
  echo "ok: $variant $knob $value, $file replays"
done <"$out/thresholds.txt"
mkdir -p "$out/rep"
"$qdt" mutants "${holes[@]}" --report "$out/rep/catalogue" >"$out/h.txt" || fail "qdt mutants (shipped variants, table) exited $?"
# --report: the catalogue page parses (html.parser, every SVG with ElementTree),
# is self-contained, links every replay file relative to the page, and has a
# row per threshold; the Markdown and JSON beside it agree.
python3 - "$out/rep" <<'PY' || fail "--report"
import html.parser, json, os, re, sys, xml.etree.ElementTree as ET
rep = sys.argv[1]
doc = json.load(open(f"{rep}/catalogue.json"))
assert doc["command"].startswith("qdt mutants ") and "--report" in doc["command"], doc["command"]
page = open(f"{rep}/catalogue.html").read()
class Check(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.tags = []; self.links = []
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            assert not k.startswith("on"), k
            if k in ("href", "src"):
                assert not re.match(r"(https?:)?//", v or ""), v
                self.links.append(v)
c = Check(); c.feed(page); c.close()
assert not {"script", "link", "img", "iframe"} & set(c.tags), "not self-contained"
thresholds = [t for v in doc["variants"] for t in v.get("thresholds", [])]
files = [t["file"] for t in thresholds if t["file_written"]] + [v["file"] for v in doc["variants"] if v.get("file_written")]
assert len(c.links) == len(files) >= 7, (c.links, files)
for link in c.links:
    assert os.path.isfile(os.path.join(rep, link)), f"the link {link} does not resolve from the page"
assert page.count("skew_ms = ") == 4 and page.count("delay_ms = ") == 2, "a row per threshold"
svgs = re.findall(r"<svg\b.*?</svg>", page, re.S)
assert len(svgs) == 3, f"{len(svgs)} charts: scenarios until caught, shrunk size, the skew threshold over the age"
for svg in svgs:
    ET.fromstring(svg)
md = open(f"{rep}/catalogue.md").read()
assert md.count("| `shipped-expiry` | repeat_age_ms=") == 4, md
PY
"$qdt" mutants --variant last-wins --seeds 2 --quiet --out "$out/x" --report "$out/no/such/folder/cat" >/dev/null 2>"$out/err.txt"
[ $? -eq 2 ] && grep -q "no folder" "$out/err.txt" && [ ! -e "$out/x" ] || fail "--report into a missing folder must exit 2 and run nothing"
grep -q "where the shipped design's holes bite" "$out/h.txt" || fail "the table has no thresholds section"
[ "$(grep -c ": skew_ms = " "$out/h.txt")" -eq 4 ] || fail "the table does not print the four skew thresholds"
grep -q "shipped-meta-ttl traffic_interval_ms=1000: delay_ms = " "$out/h.txt" || fail "the table does not print the delay threshold"

# Bad usage: exit 2 and a message.
for bad in "--variant nope" "--variant none" "--profile nope" "--seeds 0" "--jobs x" "--frobnicate"; do
  # shellcheck disable=SC2086
  "$qdt" mutants $bad --quiet >/dev/null 2>"$out/err.txt"
  code=$?
  [ $code -eq 2 ] || fail "qdt mutants $bad exited $code, expected 2"
  [ -s "$out/err.txt" ] || fail "qdt mutants $bad printed no message"
done
echo "ok: qdt mutants"
