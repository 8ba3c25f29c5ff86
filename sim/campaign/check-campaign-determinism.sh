#!/usr/bin/env bash
# A campaign's digest (every seed's trace hash) is the same with --jobs 1, with
# --jobs 2, across two processes and for two merged shards; a different first
# seed changes it.
# Usage: check-campaign-determinism.sh QDT
set -euo pipefail
qdt=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Each campaign journals into a folder of its own inside $tmp.
digest() { "$qdt" check --seeds 30 --profile all --quiet --json --out "$(mktemp -d -p "$tmp")" "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["campaign_digest"])'; }
one=$(digest --jobs 1)
two=$(digest --jobs 2)
again=$(digest --jobs 1)
other=$(digest --jobs 1 --seed 1000)
shards=$(mktemp -d -p "$tmp")
"$qdt" check --seeds 30 --profile all --quiet --json --out "$shards" --shard 0/2 > "$shards/0.json" || true
"$qdt" check --seeds 30 --profile all --quiet --json --out "$shards" --shard 1/2 > "$shards/1.json" || true
merged=$("$qdt" check --merge "$shards/0.json" "$shards/1.json" --quiet --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["campaign_digest"])')
[ "$one" = "$merged" ] || { echo "FAIL: merged shards give $merged" >&2; exit 1; }
echo "jobs 1: $one; jobs 2: $two; again: $again; other seeds: $other; shards merged: $merged"
[ "$one" = "$two" ] || { echo "FAIL: --jobs 1 and --jobs 2 differ" >&2; exit 1; }
[ "$one" = "$again" ] || { echo "FAIL: two processes differ" >&2; exit 1; }
[ "$one" != "$other" ] || { echo "FAIL: other seeds gave the same digest" >&2; exit 1; }
echo "ok: campaign digest identical across jobs and processes"
