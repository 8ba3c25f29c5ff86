#!/usr/bin/env bash
# The documentation's console examples never go stale: in every Markdown FILE
# given (README.md, docs/*.md), every `$ command` in a ```console block that
# is followed by output lines is run from the repository root (with
# build/sim/qdt, or build/sim/cli/qdt, replaced by QDT, and QDT's folder first
# on PATH, so a bare `qdt` is QDT as well), and each shown line
# must appear in its stdout, in order; "…" in a shown line matches anything.
# Files are read in the order given, and the examples run in that order.
# Usage: check-readme-examples.sh QDT FILE...
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 QDT FILE..." >&2
  exit 2
fi
qdt=$(realpath "$1")
shift
root=$(cd "$(dirname "$0")/.." && pwd)
python3 - "$qdt" "$root" "$@" <<'PY'
import os, re, subprocess, sys
qdt, root, files = sys.argv[1], sys.argv[2], sys.argv[3:]
examples = []  # (file, command, shown lines)
for path in files:
    block, cmd = False, None
    try:
        text = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        print(f"FAIL cannot read {path}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    name = os.path.relpath(os.path.abspath(path), root)
    for line in text:
        if line.startswith("```console"):
            block, cmd = True, None
            continue
        if block and line.startswith("```"):
            block, cmd = False, None
            continue
        if not block:
            continue
        if line.startswith("$ "):
            cmd = [name, re.sub(r"\s+#.*$", "", line[2:]), []]
            examples.append(cmd)
        elif cmd is not None and line.strip():
            cmd[2].append(line)
checked = 0
env = dict(os.environ, PATH=os.path.dirname(qdt) + os.pathsep + os.environ.get("PATH", ""))
binary = re.compile(r"(?<![\w/.-])build/sim/(?:cli/)?qdt(?![\w/.-])")
for name, command, shown in examples:
    if not shown:
        continue  # nothing shown: nothing to keep fresh
    run = binary.sub(lambda m: qdt, command)
    out = subprocess.run(["bash", "-c", run], cwd=root, env=env, capture_output=True, text=True, timeout=600).stdout.splitlines()
    pos = 0
    for want in shown:
        pattern = re.compile("^" + ".*".join(re.escape(part) for part in want.split("…")) + "$")
        while pos < len(out) and not pattern.match(out[pos]):
            pos += 1
        if pos == len(out):
            print(f"FAIL {name}: example `{command}`: the line\n  {want}\nis not in its output:\n" + "\n".join(out[:20]), file=sys.stderr)
            sys.exit(1)
        pos += 1
    checked += 1
    print(f"ok {name}: `{command}` ({len(shown)} lines)")
if checked == 0:
    print("no example with output in " + " ".join(files), file=sys.stderr)
    sys.exit(1)
PY
