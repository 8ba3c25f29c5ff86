#!/usr/bin/env bash
# qdt bench --quick end to end: the JSON names the commit and the machine and
# holds every figure of docs/semantics.md §4, each a positive number (rows
# scanned with the cache on may be 0) with a unit and a reproduction command
# that is a qdt command line; --out writes bench.json and the push-cost
# chart; the table prints a row per figure; --help and a bad --only behave.
# And the unchecked switch changes no trace: qdt check --unchecked has the
# checked campaign's digest. Never a duration: benchmarks measure, this test
# checks shape. --case and --rounds narrow the items group. Usage: check-bench.sh QDT
set -euo pipefail
qdt=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$qdt" bench --help | grep -- '--quick' >/dev/null
if "$qdt" bench --only nonsense >/dev/null 2>&1; then echo "FAIL: a bad --only must exit 2" >&2; exit 1; fi
# The cache group measures a foreign cache: without one it refuses (exit 2).
set +e; "$qdt" bench --only cache >/dev/null 2>"$out/err"; code=$?; set -e
[ $code -eq 2 ] && grep -qF -- "--cache-impl" "$out/err" || { echo "FAIL: --only cache without a module: exit $code" >&2; exit 1; }
"$qdt" bench --quick --json --out "$out/files" >"$out/bench.json" 2>"$out/progress"
grep -q '^\[bench\]' "$out/progress" || { echo "FAIL: no progress on stderr" >&2; exit 1; }
"$qdt" bench --quick --only window >"$out/table.txt" 2>/dev/null
grep -q '^rows_scanned_ratio.off_over_on ' "$out/table.txt" || { echo "FAIL: the table has no row per figure" >&2; cat "$out/table.txt" >&2; exit 1; }
grep -q 'commit .* machine ' "$out/table.txt" || { echo "FAIL: the table names no commit and machine" >&2; exit 1; }
python3 - "$out" "$qdt" <<'PY'
import json, os, sys, xml.etree.ElementTree as ET
out, qdt = sys.argv[1], sys.argv[2]
doc = json.load(open(f"{out}/bench.json"))
assert doc == json.load(open(f"{out}/files/bench.json")), "--out writes the document printed"
assert isinstance(doc["commit"], str) and doc["commit"], "no commit"
assert doc["machine"]["cpu"] and doc["machine"]["cores"] >= 1, "no machine"
assert doc["quick"] is True
figures = {f["name"]: f for f in doc["figures"]}
profiles = ["default", "retry-storm", "window-edge", "retention", "reconfigure", "skew", "multi-broker",
            "cache-pressure", "swarm", "storage-faults", "power-loss"]
required = ["items_per_s.batch1", "items_per_s.batch10", "items_per_s.batch1_cold", "items_per_s.batch10_cold", "items_per_s.batch1_checked",
            "items_per_s.batch1_median", "items_per_s.batch10_median",
            "items_per_s.batch10_checked", "checked_cost.items", "check_share.batch1",
            "virtual_s_per_wall_s.batch1", "virtual_s_per_wall_s.default",
            "seeds_per_s.default_unchecked", "checked_cost.campaign",
            "seeds_per_s.default_jobs1", "seeds_per_s.default_jobs2", "jobs_speedup.2_over_1",
            "seeds_per_cpu_s.default_jobs1", "seeds_per_cpu_s.default_jobs2", "jobs_cpu_efficiency.2_over_1",
            "rows_scanned_per_push.cache_on", "rows_scanned_per_push.cache_off", "rows_scanned_ratio.off_over_on",
            "pushes_per_s.cache_on", "pushes_per_s.cache_off", "pushes_ratio.on_over_off",
            "pushes_per_s.cache_on_checked", "checked_cost.window",
            "cache_bytes_per_hash.accounted", "cache_bytes_per_hash.heap",
            "push_us.cache_on_1000", "push_us.cache_off_1000", "push_us.cache_on_10000", "push_us.cache_off_10000",
            "push_cost_growth.cache_on", "push_cost_growth.cache_off",
            "peak_rss_mb.check", "peak_rss_mb.bench",
            "floor_items_per_s.batch1", "floor_items_per_s.batch10", "floor_seeds_per_s.default",
            "floor_us_per_seed.default", "floor_checkers_us_per_seed.default",
            "floor_with_checkers_seeds_per_s.default", "floor_with_checkers_items_per_s.batch1",
            "floor_with_checkers_items_per_s.batch10", "floor_generation_us_per_seed.default",
            "floor_with_generation_seeds_per_s.default"] + [f"seeds_per_s.{p}" for p in profiles] + [
            f"{figure}.{p}" for p in ("cache-pressure", "multi-broker")
            for figure in ("volume_cost_ratio", "volume_growth_4x")] + [
            f"us_per_item.{p}_{kind}" for p in ("cache-pressure", "multi-broker") for kind in ("ordinary", "volume")]
