#!/usr/bin/env bash
# Builds and runs every GPU test (ctest label "gpu") on a machine with an NVIDIA GPU, then
# cutune.gemm on fp8 tensors where the Python package imports, then the CUDA backend's figures
# (cutune-cuda-bench), and prints a short table last.
#
#   scripts/gpu/run-gpu-tests.sh [BUILD_DIR]         BUILD_DIR defaults to build/gpu
#
# Needs the CUDA toolkit (nvcc, NVRTC, the driver) and the build's dependencies
# (scripts/install-deps.sh); the benchmarks are built too, cutune-cuda-bench (bench/backend/cuda)
# among them. A machine without them (no network) can run a build made elsewhere:
# CUTUNE_GPU_PREBUILT=1 skips configure and build and runs what BUILD_DIR holds; the build's
# absolute paths must then resolve there as they did where it was made.
# Exit status: non-zero when a test failed or a figure could not be measured.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$root/build/gpu}"
logs="$build/gpu-logs"

if [[ "${CUTUNE_GPU_PREBUILT:-0}" != 1 ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUTUNE_BUILD_BENCH=ON \
    || exit 1
  ninja -C "$build" || exit 1
fi
mkdir -p "$logs"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader \
  | tee "$logs/gpu.txt"

status=0
ctest --test-dir "$build" -L gpu --output-on-failure -j1 2>&1 | tee "$logs/ctest.txt" || status=1
# cutune.gemm on fp8 tensors (python/tests/gpu_gemm_fp8_check.py) where the Python package and
# PyTorch import (scripts/gpu/python-gemm.sh installs the package and runs it too); said when not.
if python3 -c 'import cutune, torch' 2> /dev/null; then
  python3 "$root/python/tests/gpu_gemm_fp8_check.py" --out "$logs/python-fp8.json" 2>&1 |
    tee "$logs/python-fp8.txt" || status=1
else
  echo "python fp8 check: not run (cutune or torch does not import; scripts/gpu/python-gemm.sh" \
    "installs the package)" | tee "$logs/python-fp8.txt"
fi
bench="$build/bin/cutune-cuda-bench"
if [[ -x "$bench" ]]; then
  "$bench" --json "$logs/cuda-bench.json" 2>&1 | tee "$logs/cuda-bench.txt" || status=1
fi

echo
echo "=== GPU tests: $(cat "$logs/gpu.txt" 2>/dev/null | head -1)"
grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+:' "$logs/ctest.txt" \
  | sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) [ .*]*([A-Za-z*]+[A-Za-z ]*) +([0-9.]+ sec)/\2\t\3\t\1/'
grep -E 'tests passed|tests failed' "$logs/ctest.txt"
echo "=== Python fp8 GEMM: $(tail -1 "$logs/python-fp8.txt")"
if [[ -f "$logs/cuda-bench.txt" ]]; then
  echo "=== CUDA backend figures"
  grep -E '^(compile|overhead|stability)|of [0-9]+ classified' "$logs/cuda-bench.txt"
fi
exit $status
