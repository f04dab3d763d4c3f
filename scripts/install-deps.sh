#!/usr/bin/env bash
# Installs every dependency of cutune on a fresh Debian 12 machine (run as root).
# Idempotent: does nothing slow when everything is already present.
#   scripts/install-deps.sh [--kernel-tuner]
# --kernel-tuner also makes .venv-kernel-tuner with Kernel Tuner and its dependencies pinned
# (bench/search/requirements-kernel-tuner.txt), for bench/search/kernel_tuner_compare.py.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

apt_packages=(
  build-essential cmake ninja-build pkg-config git ccache
  nlohmann-json3-dev libcli11-dev libfmt-dev libsqlite3-dev sqlite3
  libgtest-dev libgmock-dev libbenchmark-dev
  libpq-dev postgresql-15
  libxgboost-dev libmuparser-dev zlib1g-dev libxxhash-dev
  clang-format python3-pip python3-dev python3-venv
  libjs-chart.js chromium
)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# CUTLASS/CuTe headers: only the include/ tree of the pinned PyPI wheel, in an ignored folder.
cutlass_version=4.2.0.0
cutlass_root="$here/third_party/cutlass"
if [[ ! -f "$cutlass_root/VERSION" || "$(cat "$cutlass_root/VERSION")" != "$cutlass_version" ]]; then
  tmp="$(mktemp -d)"
  python3 -m pip install -q --no-deps --no-compile --target "$tmp" "nvidia-cutlass==$cutlass_version"
  rm -rf "$cutlass_root" && mkdir -p "$cutlass_root"
  cp -r "$tmp/cutlass_library/source/include" "$cutlass_root/include"
  echo "$cutlass_version" > "$cutlass_root/VERSION"
  rm -rf "$tmp"
fi
if [[ "${1:-}" == "--kernel-tuner" ]]; then
  apt_venv=python3-venv
  dpkg-query -W -f='${Status}' "$apt_venv" 2>/dev/null | grep -q "install ok installed" \
    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends "$apt_venv"; }
  venv="$here/.venv-kernel-tuner"
  [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r "$here/bench/search/requirements-kernel-tuner.txt"
fi
# The Python package's build and test environment (.venv-python, pinned; scripts/python-test.sh).
"$here/scripts/python-test.sh" --setup
echo "dependencies ready"
