#!/usr/bin/env bash
# qdt's own fixtures through --cache-impl (docs/semantics.md §10): the sound
# cache passes a short campaign of every profile with both callers; its holed
# twin is caught by a property (exit 1), shrunk to a scenario whose replay
# line names the module and fails again as printed, and promote runs on the
# module it names; the summary counts the module's calls; the same digest
# with 1 and 2 jobs and the same trace hash in two processes; volume seeds
# cross the module's capacities (reach points volume.foreign_*); shards merge
# keeping their module and refuse to mix modules; qdt bench measures it;
# a C library through --cache-lib passes. Skips (77) only when no rustc is
# installed at all.
# Usage: check-foreign-cache.sh QDT SOURCE_DIR C_WHOLE
set -uo pipefail
qdt=$(realpath "$1")
src=$(realpath "$2")
lib_whole=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$tmp/err" >&2 2>/dev/null; exit 1; }
# shellcheck source=sim/cli/foreign-cache-script-env.sh
source "$(dirname "$0")/foreign-cache-script-env.sh"
digest() { sed -n 's/.*digest \([0-9a-f]*\).*/\1/p' "$1" | head -1; }

for caller in shipped reference; do
  timeout 120 "$qdt" check --cache-impl "$sound" --cache-caller $caller --profile all --seeds 8 --jobs 2 --quiet \
    --out "$tmp/sound-$caller" >"$tmp/out" 2>"$tmp/err" || fail "the sound fixture failed with the $caller caller"
  grep -qF ", 0 failed;" "$tmp/out" || fail "no '0 failed' ($caller)"
done
# The module vouched (it is not sound by never answering).
timeout 60 "$qdt" check --cache-impl "$sound" --profile default --seeds 5 --quiet --coverage >"$tmp/out" 2>"$tmp/err" ||
  fail "coverage run"
grep -qE "^ *cache\.foreign_vouched +[1-9]" "$tmp/out" || fail "the sound fixture never vouched"
# The summary counts the module's calls, not qdt's own idle cache.
grep -qE "; foreign cache: [1-9][0-9]* calls, [1-9][0-9]* vouched of [1-9][0-9]* answers" "$tmp/out" ||
  fail "the summary's cache line does not count the foreign module's calls: $(grep -F 'probes run' "$tmp/out")"

timeout 120 "$qdt" check --cache-impl "$holed" --profile multi-broker --seeds 20 --jobs 2 --quiet --max-shrinks 1 \
  --out "$tmp/holed" --html "$tmp/page.html" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "the holed twin was not caught (exit 1 expected)"
grep -qF "ran on the cache module $holed/server/src/dedup.rs" "$tmp/out" || fail "the summary does not name the module"
grep -qF "<dt>cache module</dt><dd><code>$holed/server/src/dedup.rs</code>" "$tmp/page.html" || fail "the page does not name the module"
grep -qE "FAIL multi-broker seed [0-9]+: (model-agreement|no-double-write|cache-transparency|client-visible)" "$tmp/out" ||
  fail "no property named the hole"
line=$(grep -m1 "^    qdt replay" "$tmp/out" | sed 's/^    qdt //')
[ -n "$line" ] || fail "no replay line"
case "$line" in *"--cache-impl $holed/server/src/dedup.rs"*) ;; *) fail "the replay line does not name the module: $line" ;; esac
eval "set -- $line"
timeout 60 "$qdt" "$@" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "the shrunk failure did not fail again as printed: $line"
grep -qF "ran on the cache module $holed/server/src/dedup.rs" "$tmp/out" || fail "the replay does not name the module it ran"

