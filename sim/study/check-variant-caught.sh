#!/usr/bin/env bash
# A deliberately broken build (a design variant) must be caught by qdt check
# within SEEDS seeds, shrunk to a file of at most MAX_STEPS steps, and that
# file must replay the same failure under the variant and pass on the
# reference implementation. Usage: check-variant-caught.sh QDT VARIANT [SEEDS] [MAX_STEPS] [PROFILE] [CHECK FLAGS...]
set -uo pipefail
qdt=$1
variant=$2
seeds=${3:-200}
max_steps=${4:-8}
profile=${5:-default}
shift $(( $# < 5 ? $# : 5 ))
extra=("$@")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$qdt" check --seeds "$seeds" --profile "$profile" --variant "$variant" --out "$out" --max-shrinks 1 --json --quiet "${extra[@]}" >"$out/summary.json"
code=$?
[ $code -eq 1 ] || { echo "FAIL: qdt check exited $code, expected 1 (caught)" >&2; cat "$out/summary.json" >&2; exit 1; }
read -r file property steps < <(python3 -c '
import json,sys
s=json.load(open(sys.argv[1]))
f=[x for x in s["failures"] if "file" in x][0]
print(f["file"], f["property"], f["steps"])' "$out/summary.json")
echo "caught: $property, shrunk to $steps steps: $file"
[ "$steps" -le "$max_steps" ] || { echo "FAIL: $steps steps > $max_steps" >&2; cat "$file" >&2; exit 1; }
"$qdt" replay "$file" --variant "$variant" --json --quiet >"$out/replay.json"
[ $? -eq 1 ] || { echo "FAIL: the shrunk file does not fail under --variant $variant" >&2; exit 1; }
python3 -c '
import json,sys
(r,)=json.load(open(sys.argv[1]))
props={f["property"] for f in r["failures"]}
sys.exit(0 if sys.argv[2] in props else 1)' "$out/replay.json" "$property" || { echo "FAIL: replay does not fail $property" >&2; exit 1; }
"$qdt" replay "$file" --quiet >/dev/null || { echo "FAIL: the shrunk file fails on the reference implementation" >&2; exit 1; }
echo "ok: $variant caught ($property), $steps steps, replays the failure, passes on the reference"
