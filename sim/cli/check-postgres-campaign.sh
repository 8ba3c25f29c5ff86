#!/usr/bin/env bash
# The reference on PostgreSQL passes 200 seeds of every profile it runs
# (docs/semantics.md §9; the profile bundles included, power-loss left out).
# Usage: check-postgres-campaign.sh QDT SOURCE_DIR
set -uo pipefail
# shellcheck source=sim/cli/postgres-script-env.sh
source "$(dirname "$0")/postgres-script-env.sh"
timeout 1500 "$qdt" check --storage postgres --profile all --seeds 200 --jobs 2 --quiet --out "$tmp/failures" \
  >"$tmp/out" 2>"$tmp/err"
status=$?
[ $status -eq 0 ] || fail "exit $status: $(grep -v '^  coverage' "$tmp/out" | head -12)"
grep -q "^2200 seeds (all, variant none, 2 jobs): 2200 passed, 0 failed" "$tmp/out" || fail "$(head -1 "$tmp/out")"
echo "ok"
