#!/usr/bin/env bash
# Foreign SQL (docs/semantics.md §9.4), with qdt's own SQL laid out as a
# user's checkout of Queen's server/sql would be (in a folder whose name
# needs quoting): loaded through --sql-dir every seed passes as on the
# embedded copy, and a folder and files give one digest; a failure found on it prints a replay command that carries
# the folder and fails as printed; --resume runs only the SQL its own
# command line names, and refuses a journal that names other SQL or names
# SQL by path; a statement that fails
# to load, a missing function, a lock variant on foreign SQL and the flags
# without --storage postgres are refused with exit 2 and the reason; a
# failing definition the adapter never calls is a warning; SQL without the
# window guard is driven without it and fails what the guard prevents.
# Usage: check-postgres-foreign-sql.sh QDT SOURCE_DIR
set -uo pipefail
# shellcheck source=sim/cli/postgres-script-env.sh
source "$(dirname "$0")/postgres-script-env.sh"
cd "$src" || exit 1
checkout="$tmp/my queen/server/sql"
mkdir -p "$(dirname "$checkout")"
cp -r impl/storage/postgres/sql "$checkout"
# A copy of the checkout at $1.
copy_checkout() { mkdir -p "$(dirname "$1")" && cp -r "$checkout" "$1"; }
digest() { sed -n 's/.*digest \([0-9a-f]*\).*/\1/p'; }

# The same SQL through --sql-dir is judged the same: every seed passes. The
# digests differ by design: foreign SQL runs with a transaction's first
# statement held back while another client waits (docs/semantics.md §9.2),
# so the two loads of it, a folder and files, must agree to the digest.
summary() { sed -n 's/^\([0-9]* seeds ([^)]*): [0-9]* passed, [0-9]* failed\).*/\1/p'; }
own=$(timeout 300 "$qdt" check --storage postgres --profile default --seeds 10 --quiet 2>&1 | summary)
[ "$own" = "10 seeds (default, variant none, 1 jobs): 10 passed, 0 failed" ] || fail "embedded: '$own'"
timeout 300 "$qdt" check --storage postgres --sql-dir "$checkout" --profile default --seeds 10 --quiet >"$tmp/out" 2>"$tmp/err"
[ "$(summary <"$tmp/out")" = "$own" ] || fail "--sql-dir: '$(summary <"$tmp/out")', embedded '$own'"
foreign=$(digest <"$tmp/out")
files=$(timeout 300 "$qdt" check --storage postgres --sql "$checkout/schema.sql" --sql "$checkout/procedures/001_log_schema.sql" \
  --sql "$checkout/procedures/003_log_push.sql" --sql "$checkout/procedures/005_log_ack.sql" \
  --sql "$checkout/procedures/006_log_maintenance.sql" --profile default --seeds 10 --quiet 2>"$tmp/err" | digest)
[ -n "$foreign" ] && [ "$foreign" = "$files" ] || fail "digests: --sql-dir '$foreign', --sql files '$files'"

# A failure on foreign SQL replays on it, as printed (the folder quoted).
timeout 300 "$qdt" check --storage postgres --sql-dir "$checkout" --variant last-wins --profile default --seeds 5 \
  --quiet --out "$tmp/fail" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "last-wins not caught on foreign SQL"
line=$(sed -n 's/^    qdt \(replay .*\)/\1/p' "$tmp/out" | head -1)
case "$line" in *"--sql-dir '$checkout'"*) ;; *) fail "the replay command lacks the quoted --sql-dir: $line" ;; esac
eval "timeout 60 \"\$qdt\" $line --quiet" >/dev/null 2>&1
[ $? -eq 1 ] || fail "the printed command does not fail as printed: $line"

# --resume keeps the journal's SQL, and refuses another.
timeout 300 "$qdt" check --storage postgres --sql-dir "$checkout" --profile default --seeds 3 --quiet --out "$tmp/journal" \
  >/dev/null 2>"$tmp/err" || fail "a short campaign on foreign SQL"
grep -rq "my queen/server/sql" "$tmp/journal" --include=campaign.json || fail "the journal does not record the SQL"
timeout 60 "$qdt" check --resume "$tmp/journal" --storage postgres --sql "$checkout/schema.sql" --quiet >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "not the SQL this command names" "$tmp/err" || fail "--resume with other SQL"
timeout 60 "$qdt" check --resume "$tmp/journal" --quiet >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "which this command does not name" "$tmp/err" || fail "--resume took the SQL from the journal"
timeout 120 "$qdt" check --resume "$tmp/journal" --storage postgres --sql-dir "$checkout" --quiet >/dev/null 2>"$tmp/err" ||
  fail "--resume naming the campaign's own SQL again"

# A journal is data: one that names SQL running a shell command loads
# nothing, whether it names it by path (the older format) or by content.
evil="$tmp/evil/server/sql"
copy_checkout "$evil"
printf "\nCOPY (SELECT 1) TO PROGRAM 'touch %s';\n" "$tmp/ran-a-command" >>"$evil/procedures/006_log_maintenance.sql"
timeout 300 "$qdt" check --storage postgres --profile default --seeds 2 --quiet --out "$tmp/handed" >/dev/null 2>"$tmp/err" ||
  fail "a short campaign on qdt's own SQL"
