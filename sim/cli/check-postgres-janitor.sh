#!/usr/bin/env bash
# A qdt killed in the middle of a campaign on a server the user runs
# (--pg-url) leaves no database there: its janitor drops them once qdt and
# its forked workers are gone, whether they ended by SIGKILL or SIGTERM, and
# drops nothing else: the user's databases named as qdt names its own (with
# qdt's pid in them) stay, rows and all. The server is one this script starts
# (as the postgres user, Unix socket only). A DBA ending qdt's backends
# mid-campaign, or a server out of connections, is exit 2 with the server's
# reason and a resume command that continues the campaign: never an
# assertion, never a finding.
#   check-postgres-janitor.sh QDT [BIN_DIR]
set -uo pipefail
qdt=$1
bin=${2:-/usr/lib/postgresql/15/bin}
fail() { echo "FAIL: $*" >&2; exit 1; }
dir=$(mktemp -d)
chmod 755 "$dir"
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  as_postgres "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT
[ "$(id -u)" = 0 ] && chown postgres "$dir"
as_postgres "$bin/initdb" -D "$dir/data" -A trust -U postgres >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log"; fail "initdb"; }
as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-k $dir -c listen_addresses='' -c fsync=off -c max_connections=100" start >/dev/null || { cat "$dir/server.log"; fail "server start"; }
url="host=$dir dbname=postgres user=postgres"
sql() { "$bin/psql" "$url" -Atqc "$1"; }
qdt_databases() { sql "SELECT count(*) FROM pg_database WHERE datname LIKE 'qdt\_%' AND datname NOT LIKE '%precious'"; }
# This script's own: another test's qdt may have a janitor of its own.
janitors() {
  for p in $(pgrep -x qdt-janitor); do grep -aq -- "$dir" "/proc/$p/cmdline" 2>/dev/null && echo "$p"; done | wc -l
}

for sig in KILL TERM; do
  "$qdt" check --storage postgres --pg-url "$url" --profile default --seeds 100000 --jobs 2 --quiet \
    --out "$dir/out-$sig" >/dev/null 2>&1 &
  pid=$!
  for name in "qdt_run_${pid}_precious" "qdt_template_${pid}_precious" "qdt_run_${pid}_${pid}_0_precious"; do
    sql "CREATE DATABASE \"$name\"" >/dev/null
    "$bin/psql" "host=$dir dbname=$name user=postgres" -Atqc "CREATE TABLE rows AS SELECT 42 AS x" >/dev/null
  done
  # Another client of the user's, connected to one of those databases.
  "$bin/psql" "host=$dir dbname=qdt_run_${pid}_precious user=postgres application_name=users_client" \
    -Atqc "SELECT pg_sleep(120)" >/dev/null 2>&1 &
  client=$!
  # qdt's own databases: the user's precious ones above already match qdt_run_%.
  for _ in $(seq 150); do
    [ "$(qdt_databases)" -ge 2 ] && break
    sleep 0.2
  done
  [ "$(qdt_databases)" -ge 2 ] || fail "qdt made no databases on the server before SIG$sig"
  [ "$(janitors)" -ge 1 ] || fail "no janitor runs beside qdt"
  kill -"$sig" "$pid"
  wait "$pid" 2>/dev/null
  for _ in $(seq 150); do
    [ "$(qdt_databases)" -eq 0 ] && [ "$(janitors)" -eq 0 ] && break
    sleep 0.2
  done
  left=$(sql "SELECT string_agg(datname, ' ') FROM pg_database WHERE datname LIKE 'qdt\_%' AND datname NOT LIKE '%precious'")
  [ -z "$left" ] || fail "SIG$sig left databases on the server: $left"
  [ "$(janitors)" -eq 0 ] || fail "the janitor outlived its work after SIG$sig"
  for name in "qdt_run_${pid}_precious" "qdt_template_${pid}_precious" "qdt_run_${pid}_${pid}_0_precious"; do
    kept=$("$bin/psql" "host=$dir dbname=$name user=postgres" -Atqc "SELECT x FROM rows" 2>&1)
    [ "$kept" = 42 ] || fail "SIG$sig: the user's database $name was not left alone: $kept"
  done
  [ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'users_client'")" -eq 1 ] ||
    fail "SIG$sig: the user's other client lost its backend"
  kill "$client" 2>/dev/null
  sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'users_client'" >/dev/null
  echo "ok: SIG$sig left no database of its own and no janitor, and the user's databases and clients alone"
done

# A DBA (or a failover) ends qdt's backends in the middle of a campaign.
"$qdt" check --storage postgres --pg-url "$url" --profile default --seeds 100000 --jobs 2 --quiet \
  --out "$dir/dba" >/dev/null 2>"$dir/dba.err" &
pid=$!
for _ in $(seq 150); do
  [ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE datname LIKE 'qdt\_run\_%'")" -ge 4 ] && break
  sleep 0.2
done
sleep 1
sql "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname LIKE 'qdt\_%'" >/dev/null
timeout 60 tail --pid="$pid" -f /dev/null
wait "$pid"
code=$?
[ $code -eq 2 ] || fail "backends ended by a DBA: exit $code, expected 2: $(grep -v WARNING "$dir/dba.err" | tail -3)"
grep -q "not a finding: the storage engine failed" "$dir/dba.err" || fail "no engine error: $(tail -3 "$dir/dba.err")"
line=$(grep -A1 "to run the rest" "$dir/dba.err" | tail -1 | sed 's/^  qdt //')
[ -n "$line" ] || fail "no resume command"
eval "timeout 120 \"\$qdt\" $line --pg-url \"\$url\" --time-budget 2 --quiet" >/dev/null 2>"$dir/resume.err"
[ $? -le 1 ] || fail "the printed resume command: $(tail -3 "$dir/resume.err")"
echo "ok: backends ended by a DBA: exit 2 with the reason, and the campaign resumes as printed"

# More workers than the server lets qdt's role connect (a role with
# CREATEDB, the one privilege qdt needs, and a connection limit).
sql "CREATE ROLE qdt_limited LOGIN CREATEDB CONNECTION LIMIT 8" >/dev/null
timeout 120 "$qdt" check --storage postgres --pg-url "host=$dir dbname=postgres user=qdt_limited" --profile default \
  --seeds 200 --jobs 4 --quiet >/dev/null 2>"$dir/many.err"
code=$?
[ $code -eq 2 ] && grep -q "too many connections" "$dir/many.err" ||
  fail "a server out of connections: exit $code: $(grep -v WARNING "$dir/many.err" | tail -3)"
echo "ok: a server out of connections is exit 2 with its reason"
