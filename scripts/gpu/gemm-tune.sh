#!/usr/bin/env bash
# Autotunes the Hopper GEMM family through the tuner (`cutune tune gemm`) on the GPU machine and
# compares it with cuBLASLt timed in the same worker, same data, same timing.
#
#   scripts/gpu/gemm-tune.sh bundle     here, on a build machine: build the tool, the worker and
#                                       the runtime benchmarks (bench_runtime_cuda,
#                                       bench_runtime_shapes, test_runtime_gemm_gpu; used by
#                                       scripts/gpu/runtime-bench.sh), gemm_peer_bench (used by
#                                       scripts/gpu/gemm-peers.sh), graph_timer_check (timing
#                                       methods on cuBLASLt, run alone) and libcutune_gemm_capi
#                                       (peers.py's cutune column, in lib/), and copy them with
#                                       their non-system libraries to build/gemm-tune-bundle (carry
#                                       that folder to the GPU)
#   scripts/gpu/gemm-tune.sh [run]      on the GPU machine (see below); total under 9 minutes
#
# The GPU image has the CUDA toolkit but not the project's Debian dependencies (fmt, CLI11,
# SQLite, XGBoost, muparser), so `run` uses build/gemm-tune-bundle when it exists, and otherwise
# configures and builds the project there (which needs those dependencies).
#
# `run`, all with a cold cache (a fresh compile cache and a fresh results store):
#   1. S3: a full tune of 2048x4096x4096 bf16 (heuristic seeds on, default strategy, budget
#      $S3_BUDGET configs or $S3_SECONDS s): distinct configs, outcomes, normalizer and encoder
#      errors, time to within 2 % of the final best, tuned TFLOP/s against cuBLASLt.
#   2. default_config alone against cuBLASLt on each suite shape (a tune with budget 1).
#   3. short tunes of the other suite shapes, started until $SHORT_UNTIL s (default 430) have
#      passed.
# Every tune ends in the final tournament (docs/tournament.md): per shape the table gives the
# winner's paired ratio against the default with its 95 % interval, tuned/cuBLAS from the same
# rounds (cuBLASLt is timed inside them), and the tournament's share of the tune's wall time.
# S3_REPEATS=3 repeats the S3 tune (fresh store and cache each) for the spread of tuned/cuBLAS;
# SKIP_SUITE=1 leaves out steps 2 and 3 (three S3 tunes and the suite do not fit one call).
# The table comes last; logs and JSON reports go to $OUT (or build/gemm-tune/out).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bundle="$root/build/gemm-tune-bundle"
mode="${1:-run}"
# shellcheck source=scripts/gpu/lib.sh
source "$root/scripts/gpu/lib.sh"

