#!/usr/bin/env bash
# Replays every scenario under DIR in two separate processes and requires the
# same trace hash for each (docs/semantics.md §6). Usage: check-determinism.sh QDT DIR
set -euo pipefail
qdt=$1
dir=$2
first=$(mktemp)
second=$(mktemp)
trap 'rm -f "$first" "$second"' EXIT
# Exit code 1 (a failing scenario) still prints results; only 2 is fatal here.
"$qdt" replay "$dir" --json --quiet > "$first" || [ $? -eq 1 ]
"$qdt" replay "$dir" --json --quiet > "$second" || [ $? -eq 1 ]
hashes() { grep -E '"(scenario|trace_hash)"' "$1"; }
if ! diff <(hashes "$first") <(hashes "$second"); then
  echo "trace hashes differ between two processes" >&2
  exit 1
fi
count=$(grep -c '"trace_hash"' "$first")
if [ "$count" -lt 1 ]; then
  echo "no scenario was replayed" >&2
  exit 1
fi
echo "$count scenarios: identical trace hashes across two processes"
