#!/usr/bin/env bash
# The runtime's figures for the built-in Hopper GEMM on the GPU machine (docs/perf.md, issue 7):
# the GEMM runtime family's device test, its launch overhead against raw launches, and the
# warm-start and shape-dispatch suite.
#
#   scripts/gpu/runtime-bench.sh bundle   here, on a build machine: the same bundle as
#                                         `scripts/gpu/gemm-tune.sh bundle` (build/gemm-tune-bundle,
#                                         which holds this script's binaries too); carry it, with
#                                         third_party/cutlass/include, to the GPU
#   scripts/gpu/runtime-bench.sh [run]    on the GPU machine; about 6-8 minutes in all
#
# `run`, each step bounded by `timeout` so that the whole stays under $LIMIT s (default 570):
#   1. test_runtime_gemm_gpu: kernels from Runtime::get checked against a host reference, the
#      prepared-launch cache, split-K on the kernel's own workspace, store keys equal the tuner's.
#   2. bench_runtime_cuda: host ns per launch, row_sum example and the GEMM (raw cuLaunchKernelEx,
#      GemmLaunch::launch, GemmRuntimeKernel::launch, through Runtime::get, uncached).
#   3. bench_runtime_shapes --family gemm over the 7 suite shapes ($SUITE_BUDGET configs, at most
#      $SUITE_SECONDS s per tune, warm-started from the shapes before), warm versus cold on
#      2048x8192x4096, cross-measure of every winner on every shape, dispatch fit (<= 8 configs).
# Everything is written under $OUT (default build/runtime-bench/out): logs, the suite's store
# ($OUT/shapes/results.db) and summary.txt; compile caches and temporary files also go there and
# are deleted at the end.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bundle="$root/build/gemm-tune-bundle"
mode="${1:-run}"
# shellcheck source=scripts/gpu/lib.sh
source "$root/scripts/gpu/lib.sh"

if [[ "$mode" == bundle ]]; then
  exec "$root/scripts/gpu/gemm-tune.sh" bundle
fi
[[ "$mode" == run ]] || { echo "runtime-bench.sh: unknown mode '$mode' (bundle | run)" >&2; exit 64; }

start_clock "${LIMIT:-570}"

out="${OUT:-$root/build/runtime-bench/out}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
enter_runtime_bundle runtime-bench.sh "$bundle" "$out"
export XDG_CACHE_HOME="$scratch/cache"   # cold compile caches, inside $OUT
export TMPDIR="$scratch/tmp"
record_gpu "$out/gpu.txt"
echo "setup done at $(elapsed) s"

echo "=== 1. GEMM runtime family on the device (test_runtime_gemm_gpu)"
if [[ "${SKIP_TEST:-0}" != 1 ]]; then
  timeout "$(remaining 150)" "$bin/test_runtime_gemm_gpu" > "$out/gemm_runtime_test.log" 2>&1
  echo "  exit status $? (log: gemm_runtime_test.log)"
  grep -E '^\[  (PASSED|FAILED) ' "$out/gemm_runtime_test.log" | sed 's/^/  /'
fi
echo "test done at $(elapsed) s"

echo "=== 2. launch overhead (bench_runtime_cuda)"
timeout "$(remaining 150)" "$bin/bench_runtime_cuda" > "$out/launch.md" 2> "$out/launch.log"
echo "  exit status $?"
cat "$out/launch.md"
echo "launch bench done at $(elapsed) s"

echo "=== 3. warm start and dispatch over the suite shapes (bench_runtime_shapes --family gemm)"
shapes="m=2048,n=4096,k=4096,dtype=bf16;m=4096,n=4096,k=4096,dtype=bf16;m=1024,n=8192,k=8192,dtype=bf16"
shapes+=";m=128,n=8192,k=8192,dtype=bf16;m=8192,n=8192,k=1024,dtype=bf16"
shapes+=";m=4096,n=14336,k=4096,dtype=bf16;m=8192,n=8192,k=8192,dtype=bf16"
rm -f "$out/shapes/results.db"
timeout "$(remaining 420)" "$bin/bench_runtime_shapes" --family gemm \
  --budget "${SUITE_BUDGET:-10}" --time "${SUITE_SECONDS:-25}" --retime-top 2 --max-configs 8 \
  --shapes "$shapes" --compare "m=2048,n=8192,k=4096,dtype=bf16" \
  --db "$out/shapes/results.db" > "$out/shapes.log" 2> "$out/shapes.err"
echo "  exit status $? (log: shapes.log, shapes.err)"
echo "all done at $(elapsed) s"

{
  echo "=== GPU"; cat "$out/gpu.txt"
  echo; echo "=== GEMM runtime device test"
  grep -E '^\[  (PASSED|FAILED) |Failure' "$out/gemm_runtime_test.log" 2>/dev/null || echo "(skipped)"
  echo; echo "=== launch overhead"; cat "$out/launch.md"
  echo; echo "=== suite (per-shape tunes, then summary)"
  sed -n '1,/^$/p' "$out/shapes.log"
  sed -n '/^=== summary/,$p' "$out/shapes.log"
  tail -3 "$out/shapes.err"
  echo; echo "total $(elapsed) s"
} | tee "$out/summary.txt"
