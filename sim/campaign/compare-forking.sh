#!/usr/bin/env bash
# Forking at rare states against fresh seeds, side by side:
#   1. a plain campaign of SEEDS seeds per profile;
#   2. the same seeds with --fork-rare SHARE --forks N (R fork runs);
#   3. as many fresh seeds after them as fork runs (R, spread over the profiles).
# Prints, for arms 2 and 3, the extra runs, the failing runs, and the
# reachability points the extra runs reached that the plain campaign had not.
#   compare-forking.sh QDT PROFILE VARIANT SEEDS SHARE FORKS
set -euo pipefail
qdt=$1 profile=$2 variant=$3 seeds=$4 share=$5 forks=$6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common=(--profile "$profile" --variant "$variant" --jobs 1 --quiet --json --max-shrinks 0)
"$qdt" check "${common[@]}" --seeds "$seeds" --out "$work/plain" >"$work/plain.json" || true
"$qdt" check "${common[@]}" --seeds "$seeds" --fork-rare "$share" --forks "$forks" --out "$work/fork" >"$work/fork.json" || true
# As many fresh runs as fork runs, spread over the profiles as the seeds are.
per_profile=$(python3 -c "import json,math;b=json.load(open('$work/fork.json'));print(max(1,math.ceil(b['forking']['runs']/len(b['coverage_report']['profiles']))))")
"$qdt" check "${common[@]}" --seed "$((seeds + 1))" --seeds "$per_profile" --out "$work/fresh" >"$work/fresh.json" || true
python3 - "$work" "$profile" "$variant" "$seeds" "$share" "$forks" <<'PY'
import json, sys
work, profile, variant, seeds, share, forks = sys.argv[1:]
plain, fork, fresh = (json.load(open(f"{work}/{n}.json")) for n in ("plain", "fork", "fresh"))
def points(s):
    return {r["name"] for r in s["coverage_report"]["by_point"] if r["seeds"] > 0}
base = points(plain)
fork_points = {n for n, c in fork["forking"]["reached"].items() if c > 0}
print(f"{profile}, variant {variant}: {plain['seeds_run']} seeds ({plain['failed']} failing) in {plain['wall_s']:.2f} s")
print(f"  forking (--fork-rare {share} --forks {forks}): {fork['forking']['runs']} fork runs at "
      f"{len(fork['forking']['forked_at'])} rare points in {fork['wall_s'] - plain['wall_s']:.2f} s extra; "
      f"{len(fork['fork_failures'])} failing; new points {sorted(fork_points - base) or 'none'}")
print(f"  fresh seeds, as many runs: {fresh['seeds_run']} seeds in {fresh['wall_s']:.2f} s; "
      f"{fresh['failed']} failing; new points {sorted(points(fresh) - base) or 'none'}")
PY
