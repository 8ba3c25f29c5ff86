#!/usr/bin/env bash
# Installs the Debian packages qdt builds with. Idempotent; needs root (or sudo).
set -euo pipefail
packages=(
  cmake g++ make pkg-config
  libboost-fiber-dev libboost-context-dev
  libsqlite3-dev sqlite3
  librapidcheck-dev libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libxxhash-dev libcli11-dev libvalijson-dev
  gnuplot-nox parallel python3-yaml
  postgresql-15 libpq-dev
  rustc
  chromium
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
echo "installing: ${missing[*]}" >&2
$sudo_cmd apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
