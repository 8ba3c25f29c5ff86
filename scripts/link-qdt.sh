#!/usr/bin/env bash
# Puts a built qdt on PATH as BIN_DIR/qdt (default /usr/local/bin), a symlink
# to the absolute path of QDT, so that the commands qdt prints (which start
# with `qdt`) run as pasted; when BIN_DIR is not writable it says on stderr
# how to add qdt to PATH instead, and still succeeds.
# Usage: link-qdt.sh QDT [BIN_DIR]
set -euo pipefail
qdt=$(realpath "$1")
bin_dir=${2:-/usr/local/bin}
[ -x "$qdt" ] || { echo "link-qdt.sh: $qdt: not an executable" >&2; exit 2; }
if [ -d "$bin_dir" ] && [ -w "$bin_dir" ]; then
  ln -sfn "$qdt" "$bin_dir/qdt"
  echo "qdt is on PATH: $bin_dir/qdt -> $qdt" >&2
else
  # Single-quoted as qdt quotes the paths it prints, alone on the line below its prose.
  quoted="'$(dirname "$qdt" | sed "s/'/'\\\\''/g")'"
  printf 'qdt is not on PATH (%s is not writable); to put it there:\n  export PATH=%s:"$PATH"\n' "$bin_dir" "$quoted" >&2
fi