# promote takes the module too: the holed one fails its own failure; on the
# sound one the regression is written and its printed replay names the module.
failure=$(ls "$tmp/holed"/*.json | grep -v /journal | head -1)
mkdir -p "$tmp/regress"
timeout 60 "$qdt" promote "$failure" hole --dir "$tmp/regress" --cache-impl "$holed" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "promote on the holed module did not refuse (exit 1 expected)"
grep -qF "on the cache module $holed/server/src/dedup.rs" "$tmp/err" || fail "promote's refusal does not name the module"
timeout 60 "$qdt" promote "$failure" hole --dir "$tmp/regress" --cache-impl "$sound" >"$tmp/out" 2>"$tmp/err" ||
  fail "promote on the sound module"
grep -qF -- "--cache-impl $sound/server/src/dedup.rs" "$tmp/out" || fail "promote's replay line does not name the module"

# Determinism: the same digest with 1 and 2 jobs, the same trace hash in two processes.
timeout 120 "$qdt" check --cache-impl "$sound" --profile multi-broker --seeds 12 --jobs 1 --quiet >"$tmp/j1" 2>"$tmp/err" || fail "jobs 1"
timeout 120 "$qdt" check --cache-impl "$sound" --profile multi-broker --seeds 12 --jobs 2 --quiet >"$tmp/j2" 2>"$tmp/err" || fail "jobs 2"
[ -n "$(digest "$tmp/j1")" ] && [ "$(digest "$tmp/j1")" = "$(digest "$tmp/j2")" ] || fail "digests differ: 1 job $(digest "$tmp/j1"), 2 jobs $(digest "$tmp/j2")"
timeout 120 "$qdt" check --profile multi-broker --seeds 12 --jobs 1 --quiet >"$tmp/builtin" 2>"$tmp/err" || fail "built-in"
[ "$(digest "$tmp/builtin")" != "$(digest "$tmp/j1")" ] || fail "a foreign cache's trace does not name it"
for run in 1 2; do
  timeout 60 "$qdt" replay "$src/scenarios" --cache-impl "$sound" --quiet >"$tmp/replay$run" 2>"$tmp/err" || fail "scenarios on the sound fixture"
done
cmp -s "$tmp/replay1" "$tmp/replay2" || fail "trace hashes differ between two processes"

# Volume (docs/semantics.md §10.4): multi-broker's volume seeds cross the module's capacities.
timeout 120 "$qdt" check --cache-impl "$sound" --profile multi-broker --seeds 60 --jobs 2 --quiet --coverage \
  >"$tmp/out" 2>"$tmp/err" || fail "volume seeds on the sound fixture"
for point in asked_thousand_hashes hydrated_thousand_hashes taught_thousand_hashes taught_run_in_one_window; do
  grep -qE "^ *volume\.foreign_$point +[1-9]" "$tmp/out" || fail "no volume seed reached volume.foreign_$point"
done

# Shards merge with their module recorded; shards of another module, of
# another caller or of qdt's own cache are refused naming the file.
for shard in 0 1; do
  timeout 60 "$qdt" check --cache-impl "$sound" --profile default --seeds 6 --shard $shard/2 --quiet --json \
    >"$tmp/shard$shard.json" 2>"$tmp/err" || fail "shard $shard/2"
done
timeout 60 "$qdt" check --profile default --seeds 6 --shard 1/2 --quiet --json >"$tmp/own1.json" 2>"$tmp/err" || fail "own shard"
timeout 60 "$qdt" check --cache-impl "$sound" --cache-caller reference --profile default --seeds 6 --shard 1/2 --quiet \
  --json >"$tmp/ref1.json" 2>"$tmp/err" || fail "reference shard"
timeout 60 "$qdt" check --merge "$tmp/shard0.json" "$tmp/shard1.json" --json >"$tmp/merged.json" 2>"$tmp/err" || fail "merge"
sound_hash=$(sed -n 's/.*"content_xxh128": "\([0-9a-f]*\)".*/\1/p' "$tmp/shard0.json" | head -1)
[ -n "$sound_hash" ] || fail "a shard's summary does not record its module"
grep -qF "\"content_xxh128\": \"$sound_hash\"" "$tmp/merged.json" || fail "the merged summary dropped the cache module"
timeout 60 "$qdt" check --merge "$tmp/shard0.json" "$tmp/shard1.json" >"$tmp/out" 2>"$tmp/err" || fail "merge as text"
grep -qF "ran on the cache module $sound/server/src/dedup.rs (xxh128 $sound_hash), shipped caller" "$tmp/out" ||
  fail "the merged text summary does not name the module"
for other in own1 ref1; do
  timeout 60 "$qdt" check --merge "$tmp/shard0.json" "$tmp/$other.json" >"$tmp/out" 2>"$tmp/err"
  [ $? -eq 2 ] || fail "shards of $other merged with the sound module's (exit 2 expected)"
  grep -qF "$tmp/$other.json: /cache_module: ran " "$tmp/err" || fail "the refusal does not name $other.json"
done
timeout 60 "$qdt" check --merge "$tmp/shard0.json" "$tmp/shard1.json" --cache-impl "$holed" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "a merge naming another module than its shards ran was accepted"

# qdt bench's cache figures on the module, beside qdt's own cache (figures only, never a duration).
timeout 300 "$qdt" bench --quick --only cache --cache-impl "$sound" --json >"$tmp/bench.json" 2>"$tmp/err" || fail "bench --only cache"
python3 - "$tmp/bench.json" <<'PY' || fail "the bench's cache figures"
import json, sys
figures = {f["name"]: f for f in json.load(open(sys.argv[1]))["figures"]}
for name in ("foreign_cache_call_ns", "foreign_cache_push_ns", "seeds_per_s.default_builtin_cache", "seeds_per_s.default_foreign_cache",
             "foreign_cache_ratio.default"):
    assert figures[name]["value"] > 0, name
assert "--cache-impl" in figures["seeds_per_s.default_foreign_cache"]["command"]
PY

timeout 120 "$qdt" check --cache-lib "$lib_whole" --profile all --seeds 4 --jobs 2 --quiet >"$tmp/out" 2>"$tmp/err" ||
  fail "the C library failed"
echo "PASS"
