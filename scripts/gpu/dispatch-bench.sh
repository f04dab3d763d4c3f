#!/usr/bin/env bash
# Issue 19 on the H200: the GEMM launch table for every config kind, and dispatch and warm start
# over the 25-shape GEMM suite (bench/runtime/gemm_dispatch_shapes.txt).
#
#   scripts/gpu/dispatch-bench.sh bundle   here, after building bench_runtime_shapes,
#                                          bench_runtime_cuda, cutune-cuda-worker and cutune-nvrtc
#                                          in build/release: copies them with their non-system
#                                          libraries to .device/dispatch/bundle and writes
#                                          .device/dispatch/run.sh (carry .device and
#                                          third_party/cutlass/include)
#   scripts/gpu/dispatch-bench.sh [run]    on the GPU machine; about 5 minutes, at most $LIMIT s
#                                          (default 330)
#
# `run`:
#   1. bench_runtime_cuda --no-spec --rounds 11: host ns per GEMM launch at 256^3 for the default
#      config, ping-pong, a cooperative 2x1 cluster with fast_launch and split-K: raw
#      cuLaunchKernelEx (two launches for split-K), GemmLaunch::launch, the runtime kernel,
#      Runtime::get by query and by name (about 30 s).
#   2. bench_runtime_shapes --family gemm: the 20 `fit` shapes tuned in order ($BUDGET configs,
#      default 10, at most $TUNE_SECONDS s each, default 7, no fit tune started after
#      $SUITE_SECONDS s, default 130; warm-started from the shapes before), the 5 `held_out` shapes
#      tuned cold and warm (evaluations and seconds to within 2% of each one's best; the warm run
#      kept as its tune), each shape's 2 best configs cross-measured on every shape as the space
#      repairs them, and the dispatch fit (<= 8 configs) leave-one-shape-out with its curve.
#      Compiles are shared across shapes (a cubin depends only on config, dtype and B layout).
# Everything goes to $OUT (default build/dispatch-bench/out); summary.txt last.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bundle="$root/.device/dispatch/bundle"
mode="${1:-run}"
# shellcheck source=scripts/gpu/lib.sh
source "$root/scripts/gpu/lib.sh"

if [[ "$mode" == bundle ]]; then
  set -e
  build="${BUILD_DIR:-$root/build/release}"
  rm -rf "$bundle"
  mkdir -p "$bundle/bin" "$bundle/lib"
  cp "$build/bin/cutune-cuda-worker" "$build/bin/cutune-nvrtc" \
    "$build/bench/runtime/bench_runtime_cuda" "$build/bench/runtime/bench_runtime_shapes" \
    "$bundle/bin/"
  bundle_libraries "$bundle/lib" "$bundle"/bin/*
  cat > "$root/.device/dispatch/run.sh" <<'RUN'
#!/usr/bin/env bash
# GEMM launch table for every config kind, then dispatch and warm
# start over the 25-shape GEMM suite. Run from the repository root with .device and
# third_party/cutlass/include carried. Expected wall time: about 5 minutes (at most 330 s).
exec scripts/gpu/dispatch-bench.sh run
RUN
  chmod +x "$root/.device/dispatch/run.sh"
  du -sh "$bundle"
  exit 0
fi
[[ "$mode" == run ]] || { echo "dispatch-bench.sh: unknown mode '$mode' (bundle | run)" >&2; exit 64; }

start_clock "${LIMIT:-330}"

out="${OUT:-$root/build/dispatch-bench/out}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
enter_runtime_bundle dispatch-bench.sh "$bundle" "$out"
export XDG_CACHE_HOME="$scratch/cache"
export TMPDIR="$scratch/tmp"
record_gpu "$out/gpu.txt"

echo "=== 1. GEMM launch overhead per config kind (bench_runtime_cuda) at $(elapsed) s"
timeout "$(remaining 90)" "$bin/bench_runtime_cuda" --no-spec --rounds 11 > "$out/launch.md" 2> "$out/launch.log"
echo "  exit status $?"
cat "$out/launch.md"
tail -3 "$out/launch.log"

echo "=== 2. dispatch and warm start over the GEMM suite at $(elapsed) s"
shapes_file="$root/bench/runtime/gemm_dispatch_shapes.txt"
fit=$(awk '$1 == "fit" {print $2}' "$shapes_file" | paste -sd';')
held_out=$(awk '$1 == "held_out" {print $2}' "$shapes_file" | paste -sd';')
rm -f "$out/shapes/results.db"
timeout "$(remaining 330)" "$bin/bench_runtime_shapes" --family gemm \
  --budget "${BUDGET:-10}" --time "${TUNE_SECONDS:-7}" --retime-top 1 --candidates 2 \
  --suite-seconds "${SUITE_SECONDS:-130}" \
  --max-configs 8 --shapes "$fit" --compare "$held_out" \
  --db "$out/shapes/results.db" > "$out/shapes.log" 2> "$out/shapes.err"
echo "  exit status $? (log: shapes.log, shapes.err)"

{
  echo "=== GPU"; cat "$out/gpu.txt"
  echo; echo "=== GEMM launch overhead (256^3 bf16, host ns per launch)"; cat "$out/launch.md"
  echo; echo "=== GEMM suite: tunes, warm vs cold, dispatch"
  cat "$out/shapes.log"
  tail -5 "$out/shapes.err"
  echo; echo "total $(elapsed) s"
} > "$out/summary.txt"
cat "$out/summary.txt"
