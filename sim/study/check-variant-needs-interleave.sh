#!/usr/bin/env bash
# A variant whose bug lives between two statements (probe-outside-lock) is
# caught only because storage transactions interleave statement by statement:
# the same campaign with interleaving on must catch it, and with it off must
# not (each storage call is then atomic, so nothing runs between its probe and
# its allocation). Usage: check-variant-needs-interleave.sh QDT VARIANT SEEDS PROFILE
set -uo pipefail
qdt=$1
variant=$2
seeds=$3
profile=$4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$qdt" check --seeds "$seeds" --profile "$profile" --variant "$variant" --interleave on --max-shrinks 0 \
  --out "$out/on" --quiet >/dev/null
on=$?
[ $on -eq 1 ] || { echo "FAIL: with interleaving on, $variant was not caught (exit $on)" >&2; exit 1; }
"$qdt" check --seeds "$seeds" --profile "$profile" --variant "$variant" --interleave off --max-shrinks 0 \
  --out "$out/off" --quiet >"$out/off.txt"
off=$?
[ $off -eq 0 ] || { echo "FAIL: with interleaving off, $variant was still caught (exit $off):" >&2; head -5 "$out/off.txt" >&2; exit 1; }
echo "ok: $variant is caught with statement interleaving on and not with it off ($seeds seeds of $profile)"
