#!/usr/bin/env bash
# The README's console examples never go stale: every `$ command` in a
# ```console block that is followed by output lines is run from the repository
# root (with build/sim/qdt replaced by QDT), and each shown line must appear
# in its stdout, in order; "…" in a shown line matches anything.
# Usage: check-readme-examples.sh QDT README
set -uo pipefail
qdt=$1
readme=$2
root=$(cd "$(dirname "$readme")" && pwd)
python3 - "$qdt" "$readme" "$root" <<'PY'
import re, subprocess, sys
qdt, readme, root = sys.argv[1:4]
examples, block, cmd = [], False, None
for line in open(readme, encoding="utf-8"):
    line = line.rstrip("\n")
    if line.startswith("```console"):
        block, cmd = True, None
        continue
    if block and line.startswith("```"):
        block, cmd = False, None
        continue
    if not block:
        continue
    if line.startswith("$ "):
        cmd = [re.sub(r"\s+#.*$", "", line[2:]), []]
        examples.append(cmd)
    elif cmd is not None and line.strip():
        cmd[1].append(line)
checked = 0
for command, shown in examples:
    if not shown:
        continue  # nothing shown: nothing to keep fresh
    run = command.replace("build/sim/qdt", qdt)
    out = subprocess.run(["bash", "-c", run], cwd=root, capture_output=True, text=True, timeout=300).stdout.splitlines()
    pos = 0
    for want in shown:
        pattern = re.compile("^" + ".*".join(re.escape(part) for part in want.split("…")) + "$")
        while pos < len(out) and not pattern.match(out[pos]):
            pos += 1
        if pos == len(out):
            print(f"FAIL README example `{command}`: the line\n  {want}\nis not in its output:\n" + "\n".join(out[:20]), file=sys.stderr)
            sys.exit(1)
        pos += 1
    checked += 1
    print(f"ok `{command}` ({len(shown)} lines)")
if checked == 0:
    print("no README example with output", file=sys.stderr)
    sys.exit(1)
PY
