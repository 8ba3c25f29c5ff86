#!/usr/bin/env bash
# The negative power-loss tests: under world.storage.synchronous "off" a
# crash_storage loses committed pushes, and the checkers must say so.
# Each FILE must exit 1 with a `durability` failure and no failed
# expectation: what the scenario expects of the answers after the crash
# (a repeat of a lost key queued again; a key stored at a reused offset
# answered duplicate, because the broker's cache forgot what storage lost)
# holds even though storage lost writes.
#   check-power-off.sh QDT FILE...
set -uo pipefail
qdt="$1"
shift
for file in "$@"; do
  out=$("$qdt" replay "$file" --json --quiet)
  rc=$?
  if [ "$rc" -ne 1 ]; then echo "$file: expected exit 1, got $rc"; echo "$out"; exit 1; fi
  python3 - "$file" "$out" <<'PY' || exit 1
import json, sys
name, (doc,) = sys.argv[1], json.loads(sys.argv[2])
failures = doc["failures"]
props = [f["property"] for f in failures if f["kind"] == "property"]
expectations = [f["detail"] for f in failures if f["kind"] == "expectation"]
assert "durability" in props, (name, props)
assert not expectations, (name, expectations)
print(f"ok {name}: durability reported {props.count('durability')} lost write(s); other properties: {sorted(set(props))}")
PY
done
