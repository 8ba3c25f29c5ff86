#!/usr/bin/env bash
# The command line's edges: outputs that cannot be written are exit 2 naming
# the path (files and standard output), output paths are checked before
# anything runs, numbers are read strictly on every numeric option of every
# command, messages say what is wrong (a mistyped name with the nearest
# known one), a variant the engine cannot run is refused, --version and help answer, and default outputs stay below
# reports/out. Usage: check-cli-edges.sh QDT SOURCE_DIR
set -uo pipefail
qdt=$(realpath "$1")
src=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$tmp/err" >&2 2>/dev/null; exit 1; }
scenario=$src/scenarios/basic-duplicate.json
# expect CODE TEXT CMD...: CMD exits CODE and its stderr holds TEXT.
expect() {
  local code=$1 text=$2
  shift 2
  timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [ $got -eq "$code" ] || fail "exit $got, expected $code: $*"
  [ -z "$text" ] || grep -qF -- "$text" "$tmp/err" || fail "no '$text' on stderr: $*"
}

# Outputs that cannot be written.
expect 2 "/dev/full" "$qdt" replay "$scenario" --report /dev/full --quiet
expect 2 "/dev/full" "$qdt" replay "$scenario" --trace /dev/full --quiet
expect 2 "/dev/full" "$qdt" replay "$scenario" --html /dev/full --quiet
timeout 120 "$qdt" replay "$scenario" --json --quiet >/dev/full 2>"$tmp/err"
[ $? -eq 2 ] && grep -qF "standard output" "$tmp/err" || fail "--json > /dev/full"
timeout 120 "$qdt" replay "$scenario" --quiet >/dev/full 2>"$tmp/err"
[ $? -eq 2 ] && grep -qF "standard output" "$tmp/err" || fail "replay > /dev/full"
timeout 120 "$qdt" check --seeds 2 --quiet --json >/dev/full 2>"$tmp/err"
[ $? -eq 2 ] && grep -qF "standard output" "$tmp/err" || fail "check --json > /dev/full"
timeout 120 "$qdt" mutants --list >/dev/full 2>"$tmp/err"
[ $? -eq 2 ] && grep -qF "standard output" "$tmp/err" || fail "mutants --list > /dev/full"
expect 0 "" "$qdt" replay "$scenario" --report /dev/null --trace /dev/null --quiet

# Output paths are checked before anything runs: nothing on stdout, nothing written.
for flag in --report --trace --html; do
  expect 2 "/proc/x.md" "$qdt" replay "$scenario" $flag /proc/x.md
  [ -s "$tmp/out" ] && fail "replay $flag /proc/x.md ran the scenario"
  expect 2 "no folder" "$qdt" replay "$scenario" $flag "$tmp/no/such/x.md"
  [ -e "$tmp/no" ] && fail "replay $flag into a missing folder created it"
done
expect 2 "/proc/x.html" "$qdt" check --seeds 1 --html /proc/x.html
# SQLite has no row lock for no-row-lock to drop: every command refuses it.
expect 2 "SQLite has no row locks" "$qdt" check --seeds 1 --variant no-row-lock
expect 2 "SQLite cannot run it" "$qdt" replay "$scenario" --variant no-row-lock
expect 2 "SQLite has no row locks" "$qdt" mutants --seeds 1 --variant no-row-lock
[ -s "$tmp/out" ] && fail "check --html /proc/x.html ran the campaign"
expect 2 "/proc/qdt" "$qdt" check --seeds 1 --out /proc/qdt
expect 2 "/proc/qdt" "$qdt" mutants --variant skip-probe --seeds 1 --out /proc/qdt
expect 2 "/proc/x" "$qdt" mutants --variant skip-probe --seeds 1 --report /proc/x
# --report BASE writes the catalogue three ways, naming the command and the commit it ran.
QDT_COMMIT=0123abc expect 0 "wrote $tmp/cat.{md,html,json}" "$qdt" mutants --variant skip-probe --profile default \
  --seeds 5 --out "$tmp/cat-replays" --report "$tmp/cat" --quiet
grep -qF '"commit": "0123abc"' "$tmp/cat.json" && grep -qF "qdt mutants --variant skip-probe" "$tmp/cat.json" &&
  grep -qF "skip-probe" "$tmp/cat.md" && grep -qF "<code>0123abc</code>" "$tmp/cat.html" ||
  fail "mutants --report: the catalogue does not name its command and commit"
expect 2 "/proc/qdt" "$qdt" explore "$src/sim/testdata/sweeps/tiny.json" --out /proc/qdt
expect 2 "/proc/qdt" "$qdt" explore-schedules "$scenario" --out /proc/qdt
expect 2 "/proc/qdt" "$qdt" bench --quick --only floor --out /proc/qdt

