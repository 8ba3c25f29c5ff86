#!/usr/bin/env bash
# A foreign cache on PostgreSQL (docs/semantics.md §10.3), with qdt's own SQL
# and with it loaded as a user's --sql-dir: the sound fixture passes a short
# campaign of every profile, and its holed twin is caught (exit 1) with
# foreign SQL, its replay line naming both. Skips (77) only without rustc.
# Usage: check-postgres-foreign-cache.sh QDT SOURCE_DIR
set -uo pipefail
# shellcheck source=sim/cli/postgres-script-env.sh
source "$(dirname "$0")/postgres-script-env.sh"
# shellcheck source=sim/cli/foreign-cache-script-env.sh
source "$(dirname "$0")/foreign-cache-script-env.sh"
timeout 300 "$qdt" check --storage postgres --cache-impl "$sound" --profile all --seeds 2 --jobs 2 --quiet \
  >"$tmp/out" 2>"$tmp/err" || fail "the sound fixture failed on PostgreSQL"
grep -qF ", 0 failed;" "$tmp/out" || fail "no '0 failed'"
timeout 300 "$qdt" check --storage postgres --sql-dir "$src/impl/storage/postgres/sql" --cache-impl "$holed" \
  --profile multi-broker --seeds 8 --jobs 2 --quiet --max-shrinks 1 --out "$tmp/holed" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "the holed twin was not caught on PostgreSQL with --sql-dir"
grep -m1 "^    qdt replay" "$tmp/out" | grep -F -- "--sql-dir" | grep -qF -- "--cache-impl $holed/server/src/dedup.rs" ||
  fail "the replay line does not name the SQL and the module"
echo "PASS"
