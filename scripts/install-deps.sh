#!/usr/bin/env bash
# Installs the dependencies of cutune on a fresh Debian 12 machine (run as root).
# Idempotent: does nothing slow when everything is already present.
#   scripts/install-deps.sh [--test] [--kernel-tuner]
# Without options: what building and running cutune needs (compilers, libraries, the CUTLASS
# headers). --test adds what only the tests need: a PostgreSQL server (shared-store tests),
# Chromium (the report page's browser test), clang-format, the Python package's test environment
# (.venv-python), the wheel's tools (.venv-wheel) and Kernel Tuner (.venv-kernel-tuner, for its
# simulation-mode check of cutune's exports). --kernel-tuner makes .venv-kernel-tuner alone
# (bench/search/kernel_tuner_compare.py). Kernel Tuner and its dependencies are pinned
# (bench/search/requirements-kernel-tuner.txt).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tests=false
kernel_tuner=false
for arg in "$@"; do
  case "$arg" in
    --test) tests=true kernel_tuner=true ;;
    --kernel-tuner) kernel_tuner=true ;;
    *) echo "install-deps.sh: unknown option $arg (--test, --kernel-tuner)" >&2; exit 2 ;;
  esac
done

# The build's tests and benchmarks are part of the release preset, so GoogleTest and Google
# Benchmark are build dependencies; Chart.js is embedded into the tool at build time.
apt_packages=(
  build-essential cmake ninja-build pkg-config git ccache
  nlohmann-json3-dev libcli11-dev libfmt-dev libsqlite3-dev sqlite3
  libgtest-dev libgmock-dev libbenchmark-dev libpq-dev
  libxgboost-dev libmuparser-dev zlib1g-dev libxxhash-dev
  python3-pip python3-dev python3-venv libjs-chart.js
)
if $tests; then
  apt_packages+=(postgresql-15 chromium clang-format)
fi
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
if $kernel_tuner; then
  venv="$here/.venv-kernel-tuner"
  requirements="$here/bench/search/requirements-kernel-tuner.txt"
  if [[ ! -x "$venv/bin/python" ]] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$venv/requirements.txt"
  fi
fi
if $tests; then
  # The Python package's build and test environment (.venv-python, pinned; scripts/python-test.sh).
  "$here/scripts/python-test.sh" --setup
  # The wheel's build and repair tools (.venv-wheel, pinned; scripts/wheel.sh, test package_wheel).
  "$here/scripts/wheel.sh" --setup
fi
echo "dependencies ready"
