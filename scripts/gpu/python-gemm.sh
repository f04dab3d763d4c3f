#!/usr/bin/env bash
# The Python package on the GPU machine: cutune.tune of the GEMM family at S3 (2048x4096x4096
# bf16), then cutune.gemm(a, b) on PyTorch tensors checked against torch.matmul and timed beside
# the same kernel timed by the tune and by a C++ loop in the same process
# (python/tests/gpu_gemm_check.py prints the table); then cutune.gemm on fp8 tensors with their
# scales, each scaling against the scaled fp32 reference (python/tests/gpu_gemm_fp8_check.py).
#
#   scripts/gpu/python-gemm.sh bundle   here, on a build machine: the core libraries
#                                       (python/CMakeLists.txt, CUTUNE_PYTHON_CORE_ONLY), the
#                                       workers, their non-system libraries and the GEMM source
#                                       in build/python-bundle, and the pinned nanobind,
#                                       scikit-build-core, packaging and pathspec wheels in .whl/
#   scripts/gpu/python-gemm.sh [run]    on the GPU machine (carry build/python-bundle, .whl and
#                                       third_party/cutlass/include): builds the nanobind modules
#                                       for its python3 against the bundle (pip install, else
#                                       plain CMake), then runs the checks; about 3 minutes, and
#                                       the fp8 check's compiles of its default configs
#
# The GPU image has Python 3.12, PyTorch, nvcc, CMake and ninja, but none of cutune's Debian
# dependencies, hence the split: what needs them is built here, what needs its Python there.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bundle="${PY_BUNDLE:-$root/build/python-bundle}"  # PY_BUNDLE, PY_WHEELS: a bundle made elsewhere
wheels="${PY_WHEELS:-$root/.whl}"
mode="${1:-run}"
# shellcheck source=scripts/gpu/lib.sh
source "$root/scripts/gpu/lib.sh"

if [[ "$mode" == bundle ]]; then
  set -e
  # Two levels deep, as build/release: ccache reuses its objects. PY_BUILD=build/py-cp311-...
  # takes the core libraries from a `pip install .` build folder instead (the same files).
  build="${PY_BUILD:-$root/build/py-core}"
  if [[ -z "${PY_BUILD:-}" ]]; then
    cmake -S "$root/python" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCUTUNE_PYTHON_CORE_ONLY=ON > /dev/null
  fi
  ninja -C "$build" cutune_python_core cutune_python_gemm cutune-cpu-worker cutune-cuda-worker \
    cutune-nvrtc
  rm -rf "$bundle"
  mkdir -p "$bundle/lib" "$bundle/bin" "$bundle/share/gemm/device"
  cp "$build/core/libcutune_python_core.so" "$build/gemm/libcutune_python_gemm.so" "$bundle/lib/"
  cp "$build/cutune/bin/cutune-cpu-worker" "$build/cutune/bin/cutune-cuda-worker" \
    "$build/cutune/bin/cutune-nvrtc" "$bundle/bin/"
  cp "$root/src/families/gemm/device/hopper_gemm.cu" "$bundle/share/gemm/device/"
  # The headers the kernel source includes from its parent folder.
  cp "$root/src/families/gemm/gemm_rules.hpp" "$root/src/families/gemm/gemm_schedule.hpp" \
    "$bundle/share/gemm/"
  mkdir -p "$bundle/share/gemm_fp8/device"
  cp "$root/src/families/gemm_fp8/device/hopper_gemm_fp8.cu" "$bundle/share/gemm_fp8/device/"
  # The rules and the C interface, which the fp8 compiler prepends to the kernel source.
  cp "$root/src/families/gemm_fp8/gemm_fp8_rules.hpp" "$root/src/families/gemm_fp8/gemm_fp8_abi.hpp" \
    "$bundle/share/gemm_fp8/"
  bundle_libraries "$bundle/lib" "$bundle"/lib/*.so "$bundle"/bin/*
  mkdir -p "$root/.whl"
  # scikit-build-core's own needs too (packaging, pathspec): the image has them, but carried
  # they cannot be missing or too old.
  for name in scikit-build-core nanobind packaging pathspec; do
    python3 -m pip download -q --no-deps --only-binary=:all: -d "$root/.whl" \
      "$(grep -E "^$name==" "$root/python/requirements-dev.txt")"
  done
  du -sh "$bundle" "$root/.whl"
  ls "$bundle/lib" "$root/.whl"
  exit 0
fi
[[ "$mode" == run ]] || { echo "python-gemm.sh: unknown mode '$mode' (bundle | run)" >&2; exit 64; }

start_clock
out="${OUT:-$root/build/python-gemm/out}"
work="$(mktemp -d /tmp/python-gemm.XXXXXX)"
mkdir -p "$out"
require_nvcc python-gemm.sh
[[ -f "$bundle/lib/libcutune_python_core.so" ]] || { echo "python-gemm.sh: no $bundle" >&2; exit 1; }
export CUTUNE_CUTLASS_INCLUDE="${CUTUNE_CUTLASS_INCLUDE:-$root/third_party/cutlass/include}"
[[ -d "$CUTUNE_CUTLASS_INCLUDE/cute" ]] || { echo "python-gemm.sh: no CUTLASS headers" >&2; exit 1; }
install_python_package "$work" "$bundle" "$wheels" "$out" || exit 1
add_cublaslt_path
export XDG_CACHE_HOME="$work/cache"  # cold compile cache: the tune compiles, the runtime reuses
record_gpu "$out/gpu.txt"
cd "$work"  # `import cutune` is the installed package
PYTHONUNBUFFERED=1 python3 "$root/python/tests/gpu_gemm_check.py" --db "$work/s3.db" \
  --budget "${S3_BUDGET:-30}" --seconds "${S3_SECONDS:-70}" --out "$out/gemm_check.json"
status=$?
# cutune.gemm on fp8 tensors, each scaling against the scaled fp32 reference (default configs).
PYTHONUNBUFFERED=1 python3 "$root/python/tests/gpu_gemm_fp8_check.py" \
  --out "$out/gemm_fp8_check.json" || status=1
echo "python-gemm.sh: done at $(elapsed) s (exit status $status)"
exit $status
