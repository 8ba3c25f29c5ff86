#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds, runs ctest.
#   scripts/test.sh             the build in build/ (Release, assertions on)
#   scripts/test.sh --sanitize  a separate build in build-sanitize/ with
#                               AddressSanitizer and UndefinedBehaviorSanitizer,
#                               and the whole ctest suite under them; any
#                               finding fails the run (halt_on_error).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--sanitize" ]; then
  bash scripts/install-deps.sh
  # Stack instrumentation is off (--param=asan-stack=0): Debian's Boost.Context
  # switches fiber stacks without telling AddressSanitizer, so an exception
  # unwinding on a fiber stack leaves stale redzones ASan refuses to clear
  # ("ignoring requested __asan_handle_no_return") and reports false
  # stack-buffer-overflows after it. Heap, global, leak and UB checks stay on.
  flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all --param=asan-stack=0"
  # Line tables (-g1) are all a sanitizer's stack trace needs, and build
  # much faster than full debug information.
  # Executables are linked at a fixed address (-no-pie): the sanitizers'
  # metadata makes a position-independent qdt carry millions of relocations,
  # which the loader would apply again at each of the suite's many process
  # starts.
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined -no-pie" >/dev/null
  cmake --build build-sanitize -j "$(nproc)"
  # Suppressions live in scripts/sanitizers/ with a comment saying why each is there.
  export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1:detect_stack_use_after_return=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$PWD/scripts/sanitizers/ubsan.supp${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
  export LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizers/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
  ctest --test-dir build-sanitize --output-on-failure -j "$(nproc)" --timeout 900
  exit 0
fi
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
