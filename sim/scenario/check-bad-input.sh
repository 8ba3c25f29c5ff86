#!/usr/bin/env bash
# Every file under DIR is an invalid scenario: qdt must exit 2, name the file
# and a JSON path in its error, and write nothing. Usage: check-bad-input.sh QDT DIR
set -uo pipefail
qdt=$1
dir=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
checked=0
for file in "$dir"/*; do
  "$qdt" replay "$file" --report "$out/report.md" --trace "$out/trace.log" >"$out/stdout" 2>"$out/stderr"
  code=$?
  if [ $code -ne 2 ]; then
    echo "FAIL $file: exit $code, expected 2" >&2; cat "$out/stderr" >&2; exit 1
  fi
  if ! grep -q "error: $file: /" "$out/stderr"; then
    echo "FAIL $file: no 'error: FILE: /PATH: reason' line" >&2; cat "$out/stderr" >&2; exit 1
  fi
  if [ -e "$out/report.md" ] || [ -e "$out/trace.log" ]; then
    echo "FAIL $file: something was written" >&2; exit 1
  fi
  echo "ok $file: $(head -n 1 "$out/stderr")"
  checked=$((checked + 1))
done
[ $checked -ge 1 ] || { echo "no files in $dir" >&2; exit 1; }
# A misspelt field is named with the field it was meant to be.
for case in "push-item-misspelt-partition.json|/steps/0/items/0/partiton: unknown field; did you mean \"partition\"?" \
            "retry-misspelt-backoff.json|/steps/1/retry/backoff: unknown field; did you mean \"backoff_ms\"?"; do
  file=$dir/${case%%|*}
  "$qdt" replay "$file" >"$out/stdout" 2>"$out/stderr"
  code=$?
  grep -qF -- "error: $file: ${case#*|}" "$out/stderr" && [ $code -eq 2 ] && [ ! -s "$out/stdout" ] ||
    { echo "FAIL $file: exit $code, expected 2 and '${case#*|}'" >&2; cat "$out/stderr" >&2; exit 1; }
done
# Usage errors are exit 2 as well.
"$qdt" replay >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: replay without a file is not exit 2" >&2; exit 1; }
"$qdt" replay --cache maybe "$dir" >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: bad --cache is not exit 2" >&2; exit 1; }
"$qdt" replay /nonexistent.json >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: missing file is not exit 2" >&2; exit 1; }
"$qdt" replay --help >/dev/null || { echo "FAIL: replay --help" >&2; exit 1; }
"$qdt" check --help >/dev/null || { echo "FAIL: check --help" >&2; exit 1; }
"$qdt" check --shard 3/2 --seeds 1 >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: bad --shard is not exit 2" >&2; exit 1; }
"$qdt" check --profile nope >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: bad --profile is not exit 2" >&2; exit 1; }
"$qdt" replay --variant nope "$dir" >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: bad --variant is not exit 2" >&2; exit 1; }
echo "$checked invalid files rejected with exit 2"
