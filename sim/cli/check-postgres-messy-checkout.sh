#!/usr/bin/env bash
# A checkout as messy as a user's (docs/semantics.md §9.4): qdt's own SQL with
# another feature's tables, trigger, seed rows, NOTICE-raising DDL and
# unused functions beside it (sim/testdata/messy-checkout). Every scenario
# and a short campaign of every profile run to the end and pass; acks are
# judged, not skipped; the server's notices never reach stderr (libpq would
# print them as "NOTICE:  ..." lines; a sanitizer's own ==PID==WARNING is
# not one). Then two
# broken acks: one whose answer is an error (a lease check the adapter
# cannot pass) is a finding of ack-resolution, and one that fails every
# call makes the campaign fail as hollow ("judged 0 of N acks").
# Usage: check-postgres-messy-checkout.sh QDT SOURCE_DIR
set -uo pipefail
# shellcheck source=sim/cli/postgres-script-env.sh
source "$(dirname "$0")/postgres-script-env.sh"
cd "$src" || exit 1
checkout="$tmp/messy/server/sql"
mkdir -p "$(dirname "$checkout")"
cp -r impl/storage/postgres/sql "$checkout"
cp sim/testdata/messy-checkout/procedures/*.sql "$checkout/procedures/"

timeout 600 "$qdt" replay scenarios/ --storage postgres --sql-dir "$checkout" --quiet >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] || fail "the scenarios on the messy checkout: $(grep -A3 '^FAIL' "$tmp/out" | head -20)"
! grep -Eq "^(NOTICE|WARNING|INFO): " "$tmp/err" || fail "the server's notices reached stderr"

timeout 900 "$qdt" check --storage postgres --sql-dir "$checkout" --profile all --seeds 12 --jobs 2 --quiet \
  >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] || fail "a campaign on the messy checkout: $(head -20 "$tmp/out")"
! grep -Eq "^(NOTICE|WARNING|INFO): " "$tmp/err" || fail "the server's notices reached stderr in a campaign"
judged=$(sed -n 's/.*acks judged \([0-9]*\) of \([0-9]*\).*/\1 \2/p' "$tmp/out")
read -r answered total <<<"$judged"
[ -n "$total" ] && [ "$total" -gt 0 ] && [ "$answered" -gt 0 ] || fail "acks not judged: '$judged'"
# The summary says which SQL ran; the notices its idempotent DDL raised are
# the run's data, in the JSON with the file and line that raised them.
grep -q "^  sql: --storage postgres --sql-dir '\?$checkout'\? (xxh128 [0-9a-f]\{32\})" "$tmp/out" ||
  fail "no sql line naming the checkout: $(grep '^  sql' "$tmp/out")"
timeout 300 "$qdt" check --storage postgres --sql-dir "$checkout" --profile default --seeds 2 --quiet --json \
  >"$tmp/out.json" 2>"$tmp/err"
python3 - "$tmp/out.json" <<'PY' || fail "the JSON summary does not carry the load's notices with their source"
import json, sys
sql = json.load(open(sys.argv[1]))["sql"]
assert sql["content_xxh128"] and sql["named_as"].startswith(" --storage postgres --sql-dir"), sql
assert any("NOTICE: " in m and "(in procedures/" in m for m in sql["server_messages"]), sql["server_messages"]
PY
! grep -Eq "^(NOTICE|WARNING|INFO): " "$tmp/err" || fail "the server's notices reached stderr with --json"

# An ack that checks a lease qdt never holds answers an error: a finding.
refusing="$tmp/refusing/server/sql"
mkdir -p "$(dirname "$refusing")" && cp -r "$checkout" "$refusing"
cat >"$refusing/procedures/095_ack_with_a_lease.sql" <<'SQL'
CREATE OR REPLACE FUNCTION queen.log_ack_by_hash_v1(p_pid uuid, p_consumer_group text, p_worker text,
    p_hashes bytea[], p_statuses text[]) RETURNS jsonb LANGUAGE sql AS
$$ SELECT '{"ok": false, "error": "invalid or expired lease"}'::jsonb $$;
SQL
timeout 120 "$qdt" replay scenarios/ack-before-and-after-purge.json --storage postgres --sql-dir "$refusing" \
  >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "an ack answering an error passed"
grep -q "ack-resolution at step a1: ack .*invalid or expired lease" "$tmp/out" ||
  fail "not reported by ack-resolution: $(cat "$tmp/out")"

# An ack that fails every call leaves nothing to judge: hollow, exit 1.
failing="$tmp/failing/server/sql"
mkdir -p "$(dirname "$failing")" && cp -r "$checkout" "$failing"
cat >"$failing/procedures/095_ack_that_fails.sql" <<'SQL'
CREATE OR REPLACE FUNCTION queen.log_ack_by_hash_v1(p_pid uuid, p_consumer_group text, p_worker text,
    p_hashes bytea[], p_statuses text[]) RETURNS jsonb LANGUAGE plpgsql AS
$$ BEGIN RAISE EXCEPTION 'QACK broken on purpose'; END $$;
SQL
timeout 300 "$qdt" check --storage postgres --sql-dir "$failing" --profile retention --seeds 4 --quiet \
  >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "a campaign in which every ack failed did not fail: $(cat "$tmp/out")"
grep -q "^hollow: judged 0 of [0-9]* acks" "$tmp/err" || fail "no hollow line: $(cat "$tmp/err")"
exit 0
