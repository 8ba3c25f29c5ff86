#!/usr/bin/env bash
# Every command qdt prints or writes runs as printed, alone on its line
# below the prose that says what it does, valid shell: a variant campaign's
# replay lines, its failures replayed from the folder (the journal skipped),
# the --report page's and the --json result's commands, a replay's own
# line (with --cache), explored schedules and a sweep's report all carry
# --variant and quote paths with a space and a quote; pasted into bash with
# qdt on PATH they exit as the run did.
# Usage: check-commands-as-printed.sh QDT SOURCE_DIR
set -uo pipefail
qdt=$(realpath "$1")
src=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$tmp/err" >&2 2>/dev/null; exit 1; }
export PATH="$(dirname "$qdt"):$PATH"
# as_printed CODE CMD: the command pasted into a shell exits CODE.
as_printed() {
  (cd "$tmp/elsewhere" && timeout 120 bash -c "$2" >/dev/null 2>&1)
  local got=$?
  [ $got -eq "$1" ] || fail "exit $got, expected $1: $2"
}
# below PROSE FILE: the command on the line after each line PROSE (its
# prose, ending in a colon), without its indentation.
below() { sed -n "/^ *$1:\$/{n;s/^ *//;p}" "$2"; }
# pasteable FILE: every line of FILE that holds a command is that command
# alone, valid shell, and the line above it is prose ending in a colon.
pasteable() {
  local prev="" line
  while IFS= read -r line; do
    case "$line" in
      *"qdt replay "* | *"qdt check "* | *"qdt explore"* | *"qdt promote "* | *"qdt help"*)
        case "${line#"${line%%[! ]*}"}" in "qdt "*) ;; *) fail "prose before a command on its line: $line" ;; esac
        bash -n -c "$line" 2>/dev/null || fail "not valid shell: $line"
        case "$prev" in *:) ;; *) fail "no prose line above: $prev / $line" ;; esac ;;
    esac
    prev=$line
  done <"$1"
}
mkdir -p "$tmp/elsewhere"
out="$tmp/my campaign's out"

# A failing variant campaign: each printed replay line carries the variant and the quoted path.
timeout 120 "$qdt" check --seeds 2 --variant skip-probe --out "$out" --quiet >"$tmp/check" 2>"$tmp/err"
[ $? -eq 1 ] || fail "the skip-probe campaign did not exit 1"
pasteable "$tmp/check"
below "replay it" "$tmp/check" >"$tmp/lines"
below "replay one" "$tmp/check" >>"$tmp/lines"
[ "$(wc -l <"$tmp/lines")" -eq 3 ] || fail "not three replay lines: $(cat "$tmp/check")"
while IFS= read -r line; do
  case "$line" in *" --variant skip-probe"*) ;; *) fail "no --variant: $line" ;; esac
  as_printed 1 "$line"
  as_printed 0 "${line% --variant skip-probe}"  # the reference passes the same file
done <"$tmp/lines"

# Seeds nobody shrank are listed with the command that shrinks each; pasted,
# it fails again and writes its file. Every failing property is recorded.
timeout 120 "$qdt" check --seeds 3 --variant skip-probe --max-shrinks 1 --out "$tmp/few shrunk" >"$tmp/check" 2>"$tmp/err"
[ $? -eq 1 ] || fail "the skip-probe campaign with --max-shrinks 1 did not exit 1"
grep -q "^  2 failing seeds not shrunk (--max-shrinks 1); each shrinks with the command below it:" "$tmp/check" || fail "no list of unshrunk seeds: $(cat "$tmp/check")"
pasteable "$tmp/check"
line=$(below "default seed 2 ([a-z-]*)" "$tmp/check")
case "$line" in "qdt check --profile default --seed 2 --seeds 1 --variant skip-probe --out '$tmp/few shrunk/seed-default-2'") ;;
  *) fail "the unshrunk seed's command: $line" ;; esac
