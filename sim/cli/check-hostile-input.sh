#!/usr/bin/env bash
# Hostile inputs too large to check in, generated here, and the hand-made ones
# that must run: each ends in exit 2 naming a JSON path (nothing written), or
# runs to completion within its declared bounds — never a signal.
# Usage: check-hostile-input.sh QDT SIM_TESTDATA_DIR
set -uo pipefail
qdt=$1
testdata=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL $*" >&2; [ -f "$tmp/stderr" ] && head -c 2000 "$tmp/stderr" >&2; exit 1; }

# exit 2 and an "error: FILE: /PATH: reason" line, no report written.
rejects() {  # FILE [PATH-PREFIX]
  timeout 120 "$qdt" replay "$1" --report "$tmp/report.md" >"$tmp/stdout" 2>"$tmp/stderr"
  local code=$?
  [ $code -eq 2 ] || fail "$1: exit $code, expected 2"
  grep -q "error: $1: ${2:-/}" "$tmp/stderr" || fail "$1: no 'error: FILE: ${2:-/}...' line"
  [ -e "$tmp/report.md" ] && fail "$1: a report was written"
  echo "ok $(basename "$1"): $(grep -m1 error: "$tmp/stderr" | cut -c1-160)"
}
runs() {  # FILE: completes with exit 0 within bounds
  timeout 300 "$qdt" replay "$1" --quiet >"$tmp/stdout" 2>"$tmp/stderr"
  local code=$?
  [ $code -eq 0 ] || fail "$1: exit $code, expected 0"
  echo "ok $(basename "$1"): runs, $(head -c 120 "$tmp/stdout")"
}

python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
head = '{"name": "h", "queues": {"q": {}}, "steps": [{"op": "push", "items": [{"queue": "q", "transactionId": "t", "data": '
tail = '}]}]}'
# 100 000 nested arrays and objects: json's recursive copy and valijson's recursion overflowed the stack.
open(d + "/deep-arrays.json", "w").write(head + "[" * 100000 + "]" * 100000 + tail)
open(d + "/deep-objects.json", "w").write(head + '{"a":' * 100000 + "1" + "}" * 100000 + tail)
open(d + "/deep-unclosed.json", "w").write("[" * 1000000)
# Over the 64 MiB input bound: rejected before parsing.
with open(d + "/too-large.json", "w") as f:
    f.write('{"name": "big", "description": "'); f.write("x" * (65 << 20)); f.write('", "steps": []}')
# 10 MB strings that are legal: a description, and a payload stored once.
open(d + "/long-description.json", "w").write('{"name": "long", "description": "' + "d" * 10_000_000 + '", "steps": []}')
open(d + "/long-data.json", "w").write(head + '"' + "x" * 10_000_000 + '"' + tail)
# A 10 MB transactionId: the broker rejects the request (1-255 bytes), storing nothing.
open(d + "/long-transaction-id.json", "w").write('{"name": "long-id", "queues": {"q": {}}, "steps": [{"op": "push", "id": "p", "items": [{"queue": "q", "transactionId": "' + "t" * 10_000_000 + '", "data": 1}]}], "expect": {"p": {"rejected": true}}}')
# A 10 MB key.
open(d + "/long-key.json", "w").write('{"name": "long-key", "' + "k" * 10_000_000 + '": 1, "steps": []}')
# Long strings where a schema pattern applies: std::regex recursed per character.
open(d + "/long-step-id.json", "w").write('{"name": "id", "steps": [{"op": "advance", "ms": 1, "id": "' + "a" * 1_000_000 + '"}]}')
open(d + "/long-stored-key.json", "w").write('{"name": "st", "queues": {"q": {}}, "steps": [], "expect": {"stored": {"q/' + "p" * 1_000_000 + '": 0}}}')
open(d + "/sweep-long-name.json", "w").write('{"name": "' + "n" * 1_000_000 + '", "base": {"profile": "default"}, "vary": {"world.brokers": [1]}, "seeds": 1, "metrics": ["items"]}')
# Summaries for --merge.
open(d + "/summary-missing.json", "w").write('{"seed_hashes": [], "pushes": 0}')
open(d + "/summary-string-count.json", "w").write('{"seeds_run": "3", "failed": 0, "pushes": 0, "virtual_ms": 0, "out_of_time": false, "seed_hashes": [], "failures": []}')
open(d + "/summary-failure-without-property.json", "w").write('{"seeds_run": 1, "failed": 1, "pushes": 0, "virtual_ms": 0, "out_of_time": false, "seed_hashes": ["default 1 00"], "failures": [{"profile": "default", "seed": 1}]}')
open(d + "/summary-deep.json", "w").write('{"seeds_run": 1, "metrics": ' + "[" * 100000 + "]" * 100000 + '}')
open(d + "/summary-metric-overflow.json", "w").write('{"seeds_run": 1, "failed": 0, "pushes": 0, "virtual_ms": 0, "out_of_time": false, "seed_hashes": [], "failures": [], "metrics": {"items": 9223372036854775807}}')
# A sweep nesting too deep.
open(d + "/sweep-deep.json", "w").write('{"name": "s", "base": {"profile": "default"}, "vary": {"world.brokers": ' + "[" * 100000 + "]" * 100000 + '}, "seeds": 1, "metrics": ["items"]}')
PY

