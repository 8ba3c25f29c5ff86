#!/usr/bin/env bash
# A variant campaign never passes on seeds that did not run the variant's
# change (docs/semantics.md §7). Every variant's listed profile reaches the
# points its change sits on (qdt mutants --list), and a campaign on a profile
# that does not says "untested", exits 1 and prints a command that does.
# Usage: check-variant-reach.sh QDT [postgres]: with postgres, the
# variants only PostgreSQL can run, on a cluster of its own.
set -uo pipefail
qdt=$1
storage=()
[ "${2:-}" = postgres ] && storage=(--storage postgres)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$qdt" mutants --list --json >"$out/list.json" || fail "qdt mutants --list --json"
tried=0
while read -r variant profile; do
  if [ ${#storage[@]} -gt 0 ]; then
    case "$variant" in no-row-lock | bundle-unordered-locks) ;; *) continue ;; esac
  fi
  "$qdt" check --variant "$variant" --profile "$profile" --seeds 30 --max-shrinks 0 --quiet --json \
    --out "$out/$variant" "${storage[@]}" >"$out/$variant.json" 2>"$out/$variant.err"
  code=$?
  if [ $code -eq 2 ]; then
    # Only a refusal of the engine, never another exit 2, is a skip.
    grep -q "run it with --storage postgres" "$out/$variant.err" && [ ${#storage[@]} -eq 0 ] && continue
    cat "$out/$variant.err" >&2
    fail "$variant on $profile exited 2"
  fi
  python3 - "$out/$variant.json" "$variant" "$profile" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
v, p = sys.argv[2], sys.argv[3]
e = s.get("variant_exercise")
if e is None:
    sys.exit(f"FAIL: {v} on {p}: the summary has no variant_exercise")
if not e["every_push"] and e["seeds_reaching"] == 0:
    sys.exit(f"FAIL: {v}'s profile {p} reached none of {e['points']} in 30 seeds: the table in sim/scenario/variant_reach.cpp is wrong")
if "untested" in s:
    sys.exit(f"FAIL: {v} on {p} was exercised but the summary says untested")
PY
  tried=$((tried + 1))
done < <(python3 -c '
import json, sys
for v in json.load(open(sys.argv[1])): print(v["variant"], v["profile"])' "$out/list.json")
echo "$tried variants reached on their profiles"
[ $tried -ge 2 ] || fail "only $tried variants tried"
[ ${#storage[@]} -eq 0 ] || exit 0

# Negative: stale-window on default never changes a window.
"$qdt" check --variant stale-window --seeds 20 --quiet --out "$out/untested" >"$out/untested.txt" 2>&1
code=$?
[ $code -eq 1 ] || { cat "$out/untested.txt" >&2; fail "an untested variant campaign exited $code, expected 1"; }
grep -q "^  untested: no seed ran stale-window's change (0 of 20 seeds reached window.widened" "$out/untested.txt" ||
  { cat "$out/untested.txt" >&2; fail "no untested line"; }
# The line after it is a command, alone, that runs as printed and exercises the variant.
command=$(grep -A1 "^  untested:" "$out/untested.txt" | tail -1 | sed 's/^ *//')
case "$command" in "qdt check --profile reconfigure --seeds 20 --variant stale-window --out "*) ;;
  *) fail "the printed command is '$command'" ;; esac
mkdir -p "$out/bin" && ln -s "$(readlink -f "$qdt")" "$out/bin/qdt"
(cd "$out" && PATH="$out/bin:$PATH" bash -c "$command --quiet --max-shrinks 0" >"$out/again.txt" 2>&1)
code=$?
[ $code -le 1 ] || { cat "$out/again.txt" >&2; fail "the printed command exited $code"; }
! grep -q "^  untested:" "$out/again.txt" || { cat "$out/again.txt" >&2; fail "the printed command is untested too"; }
# --json: the field and the reason on stderr.
"$qdt" check --variant stale-window --seeds 20 --quiet --json --out "$out/untested-json" --html "$out/u.html" \
  >"$out/u.json" 2>"$out/u.err"
[ $? -eq 1 ] || fail "--json: expected exit 1"
# The page's verdict is the exit code's, never PASS.
grep -q '<h1>qdt check: default <span class="fail">UNTESTED</span></h1>' "$out/u.html" || fail "the page's verdict"
grep -q '<p class="fail">untested: no seed ran' "$out/u.html" || fail "the page does not say why"
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s["untested"].startswith("untested: no seed ran stale-window"), s.get("untested")
assert s["variant_exercise"]["seeds_reaching"] == 0 and s["variant_exercise"]["profile"] == "reconfigure"' "$out/u.json" ||
  fail "--json summary"
grep -q "^untested: " "$out/u.err" || fail "--json: no reason on stderr"
echo "PASS"
