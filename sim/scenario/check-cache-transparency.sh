#!/usr/bin/env bash
# docs/semantics.md §2.11: a cold, evicted, degraded, disabled or warm cache yields the same
# verdicts and ids. Replays every scenario with the cache on, off, and at a
# 1-byte budget; every run must pass, and every sequential scenario (no
# `parallel` step: its outcome cannot depend on timing) must give the same
# responses. Ids are compared by
# identity (which earlier answer an id equals), because the cache's hydration
# round trips take virtual time and so move UUIDv7 timestamps.
# Usage: check-cache-transparency.sh QDT DIR
set -euo pipefail
qdt=$1
dir=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$qdt" replay "$dir" --json --quiet --cache on > "$out/on.json" || [ $? -eq 1 ]
"$qdt" replay "$dir" --json --quiet --cache off > "$out/off.json" || [ $? -eq 1 ]
# A 1-byte budget: every partition is declined, every answer is -1. And an
# eviction of every broker's cache before every top-level push.
mkdir -p "$out/tiny" "$out/evict"
python3 - "$dir" "$out/tiny" <<'PY'
import json, os, sys
src, dst = sys.argv[1], sys.argv[2]
for root, dirs, files in os.walk(src):
    dirs[:] = [d for d in dirs if d not in ("schema", "sweeps")]
    for f in files:
        if f.endswith(".json"):
            j = json.load(open(os.path.join(root, f)))
            evict = json.loads(json.dumps(j))
            j.setdefault("world", {}).setdefault("cache", {})["budget_bytes"] = 1
            json.dump(j, open(os.path.join(dst, f), "w"))
            brokers = evict.get("world", {}).get("brokers", 1)
            steps = []
            for s in evict["steps"]:
                if s.get("op") == "push":
                    steps += [{"op": "evict_cache", "broker": b} for b in range(brokers)]
                steps.append(s)
            evict["steps"] = steps
            json.dump(evict, open(os.path.join(dst, "..", "evict", f), "w"))
PY
"$qdt" replay "$out/tiny" --json --quiet > "$out/tiny.json" || [ $? -eq 1 ]
"$qdt" replay "$out/evict" --json --quiet > "$out/evict.json" || [ $? -eq 1 ]
python3 - "$out/on.json" "$out/off.json" "$out/tiny.json" "$dir" "$out/evict.json" <<'PY'
import json, os, sys
sequential = set()
for root, dirs, files in os.walk(sys.argv[4]):
    dirs[:] = [d for d in dirs if d not in ("schema", "sweeps")]
    for f in files:
        if f.endswith(".json"):
            j = json.load(open(os.path.join(root, f)))
            if not any(s.get("op") == "parallel" for s in j["steps"]):
                sequential.add(j.get("name", f[:-5]))
def normalized(path):
    out = {}
    for r in json.load(open(path)):
        seen = {}
        steps = {}
        # Steps without an id go by their JSON path, which the eviction steps
        # inserted before every push shift: compared by id only.
        for sid in sorted(s for s in r["steps"] if not s.startswith("/")):
            resp = r["steps"][sid]["response"]
            if isinstance(resp, list):
                steps[sid] = [(i["status"], seen.setdefault(i["message_id"], len(seen)) if i["message_id"] != "00000000-0000-0000-0000-000000000000" else "zero") for i in resp]
            else:
                steps[sid] = {k: v for k, v in resp.items() if k not in ("message_id", "messages")}
        out[r["scenario"]] = (r["passed"], steps)
    return out
on, off, tiny = (normalized(p) for p in sys.argv[1:4])
evicted = normalized(sys.argv[5])
bad = [s for s in on if s in sequential and (on[s] != off.get(s) or on[s] != tiny.get(s) or on[s] != evicted.get(s))]
for s in bad:
    print("differs:", s, "\n on:  ", on[s], "\n off: ", off.get(s), "\n tiny:", tiny.get(s), file=sys.stderr)
for name, runs in (("on", on), ("off", off), ("1-byte budget", tiny), ("evicted before every push", evicted)):
    failed = [s for s, v in runs.items() if not v[0]]
    if failed:
        print(f"failed with the cache {name}: {failed}", file=sys.stderr); sys.exit(1)
if bad: sys.exit(1)
compared = len([s for s in on if s in sequential])
assert compared >= 20, compared
print(f"{len(on)} scenarios pass with the cache on, off, at a 1-byte budget and evicted before every push; {compared} sequential ones answer identically")
PY
