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
# Not caught: no seed fails. The campaign still exits 1 when no seed reached
# the points the variant's change sits on (it says "untested"): that is the
# same finding, that nothing ran between a probe and its allocation.
"$qdt" check --seeds "$seeds" --profile "$profile" --variant "$variant" --interleave off --max-shrinks 0 \
  --out "$out/off" --quiet --json >"$out/off.json"
off=$?
python3 - "$out/off.json" "$off" "$variant" <<'PY' || exit 1
import json, sys
summary, code, variant = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3]
if summary["failed"] or (code != 0 and "untested" not in summary):
    print(f"FAIL: with interleaving off, {variant} was still caught (exit {code}, {summary['failed']} seeds failed)",
          file=sys.stderr)
    sys.exit(1)
PY
echo "ok: $variant is caught with statement interleaving on and not with it off ($seeds seeds of $profile)"
