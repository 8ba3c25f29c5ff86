#!/usr/bin/env bash
# The main job: installs what it needs, builds, replays every scenario and
# writes the summary report to reports/out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
mkdir -p reports/out
status=0
./build/qdt replay scenarios/ --report reports/out/replay.md || status=$?
echo "report: reports/out/replay.md"
exit $status