manifest="$tmp/handed/journal/campaign.json"
python3 - "$manifest" "$evil" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["format"] = "qdt-campaign-journal-2"
m["sql"] = {"dir": sys.argv[2], "files": []}
json.dump(m, open(sys.argv[1], "w"))
PY
timeout 60 "$qdt" check --resume "$tmp/handed" --quiet >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "campaign.json: /sql: names its SQL by path only" "$tmp/err" || fail "a journal naming SQL by path"
python3 - "$manifest" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["format"] = "qdt-campaign-journal-3"
m["sql"] = {"content_xxh128": "0" * 32, "named_as": " --storage postgres --sql-dir evil\n; rm -rf ~"}
json.dump(m, open(sys.argv[1], "w"))
PY
# The parts' checksums cover the SQL's content: relabelled, they are refused.
timeout 60 "$qdt" check --resume "$tmp/handed" --quiet >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "part-r0000-w00-000000.json: /checksum: does not match" "$tmp/err" || fail "a relabelled journal's parts"
rm "$tmp/handed/journal/"part-*.json
timeout 60 "$qdt" check --resume "$tmp/handed" --quiet >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "which this command does not name" "$tmp/err" || fail "a journal naming SQL by content"
[ "$(grep -c 'rm -rf' "$tmp/err")" -eq 1 ] && ! grep -q '^; rm' "$tmp/err" || fail "the journal's words reached the terminal raw"
timeout 60 "$qdt" check --resume "$tmp/handed" --storage postgres --sql-dir "$evil" --quiet >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "not the SQL this command names" "$tmp/err" || fail "a resume on other SQL than the journal's"
[ ! -e "$tmp/ran-a-command" ] || fail "a journal made qdt run a shell command"

# Refusals, each before anything runs.
broken="$tmp/broken/server/sql"
copy_checkout "$broken"
printf '\nSELECT 1;\nCREATE TABLE queen.oops (x nosuchtype);\n' >>"$broken/procedures/005_log_ack.sql"
timeout 60 "$qdt" replay scenarios/basic-duplicate.json --storage postgres --sql-dir "$broken" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "procedures/005_log_ack.sql:[0-9]*: type \"nosuchtype\" does not exist" "$tmp/err" ||
  fail "a statement that fails to load"
missing="$tmp/missing/server/sql"
copy_checkout "$missing"
rm "$missing/procedures/005_log_ack.sql"
timeout 60 "$qdt" replay scenarios/basic-duplicate.json --storage postgres --sql-dir "$missing" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "missing queen.log_ack_by_hash_v1(uuid, text, text, bytea\[\], text\[\])" "$tmp/err" ||
  fail "a missing function"
timeout 60 "$qdt" replay scenarios/basic-duplicate.json --storage postgres --sql-dir "$checkout" \
  --variant probe-outside-lock >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "replaces a function of qdt's own SQL" "$tmp/err" || fail "a lock variant on foreign SQL"
timeout 60 "$qdt" replay scenarios/basic-duplicate.json --sql-dir "$checkout" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "need --storage postgres" "$tmp/err" || fail "--sql-dir without --storage postgres"
timeout 60 "$qdt" replay scenarios/basic-duplicate.json --storage postgres --sql-adapter queen-log-v2 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "the only adapter is queen-log-v1" "$tmp/err" || fail "an unknown adapter"

# A failing definition the adapter never calls: a warning, and the run goes on.
extra="$tmp/extra/server/sql"
copy_checkout "$extra"
printf 'CREATE FUNCTION queen.dashboard() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN; END $$;\n' \
  >"$extra/procedures/009_dashboard.sql"
timeout 60 "$qdt" replay scenarios/basic-duplicate.json --storage postgres --sql-dir "$extra" --quiet >/dev/null 2>"$tmp/err" ||
  fail "an uncalled failing definition stopped the run"
grep -q "warning: --sql: procedures/009_dashboard.sql:1: .*dashboard, which the adapter never calls" "$tmp/err" ||
  fail "no warning for an uncalled failing definition"

# SQL without the window guard (as Queen ships it: every watermark trusted)
# is driven without it, and what the guard closes opens: a watermark from
# before a window was widened skips the rows the wider window reaches.
unguarded="$tmp/unguarded/server/sql"
copy_checkout "$unguarded"
cat >"$unguarded/procedures/009_no_window_guard.sql" <<'SQL'
DROP FUNCTION queen.log_push_one_v1(text, text, int, bytea, bigint, bytea, uuid, int, uuid, int);
CREATE FUNCTION queen.log_push_one_v1(p_queue text, p_partition text, p_msg_count int, p_hashes bytea,
    p_verified bigint, p_blob bytea, p_pid uuid DEFAULT NULL, p_window int DEFAULT NULL,
    p_tenant uuid DEFAULT '00000000-0000-0000-0000-000000000001') RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
    RETURN queen.qdt_push_segment(coalesce(p_pid, (queen.qdt_resolve_partition(p_queue, p_partition, p_tenant)).r_pid),
                                  p_window, p_msg_count, p_hashes, p_verified, p_blob, 2147483647);
END $$;
SQL
widen=scenarios/regress/cache-watermark-after-widen.json
timeout 60 "$qdt" replay "$widen" --storage postgres --quiet >/dev/null 2>&1 || fail "the reference fails $widen"
timeout 60 "$qdt" replay "$widen" --storage postgres --sql-dir "$unguarded" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "SQL without the window guard passes $widen"
grep -q "with no window guard (log_push_one_v1 takes no p_window_assumed): storage cannot refuse" "$tmp/err" ||
  fail "no note of the missing guard: $(cat "$tmp/err")"
! grep -q "qdt_" "$tmp/err" || fail "the note names qdt's own helpers as missing: $(cat "$tmp/err")"
grep -q "item repeat/0: expected duplicate, got queued" "$tmp/out" || fail "not the widened window's repeat: $(cat "$tmp/out")"
exit 0
