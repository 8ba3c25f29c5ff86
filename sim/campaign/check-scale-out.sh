#!/usr/bin/env bash
# Scale-out on an existing batch engine, as docs/campaigns.md ("One campaign
# on many machines") shows: GNU parallel (Debian's package) runs four shards
# (--shard I/4) as separate processes, qdt check --merge joins their --json
# summaries, and the merged campaign_digest equals a single run's; every seed
# of the single run is run exactly once, by the shard that owns it
# (seed % 4 == I). Negative checks: a shard merged twice is refused (exit 2,
# nothing on stdout, the file and seed named); a lost shard is named on stderr
# and in the summary's "shard". The documented Slurm job array and Kubernetes
# Indexed Job (sim/campaign/scale-out/) run here too, each task with the variables
# its engine sets (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX), and merge to
# the same digest.
# Usage: check-scale-out.sh QDT
set -euo pipefail
qdt=$(readlink -f "$1")
command -v parallel >/dev/null || { echo "FAIL: GNU parallel missing (bash scripts/install-deps.sh installs it)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seeds=40

"$qdt" check --seeds $seeds --profile all --quiet --json > "$work/single.json"
# Exactly the documented command, with the shard count 4 and 2 jobs at a time.
parallel --will-cite --halt now,fail=1 -j 2 \
  "$qdt" check --seeds $seeds --profile all --shard {}/4 --quiet --json --out "$work/out-{}" '>' "$work/shard-{}.json" \
  ::: 0 1 2 3
"$qdt" check --merge "$work"/shard-{0,1,2,3}.json --quiet --json > "$work/merged.json"

python3 - "$work" "$seeds" <<'PY'
import collections, json, sys
work, seeds = sys.argv[1], int(sys.argv[2])
def seed_list(doc):
    return [h.rsplit(" ", 1)[0] for h in doc["seed_hashes"]]
single = json.load(open(f"{work}/single.json"))
merged = json.load(open(f"{work}/merged.json"))
ok = True
def fail(msg):
    global ok
    ok = False
    print("FAIL:", msg, file=sys.stderr)
if single["campaign_digest"] != merged["campaign_digest"]:
    fail(f"merged digest {merged['campaign_digest']} != single run's {single['campaign_digest']}")
counts = collections.Counter(seed_list(merged))
twice = [s for s, n in counts.items() if n > 1]
if twice:
    fail(f"seeds run twice: {twice[:5]}")
missing = set(seed_list(single)) - set(counts)
if missing:
    fail(f"seeds skipped: {sorted(missing)[:5]}")
extra = set(counts) - set(seed_list(single))
if extra:
    fail(f"seeds the single run did not have: {sorted(extra)[:5]}")
profiles = {s.split(" ")[0] for s in seed_list(single)}
if len(seed_list(single)) != seeds * len(profiles) or len(profiles) < 2:
    fail(f"single run has {len(seed_list(single))} seeds over {len(profiles)} profiles, expected {seeds} each")
for i in range(4):
    shard = json.load(open(f"{work}/shard-{i}.json"))
    if shard["shard"] != f"{i}/4":
        fail(f"shard {i} says shard {shard['shard']}")
    wrong = [s for s in seed_list(shard) if int(s.split(" ")[1]) % 4 != i]
    if wrong:
        fail(f"shard {i} ran seeds it does not own: {wrong[:5]}")
if merged["seeds_run"] != single["seeds_run"] or merged["failed"] != single["failed"]:
    fail("seeds_run / failed differ between the merged and the single run")
if merged["shard"] != "merged 4 of 4 shards":
    fail(f"merged summary says shard {merged['shard']!r}")
if not ok:
    sys.exit(1)
print(f"ok: 4 shards through GNU parallel, {merged['seeds_run']} seeds each run once, digest {merged['campaign_digest']}")
PY

# A shard merged twice: refused before anything is printed.
set +e
"$qdt" check --merge "$work"/shard-{0,1,2,3}.json "$work/shard-2.json" --quiet --json > "$work/twice.out" 2> "$work/twice.err"
code=$?
set -e
[ "$code" -eq 2 ] || { echo "FAIL: a shard merged twice exited $code, expected 2" >&2; cat "$work/twice.err" >&2; exit 1; }
[ ! -s "$work/twice.out" ] || { echo "FAIL: a refused merge printed a summary" >&2; exit 1; }
grep -q "shard-2.json: /seed_hashes/0: seed '.*' is also in .*shard-2.json" "$work/twice.err" \
  || { echo "FAIL: the refusal does not name the file and seed:" >&2; cat "$work/twice.err" >&2; exit 1; }

# A lost shard: the merge is a smaller campaign, and says which shard is absent.
"$qdt" check --merge "$work"/shard-{0,1,3}.json --quiet --json > "$work/three.json" 2> "$work/three.err"
grep -q "1 of 4 shards absent: 2/4" "$work/three.err" \
  || { echo "FAIL: the absent shard is not named:" >&2; cat "$work/three.err" >&2; exit 1; }
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["shard"]=="merged 3 of 4 shards", s["shard"]' "$work/three.json" \
  || { echo "FAIL: a partial merge's summary does not say so" >&2; exit 1; }
echo "ok: a shard merged twice is refused (exit 2); a lost shard is named"

# The Slurm array script, each task as Slurm would start it.
for i in 0 1 2 3; do
  SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_ID=$i SLURM_CPUS_PER_TASK=1 QDT="$qdt" QDT_OUT="$work/slurm" \
    QDT_SEEDS=$seeds QDT_PROFILE=all bash "$(dirname "$0")/scale-out/slurm-campaign.sbatch"
done
# The Indexed Job's container command, at 4 completions, with the volume and
# the binary mapped to this machine.
yaml="$(dirname "$0")/scale-out/k8s-indexed-job.yaml"
command=$(python3 - "$yaml" <<'PY'
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
spec = job["spec"]
assert job["kind"] == "Job" and spec["completionMode"] == "Indexed", "not an Indexed Job"
n = spec["completions"]
container = spec["template"]["spec"]["containers"][0]
script = container["args"][0]
assert f"--shard $i/{n} " in script, f"the shard count in the command differs from completions {n}"
print(script.replace(f"/{n} ", "/4 ").replace("--seeds 100000", "--seeds SEEDS"))
PY
)
mkdir -p "$work/k8s"
for i in 0 1 2 3; do
  (cd "$work" && JOB_COMPLETION_INDEX=$i bash -c "$(printf '%s' "$command" | sed -e "s|/results|$work/k8s|g" \
    -e "s|build/sim/qdt|$qdt|" -e "s|SEEDS|$seeds|")")
done
single=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["campaign_digest"])' "$work/single.json")
for engine in slurm k8s; do
  got=$("$qdt" check --merge "$work/$engine"/shard-{0,1,2,3}.json --quiet --json \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["campaign_digest"])')
  [ "$got" = "$single" ] || { echo "FAIL: $engine shards merge to $got, the single run is $single" >&2; exit 1; }
done
echo "ok: the Slurm array script and the Indexed Job's command merge to the single run's digest"
