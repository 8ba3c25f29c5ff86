#!/usr/bin/env bash
# SQL that serializes on row locks alone (sim/testdata/row-locks-only: qdt's
# SQL without its turns) runs campaigns to one digest: one commit must never
# wake two waiters that then race for the next lock (docs/semantics.md
# §9.4). Without qdt holding back a transaction's first statement while
# another client waits, bundles gave a different digest nearly every run.
# Usage: check-postgres-row-locks.sh QDT SOURCE_DIR
set -uo pipefail
# shellcheck source=sim/cli/postgres-script-env.sh
source "$(dirname "$0")/postgres-script-env.sh"
cd "$src" || exit 1
checkout="$tmp/row-locks/server/sql"
mkdir -p "$checkout"
cp -r impl/storage/postgres/sql/. "$checkout/"
cp sim/testdata/row-locks-only/procedures/*.sql "$checkout/procedures/"

digest() {
  timeout 600 "$qdt" check --storage postgres --sql-dir "$checkout" --profile "$1" --seeds "$2" --jobs 2 --quiet \
    --json >"$tmp/out.json" 2>"$tmp/err"
  local code=$?
  [ $code -eq 0 ] || fail "$1 on SQL with row locks alone: exit $code"
  sed -n 's/.*"campaign_digest": "\([0-9a-f]*\)".*/\1/p' "$tmp/out.json"
}

for profile in bundles multi-broker; do
  first=$(digest $profile 40)
  second=$(digest $profile 40)
  [ -n "$first" ] || fail "no digest for $profile"
  [ "$first" = "$second" ] || fail "$profile on SQL with row locks alone: digests $first and $second"
  echo "ok: $profile twice, digest $first"
done
