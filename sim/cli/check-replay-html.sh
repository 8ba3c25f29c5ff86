#!/usr/bin/env bash
# qdt replay --html and qdt check --html end to end: renders a failing replay
# (a regression scenario under the variant it catches, exit 1), a passing
# one (exit 0) and a small failing campaign under --jobs 2 (exit 1), then
# checks with real parsers that each page (html.parser) and every inline SVG
# (xml.etree.ElementTree) parse, that nothing is fetched or run (no script,
# link, img, iframe, external href or src), that the failing step's rows are
# highlighted and the model's answer shown, and that a passing page
# highlights nothing, and that a lost-response-and-retry failure's chart
# draws the window, the lost response and both attempts; then that --html with two scenarios exits 2 and writes
# nothing, and that without gnuplot the page says so and keeps its tables.
# Usage: check-replay-html.sh QDT
set -euo pipefail
qdt=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v gnuplot >/dev/null || { echo "gnuplot is not installed (scripts/install-deps.sh installs gnuplot-nox)" >&2; exit 1; }
failing=$here/scenarios/regress/cache-trust-local-hit-false-duplicate-after-window.json
passing=$here/scenarios/basic-duplicate.json

expect_exit() {  # CODE COMMAND...: runs COMMAND, which must exit CODE
  local want=$1; shift
  set +e; "$@" >"$out/stdout" 2>"$out/stderr"; local got=$?; set -e
  [ "$got" = "$want" ] || { echo "FAIL: exit $got, expected $want: $*" >&2; cat "$out/stdout" "$out/stderr" >&2; exit 1; }
}

QDT_COMMIT=0123abc expect_exit 1 "$qdt" replay "$failing" --variant trust-local-hit --html "$out/failing.html" --quiet
expect_exit 0 "$qdt" replay "$passing" --html "$out/passing.html" --quiet
expect_exit 1 "$qdt" replay "$here/scenarios/lost-response-retry.json" --variant skip-probe --html "$out/retry.html" --quiet
expect_exit 1 "$qdt" check --variant trust-local-hit --seeds 6 --jobs 2 --max-shrinks 2 --out "$out/failures" \
  --html "$out/check.html" --quiet
QDT_GNUPLOT=/nonexistent/gnuplot expect_exit 1 "$qdt" replay "$failing" --variant trust-local-hit \
  --html "$out/nognuplot.html" --quiet

# Bad usage: one page is one run.
expect_exit 2 "$qdt" replay "$failing" "$passing" --html "$out/two.html"
grep -q -- "--html takes exactly one scenario" "$out/stderr" || { echo "FAIL: no clear error for two scenarios" >&2; exit 1; }
expect_exit 2 "$qdt" replay "$here/scenarios/regress" --html "$out/folder.html"
[ ! -e "$out/two.html" ] && [ ! -e "$out/folder.html" ] || { echo "FAIL: bad usage wrote a page" >&2; exit 1; }
"$qdt" replay --help | grep -- "--html" >/dev/null || { echo "FAIL: replay --help does not show --html" >&2; exit 1; }
"$qdt" check --help | grep -- "--html" >/dev/null || { echo "FAIL: check --help does not show --html" >&2; exit 1; }

python3 - "$out" <<'PY'
import html.parser, re, sys, xml.etree.ElementTree as ET
out = sys.argv[1]

class Page(html.parser.HTMLParser):
    """Tags, and the text of every <tr> with its class."""
    def __init__(self):
        super().__init__(); self.tags = []; self.rows = []; self.row = None; self.text = []
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        a = dict(attrs)
        for k, v in attrs:
            if k in ("src", "href") and v is not None:
                assert v.startswith("#"), f"external reference {k}={v}"
            assert not k.startswith("on"), f"an event handler attribute {k}"
        if tag == "tr":
            self.row = [a.get("class", ""), ""]
    def handle_endtag(self, tag):
        if tag == "tr" and self.row is not None:
            self.rows.append(tuple(self.row)); self.row = None
    def handle_data(self, data):
        self.text.append(data)
        if self.row is not None:
            self.row[1] += data + "|"

def parse(name):
    text = open(f"{out}/{name}").read()
    p = Page(); p.feed(text); p.close()
    for bad in ("script", "link", "img", "iframe", "object", "embed"):
        assert bad not in p.tags, f"{name}: <{bad}> makes it not self-contained"
    assert "title" in p.tags and "meta" in p.tags and "style" in p.tags, name
    assert 'name="viewport"' in text, f"{name}: no viewport (phone) meta"
    svgs = re.findall(r"<svg\b.*?</svg>", text, re.S)
    for svg in svgs:
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg")
        labels = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
        assert re.search(r"virtual time \((ms|s|min|h) since the run began\)", labels) and "offset" in labels, f"{name}: a chart without its axes"
    return text, p, svgs

# The failing replay: the repeat's row highlighted, the model's answer beside what the client saw.
text, p, svgs = parse("failing.html")
assert len(svgs) == 1, f"{len(svgs)} charts in the failing replay"
assert "FAIL" in text and "0123abc" in text and "trust-local-hit" in text
assert "qdt replay " in text and "--variant trust-local-hit" in text, "no replay command"
hl = [r for c, r in p.rows if c == "hl"]
assert any(r.startswith("repeat|push|") for r in hl), f"the failing step's timeline row is not highlighted: {hl}"
assert any(r.startswith("repeat|") and "duplicate" in r and "queued: no message of key a within the 60 s window" in r
           for r in hl), f"no model's answer row for the failing step: {hl}"
assert "The model's answer" in "".join(p.text)
assert not any(r.startswith("orig|push|") for r in hl), "a passing step is highlighted"
assert any(c == "part" for c, _ in p.rows), "the failing partition's events are not marked"
assert "model-agreement" in text and "client-visible" in text

# The retry story: the window as a band, the lost response as a span, each attempt labelled.
text, p, svgs = parse("retry.html")
labels = " ".join(t.text or "" for t in ET.fromstring(svgs[0]).iter() if t.tag.endswith("text"))
for want in ("orders/Default dedup window (3600 s)", "faults", "attempt 1: response lost",
             "p1 attempt 1: response lost", "p1 attempt 2: queued", "attempts of retried pushes"):
    assert want in labels, f"retry.html: the chart does not show {want!r}: {labels}"

# The passing replay highlights nothing.
text, p, svgs = parse("passing.html")
assert len(svgs) == 1 and "PASS" in text
assert not [r for r in p.rows if r[0] in ("hl", "part")], "a passing run has highlighted rows"

# The campaign: counts, digest, and each shrunk failure's timeline with its highlighted step.
text, p, svgs = parse("check.html")
assert "campaign digest" in text and "trust-local-hit" in text
sections = re.findall(r'<section id="failure-(\d+)">', text)
assert sections, "no failure timeline on the campaign page"
assert len(svgs) == len(sections), (len(svgs), len(sections))
for i in sections:
    assert f'href="#failure-{i}"' in text
assert text.count("<h5>The model&#39;s answer</h5>") == len(sections)
assert [r for c, r in p.rows if c == "hl"], "no highlighted rows on a failing campaign page"

# Without gnuplot: said so, tables kept.
text, p, svgs = parse("nognuplot.html")
assert not svgs and "gnuplot is not installed" in text and text.count("<table>") >= 3
print(f"replay pages parse; campaign page with {len(sections)} failure timelines; bad usage wrote nothing")
PY
