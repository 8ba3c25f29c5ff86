#!/usr/bin/env bash
# Configures and builds qdt into build/ (Release with assertions kept on), and
# puts qdt on PATH, because the reproduction commands qdt prints start with `qdt`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
bash scripts/link-qdt.sh "$PWD/build/sim/qdt"
