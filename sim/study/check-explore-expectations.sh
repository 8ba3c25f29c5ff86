#!/usr/bin/env bash
# qdt explore over a scenario base with an expect block
# (sim/testdata/sweeps/expect-window.json: window 0 stores the retry as new,
# which the properties allow and the expect block does not): by default the
# window-0 point fails as expectation (exit 1); with --no-expect, or the
# sweep file's "expectations": "ignore", every run passes (exit 0) with the
# same measurements, the command and the page say so; and under a variant
# the properties still fail the runs with --no-expect.
# Usage: check-explore-expectations.sh QDT
set -euo pipefail
qdt=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
sweep=$here/sim/testdata/sweeps/expect-window.json
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() {  # CODE NAME ARGS...: qdt explore into $out/NAME, which must exit CODE
  local want=$1 name=$2; shift 2
  local got=0
  QDT_GNUPLOT=/nonexistent/gnuplot "$qdt" explore "$@" --out "$out/$name" --quiet >"$out/$name.stdout" 2>&1 || got=$?
  [ "$got" = "$want" ] || { echo "FAIL: $name exited $got, expected $want" >&2; cat "$out/$name.stdout" >&2; exit 1; }
}

run 1 check "$sweep"
run 0 flag "$sweep" --no-expect
# The same sweep with the file's field instead of the flag; its scenario path is made absolute.
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['expectations']='ignore'; d['base']['scenario']=sys.argv[2]; json.dump(d, open(sys.argv[3], 'w'))" \
  "$sweep" "$here/scenarios/lost-response-retry.json" "$out/field.json"
run 0 field "$out/field.json"
run 1 variant "$sweep" --no-expect --variant skip-probe

python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def doc(name):
    return json.load(open(f"{out}/{name}/expect-window.json"))
check, flag, field, variant = doc("check"), doc("flag"), doc("field"), doc("variant")
assert check["expectations"] == "check" and check["failures"] == 2, check["failures"]
assert {f["property"] for p in check["points"] for f in p["failed_seeds"]} == {"expectation"}
for d in (flag, field):
    assert d["expectations"] == "ignore" and d["failures"] == 0, d["failures"]
    assert [p["raw"] for p in d["points"]] == [p["raw"] for p in check["points"]], "ignoring expectations changed a run"
assert flag["command"].endswith(" --no-expect"), flag["command"]
assert "--no-expect" not in field["command"], field["command"]
failing = {f["property"] for p in variant["points"] for f in p["failed_seeds"]}
assert variant["failures"] > 0 and "expectation" not in failing, failing
for name, want in (("check", "checked:"), ("flag", "ignored: only the properties judge")):
    page = open(f"{out}/{name}/expect-window.html").read()
    assert f"<dt>expectations</dt><dd>{want}" in page, name
    assert want in open(f"{out}/{name}/expect-window.md").read(), name
print(f"expectations checked: {check['failures']} failing; ignored: 0 failing, same values; "
      f"skip-probe with --no-expect: {variant['failures']} failing ({', '.join(sorted(failing))})")
PY
