#!/usr/bin/env bash
# The main job: installs what it needs, builds, replays every scenario, runs a
# short random campaign over every profile, the variant catalogue (qdt
# mutants) and the example sweep, and writes the reports to reports/out/:
# index.html links every page it wrote (the campaign, the variants, the
# sweep) and the JSON and Markdown beside them; shrunk failures go to
# reports/out/failures/ and reports/out/mutants/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
mkdir -p reports/out
status=0
./build/sim/qdt replay scenarios/ --report reports/out/replay.md || status=$?
echo
./build/sim/qdt check --seeds 200 --profile all --jobs "$(nproc)" --out reports/out/failures \
  --html reports/out/campaign.html || status=$?
./build/sim/qdt check --seeds 200 --profile all --jobs "$(nproc)" --out reports/out/failures --json --quiet --no-html \
  > reports/out/campaign.json || true
echo
./build/sim/qdt mutants --seeds 200 --jobs "$(nproc)" --out reports/out/mutants --report reports/out/mutants || status=$?
echo
./build/sim/qdt explore scenarios/sweeps/cache-budget.json --jobs "$(nproc)" --out reports/out || status=$?
bash scripts/write-index.sh reports/out
echo "reports: reports/out/index.html"
exit $status
