#!/usr/bin/env bash
# Regenerates the six curated studies under reports/studies/results/ (the
# command of each is also written at the top of its report), with the commit
# recorded. Study 2 (100 800 pushes) takes most of the time.
# Usage: reports/studies/regenerate.sh [JOBS] [STUDY...]
# STUDY names a sweep file (reports/studies/NAME.json) or variant-catalogue.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
jobs=${1:-2}
shift || true
qdt=build/sim/qdt
[ -x "$qdt" ] || bash scripts/build.sh
export QDT_COMMIT=${QDT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
studies=("$@")
if [ ${#studies[@]} -eq 0 ]; then
  studies=(probe-work-vs-cache-budget sidecar-depth-vs-rate-and-window zero-id-duplicates-vs-retention
           repeats-vs-retry-backoff variant-catalogue double-writes-vs-skew double-writes-vs-time-since-widening)
fi
mkdir -p reports/studies/results
for s in "${studies[@]}"; do
  echo "== $s" >&2
  if [ "$s" = variant-catalogue ]; then
    rm -rf reports/studies/results/variant-catalogue-replays
    # Exit 1 would mean a hole: the report is still written, and the script says so.
    code=0
    "$qdt" mutants --seeds 500 --jobs "$jobs" --quiet --out reports/studies/results/variant-catalogue-replays \
      --report reports/studies/results/variant-catalogue >/dev/null || code=$?
    [ $code -le 1 ] || { echo "error: qdt mutants exited $code" >&2; exit $code; }
    [ $code -eq 0 ] || echo "qdt mutants found a hole: see the report" >&2
  else
    # Exit 1 is expected where a study compares a variant that breaks the contract.
    code=0
    "$qdt" explore "reports/studies/$s.json" --out reports/studies/results --jobs "$jobs" --quiet >/dev/null || code=$?
    [ $code -le 1 ] || { echo "error: qdt explore $s exited $code" >&2; exit $code; }
    [ -s "reports/studies/results/$s.json" ] || { echo "error: $s wrote no report" >&2; exit 1; }
  fi
done
echo "reports/studies/results: ${#studies[@]} studies regenerated at $QDT_COMMIT" >&2
