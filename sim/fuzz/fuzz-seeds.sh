#!/usr/bin/env bash
# Regenerates the checked-in seed corpora of sim/fuzz/corpus/ (seeds only:
# libFuzzer grows its corpus elsewhere, see scripts/fuzz.sh): scenarios and
# invalid scenarios, sweeps, push bodies (every scenario step's `items`), and
# campaign summaries of `qdt check --json` for --merge.
# Usage: sim/fuzz/fuzz-seeds.sh QDT
set -euo pipefail
cd "$(dirname "$0")/../.."
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
# Numbers at the ends of what JSON and doubles hold (denormals, +-1e308,
# 2^53 +- 1, 2^64, -0, an underflow to 0) in every harness's number fields:
# a fuzzer rarely makes them up from the other seeds.
python3 - "$c" "$tmp/default.json" <<'PY'
import hashlib, json, os, sys
corpus, summary = sys.argv[1], sys.argv[2]
extremes = ["5e-324", "-5e-324", "1e308", "-1e308", "9007199254740991", "9007199254740993",
            "18446744073709551616", "-0", "1e-400"]
def put(harness, text):
    body = text.encode()
    open(os.path.join(corpus, harness, hashlib.sha1(body).hexdigest()[:16]), "wb").write(body)
def numbers_to(value, mark):
    if isinstance(value, bool): return value
    if isinstance(value, (int, float)): return mark
    if isinstance(value, list): return [numbers_to(v, mark) for v in value]
    if isinstance(value, dict): return {k: numbers_to(v, mark) for k, v in value.items()}
    return value
template = json.load(open(summary))
for n in extremes:
    put("scenario", '{"name": "extreme", "seed": %s, "world": {"brokers": %s, "network": {"latency_ms": [%s, %s]}, '
        '"storage": {"path": "qdt.db", "purge_batch": %s}}, "queues": {"q": {"dedupWindowSeconds": %s}}, '
        '"steps": [{"op": "advance", "ms": %s}, {"op": "repeat", "times": %s, "steps": [{"op": "crash_storage"}]}, '
        '{"id": "p", "op": "push", "retry": {"attempts": %s, "timeout_ms": %s, "backoff_ms": %s}, '
        '"items": [{"queue": "q", "transactionId": "t", "data": %s}]}, {"op": "read", "queue": "q", "offset": %s, "limit": %s}]}'
        % ((n,) * 14))
    put("sweep", '{"name": "extreme", "base": {"profile": "default"}, "vary": {"world.cache.budget_bytes": '
        '{"from": 0, "to": 1, "step": %s}, "world.brokers": {"from": %s, "to": %s, "step": 1}}, "seeds": %s, '
        '"first_seed": %s, "metrics": ["items"]}' % ((n,) * 5))
    put("push_request", '[{"queue": "q", "partition": "p", "transactionId": "t", "data": %s}, '
        '{"queue": "q", "transactionId": "u", "data": [%s, {"x": %s}]}]' % ((n,) * 3))
    put("merge", json.dumps(numbers_to(template, "@N@"), indent=2).replace('"@N@"', n))
PY
