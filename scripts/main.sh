#!/usr/bin/env bash
# The main job: installs what it needs, builds, replays every scenario, runs a
# short random campaign over every profile, and writes the reports to
# reports/out/ (replay.md, campaign.json; shrunk failures in reports/out/failures/).
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
echo "reports: reports/out/replay.md, reports/out/campaign.json"
exit $status