missing = [n for n in required if n not in figures]
assert not missing, f"figures missing: {missing}"
for name, f in figures.items():
    v = f["value"]
    assert isinstance(v, (int, float)), f"{name}: not a number"
    if name == "rows_scanned_per_push.cache_on":
        assert v >= 0, f"{name}: negative"
    else:
        assert v > 0, f"{name}: {v} is not positive"
    assert f["unit"], f"{name}: no unit"
    assert f["command"].startswith(qdt + " "), f"{name}: the command {f['command']!r} is not a qdt command line"
    assert (f["target"] is None) == (f["met"] is None), f"{name}: a target without a verdict"
# Sanity beyond positivity: what the figures mean.
assert figures["rows_scanned_per_push.cache_off"]["value"] >= 10000, "cache off probes the whole 10 000-row window"
assert figures["items_per_s.batch1"]["command"].endswith("bench --only items --quick")
assert "--seeds" in figures["seeds_per_s.default"]["command"]
# The storage floor replayed the runs' transactions (a replay that answered
# otherwise voids the bench, exit 1). Whether the floor runs faster than the
# whole simulation is a measurement, never asserted here: under the
# sanitizers the world's own code slows and SQLite's does not, and the CI run
# of 1381334 failed on exactly that comparison.
import re
for floor in ["floor_items_per_s.batch1", "floor_items_per_s.batch10", "floor_seeds_per_s.default"]:
    m = re.search(r"(\d+) storage transactions", figures[floor]["note"])
    assert m and int(m.group(1)) > 0, f"{floor}: the note names no replayed transactions: {figures[floor]['note']!r}"
# Alternated campaign figures are each side's fastest run of those their
# note lists (two turns with --quick).
for name in ["seeds_per_s.default", "seeds_per_s.default_unchecked", "seeds_per_s.default_jobs1",
             "seeds_per_s.default_jobs2"]:
    m = re.search(r"the fastest of 2 runs \(([0-9.]+), ([0-9.]+)\)", figures[name]["note"])
    assert m, figures[name]["note"]
    assert abs(figures[name]["value"] - max(float(m.group(1)), float(m.group(2)))) <= 0.051, figures[name]
# The speedup is the ratio of the two sides' fastest runs; its note lists
# the turns' own ratios (two turns with --quick: neither of them is the
# speedup unless both sides' fastest runs fell in one turn).
speedup = figures["jobs_speedup.2_over_1"]
assert abs(speedup["value"] - figures["seeds_per_s.default_jobs2"]["value"] / figures["seeds_per_s.default_jobs1"]["value"]) < 1e-9, speedup
assert re.search(r"the turns' own ratios: \d+\.\d\d, \d+\.\d\d$", speedup["note"]), speedup["note"]
# Checked mode's campaign cost is the same kind of ratio, of the default
# profile's fastest unchecked and checked runs.
cost = figures["checked_cost.campaign"]
assert abs(cost["value"] - figures["seeds_per_s.default_unchecked"]["value"] / figures["seeds_per_s.default"]["value"]) < 1e-9, cost
assert re.search(r"the turns' own ratios: \d+\.\d\d, \d+\.\d\d$", cost["note"]), cost["note"]
# The floor with generation adds generation's time to the SQL's and the checkers'.
per_seed = (1e6 / figures["floor_with_checkers_seeds_per_s.default"]["value"] +
            figures["floor_generation_us_per_seed.default"]["value"])
