#!/usr/bin/env bash
# Campaigns that survive being killed: a campaign with --out DIR is
# killed with SIGKILL (the whole process group, workers included) at several
# moments, resumed with --resume DIR (itself killed once), and must end with
# the campaign_digest, seed count and failures of an uninterrupted run; every
# failure printed before a kill must exist as a whole, replayable file; no
# seed may be run twice (the journal's parts never repeat a seed).
# Usage: check-kill-resume.sh QDT
set -uo pipefail
qdt=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# A SIGKILLed qdt leaves its file-storage folders behind: here, not in /tmp.
export TMPDIR=$out/tmp
mkdir "$TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }
campaign=(--profile all --seeds 150 --variant stale-window --max-shrinks 3)
journaled() {  # seeds in a journal's parts
  python3 -c "import glob,json,sys; print(sum(len(json.load(open(p))['seeds_done']) for p in glob.glob(sys.argv[1] + '/part-*.json')))" "$1"
}

"$qdt" check "${campaign[@]}" --jobs 2 --quiet --json --out "$out/ref" >"$out/ref.json"
[ $? -eq 1 ] || fail "the uninterrupted campaign should fail under stale-window"

# Starts the campaign (or a resume) in its own process group and kills the
# group, SIGKILL, once journal $1 holds at least $2 seeds (polled; never a
# fixed sleep, so the kill lands mid-campaign on a fast or a slow machine);
# stdout (the FAIL lines) goes to $3.
run_and_kill() {
  local journal=$1 at=$2 log=$3
  shift 3
  setsid "$qdt" "$@" >"$log" 2>&1 &
  local pid=$!
  for _ in $(seq 2400); do
    kill -0 "$pid" 2>/dev/null || break
    [ -d "$journal" ] && [ "$(journaled "$journal")" -ge "$at" ] && break
    sleep 0.05
  done
  kill -KILL -- -"$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  true
}
# Every failure printed before the kill is a whole file that replays as stated.
check_printed() {
  grep -o 'shrunk to [0-9]* steps in [0-9]* replays: .*' "$1" | sed 's/.*replays: //' | while read -r file; do
    [ -f "$file" ] || fail "failure printed but missing after the kill: $file"
    python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$file" || fail "torn failure file $file"
    "$qdt" replay "$file" --variant stale-window --quiet >/dev/null
    [ $? -eq 1 ] || fail "$file does not replay its failure"
  done
}

kills=0
total=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['seeds_run'])" "$out/ref.json")
for at in 1 $((total * 2 / 5)); do
  delay=$at  # names the scenario: killed once $at seeds were journaled
  dir="$out/k$delay"
  run_and_kill "$dir/journal" "$at" "$out/first-$delay.log" check "${campaign[@]}" --jobs 2 --out "$dir"
  check_printed "$out/first-$delay.log"
  [ -f "$dir/journal/campaign.json" ] || fail "no journal after a kill at $at journaled seeds"
  n=$(journaled "$dir/journal")
  # A kill after the campaign ended would prove nothing.
  [ "$n" -lt "$total" ] && kills=$((kills + 1))
  echo "killed with $n of $total seeds journaled"
  # Kill the resumed run once too, then resume to the end (with other --jobs).
  run_and_kill "$dir/journal" $((n + 1)) "$out/second-$delay.log" check --resume "$dir" --jobs 2
  check_printed "$out/second-$delay.log"
  "$qdt" check --resume "$dir" --jobs 1 --quiet --json >"$out/resumed-$delay.json"
  [ $? -eq 1 ] || fail "the resumed campaign should fail like the uninterrupted one"
  python3 - "$out/ref.json" "$out/resumed-$delay.json" "$dir/journal" <<'PY' || fail "resume after a kill at $at journaled seeds"
import collections, glob, json, sys
ref, got = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for k in ("campaign_digest", "seeds_run", "failed", "passed"):
    assert ref[k] == got[k], (k, ref[k], got[k])
assert [(f["profile"], f["seed"]) for f in ref["failures"]] == [(f["profile"], f["seed"]) for f in got["failures"]]
seen = collections.Counter()
for part in glob.glob(sys.argv[3] + "/part-*.json"):
    for profile, seed in json.load(open(part))["seeds_done"]:
        seen[(profile, seed)] += 1
twice = [k for k, n in seen.items() if n > 1]
assert not twice, f"seeds journaled twice: {twice[:5]}"
assert sum(seen.values()) == ref["seeds_run"], (sum(seen.values()), ref["seeds_run"])
PY
  echo "ok: killed at $at journaled seeds and once more while resuming; resumed to digest $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['campaign_digest'])" "$out/resumed-$delay.json")"
done

# Ctrl-C (SIGINT to the whole process group, as a terminal sends it): exit
# 130, the resume command on stderr's last line, and that line, run as
# printed, ends at the uninterrupted digest. The folder's name needs quoting.
dir="$out/ctrl c"
# As a terminal's foreground job: a group of its own and SIGINT not ignored
# (a script's background job starts with SIGINT ignored, which qdt keeps).
python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.setsid(); os.execvp(sys.argv[1], sys.argv[1:])' \
  "$qdt" check "${campaign[@]}" --jobs 2 --quiet --out "$dir" >"$out/int.log" 2>"$out/int.err" &
pid=$!
for _ in $(seq 2400); do
  [ -d "$dir/journal" ] && [ "$(journaled "$dir/journal")" -ge 20 ] && break
  sleep 0.05
done
kill -INT -- -"$pid"
wait "$pid"
code=$?
[ $code -eq 130 ] || fail "Ctrl-C: exit $code, expected 130"
line=$(tail -n 1 "$out/int.err" | sed 's/^  qdt //')
case "$line" in "check --resume '$dir'") ;; *) fail "Ctrl-C: the last line is not the resume command: $(tail -n 2 "$out/int.err")" ;; esac
eval "\"\$qdt\" $line --jobs 2 --json --quiet" >"$out/int.json"
[ $? -eq 1 ] || fail "the printed resume command should fail like the uninterrupted campaign"
python3 - "$out/ref.json" "$out/int.json" <<'PY' || fail "resume after Ctrl-C"
import json, sys
ref, got = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert ref["campaign_digest"] == got["campaign_digest"], (ref["campaign_digest"], got["campaign_digest"])
PY
echo "ok: Ctrl-C printed the resume command, which ran as printed to the uninterrupted digest"

# Bad usage: no journal, or campaign-defining options beside --resume.
"$qdt" check --resume "$out/nothing-here" --quiet >/dev/null 2>"$out/err"
[ $? -eq 2 ] && grep -q "nothing was run" "$out/err" || fail "--resume of a folder without a journal must exit 2"
"$qdt" check --resume "$out/ref" --seeds 5 --quiet >/dev/null 2>&1
[ $? -eq 2 ] || fail "--resume with --seeds must exit 2"
[ $kills -ge 2 ] || fail "only $kills of the kills interrupted the campaign: make it longer"
echo "ok: $kills kills mid-campaign, every resume matched the uninterrupted campaign"
