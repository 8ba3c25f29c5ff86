#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds, runs ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
