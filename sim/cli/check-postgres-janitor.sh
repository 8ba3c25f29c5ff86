#!/usr/bin/env bash
# A qdt killed in the middle of a campaign on a server the user runs
# (--pg-url) leaves no database there: its janitor drops them once qdt and
# its forked workers are gone, whether they ended by SIGKILL or SIGTERM, and
# drops nothing else: the user's databases named as qdt names its own (with
# qdt's pid in them) stay, rows and all. The server is one this script starts
# (as the postgres user, Unix socket only).
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
  for _ in $(seq 150); do
    [ "$(sql "SELECT count(*) FROM pg_database WHERE datname LIKE 'qdt\_run\_%'")" -ge 2 ] && break
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
  echo "ok: SIG$sig left no database of its own and no janitor, and the user's databases alone"
done