# Every numeric option of every command, found in --help (UINT, INT, FLOAT,
# NUMBER), refuses -1, 2^64, nan and inf with its name and a reason.
args_for() {  # the arguments a command needs besides the option
  case $1 in
    replay|explore-schedules) echo "$scenario" ;;
    explore) echo "$src/sim/testdata/sweeps/tiny.json" ;;
  esac
}
options=0
for cmd in replay check mutants explore explore-schedules bench; do
  "$qdt" $cmd --help >"$tmp/help" 2>&1
  for opt in $(grep -oE -- '--[a-z-]+ (UINT|INT|FLOAT|NUMBER)' "$tmp/help" | cut -d' ' -f1 | sort -u); do
    for bad in -1 18446744073709551616 nan inf; do
      expect 2 "$opt" "$qdt" $cmd $(args_for $cmd) "$opt" "$bad" --quiet
      grep -qE "negative|larger than|not a number|must be finite|expected a|must be in" "$tmp/err" \
        || fail "$cmd $opt $bad: no reason given"
    done
    options=$((options + 1))
  done
done
[ $options -ge 14 ] || fail "only $options numeric options found in --help"
expect 2 "--shard" "$qdt" check --shard 1/-2 --seeds 1 --quiet
expect 2 "--seed" "$qdt" check --seed 0x10 --seeds 1 --quiet
expect 2 "--time-budget" "$qdt" check --seeds 1 --time-budget nan --quiet

# Messages that say what is wrong.
mkfifo "$tmp/fifo.json"
expect 2 "not a regular file (a FIFO)" "$qdt" replay "$tmp/fifo.json"
expect 2 "not a regular file (a character device)" "$qdt" replay /dev/zero
expect 2 "no such file or folder" "$qdt" replay "$tmp/missing.json"
bad=$src/sim/testdata/invalid/count-beyond-int64.json
expect 2 "$bad" "$qdt" replay "$bad" --trace "$tmp/t.log" --html "$tmp/p.html"
grep -q -- "--trace takes\|--html takes" "$tmp/err" && fail "one rejected file blamed on --trace/--html"
expect 2 "--html takes exactly one scenario, 2 given" "$qdt" replay "$scenario" "$scenario" --html "$tmp/p.html"

# The command line explains itself: its version and commit, help, and the
# nearest known name for a mistyped command, option or choice.
expect 0 "" "$qdt" --version
grep -qE '^qdt [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{40}(-dirty)?|unknown)\)$' "$tmp/out" || fail "--version: $(cat "$tmp/out")"
commit=$(sed -E 's/.*commit ([0-9a-f]+).*/\1/' "$tmp/out")
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$src" cat-file -e "$commit^{commit}" 2>/dev/null || fail "--version names no commit of $src: $(cat "$tmp/out")"
fi
expect 0 "" "$qdt" help
grep -q "^  explore-schedules " "$tmp/out" && grep -qF -- "--version" "$tmp/out" || fail "qdt help lists no commands"
"$qdt" help >"$tmp/help"
expect 0 "" "$qdt"
cmp -s "$tmp/out" "$tmp/help" || fail "qdt alone does not print what qdt help prints"
expect 0 "" "$qdt" help check
grep -qE -- "--seeds UINT:\[1, 100000000\]=100 " "$tmp/out" || fail "qdt help check shows no --seeds default"
grep -qE -- "--profile TEXT:\{[a-z,-]+\}=default " "$tmp/out" || fail "qdt help check shows no --profile default"
"$qdt" check --help | cmp -s - "$tmp/out" || fail "qdt help check differs from qdt check --help"
expect 2 'unknown command "chekc"; did you mean "check"?' "$qdt" help chekc
expect 2 'unknown command "repaly"; did you mean "replay"?' "$qdt" repaly "$scenario"
[ -s "$tmp/out" ] && fail "qdt repaly ran something"
grep -q "^qdt's commands: replay, check, .*explore-schedules.*, help$" "$tmp/err" || fail "qdt repaly lists no commands"
expect 2 'unknown command "zzzz"' "$qdt" zzzz
grep -q "did you mean" "$tmp/err" && fail "qdt zzzz suggested a command: $(cat "$tmp/err")"
expect 2 'unknown option "--verison" for qdt; did you mean "--version"?' "$qdt" --verison
expect 2 'unknown option "--sedds" for qdt check; did you mean "--seeds"?' "$qdt" check --sedds 5
expect 2 'unknown option "--jbos" for qdt check; did you mean "--jobs"?' "$qdt" check --seeds=1 --jbos=2
expect 2 'unknown option "--jsn" for qdt replay; did you mean "--json"?' "$qdt" replay --jsn "$scenario"
[ -s "$tmp/out" ] && fail "qdt replay --jsn ran the scenario"
expect 2 'unexpected argument "b.json" for qdt explore' "$qdt" explore a.json b.json
expect 2 'unknown profile "defualt"; did you mean "default"?' "$qdt" check --profile defualt --seeds 1
expect 2 'unknown profile "defualt"; did you mean "default"?' "$qdt" mutants --profile defualt --seeds 1
expect 2 'unknown variant "skip-prob"; did you mean "skip-probe"?' "$qdt" replay --variant skip-prob "$scenario"
expect 2 'unknown storage engine "sqlit"; did you mean "sqlite"?' "$qdt" replay --storage sqlit "$scenario"
# Every option with a default shows it; explore's help ends its sentences.
expect 0 "" "$qdt" explore --help
grep -qF "overriding the sweep's \"variant\"" "$tmp/out" || fail "explore --help: --variant is cut short"
grep -qE -- "--out TEXT:DIR=reports/out " "$tmp/out" || fail "explore --help shows no --out default"
grep -q "(default" "$tmp/out" && fail "explore --help states a default in words as well: $(grep "(default" "$tmp/out")"

# replay --json has one shape, an array of results, for one file as for many.
for n in 1 2; do
  files=$(for i in $(seq "$n"); do echo "$scenario"; done)
  "$qdt" replay $files --json --quiet >"$tmp/out" 2>"$tmp/err" || fail "replay --json of $n files"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d, list) and len(d) == int(sys.argv[2]) and all(r["passed"] for r in d), d' \
    "$tmp/out" "$n" || fail "replay --json of $n files is not an array of $n results"
