#!/usr/bin/env bash
# The Python package's tests (python/tests), on the CPU path: builds and installs the package
# (`pip install .`) into a virtual environment, then runs pytest.
#   scripts/python-test.sh [--setup]
# --setup only makes the environment (.venv-python, python/requirements-dev.txt pinned), as
# scripts/install-deps.sh --test does. The build folder (build/py-*) is kept, so a second run rebuilds
# only what changed, and its C++ objects come from ccache when build/release was built first.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv-python"
# requirements-kernels.txt: the frameworks of cutune.triton and cutune.helion, whose tests run
# their kernels on the CPU.
requirements=("$root/python/requirements-dev.txt" "$root/python/requirements-kernels.txt")
stamp="$venv/requirements.txt"
if [[ ! -x "$venv/bin/python" ]] || ! cat "${requirements[@]}" | cmp -s - "$stamp"; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${requirements[@]/#/-r}"
  cat "${requirements[@]}" > "$stamp"
fi
[[ "${1:-}" == "--setup" ]] && exit 0

start=$(date +%s)
cd "$root"
# The compilers CMake picks for build/release: scikit-build-core would otherwise take Python's
# (sysconfig's g++ or x86_64-linux-gnu-g++), whose other name ccache does not match.
export CC="${CC:-cc}" CXX="${CXX:-c++}"
# No build isolation: the pinned build requirements are already in the environment, and nothing
# is downloaded per build.
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation \
  --config-settings=build.verbose=false . > build/python-install.log 2>&1 ||
  { tail -60 build/python-install.log; echo "python-test.sh: pip install . failed" >&2; exit 1; }
echo "python-test.sh: package built and installed in $(( $(date +%s) - start )) s"
# From /tmp, so that `import cutune` is the installed package, not python/cutune.
cd /tmp
# The C++ readers of a deployed config, which one test holds beside both Python paths.
CUTUNE_REPOSITORY="$root" CUTUNE_CLI="$root/build/release/bin/cutune" \
  CUTUNE_UNTUNED_READERS="$root/build/release/tests/runtime/cutune_untuned_readers" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests"
echo "python-test.sh: done in $(( $(date +%s) - start )) s"
