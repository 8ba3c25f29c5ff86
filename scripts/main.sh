#!/usr/bin/env bash
# The main job: installs what it needs, builds, replays every scenario, runs a
# short random campaign over every profile, the variant catalogue (qdt
# mutants) and the example sweep, and writes the reports to reports/out/
# (replay.md, campaign.json, mutants.json, cache-budget.{md,html,json}; shrunk
# failures in reports/out/failures/ and reports/out/mutants/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
mkdir -p reports/out
status=0
./build/sim/qdt replay scenarios/ --report reports/out/replay.md || status=$?
echo
./build/sim/qdt check --seeds 200 --profile all --jobs "$(nproc)" --out reports/out/failures || status=$?
./build/sim/qdt check --seeds 200 --profile all --jobs "$(nproc)" --out reports/out/failures --json --quiet \
  > reports/out/campaign.json || true
echo
./build/sim/qdt mutants --seeds 200 --jobs "$(nproc)" --out reports/out/mutants --quiet || status=$?
./build/sim/qdt mutants --seeds 200 --jobs "$(nproc)" --out reports/out/mutants --json --quiet \
  > reports/out/mutants.json || true
echo
./build/sim/qdt explore scenarios/sweeps/cache-budget.json --jobs "$(nproc)" --out reports/out || status=$?
echo "reports: reports/out/replay.md, reports/out/campaign.json, reports/out/mutants.json, reports/out/cache-budget.html"
exit $status
