#!/usr/bin/env bash
# qdt explore-schedules and --schedule pct end to end, on the small scenarios
# of sim/testdata/schedules:
#   * the search exhausts two-pushes-one-key's tree and reports its exact
#     counts, the same in two processes, with and without the reduction (same
#     outcomes, fewer schedules with it), and so for the other two-push
#     trees; a bound below the tree says so;
#   * it exhausts the four- and eight-push concurrent-producers trees
#     in their exact counts, both outcomes reached;
#   * under probe-outside-lock it finds failing schedules (exit 1), writes each
#     as a scenario that qdt replay replays to the same trace hash (and that
#     the reference, whose steps differ, refuses as not its schedule);
#   * bad input exits 2 (no file, an invalid scenario, a bound of 0, a written
#     schedule naming a fiber that is not ready, --pct-depth without pct);
#   * replay --schedule pct is deterministic and its trace records the mode;
#     a random replay's trace has no schedule line.
# Usage: check-explore-schedules.sh QDT
set -uo pipefail
qdt=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
data=$here/sim/testdata/schedules
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$qdt" explore-schedules --help | grep -- '--max-interleavings' >/dev/null || fail "explore-schedules --help"
"$qdt" --help | grep 'explore-schedules' >/dev/null || fail "qdt --help does not list explore-schedules"

# Exhausted, deterministic, exact counts.
"$qdt" explore-schedules "$data/two-pushes-one-key.json" --json --quiet >"$out/a.json" || fail "explore-schedules exit $?"
"$qdt" explore-schedules "$data/two-pushes-one-key.json" --json >"$out/b.json" 2>"$out/b.err" || fail "second run"
"$qdt" explore-schedules "$data/two-pushes-one-key.json" --json --quiet --no-reduction >"$out/full.json" || fail "--no-reduction"
"$qdt" explore-schedules "$data/two-pushes-one-key.json" --max-interleavings 2 >"$out/bound.txt" --quiet || fail "bound run"
grep -q 'bound hit' "$out/bound.txt" || fail "a bound below the tree is not reported: $(cat "$out/bound.txt")"
python3 - "$out" <<'PY' || exit 1
import json, sys
out = sys.argv[1]
a, b, full = (json.load(open(f"{out}/{n}.json")) for n in ("a", "b", "full"))
for d in (a, b, full):
    assert isinstance(d.pop("wall_s"), (int, float))
assert a == b, "two processes disagree"
assert a["exhausted"] and full["exhausted"], "the tree was not exhausted"
# The tree's exact size: 42 schedules, 3 with the reduction (no redundant run).
assert (full["runs"], full["schedules"], full["pruned"]) == (42, 42, 0), full
assert (a["runs"], a["schedules"], a["redundant_runs"], a["pruned"]) == (3, 3, 0, 6), a
assert set(a["outcomes"]) == set(full["outcomes"]), "the reduction lost an outcome"
assert a["failed_runs"] == 0 and a["failures"] == []
assert len(a["first_path"]) == a["choice_points_max"] or a["first_path"], a["first_path"]
print(f"ok: {a['schedules']} schedules (+{a['redundant_runs']} redundant) with the reduction, {full['schedules']} without; "
      f"{a['distinct_trace_hashes']} distinct traces, {a['distinct_outcomes']} outcomes")
PY

# The reduction keeps every outcome: the other small trees, exhausted with
# and without it (DPOR and sleep sets, sim/schedule/schedule_search.h).
for name in two-brokers-one-key two-pushes-two-partitions; do
  "$qdt" explore-schedules "$data/$name.json" --json --quiet >"$out/$name-r.json" || fail "$name reduced"
  "$qdt" explore-schedules "$data/$name.json" --json --quiet --no-reduction >"$out/$name-f.json" || fail "$name full"
done
# The concurrent-producers trees, exhausted with the reduction:
# exact counts (docs/schedules.md). Keyed draws fix each push's latencies
# (sim/world/network.h), so at seed 7 one push arrives first alone: one outcome.
"$qdt" explore-schedules "$here/scenarios/concurrent-same-key.json" --json --quiet >"$out/four.json" || fail "four pushes"
"$qdt" explore-schedules "$data/concurrent-same-key-eight.json" --max-interleavings 2000 --json --quiet >"$out/eight.json" ||
  fail "eight pushes"
python3 - "$out" <<'PY' || exit 1
import json, sys
out = sys.argv[1]
for name in ("two-brokers-one-key", "two-pushes-two-partitions"):
    r, f = (json.load(open(f"{out}/{name}-{k}.json")) for k in "rf")
    assert r["exhausted"] and f["exhausted"], name
    assert set(r["outcomes"]) == set(f["outcomes"]), (name, "the reduction lost an outcome", r["outcomes"], f["outcomes"])
    assert r["schedules"] < f["schedules"] and r["analysis_fallbacks"] == 0, (name, r)
    print(f"ok: {name}: {r['schedules']} schedules with the reduction, {f['schedules']} without, same {len(f['outcomes'])} outcomes")
