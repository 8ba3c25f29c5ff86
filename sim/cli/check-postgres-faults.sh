#!/usr/bin/env bash
# Storage faults done to the PostgreSQL server (docs/semantics.md §8):
# scenarios/storage-faults-on-the-server.json cancels one push in its lock
# wait and ends the other's backend before COMMIT, passes, and gives the
# same trace hash in two processes.
# Usage: check-postgres-faults.sh QDT SOURCE_DIR
set -uo pipefail
# shellcheck source=sim/cli/postgres-script-env.sh
source "$(dirname "$0")/postgres-script-env.sh"
scenario=$src/scenarios/storage-faults-on-the-server.json

hashes=()
for run in 1 2; do
  timeout 120 "$qdt" replay "$scenario" --storage postgres --quiet --trace "$tmp/trace$run" >"$tmp/out" 2>"$tmp/err" ||
    fail "run $run did not pass: $(cat "$tmp/out")"
  hashes+=("$(sed -n 's/.*trace \([0-9a-f]*\).*/\1/p' "$tmp/out")")
done
[ -n "${hashes[0]}" ] && [ "${hashes[0]}" = "${hashes[1]}" ] || fail "trace hashes '${hashes[0]}' then '${hashes[1]}'"
grep -q '^[0-9]* fault c=broker [01] txn=push stmt=1 code=5 pg=cancel$' "$tmp/trace1" || fail "no push cancelled in its lock wait"
grep -q '^[0-9]* fault c=broker [01] txn=push stmt=2 code=10 pg=terminate$' "$tmp/trace1" ||
  fail "no backend ended before COMMIT"
# Neither failed push wrote: the fault events are followed by failed pushes only.
[ "$(grep -c ' -> failed stmt=' "$tmp/trace1")" -eq 2 ] || fail "expected two failed pushes"
echo "ok"
