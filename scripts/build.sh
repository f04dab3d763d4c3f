#!/usr/bin/env bash
# Configures and builds the release preset; the tool lands in build/release/bin/cutune.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
