#!/usr/bin/env bash
# The world on PostgreSQL (docs/semantics.md §9): every scenario PostgreSQL
# can run gives the verdict it gives on SQLite, what it cannot run is
# skipped in a folder or refused with exit 2 and its reason, every lock
# variant is caught and their shrunk files replay as printed, the same scenario gives the same trace
# hash in two processes, a short campaign gives the same digest twice (one
# process, then two forked workers), and SIGTERM to a running campaign, or
# to one still making its cluster, leaves no server process and no folder.
# Usage: check-postgres.sh QDT SOURCE_DIR
set -uo pipefail
# shellcheck source=sim/cli/postgres-script-env.sh
source "$(dirname "$0")/postgres-script-env.sh"
cd "$src" || exit 1

# A folder's scenarios run on PostgreSQL but those it cannot run, which are
# skipped and named; the same file named on the command line is refused.
verdicts() { python3 -c 'import json,sys; [print(r["scenario"], r["passed"], r["trace_hash"]) for r in json.load(sys.stdin)]'; }
timeout 600 "$qdt" replay scenarios --storage postgres --json --quiet 2>"$tmp/err" | verdicts >"$tmp/pg1"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "replay scenarios --storage postgres"
grep -q "PostgreSQL cannot run it: crash_storage" "$tmp/err" || fail "no reason for a skipped file"
sed -n 's/^skipped: \([^:]*\): PostgreSQL cannot run it: .*/\1/p' "$tmp/err" | sort >"$tmp/refused"
[ -s "$tmp/refused" ] || fail "no skipped file named"
find scenarios -name '*.json' -not -path '*/schema/*' -not -path '*/sweeps/*' | sort | grep -vxFf "$tmp/refused" >"$tmp/runnable"
for f in $(cat "$tmp/refused"); do grep -q crash_storage "$f" || fail "$f skipped without crash_storage"; done
[ "$(wc -l <"$tmp/pg1")" -eq "$(wc -l <"$tmp/runnable")" ] || fail "postgres replay ran $(wc -l <"$tmp/pg1") scenarios"
# scenarios/postgres/ (bundles) is PostgreSQL's alone: compared with SQLite without it.
grep -v '^scenarios/postgres/' "$tmp/runnable" >"$tmp/both"
timeout 60 "$qdt" replay "$(head -1 "$tmp/refused")" --storage postgres --quiet >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "PostgreSQL cannot run it: crash_storage" "$tmp/err" || fail "a named crash_storage file on postgres"
timeout 60 "$qdt" check --storage postgres --profile power-loss --seeds 2 --quiet >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "needs crash_storage" "$tmp/err" || fail "check --profile power-loss on postgres"
timeout 60 "$qdt" replay scenarios/basic-duplicate.json --storage postgres --variant bloom-filter >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "needs SQL of its own" "$tmp/err" || fail "an unsupported variant on postgres"
timeout 60 "$qdt" replay scenarios/basic-duplicate.json --storage postgres --pg-url "host=$tmp/none" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "cannot connect" "$tmp/err" || fail "a refused connection"

# --profile all runs every profile but power-loss, with a note.
timeout 120 "$qdt" check --storage postgres --profile all --seeds 1 >"$tmp/out" 2>"$tmp/err" || fail "check --profile all on postgres"
grep -q "every profile but power-loss" "$tmp/err" || fail "no note that profile all leaves out power-loss"
grep -q "^11 seeds (all" "$tmp/out" || fail "profile all on postgres ran: $(head -1 "$tmp/out")"