if [[ "$mode" == bundle ]]; then
  set -e
  build="${BUILD_DIR:-$root/build/gemmtune}"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
  ninja -C "$build" -j"$(nproc)" cutune cutune-cuda-worker cutune-nvrtc bench_runtime_cuda \
    bench_runtime_shapes test_runtime_gemm_gpu gemm_peer_bench graph_timer_check cutune_gemm_capi \
    gemm_fp8_library
  rm -rf "$bundle"
  mkdir -p "$bundle/bin" "$bundle/lib"
  cp "$build/bin/cutune" "$build/bin/cutune-cuda-worker" "$build/bin/cutune-nvrtc" \
    "$build/bench/runtime/bench_runtime_cuda" \
    "$build/bench/runtime/bench_runtime_shapes" "$build/tests/families/gemm/test_runtime_gemm_gpu" \
    "$build/bench/gpu/gemm_peer_bench" "$build/bench/gpu/graph_timer_check" \
    "$build/bench/gpu/gemm_fp8_library" "$bundle/bin/"
  cp "$build/lib/libcutune_gemm_capi.so" "$bundle/lib/"  # needs only the driver
  bundle_libraries "$bundle/lib" "$bundle"/bin/*
  du -sh "$bundle"
  ls "$bundle/lib"
  exit 0
fi
[[ "$mode" == run ]] || { echo "gemm-tune.sh: unknown mode '$mode' (bundle | run)" >&2; exit 64; }

start_clock
out="${OUT:-$root/build/gemm-tune/out}"
work="$(mktemp -d /tmp/gemm-tune.XXXXXX)"
mkdir -p "$out"
require_nvcc gemm-tune.sh

if [[ -x "$bundle/bin/cutune" ]]; then
  bin="$bundle/bin"
  export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  build="$root/build/gpu-gemm"
  generator=("-G" "Unix Makefiles")
  command -v ninja > /dev/null && generator=("-G" "Ninja")
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCUTUNE_BUILD_TESTS=OFF -DCUTUNE_BUILD_BENCH=OFF > "$out/configure.log" 2>&1 ||
    { tail -20 "$out/configure.log"; echo "gemm-tune.sh: configure failed (no bundle?)" >&2; exit 1; }
  cmake --build "$build" -j16 --target cutune cutune-cuda-worker > "$out/build.log" 2>&1 ||
    { tail -40 "$out/build.log"; exit 1; }
  bin="$build/bin"
fi
add_cublaslt_path
export_gemm_environment gemm-tune.sh "$bin"
export XDG_CACHE_HOME="$work/cache"   # cold compile cache
record_gpu "$out/gpu.txt"
echo "setup done at $(elapsed) s"

# tune NAME PROBLEM ARGS...: one `cutune tune gemm` with a fresh store; the JSON report goes to
# $out/NAME.json and the progress log to $out/NAME.log.
tune() {
  local name="$1" problem="$2"
  shift 2
  "$bin/cutune" tune gemm --problem "$problem" --db "$work/$name.db" --json "$@" \
    > "$out/$name.json" 2> "$out/$name.log"
  local status=$?
  [[ $status -eq 0 ]] || { echo "  $name: exit status $status"; tail -5 "$out/$name.log"; }
}

S3_BUDGET="${S3_BUDGET:-100}"
S3_SECONDS="${S3_SECONDS:-240}"
S3_REPEATS="${S3_REPEATS:-1}"
for repeat in $(seq 1 "$S3_REPEATS"); do
  name=s3
  (( repeat == 1 )) || name="s3_repeat$repeat"
  (( repeat == 1 )) || export XDG_CACHE_HOME="$work/cache$repeat"  # cold again
  echo "=== S3 ($name): 2048x4096x4096 bf16, budget $S3_BUDGET configs or $S3_SECONDS s, cold cache"
  tune "$name" m=2048,n=4096,k=4096,dtype=bf16 --budget "$S3_BUDGET" --time "$S3_SECONDS" --show 10
  echo "$name done at $(elapsed) s"
done
export XDG_CACHE_HOME="$work/cache"

shapes=(2048x4096x4096 4096x4096x4096 8192x8192x8192 1024x8192x8192 128x8192x8192
        8192x8192x1024 4096x14336x4096)
problem_of() { IFS=x read -r m n k <<< "$1"; echo "m=$m,n=$n,k=$k,dtype=bf16"; }
[[ "${SKIP_SUITE:-0}" == 1 ]] && shapes_to_run=() || shapes_to_run=("${shapes[@]}")
echo "=== default_config alone vs cuBLASLt"
for shape in "${shapes_to_run[@]}"; do
  tune "default_$shape" "$(problem_of "$shape")" --budget 1
done
echo "defaults done at $(elapsed) s"

echo "=== short tunes of the other suite shapes (warm compile cache)"
for shape in "${shapes_to_run[@]:1}"; do
  (( $(elapsed) < ${SHORT_UNTIL:-430} )) || { echo "  out of time before $shape"; break; }
  tune "short_$shape" "$(problem_of "$shape")" --budget 40 --time 35
done
echo "all done at $(elapsed) s"

python3 - "$out" "$S3_REPEATS" "${shapes[@]}" <<'EOF' | tee "$out/summary.txt"
import json, os, sys
out, repeats, shapes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def load(name):
    path = os.path.join(out, name + ".json")
    try:
        with open(path) as f:
            return json.load(f)
    except Exception:
        return None
def ref(r):
    return (r or {}).get("reference") or {}
def ratio(r, key):
    t, c = (r or {}).get(key), ref(r).get("tflops")
    return f"{t / c:.3f}" if t and c else "-"
def f1(x):
    return f"{x:.1f}" if isinstance(x, (int, float)) else "-"
s3 = load("s3")
print("\n=== S3 full tune, 2048x4096x4096 bf16")
if s3:
    best = s3.get("best", {})
    print(f"distinct configs evaluated: {s3['evaluated']}  outcomes: {s3['outcomes']}")
    print(f"normalizer drops: {s3['dropped_by_normalizer']}  encoder errors: {s3.get('encoder_errors')}")
    print(f"tune wall time: {f1(s3['seconds'])} s  best first found at {f1(s3['seconds_to_best'])} s  "
          f"within 2% of the final best at {f1(s3.get('seconds_to_within_2pct'))} s")
    print(f"tuned: {f1(s3.get('best_tflops'))} TFLOP/s  default: {f1(s3.get('default_tflops'))} TFLOP/s  "
          f"cuBLASLt (same run): {f1(ref(s3).get('tflops'))} TFLOP/s  tuned/cuBLAS: {ratio(s3, 'best_tflops')}")
    print("winning config:", json.dumps(best.get("config")))
else:
    print("no report")

def winner(r):
    t = (r or {}).get("tournament")
    return t["finalists"][t["winner"]] if t else None
def interval(ratio, low, high):
    return f"{ratio:.3f} [{low:.3f}, {high:.3f}]" if ratio else "-"
def vs_default(r):
    w = winner(r)
    return interval(w["ratio"], w["ratio_low"], w["ratio_high"]) if w else "-"
def vs_cublas(r):
    w = winner(r)
    v = (w or {}).get("vs_reference") or {}
    return interval(v.get("ratio"), v.get("low"), v.get("high")) if v.get("rounds") else "-"
def share(r):
    t = (r or {}).get("tournament")
    return f"{100 * t['share_of_wall_time']:.1f}%" if t else "-"

print("\n=== final tournament (paired rounds, cuBLASLt inside them)")
runs = ["s3"] + [f"s3_repeat{i}" for i in range(2, repeats + 1)]
print(f"{'run':<17}{'winner/default [95% CI]':>26}{'tuned/cuBLAS [95% CI]':>26}{'share':>8}{'rounds':>8}")
same_rounds = []
for name in runs + ["short_" + s for s in shapes[1:]]:
    r = load(name)
    if not r:
        continue
    w = winner(r)
    v = ((w or {}).get("vs_reference") or {}).get("ratio")
    if name.startswith("s3") and v:
        same_rounds.append(v)
    print(f"{name:<17}{vs_default(r):>26}{vs_cublas(r):>26}{share(r):>8}"
          f"{str((w or {}).get('rounds', '-')):>8}")
if len(same_rounds) > 1:
    mean = sum(same_rounds) / len(same_rounds)
    spread = max(abs(x / mean - 1) for x in same_rounds)
    print(f"S3 tuned/cuBLAS over {len(same_rounds)} tunes: "
          + ", ".join(f"{x:.3f}" for x in same_rounds) + f"; within +-{100 * spread:.1f}% of their mean")
print("\n=== suite: TFLOP/s, re-timed (5x budget), cuBLASLt timed likewise in the same worker")
print(f"{'shape':<17}{'cuBLAS':>8}{'default':>9}{'def/cuB':>9}{'tuned':>8}{'tun/cuB':>9}{'configs':>9}")
for shape in shapes:
    d = load("default_" + shape)
    t = s3 if shape == "2048x4096x4096" else load("short_" + shape)
    # A budget-1 tune re-times its one config, the default, as long as cuBLASLt is timed.
    print(f"{shape:<17}{f1(ref(d).get('tflops')):>8}{f1((d or {}).get('best_tflops')):>9}"
          f"{ratio(d, 'best_tflops'):>9}{f1((t or {}).get('best_tflops')):>8}"
          f"{ratio(t, 'best_tflops'):>9}{str((t or {}).get('evaluated', '-')):>9}")
EOF
rm -rf "$work"
