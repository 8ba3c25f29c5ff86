#!/usr/bin/env bash
# Storage on synchronous "off" loses every commit to a power loss, and the
# checkers judge what follows as storage saw it (scenarios/crash-storage-off-*
# pass on the reference). The negative FILE names the variant
# keep-cache-on-reconnect in its world: it must exit 1 with no-double-write
# and a failed expectation at p4, and the same file without the variant must
# pass, so the variant alone is what the checkers caught.
#   check-power-off.sh QDT FILE
set -uo pipefail
qdt="$1"
file="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$("$qdt" replay "$file" --json --quiet)
rc=$?
if [ "$rc" -ne 1 ]; then echo "$file: expected exit 1, got $rc"; echo "$out"; exit 1; fi
python3 - "$file" "$out" <<'PY' || exit 1
import json, sys
name, (doc,) = sys.argv[1], json.loads(sys.argv[2])
failures = doc["failures"]
props = sorted({f["property"] for f in failures if f["kind"] == "property"})
steps = sorted({f["step"] for f in failures if f["kind"] == "expectation"})
assert "no-double-write" in props, (name, props)
assert "durability" not in props, (name, props)
assert steps == ["p4", "r"], (name, steps)
print(f"ok {name}: caught by {props}")
PY
python3 - "$file" "$tmp/reference.json" <<'PY' || exit 1
import json, sys
doc = json.load(open(sys.argv[1]))
del doc["world"]["variant"]
json.dump(doc, open(sys.argv[2], "w"))
PY
"$qdt" replay "$tmp/reference.json" --quiet || { echo "the file without its variant does not pass on the reference"; exit 1; }
echo "ok: passes without the variant"
