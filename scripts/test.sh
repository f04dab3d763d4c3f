#!/usr/bin/env bash
# Builds the release preset and runs every test that needs no GPU.
# With --sanitize, builds and runs the ASan+UBSan preset instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
preset=release
[[ "${1:-}" == "--sanitize" ]] && preset=asan
jobs="$(nproc)"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
ctest --preset "$preset" -j "$jobs"
# The Python package (python/tests) on the release build only: its objects come from ccache.
if [[ "$preset" == release ]]; then
  scripts/python-test.sh
fi
