#!/usr/bin/env bash
# mutants, explore, explore-schedules, bench and check --resume on
# PostgreSQL (docs/semantics.md §9), each kept short: they run with
# --storage postgres, the replay commands they print carry it and run as
# printed, and what PostgreSQL cannot run is refused with exit 2 before
# anything runs: --pg-url without --storage postgres, a variant or a profile
# it lacks, --resume with the other engine. Resuming without --storage runs
# the journal's engine; --fork-rare forks on PostgreSQL. Usage: check-postgres-commands.sh QDT SOURCE_DIR
set -uo pipefail
# shellcheck source=sim/cli/postgres-script-env.sh
source "$(dirname "$0")/postgres-script-env.sh"
cd "$src" || exit 1
schedules=sim/testdata/schedules/two-brokers-one-key.json
# Runs a printed replay command with this qdt; its exit code.
run_printed() {  # run_printed LINE [MORE ARGS]
  local line=$1
  shift
  [[ $line == "qdt replay "* ]] || fail "not a replay command: $line"
  # shellcheck disable=SC2086  # the printed command, split as a shell splits it
  timeout 60 "$qdt" ${line#qdt } --quiet "$@" >"$tmp/replayed" 2>"$tmp/err"
}
refused() {  # refused REASON ARGS...: exit 2, REASON on stderr, nothing written to $tmp/nothing
  local reason=$1
  shift
  timeout 60 "$qdt" "$@" >/dev/null 2>"$tmp/err"
  local code=$?
  [ $code -eq 2 ] || fail "qdt $* exited $code, expected 2"
  grep -q -- "$reason" "$tmp/err" || fail "qdt $*: no '$reason' in its message"
  [ ! -e "$tmp/nothing" ] || fail "qdt $* wrote $tmp/nothing"
}

# Refused before anything runs.
for cmd in "mutants --profile default --variant last-wins --seeds 1 --out $tmp/nothing" \
           "explore sim/testdata/sweeps/tiny.json --out $tmp/nothing" "explore-schedules $schedules --out $tmp/nothing" "bench --quick --out $tmp/nothing" "check --seeds 1 --out $tmp/nothing" "replay scenarios/basic-duplicate.json --trace $tmp/nothing"; do
  # shellcheck disable=SC2086
  refused "needs --storage postgres" $cmd --pg-url "host=$tmp/none"
done
refused "needs SQL of its own" mutants --storage postgres --profile default --variant queue-scope --seeds 1 --out "$tmp/nothing"
refused "profile power-loss needs crash_storage" mutants --storage postgres --profile power-loss --seeds 1 --out "$tmp/nothing"
refused "needs SQL of its own" explore sim/testdata/sweeps/tiny.json --storage postgres --variant bloom-filter --out "$tmp/nothing"
sed 's/"profile": "default"/"profile": "power-loss"/' sim/testdata/sweeps/tiny.json >"$tmp/power-sweep.json"
refused "needs crash_storage" explore "$tmp/power-sweep.json" --storage postgres --out "$tmp/nothing"
refused "needs SQL of its own" explore-schedules "$schedules" --storage postgres --variant queue-scope --out "$tmp/nothing"
refused "crash_storage" explore-schedules scenarios/crash-storage-off-loses-commits.json --storage postgres --out "$tmp/nothing"
refused "no --only" bench --storage postgres --only items --quick
refused "cannot connect" mutants --storage postgres --profile default --variant last-wins --seeds 1 --pg-url "host=$tmp/none" --out "$tmp/nothing"

# mutants: the shrunk failure's replay command carries the engine and fails as printed.
timeout 120 "$qdt" mutants --storage postgres --profile default --variant last-wins --seeds 5 --out "$tmp/m" --json \
  >"$tmp/mutants.json" 2>"$tmp/err" || fail "mutants --storage postgres exited $?"
replay=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["storage"] == "postgres", d.get("storage"); v=[x for x in d["variants"] if x["variant"] == "last-wins"][0]; assert v["caught"], v; print(v["replay"])' "$tmp/mutants.json") ||
  fail "mutants --json: no caught last-wins or no storage"
[[ $replay == *" --storage postgres"* ]] || fail "mutants' replay command lacks --storage postgres: $replay"
run_printed "$replay" --html "$tmp/replay.html"
[ $? -eq 1 ] || fail "as printed, $replay should fail (the variant is caught)"
# The page's own replay command names the engine too.
grep -q -- "--storage postgres" "$tmp/replay.html" || fail "replay --html's command lacks --storage postgres"

# explore: the recorded command carries the engine.
timeout 120 "$qdt" explore sim/testdata/sweeps/tiny.json --storage postgres --out "$tmp/e" --quiet >/dev/null 2>"$tmp/err" ||
  fail "explore --storage postgres exited $?"
grep -q -- '--storage postgres' "$tmp/e/tiny.md" || fail "explore's command lacks --storage postgres"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["runs"] == 8 and d["failures"] == 0, d' "$tmp/e/tiny.json" ||
  fail "explore --storage postgres: not 8 passing runs"

# explore-schedules: a failing schedule's replay carries the engine and fails as printed.
timeout 120 "$qdt" explore-schedules "$schedules" --storage postgres --variant skip-probe --max-interleavings 3 \
  --out "$tmp/s" --json >"$tmp/schedules.json" 2>"$tmp/err"
[ $? -eq 1 ] || fail "explore-schedules --variant skip-probe on postgres should find a failing schedule"
replay=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["failures"][0]["replay"])' "$tmp/schedules.json")
[[ $replay == *" --storage postgres"* ]] || fail "explore-schedules' replay command lacks --storage postgres: $replay"
run_printed "$replay"
[ $? -eq 1 ] || fail "as printed, $replay should fail"