done

# --resume believes no journal that lies: a part copied under a second name,
# a part named for a run the journal never had, a run count past what part
# names hold (the next run would write over run 0's parts), a part edited
# after it was written; and it deletes nothing.
"$qdt" check --seeds 5 --out "$tmp/c" --quiet >/dev/null 2>&1 || fail "a 5-seed campaign"
part=$(ls "$tmp/c/journal/"part-*.json | head -n 1)
cp "$part" "$tmp/c/journal/part-r0000-w09-000000.json"
expect 2 "$tmp/c/journal/part-r0000-w09-000000.json: /seed_hashes/0: seed 'default 1' is also journaled in $part" \
  "$qdt" check --resume "$tmp/c" --quiet
mv "$tmp/c/journal/part-r0000-w09-000000.json" "$tmp/c/journal/part-r0009-w00-000000.json"
expect 2 "part-r0009-w00-000000.json: not a part name this journal's runs (0 to 0) wrote" \
  "$qdt" check --resume "$tmp/c" --quiet
rm "$tmp/c/journal/part-r0009-w00-000000.json"
cp "$tmp/c/journal/campaign.json" "$tmp/campaign.json.kept"
sed -i 's/"run": 0/"run": 18446744073709551615/' "$tmp/c/journal/campaign.json"
expect 2 "campaign.json: /run: " "$qdt" check --resume "$tmp/c" --quiet
[ -e "$part" ] || fail "a refused resume deleted $part"
cp "$tmp/campaign.json.kept" "$tmp/c/journal/campaign.json"
sed -i 's/"default 1 \([0-9a-f]\)/"default 1 x\1/' "$part"
expect 2 "$part: /checksum: does not match" "$qdt" check --resume "$tmp/c" --quiet

# --merge never mixes engines in one digest: a shard relabelled postgres
# beside a SQLite shard is refused, naming the file.
"$qdt" check --seeds 4 --shard 0/2 --json --quiet >"$tmp/s0.json" 2>/dev/null || fail "shard 0/2"
"$qdt" check --seeds 4 --shard 1/2 --json --quiet >"$tmp/s1.json" 2>/dev/null || fail "shard 1/2"
grep -q '"engine": *"sqlite"' "$tmp/s0.json" || fail "a summary does not record its engine"
expect 0 "" "$qdt" check --merge "$tmp/s0.json" "$tmp/s1.json" --quiet
sed -i 's/"engine": *"sqlite"/"engine":"postgres"/' "$tmp/s1.json"
expect 2 "s1.json: /engine: postgres differs from sqlite (a digest never mixes engines)" \
  "$qdt" check --merge "$tmp/s0.json" "$tmp/s1.json" --quiet

# Default outputs go below reports/out, never beside the user's files.
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && timeout 300 "$qdt" mutants --variant skip-probe --profile default --seeds 50 --quiet >/dev/null 2>"$tmp/err")
[ $? -eq 0 ] || fail "qdt mutants --variant skip-probe"
[ -e "$tmp/cwd/qdt-mutants" ] && fail "qdt mutants left qdt-mutants/ in the current folder"
ls "$tmp/cwd/reports/out/mutants/skip-probe/"*.json >/dev/null 2>&1 || fail "no shrunk file below reports/out/mutants"
[ "$(ls -A "$tmp/cwd")" = "reports" ] || fail "qdt mutants wrote beside reports/: $(ls -A "$tmp/cwd")"
# A password in --pg-url never reaches a message (a server on the loopback
# that refuses the connection).
expect 2 "cannot connect to postgresql://qdt:***@127.0.0.1:1/x" \
  "$qdt" replay "$scenario" --storage postgres --pg-url 'postgresql://qdt:hunter2@127.0.0.1:1/x'
! grep -q hunter2 "$tmp/err" "$tmp/out" || fail "the --pg-url password reached a message"
expect 2 "password='***'" "$qdt" check --seeds 1 --storage postgres --pg-url 'host=127.0.0.1 port=1 password=hunter2'
! grep -q hunter2 "$tmp/err" "$tmp/out" || fail "the --pg-url password reached a message"
echo "ok: unwritable outputs, output paths, $options numeric options, messages, help, version, nearest names and default outputs, and no --pg-url password shown"

