#!/usr/bin/env bash
# The schedule search's reduction (DPOR and sleep sets, sim/schedule/schedule_search.h)
# must keep every outcome: FILE's tree, exhausted with and without it, ends in
# the same set of outcomes, with no race left unplaced and fewer runs with it.
# Usage: check-reduction-keeps-outcomes.sh QDT FILE [MAX_INTERLEAVINGS]
set -uo pipefail
qdt=$1
file=$2
bound=${3:-100000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$qdt" explore-schedules "$file" --max-interleavings "$bound" --json --quiet >"$out/r.json" || { echo "FAIL: reduced run exit $?" >&2; exit 1; }
"$qdt" explore-schedules "$file" --max-interleavings "$bound" --no-reduction --json --quiet >"$out/f.json" ||
  { echo "FAIL: full run exit $?" >&2; exit 1; }
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
r, f = (json.load(open(f"{out}/{k}.json")) for k in "rf")
assert r["exhausted"] and f["exhausted"], "a tree was not exhausted within the bound"
assert set(r["outcomes"]) == set(f["outcomes"]), ("the reduction lost an outcome", sorted(r["outcomes"]), sorted(f["outcomes"]))
assert r["analysis_fallbacks"] == 0, r["analysis_fallbacks"]
assert r["schedules"] < f["schedules"], (r["schedules"], f["schedules"])
print(f"ok: {r['scenario']}: {r['schedules']} schedules with the reduction, {f['schedules']} without; "
      f"the same {len(f['outcomes'])} outcomes")
PY
