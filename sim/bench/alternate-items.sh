#!/usr/bin/env bash
# Two qdt binaries' `items` figures, measured in turns: BIN_A's
# `qdt bench --only items --json`, then BIN_B's, REPS times (B first in
# every other turn, so a spell that starts or ends mid-turn favours
# neither), so that a slow spell of a shared machine falls on both alike.
# Prints, per case, each binary's median over its runs (each run's figure
# is the fastest of five warm rounds, its `_median` row their median), B/A
# of those medians, and the paired ratio: the median over turns of B's
# figure over A's in the same turn, with its range, which drift between
# turns cannot move. Measures; asserts nothing about speed.
#
# Usage: sim/bench/alternate-items.sh [--quick] [--case NAME] BIN_A BIN_B [REPS]   (REPS: 5)
# --case runs that items case only (qdt bench --case), so a turn is much
# shorter than one over all four cases.
# Example (before/after a change): build a copy of the old tree, then
#   sim/bench/alternate-items.sh /tmp/qdt-before build/sim/qdt 10
set -euo pipefail
quick=()
narrow=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=(--quick); shift ;;
    --case)
      [ $# -ge 2 ] || { echo "$0: --case needs a case name" >&2; exit 2; }
      narrow+=(--case "$2"); shift 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 [--quick] [--case NAME] BIN_A BIN_B [REPS]" >&2
  exit 2
fi
a=$1 b=$2 reps=${3:-5}
for bin in "$a" "$b"; do
  [ -x "$bin" ] || { echo "$0: $bin: not an executable" >&2; exit 2; }
done
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "$0: REPS: expected a positive integer, got '$reps'" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for ((r = 1; r <= reps; ++r)); do
  echo "[alternate] round $r of $reps" >&2
  if ((r % 2 == 1)); then order=(a b); else order=(b a); fi
  for side in "${order[@]}"; do
    if [ "$side" = a ]; then bin=$a; else bin=$b; fi
    "$bin" bench "${quick[@]}" --only items "${narrow[@]}" --json >"$out/$side-$r.json" 2>/dev/null
  done
done
python3 - "$out" "$reps" "$a" "$b" <<'PY'
import json, statistics, sys
out, reps, a, b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def figures(side):
    runs = [{f["name"]: f["value"] for f in json.load(open(f"{out}/{side}-{r}.json"))["figures"]}
            for r in range(1, reps + 1)]
    names = [n for n in runs[0] if n.startswith("items_per_s.")]
    return {n: [run[n] for run in runs] for n in names}
fa, fb = figures("a"), figures("b")
print(f"A = {a}\nB = {b}\n{reps} alternated runs each; medians of the runs' figures (items/s)")
print(f"{'case':32s} {'A':>10s} {'B':>10s} {'B/A':>6s} {'paired':>6s} {'range':>11s}")
for name in fa:
    ma, mb = statistics.median(fa[name]), statistics.median(fb[name])
    pairs = sorted(y / x for x, y in zip(fa[name], fb[name]))
    print(f"{name:32s} {ma:10.0f} {mb:10.0f} {mb / ma:6.2f} {statistics.median(pairs):6.2f} "
          f"{pairs[0]:.2f}-{pairs[-1]:.2f}")
PY
