#!/usr/bin/env bash
# A campaign writes its page by default, beside its journal and failures
# (OUT/campaign.html), and prints where; --no-html writes none; --json keeps
# stdout JSON and says where on stderr; a page that cannot be written is an
# error (exit 2). scripts/write-index.sh links the pages present, only those.
# Usage: check-campaign-page.sh QDT SOURCE_DIR
set -uo pipefail
qdt=$(readlink -f "$1")
src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$qdt" check --seeds 5 --quiet --out "$out/a" >"$out/a.txt" 2>&1 || { cat "$out/a.txt" >&2; fail "a passing campaign"; }
[ -f "$out/a/campaign.html" ] || fail "no page at OUT/campaign.html"
[ "$(tail -1 "$out/a.txt")" = "page: $out/a/campaign.html" ] || { cat "$out/a.txt" >&2; fail "the last line does not say where the page is"; }
grep -q '<span class="pass">PASS</span>' "$out/a/campaign.html" || fail "the page's verdict"

# Without --out, beside the failures' default folder, relative to where qdt runs.
mkdir "$out/cwd" && (cd "$out/cwd" && "$qdt" check --seeds 3 --quiet >"$out/cwd.txt" 2>&1) || fail "a campaign without --out"
[ -f "$out/cwd/reports/out/failures/campaign.html" ] || fail "no page in reports/out/failures"
grep -qx "page: reports/out/failures/campaign.html" "$out/cwd.txt" || fail "the default page's path"

"$qdt" check --seeds 3 --quiet --no-html --out "$out/b" >"$out/b.txt" 2>&1 || fail "--no-html"
[ ! -e "$out/b/campaign.html" ] || fail "--no-html wrote a page"
! grep -q "^page:" "$out/b.txt" || fail "--no-html printed a page line"

"$qdt" check --seeds 3 --quiet --json --out "$out/c" >"$out/c.json" 2>"$out/c.err" || fail "--json"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out/c.json" || fail "--json: stdout is not JSON alone"
grep -qx "page: $out/c/campaign.html" "$out/c.err" || fail "--json: the page line is not on stderr"

# --resume writes the page of the whole campaign.
"$qdt" check --resume "$out/a" --quiet >"$out/r.txt" 2>&1 || { cat "$out/r.txt" >&2; fail "--resume"; }
grep -qx "page: $out/a/campaign.html" "$out/r.txt" || fail "--resume: no page line"

# Both flags: bad usage, nothing run.
"$qdt" check --seeds 3 --html "$out/x.html" --no-html >/dev/null 2>&1
[ $? -eq 2 ] || fail "--html with --no-html must exit 2"
# A page that cannot be written is an error, never a silent success.
mkdir -p "$out/d/campaign.html"
"$qdt" check --seeds 3 --quiet --out "$out/d" >"$out/d.txt" 2>&1
[ $? -eq 2 ] || fail "an unwritable page must exit 2"
grep -q "^error: --html" "$out/d.txt" || fail "no reason for the unwritable page"

# A failing campaign's page leads with its groups: the rule in words, the
# seeds and profiles, the smallest shrunk scenario, its replay command and its story.
"$qdt" check --seeds 6 --variant trust-local-hit --max-shrinks 2 --quiet --out "$out/f" >"$out/f.txt" 2>&1
[ $? -eq 1 ] || fail "a failing campaign must exit 1"
python3 - "$out/f/campaign.html" "$out/f" <<'PY' || exit 1
import html.parser, re, sys
text = open(sys.argv[1]).read()
class Parse(html.parser.HTMLParser):
    pass
Parse().feed(text)
groups, table = text.find('<h2 id="groups">What failed</h2>'), text.find('<h2 id="failures">Every failing seed</h2>')
assert 0 < groups < table, "the groups do not lead the failures"
head = re.search(r'<h3>(\d+) seeds?: <code>([a-z-]+/[a-z-]+)[^<]*</code></h3>', text[groups:table])
assert head and int(head.group(1)) >= 1, "no group header naming a rule id"
section = text[groups:table]
assert "smallest shrunk scenario" in section and "replay it" in section, "no shrunk scenario or replay line"
assert f"qdt replay {sys.argv[2]}/" in section, "the replay command is not the group's file"
assert "<h4>The story of default seed" in section, "the smallest failure's story is not told in its group"
PY

# The main job's index: the pages present, linked, and nothing else.
mkdir "$out/reports" && cp "$out/a/campaign.html" "$out/reports/" && echo "# r" >"$out/reports/replay.md"
bash "$src/scripts/write-index.sh" "$out/reports" || fail "write-index.sh"
python3 - "$out/reports/index.html" <<'PY' || exit 1
import html.parser, sys
class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.links = []
    def handle_starttag(self, tag, attrs):
        if tag == "a": self.links.append(dict(attrs)["href"])
p = Links(); p.feed(open(sys.argv[1]).read())
assert p.links == ["campaign.html", "replay.md"], p.links
PY
echo PASS