assert abs(1e6 / figures["floor_with_generation_seeds_per_s.default"]["value"] - per_seed) < 1e-6 * per_seed, per_seed
assert abs(figures["floor_us_per_seed.default"]["value"] * figures["floor_seeds_per_s.default"]["value"] - 1e6) < 1e3
svg = f"{out}/files/push-cost.svg"
assert os.path.exists(svg), "no push-cost chart"
ET.parse(svg)
print(f"ok: {len(figures)} figures")
PY
# The commit is one of this repository's (git describe at build time; a
# build of another tree, or none, would name something else or "unknown").
src=$(cd "$(dirname "$0")/../.." && pwd)
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["commit"])' "$out/bench.json")
  git -C "$src" cat-file -e "${got%-dirty}^{commit}" 2>/dev/null || { echo "FAIL: bench names commit $got, not one of $src" >&2; exit 1; }
fi
# The switch changes no trace: the digests agree.
digest() { "$qdt" check --profile default --seeds 20 --quiet --json --max-shrinks 0 "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["campaign_digest"])'; }
[ "$(digest)" = "$(digest --unchecked)" ] || { echo "FAIL: --unchecked changed the campaign digest" >&2; exit 1; }
echo "ok: --unchecked keeps the digest"
# --case and --rounds narrow the items group (what one profiles): only the
# cases asked, each figure's command carries the flags, checked_cost.items
# only beside batch 1's unchecked figure; without --only items, or with an
# unknown case or one round, exit 2 and print nothing on stdout. An items
# figure is its fastest warm run, above the median and the slowest its note
# names: with three warm runs the median is another run, and two runs of
# 0.01-0.1 s never time within the microsecond that would tie them.
"$qdt" bench --only items --quick --case batch1_checked --case batch10 --rounds 4 --json >"$out/narrow.json" 2>"$out/narrow.err"
[ "$(grep -c 'items, round' "$out/narrow.err")" -eq 4 ] || { echo "FAIL: --rounds 4 did not run four rounds" >&2; cat "$out/narrow.err" >&2; exit 1; }
python3 - "$out/narrow.json" <<'PY'
import json, sys
figures = {f["name"]: f for f in json.load(open(sys.argv[1]))["figures"]}
assert set(figures) == {"items_per_s.batch10", "items_per_s.batch10_median", "items_per_s.batch10_cold",
                        "items_per_s.batch1_checked"}, sorted(figures)
for f in figures.values():
    assert f["command"].endswith("bench --only items --quick --case batch1_checked --case batch10 --rounds 4"), f["command"]
import re
for name in ["items_per_s.batch10", "items_per_s.batch1_checked"]:
    note = figures[name]["note"]
    m = re.search(r"the fastest of 3 warm runs .*median (\d+), slowest (\d+)", note)
    assert m, note
    median, slowest = int(m.group(1)), int(m.group(2))
    assert figures[name]["value"] > median + 0.5 and median >= slowest, (figures[name]["value"], note)
assert abs(figures["items_per_s.batch10_median"]["value"] - int(re.search(r"median (\d+)", figures["items_per_s.batch10"]["note"]).group(1))) <= 0.5
PY
for bad in "--case batch1" "--only items --case batch2" "--only items --rounds 1" "--only window --rounds 3"; do
  set +e
  # shellcheck disable=SC2086
  said=$("$qdt" bench --quick $bad 2>/dev/null)
  rc=$?
  set -e
  [ "$rc" -eq 2 ] && [ -z "$said" ] || { echo "FAIL: 'bench $bad' exits $rc (not 2) or printed figures" >&2; exit 1; }
done
echo "ok: --case and --rounds narrow the items group"
