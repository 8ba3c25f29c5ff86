#!/usr/bin/env bash
# Reachability coverage from the command line (sim/scenario/coverage.h):
#  1. the reference reaches every point of sim/scenario/coverage_required.txt over
#     --profile all --seeds SEEDS (exit 0, nothing missing in --json);
#  2. a campaign too small to reach them exits 1 and names what it missed;
#  3. a required list naming an unknown point is bad input: exit 2, nothing run;
#  4. --merge rejects a summary whose coverage is broken, with its JSON path.
#   check-coverage.sh QDT WORKDIR [SEEDS]
set -uo pipefail
qdt="$1"
work="$2"
seeds="${3:-300}"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$qdt" check --profile all --seeds "$seeds" --jobs 2 --require-coverage --quiet --json --out "$work/full" >"$work/full.json"
rc=$?
[ $rc -eq 0 ] || fail "the reference over --profile all --seeds $seeds: exit $rc, expected 0"
python3 - "$work/full.json" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
r = s["coverage_report"]
assert s["coverage_missing"] == [], s["coverage_missing"]
assert r["reached"] >= 40, r["reached"]
assert all(row["seeds"] <= s["seeds_run"] for row in r["by_point"])
print(f"ok: {r['reached']} of {r['points']} points reached over {s['seeds_run']} seeds; never reached: {r['never_reached']}")
PY

"$qdt" check --profile default --seeds 2 --require-coverage --quiet >"$work/small.out" 2>"$work/small.err"
rc=$?
[ $rc -eq 1 ] || fail "two seeds of default with --require-coverage: exit $rc, expected 1"
grep -q "required point(s) never reached" "$work/small.err" || fail "no list of the missed points on stderr"
grep -q "cache.evicted_during_hydration" "$work/small.err" || fail "the missed points are not named"

printf 'cache.vouched\ncache.no_such_point\n' >"$work/bad.txt"
"$qdt" check --seeds 2 --require-coverage --coverage-list "$work/bad.txt" --out "$work/never" >"$work/bad.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "an unknown point in --coverage-list: exit $rc, expected 2"
grep -q "line 2: cache.no_such_point" "$work/bad.out" || fail "the bad line is not named: $(cat "$work/bad.out")"
[ ! -e "$work/never" ] || fail "bad input wrote $work/never"

python3 - "$work/full.json" "$work/broken.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["coverage"]["default"]["points"]["cache.vouched"] = s["coverage"]["default"]["seeds"] + 1
json.dump(s, open(sys.argv[2], "w"))
PY
"$qdt" check --merge "$work/broken.json" >"$work/merge.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "--merge of a broken coverage: exit $rc, expected 2"
grep -q "/coverage/default/points/cache.vouched" "$work/merge.out" || fail "no JSON path: $(cat "$work/merge.out")"
echo "ok: coverage command line"
