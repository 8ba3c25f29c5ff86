#!/usr/bin/env bash
# Forking at rare states (qdt check --fork-rare, sim/campaign/campaign_forks.h):
#  1. on the reference, forks run and none fails (exit 0), and the seeds'
#     digest is the digest of the same campaign without forking;
#  2. under stamp-before-lock, forks of passing seeds fail, and every fork
#     failure is one file that replays it: exit 1 under the variant, 0 on the
#     reference, its world.schedule a fork.
#   check-forking.sh QDT WORKDIR
set -uo pipefail
qdt="$1"
work="$2"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$qdt" check --profile all --seeds 20 --jobs 2 --fork-rare 0.1 --forks 4 --quiet --json --out "$work/ref" >"$work/ref.json"
[ $? -eq 0 ] || fail "forking on the reference: expected exit 0"
"$qdt" check --profile all --seeds 20 --jobs 2 --quiet --json --out "$work/plain" >"$work/plain.json" || fail "plain campaign"
python3 - "$work/ref.json" "$work/plain.json" <<'PY' || exit 1
import json, sys
ref, plain = (json.load(open(p)) for p in sys.argv[1:3])
assert ref["forking"]["runs"] > 0, ref["forking"]
assert ref["fork_failures"] == [], ref["fork_failures"]
assert ref["campaign_digest"] == plain["campaign_digest"], "forks changed the seeds' digest"
assert "forking" not in plain
print(f"ok: reference, {ref['forking']['runs']} fork runs at {len(ref['forking']['forked_at'])} rare points, none failing")
PY

"$qdt" check --profile default --seeds 80 --jobs 1 --variant stamp-before-lock --fork-rare 0.05 --forks 16 --max-shrinks 100 \
  --quiet --json --out "$work/var" >"$work/var.json"
[ $? -eq 1 ] || fail "stamp-before-lock: expected exit 1"
files=$(python3 - "$work/var.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
ff = [f for f in s["fork_failures"] if "file" in f]
assert ff, "no fork failure was written"
print("\n".join(f["file"] for f in ff))
PY
) || fail "no fork failures"
n=0
for f in $files; do
  "$qdt" replay "$f" --variant stamp-before-lock >/dev/null 2>&1
  [ $? -eq 1 ] || fail "$f does not fail under stamp-before-lock"
  "$qdt" replay "$f" >/dev/null 2>&1
  [ $? -eq 0 ] || fail "$f fails on the reference"
  python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['world']['schedule']['mode'] == 'fork'" "$f" ||
    fail "$f is not a fork"
  n=$((n + 1))
done
echo "ok: $n fork failures under stamp-before-lock, each replayed from its file"