# bench: both engines' figures, positive, each with its command.
timeout 120 "$qdt" bench --storage postgres --quick --json >"$tmp/bench.json" 2>"$tmp/err" || fail "bench --storage postgres exited $?"
python3 - "$tmp/bench.json" <<'PY' || fail "bench --storage postgres figures"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["storage"] == "postgres"
figures = {f["name"]: f for f in doc["figures"]}
required = []
for p in ["default", "retention", "swarm"]:
    required += [f"seeds_per_s.{p}_sqlite", f"seeds_per_s.{p}_postgres", f"postgres_over_sqlite.seeds_per_s_{p}",
                 f"statements_per_s.{p}_postgres", f"server_wait_share.{p}_postgres",
                 f"statements_per_seed.{p}_postgres", f"server_wait_us_per_statement.{p}_postgres",
                 f"cpu_ms_per_seed.{p}_sqlite", f"cpu_ms_per_seed.{p}_postgres_qdt",
                 f"cpu_ms_per_seed.{p}_postgres_server", f"postgres_over_sqlite.ceiling_{p}",
                 f"postgres_over_sqlite.ceiling_bare_{p}"]
required += ["server_cpu_us_per_bare_statement_postgres", "qdt_cpu_us_per_bare_statement_postgres"]
for b in ["batch1", "batch10"]:
    required += [f"pushes_per_s.{b}_sqlite", f"pushes_per_s.{b}_postgres", f"postgres_over_sqlite.pushes_per_s_{b}",
                 f"statements_per_s.{b}_postgres", f"server_wait_share.{b}_postgres",
                 f"server_wait_us_per_statement.{b}_postgres"]
missing = [n for n in required if n not in figures]
assert not missing, missing
assert not any("power-loss" in n for n in figures), "power-loss is SQLite's"
for name, f in figures.items():
    assert f["value"] > 0, (name, f["value"])
    assert "--storage postgres" in f["command"], (name, f["command"])
    if name.startswith("server_wait_share"):
        assert f["value"] <= 1, (name, f["value"])
# qdt's CPU time is within its wall time, and the bare statements only add to it.
for p in ["default", "retention", "swarm"]:
    ratio = figures[f"postgres_over_sqlite.seeds_per_s_{p}"]["value"]
    ceiling = figures[f"postgres_over_sqlite.ceiling_{p}"]["value"]
    bare = figures[f"postgres_over_sqlite.ceiling_bare_{p}"]["value"]
    assert ratio <= ceiling and bare < ceiling, (p, ratio, bare, ceiling)
PY

# check --resume: the journal's engine, and the other engine refused.
digest() { sed -n 's/.*digest \([0-9a-f]*\).*/\1/p'; }
timeout 60 "$qdt" check --seeds 3 --out "$tmp/lite" --quiet >/dev/null 2>"$tmp/err" || fail "check --out (sqlite)"
refused "ran on sqlite" check --resume "$tmp/lite" --storage postgres
pg=$(timeout 120 "$qdt" check --storage postgres --seeds 2 --out "$tmp/pg" --quiet 2>"$tmp/err" | digest)
[ -n "$pg" ] || fail "check --storage postgres --out printed no digest"
refused "ran on postgres" check --resume "$tmp/pg" --storage sqlite
# Every part removed: the resumed run runs both seeds again, on the journal's engine.
rm -f "$tmp/pg"/journal/part-*.json
again=$(timeout 120 "$qdt" check --resume "$tmp/pg" --quiet 2>"$tmp/err" | digest)
[ "$again" = "$pg" ] || fail "check --resume without --storage: digest '$again', the PostgreSQL campaign's is '$pg'"

