#!/usr/bin/env bash
# Every file under DIR is an invalid sweep: qdt explore must exit 2, name the
# file and a JSON path in its error, and write nothing (no report, no folder
# contents). Usage: check-bad-sweeps.sh QDT DIR
set -uo pipefail
qdt=$1
dir=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
checked=0
for file in "$dir"/*; do
  "$qdt" explore "$file" --out "$out/reports" --quiet >"$out/stdout" 2>"$out/stderr"
  code=$?
  if [ $code -ne 2 ]; then
    echo "FAIL $file: exit $code, expected 2" >&2; cat "$out/stderr" >&2; exit 1
  fi
  if ! grep -q "error: $file: /" "$out/stderr"; then
    echo "FAIL $file: no 'error: FILE: /PATH: reason' line" >&2; cat "$out/stderr" >&2; exit 1
  fi
  if [ -e "$out/reports" ]; then
    echo "FAIL $file: something was written" >&2; exit 1
  fi
  echo "ok $(basename "$file"): $(head -n 1 "$out/stderr" | cut -c1-200)"
  checked=$((checked + 1))
done
[ $checked -ge 1 ] || { echo "no files in $dir" >&2; exit 1; }
# Usage errors are exit 2 as well.
"$qdt" explore >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: explore without a file is not exit 2" >&2; exit 1; }
"$qdt" explore /nonexistent.json --out "$out/reports" >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: missing file is not exit 2" >&2; exit 1; }
"$qdt" explore "$dir/unknown-field.json" --jobs 0 >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: --jobs 0 is not exit 2" >&2; exit 1; }
"$qdt" explore --help >/dev/null || { echo "FAIL: explore --help" >&2; exit 1; }
[ -e "$out/reports" ] && { echo "FAIL: a usage error wrote something" >&2; exit 1; }
echo "$checked invalid sweep files rejected with exit 2"
