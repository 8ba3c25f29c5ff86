#!/usr/bin/env bash
# Failures are data (properties/failure_rules.h): every failure record of a
# campaign names its rule id (property/rule), the rule's explanation, and
# the answers expected and given; the same campaign names the same rules
# twice over; triage groups by rule and heads each group with its
# explanation. A summary written before rule ids (its `rule` the failure's
# text with what varies taken out) still merges, grouped as it was.
# Usage: check-failure-rules.sh QDT
set -euo pipefail
qdt=$(readlink -f "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() {  # a failing campaign exits 1: that is what is tested here
  "$qdt" check --seeds 8 --variant skip-probe --quiet --json --max-shrinks 1 "$@" || [ $? -eq 1 ]
}
run --shard 0/2 --out "$work/a" > "$work/a.json"
run --shard 0/2 --out "$work/b" > "$work/b.json"
run --shard 1/2 --out "$work/c" > "$work/c.json"

python3 - "$work" <<'PY'
import json, re, sys
work = sys.argv[1]
a, b, c = (json.load(open(f"{work}/{n}.json")) for n in "abc")
ok = True
def fail(msg):
    global ok
    ok = False
    print("FAIL:", msg, file=sys.stderr)
if not a["failures"]:
    fail("skip-probe failed no seed")
for f in a["failures"]:
    if not re.fullmatch(re.escape(f["property"]) + r"/[a-z0-9]+(-[a-z0-9]+)*", f.get("rule", "")):
        fail(f"seed {f['seed']}: rule {f.get('rule')!r} is not {f['property']}/RULE")
    if not f.get("explanation"):
        fail(f"seed {f['seed']}: no explanation")
    if f.get("rule") == "model-agreement/duplicate-answered-queued":
        if not (f.get("expected", "").startswith("duplicate") and f.get("actual", "").startswith("queued")):
            fail(f"seed {f['seed']}: expected/actual {f.get('expected')!r}/{f.get('actual')!r}")
        if not isinstance(f.get("event"), int):
            fail(f"seed {f['seed']}: no event")
fields = lambda s: [(f["seed"], f.get("rule"), f.get("event"), f.get("expected"), f.get("actual")) for f in s["failures"]]
if fields(a) != fields(b):
    fail("two runs of one campaign named different rules")
# Shard 1 as a qdt before rule ids wrote it.
for f in c["failures"]:
    for key in ("explanation", "event", "expected", "actual"):
        f.pop(key, None)
    f["rule"] = "model answers duplicate, storage answered queued from offset #"
json.dump(c, open(f"{work}/old.json", "w"))
sys.exit(0 if ok else 1)
PY

"$qdt" check --merge "$work/a.json" "$work/old.json" > "$work/merged.txt" || [ $? -eq 1 ]
grep -q '^    [0-9]* × model-agreement/duplicate-answered-queued · push$' "$work/merged.txt" ||
  { echo "FAIL: no group by rule id in:" >&2; cat "$work/merged.txt" >&2; exit 1; }
grep -A1 '× model-agreement/duplicate-answered-queued · push$' "$work/merged.txt" | grep -q "^      A producer's retry" ||
  { echo "FAIL: the group is not headed by its explanation:" >&2; cat "$work/merged.txt" >&2; exit 1; }
grep -q '× model-agreement · push · model answers duplicate, storage answered queued from offset #$' "$work/merged.txt" ||
  { echo "FAIL: the older summary's failures are not grouped as they were:" >&2; cat "$work/merged.txt" >&2; exit 1; }
echo "ok: rule ids in every failure record, stable, grouped, older summaries merged"
