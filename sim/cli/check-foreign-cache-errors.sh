#!/usr/bin/env bash
# A foreign cache that cannot run is refused before any seed runs, exit 2
# with the reason and nothing on stdout (docs/cache-abi.md): a missing file,
# a folder without server/src/dedup.rs, no rustc (naming the package), a file
# that does not compile (rustc's first error), a file of another interface
# version, a --cache-lib without the ABI's symbols or of another ABI version,
# --cache-impl with --cache-lib, an unknown caller; and a module that panics
# mid-run ends the run with exit 2 naming the call. Skips (77) only when no
# rustc is installed at all.
# Usage: check-foreign-cache-errors.sh QDT SOURCE_DIR C_WHOLE C_WRONG_ABI C_PARTIAL
set -uo pipefail
qdt=$(realpath "$1")
src=$(realpath "$2")
lib_whole=$3 lib_wrong_abi=$4 lib_partial=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$tmp/err" >&2 2>/dev/null; exit 1; }
# shellcheck source=sim/cli/foreign-cache-script-env.sh
source "$(dirname "$0")/foreign-cache-script-env.sh"
scenario=$src/scenarios/basic-duplicate.json
# expect TEXT CMD...: CMD exits 2 before running anything, its stderr holds TEXT.
expect() {
  local text=$1
  shift
  timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [ $got -eq 2 ] || fail "exit $got, expected 2: $*"
  [ ! -s "$tmp/out" ] || fail "something ran (stdout not empty): $*"
  grep -qF -- "$text" "$tmp/err" || fail "no '$text' on stderr: $*"
  grep -qF "nothing was run" "$tmp/err" || fail "no 'nothing was run': $*"
}

expect "no such file or folder" "$qdt" replay "$scenario" --cache-impl "$tmp/nowhere.rs"
mkdir -p "$tmp/checkout/server"
expect "without server/src/dedup.rs" "$qdt" check --seeds 1 --cache-impl "$tmp/checkout"
# No rustc: a fresh folder of builds, so nothing built before answers.
QDT_CACHE_MODULES_DIR=$tmp/fresh QDT_RUSTC=$tmp/no-rustc expect "apt-get install rustc" \
  "$qdt" check --seeds 1 --cache-impl "$sound"
[ ! -e "$tmp/fresh" ] || [ -z "$(ls -A "$tmp/fresh")" ] || fail "a build was left behind without rustc"
# A file that does not compile: rustc's first error, with where it points.
printf 'pub struct DedupCache;\nfn broken( {\n' >"$tmp/broken.rs"
expect "does not compile: rustc: error" "$qdt" replay "$scenario" --cache-impl "$tmp/broken.rs"
grep -qF "(at broken.rs:" "$tmp/err" || grep -qF "(at dedup.rs:" "$tmp/err" || fail "rustc's error does not say where"
# Another interface version: expire without now_ms (the file alone compiles).
sed -e 's/pub fn expire(&self, pid: &str, window_ms: i64, now_ms: i64)/pub fn expire(\&self, pid: \&str, window_ms: i64)/' \
    -e 's/let cutoff = now_ms.min(floor) - window_ms;/let cutoff = floor - window_ms;/' \
    "$sound/server/src/dedup.rs" >"$tmp/older.rs"
! cmp -s "$sound/server/src/dedup.rs" "$tmp/older.rs" || fail "the older interface was not made"
expect "another interface version" "$qdt" check --seeds 1 --cache-impl "$tmp/older.rs"
grep -qF "rustc: error[E0061]" "$tmp/err" || fail "no rustc error for the interface"
# Control characters in rustc's words or a path never reach the terminal raw.
printf 'fn \x1b[31mred() {}\n' >"$tmp/escape.rs"
expect "does not compile" "$qdt" check --seeds 1 --cache-impl "$tmp/escape.rs"
! grep -q $'\x1b' "$tmp/err" || fail "an escape character reached stderr"
# A module that panics at run time ends the run with the call named, exit 2, never a crash.
sed 's/pub fn expire(&self, pid: &str, window_ms: i64, now_ms: i64) {/&\n        if window_ms > 0 { panic!("seeded"); }/' \
  "$sound/server/src/dedup.rs" >"$tmp/panics.rs"
grep -qF 'panic!("seeded")' "$tmp/panics.rs" || fail "the panicking module was not made"
for cmd in "replay $scenario" "check --seeds 2 --quiet"; do
  # shellcheck disable=SC2086
  RUST_BACKTRACE=0 timeout 120 "$qdt" $cmd --cache-impl "$tmp/panics.rs" >"$tmp/out" 2>"$tmp/err"
  got=$?
  [ $got -eq 2 ] || fail "a panicking module: exit $got, expected 2 ($cmd)"
  grep -qF "the cache module failed in expire" "$tmp/err" || fail "the panic is not named ($cmd)"
done
# Libraries.
expect "lacks queen_cache_on_push_committed" "$qdt" check --seeds 1 --cache-lib "$lib_partial"
expect "another interface version" "$qdt" replay "$scenario" --cache-lib "$lib_wrong_abi"
expect "cannot be loaded" "$qdt" replay "$scenario" --cache-lib "$scenario"
expect "no such file" "$qdt" replay "$scenario" --cache-lib "$tmp/nowhere.so"
expect "give one" "$qdt" replay "$scenario" --cache-lib "$lib_whole" --cache-impl "$sound"
expect "expected shipped or reference" "$qdt" replay "$scenario" --cache-lib "$lib_whole" --cache-caller upstream
expect "needs --cache-impl or --cache-lib" "$qdt" replay "$scenario" --cache-caller reference
echo "PASS"
