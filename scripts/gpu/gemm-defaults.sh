#!/usr/bin/env bash
# Issue 28 in one GPU call: is default_config strong on every shape a program may pass? Per shape of
# bench/gpu/gemm_shapes.txt (bf16, B K x N): cuBLASLt, default_config and the default rule's
# candidates (bench/gpu/gemm_candidates.txt) in one gemm_peer_bench process (ratios paired to
# cuBLASLt, every config checked against cuBLAS before and after timing), the skinny shapes also
# back to back (--flush 0); default_config in fp16 and in x @ W.T on a subset; 30-config tunes on
# TUNE_SHAPES; then peers.py: torch's cuBLAS, cutune's default (and tuned) cubin, the Triton
# tutorial-form autotune and inductor's max-autotune Triton templates, flushed and, for the skinny
# shapes, back to back. Table (markdown and JSON) from bench/gpu/peer_table.py into $OUT.
#
#   scripts/gpu/gemm-defaults.sh bundle   here: build/gemm-tune-bundle (gemm-tune.sh bundle),
#                                         .device/defaults/cache (every default and candidate
#                                         cubin of the list compiled ahead: nvcc, no GPU) and
#                                         .device/defaults/carry.tar.xz (the bundle and the
#                                         CUTLASS headers, about 15 MB)
#   scripts/gpu/gemm-defaults.sh          on the H200, carrying .device/defaults only
#
# Expected wall time on the H200 about 7.5 minutes, bounded by LIMIT (440 s; no tune starts after
# TUNE_STOP, 120 s; no C++ run after CPP_STOP, 270 s; no Triton column after TRITON_STOP, 380 s;
# every command under `timeout` within LIMIT): precompile 15-30 s (cubins carried), two tunes
# 40-50 s each and a back-to-back one 15-20 s, C++ columns of 25 shapes, 7 back to back and 12
# fp16 / x @ W.T runs 2-3 s each, peers.py the rest (inductor's autotune costs 1-30 s a shape: the shapes past TRITON_STOP get
# cuBLAS and cutune only). Shapes come in the list's order: ragged, small and skinny first.
# Environment: SHAPES (MxNxK,...; default the whole list), TUNE_SHAPES, TUNE_B2B_SHAPES (tuned with
# timing=back_to_back, benched back to back; 16x8192x8192), TUNE_BUDGET (30), TUNE_WIDE_SHAPES
# (none; also tuned with TUNE_WIDE_BUDGET configs, 100, both winners benched side by side),
# SUBSET (shapes for fp16 and x @ W.T), REPS (30), ROUNDS (3), OUT (build/gemm-defaults/out).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/gpu/lib.sh
source "$root/scripts/gpu/lib.sh"
bundle="$root/build/gemm-tune-bundle"
bin="$bundle/bin"
cache="$root/.device/defaults/cache"  # XDG_CACHE_HOME: the compile cache under cutune/cuda
plans="$(mktemp -d /tmp/gemm-defaults-plans.XXXXXX)"  # per problem, the configs it times
IFS=, read -r -a shapes <<< "${SHAPES:-$(python3 "$root/bench/gpu/gemm_shapes.py")}"
IFS=, read -r -a skinny <<< "$(python3 "$root/bench/gpu/gemm_shapes.py" skinny)"
IFS=, read -r -a tune_shapes <<< "${TUNE_SHAPES:-3000x5000x2000,512x2048x2048}"
IFS=, read -r -a tune_b2b <<< "${TUNE_B2B_SHAPES:-16x8192x8192}"
IFS=, read -r -a tune_wide <<< "${TUNE_WIDE_SHAPES:-}"
IFS=, read -r -a subset <<< "${SUBSET:-3000x5000x2000,512x2048x2048,16x8192x8192,64x10240x8192,4096x18944x3584,2048x4096x4096}"
problem_of() {  # SHAPE DTYPE LAYOUT
  local m n k
  IFS=x read -r m n k <<< "$1"
  echo "m=$m,n=$n,k=$k,dtype=$2$([[ "$3" == 1 ]] && echo ,b_layout=n_by_k)"
}

