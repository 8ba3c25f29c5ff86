#!/usr/bin/env bash
# sim/bench/alternate-items.sh end to end, in its quick form: two turns of
# each binary (the second in the other order), a row per items case with
# both figures, their ratio and the paired ratio with its range; bad usage
# exits 2. Shape only, never a speed. Usage: check-alternate-items.sh QDT
set -euo pipefail
qdt=$1
here=$(cd "$(dirname "$0")" && pwd)
out=$(bash "$here/alternate-items.sh" --quick "$qdt" "$qdt" 2 2>/dev/null)
for case in batch1 batch10 batch1_checked batch10_checked batch1_cold batch10_cold; do
  echo "$out" | grep -Eq "^items_per_s\.$case +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}-[0-9]+\.[0-9]{2}$" ||
    { echo "FAIL: no row for $case" >&2; echo "$out" >&2; exit 1; }
done
# --case passes through: that case's rows only.
one=$(bash "$here/alternate-items.sh" --quick --case batch10 "$qdt" "$qdt" 1 2>/dev/null)
echo "$one" | grep -Eq "^items_per_s\.batch10 " && ! echo "$one" | grep -Eq "^items_per_s\.batch1 " ||
  { echo "FAIL: --case batch10 did not narrow the rows" >&2; echo "$one" >&2; exit 1; }
for bad in "" "$qdt" "$qdt $qdt 0" "$qdt /nonexistent 1" "--case" "--case batch2 $qdt $qdt 1"; do
  # shellcheck disable=SC2086
  if bash "$here/alternate-items.sh" $bad >/dev/null 2>&1; then echo "FAIL: '$bad' must be refused" >&2; exit 1; fi
  set +e
  # shellcheck disable=SC2086
  bash "$here/alternate-items.sh" $bad >/dev/null 2>&1
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || { echo "FAIL: '$bad' exits $rc, not 2" >&2; exit 1; }
done
echo "alternate-items: ok"