rejects "$tmp/deep-arrays.json" /steps/0/items/0/data/
rejects "$tmp/deep-objects.json" /steps/0/items/0/data/a/
rejects "$tmp/deep-unclosed.json"
rejects "$tmp/too-large.json"
rejects "$tmp/long-key.json" "/k"
rejects "$tmp/long-step-id.json" /steps/0/id
rejects "$tmp/long-stored-key.json" /expect/stored/q/
runs "$tmp/long-description.json"
runs "$tmp/long-data.json"
runs "$tmp/long-transaction-id.json"
for f in "$testdata"/hostile-valid/*.json; do runs "$f"; done
# A FIFO never ends: refused, not read.
mkfifo "$tmp/fifo.json"
rejects "$tmp/fifo.json"

for f in summary-missing summary-string-count summary-failure-without-property summary-deep summary-metric-overflow; do
  timeout 60 "$qdt" check --merge "$tmp/$f.json" --json >"$tmp/stdout" 2>"$tmp/stderr"
  code=$?
  [ $code -eq 2 ] || fail "--merge $f: exit $code, expected 2"
  grep -q "error: $tmp/$f.json: /" "$tmp/stderr" || fail "--merge $f: no 'error: FILE: /PATH' line"
  echo "ok --merge $f: $(head -n1 "$tmp/stderr" | cut -c1-160)"
done
# Summaries that broke a reader once, checked in (sim/testdata/invalid-summaries):
# the first a merge fuzzer found, on which the triage printer aborted.
for f in "$testdata"/invalid-summaries/*.json; do
  timeout 60 "$qdt" check --merge "$f" >"$tmp/stdout" 2>"$tmp/stderr"
  code=$?
  [ $code -eq 2 ] || fail "--merge $f: exit $code, expected 2"
  grep -q "error: $f: /" "$tmp/stderr" || fail "--merge $f: no 'error: FILE: /PATH' line"
  echo "ok --merge $(basename "$f"): $(head -n1 "$tmp/stderr" | cut -c1-160)"
done
f=$testdata/invalid-summaries/failure-file-without-replay.json
timeout 60 "$qdt" check --merge "$f" >"$tmp/stdout" 2>"$tmp/stderr"
grep -q "error: $f: /failures/0: .*replay" "$tmp/stderr" || fail "--merge $f: the error names no /failures/0 and replay"
timeout 60 "$qdt" explore "$tmp/sweep-long-name.json" --out "$tmp/explore" >"$tmp/stdout" 2>"$tmp/stderr"
code=$?
[ $code -eq 2 ] && grep -q "error: $tmp/sweep-long-name.json: /name" "$tmp/stderr" || fail "explore sweep-long-name: exit $code"
[ -e "$tmp/explore" ] && fail "explore sweep-long-name wrote $tmp/explore"
echo "ok explore sweep-long-name: $(head -n1 "$tmp/stderr" | cut -c1-160)"
timeout 60 "$qdt" explore "$tmp/sweep-deep.json" --out "$tmp/explore" >"$tmp/stdout" 2>"$tmp/stderr"
code=$?
[ $code -eq 2 ] || fail "explore sweep-deep: exit $code, expected 2"
grep -q "error: $tmp/sweep-deep.json: /vary/" "$tmp/stderr" || fail "explore sweep-deep: no path"
[ -e "$tmp/explore" ] && fail "explore sweep-deep wrote $tmp/explore"
echo "ok explore sweep-deep: $(head -n1 "$tmp/stderr" | cut -c1-160)"
echo "hostile inputs: every one rejected with a path or run within bounds"