# Each lock variant in SQL of its own is caught, shrunk to a file whose
# printed command fails as printed, and the reference passes that file.
for caught in "probe-outside-lock 1 6" "stamp-before-lock 97 1" "no-row-lock 5 1"; do
  read -r variant first seeds <<<"$caught"
  timeout 300 "$qdt" check --storage postgres --variant "$variant" --profile multi-broker --seed "$first" --seeds "$seeds" --quiet \
    --out "$tmp/$variant" >"$tmp/out" 2>"$tmp/err"
  [ $? -eq 1 ] || fail "$variant not caught on postgres in seeds $first to $((first + seeds - 1))"
  replay=$(sed -n 's/^    qdt replay \(.*\)/\1/p' "$tmp/out" | head -1)
  [ -n "$replay" ] || fail "no replay command printed"
  case "$replay" in *"--storage postgres"*"--variant $variant"* | *"--variant $variant"*"--storage postgres"*) ;;
    *) fail "the replay command lacks --storage or --variant: $replay" ;; esac
  # shellcheck disable=SC2086
  timeout 60 "$qdt" replay $replay --quiet >/dev/null 2>&1
  [ $? -eq 1 ] || fail "the shrunk file passes as printed: $replay"
  file=$(ls "$tmp/$variant"/*.json | head -1)
  timeout 60 "$qdt" replay "$file" --storage postgres --quiet >/dev/null 2>&1 || fail "the reference fails $file"
done

# Same verdicts as SQLite.
timeout 300 "$qdt" replay $(cat "$tmp/both") --json --quiet 2>"$tmp/err" | verdicts >"$tmp/sqlite" || fail "sqlite replay"
join <(cut -d' ' -f1,2 "$tmp/sqlite" | sort) <(cut -d' ' -f1,2 "$tmp/pg1" | sort) | while read -r name lite pg; do
  [ "$lite" = "$pg" ] && continue
  echo "FAIL: $name passes on SQLite: $lite, on PostgreSQL: $pg" >&2
  exit 1
done || exit 1
# No hash is shared with SQLite (the world names its engine in the trace).
join <(cut -d' ' -f1,3 "$tmp/sqlite" | sort) <(cut -d' ' -f1,3 "$tmp/pg1" | sort) | awk '$2 == $3 {exit 1}' ||
  fail "a PostgreSQL trace hash equals SQLite's"

# Same trace hash in another process (the concurrent scenarios).
concurrent=$(grep -lE '"parallel"|"brokers"' $(cat "$tmp/runnable") | head -8)
timeout 300 "$qdt" replay $concurrent --storage postgres --json --quiet 2>"$tmp/err" | verdicts >"$tmp/pg2"
while read -r name passed hash; do
  grep -qx "$name $passed $hash" "$tmp/pg1" || fail "$name: another process gave $passed $hash"
done <"$tmp/pg2"

# A short campaign: the same digest twice, in one process and in two workers.
digest() { sed -n 's/.*digest \([0-9a-f]*\).*/\1/p'; }
one=$(timeout 300 "$qdt" check --storage postgres --profile default --seeds 30 --quiet 2>&1 | digest)
two=$(timeout 300 "$qdt" check --storage postgres --profile default --seeds 30 --jobs 2 --quiet 2>&1 | digest)
[ -n "$one" ] && [ "$one" = "$two" ] || fail "check --storage postgres digests: '$one' then '$two'"

# SIGTERM to a running campaign stops its server and removes its folder.
"$qdt" check --storage postgres --profile default --seeds 100000 --jobs 2 --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do
  [ -n "$(ls -d "$tmp"/qdt-pg-* 2>/dev/null)" ] && break
  sleep 0.1
done
folder=$(ls -d "$tmp"/qdt-pg-* 2>/dev/null)
[ -n "$folder" ] || fail "no cluster folder appeared"
sleep 3
kill -TERM "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "qdt check still runs after SIGTERM"
sleep 1
[ -z "$(ls -d "$tmp"/qdt-pg-* 2>/dev/null)" ] || fail "the cluster folder survived SIGTERM"
pgrep -f -- "$folder" >/dev/null && fail "a postgres process of $folder survived SIGTERM"
# SIGTERM while the cluster is still being made (initdb) leaves nothing either.
"$qdt" check --storage postgres --profile default --seeds 100000 --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1000); do
  [ -n "$(ls -d "$tmp"/qdt-pg-* 2>/dev/null)" ] && break
  sleep 0.01
done
folder=$(ls -d "$tmp"/qdt-pg-* 2>/dev/null)
[ -n "$folder" ] || fail "no cluster folder appeared"
kill -TERM "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "qdt check still runs after an early SIGTERM"
[ -z "$(ls -d "$tmp"/qdt-pg-* 2>/dev/null)" ] || fail "the cluster folder survived an early SIGTERM"
pgrep -f -- "$folder" >/dev/null && fail "a process of $folder survived an early SIGTERM"
echo "ok"
