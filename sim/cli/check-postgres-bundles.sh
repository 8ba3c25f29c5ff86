#!/usr/bin/env bash
# Bundles on PostgreSQL (docs/semantics.md §9.5): the scenarios of
# scenarios/postgres/ pass with the same trace hashes in two processes; the
# profile bundles passes; variant bundle-unordered-locks deadlocks where two
# bundles take the same rows in opposite orders and nowhere else, and a
# campaign catches it by deadlock-free; SQLite refuses all of it (exit 2).
# Usage: check-postgres-bundles.sh QDT SOURCE_DIR
set -uo pipefail
# shellcheck source=sim/cli/postgres-script-env.sh
source "$(dirname "$0")/postgres-script-env.sh"
dir=$src/scenarios/postgres
verdicts() { sed -n 's/^\(PASS\|FAIL\) \([^ ]*\)  trace \([0-9a-f]*\).*/\2 \1 \3/p' | sort; }

for run in 1 2; do
  timeout 120 "$qdt" replay "$dir" --storage postgres >"$tmp/out$run" 2>"$tmp/err" || fail "run $run: $(cat "$tmp/out$run")"
  verdicts <"$tmp/out$run" >"$tmp/v$run"
done
[ "$(wc -l <"$tmp/v1")" -eq 3 ] || fail "expected 3 scenarios: $(cat "$tmp/v1")"
cmp -s "$tmp/v1" "$tmp/v2" || fail "another process gave other hashes: $(diff "$tmp/v1" "$tmp/v2")"

# The variant: a cycle only when two bundles take p0 and p2 in opposite orders.
timeout 60 "$qdt" replay "$dir/bundles-in-opposite-orders.json" --storage postgres --variant bundle-unordered-locks \
  >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "deadlock-free" "$tmp/out" || fail "opposite orders under the variant: $(cat "$tmp/out")"
timeout 60 "$qdt" replay "$dir/bundles-in-one-order.json" --storage postgres --variant bundle-unordered-locks \
  --quiet >"$tmp/out" 2>"$tmp/err" || fail "one order under the variant: $(cat "$tmp/out")"

# Campaigns: the reference passes the profile; the variant is caught and shrunk.
timeout 240 "$qdt" check --storage postgres --profile bundles --seeds 40 --jobs 2 --quiet --coverage >"$tmp/out" 2>"$tmp/err" ||
  fail "profile bundles: $(head -3 "$tmp/out")"
grep -q "^  coverage: " "$tmp/out" || fail "no coverage line"
grep "^  coverage: " "$tmp/out" | grep -q "broker.bundle_pushed" && fail "no bundle was pushed: $(grep coverage "$tmp/out")"
timeout 240 "$qdt" check --storage postgres --profile bundles --variant bundle-unordered-locks --seed 188 --seeds 1 \
  --quiet --out "$tmp/caught" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "deadlock-free" "$tmp/out" || fail "bundle-unordered-locks not caught at seed 188: $(head -3 "$tmp/out")"

# probe-outside-lock has no transaction to probe in inside a bundle: the
# bundles profile refuses it before anything runs, and profile all runs
# every other profile (it used to reach an assertion).
timeout 60 "$qdt" check --storage postgres --profile bundles --variant probe-outside-lock --seeds 1 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "profile bundles's bundles do not have" "$tmp/err" || fail "probe-outside-lock on profile bundles"
timeout 300 "$qdt" check --storage postgres --profile all --variant probe-outside-lock --seeds 2 --json --quiet \
  >"$tmp/out" 2>"$tmp/err"
code=$?
[ $code -le 1 ] || fail "probe-outside-lock on profile all exited $code"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["seeds_run"] > 0, s' "$tmp/out" ||
  fail "probe-outside-lock on profile all ran nothing"

# SQLite refuses bundles, the profile and the variant, running nothing.
"$qdt" replay "$dir/bundles.json" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "needs per-partition row locks" "$tmp/err" || fail "SQLite ran a bundle"
"$qdt" check --profile bundles --seeds 1 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "profile bundles needs per-partition row locks" "$tmp/err" || fail "SQLite ran profile bundles"
"$qdt" replay "$src/scenarios/basic-duplicate.json" --variant bundle-unordered-locks >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "run it with --storage postgres" "$tmp/err" || fail "SQLite ran bundle-unordered-locks"
echo "ok"
