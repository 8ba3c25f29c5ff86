#!/usr/bin/env bash
# Regenerates the checked-in seed corpora of sim/fuzz/corpus/ (seeds only:
# libFuzzer grows its corpus elsewhere, see scripts/fuzz.sh): scenarios and
# invalid scenarios, sweeps, push bodies (every scenario step's `items`), and
# campaign summaries of `qdt check --json` for --merge.
# Usage: scripts/fuzz-seeds.sh QDT
set -euo pipefail
cd "$(dirname "$0")/.."
qdt=$1
c=sim/fuzz/corpus
rm -rf "$c"
mkdir -p "$c/scenario" "$c/sweep" "$c/push_request" "$c/merge"
# Named by content so that reruns are stable and duplicates collapse.
put() { local dir=$1 file=$2; cp "$file" "$dir/$(sha1sum "$file" | cut -c1-16)"; }
for f in $(find scenarios -name '*.json' -not -path '*/schema/*' | sort) sim/testdata/invalid/*.json; do
  put "$c/scenario" "$f"
done
for f in scenarios/sweeps/*.json sim/testdata/sweeps/*.json sim/testdata/invalid-sweeps/*.json reports/studies/*.json; do
  put "$c/sweep" "$f"
done
python3 - "$c/push_request" $(find scenarios -name '*.json' -not -path '*/schema/*' | sort) <<'PY'
import hashlib, json, os, sys
out = sys.argv[1]
def steps(s):
    for step in s:
        yield step
        yield from steps(step.get("steps", []))
for f in sys.argv[2:]:
    for step in steps(json.load(open(f)).get("steps", [])):
        if "items" in step:
            body = json.dumps(step["items"]).encode()
            open(os.path.join(out, hashlib.sha1(body).hexdigest()[:16]), "wb").write(body)
PY
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$qdt" check --seeds 3 --json --quiet --out "$tmp/f" >"$tmp/default.json" || true
"$qdt" check --seeds 2 --profile all --json --quiet --out "$tmp/f" >"$tmp/all.json" || true
"$qdt" check --seeds 20 --variant skip-probe --json --quiet --max-shrinks 1 --out "$tmp/f" >"$tmp/failing.json" || true
for f in "$tmp"/*.json; do put "$c/merge" "$f"; done
echo "seeds: $(for d in "$c"/*; do echo -n "$(basename "$d") $(ls "$d" | wc -l)  "; done)"
# A sweep over the harness's own base scenario (sweep_fuzz places base.json).
printf '%s\n' '{"name": "over-base", "base": {"scenario": "base.json"}, "vary": {"world.brokers": [1, 2], "steps.0.items.0.transactionId": ["a", "b"], "queues.*.dedupWindowSeconds": {"from": 0, "to": 60, "step": 30}}, "seeds": 2, "metrics": ["items", "cache.vouched"]}' >"$c/sweep/over-base"