four, eight = (json.load(open(f"{out}/{n}.json")) for n in ("four", "eight"))
for d, schedules in ((four, 6), (eight, 1296)):
    assert d["exhausted"] and d["failed_runs"] == 0 and d["analysis_fallbacks"] == 0, d
    assert (d["runs"], d["schedules"], d["redundant_runs"]) == (schedules, schedules, 0), (d["scenario"], d["runs"], d["schedules"])
    assert len(d["outcomes"]) == 1, d["outcomes"]
print(f"ok: four pushes exhausted in {four['schedules']} schedules, eight in {eight['schedules']}")
PY

# A variant caught by the search; the written schedule replays the failure.
"$qdt" explore-schedules "$data/two-brokers-one-key.json" --variant probe-outside-lock --max-interleavings 50 \
  --out "$out/fail" --json --quiet >"$out/v.json"
[ $? -eq 1 ] || fail "probe-outside-lock was not caught (exit 1 expected)"
python3 - "$out" "$qdt" <<'PY' || exit 1
import json, subprocess, sys
out, qdt = sys.argv[1], sys.argv[2]
v = json.load(open(f"{out}/v.json"))
assert v["failed_runs"] >= 1 and v["failures"], v
f = v["failures"][0]
scenario = json.load(open(f["file"]))
assert scenario["world"]["schedule"] == {"mode": "choices", "choices": f["choices"]}, scenario["world"]
r = subprocess.run([qdt, "replay", f["file"], "--variant", "probe-outside-lock", "--json", "--quiet"], capture_output=True, text=True)
assert r.returncode == 1, ("the written schedule does not fail", r.returncode, r.stderr)
assert json.loads(r.stdout)[0]["trace_hash"] == f["trace_hash"], "the replay is not the schedule that failed"
# The reference takes other steps, so the variant's choices do not fit it:
# that is bad input (exit 2), never a silent run of some other schedule.
r = subprocess.run([qdt, "replay", f["file"], "--quiet"], capture_output=True, text=True)
assert r.returncode == 2 and "is not ready there" in r.stderr, ("the reference ran the variant's schedule", r.returncode, r.stderr)
print(f"ok: probe-outside-lock caught in {v['failed_runs']} of {v['runs']} runs; {f['file'].split('/')[-1]} replays it")
PY

# Bad input.
"$qdt" explore-schedules /nonexistent.json >/dev/null 2>&1; [ $? -eq 2 ] || fail "a missing file is not exit 2"
"$qdt" explore-schedules "$here/sim/testdata/invalid/unknown-op.json" >/dev/null 2>"$out/err"; [ $? -eq 2 ] || fail "an invalid scenario is not exit 2"
grep -q 'error: .*unknown-op.json: /' "$out/err" || fail "no error line naming the file and path: $(cat "$out/err")"
"$qdt" explore-schedules "$data/two-pushes-one-key.json" --max-interleavings 0 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--max-interleavings 0 is not exit 2"
python3 - "$data/two-pushes-one-key.json" "$out/bad-choice.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["world"]["schedule"] = {"mode": "choices", "choices": [99]}
json.dump(d, open(sys.argv[2], "w"))
PY
"$qdt" replay "$out/bad-choice.json" >/dev/null 2>"$out/err"; [ $? -eq 2 ] || fail "a choice of a fiber that is not ready is not exit 2"
grep -q 'choice 0 names fiber 99' "$out/err" || fail "no error naming the choice: $(cat "$out/err")"
"$qdt" replay "$data/two-pushes-one-key.json" --pct-depth 2 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--pct-depth without --schedule pct is not exit 2"
"$qdt" replay "$data/two-pushes-one-key.json" --schedule fair >/dev/null 2>&1; [ $? -eq 2 ] || fail "--schedule fair is not exit 2"

# PCT replays: deterministic, recorded; random traces unchanged (no line).
"$qdt" replay "$data/two-pushes-one-key.json" --schedule pct --pct-depth 2 --json --quiet --trace "$out/pct.log" >"$out/p1.json" || fail "pct replay"
"$qdt" replay "$data/two-pushes-one-key.json" --schedule pct --pct-depth 2 --json --quiet >"$out/p2.json" || fail "pct replay 2"
"$qdt" replay "$data/two-pushes-one-key.json" --json --quiet --trace "$out/random.log" >/dev/null || fail "random replay"
grep -q '^0 schedule mode=pct depth=2 steps=' "$out/pct.log" || fail "the pct trace does not record the mode: $(head -3 "$out/pct.log")"
! grep -q ' schedule ' "$out/random.log" || fail "a random trace has a schedule line"
python3 - "$out" <<'PY' || exit 1
import json, sys
out = sys.argv[1]
(p1,), (p2,) = (json.load(open(f"{out}/p{i}.json")) for i in (1, 2))
assert p1["trace_hash"] == p2["trace_hash"], "pct is not deterministic"
s = p1["schedule"]
assert s["mode"] == "pct" and s["depth"] == 2 and s["steps_learnt"] and s["steps"] >= 1, s
assert abs(s["bound"] - 1.0 / (s["fibers"] * max(s["steps"], s["steps_taken"]))) < 1e-12, s
print(f"ok: pct depth 2 replays to one hash; n={s['fibers']} k={s['steps']} bound {s['bound']:.4g}")
PY
echo "ok: explore-schedules and --schedule pct"
