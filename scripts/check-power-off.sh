#!/usr/bin/env bash
# The negative power-loss test: under world.storage.synchronous "off" a
# crash_storage loses committed pushes, and the checkers must say so.
# Expects exit 1 with a `durability` failure, and no `expectation` failure:
# the repeat of the lost key was queued again, not answered duplicate (the
# broker's cache forgot what storage lost).
set -uo pipefail
qdt="$1"
file="$2"
out=$("$qdt" replay "$file" --json --quiet)
rc=$?
if [ "$rc" -ne 1 ]; then echo "expected exit 1, got $rc"; echo "$out"; exit 1; fi
python3 - "$out" <<'PY'
import json, sys
doc = json.loads(sys.argv[1])
props = [f["property"] for f in doc["failures"]]
assert "durability" in props, props
assert "expectation" not in props, [f for f in doc["failures"] if f["property"] == "expectation"]
print("ok: durability reported", props.count("durability"), "lost write(s); other properties:", sorted(set(props)))
PY