# check --fork-rare: forks run where their seed ran. bundles loads on
# PostgreSQL only, so a fork run on SQLite would fail to load; two runs fork
# alike.
for i in 1 2; do
  timeout 120 "$qdt" check --storage postgres --profile bundles --seeds 6 --fork-rare 0.3 --forks 2 --quiet --json \
    --out "$tmp/forks$i" >"$tmp/forks$i.json" 2>"$tmp/err" || fail "check --storage postgres --fork-rare: $(cat "$tmp/err")"
done
python3 - "$tmp/forks1.json" "$tmp/forks2.json" <<'PY' || fail "forking on PostgreSQL"
import json, sys
one, two = (json.load(open(f)) for f in sys.argv[1:])
assert one["forking"]["runs"] > 0, one["forking"]
assert one["forking"]["failed"] == 0, one["fork_failures"]
assert one["forking"] == two["forking"], (one["forking"], two["forking"])
PY

# Names PostgreSQL's text cannot hold (a NUL would end both names at "q" and
# merge two queues) are refused before anything runs, naming the field; SQLite
# keeps them apart.
cat >"$tmp/nul.json" <<'JSON'
{"seed": 1, "queues": {"q\u0000a": {}, "q\u0000b": {}},
 "steps": [{"id": "a", "op": "push", "items": [{"queue": "q\u0000a", "transactionId": "t", "data": 1}]},
           {"id": "b", "op": "push", "items": [{"queue": "q\u0000b", "partition": "p\u0000", "transactionId": "t", "data": 1}]}],
 "expect": {"a": [{"status": "queued"}], "b": [{"status": "queued"}]}}
JSON
timeout 60 "$qdt" replay "$tmp/nul.json" --quiet >/dev/null 2>"$tmp/err" || fail "NUL in names on SQLite"
refused 'cannot run it: /queues/q\\u0000a: a name with a NUL character' replay "$tmp/nul.json" --storage postgres

# The largest window an option takes is one PostgreSQL's int4 columns hold:
# both engines run it to the same verdict; one more is refused on both.
sed 's/"dedupWindowSeconds": 3600/"dedupWindowSeconds": 2147483647/' scenarios/basic-duplicate.json >"$tmp/wide.json"
grep -q 2147483647 "$tmp/wide.json" || fail "the wide-window scenario was not made"
for engine in sqlite postgres; do
  timeout 60 "$qdt" replay "$tmp/wide.json" --storage $engine --quiet >/dev/null 2>"$tmp/err" ||
    fail "a window of 2^31-1 seconds on $engine"
done
sed 's/"dedupWindowSeconds": 3600/"dedupWindowSeconds": 2147483648/' scenarios/basic-duplicate.json >"$tmp/wider.json"
refused "/queues/orders/dedupWindowSeconds: must be <= 2147483647" replay "$tmp/wider.json" --storage postgres

# A long TMPDIR: the cluster folder below it, its socket in a short folder
# of its own (a Unix socket's path holds 107 bytes), nothing left behind.
for length in 90 565; do
  long=$tmp
  while [ ${#long} -lt "$length" ]; do long="$long/$(printf 'd%.0s' $(seq 1 $(((length - ${#long} - 1) < 50 ? length - ${#long} - 1 : 50))))"; done
  mkdir -p "$long" && chmod -R 755 "$tmp"
  before=$(ls -d /tmp/qdt-pgs-* 2>/dev/null | wc -l)
  TMPDIR=$long timeout 120 "$qdt" replay scenarios/basic-duplicate.json --storage postgres --quiet >/dev/null 2>"$tmp/err" ||
    fail "TMPDIR of $length characters"
  [ -z "$(ls -A "$long")" ] || fail "TMPDIR of $length characters: left $(ls -A "$long")"
  [ "$(ls -d /tmp/qdt-pgs-* 2>/dev/null | wc -l)" -eq "$before" ] || fail "TMPDIR of $length characters: left a socket folder"
done
echo "ok"
