#!/usr/bin/env bash
# qdt promote FAILURE NAME: a shrunk failure becomes DIR/NAME.json with the
# reference's answers as expect and a description to fill in; it passes as
# printed and still fails under the variant; an existing file is never
# overwritten; a NAME with a slash, a space or shell characters, a failure
# the reference also fails, or a missing folder write nothing.
# Usage: check-promote.sh QDT SOURCE_DIR
set -uo pipefail
qdt=$(realpath "$1")
src=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$tmp/err" >&2 2>/dev/null; exit 1; }
export PATH="$(dirname "$qdt"):$PATH"
# expect CODE CMD...: CMD exits CODE.
expect() {
  local code=$1
  shift
  timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [ $got -eq "$code" ] || fail "exit $got, expected $code: $*"
}

expect 1 qdt check --seeds 1 --variant skip-probe --out "$tmp/fail ures" --quiet
failure=$(ls "$tmp/fail ures"/*.json | head -1)
dir="$tmp/re gress"
mkdir -p "$dir"
expect 0 qdt promote "$failure" skip-probe-repeat --dir "$dir"
file="$dir/skip-probe-repeat.json"
python3 - "$file" <<'PY' || fail "the promoted file"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["name"] == "skip-probe-repeat", d["name"]
assert d["description"].startswith("FILL IN"), d["description"]
assert d["expect"], "no expect block"
# What the reference stored, so the file also fails when a write goes astray.
assert d["expect"].get("stored"), ("no stored counts", d["expect"])
assert all(isinstance(n, int) and n >= 0 for n in d["expect"]["stored"].values()), d["expect"]["stored"]
PY
# It passes on the reference as printed, and fails under the variant that broke it.
line=$(sed -n '/^  it passes on the reference:$/{n;s/^    //;p}' "$tmp/out")
[ -n "$line" ] || fail "no replay command printed: $(cat "$tmp/out")"
(cd "$tmp" && bash -c "$line" >/dev/null 2>&1) || fail "the printed command did not pass: $line"
expect 1 qdt replay "$file" --variant skip-probe
# Never overwritten.
before=$(cat "$file")
expect 2 qdt promote "$failure" skip-probe-repeat --dir "$dir"
grep -qF "already exists" "$tmp/err" || fail "no reason for refusing to overwrite"
[ "$(cat "$file")" = "$before" ] || fail "the existing file changed"
# Names that are not one plain file name write nothing.
for name in 'a/b' 'a b' '$(touch x)' '.hidden' '-x' 'x.json' "it's" ''; do
  expect 2 qdt promote "$failure" "$name" --dir "$dir"
done
[ "$(ls "$dir" | wc -l)" -eq 1 ] || fail "a refused name wrote a file: $(ls "$dir")"
# A failure file naming world.variant: the regression runs the reference
# (the variant dropped), and the printed variant line fails as printed.
expect 0 qdt promote "$src/sim/testdata/power/keep-cache-on-reconnect-double-write.json" lost --dir "$dir"
python3 - "$dir/lost.json" <<'PY' || fail "the promoted file of a variant's failure"
import json, sys
d = json.load(open(sys.argv[1]))
assert "variant" not in d.get("world", {}), d.get("world")
assert d["expect"], "no expect block"
PY
line=$(sed -n '/^  it passes on the reference:$/{n;s/^    //;p}' "$tmp/out")
(cd "$tmp" && bash -c "$line" >/dev/null 2>&1) || fail "the reference line did not pass: $line"
line=$(sed -n '/^  world.variant keep-cache-on-reconnect was dropped; it fails under the variant:$/{n;s/^    //;p}' "$tmp/out")
[ -n "$line" ] || fail "no variant line printed: $(cat "$tmp/out")"
(cd "$tmp" && bash -c "$line" >/dev/null 2>&1; [ $? -eq 1 ]) || fail "the variant line did not fail: $line"
rm "$dir/lost.json"
# From a repository root, the default folder, and the line that registers its ctest.
mkdir -p "$tmp/root/scenarios/regress"
(cd "$tmp/root" && timeout 120 qdt promote "$failure" cache-gap >"$tmp/out" 2>"$tmp/err") || fail "promote from a root"
[ -f "$tmp/root/scenarios/regress/cache-gap.json" ] || fail "not written to scenarios/regress"
grep -qF "scenario.regress.cache-gap" "$tmp/out" && grep -qF "QDT_REGRESSIONS" "$tmp/out" \
  || fail "no ctest named: $(cat "$tmp/out")"
(cd "$tmp" && timeout 120 qdt promote "$failure" elsewhere >"$tmp/out" 2>"$tmp/err")
[ $? -eq 2 ] && grep -qF "no such folder" "$tmp/err" || fail "a missing folder was not refused and named"
echo "ok"
