#!/usr/bin/env bash
# The commands qdt prints start with `qdt`, so the build puts qdt on PATH:
# scripts/build.sh links it (an absolute symlink) into a writable bin folder
# and otherwise prints the export line that does it, which must work as
# printed. Usage: check-qdt-on-path.sh QDT SOURCE_DIR
set -uo pipefail
qdt=$(realpath "$1")
src=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
base_path=/usr/bin:/bin

# build.sh links what it built, by absolute path.
grep -qF 'scripts/link-qdt.sh "$PWD/build/sim/qdt"' "$src/scripts/build.sh" || fail "build.sh does not link build/sim/qdt"

# A writable folder (a space in its name): an absolute symlink that runs from PATH.
bin="$tmp/my bin"
mkdir -p "$bin"
bash "$src/scripts/link-qdt.sh" "$qdt" "$bin" 2>"$tmp/err" || fail "link-qdt.sh exited $?"
[ -L "$bin/qdt" ] || fail "no symlink $bin/qdt"
[ "$(readlink "$bin/qdt")" = "$qdt" ] || fail "the symlink is $(readlink "$bin/qdt"), not $qdt"
PATH="$bin:$base_path" bash -c 'qdt --version' >/dev/null || fail "qdt from PATH did not run"
# Linking again replaces the link (a rebuild).
bash "$src/scripts/link-qdt.sh" "$qdt" "$bin" 2>/dev/null || fail "relinking failed"

# A folder it cannot write: exit 0, and the export alone on the line below
# its prose, which works as printed.
bash "$src/scripts/link-qdt.sh" "$qdt" "$tmp/missing" 2>"$tmp/err" || fail "an unwritable folder failed the build"
[ "$(wc -l <"$tmp/err")" -eq 2 ] || fail "not two lines on stderr: $(cat "$tmp/err")"
line=$(sed -n 's/^  \(export PATH=.*\)$/\1/p' "$tmp/err")
[ -n "$line" ] || fail "no export line: $(cat "$tmp/err")"
PATH=$base_path bash -c "$line; qdt --version" >/dev/null || fail "the printed line did not put qdt on PATH: $line"
echo "ok"
