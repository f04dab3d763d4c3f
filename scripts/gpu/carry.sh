#!/usr/bin/env bash
# One archive of everything the GPU machine needs and cannot build (it lacks the project's Debian
# dependencies), so that a device call carries one file: `carry: [".carry"]`.
#
#   scripts/gpu/carry.sh pack     here, after scripts/build.sh: builds the bundles of
#                                 gemm-tune.sh, dispatch-bench.sh and python-gemm.sh, copies the
#                                 GPU tests' libraries next to build/release, and writes
#                                 .carry/carry.tar.xz (about 36 MB: the bundles, the release build's
#                                 GPU test binaries and ctest files, the CUTLASS headers)
#   scripts/gpu/carry.sh unpack   there: unpacks it and links the folder the build was made in
#                                 (.carry/built-at.txt) to the repository, where the prebuilt
#                                 tests look
#
# After unpacking, the GPU scripts run as they are (`scripts/gpu/gemm-peers.sh`,
# `scripts/gpu/dispatch-bench.sh run`, `scripts/gpu/python-gemm.sh run`), and so does every GPU test:
# `cd build/release && LD_LIBRARY_PATH=$PWD/devlib:... ctest -L gpu` (add_cublaslt_path first).
# .carry must be ignored (.git/info/exclude) so that only the archive travels.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
# shellcheck source=scripts/gpu/lib.sh
source scripts/gpu/lib.sh
archive=.carry/carry.tar.xz
gpu_tests=(tests/runtime/test_runtime_cuda tests/families/gemm/gemm_evaluator_gpu_test
           tests/families/gemm/test_runtime_gemm_gpu tests/families/gemm_fp8/test_runtime_gemm_fp8_gpu
           tests/gpu/test_cuda_gpu tests/gpu/test_launch_timer)

case "${1:-}" in
  pack)
    BUILD_DIR=build/release scripts/gpu/gemm-tune.sh bundle > /dev/null
    BUILD_DIR=build/release scripts/gpu/dispatch-bench.sh bundle > /dev/null
    BUILD_DIR=build/release scripts/gpu/python-gemm.sh bundle > /dev/null
    rm -rf build/release/devlib && mkdir -p build/release/devlib .carry
    bundle_libraries build/release/devlib "${gpu_tests[@]/#/build/release/}" build/release/bin/*
    {
      printf '%s\n' build/release/bin build/release/lib build/release/devlib \
        "${gpu_tests[@]/#/build/release/}" build/gemm-tune-bundle build/python-bundle .whl \
        .device/dispatch third_party/cutlass/include
      find build/release -name '*.cmake' -not -path '*/CMakeFiles/*'
    } > .carry/files.txt
    echo "$root" > .carry/built-at.txt  # where the build's absolute paths point
    tar -cf - -T .carry/files.txt | xz -T0 -6 > "$archive"
    du -h "$archive"
    ;;
  unpack)
    tar -xJf "$archive"
    # The prebuilt tests name the folder they were built in: make it this repository.
    built_at="$(cat .carry/built-at.txt)"
    if [[ "$root" != "$built_at" ]]; then
      [[ -e "$built_at" && ! -L "$built_at" ]] && { echo "carry.sh: $built_at exists" >&2; exit 1; }
      mkdir -p "$(dirname "$built_at")" && ln -sfn "$root" "$built_at"
    fi
    ;;
  *)
    echo "carry.sh: pack | unpack" >&2
    exit 64
    ;;
esac