# Pasted, it writes beside the campaign's journal and never over it; the campaign still resumes.
journal_before=$(cat "$tmp/few shrunk/journal"/*.json | md5sum)
as_printed 1 "$line"
ls "$tmp/few shrunk/seed-default-2"/default-2-*.json >/dev/null 2>&1 || fail "the pasted command wrote no shrunk file"
[ "$(cat "$tmp/few shrunk/journal"/*.json | md5sum)" = "$journal_before" ] || fail "the shrink command changed the campaign's journal"
line=$(below "shrink one" "$tmp/check")
[ -z "$line" ] || as_printed 1 "$line"
timeout 120 "$qdt" check --resume "$tmp/few shrunk" --quiet >"$tmp/o" 2>"$tmp/err"
[ $? -eq 1 ] || fail "the campaign did not resume after its shrink command ran"
timeout 120 "$qdt" check --seeds 1 --variant skip-probe --json --out "$tmp/j" >"$tmp/json" 2>"$tmp/err"
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["failures"][0]; assert f["property"] in f["properties"], f' \
  "$tmp/json" || fail "a failure's properties do not list its first"

# The campaign's folder replays: its journal is skipped (and said), the failures reproduce.
timeout 120 "$qdt" replay "$out" --variant skip-probe --quiet --report "$tmp/re port.md" --json >"$tmp/json" 2>"$tmp/err"
code=$?
[ $code -eq 1 ] || fail "replay of the campaign's folder exited $code, not 1"
grep -qF "skipped: $out/journal: not a scenario (campaign journal)" "$tmp/err" || fail "the journal was not named as skipped"
# The Markdown report's commands and the results' commands carry the variant and run as printed.
sed -n 's/^Replay: `\(.*\)`$/\1/p' "$tmp/re port.md" >"$tmp/lines"
[ "$(wc -l <"$tmp/lines")" -eq 2 ] || fail "not two Replay lines in the report: $(cat "$tmp/re port.md")"
python3 -c 'import json,sys; [print(r["replay"]) for r in json.load(open(sys.argv[1]))]' "$tmp/json" >>"$tmp/lines" \
  || fail "no replay in the --json results"
while IFS= read -r line; do
  case "$line" in *" --variant skip-probe"*) ;; *) fail "no --variant: $line" ;; esac
  as_printed 1 "$line"
done <"$tmp/lines"
# A journal named, or a file of it, is no scenario: exit 2 with the path and reason.
timeout 120 "$qdt" replay "$out/journal" >"$tmp/o" 2>"$tmp/err"
[ $? -eq 2 ] && grep -qF "campaign journal" "$tmp/err" || fail "replay of the journal folder"
timeout 120 "$qdt" replay "$out/journal/campaign.json" >"$tmp/o" 2>"$tmp/err"
[ $? -eq 2 ] && grep -qF "$out/journal/campaign.json: /format: unknown field" "$tmp/err" || fail "replay of campaign.json"

# A replay's own line carries its --cache, variant and quoted path.
file=$(ls "$out"/default-1-*.json)
timeout 120 "$qdt" replay "$file" --variant skip-probe --cache off >"$tmp/o" 2>"$tmp/err"
pasteable "$tmp/o"
line=$(below "replay it" "$tmp/o")
case "$line" in *" --variant skip-probe --cache off"*) ;; *) fail "the replay line lost a flag: $line" ;; esac
as_printed 1 "$line"

# Explored schedules: each failing schedule's line runs as printed.
timeout 120 "$qdt" explore-schedules "$src/sim/testdata/schedules/two-brokers-one-key.json" \
  --variant probe-outside-lock --max-interleavings 20 --out "$tmp/sched ules" --quiet >"$tmp/o" 2>"$tmp/err"
pasteable "$tmp/o"
line=$(below "replay it" "$tmp/o" | head -1)
[ -n "$line" ] || fail "explore-schedules printed no replay line"
as_printed 1 "$line"

# A refused command or option points at the help, alone on its line.
for args in "check --sedds 5" "chekc" "--verison"; do
  timeout 60 "$qdt" $args >"$tmp/o" 2>"$tmp/err"
  [ $? -eq 2 ] || fail "qdt $args did not exit 2"
  pasteable "$tmp/err"
  line=$(sed -n 's/^  \(qdt help.*\)$/\1/p' "$tmp/err")
  [ -n "$line" ] || fail "no help line for qdt $args: $(cat "$tmp/err")"
  as_printed 0 "$line"
done

# A sweep's report regenerates it where it is, from anywhere.
mkdir -p "$tmp/my sweeps"
cat >"$tmp/my sweeps/tiny.json" <<'JSON'
{"name": "tiny", "description": "two points", "base": {"profile": "default"},
 "vary": {"queues.*.dedupWindowSeconds": [60, 3600]}, "seeds": 1, "metrics": ["virtual_duration_ms"]}
JSON
timeout 120 "$qdt" explore "$tmp/my sweeps/tiny.json" --variant skip-probe --out "$tmp/ex out" --quiet >"$tmp/o" 2>"$tmp/err"
line=$(sed -n 's/^- command: `\(.*\)`$/\1/p' "$tmp/ex out/tiny.md")
case "$line" in *" --variant skip-probe"*) ;; *) fail "the sweep's command lost --variant: $line" ;; esac
rm -rf "$tmp/ex out"
as_printed 1 "$line"
[ -f "$tmp/ex out/tiny.md" ] || fail "the sweep's command did not write to its --out"
echo "ok"