# plan_job SHAPE DTYPE LAYOUT [--candidates]: defaults_plan.py's arguments and output file for xargs.
plan_job() {
  printf '%s\0%s\0%s\0%s\0' "$bin/cutune" "$(problem_of "$1" "$2" "$3")" "$plans/$1_$2_$3.txt" "${4:-}"
}

# make_plans: every problem's configs (bench/gpu/defaults_plan.py) into $plans/SHAPE_DTYPE_LAYOUT.txt,
# all at once: bf16 x @ W with the rule's candidates for every shape, fp16 on SUBSET, and x @ W.T on
# SUBSET with the candidates too (the rule's choice for a K-major B rests on them).
make_plans() {
  local shape
  # shellcheck disable=SC2016  # expanded by the shell xargs starts
  {
    for shape in "${shapes[@]}"; do plan_job "$shape" bf16 0 --candidates; done
    for shape in "${subset[@]}"; do
      plan_job "$shape" fp16 0 && plan_job "$shape" bf16 1 --candidates
    done
  } | xargs -0 -n 4 -P "$(nproc)" sh -c 'python3 "$0" "$1" "$2" ${4:+"$4"} > "$3"' \
    "$root/bench/gpu/defaults_plan.py"
}

# precompile: every planned cubin into the compile cache, all at once (one compile per config,
# dtype and layout: the cache key has no shape). Where the cache holds them already (carried from
# `bundle`), each is a lookup.
precompile() {
  local file name shape dtype layout config
  for file in "$plans"/*.txt; do
    name="$(basename "$file" .txt)"
    IFS=_ read -r shape dtype layout <<< "$name"
    sed "s|^|$shape $dtype $layout |" "$file"
  done | awk '!seen[$2 " " $3 " " substr($4, index($4, "=") + 1)]++' |
    while read -r shape dtype layout config; do
      printf '%s\0%s\0' "$(problem_of "$shape" "$dtype" "$layout")" "$config"
    done > "$plans/compile-jobs"
  # shellcheck disable=SC2016  # expanded by the shell xargs starts
  xargs -0 -n 2 -P "$(nproc)" sh -c '"$0" --problem "$1" --config "$2" --compile-only 1 > /dev/null' \
    "$bin/gemm_peer_bench" < "$plans/compile-jobs"
}

if [[ "${1:-run}" == bundle ]]; then
  set -e
  BUILD_DIR="${BUILD_DIR:-$root/build/release}" "$root/scripts/gpu/gemm-tune.sh" bundle > /dev/null
  mkdir -p "$cache" "$root/build/gemm-defaults-stub"
  # gemm_peer_bench links the driver, which --compile-only never calls: the toolkit's stub stands
  # in for it on a machine without one.
  ln -sfn /usr/local/cuda/lib64/stubs/libcuda.so "$root/build/gemm-defaults-stub/libcuda.so.1"
  export XDG_CACHE_HOME="$cache"
  export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}:$root/build/gemm-defaults-stub"
  export_gemm_environment gemm-defaults.sh "$bin"
  # The cache keys name the CUTLASS folder's absolute path: the run links it back (see below).
  echo "$root" > "$cache/../built-at.txt"
  make_plans
  precompile
  rm -rf "$plans"
  pack_carry "$cache/../carry.tar.xz"
  du -sh "$cache/.."
  exit 0
fi

unpack_carry "$cache/../carry.tar.xz" "$bin/gemm_peer_bench"
out="${OUT:-$root/build/gemm-defaults/out}"
work="$(mktemp -d /tmp/gemm-defaults.XXXXXX)"
mkdir -p "$out"
start_clock "${LIMIT:-440}"
enter_gemm_carry gemm-defaults.sh "$bin/gemm_peer_bench" "$cache"  # carry .device/defaults
# The carried cubins are keyed by the CUTLASS path they were compiled with (as carry.sh links the
# build folder).
reach_built_at "$cache/../built-at.txt"
echo "=== plans and precompile from $(elapsed) s"
make_plans
precompile
record_gpu "$out/gpu.txt"
# shellcheck source=scripts/gpu/gemm-defaults-run.sh
source "$root/scripts/gpu/gemm-defaults-run.sh"
