# Sourced by the check-*foreign-cache*.sh scripts after their own set-up:
# skips (77) only when no rustc is installed at all, since CI installs it;
# requires the one folder of built modules the tests share per build tree;
# names qdt's own fixtures.
if [ -z "${QDT_RUSTC:-}" ] && [ ! -x /usr/bin/rustc ] && ! command -v rustc >/dev/null; then
  echo "SKIP: no rustc installed (apt-get install rustc)"
  exit 77
fi
: "${QDT_CACHE_MODULES_DIR:?the tests share one folder of built modules per build tree}"
export QDT_CACHE_MODULES_DIR
sound=$src/sim/testdata/cache-fixture/sound
holed=$src/sim/testdata/cache-fixture/holed
