#!/usr/bin/env bash
# Builds the libFuzzer harnesses of sim/fuzz/ (clang, AddressSanitizer,
# UndefinedBehaviorSanitizer) into build-fuzz/ and runs each for SECONDS
# (default 60), one process at a time. The grown corpus and any crash,
# timeout or out-of-memory input go to QDT_FUZZ_WORK (default /tmp/qdt-fuzz),
# outside the repository; the checked-in seeds (sim/fuzz/corpus/NAME/) are
# only read. Prints the executions per harness; exits 1 if any harness left
# a crash, timeout or oom file. Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]
# QDT_FUZZ_RUNS=N also stops each harness after N executions (libFuzzer's
# -runs; SECONDS stays the cap), QDT_FUZZ_MAX_LEN sets -max_len (default
# 65536; every checked-in seed is under 9 KB). For long runs beside other
# work: nice -n 19 bash scripts/fuzz.sh ...
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(scenario_fuzz sweep_fuzz push_request_fuzz merge_fuzz render_fuzz)
work=${QDT_FUZZ_WORK:-/tmp/qdt-fuzz}

bash scripts/install-deps.sh
# clang and libFuzzer's runtime, on demand (root or sudo), as install-deps.sh does.
missing=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  echo "installing: ${missing[*]}" >&2
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

CC=clang CXX=clang++ cmake -S . -B build-fuzz -DQDT_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j "${QDT_FUZZ_BUILD_JOBS:-2}" --target "${harnesses[@]}"

found=0
for h in "${harnesses[@]}"; do
  corpus="$work/$h/corpus"
  artifacts="$work/$h/artifacts"
  mkdir -p "$corpus" "$artifacts"
  log="$work/$h/last.log"
  # The grown corpus comes first (libFuzzer writes there); the seeds are read only.
  set +e
  runs=()
  [ -z "${QDT_FUZZ_RUNS:-}" ] || runs=(-runs="$QDT_FUZZ_RUNS")
  "build-fuzz/sim/fuzz/$h" -max_total_time="$seconds" "${runs[@]}" -max_len="${QDT_FUZZ_MAX_LEN:-65536}" \
    -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -dict="sim/fuzz/${h%_fuzz}.dict" -artifact_prefix="$artifacts/" \
    "$corpus" "sim/fuzz/corpus/${h%_fuzz}" >"$log" 2>&1
  code=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  per_s=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
  echo "$h: ${execs:-?} executions in ${took:-$seconds} s (${per_s:-?}/s), corpus $(ls "$corpus" | wc -l) inputs, exit $code"
  this=0
  for f in "$artifacts"/crash-* "$artifacts"/timeout-* "$artifacts"/oom-* "$artifacts"/leak-*; do
    [ -e "$f" ] || continue
    echo "  FOUND $f" >&2
    # Kept as a seed, ctest's fuzz.replay_corpus.NAME replays it from then on.
    echo "  once fixed, keep it: cp $f sim/fuzz/corpus/${h%_fuzz}/$(basename "$f")" >&2
    this=1
    found=1
  done
  if [ $code -ne 0 ] && [ $this -eq 0 ]; then
    echo "  $h exited $code without an artifact; see $log" >&2
    tail -n 30 "$log" >&2
    found=1
  fi
done
exit $found
